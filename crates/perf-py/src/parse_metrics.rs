// SPDX-License-Identifier: GPL-2.0-only
//! `perf.parse_metrics(metrics_string, pmu=None, cpus=None, threads=None)`
//! (6.18): an evlist counting the events of perf's metrics.

use std::sync::Arc;

use perf_core::metric::EvlistMetrics;
use pyo3::prelude::*;

use crate::cpu_map::PyCpuMap;
use crate::error::PerfError;
use crate::evlist::PyEvlist;
use crate::evsel::map_arg;
use crate::parse_events::evsels_from_parsed;
use crate::thread_map::PyThreadMap;

/// Parse metrics or metric groups ("CPUs_utilized", "Default") into a new
/// evlist of their events.
#[pyfunction]
#[pyo3(signature = (metrics_string, pmu=None, cpus=None, threads=None, /))]
pub fn parse_metrics(
    py: Python<'_>,
    metrics_string: &str,
    pmu: Option<&str>,
    cpus: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyEvlist> {
    let cpus = map_arg::<PyCpuMap>(cpus, "cpus")?.map(|c| c.get().map.clone());
    let threads = map_arg::<PyThreadMap>(threads, "threads")?.map(|t| t.get().map.clone());
    let pmu = pmu.unwrap_or("all");
    let (metrics, parsed) = py
        .detach(|| EvlistMetrics::parse(metrics_string, pmu))
        .map_err(PerfError::from)?;
    let (core, objects) = evsels_from_parsed(py, parsed, cpus, threads)?;
    Ok(PyEvlist::from_parts(core, objects).with_metrics(Arc::new(metrics)))
}
