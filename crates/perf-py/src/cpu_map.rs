// SPDX-License-Identifier: GPL-2.0-only
//! `perf.cpu_map(cpustr=None)`.

use std::sync::Arc;

use perf_core::cpumap::CpuMap;
use pyo3::prelude::*;
use pyo3::types::PyIterator;

use crate::error::PerfResult;
use crate::sequence::{sequence_index, sequence_iter, SeqIndex};

/// cpu map object.
#[pyclass(module = "perf", name = "cpu_map", subclass, frozen)]
pub struct PyCpuMap {
    pub map: Arc<CpuMap>,
}

#[pymethods]
impl PyCpuMap {
    #[new]
    #[pyo3(signature = (cpustr=None))]
    fn new(cpustr: Option<&str>) -> PerfResult<Self> {
        let map = match cpustr {
            None => CpuMap::online()?,
            Some(list) => CpuMap::parse(list)?,
        };
        Ok(PyCpuMap { map: Arc::new(map) })
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

impl PyCpuMap {
    /// Wraps a core map.
    pub fn wrap(map: Arc<CpuMap>) -> Self {
        PyCpuMap { map }
    }
}
