// SPDX-License-Identifier: GPL-2.0-only
//! Tests against this machine's real tracefs: every `format` file must
//! parse. They skip (saying why) where tracefs is not readable.

use super::field::{TEP_FIELD_IS_ARRAY, TEP_FIELD_IS_POINTER, TEP_FIELD_IS_SIGNED};
use super::*;
use crate::error::Error;

/// The real tracefs, or `None` (with a note) if this machine has none we can read.
fn real() -> Option<&'static Tracefs> {
    match mount::locate() {
        Some(root) if root.join("events/sched/sched_switch/format").is_file() => tracefs().ok(),
        _ => {
            eprintln!("skipped: no readable tracefs (not mounted, or not root)");
            None
        }
    }
}

#[test]
fn global_instance_is_the_located_one() {
    let Some(t) = real() else { return };
    assert_eq!(Some(t.root().to_path_buf()), mount::locate());
    assert!(std::ptr::eq(t, tracefs().unwrap_or_else(|e| panic!("{e}"))));
}

#[test]
fn tracepoint_ids_match_the_format_files() {
    let Some(t) = real() else { return };
    let id = tracepoint_id("sched", "sched_switch").unwrap_or_else(|e| panic!("{e}"));
    let f = t
        .format("sched", "sched_switch")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(id, f.id);
    assert!(id > 0);
    let byid = t.format_by_id(id).unwrap_or_else(|e| panic!("{e}"));
    assert!(std::sync::Arc::ptr_eq(&f, &byid));
    let missing = tracepoint_id("nosuchsys", "nosuch");
    assert_eq!(missing.err().and_then(|e| e.errno()), Some(libc::ENOENT));
}

/// The well-known layout of sched:sched_switch (unchanged since 5.x).
#[test]
fn real_sched_switch() {
    let Some(t) = real() else { return };
    let f = t
        .read_format("sched", "sched_switch")
        .unwrap_or_else(|e| panic!("{e}"));
    let comm = f.field("prev_comm").unwrap_or_else(|| panic!("prev_comm"));
    assert_eq!(
        (comm.type_name.as_str(), comm.offset, comm.size),
        ("char[16]", 8, 16)
    );
    assert!(comm.is_array() && comm.is_string() && !comm.is_dynamic());
    let pid = f.field("prev_pid").unwrap_or_else(|| panic!("prev_pid"));
    assert_eq!(
        (pid.type_name.as_str(), pid.offset, pid.size),
        ("pid_t", 24, 4)
    );
    assert!(pid.is_signed() && !pid.is_array());
    let names: Vec<&str> = f.fields.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "prev_comm",
            "prev_pid",
            "prev_prio",
            "prev_state",
            "next_comm",
            "next_pid",
            "next_prio"
        ]
    );
    let exec = t
        .read_format("sched", "sched_process_exec")
        .unwrap_or_else(|e| panic!("{e}"));
    let filename = exec.field("filename").unwrap_or_else(|| panic!("filename"));
    assert_eq!(filename.type_name, "__data_loc char[]");
    assert!(filename.is_dynamic() && filename.is_string() && !filename.is_relative());
}

/// The field line of `text` that declares a field at `offset` with `size`.
fn decl_line<'a>(text: &'a str, field: &Field) -> Option<&'a str> {
    let tail = format!("offset:{};\tsize:{};", field.offset, field.size);
    text.lines().find(|l| {
        l.contains(&tail)
            && l.split(';').next().is_some_and(|d| {
                let d = d.trim_end();
                let d = match d.strip_suffix(']').and_then(|x| x.rfind('[')) {
                    Some(open) => d.get(..open).unwrap_or(d),
                    None => d,
                };
                d.ends_with(field.name.as_str())
            })
    })
}

/// Every format file on this machine parses, and each field's flags agree
/// with a naive reading of its line: `[` ⇔ array, `*` ⇔ pointer, `signed:1` ⇔ signed; the four common fields are
/// those of every event; `ID:` equals the `id` file.
#[test]
fn every_format_file_parses() {
    let Some(t) = real() else { return };
    let events = t.events().unwrap_or_else(|e| panic!("{e}"));
    let mut fields = 0;
    let mut with_id = 0;
    let mut failures = Vec::new();
    for (sys, name) in &events {
        let path = t.event_dir(sys, name).map(|d| d.join("format"));
        let text = path.and_then(|p| {
            std::fs::read_to_string(p).map_err(|e| Error::InvalidArgument(e.to_string()))
        });
        let Ok(text) = text else { continue };
        let f = match Format::parse(sys, &text) {
            Ok(f) => f,
            Err(e) => {
                failures.push(format!("{sys}:{name}: {e}"));
                continue;
            }
        };
        let common: Vec<&str> = f.common_fields.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(
            common,
            [
                "common_type",
                "common_flags",
                "common_preempt_count",
                "common_pid"
            ],
            "{sys}:{name}"
        );
        // Some ftrace events (bprint, …) have a format but no id file.
        if let Ok(id) = t.tracepoint_id(sys, name) {
            assert_eq!(id, f.id, "{sys}:{name}");
            with_id += 1;
        }
        assert_eq!(&f.name, name, "{sys}:{name}");
        for field in f.common_fields.iter().chain(&f.fields) {
            fields += 1;
            let line = decl_line(&text, field)
                .unwrap_or_else(|| panic!("{sys}:{name}: no line for {}", field.name));
            let decl = line.split(';').next().unwrap_or_default();
            // libtraceevent: only `[` makes an array, so
            // `__data_loc cpumask_t cpumask` (ipi:ipi_send_cpumask) is a
            // dynamic scalar.
            let array = decl.contains('[');
            let flags = field.flags();
            let ctx = format!("{sys}:{name}: {line:?} → {flags:#x}");
            assert_eq!(flags & TEP_FIELD_IS_ARRAY != 0, array, "{ctx}");
            assert_eq!(
                flags & TEP_FIELD_IS_POINTER != 0,
                decl.contains('*'),
                "{ctx}"
            );
            assert_eq!(
                flags & TEP_FIELD_IS_SIGNED != 0,
                line.contains("signed:1;"),
                "{ctx}"
            );
            assert!(
                !field.name.is_empty() && !field.type_name.is_empty(),
                "{ctx}"
            );
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!(
        "{} format files ({with_id} with an id file), {fields} fields parsed",
        events.len()
    );
    assert!(events.len() > 100, "only {} events", events.len());
    assert!(with_id + 50 > events.len(), "only {with_id} id files");
}

/// The `tep_dump` lines (`testdata/tep_dump.c`) for one format.
fn tep_lines(sys: &str, name: &str, f: &Format) -> Vec<String> {
    let mut out = vec![format!("E {sys} {name} {}", f.id)];
    for x in f.common_fields.iter().chain(&f.fields) {
        out.push(format!(
            "F {}\t{}\t{}\t{}\t{}\t{}",
            x.name,
            x.type_name,
            x.offset,
            x.size,
            x.arraylen,
            x.flags()
        ));
    }
    out
}

/// Differential test against the system libtraceevent: set `TEP_DUMP` to
/// the output of `testdata/tep_dump.c` for this machine (see
/// testdata/README.md); every event, field, type text and flag must match.
#[test]
fn same_fields_as_libtraceevent() {
    let Some(dump) = std::env::var_os("TEP_DUMP") else {
        eprintln!("skipped: TEP_DUMP is not set (see testdata/README.md)");
        return;
    };
    let Some(t) = real() else { return };
    let want = std::fs::read_to_string(&dump).unwrap_or_else(|e| panic!("{dump:?}: {e}"));
    let mut got = Vec::new();
    for (sys, name) in t.events().unwrap_or_else(|e| panic!("{e}")) {
        let f = t
            .read_format(&sys, &name)
            .unwrap_or_else(|e| panic!("{sys}:{name}: {e}"));
        got.extend(tep_lines(&sys, &name, &f));
    }
    let want: Vec<&str> = want.lines().collect();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "line {}", i + 1);
    }
    assert_eq!(got.len(), want.len());
    eprintln!("{} lines identical to libtraceevent's", got.len());
}
