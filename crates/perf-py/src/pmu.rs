// SPDX-License-Identifier: GPL-2.0-only
//! `perf.pmus()` and `perf.pmu` (6.18+): the PMUs in sysfs and their events.

use perf_core::parse_events::{pmu_events, tool_pmu, Pmu, PmuEventInfo, Sysfs};
use perf_core::tracefs::tracefs;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::error::PerfError;

/// perf Performance Monitoring Unit (PMU) object.
#[pyclass(module = "perf", name = "pmu", frozen)]
pub struct PyPmu {
    pmu: Pmu,
}

#[pymethods]
impl PyPmu {
    /// Name of the PMU including suffixes.
    fn name(&self) -> String {
        self.pmu.name.clone()
    }

    /// Returns a sequence of events encoded as a dictionaries.
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let events = py
            .detach(|| {
                let tfs = if self.pmu.type_ == perf_event_open_sys::bindings::PERF_TYPE_TRACEPOINT {
                    Some(tracefs()?)
                } else {
                    None
                };
                pmu_events(&self.pmu, tfs)
            })
            .map_err(PerfError::from)?;
        events.iter().map(|e| event_dict(py, e)).collect()
    }

    /// The PMU's `type` (the value for `perf_event_attr.type`).
    #[getter]
    fn r#type(&self) -> u32 {
        self.pmu.type_
    }

    fn __str__(&self) -> String {
        self.pmu.name.clone()
    }

    fn __repr__(&self) -> String {
        format!("pmu({})", self.pmu.name)
    }
}

/// perf's `pyrf_pmu__events_cb()`: the keys whose value is set, in its
/// order.
fn event_dict<'py>(py: Python<'py>, e: &PmuEventInfo) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let keys = [
        ("name", Some(e.name.as_str())),
        ("alias", e.alias.as_deref()),
        ("scale_unit", e.scale_unit.as_deref()),
        ("desc", e.desc.as_deref()),
        ("long_desc", e.long_desc.as_deref()),
        ("encoding_desc", e.encoding_desc.as_deref()),
        ("topic", e.topic.as_deref()),
        ("event_type_desc", Some(e.event_type_desc)),
        ("str", e.str_.as_deref()),
        ("deprecated", e.deprecated.then_some("deprecated")),
    ];
    for (k, v) in keys {
        if let Some(v) = v {
            d.set_item(k, v)?;
        }
    }
    Ok(d)
}

/// Iterator for the pmus string sequence.
#[pyclass(module = "perf", name = "pmus_iterator")]
pub struct PmusIterator {
    pmus: std::vec::IntoIter<Pmu>,
}

#[pymethods]
impl PmusIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self) -> Option<PyPmu> {
        self.pmus.next().map(|pmu| PyPmu { pmu })
    }
}

/// Returns a sequence of pmus.
#[pyfunction]
pub fn pmus(py: Python<'_>) -> PyResult<PmusIterator> {
    let mut pmus = py
        .detach(|| Sysfs::system().pmus())
        .map_err(PerfError::from)?;
    // perf's tool PMU is not in sysfs.
    pmus.push(tool_pmu());
    pmus.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(PmusIterator {
        pmus: pmus.into_iter(),
    })
}
