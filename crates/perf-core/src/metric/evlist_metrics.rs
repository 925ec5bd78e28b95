// SPDX-License-Identifier: GPL-2.0-only
//! The metrics of an evlist made by `perf.parse_metrics()`: perf's
//! `evlist->metric_events` with python.c's `compute_metric()` over them.
//!
//! Each event is read once per computation as python.c's `prepare_metric()`
//! reads it: the change since the previous `evsel.read()` of that CPU and
//! thread (since open for the first), without making this read the
//! previous one, scaled by enabled/running time when the counter was
//! multiplexed. The tool PMU's time events (`duration_time`, `user_time`,
//! `system_time`) are given in seconds, as `perf stat` gives them to
//! metrics (its evsel scale, 1e-9); python.c passes their nanoseconds.

use super::expr::SystemContext;
use super::metricgroup::{known_metrics, MetricError, MetricGroups};
use crate::cpumap::Cpu;
use crate::error::Result;
use crate::evlist::{lock, Evlist};
use crate::parse_events::ParsedEvsel;
use crate::threadmap::Pid;
use crate::tool_evsel::{ToolEvent, TOOL_PMU_TYPE};

/// Metrics over the evsels of one evlist (evsel `i` counts event `i` of
/// [`MetricGroups::events`]).
#[derive(Debug)]
pub struct EvlistMetrics {
    groups: MetricGroups,
    ctx: SystemContext,
}

impl EvlistMetrics {
    /// perf's `metricgroup__parse_groups()` as python.c calls it: the
    /// known metrics, counted system-wide. Returns the evsels to add, in
    /// order.
    ///
    /// # Errors
    /// As [`MetricGroups::parse`].
    pub fn parse(
        input: &str,
        pmu: &str,
    ) -> std::result::Result<(Self, Vec<ParsedEvsel>), MetricError> {
        let ctx = SystemContext::new(true, None);
        let groups = MetricGroups::parse(input, pmu, &known_metrics(), &ctx)?;
        let evsels = groups.events.iter().map(|e| e.evsel.clone()).collect();
        Ok((EvlistMetrics { groups, ctx }, evsels))
    }

    /// The metric names, in order.
    pub fn names(&self) -> Vec<String> {
        self.groups
            .metrics
            .iter()
            .map(|m| m.def.name.clone())
            .collect()
    }

    /// The value of metric `name` on (CPU number, thread id), or `None`
    /// when no such metric has its first event on that CPU and thread
    /// (perf's "Unknown metric"). An evsel not open counts 0, as perf's
    /// unchecked read of a closed fd leaves it.
    ///
    /// # Errors
    /// A counter that cannot be read.
    pub fn compute(
        &self,
        evlist: &Evlist,
        name: &str,
        cpu: Cpu,
        thread: Pid,
    ) -> Result<Option<f64>> {
        let Some(idx) = self.groups.metrics.iter().position(|m| m.def.name == name) else {
            return Ok(None);
        };
        let Some(&first) = self.groups.metrics[idx].events.first() else {
            return Ok(None);
        };
        let Some(leader) = evlist.get(first) else {
            return Ok(None);
        };
        let maps = lock(leader)
            .fds()
            .map(|t| (t.cpus.clone(), t.threads.clone()));
        let (cpus, threads) = match maps {
            Some(m) => m,
            None => evlist.maps()?,
        };
        if cpus.index_of(cpu).is_none() || threads.index_of(thread).is_none() {
            return Ok(None);
        }
        let mut read = |i: usize| -> Result<f64> {
            let Some(evsel) = evlist.get(i) else {
                return Ok(f64::NAN);
            };
            let mut e = lock(evsel);
            if e.fds().is_none() {
                return Ok(0.0);
            }
            let c = e.peek_counts(cpu, thread)?;
            #[allow(clippy::cast_precision_loss)]
            let (mut val, ena, run) = (c.val as f64, c.ena as f64, c.run as f64);
            if ena != run && run != 0.0 {
                val = val * ena / run;
            }
            if e.attr.type_ == TOOL_PMU_TYPE && ToolEvent::from_config(e.attr.config).is_some() {
                val *= 1e-9;
            }
            Ok(val)
        };
        self.groups.compute(idx, &self.ctx, &mut read).map(Some)
    }
}
