// SPDX-License-Identifier: GPL-2.0-only
//! perf's pmu-events tables (tools/perf/pmu-events): the JSON events and
//! metrics of CPU models, built in from a kernel source at build time
//! (build.rs), chosen by the CPU identifier as perf's
//! `pmu_events_table__find()` chooses them.

mod cpuid;
mod event;
mod layout;
mod mapfile;
mod table;

pub use cpuid::{cpuid, pvr_cpuid, x86_cpuid, PERF_CPUID_ENV};
pub use event::PmuEvent;
pub use mapfile::{host_cpuid_matches, MapEntry};
pub use table::{mapfile, model_table, source, PmuEventsTable};

use std::sync::{Mutex, PoisonError};

use crate::metric::MetricDef;

/// The first mapfile row `id` selects (mapfile order, as perf).
pub fn find_entry(id: &str) -> Option<&'static MapEntry> {
    mapfile().iter().find(|e| e.matches(id))
}

/// The table of the CPU identifier `id`. The row found for the last
/// identifier is remembered (matching compiles each row's pattern).
pub fn find_table(id: &str) -> Option<&'static PmuEventsTable> {
    static LAST: Mutex<Option<(String, Option<usize>)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(PoisonError::into_inner);
    let model = match &*last {
        Some((last_id, model)) if last_id == id => *model,
        _ => {
            let model = find_entry(id).map(|e| e.model);
            *last = Some((id.to_owned(), model));
            model
        }
    };
    drop(last);
    model_table(model?)
}

/// The table of this CPU ([`cpuid`]: `$PERF_CPUID` or the host's).
pub fn cpu_table() -> Option<&'static PmuEventsTable> {
    find_table(&cpuid()?)
}

/// The metrics perf knows on this CPU: its table's, in the order of
/// upstream's tables (jevents.py sorts by PMU, name, expression and
/// description), then the common software metrics.
pub fn cpu_metrics() -> Vec<MetricDef> {
    let mut metrics: Vec<MetricDef> = cpu_table().map_or_else(Vec::new, |t| t.metrics.clone());
    let key = |m: &MetricDef| {
        (
            m.pmu.clone().unwrap_or_default(),
            m.name.clone(),
            m.expr.clone(),
            m.brief.clone().unwrap_or_default(),
        )
    };
    metrics.sort_by_cached_key(key);
    metrics.extend(crate::metric::common::common_metrics());
    metrics
}

#[cfg(test)]
mod tests;
