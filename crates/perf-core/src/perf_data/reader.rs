// SPDX-License-Identifier: GPL-2.0-only
//! Reading the records of one file's data, streaming: a bounded window of
//! the file (never the whole file in memory), the records of COMPRESSED
//! records in between (see [`decomp`](super::decomp)), the payloads that
//! follow AUXTRACE and HEADER_TRACING_DATA records outside their
//! `header.size`.
//!
//! Records come out in the file's byte order, with their header already
//! read in native values; the session swaps foreign ones before parsing.

use super::abi::*;
use super::decomp::{Decompressor, MAX_EXPANSION};
use super::input::DataFile;
use crate::endian::Endian;
use crate::error::{DataErrorKind, Result};
use crate::record::{Header, HEADER_SIZE};

/// Bytes of the file window (records are at most 64 KiB).
const WINDOW: usize = 1 << 20;

/// A window over a file's data section (read by offset) or a stream.
#[derive(Debug)]
pub(crate) struct ByteReader {
    file: DataFile,
    buf: Vec<u8>,
    head: usize,
    tail: usize,
    /// Offset of `buf[head]` as records are reported (perf counts pipe-mode
    /// offsets from the end of the 16-byte header).
    pos: u64,
    /// What to add to `pos` for the offset in the file.
    file_base: u64,
    /// Start of the data section, as offsets are reported.
    start: u64,
    /// End of the data section (files); streams end at EOF.
    end: Option<u64>,
    eof: bool,
}

impl ByteReader {
    /// A reader of `size` bytes at `offset` of a seekable file (`None`:
    /// to its end), or of a stream from its current position. Offsets are
    /// reported from `shown`, where `offset` is.
    pub(crate) fn new(file: DataFile, offset: u64, size: Option<u64>, shown: u64) -> ByteReader {
        let end = match (file.size, size) {
            (Some(_), Some(size)) => Some(offset.saturating_add(size)),
            (Some(file_size), None) => Some(file_size),
            (None, _) => None,
        };
        ByteReader {
            end: end.map(|e| e.saturating_sub(offset).saturating_add(shown)),
            file,
            buf: Vec::new(),
            head: 0,
            tail: 0,
            pos: shown,
            start: shown,
            file_base: offset.saturating_sub(shown),
            eof: false,
        }
    }

    pub(crate) fn path(&self) -> &str {
        &self.file.path
    }

    /// File offset of the next unread byte.
    pub(crate) fn pos(&self) -> u64 {
        self.pos
    }

    /// The buffered bytes, at least `n` of them unless the data ends first.
    ///
    /// # Errors
    /// I/O errors of the underlying reads.
    #[inline]
    pub(crate) fn fill(&mut self, n: usize) -> Result<&[u8]> {
        if self.tail - self.head < n && !self.eof {
            self.refill(n)?;
        }
        Ok(self.buf.get(self.head..self.tail).unwrap_or_default())
    }

    #[cold]
    fn refill(&mut self, n: usize) -> Result<()> {
        // No bigger than the data left (small files stay small), at least
        // one record.
        let left = self.end.map_or(usize::MAX, |e| {
            usize::try_from(e.saturating_sub(self.pos)).unwrap_or(usize::MAX)
        });
        let want = WINDOW.min(left).max(n);
        if self.buf.is_empty() {
            // Zeroed by the kernel, page by page as it is used.
            self.buf = vec![0; want];
        } else if self.buf.len() < want {
            self.buf.resize(want, 0);
        }
        if self.head + n > self.buf.len() || self.head > self.buf.len() / 2 {
            self.buf.copy_within(self.head..self.tail, 0);
            self.tail -= self.head;
            self.head = 0;
        }
        while self.tail - self.head < n && !self.eof {
            let at = self.pos + (self.tail - self.head) as u64;
            let mut room = self.buf.len() - self.tail;
            if let Some(end) = self.end {
                room = room.min(usize::try_from(end.saturating_sub(at)).unwrap_or(usize::MAX));
            }
            let Some(dst) = self.buf.get_mut(self.tail..self.tail + room) else {
                break;
            };
            let got = if room == 0 {
                0
            } else if self.end.is_some() {
                self.file.read_at(dst, at + self.file_base)?
            } else {
                self.file.read_some(dst, at)?
            };
            if got == 0 {
                self.eof = true;
            }
            self.tail += got;
        }
        Ok(())
    }

    /// Where the data ended before the end its section declares (a file
    /// cut short, or one that shrank): (declared size, bytes there are),
    /// counted from the section's start.
    fn cut_short(&self) -> Option<(u64, u64)> {
        let there = self.pos + (self.tail - self.head) as u64;
        let end = self.end.filter(|&e| self.eof && there < e)?;
        Some((end - self.start, there - self.start))
    }

    /// Marks `n` buffered bytes as read.
    #[inline]
    pub(crate) fn consume(&mut self, n: usize) {
        let n = n.min(self.tail - self.head);
        self.head += n;
        self.pos += n as u64;
    }

    /// Skips `n` bytes, buffered or not.
    ///
    /// # Errors
    /// [`DataErrorKind::Truncated`] if the data ends first; I/O errors.
    pub(crate) fn skip(&mut self, n: u64, what: &str) -> Result<()> {
        let start = self.pos;
        let mut left = n;
        while left > 0 {
            let chunk = usize::try_from(left).unwrap_or(usize::MAX).min(WINDOW);
            let have = self.fill(chunk)?.len().min(chunk);
            if have == 0 {
                return Err(truncated(what, n, n - left, self.path(), start));
            }
            self.consume(have);
            left -= have as u64;
        }
        Ok(())
    }

    /// Reads `n` bytes into a vector that grows as they arrive (a size
    /// field cannot make it allocate more than the data holds).
    ///
    /// # Errors
    /// [`DataErrorKind::Truncated`] if the data ends first; I/O errors.
    pub(crate) fn read_vec(&mut self, n: u64, what: &str) -> Result<Vec<u8>> {
        let start = self.pos;
        let mut out = Vec::new();
        while (out.len() as u64) < n {
            let want = usize::try_from(n - out.len() as u64)
                .unwrap_or(usize::MAX)
                .min(WINDOW);
            let got = self.fill(want)?;
            let take = got.len().min(want);
            if take == 0 {
                return Err(truncated(what, n, out.len() as u64, self.path(), start));
            }
            out.extend_from_slice(got.get(..take).unwrap_or_default());
            self.consume(take);
        }
        Ok(out)
    }
}

#[cold]
fn truncated(what: &str, need: u64, have: u64, path: &str, offset: u64) -> crate::Error {
    DataErrorKind::Truncated {
        what: what.to_owned(),
        need,
        have,
    }
    .at(path, offset)
}

/// One record as read: file-order bytes, native header values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RawRecord<'a> {
    /// File offset (of the enclosing compressed record for records that
    /// came out of one).
    pub(crate) offset: u64,
    /// The header, in native values.
    pub(crate) header: Header,
    /// The `header.size` bytes, in the file's byte order.
    pub(crate) bytes: &'a [u8],
    /// The bytes after the record that it owns (HEADER_TRACING_DATA's
    /// tracing data), if any.
    pub(crate) payload: Option<&'a [u8]>,
}

/// Where the last record handed out lies, to be moved past at the next
/// call (the record borrows the buffer until then).
#[derive(Debug, Clone, Copy, Default)]
struct Deferred {
    /// Bytes of the file window to consume.
    file: usize,
    /// Bytes of the file to skip after them (AUXTRACE data).
    skip: u64,
    /// Bytes of decompressed data to consume.
    decomp: usize,
}

/// The records of one file: [`ByteReader`] plus compressed records and
/// out-of-record payloads.
#[derive(Debug)]
pub(crate) struct RecordReader {
    bytes: ByteReader,
    endian: Endian,
    decomp: Option<Decompressor>,
    decomp_bound: u64,
    /// A record with its tracing data, copied out of the window.
    copied: Vec<u8>,
    deferred: Deferred,
    /// File bytes of the records handed out (and of compressed records),
    /// for a directory's turns (perf's `rd->size`).
    handed: u64,
    /// Compressed records read.
    pub(crate) compressed: u64,
    /// Bytes they decompressed to.
    pub(crate) decompressed_bytes: u64,
}

impl RecordReader {
    pub(crate) fn new(bytes: ByteReader, endian: Endian) -> RecordReader {
        RecordReader {
            bytes,
            endian,
            decomp: None,
            decomp_bound: MAX_EXPANSION,
            copied: Vec::new(),
            deferred: Deferred::default(),
            handed: 0,
            compressed: 0,
            decompressed_bytes: 0,
        }
    }

    pub(crate) fn path(&self) -> &str {
        self.bytes.path()
    }

    /// File bytes of the records handed out so far.
    pub(crate) fn handed(&self) -> u64 {
        self.handed
    }

    /// True when a whole record waits in the decompressed data (perf
    /// processes all of a compressed record's records before it turns to
    /// another file).
    pub(crate) fn has_decomp_record(&self) -> bool {
        self.decomp_record().is_ok_and(|r| r.is_some())
    }

    /// Hands out the last record again at the next call (a record in the
    /// file window or the decompressed data).
    pub(crate) fn unread(&mut self) {
        let d = std::mem::take(&mut self.deferred);
        self.handed -= d.file as u64 + d.skip;
    }

    /// Sets the most a compressed record may expand to (perf's
    /// `comp_mmap_len`).
    pub(crate) fn set_decomp_bound(&mut self, bound: u64) {
        self.decomp_bound = bound;
        if let Some(d) = &mut self.decomp {
            d.set_bound(bound);
        }
    }

    /// The next record, or `None` at the end of the data.
    ///
    /// # Errors
    /// [`DataErrorKind::RecordSize`] for a size below the header,
    /// [`DataErrorKind::Truncated`] for data that ends inside a record,
    /// the decompression errors, I/O errors.
    pub(crate) fn next(&mut self) -> Result<Option<RawRecord<'_>>> {
        let Deferred { file, skip, decomp } = std::mem::take(&mut self.deferred);
        self.bytes.consume(file);
        if skip > 0 {
            self.bytes.skip(skip, "AUXTRACE data")?;
        }
        if let Some(d) = &mut self.decomp {
            d.consume(decomp);
        }
        loop {
            if let Some((header, payload)) = self.decomp_record()? {
                return Ok(Some(self.decomp_front(header, payload)));
            }
            let endian = self.endian;
            let offset = self.bytes.pos();
            let avail = self.bytes.fill(HEADER_SIZE)?;
            if avail.is_empty() {
                return self.at_end(offset).map(|()| None);
            }
            let Some(header) = read_header(avail, endian) else {
                let have = avail.len() as u64;
                return Err(truncated(
                    "data section: the last record header",
                    HEADER_SIZE as u64,
                    have,
                    self.path(),
                    offset,
                ));
            };
            let size = usize::from(header.size);
            if size < HEADER_SIZE {
                return Err(record_size(
                    header,
                    "smaller than the 8-byte header",
                    self.path(),
                    offset,
                ));
            }
            let have = self.bytes.fill(size)?.len();
            if have < size {
                let what = "data section: the last record";
                return Err(truncated(
                    what,
                    size as u64,
                    have as u64,
                    self.path(),
                    offset,
                ));
            }
            match header.type_ {
                PERF_RECORD_COMPRESSED | PERF_RECORD_COMPRESSED2 => {
                    self.decompress(header, offset)?;
                    self.bytes.consume(size);
                    self.handed += size as u64;
                }
                PERF_RECORD_HEADER_TRACING_DATA => {
                    return self.with_tracing_data(header, offset).map(Some)
                }
                _ => {
                    let skip = if header.type_ == PERF_RECORD_AUXTRACE {
                        self.aux_size(header, offset)?
                    } else {
                        0
                    };
                    self.deferred = Deferred {
                        file: size,
                        skip,
                        decomp: 0,
                    };
                    self.handed = self.handed.saturating_add(size as u64).saturating_add(skip);
                    let start = self.bytes.head;
                    let bytes = self.bytes.buf.get(start..start + size).unwrap_or_default();
                    return Ok(Some(RawRecord {
                        offset,
                        header,
                        bytes,
                        payload: None,
                    }));
                }
            }
        }
    }

    /// The next whole record of the decompressed data, as its header and
    /// the size of the payload after it; `None` when there is none or only
    /// part of one (carried over to the next compressed record).
    #[inline]
    fn decomp_record(&self) -> Result<Option<(Header, usize)>> {
        match &self.decomp {
            Some(d) if !d.pending().is_empty() => self.decomp_front_record(d),
            _ => Ok(None),
        }
    }

    fn decomp_front_record(&self, d: &Decompressor) -> Result<Option<(Header, usize)>> {
        let pending = d.pending();
        let Some(header) = read_header(pending, self.endian) else {
            return Ok(None);
        };
        let size = usize::from(header.size);
        let path = self.path();
        if size < HEADER_SIZE {
            let what = "smaller than the 8-byte header (in compressed data)";
            return Err(record_size(header, what, path, d.offset()));
        }
        let Some(rec) = pending.get(..size) else {
            return Ok(None);
        };
        let payload = match header.type_ {
            PERF_RECORD_AUXTRACE => self.endian.u64_at(rec, 8),
            PERF_RECORD_HEADER_TRACING_DATA => self.endian.u32_at(rec, 8).map(u64::from),
            PERF_RECORD_COMPRESSED | PERF_RECORD_COMPRESSED2 => {
                return Err(DataErrorKind::Malformed {
                    what: record_name(header.type_).into(),
                    detail: "a compressed record inside compressed data".into(),
                }
                .at(path, d.offset()));
            }
            _ => Some(0),
        };
        let Some(payload) = payload else {
            return Err(record_size(
                header,
                "too small for its size field",
                path,
                d.offset(),
            ));
        };
        let after = (pending.len() - size) as u64;
        match usize::try_from(payload).ok().filter(|_| payload <= after) {
            Some(n) => Ok(Some((header, n))),
            None => {
                let what = format!("{} data in compressed data", record_name(header.type_));
                Err(truncated(&what, payload, after, path, d.offset()))
            }
        }
    }

    /// Hands out the record at the front of the decompressed data.
    fn decomp_front(&mut self, header: Header, payload: usize) -> RawRecord<'_> {
        let size = usize::from(header.size);
        self.deferred = Deferred {
            file: 0,
            skip: 0,
            decomp: size + payload,
        };
        let Some(d) = &self.decomp else {
            return RawRecord {
                offset: 0,
                header,
                bytes: &[],
                payload: None,
            };
        };
        let pending = d.pending();
        let bytes = pending.get(..size).unwrap_or_default();
        let data = pending.get(size..size + payload).unwrap_or_default();
        let payload = (header.type_ == PERF_RECORD_HEADER_TRACING_DATA).then_some(data);
        RawRecord {
            offset: d.offset(),
            header,
            bytes,
            payload,
        }
    }

    /// A HEADER_TRACING_DATA record and the tracing data after it, copied
    /// out (the data can be larger than the window).
    fn with_tracing_data(&mut self, header: Header, offset: u64) -> Result<RawRecord<'_>> {
        let size = usize::from(header.size);
        // struct perf_record_header_tracing_data { header; u32 size; u32 pad; }
        let rec = self.bytes.fill(size)?;
        let n = self.endian.u32_at(rec, 8).filter(|_| size >= 12);
        let Some(n) = n else {
            return Err(record_size(
                header,
                "too small for its size field",
                self.path(),
                offset,
            ));
        };
        self.copied.clear();
        self.copied
            .extend_from_slice(rec.get(..size).unwrap_or_default());
        self.bytes.consume(size);
        let data = self.bytes.read_vec(
            u64::from(n),
            "tracing data after PERF_RECORD_HEADER_TRACING_DATA",
        )?;
        self.handed += size as u64 + u64::from(n);
        self.copied.extend_from_slice(&data);
        let (bytes, payload) = self.copied.split_at(size);
        Ok(RawRecord {
            offset,
            header,
            bytes,
            payload: Some(payload),
        })
    }

    fn decompress(&mut self, header: Header, offset: u64) -> Result<()> {
        let size = usize::from(header.size);
        let endian = self.endian;
        let bound = self.decomp_bound;
        let ByteReader {
            file, buf, head, ..
        } = &self.bytes;
        let path = file.path.as_str();
        let rec = buf.get(*head..*head + size).unwrap_or_default();
        let data = if header.type_ == PERF_RECORD_COMPRESSED2 {
            // struct perf_record_compressed2 { header; u64 data_size; char data[]; }
            let n = endian.u64_at(rec, 8);
            let data = n.and_then(|n| rec.get(16..16usize.checked_add(usize::try_from(n).ok()?)?));
            match (n, data) {
                (Some(_), Some(d)) => d,
                (None, _) => {
                    return Err(record_size(header, "too small for data_size", path, offset))
                }
                (Some(n), None) => {
                    let what = format!("data_size {n} runs past the record");
                    return Err(record_size(header, &what, path, offset));
                }
            }
        } else {
            // struct perf_record_compressed { header; char data[]; }
            rec.get(HEADER_SIZE..).unwrap_or_default()
        };
        let d = self.decomp.get_or_insert_with(|| Decompressor::new(bound));
        let before = d.pending().len();
        d.feed(data, offset, path)?;
        self.compressed += 1;
        self.decompressed_bytes += (d.pending().len() - before) as u64;
        Ok(())
    }

    fn aux_size(&self, header: Header, offset: u64) -> Result<u64> {
        let size = usize::from(header.size);
        let rec = self
            .bytes
            .buf
            .get(self.bytes.head..self.bytes.head + size)
            .unwrap_or_default();
        // struct perf_record_auxtrace { header; u64 size, offset, reference; u32 idx, tid, cpu, reserved__; }
        self.endian
            .u64_at(rec, 8)
            .filter(|_| size >= 16)
            .ok_or_else(|| record_size(header, "too small for its size field", self.path(), offset))
    }

    /// The end of the file's data: it must be where the data section
    /// says, and what is left of the decompressed data must be nothing.
    fn at_end(&self, offset: u64) -> Result<()> {
        if let Some((need, have)) = self.bytes.cut_short() {
            return Err(truncated("data section", need, have, self.path(), offset));
        }
        let Some(d) = &self.decomp else {
            return Ok(());
        };
        let pending = d.pending();
        if !pending.is_empty() {
            let need =
                read_header(pending, self.endian).map_or(HEADER_SIZE as u64, |h| u64::from(h.size));
            let what = "compressed data: the last record";
            return Err(truncated(
                what,
                need,
                pending.len() as u64,
                self.path(),
                offset,
            ));
        }
        match d.unfinished_block() {
            Some(need) => Err(DataErrorKind::Malformed {
                what: "compressed data".into(),
                detail: format!(
                    "the last COMPRESSED record ends inside a zstd block \
                     ({need} more bytes were needed to decompress it): its records are lost"
                ),
            }
            .at(self.path(), d.offset())),
            None => Ok(()),
        }
    }
}

/// The record header at the front of `b`, in native values.
#[inline]
pub(crate) fn read_header(b: &[u8], endian: Endian) -> Option<Header> {
    Some(Header {
        type_: endian.u32_at(b, 0)?,
        misc: endian.u16_at(b, 4)?,
        size: endian.u16_at(b, 6)?,
    })
}

#[cold]
pub(crate) fn record_size(header: Header, detail: &str, path: &str, offset: u64) -> crate::Error {
    DataErrorKind::RecordSize {
        record: record_name(header.type_),
        size: u64::from(header.size),
        detail: detail.to_owned(),
    }
    .at(path, offset)
}
