// SPDX-License-Identifier: GPL-2.0-only
//! Metric names to events, against this machine's event parser.

use super::*;
use crate::metric::common::common_metrics;
use crate::metric::expr::FixedContext;

fn target_cpu() -> FixedContext {
    let mut ctx = FixedContext::default();
    ctx.literals.insert("target_cpu".into(), 1.0);
    ctx
}

fn def(name: &str, expr: &str, constraint: Option<&str>) -> MetricDef {
    MetricDef {
        name: name.into(),
        expr: expr.into(),
        groups: vec!["G".into()],
        constraint: constraint.map(Into::into),
        ..MetricDef::default()
    }
}

fn names(g: &MetricGroups) -> Vec<&str> {
    g.events.iter().map(|e| e.evsel.name.as_str()).collect()
}

#[test]
fn cpus_utilized_counts_cpu_clock_and_duration_time_ungrouped() {
    let g = MetricGroups::parse("CPUs_utilized", "all", &common_metrics(), &target_cpu()).unwrap();
    assert_eq!(names(&g), ["cpu-clock", "duration_time"]);
    assert!(g.events.iter().all(|e| e.evsel.group.is_none()));
    assert_eq!(g.metrics[0].events, [0, 1]);
    let mut ctx = FixedContext::default();
    ctx.literals.insert("target_cpu".into(), 0.0);
    let g = MetricGroups::parse("CPUs_utilized", "all", &common_metrics(), &ctx).unwrap();
    assert_eq!(names(&g), ["task-clock", "duration_time"]);
}

#[test]
fn a_group_shares_events_between_its_metrics() {
    let g = MetricGroups::parse("Default", "all", &common_metrics(), &target_cpu()).unwrap();
    let got: Vec<&str> = g.metrics.iter().map(|m| m.def.name.as_str()).collect();
    assert_eq!(
        got,
        [
            "CPUs_utilized",
            "cs_per_second",
            "migrations_per_second",
            "page_faults_per_second"
        ]
    );
    assert_eq!(
        names(&g),
        [
            "cpu-clock",
            "context-switches",
            "cpu-migrations",
            "page-faults",
            "duration_time"
        ]
    );
    // Names are matched whatever their case; a name given twice counts once.
    let g = MetricGroups::parse(
        "cpus_UTILIZED,CPUs_utilized",
        "all",
        &common_metrics(),
        &target_cpu(),
    )
    .unwrap();
    assert_eq!(g.metrics.len(), 1);
}

#[test]
fn values_come_from_the_events_read_once_each() {
    let g = MetricGroups::parse("Default", "all", &common_metrics(), &target_cpu()).unwrap();
    // cpu-clock 2 s of CPU time over 1 s (duration_time in seconds).
    let vals = [2e9, 10.0, 4.0, 8.0, 1.0];
    let mut reads = 0;
    let mut read = |i: usize| -> Result<f64, ()> {
        reads += 1;
        Ok(vals[i])
    };
    assert_eq!(g.compute(0, &target_cpu(), &mut read), Ok(2.0));
    assert_eq!(g.compute(1, &target_cpu(), &mut read), Ok(5.0));
    assert_eq!(g.compute(3, &target_cpu(), &mut read), Ok(4.0));
    assert_eq!(reads, 6);
}

#[test]
fn unknown_names_and_pmus_are_perfs_error() {
    let err = MetricGroups::parse("nope", "all", &common_metrics(), &target_cpu()).unwrap_err();
    assert_eq!(err.to_string(), "Cannot find metric or group `nope'");
    let err = MetricGroups::parse("CPUs_utilized", "nopmu", &common_metrics(), &target_cpu())
        .unwrap_err();
    assert_eq!(err, MetricError::NotFound("CPUs_utilized".into()));
    for pmu in ["cpu", "default_core", "cpu_core"] {
        let g = MetricGroups::parse("CPUs_utilized", pmu, &common_metrics(), &target_cpu());
        assert_eq!(g.unwrap().metrics.len(), 1, "{pmu}");
    }
}

#[test]
fn a_malformed_expression_names_the_metric_and_the_offset() {
    let table = [def("Bad", "page\\-faults * / 2", None)];
    let err = MetricGroups::parse("Bad", "all", &table, &target_cpu()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "metric 'Bad': syntax error at offset 15: unexpected '/'"
    );
}

#[test]
fn an_event_this_machine_lacks_is_named() {
    let table = [def(
        "M",
        "no_such_event_xyz / page\\-faults",
        Some("NO_GROUP_EVENTS"),
    )];
    let err = MetricGroups::parse("M", "all", &table, &target_cpu()).unwrap_err();
    assert!(
        matches!(&err, MetricError::Event { metric, event, .. }
            if metric == "M" && event == "no_such_event_xyz"),
        "{err}"
    );
}

#[test]
fn references_are_expanded_and_cycles_refused() {
    let table = [
        def("Outer", "Inner * 2", None),
        def("Inner", "page\\-faults + context\\-switches", None),
    ];
    let g = MetricGroups::parse("Outer", "all", &table, &target_cpu()).unwrap();
    assert_eq!(names(&g), ["page-faults", "context-switches"]);
    // One group for the metric's counted events.
    let leader = g.events[0].evsel.group.as_ref().unwrap();
    assert!(leader.is_leader && leader.nr_members == 2);
    let mut read = |i: usize| -> Result<f64, ()> { Ok([3.0, 4.0][i]) };
    assert_eq!(g.compute(0, &target_cpu(), &mut read), Ok(14.0));

    let table = [def("A", "B + 1", None), def("B", "A + 1", None)];
    let err = MetricGroups::parse("A", "all", &table, &target_cpu()).unwrap_err();
    assert_eq!(err, MetricError::Recursion("A".into()));
}

#[test]
fn a_failing_expression_computes_to_zero() {
    let table = [def("M", "page\\-faults % 0", None)];
    let err = MetricGroups::parse("M", "all", &table, &target_cpu()).unwrap_err();
    assert!(matches!(err, MetricError::Expr { .. }));
    let table = [def(
        "M",
        "page\\-faults % (page\\-faults - page\\-faults)",
        None,
    )];
    let g = MetricGroups::parse("M", "all", &table, &target_cpu()).unwrap();
    let mut read = |_| -> Result<f64, ()> { Ok(3.0) };
    assert_eq!(g.compute(0, &target_cpu(), &mut read), Ok(0.0));
}

#[test]
fn conditional_constraints_follow_the_system() {
    let table = [
        def(
            "Nmi",
            "page\\-faults + context\\-switches",
            Some("NO_GROUP_EVENTS_NMI"),
        ),
        def(
            "Smt",
            "page\\-faults + cpu\\-migrations",
            Some("NO_GROUP_EVENTS_SMT"),
        ),
    ];
    let grouped = |ctx: &FixedContext, name: &str| {
        let g = MetricGroups::parse(name, "all", &table, ctx).unwrap();
        g.events.iter().any(|e| e.evsel.group.is_some())
    };
    let mut ctx = target_cpu();
    ctx.literals.insert("smt_on".into(), 0.0);
    assert!(grouped(&ctx, "Nmi"));
    assert!(grouped(&ctx, "Smt"));
    ctx.nmi_watchdog = true;
    assert!(!grouped(&ctx, "Nmi"));
    ctx.literals.insert("smt_on".into(), 1.0);
    assert!(!grouped(&ctx, "Smt"));
}

#[test]
fn a_metric_over_pmu_events_counts_them_in_a_group() {
    use crate::metric::EventSource;
    use crate::parse_events::{parse_events_in, Sysfs};
    let sysfs = Sysfs::at(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("src/parse_events/testdata/sysfs"),
    );
    let source = EventSource {
        sysfs: Some(&sysfs),
    };
    // As vendor metrics write their events: by name, or PMU-qualified.
    let table = [def(
        "Loads_per_slot",
        "mem\\-loads / cpu@topdown\\-slots@",
        None,
    )];
    let g =
        MetricGroups::parse_with("Loads_per_slot", "all", &table, &target_cpu(), source).unwrap();
    assert_eq!(names(&g), ["mem-loads", "cpu/topdown-slots/"]);
    let (leader, member) = (&g.events[0].evsel, &g.events[1].evsel);
    assert!(leader.group.as_ref().unwrap().is_leader);
    assert_eq!(member.group.as_ref().unwrap().leader, 0);
    for (e, spec) in [(leader, "cpu/mem-loads/"), (member, "cpu/topdown-slots/")] {
        assert_eq!(
            e.attr,
            parse_events_in(spec, &sysfs, None).unwrap()[0].attr,
            "{spec}"
        );
    }
    let mut read = |i: usize| -> Result<f64, ()> { Ok([3e9, 2e9][i]) };
    assert_eq!(g.compute(0, &target_cpu(), &mut read), Ok(1.5));
}
