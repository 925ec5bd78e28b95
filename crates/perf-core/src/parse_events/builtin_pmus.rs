// SPDX-License-Identifier: GPL-2.0-only
//! The events perf knows without sysfs: the software PMU's events (perf's
//! `pmu-events/arch/common/common/software.json`) and the `tool` PMU
//! (`tool.json`, `tool_pmu.c`), whose events perf computes itself.

use super::sysfs::Pmu;
use crate::tool_evsel::{ToolEvent, TOOL_PMU_TYPE};

/// One built-in event: `(name, description, scale_unit)`. Its config is
/// not restated here: a software event's is its symbol's
/// ([`symbol`](super::symbols::symbol)), a tool event's its [`ToolEvent`].
pub type BuiltinEvent = (&'static str, &'static str, Option<&'static str>);

/// The software PMU's events, as perf's common JSON lists them (aliases are
/// rows of their own, as there).
pub const SOFTWARE_EVENTS: &[BuiltinEvent] = &[
    ("cpu-clock", "Per-CPU high-resolution timer based event", Some("1E-06msec")),
    ("task-clock", "Per-task high-resolution timer based event", Some("1E-06msec")),
    ("faults", "Number of page faults [This event is an alias of page-faults]", None),
    ("page-faults", "Number of page faults [This event is an alias of faults]", None),
    ("context-switches", "Number of context switches [This event is an alias of cs]", None),
    ("cs", "Number of context switches [This event is an alias of context-switches]", None),
    (
        "cpu-migrations",
        "Number of times a process has migrated to a new CPU [This event is an alias of migrations]",
        None,
    ),
    (
        "migrations",
        "Number of times a process has migrated to a new CPU [This event is an alias of cpu-migrations]",
        None,
    ),
    ("minor-faults", "Number of minor page faults. Minor faults don't require I/O to handle", None),
    ("major-faults", "Number of major page faults. Major faults require I/O to handle", None),
    ("alignment-faults", "Number of kernel handled memory alignment faults", None),
    (
        "emulation-faults",
        "Number of kernel handled unimplemented instruction faults handled through emulation",
        None,
    ),
    ("dummy", "A placeholder event that doesn't count anything", None),
    ("bpf-output", "An event used by BPF programs to write to the perf ring buffer", None),
    ("cgroup-switches", "Number of context switches to a task in a different cgroup", None),
];

/// The tool events this module implements (perf 6.1's three; newer perf
/// also has constants such as `num_cpus`, which are not here).
pub const TOOL_EVENTS: &[(ToolEvent, BuiltinEvent)] = &[
    (
        ToolEvent::DurationTime,
        (
            "duration_time",
            "Wall clock interval time in nanoseconds",
            None,
        ),
    ),
    (
        ToolEvent::UserTime,
        ("user_time", "User (non-kernel) time in nanoseconds", None),
    ),
    (
        ToolEvent::SystemTime,
        ("system_time", "System/kernel time in nanoseconds", None),
    ),
];

/// The names of the tool events (the event-name layer's side of
/// [`ToolEvent`]).
impl ToolEvent {
    /// The tool event named `name` (ASCII case ignored, as perf).
    pub fn from_name(name: &str) -> Option<ToolEvent> {
        TOOL_EVENTS
            .iter()
            .find(|(_, (n, ..))| n.eq_ignore_ascii_case(name))
            .map(|&(ev, _)| ev)
    }

    /// perf's name of the event.
    pub fn name(self) -> &'static str {
        TOOL_EVENTS
            .iter()
            .find(|(ev, _)| *ev == self)
            .map_or("", |(_, (n, ..))| n)
    }
}

/// The attr perf parses a tool event into: the tool PMU's type, the
/// event's config, perf's `exclude_guest` default.
pub fn tool_attr(ev: ToolEvent) -> crate::attr::Attr {
    super::evsel::base_attr(TOOL_PMU_TYPE, ev as u64)
}

/// The `tool` PMU: not in sysfs, so made here.
pub fn tool_pmu() -> Pmu {
    Pmu {
        name: "tool".to_owned(),
        type_: TOOL_PMU_TYPE,
        formats: Vec::new(),
        aliases: Vec::new(),
        is_core: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_software_event_is_a_software_symbol() {
        for &(name, ..) in SOFTWARE_EVENTS {
            let sym = super::super::symbols::symbol(name);
            assert!(
                matches!(sym, Some((t, _)) if t == perf_event_open_sys::bindings::PERF_TYPE_SOFTWARE),
                "{name}: {sym:?}"
            );
        }
    }

    #[test]
    fn tool_events_by_name_and_config() {
        for &(ev, (name, ..)) in TOOL_EVENTS {
            assert_eq!(ToolEvent::from_name(name), Some(ev));
            assert_eq!(ToolEvent::from_config(ev as u64), Some(ev));
            assert_eq!(ev.name(), name);
        }
        assert_eq!(ToolEvent::from_config(0), None);
    }
}
