// SPDX-License-Identifier: GPL-2.0-only
//! perf's common software metrics against perf 6.1's `perf stat`: its
//! "CPUs utilized" and "/sec" lines come from the same formulas (built into
//! its stat-shadow.c). perf's printed counts go through our evaluator with
//! the common metrics' expressions; the results must be perf's printed
//! values, to the precision perf prints them.

use std::collections::BTreeMap;
use std::process::Command;

use perf_core::metric::common::common_metrics;
use perf_core::metric::expr::{Expr, FixedContext, IdValue};

const PERF: &str = "/usr/bin/perf";

/// One `perf stat -x,` line: count, unit, event, metric value, metric unit.
struct Line {
    count: f64,
    metric: f64,
    metric_unit: String,
}

fn perf_stat(workload: &[&str]) -> BTreeMap<String, Line> {
    let out = Command::new(PERF)
        .args(["stat", "-x,", "-a", "-e"])
        .arg("cpu-clock,duration_time,context-switches,cpu-migrations,page-faults")
        .arg("--")
        .args(workload)
        .output()
        .expect("perf stat runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stderr);
    let mut lines = BTreeMap::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split(',').collect();
        if f.len() < 7 {
            continue;
        }
        let (Ok(count), Ok(metric)) = (f[0].parse::<f64>(), f[5].trim().parse::<f64>()) else {
            continue;
        };
        // Counts as perf has them: cpu-clock is printed in msec.
        let count = if f[1] == "msec" { count * 1e6 } else { count };
        lines.insert(
            f[2].to_owned(),
            Line {
                count,
                metric,
                metric_unit: f[6].trim().to_owned(),
            },
        );
    }
    lines
}

/// perf 6.1's "/sec" value with its unit prefix (`K/sec`, `M/sec`).
fn per_second(line: &Line) -> f64 {
    let scale = match line.metric_unit.chars().next() {
        Some('K') => 1e3,
        Some('M') => 1e6,
        Some('G') => 1e9,
        _ => 1.0,
    };
    line.metric * scale
}

#[test]
fn common_metrics_give_perf_stats_values() {
    if !std::path::Path::new(PERF).exists() || !nix_is_root() {
        eprintln!("skipped: needs root and {PERF}");
        return;
    }
    let stat = perf_stat(&[
        "sh",
        "-c",
        "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done; sleep 0.1",
    ]);
    // perf stat -a counts CPUs: #target_cpu is 1.
    let mut ctx = FixedContext::default();
    ctx.literals.insert("target_cpu".into(), 1.0);
    let value_of = |id: &str| -> Option<f64> {
        match id {
            // perf gives metrics duration_time in seconds.
            "duration_time" => stat.get("duration_time").map(|l| l.count * 1e-9),
            id => {
                let name = id.split('@').nth(1)?.split(',').next()?;
                stat.get(name).map(|l| l.count)
            }
        }
    };
    let checks = [
        ("CPUs_utilized", "cpu-clock"),
        ("cs_per_second", "context-switches"),
        ("migrations_per_second", "cpu-migrations"),
        ("page_faults_per_second", "page-faults"),
    ];
    for (metric, event) in checks {
        let def = common_metrics()
            .into_iter()
            .find(|m| m.name == metric)
            .unwrap();
        let expr = Expr::parse(&def.expr, 0).unwrap();
        let values: Vec<Option<IdValue>> = expr
            .ids()
            .iter()
            .map(|id| value_of(id).map(IdValue::new))
            .collect();
        let ours = expr.eval(&ctx, &values).unwrap();
        let line = &stat[event];
        let perfs = if metric == "CPUs_utilized" {
            line.metric
        } else {
            per_second(line)
        };
        // perf prints three decimals of the value in its unit; its counts
        // are rounded too (cpu-clock to 10 us).
        let tolerance = 0.0006 * perfs.abs().max(1.0) + 0.002;
        assert!(
            (ours - perfs).abs() <= tolerance,
            "{metric}: ours {ours}, perf stat {perfs} ({} {})",
            line.metric,
            line.metric_unit
        );
    }
}

fn nix_is_root() -> bool {
    nix::unistd::geteuid().is_root()
}
