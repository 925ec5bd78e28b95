// SPDX-License-Identifier: GPL-2.0-only
//! `perf.pmus()` and `perf.pmu` (6.18+): the PMUs in sysfs and their events.

use perf_core::parse_events::{Pmu, Sysfs};
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
        self.pmu
            .aliases
            .iter()
            .map(|a| {
                let d = PyDict::new(py);
                d.set_item("name", format!("{}/{}/", self.pmu.name, a.name))?;
                d.set_item("alias", &a.name)?;
                d.set_item("encoding_desc", format!("{}/{}/", self.pmu.name, a.terms))?;
                d.set_item("str", &a.terms)?;
                Ok(d)
            })
            .collect()
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
    let pmus = py
        .detach(|| Sysfs::system().pmus())
        .map_err(PerfError::from)?;
    Ok(PmusIterator {
        pmus: pmus.into_iter(),
    })
}
