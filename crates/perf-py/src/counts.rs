// SPDX-License-Identifier: GPL-2.0-only
//! `perf.counts_values`: one read of a counter (6.16+).

use perf_core::counts::CountsValues;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

/// perf counts values object.
#[pyclass(module = "perf", name = "counts_values", subclass)]
#[derive(Default)]
pub struct PyCountsValues {
    /// Value of event
    #[pyo3(get, set)]
    pub val: u64,
    /// Time for which enabled
    #[pyo3(get, set)]
    pub ena: u64,
    /// Time for which running
    #[pyo3(get, set)]
    pub run: u64,
    /// Unique ID for an event
    #[pyo3(get, set)]
    pub id: u64,
    /// Num of lost samples
    #[pyo3(get, set)]
    pub lost: u64,
}

impl From<CountsValues> for PyCountsValues {
    fn from(c: CountsValues) -> Self {
        PyCountsValues {
            val: c.val,
            ena: c.ena,
            run: c.run,
            id: c.id,
            lost: c.lost,
        }
    }
}

#[pymethods]
impl PyCountsValues {
    #[new]
    fn new() -> Self {
        PyCountsValues::default()
    }

    /// Name field
    #[getter]
    fn get_values(&self) -> Vec<u64> {
        vec![self.val, self.ena, self.run, self.id, self.lost]
    }

    #[setter]
    fn set_values(&mut self, v: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        let Some(v) = v else {
            return Err(PyTypeError::new_err("cannot delete attribute"));
        };
        let list = v
            .cast::<PyList>()
            .map_err(|_| PyTypeError::new_err("Value assigned must be a list"))?;
        if list.len() != 5 {
            return Err(PyValueError::new_err("List must have exactly 5 entries"));
        }
        let mut n = [0u64; 5];
        for (slot, item) in n.iter_mut().zip(list.iter()) {
            *slot = item
                .extract()
                .map_err(|_| PyTypeError::new_err("List members should be numbers"))?;
        }
        [self.val, self.ena, self.run, self.id, self.lost] = n;
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "counts_values(val={}, ena={}, run={}, id={}, lost={})",
            self.val, self.ena, self.run, self.id, self.lost
        )
    }
}
