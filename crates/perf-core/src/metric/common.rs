// SPDX-License-Identifier: GPL-2.0-only
//! perf's common metrics that hold on every CPU: those of
//! tools/perf/pmu-events/arch/common/common/metrics.json whose events are
//! software and tool events only (the others need hardware counters).
//! They are what a build without pmu-events tables still has.

use super::MetricDef;

/// The task or CPU clock perf's common metrics divide by: `cpu-clock`
/// when counting CPUs (`#target_cpu`), else `task-clock`.
const CLOCK: &str = r"software@cpu\-clock\,name\=cpu\-clock@ if #target_cpu else software@task\-clock\,name\=task\-clock@";

fn rate(event: &str) -> String {
    format!(r"(software@{event}\,name\={event}@ * 1e9) / ({CLOCK})")
}

fn def(name: &str, expr: String, scale_unit: &str, brief: &str) -> MetricDef {
    MetricDef {
        name: name.to_owned(),
        groups: vec!["Default".to_owned()],
        expr,
        scale_unit: Some(scale_unit.to_owned()),
        brief: Some(brief.to_owned()),
        constraint: Some("NO_GROUP_EVENTS".to_owned()),
        pmu: Some("default_core".to_owned()),
        ..MetricDef::default()
    }
}

/// `CPUs_utilized`, `cs_per_second`, `migrations_per_second`,
/// `page_faults_per_second`, with perf's names, group, expressions, scale
/// units, descriptions and constraint, on the core PMU as jevents.py places
/// a metric without `Unit` (`default_core`).
pub fn common_metrics() -> Vec<MetricDef> {
    vec![
        def(
            "CPUs_utilized",
            format!("({CLOCK}) / (duration_time * 1e9)"),
            "1CPUs",
            "Average CPU utilization",
        ),
        def(
            "cs_per_second",
            rate(r"context\-switches"),
            "1cs/sec",
            "Context switches per CPU second",
        ),
        def(
            "migrations_per_second",
            rate(r"cpu\-migrations"),
            "1migrations/sec",
            "Process migrations to a new CPU per CPU second",
        ),
        def(
            "page_faults_per_second",
            rate(r"page\-faults"),
            "1faults/sec",
            "Page faults per CPU second",
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metric::expr::{Expr, FixedContext};

    #[test]
    fn expressions_are_perfs_text() {
        let m = common_metrics();
        assert_eq!(
            m[0].expr,
            r"(software@cpu\-clock\,name\=cpu\-clock@ if #target_cpu else software@task\-clock\,name\=task\-clock@) / (duration_time * 1e9)"
        );
        assert_eq!(
            m[1].expr,
            r"(software@context\-switches\,name\=context\-switches@ * 1e9) / (software@cpu\-clock\,name\=cpu\-clock@ if #target_cpu else software@task\-clock\,name\=task\-clock@)"
        );
    }

    #[test]
    fn each_needs_its_clock_and_event() {
        let mut ctx = FixedContext::default();
        ctx.literals.insert("target_cpu".into(), 1.0);
        let ids: Vec<Vec<String>> = common_metrics()
            .iter()
            .map(|m| Expr::parse(&m.expr, 0).unwrap().find_ids(&ctx).unwrap())
            .collect();
        assert_eq!(
            ids[0],
            ["software@cpu-clock,name=cpu-clock@", "duration_time"]
        );
        assert_eq!(
            ids[3],
            [
                "software@page-faults,name=page-faults@",
                "software@cpu-clock,name=cpu-clock@"
            ]
        );
    }
}
