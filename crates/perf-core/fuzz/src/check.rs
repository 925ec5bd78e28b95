// SPDX-License-Identifier: GPL-2.0-only
//! The properties every input is checked against. A violated property is a
//! panic (which libFuzzer and the sweep report with the input's seed).

use perf_core::record::*;

use crate::generate::{self, Expect};
use crate::layout::Layout;
use crate::rng::Rng;

/// What one check did.
#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    /// Parser calls (header + event_id + parse + parse_into count as one).
    pub execs: u64,
    /// Inputs that parsed.
    pub parsed: u64,
    /// Inputs that gave an error value.
    pub errors: u64,
}

impl Tally {
    /// Adds another tally.
    pub fn add(&mut self, o: Tally) {
        self.execs += o.execs;
        self.parsed += o.parsed;
        self.errors += o.errors;
    }
}

fn range_in(r: &std::ops::Range<usize>, len: usize, what: &str) {
    assert!(
        r.start <= r.end && r.end <= len,
        "{what} range {r:?} outside a {len}-byte record"
    );
}

/// Runs every entry point on arbitrary bytes. Must not panic; `parse` and
/// `parse_into` (into a record last filled by some other input) must agree;
/// the ranges of a parsed record must lie inside it.
pub fn any(record: &[u8], info: &ParseInfo, reused: &mut Record, tally: &mut Tally) -> bool {
    tally.execs += 1;
    let _ = header(record);
    let _ = event_id(record, info);
    let parsed = parse(record, info);
    let into = parse_into(record, info, reused);
    assert_eq!(
        parsed.is_ok(),
        into.is_ok(),
        "parse and parse_into disagree: {parsed:?} vs {into:?}"
    );
    let Ok(r) = parsed else {
        tally.errors += 1;
        return false;
    };
    assert_eq!(&r, reused, "parse_into left stale fields behind");
    assert_eq!(usize::from(r.header.size), record.len());
    let len = record.len();
    let s = &r.sample;
    for (what, range) in [("raw", &s.raw), ("aux", &s.aux)] {
        if let Some(range) = range {
            range_in(range, len, what);
        }
    }
    if let Some(st) = &s.user_stack {
        range_in(&st.data, len, "user_stack");
    }
    match &r.body {
        Body::Mmap { filename, .. } | Body::Mmap2 { filename, .. } => {
            range_in(filename, len, "filename")
        }
        Body::Comm { comm, .. } => range_in(comm, len, "comm"),
        Body::Other { body } => range_in(body, len, "body"),
        _ => {}
    }
    tally.parsed += 1;
    true
}

fn word(words: &[u64], i: usize) -> u64 {
    words.get(i).copied().unwrap_or(0)
}

fn split(w: u64) -> (u32, u32) {
    let b = w.to_ne_bytes();
    (
        u32::from_ne_bytes([b[0], b[1], b[2], b[3]]),
        u32::from_ne_bytes([b[4], b[5], b[6], b[7]]),
    )
}

/// A valid record must parse, to the values that were written, and
/// `event_id` must find the id where perf looks for it.
pub fn valid(record: &[u8], e: &Expect, layout: &Layout, reused: &mut Record, tally: &mut Tally) {
    let info = ParseInfo::new(&layout.attr);
    let ok = any(record, &info, reused, tally);
    if !layout.known() {
        return; // bits the parser does not know: any outcome is fine
    }
    assert!(
        ok,
        "a valid record did not parse: {:?}",
        parse(record, &info)
    );
    let r = reused;
    let s = &r.sample;
    assert_eq!(r.header.type_, e.type_);
    let is_sample = e.type_ == PERF_RECORD_SAMPLE;
    let (pid, tid) = e.pid_tid.map_or((-1, -1), |(p, t)| (p as i32, t as i32));
    assert_eq!((s.pid, s.tid), (pid, tid), "pid, tid");
    assert_eq!(s.time, e.time.unwrap_or(u64::MAX), "time");
    assert_eq!(s.id, e.id.unwrap_or(u64::MAX), "id");
    assert_eq!(s.stream_id, e.stream_id.unwrap_or(u64::MAX), "stream_id");
    assert_eq!(s.cpu, e.cpu.unwrap_or(u32::MAX), "cpu");
    let expect_id = if is_sample {
        info.id_pos().and(e.id)
    } else if info.sample_id_all() {
        info.is_pos().and(e.id)
    } else {
        None
    };
    let got_id = event_id(record, &info);
    assert!(
        matches!(got_id, Ok(id) if id == expect_id),
        "event_id {got_id:?}, expected {expect_id:?}"
    );
    if is_sample {
        sample_values(s, e, &info);
    } else {
        body_values(&r.body, e, record.len());
    }
}

fn sample_values(s: &Sample, e: &Expect, info: &ParseInfo) {
    assert_eq!(s.ip, e.ip.unwrap_or(0), "ip");
    assert_eq!(s.addr, e.addr.unwrap_or(0), "addr");
    assert_eq!(s.period, e.period.unwrap_or(info.sample_period()), "period");
    let values = s
        .read
        .as_ref()
        .map(|r| r.values().iter().map(|v| v.value).collect::<Vec<_>>());
    assert_eq!(values, e.read_values, "read values");
    assert_eq!(
        s.callchain,
        e.callchain.clone().unwrap_or_default(),
        "callchain"
    );
    assert_eq!(s.raw.as_ref().map(|r| r.len()), e.raw_len, "raw");
    assert_eq!(
        s.branch_stack.as_ref().map(|b| b.entries.len()),
        e.branch_nr,
        "branch_stack"
    );
    assert_eq!(
        s.user_regs.as_ref().map(|r| r.regs.len()),
        e.user_regs,
        "user_regs"
    );
    assert_eq!(
        s.intr_regs.as_ref().map(|r| r.regs.len()),
        e.intr_regs,
        "intr_regs"
    );
    assert_eq!(
        s.user_stack.as_ref().map(|u| (u.data.len(), u.dyn_size)),
        e.user_stack,
        "user_stack"
    );
    if let Some(w) = e.weight {
        let full = info.sample_type() & PERF_SAMPLE_WEIGHT != 0;
        assert_eq!(s.weight, if full { w } else { w & 0xffff_ffff }, "weight");
    }
    for &(name, v) in &e.tail {
        let got = match name {
            "data_src" => s.data_src,
            "transaction" => s.transaction,
            "phys_addr" => s.phys_addr,
            "cgroup" => s.cgroup,
            "data_page_size" => s.data_page_size,
            _ => s.code_page_size,
        };
        assert_eq!(got, v, "{name}");
    }
    assert_eq!(s.aux.as_ref().map(|r| r.len()), e.aux_len, "aux");
}

fn body_values(body: &Body, e: &Expect, len: usize) {
    let w = &e.body_words;
    match (e.type_, body) {
        (PERF_RECORD_LOST, Body::Lost { id, lost }) => {
            assert_eq!((*id, *lost), (word(w, 0), word(w, 1)))
        }
        (
            PERF_RECORD_EXIT | PERF_RECORD_FORK,
            Body::Task {
                pid, ppid, time, ..
            },
        ) => {
            assert_eq!((*pid, *ppid), split(word(w, 0)));
            assert_eq!(*time, word(w, 2));
        }
        (
            PERF_RECORD_THROTTLE | PERF_RECORD_UNTHROTTLE,
            Body::Throttle {
                time,
                id,
                stream_id,
                ..
            },
        ) => {
            assert_eq!(
                (*time, *id, *stream_id),
                (word(w, 0), word(w, 1), word(w, 2))
            )
        }
        (PERF_RECORD_READ, Body::Read { pid, tid, values }) => {
            assert_eq!((*pid, *tid), split(word(w, 0)));
            let v: Vec<u64> = values.values().iter().map(|v| v.value).collect();
            assert_eq!(Some(v), e.read_values);
        }
        (
            PERF_RECORD_MMAP | PERF_RECORD_MMAP2,
            Body::Mmap {
                start, len, pgoff, ..
            },
        )
        | (
            PERF_RECORD_MMAP | PERF_RECORD_MMAP2,
            Body::Mmap2 {
                start, len, pgoff, ..
            },
        ) => {
            assert_eq!((*start, *len, *pgoff), (word(w, 1), word(w, 2), word(w, 3)))
        }
        (PERF_RECORD_COMM, Body::Comm { pid, tid, .. }) => {
            assert_eq!((*pid, *tid), split(word(w, 0)))
        }
        (PERF_RECORD_LOST_SAMPLES, Body::LostSamples { lost }) => assert_eq!(*lost, word(w, 0)),
        (
            PERF_RECORD_SWITCH_CPU_WIDE,
            Body::Switch {
                next_prev_pid,
                next_prev_tid,
            },
        ) => {
            assert_eq!((*next_prev_pid, *next_prev_tid), split(word(w, 0)))
        }
        (PERF_RECORD_SWITCH, Body::Switch { .. }) => {}
        (_, Body::Other { body }) => {
            assert!(!generate::SIDE_BAND[..9].contains(&e.type_));
            assert_eq!(body.len(), 8 * w.len(), "body of a {len}-byte record");
        }
        (t, b) => panic!("record type {t} parsed as {b:?}"),
    }
}

/// One libFuzzer input or sweep seed: a random layout, a valid record of a
/// random type (checked against what was written), then mutants of it.
pub fn generated(rng: &mut Rng, reused: &mut Record, tally: &mut Tally) {
    let layout = Layout::random(rng);
    record_and_mutants(&layout, rng, reused, tally);
}

/// A valid SAMPLE or side-band record of `layout`, then a few mutants.
pub fn record_and_mutants(layout: &Layout, rng: &mut Rng, reused: &mut Record, tally: &mut Tally) {
    let made = if rng.one_in(3) {
        let t = generate::SIDE_BAND[rng.below(generate::SIDE_BAND.len() as u64) as usize];
        generate::side_band(layout, t, rng)
    } else {
        generate::sample(layout, rng)
    };
    let Some((record, expect)) = made else {
        return;
    };
    valid(&record, &expect, layout, reused, tally);
    let info = ParseInfo::new(&layout.attr);
    for _ in 0..rng.below(4) {
        let mut m = record.clone();
        for _ in 0..=rng.below(2) {
            generate::mutate(&mut m, rng);
        }
        any(&m, &info, reused, tally);
    }
}
