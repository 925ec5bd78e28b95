// SPDX-License-Identifier: GPL-2.0-only
//! Parses event strings with `perf_core::parse_events` and prints, per
//! string, one line of JSON (for tests/test_parse_events_vs_perf.py):
//!
//! ```text
//! cargo run -q -p perf-core --example parse_events -- 'cycles:u' '{cs,faults}:S'
//! {"input":"cycles:u","ok":true,"evsels":[{"name":"cycles:u","pmu":null,"group":null,...,"attr":{"type":0,...}}]}
//! {"input":"xyz","ok":false,"message":"unknown event 'xyz'","position":0,"display":"event syntax error: ..."}
//! ```
//!
//! `--sysfs DIR` and `--tracefs DIR` (before the strings) parse against
//! other trees than the system's. `--metrics` takes the strings as
//! `parse_metrics` does (metric or group names, each string on its own),
//! the metrics of the CPU's pmu-events table as a process that is not
//! system-wide sees them, and prints the evsels with their metric ids:
//!
//! ```text
//! {"input":"IPC","ok":true,"metrics":["IPC"],"evsels":[{"id":"INST_RETIRED.ANY","name":...}]}
//! ```

use std::fmt::Write as _;
use std::process::ExitCode;

use perf_core::attr::Attr;
use perf_core::metric::expr::SystemContext;
use perf_core::metric::metricgroup::{known_metrics, MetricGroups};
use perf_core::metric::EventSource;
use perf_core::parse_events::{parse_events, parse_events_in, ParsedEvsel, Sysfs};
use perf_core::tracefs::Tracefs;

/// The attr flag bits printed, by uapi name.
const FLAGS: &[&str] = &[
    "disabled",
    "inherit",
    "pinned",
    "exclusive",
    "exclude_user",
    "exclude_kernel",
    "exclude_hv",
    "exclude_idle",
    "freq",
    "precise_ip",
    "mmap_data",
    "exclude_host",
    "exclude_guest",
    "exclude_callchain_kernel",
    "exclude_callchain_user",
];

/// A JSON string literal.
fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn attr_json(a: &Attr) -> String {
    let mut fields = vec![
        format!("\"type\":{}", a.type_),
        format!("\"config\":{}", a.config),
        format!("\"config1\":{}", a.config1),
        format!("\"config2\":{}", a.config2),
        format!("\"config3\":{}", a.config3),
        format!("\"sample_period\":{}", a.sample_period),
        format!("\"sample_type\":{}", a.sample_type),
        format!("\"read_format\":{}", a.read_format),
        format!("\"bp_type\":{}", a.bp_type),
        format!("\"branch_sample_type\":{}", a.branch_sample_type),
        format!("\"sample_regs_user\":{}", a.sample_regs_user),
        format!("\"sample_stack_user\":{}", a.sample_stack_user),
        format!("\"sample_max_stack\":{}", a.sample_max_stack),
    ];
    for name in FLAGS {
        fields.push(format!("\"{name}\":{}", a.flag(name).unwrap_or(0)));
    }
    format!("{{{}}}", fields.join(","))
}

fn evsel_json(e: &ParsedEvsel) -> String {
    let group = match &e.group {
        None => "null".to_owned(),
        Some(g) => format!(
            "{{\"index\":{},\"leader\":{},\"is_leader\":{},\"nr_members\":{},\"name\":{}}}",
            g.index,
            g.leader,
            g.is_leader,
            g.nr_members,
            g.name.as_deref().map_or_else(|| "null".to_owned(), string)
        ),
    };
    format!(
        "{{\"name\":{},\"pmu\":{},\"group\":{},\"sample_read\":{},\"precise_max\":{},\"weak_group\":{},\"attr\":{}}}",
        string(&e.name),
        e.pmu.as_deref().map_or_else(|| "null".to_owned(), string),
        group,
        e.sample_read,
        e.precise_max,
        e.weak_group,
        attr_json(&e.attr)
    )
}

/// One line for metric string `s`.
fn metrics_json(s: &str, sysfs: Option<&Sysfs>) -> String {
    let ctx = SystemContext::new(false, None);
    let source = EventSource { sysfs };
    match MetricGroups::parse_with(s, "all", &known_metrics(), &ctx, source) {
        Ok(groups) => {
            let names: Vec<String> = (0..groups.metrics.len())
                .filter_map(|i| groups.metric_name(i).map(string))
                .collect();
            let list: Vec<String> = groups
                .events
                .iter()
                .map(|e| format!("{{\"id\":{},{}", string(&e.id), &evsel_json(&e.evsel)[1..]))
                .collect();
            format!(
                "{{\"input\":{},\"ok\":true,\"metrics\":[{}],\"evsels\":[{}]}}",
                string(s),
                names.join(","),
                list.join(",")
            )
        }
        Err(e) => format!(
            "{{\"input\":{},\"ok\":false,\"message\":{}}}",
            string(s),
            string(&e.to_string())
        ),
    }
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut sysfs = None;
    let mut tracefs = None;
    let mut metrics = false;
    while args.first().map(String::as_str) == Some("--metrics")
        || args.len() >= 2
            && matches!(
                args.first().map(String::as_str),
                Some("--sysfs" | "--tracefs")
            )
    {
        if args[0] == "--metrics" {
            metrics = true;
            args.remove(0);
            continue;
        }
        let flag = args.remove(0);
        let dir = args.remove(0);
        if flag == "--sysfs" {
            sysfs = Some(Sysfs::at(dir));
        } else {
            tracefs = Some(Tracefs::at(dir));
        }
    }
    if args.is_empty() {
        eprintln!("usage: parse_events [--sysfs DIR] [--tracefs DIR] [--metrics] STRING...");
        return ExitCode::from(2);
    }
    for s in &args {
        if metrics {
            println!("{}", metrics_json(s, sysfs.as_ref()));
            continue;
        }
        let parsed = match (&sysfs, &tracefs) {
            (None, None) => parse_events(s),
            _ => parse_events_in(
                s,
                sysfs.as_ref().unwrap_or(&Sysfs::system()),
                tracefs.as_ref(),
            ),
        };
        match parsed {
            Ok(evsels) => {
                let list: Vec<String> = evsels.iter().map(evsel_json).collect();
                println!(
                    "{{\"input\":{},\"ok\":true,\"evsels\":[{}]}}",
                    string(s),
                    list.join(",")
                );
            }
            Err(e) => println!(
                "{{\"input\":{},\"ok\":false,\"message\":{},\"position\":{},\"display\":{}}}",
                string(s),
                string(&e.message),
                e.position,
                string(&e.to_string())
            ),
        }
    }
    ExitCode::SUCCESS
}
