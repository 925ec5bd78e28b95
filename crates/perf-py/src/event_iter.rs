// SPDX-License-Identifier: GPL-2.0-only
//! `evlist.read_all()`: the batch reader. One iterator drains every ring of
//! the evlist, ring after ring, without a Python method call per event; like
//! `read_on_cpu`, event objects nobody kept are refilled instead of
//! reallocated.

use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};

use crate::evlist::PyEvlist;

/// Iterator over the events in an evlist's rings (from evlist.read_all()).
#[pyclass(module = "perf", name = "event_iterator")]
pub struct EventIterator {
    evlist: Py<PyEvlist>,
    ring: usize,
    left: Option<usize>,
}

impl EventIterator {
    /// A new iterator; `max_events` bounds how many it yields.
    pub fn new(evlist: Py<PyEvlist>, max_events: Option<usize>) -> Self {
        EventIterator {
            evlist,
            ring: 0,
            left: max_events,
        }
    }
}

#[pymethods]
impl EventIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.evlist)
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        if self.left == Some(0) {
            return Ok(None);
        }
        let event = self.evlist.get().next_event(py, &mut self.ring)?;
        if event.is_some() {
            if let Some(left) = &mut self.left {
                *left -= 1;
            }
        }
        Ok(event)
    }
}
