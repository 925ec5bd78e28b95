// SPDX-License-Identifier: GPL-2.0-only
//! The session's contract with its handler, on files written by hand: a
//! handler error stops processing and comes back, `check()` runs every
//! [`CHECK_EVERY`] records and can stop it, a session reads once, the
//! machine can be looked at from a callback, ordering can be turned off,
//! and the queue's cap flushes the older half.

mod common;

use common::synth::{self, Synth};
use common::TempDir;
use perf_core::perf_data::PerfData;
use perf_core::session::{Event, Handler, ProcessError, Session, SessionOptions, CHECK_EVERY};

#[derive(Default)]
struct H {
    times: Vec<u64>,
    comms: Vec<String>,
    checks: u32,
    fail_sample: Option<usize>,
    fail_check: Option<u32>,
}

impl Handler for H {
    type Error = String;

    fn sample(&mut self, ev: &Event<'_>) -> Result<(), String> {
        let s = &ev.record.sample;
        // The machine can be locked from a callback (as a Python
        // find_thread would).
        let comm = ev
            .machine
            .lock()
            .find_thread(s.pid, s.tid)
            .map(|t| t.comm().to_owned());
        self.comms.push(comm.unwrap_or_default());
        self.times.push(s.time);
        if self.fail_sample == Some(self.times.len()) {
            return Err(format!("stop at {}", s.time));
        }
        Ok(())
    }

    fn check(&mut self) -> Result<(), String> {
        self.checks += 1;
        if self.fail_check == Some(self.checks) {
            return Err("interrupted".into());
        }
        Ok(())
    }
}

/// A file of `n` samples, times descending by pairs within rounds.
fn file(dir: &TempDir, n: u64) -> std::path::PathBuf {
    let mut s = Synth::new();
    s.data = synth::comm(42, "many", 1);
    for i in 0..n {
        // 2, 1, 4, 3, …: out of order within a round.
        let t = 10 + (i ^ 1);
        s.data.extend(synth::sample(0x1000, 42, t));
        if i % 100 == 99 {
            s.data.extend(synth::round());
        }
    }
    let p = dir.join("many.data");
    std::fs::write(&p, s.build().0).unwrap();
    p
}

fn open(p: &std::path::Path, options: SessionOptions) -> Session {
    Session::new(PerfData::open(p.to_str().unwrap()).unwrap(), options).unwrap()
}

#[test]
fn a_handler_error_stops_processing_and_comes_back() {
    let dir = TempDir::new("session");
    let p = file(&dir, 1000);
    let mut h = H {
        fail_sample: Some(7),
        ..H::default()
    };
    let mut s = open(&p, SessionOptions::default());
    match s.process_events(&mut h) {
        Err(ProcessError::Handler(e)) => assert_eq!(e, "stop at 16"),
        other => panic!("{other:?}"),
    }
    assert_eq!(h.times, [10, 11, 12, 13, 14, 15, 16]);
    // A session reads once: a second call delivers nothing.
    let mut again = H::default();
    s.process_events(&mut again).unwrap();
    assert!(again.times.is_empty() && again.checks == 0);
}

#[test]
fn check_runs_every_few_records_and_can_stop_processing() {
    let dir = TempDir::new("session");
    let p = file(&dir, 1000);
    let mut h = H::default();
    open(&p, SessionOptions::default())
        .process_events(&mut h)
        .unwrap();
    assert_eq!(h.times.len(), 1000);
    assert_eq!(h.comms.iter().filter(|c| *c == "many").count(), 1000);
    // Records read (1000 samples, 1 COMM, 10 rounds) and delivered
    // (1001), once each per CHECK_EVERY, plus one before the first.
    let units = 1011 + 1001;
    assert!(h.checks >= units / CHECK_EVERY, "{} checks", h.checks);
    // A check error (Ctrl-C) stops at once.
    let mut h = H {
        fail_check: Some(3),
        ..H::default()
    };
    match open(&p, SessionOptions::default()).process_events(&mut h) {
        Err(ProcessError::Handler(e)) => assert_eq!(e, "interrupted"),
        other => panic!("{other:?}"),
    }
    assert!(
        h.times.len() < 3 * CHECK_EVERY as usize,
        "{}",
        h.times.len()
    );
    let mut h = H {
        fail_check: Some(1),
        ..H::default()
    };
    assert!(open(&p, SessionOptions::default())
        .process_events(&mut h)
        .is_err());
    assert!(h.times.is_empty());
}

#[test]
fn ordering_off_gives_file_order_and_a_small_queue_flushes_halves() {
    let dir = TempDir::new("session");
    let p = file(&dir, 1000);
    let mut h = H::default();
    let mut s = open(
        &p,
        SessionOptions {
            ordered: false,
            ..SessionOptions::default()
        },
    );
    s.process_events(&mut h).unwrap();
    assert_eq!(&h.times[..4], [11, 10, 13, 12]);
    // Time order with FINISHED_ROUND.
    let mut h = H::default();
    let mut s = open(&p, SessionOptions::default());
    s.process_events(&mut h).unwrap();
    assert!(h.times.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(s.stats().nr_half_flushes, 0);
    // A file without rounds and a queue too small for it: perf's HALF
    // flushes keep memory at the cap.
    let mut n = Synth::new();
    n.data = synth::comm(42, "x", 1);
    for i in 0..5000u64 {
        n.data.extend(synth::sample(0, 42, 100 + i));
    }
    let q = dir.join("noround.data");
    std::fs::write(&q, n.build().0).unwrap();
    let mut h = H::default();
    let mut s = open(
        &q,
        SessionOptions {
            queue_bytes: 1 << 16,
            ..SessionOptions::default()
        },
    );
    s.process_events(&mut h).unwrap();
    assert_eq!(h.times.len(), 5000);
    assert!(h.times.windows(2).all(|w| w[0] <= w[1]));
    assert!(s.stats().nr_half_flushes > 10, "{:?}", s.stats());
    assert!(s.stats().queue_peak_bytes <= 1 << 16, "{:?}", s.stats());
    // The thread as the whole file left it.
    assert_eq!(
        s.find_thread(42, 42)
            .map(|t| t.comm().to_owned())
            .as_deref(),
        Some("x")
    );
}

#[test]
fn auxtrace_payloads_are_skipped() {
    let dir = TempDir::new("session");
    let mut s = Synth::new();
    let mut data = synth::comm(42, "aux", 1);
    for (i, t) in [3u64, 5, 4].iter().enumerate() {
        data.extend(synth::sample(0, 42, *t));
        // struct perf_record_auxtrace { header; u64 size, offset, reference; u32 idx, tid, cpu, reserved; }
        // followed by `size` bytes that header.size does not count (here
        // bytes that would read as records).
        let size = 8 * (i as u64 + 1) * 3;
        let mut body: Vec<u8> = [size, 0, 0].iter().flat_map(|v| v.to_ne_bytes()).collect();
        body.extend_from_slice(&[0; 16]);
        data.extend(synth::record(
            perf_core::perf_data::abi::PERF_RECORD_AUXTRACE,
            0,
            &body,
        ));
        data.extend(std::iter::repeat_n(0xff, size as usize));
    }
    s.data = data;
    let p = dir.join("aux.data");
    std::fs::write(&p, s.build().0).unwrap();
    let mut h = H::default();
    let mut session = open(&p, SessionOptions::default());
    session.process_events(&mut h).unwrap();
    assert_eq!(h.times, [3, 4, 5]);
    assert_eq!(session.stats().nr_events.get(71), Some(&3));
}

#[test]
fn without_sample_id_all_records_come_in_file_order() {
    // perf_session__new: ordering needs timestamps that records without a
    // sample_id trailer lack, so perf falls back to file order.
    let dir = TempDir::new("session");
    let mut s = Synth::new();
    s.attr.set(perf_core::attr::flag::SAMPLE_ID_ALL, false);
    s.data = Vec::new();
    for t in [10u64, 30, 20, 40] {
        s.data.extend(synth::sample(0, 42, t));
    }
    s.data.extend(synth::round());
    let p = dir.join("noid.data");
    std::fs::write(&p, s.build().0).unwrap();
    let mut h = H::default();
    open(&p, SessionOptions::default())
        .process_events(&mut h)
        .unwrap();
    assert_eq!(h.times, [10, 30, 20, 40]);
}

#[test]
fn records_cut_across_compressed_records_are_carried_over() {
    let dir = TempDir::new("session");
    let plain = file(&dir, 500);
    let mut want = H::default();
    open(&plain, SessionOptions::default())
        .process_events(&mut want)
        .unwrap();
    // The same records compressed with a flush every 1000 bytes: each
    // compressed record decompresses to a piece that ends inside a record
    // (the records are 40 bytes).
    let mut s = Synth::new();
    s.data = synth::comm(42, "many", 1);
    for i in 0..500u64 {
        s.data.extend(synth::sample(0x1000, 42, 10 + (i ^ 1)));
        if i % 100 == 99 {
            s.data.extend(synth::round());
        }
    }
    s.data = synth::compressed_in(&s.data, 1, 1000);
    let p = dir.join("zsmall.data");
    std::fs::write(&p, s.build().0).unwrap();
    let mut got = H::default();
    let mut session = open(&p, SessionOptions::default());
    session.process_events(&mut got).unwrap();
    assert_eq!(got.times, want.times);
    assert!(session.stats().nr_compressed > 20, "{:?}", session.stats());
    // The same as COMPRESSED2 records (newer perf).
    s.data = synth::compressed2(&s.data);
    let p2 = dir.join("z2.data");
    std::fs::write(&p2, s.build().0).unwrap();
    let mut got2 = H::default();
    open(&p2, SessionOptions::default())
        .process_events(&mut got2)
        .unwrap();
    assert_eq!(got2.times, want.times);
    assert_eq!(session.stats().decompressed_bytes, 8 * 6 + 500 * 40 + 5 * 8);
}
