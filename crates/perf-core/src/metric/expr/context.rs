// SPDX-License-Identifier: GPL-2.0-only
//! What an expression asks of the system: `#literals`, whether an event
//! exists, the CPU id.

use std::collections::BTreeMap;

/// The system an expression is evaluated for.
pub trait Context {
    /// The value of `#name` (perf's `expr__get_literal()`); `None` when
    /// unknown or unreadable.
    fn literal(&self, name: &str) -> Option<f64>;
    /// Whether `event` names an event this machine has (perf parses it).
    fn has_event(&self, event: &str) -> bool;
    /// perf's CPU id string of the core PMU (`GenuineIntel-6-55-4`).
    fn cpuid(&self) -> Option<String>;
    /// Whether the NMI watchdog holds a counter (perf's
    /// `sysctl__nmi_watchdog_enabled()`), which `NO_GROUP_EVENTS_NMI`
    /// metrics do not group around.
    fn nmi_watchdog(&self) -> bool {
        false
    }
}

/// A context of given values, for tests and for evaluating recorded
/// counts.
#[derive(Debug, Clone, Default)]
pub struct FixedContext {
    /// `#name` → value (without the `#`).
    pub literals: BTreeMap<String, f64>,
    /// Events `has_event()` finds.
    pub events: Vec<String>,
    /// The CPU id.
    pub cpuid: Option<String>,
    /// Whether the NMI watchdog holds a counter.
    pub nmi_watchdog: bool,
}

impl Context for FixedContext {
    fn literal(&self, name: &str) -> Option<f64> {
        self.literals.get(name).copied()
    }

    fn has_event(&self, event: &str) -> bool {
        self.events.iter().any(|e| e == event)
    }

    fn cpuid(&self) -> Option<String> {
        self.cpuid.clone()
    }

    fn nmi_watchdog(&self) -> bool {
        self.nmi_watchdog
    }
}
