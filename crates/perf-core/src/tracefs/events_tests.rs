// SPDX-License-Identifier: GPL-2.0-only
//! `Tracefs` on the fixture tree and on temporary trees.

use super::*;
use crate::tracefs::testutil::{fixture, testdata, TempTree};
use crate::tracefs::Field;

fn fixtures() -> Tracefs {
    Tracefs::at(testdata())
}

fn errno(r: Result<impl std::fmt::Debug>) -> Option<i32> {
    r.err().and_then(|e| e.errno())
}

#[test]
fn ids_from_the_id_files() {
    let t = fixtures();
    assert_eq!(t.tracepoint_id("sched", "sched_switch").ok(), Some(372));
    assert_eq!(
        t.tracepoint_id("sample-trace", "foo_rel_loc").ok(),
        Some(1259)
    );
    assert_eq!(
        errno(t.tracepoint_id("sched", "nosuch")),
        Some(libc::ENOENT)
    );
    assert_eq!(
        errno(t.tracepoint_id("nosuchsys", "nosuch")),
        Some(libc::ENOENT)
    );
}

#[test]
fn names_cannot_leave_events() {
    let t = fixtures();
    for (sys, name) in [
        ("", "sched_switch"),
        ("sched", ""),
        ("..", "README.md"),
        (".", "sched"),
        ("sched/../sched", "sched_switch"),
        ("sched", "sched_switch/../sched_switch"),
        ("sched", "sched_switch\0"),
    ] {
        let got = t.tracepoint_id(sys, name);
        assert!(
            matches!(got, Err(Error::InvalidArgument(_))),
            "{sys:?} {name:?}: {got:?}"
        );
        assert!(t.read_format(sys, name).is_err());
    }
    // Dots inside a name are fine: they can't form a path component.
    assert_eq!(errno(t.tracepoint_id("a..b", "c")), Some(libc::ENOENT));
}

#[test]
fn malformed_id_file() {
    let tree = TempTree::new("badid");
    tree.write("events/x/y/id", "twelve\n");
    let t = Tracefs::at(tree.path());
    let got = t.tracepoint_id("x", "y");
    assert!(matches!(got, Err(Error::Malformed { .. })), "{got:?}");
}

#[test]
fn formats_are_cached_and_shared() {
    let t = fixtures();
    assert!(t.cached_format(372).is_none());
    let a = t
        .format("sched", "sched_switch")
        .unwrap_or_else(|e| panic!("{e}"));
    let b = t
        .format("sched", "sched_switch")
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(Arc::ptr_eq(&a, &b));
    let c = t
        .cached_format(372)
        .unwrap_or_else(|| panic!("cached under its id"));
    assert!(Arc::ptr_eq(&a, &c));
    // The string flag is shared by every holder of the cached format.
    let comm = |f: &Format| f.field("prev_comm").map(Field::is_string);
    assert_eq!(comm(&b), Some(true));
    if let Some(field) = a.field("prev_comm") {
        field.clear_string();
    }
    assert_eq!(comm(&b), Some(false));
    // read_format() bypasses the cache.
    let fresh = t
        .read_format("sched", "sched_switch")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(comm(&fresh), Some(true));
}

#[test]
fn format_by_id_scans_once_and_rescans_for_new_events() {
    let tree = TempTree::new("byid");
    tree.write("events/sched/sched_switch/id", "372\n");
    tree.write(
        "events/sched/sched_switch/format",
        &fixture("sched", "sched_switch"),
    );
    tree.write("events/enable", "0\n");
    tree.write("events/sched/enable", "0\n");
    let t = Tracefs::at(tree.path());
    let f = t.format_by_id(372).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (f.system.as_str(), f.name.as_str()),
        ("sched", "sched_switch")
    );
    assert!(Arc::ptr_eq(
        &f,
        &t.cached_format(372).unwrap_or_else(|| unreachable!())
    ));
    let missing = t.format_by_id(365);
    assert!(
        matches!(missing, Err(Error::InvalidArgument(_))),
        "{missing:?}"
    );
    // A tracepoint that appears later (a new kprobe, a loaded module).
    tree.write("events/sched/sched_process_exec/id", "365\n");
    tree.write(
        "events/sched/sched_process_exec/format",
        &fixture("sched", "sched_process_exec"),
    );
    let f = t.format_by_id(365).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f.name, "sched_process_exec");
}

#[test]
fn format_by_id_on_the_fixtures() {
    let t = fixtures();
    let f = t.format_by_id(1259).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (f.system.as_str(), f.name.as_str()),
        ("sample-trace", "foo_rel_loc")
    );
    assert!(t.format_by_id(1).is_ok_and(|f| f.system == "ftrace"));
    assert!(t.format_by_id(999_999).is_err());
}

#[test]
fn events_lists_the_fixtures_and_the_readme_matches() {
    let t = fixtures();
    let events = t.events().unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<String> = events.iter().map(|(s, n)| format!("{s}/{n}")).collect();
    assert_eq!(
        names,
        [
            "alarmtimer/alarmtimer_start",
            "ftrace/function",
            "irq/irq_handler_entry",
            "sample-trace/foo_rel_loc",
            "sched/sched_process_exec",
            "sched/sched_switch",
            "syscalls/sys_enter_openat",
        ]
    );
    let readme = std::fs::read_to_string(testdata().join("README.md")).unwrap_or_default();
    for name in &names {
        assert!(
            readme.contains(&format!("events/{name}/format")),
            "README.md does not describe {name}"
        );
        // The id file agrees with the format's ID: line.
        let (sys, ev) = name.split_once('/').unwrap_or_default();
        let id = t.tracepoint_id(sys, ev).ok();
        assert_eq!(id, t.read_format(sys, ev).ok().map(|f| f.id), "{name}");
    }
    assert_eq!(
        errno(Tracefs::at("/nonexistent").events()),
        Some(libc::ENOENT)
    );
}
