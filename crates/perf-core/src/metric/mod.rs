// SPDX-License-Identifier: GPL-2.0-only
//! perf's metrics (tools/perf/util/metricgroup.c, expr.y): the metric
//! definitions of the pmu-events tables and of the common software metrics.

mod def;
pub mod expr;

pub use def::MetricDef;
