// SPDX-License-Identifier: GPL-2.0-only
//! Parsing of single perf records as they come out of a live ring buffer
//! (native endian), the Rust side of perf's `evsel__parse_sample`.
//!
//! ```text
//! bytes of one record ──header()──► Header { type_, misc, size }
//!                      ──event_id()─► which evsel (perf's evlist__event2id)
//!                      ──parse()────► Record { header, body, sample }
//!                      ──parse_into(&mut Record)  (same, filled in place)
//!                      ──sample_members()► SampleMembers (hot path: the
//!                                          members of fixed-layout SAMPLEs)
//! ```
//!
//! The parser is given the record as one contiguous slice of exactly
//! `header.size` bytes: the ring reader hands it a view into the ring, or a
//! copy for a record that wraps around the end of the ring (ring.rs).
//!
//! [`Sample`] holds perf's `struct perf_sample` with perf's defaults for
//! fields the evsel did not ask for (`pid == tid == -1`, `cpu == u32::MAX`,
//! `time == id == stream_id == u64::MAX`, `period == attr.sample_period`).
//! For non-SAMPLE records it is filled from the `sample_id` trailer when the
//! evsel has `sample_id_all`. Variable-length payloads (strings, raw data,
//! stacks) are ranges into the record bytes; see [`bytes`].
//!
//! A `Record` is a few hundred bytes; on the hot path prefer
//! [`parse_into`] a record that already sits where it is used: in a
//! benchmark a fixed-field SAMPLE took ~14 ns that way and ~35–50 ns with
//! [`parse`], the difference being the copy of the returned value.
//!
//! Bad input (short records, sizes that disagree, counts that run past the
//! end or overflow) gives `Error::Malformed`; nothing here panics or indexes
//! out of bounds.

mod abi;
mod body;
mod cursor;
mod members;
mod parse_info;
mod read_format;
mod sample;
mod sample_id;

#[cfg(test)]
mod tests;

use std::ops::Range;

pub use abi::*;
pub use body::{Body, Mmap2File};
pub use members::{
    member_sources, sample_members, MemberDefault, MemberSource, MemberSources, SampleMembers,
    MEMBERS,
};
pub use parse_info::ParseInfo;
pub use read_format::{parse_read_format, ReadCounters, ReadValue, SampleRead};
pub use sample::{BranchEntry, BranchStack, Regs, Sample, StackUser};

use crate::error::{Error, Result};

/// `struct perf_event_header`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// `type` (`PERF_RECORD_*`).
    pub type_: u32,
    /// `misc` (`PERF_RECORD_MISC_*`).
    pub misc: u16,
    /// `size` of the whole record, header included.
    pub size: u16,
}

/// One parsed record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The header.
    pub header: Header,
    /// The type-specific fields.
    pub body: Body,
    /// The sample fields: the whole body of a SAMPLE, the `sample_id`
    /// trailer of other records, perf's defaults for the rest.
    pub sample: Sample,
}

// struct perf_event_header {
// 	__u32	type;
// 	__u16	misc;
// 	__u16	size;
// };
/// Reads the header from the first 8 bytes of `bytes` (which may hold more,
/// e.g. the rest of a ring).
///
/// # Errors
/// `Error::Malformed` if `bytes` is shorter than 8 or `size` is below 8 (a
/// record that small cannot exist; libperf stops reading the ring there).
#[inline]
pub fn header(bytes: &[u8]) -> Result<Header> {
    let Some(b) = bytes.first_chunk::<HEADER_SIZE>() else {
        return Err(malformed(
            "perf_event_header",
            format!("{} bytes, need 8", bytes.len()),
        ));
    };
    // One 8-byte load split by shifts: assembling the struct from 4+2+2-byte
    // loads made the compiler store the pieces and reload them as a u64, a
    // store-forwarding stall that cost more than the rest of a sample parse.
    let w = u64::from_ne_bytes(*b);
    #[cfg(target_endian = "little")]
    let h = Header {
        type_: w as u32,
        misc: (w >> 32) as u16,
        size: (w >> 48) as u16,
    };
    #[cfg(target_endian = "big")]
    let h = Header {
        type_: (w >> 32) as u32,
        misc: (w >> 16) as u16,
        size: w as u16,
    };
    if usize::from(h.size) < HEADER_SIZE {
        return Err(malformed(
            record_name(h.type_),
            format!("header.size {} is smaller than the header", h.size),
        ));
    }
    Ok(h)
}

/// The header of a whole record, checking that `header.size` is the slice length.
#[inline]
fn record_header(record: &[u8]) -> Result<Header> {
    let h = header(record)?;
    if usize::from(h.size) != record.len() {
        return Err(malformed(
            record_name(h.type_),
            format!(
                "header.size {} but the record has {} bytes",
                h.size,
                record.len()
            ),
        ));
    }
    Ok(h)
}

/// The sample id of a record, to find its evsel (perf's `evlist__event2id`):
/// the u64 at `id_pos` in a SAMPLE body (`PERF_SAMPLE_IDENTIFIER` first, else
/// `PERF_SAMPLE_ID` after ip/tid/time/addr), or at `is_pos` from the end of
/// other records (the last u64 with `IDENTIFIER`).
///
/// `info` is the evlist's first evsel's, as perf uses (all evsels of a ring
/// must agree on the id position for this to work at all).
///
/// # Errors
/// `Error::Malformed` for a bad header or a record too short to hold the id.
///
/// Returns `Ok(None)` when the layout has no id (no `ID`/`IDENTIFIER`, or a
/// non-SAMPLE record without `sample_id_all`).
#[inline]
pub fn event_id(record: &[u8], info: &ParseInfo) -> Result<Option<u64>> {
    let h = record_header(record)?;
    let words = (record.len() - HEADER_SIZE) / 8;
    let index = if h.type_ == PERF_RECORD_SAMPLE {
        let Some(pos) = info.id_pos() else {
            return Ok(None);
        };
        (pos < words).then_some(pos)
    } else {
        if !info.sample_id_all() {
            return Ok(None);
        }
        let Some(pos) = info.is_pos() else {
            return Ok(None);
        };
        words.checked_sub(pos)
    };
    let word = index
        .and_then(|i| record.get(HEADER_SIZE + 8 * i..))
        .and_then(<[u8]>::first_chunk::<8>);
    match word {
        Some(b) => Ok(Some(u64::from_ne_bytes(*b))),
        None => Err(malformed(
            record_name(h.type_),
            format!(
                "record of {} bytes is too short to hold its id",
                record.len()
            ),
        )),
    }
}

/// Parses one whole record (`header.size` bytes) of an evsel described by `info`.
///
/// # Errors
/// `Error::Malformed` when `header.size` is not the slice length, a field runs
/// past the end (or into the `sample_id` trailer), or a count overflows.
#[inline]
pub fn parse(record: &[u8], info: &ParseInfo) -> Result<Record> {
    let mut rec = Record::new(info);
    parse_into(record, info, &mut rec)?;
    Ok(rec)
}

/// [`parse`] into an existing `Record`, which is overwritten completely
/// (on error its contents are unspecified but valid). Filling a record that
/// already sits where it will stay (a reused buffer, a freshly allocated
/// Python object) saves moving a few hundred bytes per record.
///
/// # Errors
/// As [`parse`].
#[inline]
pub fn parse_into(record: &[u8], info: &ParseInfo, out: &mut Record) -> Result<()> {
    let header = record_header(record)?;
    out.header = header;
    out.body = Body::Sample;
    out.sample.reset(info);
    if header.type_ == PERF_RECORD_SAMPLE {
        return sample::parse_sample(record, info, &mut out.sample);
    }
    let body_end = if info.trailer_size() > 0 {
        sample_id::parse_sample_id(record, info, &mut out.sample)?
    } else {
        record.len()
    };
    body::parse_body(header, record, body_end, info.read_format(), &mut out.body)
}

impl Record {
    /// An empty SAMPLE record with perf's defaults, to [`parse_into`].
    pub fn new(info: &ParseInfo) -> Self {
        Record {
            header: Header {
                type_: PERF_RECORD_SAMPLE,
                misc: 0,
                size: HEADER_SIZE as u16,
            },
            body: Body::Sample,
            sample: Sample::new(info),
        }
    }
}

/// The bytes of a payload range of a record parsed from `record` (empty if
/// the range does not fit, which cannot happen for ranges from [`parse`] on
/// the same bytes).
#[inline]
pub fn bytes<'a>(record: &'a [u8], range: &Range<usize>) -> &'a [u8] {
    record.get(range.clone()).unwrap_or_default()
}

#[cold]
fn malformed(what: &'static str, detail: String) -> Error {
    Error::Malformed { what, detail }
}
