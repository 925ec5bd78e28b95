// SPDX-License-Identifier: GPL-2.0-only
//! perf's event strings (`perf stat -e`, `perf.parse_events()`): a
//! hand-written lexer and recursive-descent parser of the syntax of perf's
//! `parse-events.l`/`.y`, producing perf's evsels without perf.
//!
//! ```text
//! cycles,instructions:u           hardware and software names, modifiers
//! L1-dcache-load-misses           hardware cache events
//! sched:sched_switch, sched:*     tracepoints, globs (sorted)
//! r1a2, 4:0x1a2                   raw and numeric TYPE:CONFIG events
//! software/config=1,name=x/       PMU terms (sysfs format fields, aliases)
//! tsc, msr/tsc/                   PMU event aliases
//! mem:0x1000/8:rw                 breakpoints
//! {task-clock,page-faults}:S      groups, group modifiers
//! ```
//!
//! | perf                               | here                        |
//! |------------------------------------|-----------------------------|
//! | `parse_events()`                   | [`parse_events()`]          |
//! | `struct evsel` after parsing       | [`ParsedEvsel`]             |
//! | `struct parse_events_error`        | [`ParseError`]              |
//! | `struct evsel_config_term`         | [`ConfigTerm`]              |
//! | `evsel__apply_config_terms()`      | [`apply_config_terms`]      |
//! | `struct perf_pmu` (sysfs part)     | [`Pmu`], [`Sysfs`]          |
//!
//! The reference is Debian's perf 6.1 on the machine: for every string the
//! attrs match what `perf stat -vv` / `perf record -vv` print (see
//! `tests/test_parse_events_vs_perf.py`). Deliberate differences:
//! * tracepoint globs expand in sorted order (perf: `readdir` order);
//! * an unknown `call-graph=` mode is an error (perf warns and ignores it);
//! * the tool events (`duration_time`, `user_time`, `system_time`) are
//!   also taken as `tool/NAME/`, as perf ≥ 6.13 (perf 6.1: bare names only);
//! * BPF objects, JSON vendor events and metrics are not supported;
//! * an unterminated group (`{a,b`) is an error (perf 6.1 takes it).

pub mod builtin_pmus;
mod cursor;
mod env;
pub mod error;
mod event_info_format;
pub mod evsel;
mod json_events;
mod modifiers;
mod parser;
pub mod pmu_events;
pub mod symbols;
pub mod sysfs;
pub mod terms;
pub mod tracepoint;

pub use crate::tool_evsel::{ToolEvent, TOOL_PMU_TYPE};
pub use builtin_pmus::tool_pmu;
pub use error::ParseError;
pub use evsel::{GroupInfo, ParsedEvsel};
pub use pmu_events::{pmu_events, PmuEventInfo};
pub use sysfs::{ConfigField, Pmu, PmuAlias, PmuFormat, Sysfs};
pub use terms::{apply_config_terms, CallGraph, ConfigTerm};

use crate::tracefs::Tracefs;
use env::{Env, TracefsSource};
use parser::Parser;

/// Parses an event string against the running system: PMUs from `/sys`,
/// tracepoints from the system's tracefs (looked for only if the string
/// names a tracepoint).
///
/// # Errors
/// A [`ParseError`] naming the first problem and its byte offset.
pub fn parse_events(s: &str) -> Result<Vec<ParsedEvsel>, ParseError> {
    let sysfs = Sysfs::system();
    let env = Env::new(&sysfs, TracefsSource::System);
    Parser::new(s, &env).parse()
}

/// [`parse_events()`] with PMUs from `sysfs` and tracepoints from
/// `tracefs` (`None`: every tracepoint is unknown).
///
/// # Errors
/// As [`parse_events()`].
pub fn parse_events_in(
    s: &str,
    sysfs: &Sysfs,
    tracefs: Option<&Tracefs>,
) -> Result<Vec<ParsedEvsel>, ParseError> {
    let source = match tracefs {
        Some(t) => TracefsSource::Given(t),
        None => TracefsSource::Missing,
    };
    let env = Env::new(sysfs, source);
    Parser::new(s, &env).parse()
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tool_tests;
