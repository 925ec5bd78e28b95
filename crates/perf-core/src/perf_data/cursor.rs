// SPDX-License-Identifier: GPL-2.0-only
//! A reader of one part of a perf.data file (a feature section, the
//! tracing data) in the file's byte order. Every read is checked against
//! the part's end; a short one is [`DataErrorKind::Truncated`] naming the
//! part, the field and the file offset.

use crate::endian::Endian;
use crate::error::{DataErrorKind, Result};

/// Reads `b`, which lies at file offset `base` of `path`.
pub(crate) struct SectionCursor<'a> {
    b: &'a [u8],
    pos: usize,
    /// The byte order of the numbers (the tracing data names its own).
    pub(crate) order: Endian,
    /// The part, for errors (`feature NRCPUS`, `tracing data`).
    what: String,
    path: &'a str,
    base: u64,
}

impl<'a> SectionCursor<'a> {
    pub(crate) fn new(b: &'a [u8], order: Endian, what: String, path: &'a str, base: u64) -> Self {
        SectionCursor {
            b,
            pos: 0,
            order,
            what,
            path,
            base,
        }
    }

    /// The file offset of the next read.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Bytes consumed so far.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    pub(crate) fn left(&self) -> u64 {
        self.b.len().saturating_sub(self.pos) as u64
    }

    pub(crate) fn path(&self) -> &'a str {
        self.path
    }

    #[cold]
    pub(crate) fn short(&self, field: &str, need: u64) -> crate::Error {
        DataErrorKind::Truncated {
            what: format!("{} ({field})", self.what),
            need,
            have: self.left(),
        }
        .at(self.path, self.offset())
    }

    #[cold]
    pub(crate) fn malformed(&self, field: &str, detail: String) -> crate::Error {
        DataErrorKind::Malformed {
            what: format!("{} ({field})", self.what),
            detail,
        }
        .at(self.path, self.offset())
    }

    /// `n` bytes.
    pub(crate) fn take(&mut self, n: u64, field: &str) -> Result<&'a [u8]> {
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.pos.checked_add(n));
        match end.and_then(|e| self.b.get(self.pos..e)) {
            Some(s) => {
                self.pos += s.len();
                Ok(s)
            }
            None => Err(self.short(field, n)),
        }
    }

    pub(crate) fn u32(&mut self, field: &str) -> Result<u32> {
        let b = self.take(4, field)?;
        Ok(self.order.u32_at(b, 0).unwrap_or(0))
    }

    pub(crate) fn u64(&mut self, field: &str) -> Result<u64> {
        let b = self.take(8, field)?;
        Ok(self.order.u64_at(b, 0).unwrap_or(0))
    }

    /// perf's `do_read_string`: `{ u32 len; char s[len]; }`, up to the
    /// first NUL.
    pub(crate) fn string(&mut self, field: &str) -> Result<String> {
        let len = self.u32(field)?;
        let b = self.take(u64::from(len), field)?;
        let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
        Ok(String::from_utf8_lossy(b.get(..end).unwrap_or_default()).into_owned())
    }

    /// `{ u64 size; char text[size]; }`.
    pub(crate) fn text64(&mut self, field: &str) -> Result<String> {
        let n = self.u64(field)?;
        Ok(String::from_utf8_lossy(self.take(n, field)?).into_owned())
    }

    /// Bytes up to a NUL (consumed), at most `max` of them (perf's
    /// `read_string` of the tracing data).
    pub(crate) fn cstring(&mut self, field: &str, max: usize) -> Result<String> {
        let rest = self.b.get(self.pos..).unwrap_or_default();
        let Some(len) = rest.iter().take(max + 1).position(|&c| c == 0) else {
            return Err(if rest.len() <= max {
                self.short(field, rest.len() as u64 + 1)
            } else {
                self.malformed(field, format!("no NUL in {max} bytes"))
            });
        };
        let s = String::from_utf8_lossy(rest.get(..len).unwrap_or_default()).into_owned();
        self.pos += len + 1;
        Ok(s)
    }

    /// A count of items of at least `item` bytes each, checked against
    /// what is left (so a count cannot make anything allocate more than the
    /// part holds).
    pub(crate) fn count(&mut self, field: &str, item: u64) -> Result<u32> {
        let nr = self.u32(field)?;
        let need = u64::from(nr).saturating_mul(item);
        if need > self.left() {
            return Err(self.short(field, need));
        }
        Ok(nr)
    }
}
