// SPDX-License-Identifier: GPL-2.0-only
//! The records inside COMPRESSED (81) and COMPRESSED2 (83) records.
//!
//! `perf record -z` compresses each read of a ring with `ZSTD_compressStream`
//! and `ZSTD_flushStream` into records of at most 64 KiB and never ends the
//! frame: the data section is one zstd stream cut into records, and a
//! record can end in the middle of a perf record. So, as perf's
//! `perf_session__process_compressed_event` does, one decompression context
//! lives as long as the file's reader, and the incomplete record at the end
//! of one compressed record's output is carried over to the next one's.
//!
//! Bounds: what one compressed record decompresses to is bounded by the
//! ring size perf recorded (`HEADER_COMPRESSED`'s `mmap_len`; perf's own
//! buffer is that big) and never more than [`MAX_EXPANSION`]; beyond it the
//! record is refused as a decompression bomb. libzstd refuses frames whose
//! window needs more than 2^27 bytes (its default limit). Memory is thus at
//! most one bound plus one carried-over record plus the window.

use zstd_safe::{DCtx, InBuffer, OutBuffer};

use crate::error::{DataErrorKind, Result};

/// The most one compressed record may expand to: a 64 KiB record expanding
/// 512-fold. perf's own buffer is `mmap_len` bytes (512 KiB by default).
pub const MAX_EXPANSION: u64 = 32 << 20;

/// The first size of the output buffer; it grows (doubling) up to the
/// bound only when a record's output needs it.
const FIRST_ROOM: usize = 1 << 20;

/// Decompressed records waiting to be read, and the stream state.
pub(crate) struct Decompressor {
    dctx: DCtx<'static>,
    /// Decompressed bytes `buf[head..tail]` not read yet; the rest of
    /// `buf` is room (zeroed once, reused).
    buf: Vec<u8>,
    head: usize,
    tail: usize,
    /// Offset of the compressed record the bytes came from (perf reports
    /// every record of it at that offset).
    offset: u64,
    bound: u64,
    /// libzstd's last hint: 0 at the end of a frame, [`BLOCK_HEADER`]
    /// between blocks, else the input the block in hand still needs.
    hint: usize,
}

/// `ZSTD_blockHeaderSize`: the hint libzstd gives between two blocks.
const BLOCK_HEADER: usize = 3;

impl std::fmt::Debug for Decompressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decompressor")
            .field("pending", &self.pending().len())
            .field("offset", &self.offset)
            .field("bound", &self.bound)
            .finish()
    }
}

impl Decompressor {
    /// A decompressor whose records may each expand to `bound` bytes
    /// (clamped to [`MAX_EXPANSION`]).
    pub(crate) fn new(bound: u64) -> Decompressor {
        Decompressor {
            dctx: DCtx::create(),
            buf: Vec::new(),
            head: 0,
            tail: 0,
            offset: 0,
            bound: bound.clamp(1, MAX_EXPANSION),
            hint: 0,
        }
    }

    /// Sets the bound for the next records (from `HEADER_COMPRESSED`).
    pub(crate) fn set_bound(&mut self, bound: u64) {
        self.bound = bound.clamp(1, MAX_EXPANSION);
    }

    /// Decompresses the payload of the compressed record at `offset` of
    /// `path`, after what is left of the previous one.
    ///
    /// # Errors
    /// [`DataErrorKind::Zstd`] for data libzstd refuses,
    /// [`DataErrorKind::DecompressionBound`] when the output exceeds the
    /// bound.
    pub(crate) fn feed(&mut self, input: &[u8], offset: u64, path: &str) -> Result<()> {
        // Carry the unread tail to the front.
        self.buf.copy_within(self.head..self.tail, 0);
        self.tail -= self.head;
        self.head = 0;
        self.offset = offset;
        let carried = self.tail;
        // One byte more than the bound, to see it exceeded.
        let bound = usize::try_from(self.bound).unwrap_or(usize::MAX);
        let limit = carried.saturating_add(bound).saturating_add(1);
        let mut inb = InBuffer::around(input);
        loop {
            if self.buf.len() == self.tail {
                let grown = (self.buf.len().saturating_mul(2))
                    .max(carried + FIRST_ROOM)
                    .min(limit);
                if grown <= self.buf.len() {
                    return Err(
                        DataErrorKind::DecompressionBound { bound: self.bound }.at(path, offset)
                    );
                }
                if self.buf.is_empty() {
                    self.buf = vec![0; grown];
                } else {
                    self.buf.resize(grown, 0);
                }
            }
            let room = self.buf.len();
            let mut out = OutBuffer::around_pos(self.buf.as_mut_slice(), self.tail);
            let result = self.dctx.decompress_stream(&mut out, &mut inb);
            self.tail = out.pos();
            match result {
                Ok(hint) => self.hint = hint,
                Err(code) => {
                    return Err(DataErrorKind::Zstd {
                        detail: zstd_safe::get_error_name(code).to_owned(),
                    }
                    .at(path, offset))
                }
            }
            if self.tail - carried > bound {
                return Err(
                    DataErrorKind::DecompressionBound { bound: self.bound }.at(path, offset)
                );
            }
            // libzstd has given all it can from this input when it took
            // all of it and left room in the output.
            if inb.pos() == input.len() && self.tail < room {
                return Ok(());
            }
        }
    }

    /// The decompressed bytes not read yet.
    pub(crate) fn pending(&self) -> &[u8] {
        self.buf.get(self.head..self.tail).unwrap_or_default()
    }

    /// Marks `n` more bytes as read.
    pub(crate) fn consume(&mut self, n: usize) {
        self.head = self.head.saturating_add(n).min(self.tail);
    }

    /// How much more input the block in hand needs, when the input so far
    /// ended inside a block (perf's `ZSTD_flushStream` ends the data of
    /// each ring read on a block boundary, so the end of the data is one;
    /// the end of a cut COMPRESSED record is not).
    pub(crate) fn unfinished_block(&self) -> Option<usize> {
        match self.hint {
            0 | BLOCK_HEADER => None,
            // Inside a block the hint counts the next block's header too.
            h if h > BLOCK_HEADER => Some(h - BLOCK_HEADER),
            h => Some(h),
        }
    }

    /// The offset of the compressed record the pending bytes came from.
    pub(crate) fn offset(&self) -> u64 {
        self.offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    /// What perf's `zstd_compress_stream_to_records` does: compress and
    /// flush, never end the frame; the output cut into `cut`-byte pieces.
    pub(crate) fn compress_pieces(data: &[u8], cut: usize) -> Vec<Vec<u8>> {
        let mut cctx = zstd_safe::CCtx::create();
        cctx.init(1).unwrap();
        let mut out = vec![0u8; data.len() + 4096];
        let mut pos = 0;
        let mut inb = InBuffer::around(data);
        while inb.pos() < data.len() {
            let mut o = OutBuffer::around_pos(out.as_mut_slice(), pos);
            cctx.compress_stream(&mut o, &mut inb).unwrap();
            pos = o.pos();
        }
        loop {
            let mut o = OutBuffer::around_pos(out.as_mut_slice(), pos);
            let left = cctx.flush_stream(&mut o).unwrap();
            pos = o.pos();
            if left == 0 {
                break;
            }
        }
        out.truncate(pos);
        out.chunks(cut).map(<[u8]>::to_vec).collect()
    }

    fn kind(e: Error) -> DataErrorKind {
        match e {
            Error::PerfData(d) => d.kind,
            e => panic!("{e}"),
        }
    }

    #[test]
    fn one_stream_across_records_with_carry_over() {
        let data: Vec<u8> = (0..200_000u32)
            .flat_map(|i| (i % 251).to_ne_bytes())
            .collect();
        let mut d = Decompressor::new(1 << 20);
        let mut got = Vec::new();
        for (i, piece) in compress_pieces(&data, 1000).iter().enumerate() {
            d.feed(piece, i as u64, "f").unwrap();
            // Read an odd amount, leaving a tail to carry over.
            let n = d.pending().len() / 3 * 2;
            got.extend_from_slice(&d.pending()[..n]);
            d.consume(n);
        }
        got.extend_from_slice(d.pending());
        assert_eq!(got, data);
    }

    #[test]
    fn garbage_and_bombs_are_refused() {
        let mut d = Decompressor::new(1 << 20);
        let e = kind(d.feed(b"this is not zstd at all", 0x40, "f").unwrap_err());
        assert!(matches!(e, DataErrorKind::Zstd { .. }), "{e:?}");
        // 4 MiB of zeros compress to a few hundred bytes.
        let zeros = vec![0u8; 4 << 20];
        let bomb = compress_pieces(&zeros, usize::MAX).concat();
        assert!(bomb.len() < 4096, "{}", bomb.len());
        let mut d = Decompressor::new(1 << 20);
        let e = kind(d.feed(&bomb, 0x80, "f").unwrap_err());
        assert_eq!(e, DataErrorKind::DecompressionBound { bound: 1 << 20 });
        assert!(d.buf.len() <= (1 << 20) + 1, "{}", d.buf.len());
        // The same within the bound is fine.
        let mut d = Decompressor::new(4 << 20);
        d.feed(&bomb, 0x80, "f").unwrap();
        assert_eq!(d.pending().len(), 4 << 20);
    }
}
