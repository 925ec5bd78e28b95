// SPDX-License-Identifier: GPL-2.0-only
//! A bounds-checked reader over one record's bytes. Every read either returns
//! the value and moves on, or returns `Error::Malformed` naming the field; it
//! never indexes out of bounds and never panics.

use std::ops::Range;

use crate::error::{Error, Result};

/// Reads native-endian fields from the front of `bytes[pos..]`.
///
/// Positions are offsets from the start of the record, so the ranges it hands
/// out index the record the caller holds.
#[derive(Debug, Clone)]
pub(crate) struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Cursor<'a> {
    /// A cursor at `pos` over `bytes` (the record, possibly cut before its
    /// `sample_id` trailer); `what` names the record in errors.
    #[inline]
    pub(crate) fn new(bytes: &'a [u8], pos: usize, what: &'static str) -> Self {
        Cursor { bytes, pos, what }
    }

    /// The offset of the next read.
    #[inline]
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes left.
    #[cfg(test)]
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    /// `N` bytes.
    #[inline]
    pub(crate) fn bytes<const N: usize>(&mut self, field: &'static str) -> Result<[u8; N]> {
        match self
            .bytes
            .get(self.pos..)
            .and_then(<[u8]>::first_chunk::<N>)
        {
            Some(b) => {
                self.pos += N;
                Ok(*b)
            }
            None => Err(self.short(field, N as u64)),
        }
    }

    /// One u64.
    #[inline]
    pub(crate) fn u64(&mut self, field: &'static str) -> Result<u64> {
        self.bytes::<8>(field).map(u64::from_ne_bytes)
    }

    /// One u32.
    #[inline]
    pub(crate) fn u32(&mut self, field: &'static str) -> Result<u32> {
        self.bytes::<4>(field).map(u32::from_ne_bytes)
    }

    /// One u16.
    #[inline]
    pub(crate) fn u16(&mut self, field: &'static str) -> Result<u16> {
        self.bytes::<2>(field).map(u16::from_ne_bytes)
    }

    /// One u8.
    #[inline]
    pub(crate) fn u8(&mut self, field: &'static str) -> Result<u8> {
        self.bytes::<1>(field).map(|[b]| b)
    }

    /// Two u32s stored in one u64 slot (`{ u32 pid, tid; }`), in memory order.
    #[inline]
    pub(crate) fn u32_pair(&mut self, field: &'static str) -> Result<(u32, u32)> {
        let b = self.bytes::<8>(field)?;
        let (lo, hi) = b.split_at(4);
        Ok((ne_u32(lo), ne_u32(hi)))
    }

    /// `len` bytes as a range of record offsets.
    #[inline]
    pub(crate) fn take(&mut self, len: u64, field: &'static str) -> Result<Range<usize>> {
        let end = usize::try_from(len)
            .ok()
            .and_then(|n| self.pos.checked_add(n))
            .filter(|&end| end <= self.bytes.len());
        match end {
            Some(end) => {
                let r = self.pos..end;
                self.pos = end;
                Ok(r)
            }
            None => Err(self.short(field, len)),
        }
    }

    /// `nr` items of `item` bytes each; `nr` comes from the record, so the
    /// product is checked before anything is read or allocated.
    #[inline]
    pub(crate) fn take_array(
        &mut self,
        nr: u64,
        item: u64,
        field: &'static str,
    ) -> Result<&'a [u8]> {
        let Some(len) = nr.checked_mul(item) else {
            return Err(self.malformed(format!(
                "{field}: nr {nr} overflows (items of {item} bytes)"
            )));
        };
        let r = self.take(len, field)?;
        Ok(self.bytes.get(r).unwrap_or_default())
    }

    /// `nr` u64s, copied out.
    #[inline]
    pub(crate) fn u64_vec(&mut self, nr: u64, field: &'static str) -> Result<Vec<u64>> {
        Ok(self
            .take_array(nr, 8, field)?
            .chunks_exact(8)
            .map(ne_u64)
            .collect())
    }

    /// The rest of the bytes, as a range.
    #[inline]
    pub(crate) fn rest(&mut self) -> Range<usize> {
        let start = self.pos.min(self.bytes.len());
        self.pos = self.bytes.len();
        start..self.bytes.len()
    }

    /// An error about this record.
    #[cold]
    pub(crate) fn malformed(&self, detail: String) -> Error {
        Error::Malformed {
            what: self.what,
            detail,
        }
    }

    #[cold]
    fn short(&self, field: &'static str, want: u64) -> Error {
        self.malformed(format!(
            "{field}: {want} bytes at offset {} run past the end ({} bytes)",
            self.pos,
            self.bytes.len()
        ))
    }
}

/// A u64 from the first 8 bytes of `b` (0 if shorter; callers pass exact chunks).
#[inline]
pub(crate) fn ne_u64(b: &[u8]) -> u64 {
    b.first_chunk::<8>().map_or(0, |b| u64::from_ne_bytes(*b))
}

/// A u32 from the first 4 bytes of `b` (0 if shorter; callers pass exact chunks).
#[inline]
pub(crate) fn ne_u32(b: &[u8]) -> u32 {
    b.first_chunk::<4>().map_or(0, |b| u32::from_ne_bytes(*b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_in_order_and_stops_at_the_end() {
        let mut b = Vec::new();
        b.extend_from_slice(&7u64.to_ne_bytes());
        b.extend_from_slice(&1u32.to_ne_bytes());
        b.extend_from_slice(&2u32.to_ne_bytes());
        b.extend_from_slice(&3u16.to_ne_bytes());
        b.push(4);
        let mut c = Cursor::new(&b, 0, "test");
        assert_eq!(c.u64("a"), Ok(7));
        assert_eq!(c.u32_pair("b"), Ok((1, 2)));
        assert_eq!(c.u16("c"), Ok(3));
        assert_eq!(c.u8("d"), Ok(4));
        assert_eq!(c.remaining(), 0);
        let e = c.u8("e").unwrap_err();
        assert!(matches!(e, Error::Malformed { what: "test", .. }), "{e:?}");
        assert!(e.to_string().contains("e: 1 bytes at offset 19"), "{e}");
    }

    #[test]
    fn huge_counts_are_errors_not_overflows() {
        let b = [0u8; 16];
        let mut c = Cursor::new(&b, 8, "test");
        assert!(c.take_array(u64::MAX, 8, "nr").is_err());
        assert!(c.take_array(u64::MAX / 8, 8, "nr").is_err());
        assert!(c.take(u64::MAX, "len").is_err());
        assert_eq!(c.pos(), 8, "a failed read does not move the cursor");
        assert_eq!(c.u64_vec(1, "one"), Ok(vec![0]));
        assert_eq!(c.u64_vec(0, "none"), Ok(vec![]));
        assert!(c.u64_vec(1, "past").is_err());
    }
}
