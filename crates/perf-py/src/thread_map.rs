// SPDX-License-Identifier: GPL-2.0-only
//! `perf.thread_map(pid=-1, tid=-1, uid=-1)`.

use std::sync::Arc;

use perf_core::threadmap::ThreadMap;
use pyo3::prelude::*;
use pyo3::types::PyIterator;

use crate::error::PerfResult;
use crate::sequence::{sequence_index, sequence_iter, SeqIndex};

/// thread map object.
#[pyclass(module = "perf", name = "thread_map", subclass, frozen)]
pub struct PyThreadMap {
    pub map: Arc<ThreadMap>,
}

#[pymethods]
impl PyThreadMap {
    // uid: kept from the ≤6.16 API; -1 (C's UINT_MAX) means "no uid".
    #[new]
    #[pyo3(signature = (pid=-1, tid=-1, uid=-1))]
    fn new(py: Python<'_>, pid: i32, tid: i32, uid: i32) -> PerfResult<Self> {
        let uid = (uid != -1).then_some(uid as u32);
        let map = py.detach(|| ThreadMap::new(pid, tid, uid))?;
        Ok(PyThreadMap { map: Arc::new(map) })
    }

    fn __len__(&self) -> usize {
        self.map.len()
    }

    fn __getitem__(&self, index: &Bound<'_, PyAny>) -> PyResult<i32> {
        let SeqIndex(i) = sequence_index(index, self.map.len())?;
        Ok(self.map.as_slice()[i])
    }

    fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyIterator>> {
        sequence_iter(slf.as_any())
    }
}

impl PyThreadMap {
    /// Wraps a core map.
    pub fn wrap(map: Arc<ThreadMap>) -> Self {
        PyThreadMap { map }
    }
}
