// SPDX-License-Identifier: GPL-2.0-only
//! Reading one tracepoint field out of a sample's `PERF_SAMPLE_RAW` payload,
//! with the semantics of python.c's `tracepoint_field()`.
//!
//! A live payload is native-endian; one from a perf.data file is in the
//! byte order of its tracing data ([`Field::value_in`]). Where the C code
//! would read outside the payload, this returns [`Error::Malformed`]
//! instead.

use super::field::Field;
use super::lexer::{is_c_print, is_c_space};
use crate::endian::Endian;
use crate::error::{Error, Result};

/// The value of a tracepoint field, as python.c would build it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Value<'a> {
    /// A string field holding a printable C string: the bytes before the
    /// first NUL (python.c: `str`). Always ASCII.
    Str(&'a str),
    /// Any other array, or a string field that was not printable
    /// (python.c: `bytearray` of the whole array).
    Bytes(&'a [u8]),
    /// An unsigned or pointer scalar (python.c: `PyLong_FromUnsignedLong`).
    Unsigned(u64),
    /// A signed scalar; see [`Signed`] for the two readings.
    Signed(Signed),
}

/// A signed scalar field as read from the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signed {
    /// The field's bytes, zero-extended (`tep_read_number()`).
    pub raw: u64,
    /// The field's size in bytes.
    pub size: u32,
}

impl Signed {
    /// What the C module returns: `PyLong_FromLong((long) val)` of the
    /// **zero-extended** number, so an `int` field holding -1 reads as
    /// 4294967295. Only 8-byte fields come out negative.
    pub fn c_compatible(self) -> i64 {
        self.raw as i64
    }

    /// The number the kernel stored: sign-extended from the field's size
    /// (what the C module should have returned).
    pub fn sign_extended(self) -> i64 {
        match self.size {
            1 => i64::from(self.raw as u8 as i8),
            2 => i64::from(self.raw as u16 as i16),
            4 => i64::from(self.raw as u32 as i32),
            _ => self.raw as i64,
        }
    }
}

fn out_of_range(field: &Field, start: u64, len: u64, have: usize) -> Error {
    Error::Malformed {
        what: "tracepoint field",
        detail: format!(
            "{}: bytes {start}..{} outside the {have}-byte raw payload",
            field.name,
            start.saturating_add(len)
        ),
    }
}

/// `raw[start..start + len]`, or an error naming the field.
fn slice<'a>(field: &Field, raw: &'a [u8], start: u64, len: u64) -> Result<&'a [u8]> {
    let end = start.checked_add(len);
    end.and_then(|end| {
        let s = usize::try_from(start).ok()?;
        let e = usize::try_from(end).ok()?;
        raw.get(s..e)
    })
    .ok_or_else(|| out_of_range(field, start, len, raw.len()))
}

/// `tep_read_number()`: a 1, 2, 4 or 8-byte number in byte order `order`,
/// zero-extended. Any other size reads nothing and yields 0, as in C.
#[inline]
fn read_number(field: &Field, raw: &[u8], offset: u32, size: u32, order: Endian) -> Result<u64> {
    let at = |n: u64| slice(field, raw, u64::from(offset), n);
    Ok(match size {
        1 => at(1)?.first().copied().map_or(0, u64::from),
        2 => u64::from(order.u16(at(2)?.try_into().unwrap_or_default())),
        4 => u64::from(order.u32(at(4)?.try_into().unwrap_or_default())),
        8 => order.u64(at(8)?.try_into().unwrap_or_default()),
        _ => 0,
    })
}

/// perf's `is_printable_array()` (util/print_binary.c): the last byte is
/// NUL and every byte before the first NUL is `isprint()` or `isspace()`.
pub fn is_printable_array(p: &[u8]) -> bool {
    match p.split_last() {
        Some((0, body)) => body
            .iter()
            .take_while(|&&b| b != 0)
            .all(|&b| is_c_print(b) || is_c_space(b)),
        _ => false,
    }
}

impl Field {
    /// Where an array field's bytes are in `raw`: `(offset, len)`.
    ///
    /// Static arrays: `(field.offset, field.size)`. `__data_loc`: the
    /// `field.size`-byte word at `field.offset` holds `len << 16 | offset`.
    /// `__rel_loc`: the same, with `offset` counted from the end of the word.
    ///
    /// # Errors
    /// [`Error::Malformed`] if the location word lies outside `raw`.
    pub fn array_location(&self, raw: &[u8]) -> Result<(u64, u64)> {
        self.array_location_in(raw, Endian::NATIVE)
    }

    /// [`Field::array_location`] of a payload in byte order `order`.
    ///
    /// # Errors
    /// As [`Field::array_location`].
    pub fn array_location_in(&self, raw: &[u8], order: Endian) -> Result<(u64, u64)> {
        if !self.is_dynamic() {
            return Ok((u64::from(self.offset), u64::from(self.size)));
        }
        // python.c keeps it in an `unsigned int`.
        let word = read_number(self, raw, self.offset, self.size, order)? as u32;
        let mut offset = u64::from(word & 0xffff);
        let len = u64::from(word >> 16);
        if self.is_relative() {
            offset += u64::from(self.offset) + u64::from(self.size);
        }
        Ok((offset, len))
    }

    /// This field's value in `raw`, a `PERF_SAMPLE_RAW` payload (which
    /// starts with the common fields), exactly as python.c's
    /// `tracepoint_field()` computes it:
    ///
    /// * arrays → [`Value::Str`] if the field is still flagged string and
    ///   the bytes pass [`is_printable_array`], else [`Value::Bytes`] — and
    ///   then the field's string flag is cleared for good
    ///   ([`Field::clear_string`]), as the C module does;
    /// * pointers → [`Value::Unsigned`]; signed → [`Value::Signed`];
    ///   everything else → [`Value::Unsigned`].
    ///
    /// # Errors
    /// [`Error::Malformed`] when the field (or its data) lies outside `raw`;
    /// the string flag is left alone then.
    #[inline]
    pub fn value<'a>(&self, raw: &'a [u8]) -> Result<Value<'a>> {
        self.value_in(raw, Endian::NATIVE)
    }

    /// [`Field::value`] of a payload whose numbers are in byte order
    /// `order`: a payload from a perf.data file, decoded with the byte
    /// order of the file's tracing data as libtraceevent does.
    ///
    /// # Errors
    /// As [`Field::value`].
    pub fn value_in<'a>(&self, raw: &'a [u8], order: Endian) -> Result<Value<'a>> {
        if self.is_array() {
            let (offset, len) = self.array_location_in(raw, order)?;
            let bytes = slice(self, raw, offset, len)?;
            if self.is_string() && is_printable_array(bytes) {
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                let text = bytes.get(..end).unwrap_or_default();
                if let Ok(s) = std::str::from_utf8(text) {
                    return Ok(Value::Str(s));
                }
            }
            self.clear_string();
            return Ok(Value::Bytes(bytes));
        }
        let raw_value = read_number(self, raw, self.offset, self.size, order)?;
        Ok(if self.is_pointer() || !self.is_signed() {
            Value::Unsigned(raw_value)
        } else {
            Value::Signed(Signed {
                raw: raw_value,
                size: self.size,
            })
        })
    }
}

#[cfg(test)]
#[path = "value_tests.rs"]
mod tests;
