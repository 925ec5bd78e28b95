// SPDX-License-Identifier: GPL-2.0-only
//! The hot path of live reading: the members every `sample_event` shows (ip,
//! pid, tid, time, addr, id, stream_id, cpu, period, and the RAW payload of
//! tracepoints) read at offsets computed once per evsel, without filling a
//! whole [`Sample`](super::Sample).
//!
//! It covers the `sample_type`s made only of the fixed-size fields and RAW
//! (what tracepoint and counting-sample users ask for). For anything else,
//! and for records too short for the layout, [`sample_members`] answers None
//! and the caller uses [`parse_into`](super::parse_into), which gives the
//! same values or names the error; the tests check the two agree.

use std::ops::Range;

use super::abi::*;
use super::cursor::{ne_u32, ne_u64};
use super::sample::Sample;
use super::ParseInfo;

/// The sample members the Python module shows, with perf's defaults for
/// those the evsel does not sample (see [`Sample`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleMembers {
    /// `PERF_SAMPLE_IP` (default 0).
    pub ip: u64,
    /// `PERF_SAMPLE_TID` pid (default -1).
    pub pid: i32,
    /// `PERF_SAMPLE_TID` tid (default -1).
    pub tid: i32,
    /// `PERF_SAMPLE_TIME` (default `u64::MAX`).
    pub time: u64,
    /// `PERF_SAMPLE_ADDR` (default 0).
    pub addr: u64,
    /// `PERF_SAMPLE_ID` or `PERF_SAMPLE_IDENTIFIER` (default `u64::MAX`).
    pub id: u64,
    /// `PERF_SAMPLE_STREAM_ID` (default `u64::MAX`).
    pub stream_id: u64,
    /// `PERF_SAMPLE_CPU` cpu (default `u32::MAX`).
    pub cpu: u32,
    /// `PERF_SAMPLE_PERIOD` (default `attr.sample_period`).
    pub period: u64,
    /// `PERF_SAMPLE_RAW` payload, as a range of the record's bytes.
    pub raw: Option<Range<usize>>,
}

impl SampleMembers {
    /// The members of a sample the full parser filled.
    pub fn of(s: &Sample) -> Self {
        SampleMembers {
            ip: s.ip,
            pid: s.pid,
            tid: s.tid,
            time: s.time,
            addr: s.addr,
            id: s.id,
            stream_id: s.stream_id,
            cpu: s.cpu,
            period: s.period,
            raw: s.raw.clone(),
        }
    }
}

/// Byte offsets of the members in a SAMPLE record, header included
/// (0: not sampled; no member can sit at 0, where the header is).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MembersLayout {
    identifier: u16,
    ip: u16,
    tid: u16,
    time: u16,
    addr: u16,
    id: u16,
    stream_id: u16,
    cpu: u16,
    period: u16,
    /// Offset of `raw.size`.
    raw: u16,
    /// Bytes the record needs for the fixed fields (and `raw.size`).
    end: u16,
}

impl MembersLayout {
    /// The layout for `sample_type`, if it has only fixed-size fields and RAW.
    pub(crate) fn new(sample_type: u64) -> Option<Self> {
        if sample_type & !(PERF_SAMPLE_MASK | PERF_SAMPLE_RAW) != 0 {
            return None;
        }
        let mut at = HEADER_SIZE as u16;
        let mut field = |bit: u64, size: u16| {
            if sample_type & bit == 0 {
                return 0;
            }
            let here = at;
            at += size;
            here
        };
        // The kernel's order (see sample.rs).
        let identifier = field(PERF_SAMPLE_IDENTIFIER, 8);
        let ip = field(PERF_SAMPLE_IP, 8);
        let tid = field(PERF_SAMPLE_TID, 8);
        let time = field(PERF_SAMPLE_TIME, 8);
        let addr = field(PERF_SAMPLE_ADDR, 8);
        let id = field(PERF_SAMPLE_ID, 8);
        let stream_id = field(PERF_SAMPLE_STREAM_ID, 8);
        let cpu = field(PERF_SAMPLE_CPU, 8);
        let period = field(PERF_SAMPLE_PERIOD, 8);
        let raw = field(PERF_SAMPLE_RAW, 4);
        Some(MembersLayout {
            identifier,
            ip,
            tid,
            time,
            addr,
            id,
            stream_id,
            cpu,
            period,
            raw,
            end: at,
        })
    }
}

/// The members of a SAMPLE `record` (header included) of an evsel whose
/// `sample_type` the fast layout covers; None for other records, other
/// layouts and records too short for the layout (use `parse_into` then).
#[inline]
pub fn sample_members(record: &[u8], info: &ParseInfo) -> Option<SampleMembers> {
    let layout = info.members_layout()?;
    if ne_u32(record) != PERF_RECORD_SAMPLE || record.len() < usize::from(layout.end) {
        return None;
    }
    let u64_at = |off: u16, default: u64| match off {
        0 => default,
        off => record.get(usize::from(off)..).map_or(default, ne_u64),
    };
    let u32_pair_at = |off: u16, default: u32| match off {
        0 => (default, default),
        off => {
            let word = u64_at(off, 0).to_ne_bytes();
            let (a, b) = word.split_at(4);
            (ne_u32(a), ne_u32(b))
        }
    };
    let (pid, tid) = u32_pair_at(layout.tid, u32::MAX);
    // PERF_SAMPLE_ID, later in the record, wins over IDENTIFIER as in the
    // full parser (the kernel writes the same value to both).
    let id = u64_at(layout.id, u64_at(layout.identifier, u64::MAX));
    let raw = match layout.raw {
        0 => None,
        off => {
            let start = usize::from(off) + 4;
            let size = record.get(usize::from(off)..).map_or(0, ne_u32) as usize;
            let end = start.checked_add(size)?;
            if end > record.len() {
                return None;
            }
            Some(start..end)
        }
    };
    Some(SampleMembers {
        ip: u64_at(layout.ip, 0),
        pid: pid as i32,
        tid: tid as i32,
        time: u64_at(layout.time, u64::MAX),
        addr: u64_at(layout.addr, 0),
        id,
        stream_id: u64_at(layout.stream_id, u64::MAX),
        cpu: u32_pair_at(layout.cpu, u32::MAX).0,
        period: u64_at(layout.period, info.sample_period()),
        raw,
    })
}
