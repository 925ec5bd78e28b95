// SPDX-License-Identifier: GPL-2.0-only
//! Symbol resolution against the real perf 6.1: each test builds a
//! workload, records it with `perf record -g`, takes the MMAP records and
//! the raw sample addresses from `perf script -D`, resolves them with
//! `perf_core::symbol` and compares every frame with what `perf script`
//! prints for the same file. Differences allowed are in docs/symbols.md.

mod dump;
mod model;
mod perf;
mod script;

use perf::{build, Recording, TempDir};

/// Our `perf script -F ip,sym,symoff,dso` for the recording and perf's.
fn both(rec: &Recording) -> (String, String) {
    let events = dump::parse(&rec.script(&["-D"]));
    let mut machine = model::Machine::new(rec.dsos());
    let ours = script::ip_sym_dso(&mut machine, &events);
    let theirs = rec.script(&["-F", "ip,sym,symoff,dso"]);
    (ours, theirs)
}

/// Asserts equal outputs, showing the first differing lines.
fn assert_same(what: &str, ours: &str, theirs: &str) {
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
    let diffs: Vec<String> = a
        .iter()
        .zip(b.iter())
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .take(20)
        .map(|(i, (x, y))| format!("line {i}:\n  ours: {x}\n  perf: {y}"))
        .collect();
    assert!(
        diffs.is_empty() && a.len() == b.len(),
        "{what}: {} lines ours, {} perf's; differences:\n{}",
        a.len(),
        b.len(),
        diffs.join("\n")
    );
    let frames = a.iter().filter(|l| l.starts_with('\t')).count();
    eprintln!("{what}: {frames} frames equal to perf's");
}

macro_rules! skip_unless_perf {
    () => {
        if let Some(why) = perf::unavailable() {
            eprintln!("skipped: {why}");
            return;
        }
    };
}

#[test]
fn c_o0() {
    skip_unless_perf!();
    let dir = TempDir::new("c-o0");
    let exe = build(
        &dir.0,
        "gcc",
        "work.c",
        &["-O0", "-g", "-fno-omit-frame-pointer"],
        "work",
    );
    let rec = Recording::record(dir, &[], &[exe.to_str().unwrap_or_default(), "20"]);
    let (ours, theirs) = both(&rec);
    assert_same("C -O0", &ours, &theirs);
}
