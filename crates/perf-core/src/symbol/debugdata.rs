// SPDX-License-Identifier: GPL-2.0-only
//! `.gnu_debugdata` (MiniDebugInfo): an xz-compressed ELF holding a
//! `.symtab` for an otherwise stripped object (Fedora and others ship
//! them). perf reads it from 6.3 on; perf 6.1 does not.
//!
//! Bounded on bad input (an xz bomb): the size the stream's index declares
//! is checked against [`MAX_IMAGE`] before anything is decoded, each
//! block's dictionary against [`MAX_DICT_KIB`] before it is allocated, and
//! the output is read through a cap, so a stream that lies about its size
//! still stops at [`MAX_IMAGE`]. A section over a cap is skipped (the
//! object's other symbol sources are used), as perf skips what it cannot
//! load.

use std::io::Read;

/// The most an embedded image may inflate to. It holds a `.symtab` and
/// its strings only: a few MiB for the biggest libraries.
pub(crate) const MAX_IMAGE: u64 = 256 << 20;

/// The most memory a block's LZMA2 decoder may take, in KiB: `xz -9`'s
/// 64 MiB dictionary and the decoder's own tables.
pub(crate) const MAX_DICT_KIB: u32 = (64 << 10) + 1024;

/// An xz variable-length integer at `*at` (at most 9 bytes).
fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for i in 0..9 {
        let b = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// The uncompressed size the stream's index declares (the sum of its
/// records), from the stream footer; `None` when there is no valid footer
/// or index.
pub(crate) fn declared_size(xz: &[u8]) -> Option<u64> {
    // Stream padding (zeros, in 4-byte units) may follow the footer.
    let mut end = xz.len();
    while end >= 4 && xz.get(end - 4..end)? == [0, 0, 0, 0] {
        end -= 4;
    }
    let footer = xz.get(end.checked_sub(12)?..end)?;
    if footer.get(10..12)? != b"YZ" {
        return None;
    }
    let backward = u32::from_le_bytes(footer.get(4..8)?.try_into().ok()?);
    let index_size = (u64::from(backward) + 1) * 4;
    let index_at = (end - 12).checked_sub(usize::try_from(index_size).ok()?)?;
    let index = xz.get(index_at..end - 12)?;
    if index.first() != Some(&0) {
        return None;
    }
    let mut at = 1;
    let records = varint(index, &mut at)?;
    let mut total = 0u64;
    for _ in 0..records {
        let _unpadded = varint(index, &mut at)?;
        total = total.checked_add(varint(index, &mut at)?)?;
    }
    Some(total)
}

/// The ELF image inside `.gnu_debugdata`, or `None` if it is not a valid
/// xz stream or would inflate past [`MAX_IMAGE`].
pub(crate) fn decompress(xz: &[u8]) -> Option<Vec<u8>> {
    decompress_capped(xz, MAX_IMAGE)
}

/// [`decompress`] with the cap `cap`.
fn decompress_capped(xz: &[u8], cap: u64) -> Option<Vec<u8>> {
    let declared = declared_size(xz)?;
    if declared > cap {
        return None;
    }
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(declared).ok()?)
        .ok()?;
    let reader = lzma_rust2::XzReader::new_mem_limit(xz, false, MAX_DICT_KIB);
    // One byte past the cap tells a stream that lied about its size.
    reader
        .take(cap.saturating_add(1))
        .read_to_end(&mut out)
        .ok()?;
    if out.len() as u64 > cap {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests;
