// SPDX-License-Identifier: GPL-2.0-only
//! perf's metrics (tools/perf/util/metricgroup.c, expr.y): the metric
//! definitions of the pmu-events tables and of the common software metrics.

pub mod common;
mod def;
mod event_source;
mod evlist_metrics;
pub mod expr;
pub mod metricgroup;

pub use def::MetricDef;
pub use event_source::EventSource;
pub use evlist_metrics::EvlistMetrics;
