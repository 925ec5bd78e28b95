// SPDX-License-Identifier: GPL-2.0-only
//! `.gnu_debugdata` (MiniDebugInfo): an xz-compressed ELF holding a
//! `.symtab` for an otherwise stripped object (Fedora and others ship
//! them). perf reads it from 6.3 on; perf 6.1 does not.

use std::io::Write;

/// The most an embedded image may inflate to: bounds memory on bad input.
const MAX_IMAGE: usize = 512 << 20;

/// A `Write` that refuses to grow past `MAX_IMAGE`.
struct Bounded(Vec<u8>);

impl Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len().saturating_add(buf.len()) > MAX_IMAGE {
            return Err(std::io::Error::other("MiniDebugInfo image too large"));
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The ELF image inside `.gnu_debugdata`, or `None` if it is not a valid
/// xz stream.
pub(crate) fn decompress(xz: &[u8]) -> Option<Vec<u8>> {
    let mut out = Bounded(Vec::new());
    lzma_rs::xz_decompress(&mut &xz[..], &mut out).ok()?;
    Some(out.0)
}
