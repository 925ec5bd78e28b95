// SPDX-License-Identifier: GPL-2.0-only
//! The bodies of the non-SAMPLE record types, one parser per kernel layout.
//! Each parser sees the record cut before its `sample_id` trailer; bytes after
//! the last known field are ignored (newer kernels may append fields).

use std::ops::Range;

use super::abi::*;
use super::cursor::Cursor;
use super::read_format::{parse_read, SampleRead};
use super::Header;
use crate::error::Result;

/// What an MMAP2 record says about the mapped file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mmap2File {
    /// The device and inode (the usual form).
    Inode {
        /// `maj`.
        maj: u32,
        /// `min`.
        min: u32,
        /// `ino`.
        ino: u64,
        /// `ino_generation`.
        ino_generation: u64,
    },
    /// The build id (`PERF_RECORD_MISC_MMAP_BUILD_ID` in `header.misc`).
    BuildId {
        /// `build_id_size` (checked to be at most 20).
        size: u8,
        /// `build_id[20]`, of which `size` bytes are meaningful.
        build_id: [u8; 20],
    },
}

/// The record-type-specific part of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Body {
    /// `PERF_RECORD_MMAP`.
    Mmap {
        /// `pid`.
        pid: u32,
        /// `tid`.
        tid: u32,
        /// `addr` (the Python member is `start`).
        start: u64,
        /// `len`.
        len: u64,
        /// `pgoff`.
        pgoff: u64,
        /// `filename` up to its first NUL, as record offsets.
        filename: Range<usize>,
    },
    /// `PERF_RECORD_LOST`.
    Lost {
        /// `id` of the event that lost records.
        id: u64,
        /// How many.
        lost: u64,
    },
    /// `PERF_RECORD_COMM`.
    Comm {
        /// `pid`.
        pid: u32,
        /// `tid`.
        tid: u32,
        /// `comm` up to its first NUL, as record offsets.
        comm: Range<usize>,
    },
    /// `PERF_RECORD_FORK` and `PERF_RECORD_EXIT` (`header.type_` tells which).
    Task {
        /// `pid`.
        pid: u32,
        /// `ppid`.
        ppid: u32,
        /// `tid`.
        tid: u32,
        /// `ptid`.
        ptid: u32,
        /// `time`.
        time: u64,
    },
    /// `PERF_RECORD_THROTTLE` and `PERF_RECORD_UNTHROTTLE`.
    Throttle {
        /// `time`.
        time: u64,
        /// `id`.
        id: u64,
        /// `stream_id`.
        stream_id: u64,
        /// The u64 after `stream_id`: the first word of the `sample_id`
        /// trailer, 0 when the record ends at `stream_id`. The C module's
        /// repr prints it as `stream_id` (see [`parse_throttle`]).
        trailer_word: u64,
    },
    /// `PERF_RECORD_READ`.
    Read {
        /// `pid`.
        pid: u32,
        /// `tid`.
        tid: u32,
        /// `values`, laid out per the evsel's `read_format`.
        values: SampleRead,
    },
    /// `PERF_RECORD_SAMPLE`: the fields are in [`Record::sample`](super::Record::sample).
    Sample,
    /// `PERF_RECORD_SWITCH` and `PERF_RECORD_SWITCH_CPU_WIDE`; switch-out is
    /// `header.misc & PERF_RECORD_MISC_SWITCH_OUT`.
    Switch {
        /// `next_prev_pid`; for type 14, which has none, the first u32 of the
        /// `sample_id` trailer, as the C module reads it.
        next_prev_pid: u32,
        /// `next_prev_tid`; for type 14 the second u32 of the trailer.
        next_prev_tid: u32,
    },
    /// `PERF_RECORD_MMAP2`.
    Mmap2 {
        /// `pid`.
        pid: u32,
        /// `tid`.
        tid: u32,
        /// `addr` (the Python member is `start`).
        start: u64,
        /// `len`.
        len: u64,
        /// `pgoff`.
        pgoff: u64,
        /// Inode or build id, per `header.misc`.
        file: Mmap2File,
        /// `prot`.
        prot: u32,
        /// `flags`.
        flags: u32,
        /// `filename` up to its first NUL, as record offsets.
        filename: Range<usize>,
    },
    /// `PERF_RECORD_LOST_SAMPLES`.
    LostSamples {
        /// How many samples were lost.
        lost: u64,
    },
    /// Any other type: the bytes between the header and the trailer.
    Other {
        /// The body as record offsets.
        body: Range<usize>,
    },
}

/// Parses the body of a non-SAMPLE record: `record[8..body_end]`, where
/// `body_end` is the start of the `sample_id` trailer.
#[inline]
pub(crate) fn parse_body(
    header: Header,
    record: &[u8],
    body_end: usize,
    read_format: u64,
    out: &mut Body,
) -> Result<()> {
    let body = record.get(..body_end).unwrap_or_default();
    let mut c = Cursor::new(body, HEADER_SIZE, record_name(header.type_));
    // Each parser reads its fields into locals, then writes `*out` once:
    // building the enum where it stays, not in a returned temporary.
    match header.type_ {
        PERF_RECORD_MMAP => parse_mmap(&mut c, body, out),
        PERF_RECORD_LOST => parse_lost(&mut c, out),
        PERF_RECORD_COMM => parse_comm(&mut c, body, out),
        PERF_RECORD_EXIT | PERF_RECORD_FORK => parse_task(&mut c, out),
        PERF_RECORD_THROTTLE | PERF_RECORD_UNTHROTTLE => parse_throttle(&mut c, record, out),
        PERF_RECORD_READ => parse_read_record(&mut c, read_format, out),
        PERF_RECORD_SWITCH | PERF_RECORD_SWITCH_CPU_WIDE => {
            parse_switch(record, out);
            Ok(())
        }
        PERF_RECORD_MMAP2 => parse_mmap2(&mut c, header, body, out),
        PERF_RECORD_LOST_SAMPLES => {
            let lost = c.u64("lost")?;
            *out = Body::LostSamples { lost };
            Ok(())
        }
        _ => {
            *out = Body::Other { body: c.rest() };
            Ok(())
        }
    }
}

/// The bytes of a NUL-terminated, NUL-padded string field that runs to the
/// end of the body: up to the first NUL, or all of it if there is none (the
/// kernel always writes one; a missing one is tolerated, not read past).
fn c_string(c: &mut Cursor<'_>, record: &[u8]) -> Range<usize> {
    let r = c.rest();
    let bytes = record.get(r.clone()).unwrap_or_default();
    let len = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    r.start..r.start + len
}

// struct {
// 	struct perf_event_header	header;
// 	u32				pid, tid;
// 	u64				addr;
// 	u64				len;
// 	u64				pgoff;
// 	char				filename[];
// 	struct sample_id		sample_id;
// };
fn parse_mmap(c: &mut Cursor<'_>, record: &[u8], out: &mut Body) -> Result<()> {
    let (pid, tid) = c.u32_pair("pid, tid")?;
    let start = c.u64("addr")?;
    let len = c.u64("len")?;
    let pgoff = c.u64("pgoff")?;
    let filename = c_string(c, record);
    *out = Body::Mmap {
        pid,
        tid,
        start,
        len,
        pgoff,
        filename,
    };
    Ok(())
}

// struct {
// 	struct perf_event_header	header;
// 	u64				id;
// 	u64				lost;
// 	struct sample_id		sample_id;
// };
fn parse_lost(c: &mut Cursor<'_>, out: &mut Body) -> Result<()> {
    let id = c.u64("id")?;
    let lost = c.u64("lost")?;
    *out = Body::Lost { id, lost };
    Ok(())
}

// struct {
// 	struct perf_event_header	header;
// 	u32				pid, tid;
// 	char				comm[];
// 	struct sample_id		sample_id;
// };
fn parse_comm(c: &mut Cursor<'_>, record: &[u8], out: &mut Body) -> Result<()> {
    let (pid, tid) = c.u32_pair("pid, tid")?;
    let comm = c_string(c, record);
    *out = Body::Comm { pid, tid, comm };
    Ok(())
}

// struct {
// 	struct perf_event_header	header;
// 	u32				pid, ppid;
// 	u32				tid, ptid;
// 	u64				time;
// 	struct sample_id		sample_id;
// };
fn parse_task(c: &mut Cursor<'_>, out: &mut Body) -> Result<()> {
    let (pid, ppid) = c.u32_pair("pid, ppid")?;
    let (tid, ptid) = c.u32_pair("tid, ptid")?;
    let time = c.u64("time")?;
    *out = Body::Task {
        pid,
        ppid,
        tid,
        ptid,
        time,
    };
    Ok(())
}

// struct {
// 	struct perf_event_header	header;
// 	u64				time;
// 	u64				id;
// 	u64				stream_id;
// 	struct sample_id		sample_id;
// };
/// Quirk kept on purpose: the C module's repr reads the record one u64 late
/// (`&header + 1` cast to a struct that starts with the header), so it prints
/// `id` as `time`, `stream_id` as `id` and the word after the record's fields
/// as `stream_id`; its members are right. That word is the first of the
/// `sample_id` trailer, read here from the uncut record; when the record has
/// none the C module reads the tail of its copy, we give 0.
fn parse_throttle(c: &mut Cursor<'_>, record: &[u8], out: &mut Body) -> Result<()> {
    let time = c.u64("time")?;
    let id = c.u64("id")?;
    let stream_id = c.u64("stream_id")?;
    let trailer_word = Cursor::new(record, c.pos(), "PERF_RECORD_THROTTLE")
        .u64("sample_id")
        .unwrap_or(0);
    *out = Body::Throttle {
        time,
        id,
        stream_id,
        trailer_word,
    };
    Ok(())
}

// struct {
// 	struct perf_event_header	header;
// 	u32				pid, tid;
// 	struct read_format		values;
// 	struct sample_id		sample_id;
// };
fn parse_read_record(c: &mut Cursor<'_>, read_format: u64, out: &mut Body) -> Result<()> {
    let (pid, tid) = c.u32_pair("pid, tid")?;
    let values = parse_read(c, read_format)?;
    *out = Body::Read { pid, tid, values };
    Ok(())
}

// PERF_RECORD_SWITCH (14):
// struct {
// 	struct perf_event_header	header;
// 	struct sample_id		sample_id;
// };
// PERF_RECORD_SWITCH_CPU_WIDE (15):
// struct {
// 	struct perf_event_header	header;
// 	u32				next_prev_pid;
// 	u32				next_prev_tid;
// 	struct sample_id		sample_id;
// };
/// Both switch types, read the same way from the whole record (trailer
/// included).
///
/// Quirk kept on purpose (tests/sidebyside/test_records_switch.py compares
/// it with the C module): type 14 has no next/prev fields, but the C module
/// reads `next_prev_pid/tid` from the first 8 bytes after the header anyway
/// — that is the `sample_id` trailer, typically `{ pid, tid }` when
/// `PERF_SAMPLE_TID` is set. When the record has no such bytes the C module
/// reads the zeroed (7.3) or stale (≤6.12) tail of its copy; we give 0.
fn parse_switch(record: &[u8], out: &mut Body) {
    // For type 15 the fields sit before the trailer; for type 14 they *are*
    // the trailer, so read them from the uncut record.
    let mut c = Cursor::new(record, HEADER_SIZE, "PERF_RECORD_SWITCH");
    let (next_prev_pid, next_prev_tid) =
        c.u32_pair("next_prev_pid, next_prev_tid").unwrap_or((0, 0));
    *out = Body::Switch {
        next_prev_pid,
        next_prev_tid,
    };
}

// struct {
// 	struct perf_event_header	header;
// 	u32				pid, tid;
// 	u64				addr;
// 	u64				len;
// 	u64				pgoff;
// 	union {
// 		struct {
// 			u32		maj;
// 			u32		min;
// 			u64		ino;
// 			u64		ino_generation;
// 		};
// 		struct {
// 			u8		build_id_size;
// 			u8		__reserved_1;
// 			u16		__reserved_2;
// 			u8		build_id[20];
// 		};
// 	};
// 	u32				prot, flags;
// 	char				filename[];
// 	struct sample_id		sample_id;
// };
fn parse_mmap2(c: &mut Cursor<'_>, header: Header, record: &[u8], out: &mut Body) -> Result<()> {
    let (pid, tid) = c.u32_pair("pid, tid")?;
    let start = c.u64("addr")?;
    let len = c.u64("len")?;
    let pgoff = c.u64("pgoff")?;
    let file = if header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID != 0 {
        let size = c.u8("build_id_size")?;
        let _reserved = (c.u8("__reserved_1")?, c.u16("__reserved_2")?);
        let build_id = c.bytes::<20>("build_id")?;
        if size > 20 {
            return Err(c.malformed(format!("build_id_size {size} is larger than 20")));
        }
        Mmap2File::BuildId { size, build_id }
    } else {
        let (maj, min) = c.u32_pair("maj, min")?;
        Mmap2File::Inode {
            maj,
            min,
            ino: c.u64("ino")?,
            ino_generation: c.u64("ino_generation")?,
        }
    };
    let (prot, flags) = c.u32_pair("prot, flags")?;
    let filename = c_string(c, record);
    *out = Body::Mmap2 {
        pid,
        tid,
        start,
        len,
        pgoff,
        file,
        prot,
        flags,
        filename,
    };
    Ok(())
}
