// SPDX-License-Identifier: GPL-2.0-only
//! Index handling shared by the sequence types (`cpu_map`, `thread_map`,
//! `evlist`): the C module's `sq_item` semantics with the 6.17+ errors, and
//! their `__iter__`.

use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyIterator, PySlice};

/// A checked, non-negative index.
pub struct SeqIndex(pub usize);

/// Integer index with negative wrap-around; `IndexError("Index out of range")`
/// outside, `TypeError` for slices and non-integers (CPython's texts).
pub fn sequence_index(index: &Bound<'_, PyAny>, len: usize) -> PyResult<SeqIndex> {
    if index.is_instance_of::<PySlice>() {
        return Err(PyTypeError::new_err(
            "sequence index must be integer, not 'slice'",
        ));
    }
    let i: isize = match index.extract() {
        Ok(i) => i,
        Err(_) if index.hasattr("__index__")? => {
            return Err(PyIndexError::new_err("Index out of range"))
        }
        Err(_) => {
            let tname = index.get_type().name()?;
            return Err(PyTypeError::new_err(format!(
                "sequence index must be integer, not '{tname}'"
            )));
        }
    };
    let len = len as isize;
    let i = if i < 0 { i + len } else { i };
    if i < 0 || i >= len {
        return Err(PyIndexError::new_err("Index out of range"));
    }
    Ok(SeqIndex(i as usize))
}

/// The owner's `__getitem__` and nothing else: `iter()` of it is CPython's
/// sequence iterator over the owner, the iterator the C module's types get
/// from their `sq_item` (type `iterator`, reading the owner as it is at
/// each step).
#[pyclass(module = "perf", name = "sequence_view", frozen)]
struct SeqView {
    owner: Py<PyAny>,
}

#[pymethods]
impl SeqView {
    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        Ok(self.owner.bind(py).get_item(index)?.unbind())
    }
}

/// `__iter__` of a sequence type: CPython's sequence iterator over `owner`
/// (the same values, and the same iterator type, as iteration through
/// `__getitem__` alone).
pub fn sequence_iter<'py>(owner: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyIterator>> {
    let view = Bound::new(
        owner.py(),
        SeqView {
            owner: owner.clone().unbind(),
        },
    )?;
    PyIterator::from_object(view.as_any())
}
