// SPDX-License-Identifier: GPL-2.0-only
//! `perf.metrics()` (6.18+): the metrics perf knows on this CPU, as
//! python.c's `pyrf__metrics_cb()` describes them.

use perf_core::metric::MetricDef;
use perf_core::pmu_events::cpu_metrics;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// Returns a list of metrics.
#[pyfunction]
pub fn metrics(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    let metrics = py.detach(cpu_metrics);
    metrics.iter().map(|m| metric_dict(py, m)).collect()
}

/// `MetricGroup` always (a list, split on `;`), then the keys whose value is
/// set, in python.c's order.
fn metric_dict<'py>(py: Python<'py>, m: &MetricDef) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("MetricGroup", &m.groups)?;
    let keys = [
        ("MetricName", Some(m.name.as_str())),
        ("PMU", m.pmu.as_deref()),
        ("MetricExpr", Some(m.expr.as_str())),
        ("MetricThreshold", m.threshold.as_deref()),
        ("ScaleUnit", m.scale_unit.as_deref()),
        ("Compat", m.compat.as_deref()),
        ("BriefDescription", m.brief.as_deref()),
        ("PublicDescription", m.public.as_deref()),
    ];
    for (k, v) in keys {
        if let Some(v) = v {
            d.set_item(k, v)?;
        }
    }
    Ok(d)
}
