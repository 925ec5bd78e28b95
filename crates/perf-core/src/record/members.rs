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

    /// Each of [`MEMBERS`], in that order, as the u64 a [`MemberSource`]
    /// reads (pid and tid as the bits of their u32).
    pub fn words(&self) -> [u64; 9] {
        [
            self.ip,
            u64::from(self.pid as u32),
            u64::from(self.tid as u32),
            self.time,
            self.addr,
            self.id,
            self.stream_id,
            u64::from(self.cpu),
            self.period,
        ]
    }
}

/// Where each member comes from: a slot of the word table
/// [`sample_members`] fills (1..=10: the record's u64s after the header, in
/// order; `DEFAULT_*`: perf's defaults for members not sampled).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MembersLayout {
    ip: u8,
    tid: u8,
    time: u8,
    addr: u8,
    id: u8,
    stream_id: u8,
    cpu: u8,
    period: u8,
    /// Number of u64 fields after the header (0..=10).
    words: u8,
    /// Byte offset of `raw.size` (0: no RAW).
    raw: u16,
    /// Bytes the record needs for the fixed fields (and `raw.size`).
    end: u16,
}

/// Slots of the word table holding the defaults.
const DEFAULT_ZERO: u8 = 11;
const DEFAULT_ONES: u8 = 12; // u64::MAX; also pid = tid = -1 and cpu = u32::MAX
const DEFAULT_PERIOD: u8 = 13;
const SLOTS: usize = 16;

impl MembersLayout {
    /// The layout for `sample_type`, if it has only fixed-size fields and RAW.
    pub(crate) fn new(sample_type: u64) -> Option<Self> {
        if sample_type & !(PERF_SAMPLE_MASK | PERF_SAMPLE_RAW) != 0 {
            return None;
        }
        let mut words = 0u8;
        let mut field = |bit: u64, default: u8| {
            if sample_type & bit == 0 {
                return default;
            }
            words += 1;
            words
        };
        // The kernel's order (see sample.rs). PERF_SAMPLE_ID, later in the
        // record, wins over IDENTIFIER as in the full parser (the kernel
        // writes the same value to both).
        let identifier = field(PERF_SAMPLE_IDENTIFIER, DEFAULT_ONES);
        let ip = field(PERF_SAMPLE_IP, DEFAULT_ZERO);
        let tid = field(PERF_SAMPLE_TID, DEFAULT_ONES);
        let time = field(PERF_SAMPLE_TIME, DEFAULT_ONES);
        let addr = field(PERF_SAMPLE_ADDR, DEFAULT_ZERO);
        let id = field(PERF_SAMPLE_ID, identifier);
        let stream_id = field(PERF_SAMPLE_STREAM_ID, DEFAULT_ONES);
        let cpu = field(PERF_SAMPLE_CPU, DEFAULT_ONES);
        let period = field(PERF_SAMPLE_PERIOD, DEFAULT_PERIOD);
        let fixed = HEADER_SIZE as u16 + 8 * u16::from(words);
        let raw = if sample_type & PERF_SAMPLE_RAW != 0 {
            fixed
        } else {
            0
        };
        Some(MembersLayout {
            ip,
            tid,
            time,
            addr,
            id,
            stream_id,
            cpu,
            period,
            words,
            raw,
            end: if raw != 0 { fixed + 4 } else { fixed },
        })
    }
}

/// The members of a SAMPLE `record` (header included) of an evsel whose
/// `sample_type` the fast layout covers; None for other records, other
/// layouts and records too short for the layout (use `parse_into` then).
// Inlined into the read loop: it runs once per event.
#[inline(always)]
pub fn sample_members(record: &[u8], info: &ParseInfo) -> Option<SampleMembers> {
    let layout = info.members_layout()?;
    if ne_u32(record) != PERF_RECORD_SAMPLE || record.len() < usize::from(layout.end) {
        return None;
    }
    // Every member is then one load from a table of 16 words, without
    // branches: the record's fixed u64s in slots 1.., the defaults after.
    let mut w = [0u64; SLOTS];
    let body = record.get(HEADER_SIZE..).unwrap_or_default();
    for (slot, word) in w[1..=10]
        .iter_mut()
        .zip(body.chunks_exact(8))
        .take(usize::from(layout.words))
    {
        *slot = ne_u64(word);
    }
    w[usize::from(DEFAULT_ONES)] = u64::MAX;
    w[usize::from(DEFAULT_PERIOD)] = info.sample_period();
    let at = |slot: u8| w[usize::from(slot) % SLOTS];
    let raw = match usize::from(layout.raw) {
        0 => None,
        off => {
            let size = record.get(off..).map_or(0, ne_u32) as usize;
            let start = off + 4;
            let end = start.checked_add(size)?;
            if end > record.len() {
                return None;
            }
            Some(start..end)
        }
    };
    let pid_tid = at(layout.tid).to_ne_bytes();
    let (pid, tid) = pid_tid.split_at(4);
    Some(SampleMembers {
        ip: at(layout.ip),
        pid: ne_u32(pid) as i32,
        tid: ne_u32(tid) as i32,
        time: at(layout.time),
        addr: at(layout.addr),
        id: at(layout.id),
        stream_id: at(layout.stream_id),
        cpu: ne_u32(&at(layout.cpu).to_ne_bytes()),
        period: at(layout.period),
        raw,
    })
}

/// Where one member of a fixed-layout SAMPLE comes from (see [`member_sources`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberSource {
    /// The u64 at this byte offset of the record.
    U64(usize),
    /// The u32 at this byte offset of the record.
    U32(usize),
    /// No field: perf's default, the same for every record.
    Const(u64),
}

/// The members [`member_sources`] places, in its order.
pub const MEMBERS: [&str; 9] = [
    "ip",
    "pid",
    "tid",
    "time",
    "addr",
    "id",
    "stream_id",
    "cpu",
    "period",
];

/// Where the members are in the SAMPLEs of one evsel (see [`member_sources`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberSources {
    /// Each of [`MEMBERS`], in that order.
    pub at: [MemberSource; 9],
    /// Bytes a record needs for them (and for `raw.size`).
    pub need: usize,
    /// Offset of `raw.size`, with PERF_SAMPLE_RAW: the payload must fit in
    /// the record, as the full parser checks.
    pub raw: Option<usize>,
}

/// Where each of [`MEMBERS`] is in the SAMPLEs of an evsel whose
/// `sample_type` has only fixed-size fields and RAW: the columnar reader
/// reads just the members it wants this way. None for other layouts (use
/// [`sample_members`]). Defaults are as [`SampleMembers`] has them (pid and
/// tid -1 as u32).
pub fn member_sources(info: &ParseInfo) -> Option<MemberSources> {
    let l = info.members_layout()?;
    let word = |slot: u8| match slot {
        DEFAULT_ZERO => MemberSource::Const(0),
        DEFAULT_ONES => MemberSource::Const(u64::MAX),
        DEFAULT_PERIOD => MemberSource::Const(info.sample_period()),
        k => MemberSource::U64(HEADER_SIZE + 8 * (usize::from(k) - 1)),
    };
    // pid, tid and cpu are the u32 halves of their words (native order:
    // pid first, then tid; cpu, then the reserved u32).
    let half = |slot: u8, second: bool| match word(slot) {
        MemberSource::U64(at) => MemberSource::U32(at + if second { 4 } else { 0 }),
        MemberSource::Const(_) => MemberSource::Const(u64::from(u32::MAX)),
        other => other,
    };
    Some(MemberSources {
        at: [
            word(l.ip),
            half(l.tid, false),
            half(l.tid, true),
            word(l.time),
            word(l.addr),
            word(l.id),
            word(l.stream_id),
            half(l.cpu, false),
            word(l.period),
        ],
        need: usize::from(l.end),
        raw: (l.raw != 0).then_some(usize::from(l.raw)),
    })
}
