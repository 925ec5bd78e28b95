// SPDX-License-Identifier: GPL-2.0-only
//! C `int` arguments (PyArg_ParseTuple's `i`) whose OverflowError names the
//! argument and its value: "pages=2147483648 is out of range for a C int",
//! where the bare conversion says only "out of range integral type
//! conversion attempted". Used as `#[pyo3(from_py_with = ...)]`, where pyo3
//! names nothing: a non-integer's TypeError gets the "argument 'pages': "
//! prefix pyo3 gives its own arguments.

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;

/// `v` as a C int; OverflowError naming `name` outside i32.
fn c_int(name: &str, v: &Bound<'_, PyAny>) -> PyResult<i32> {
    v.extract::<i32>().map_err(|e| {
        let py = v.py();
        if e.is_instance_of::<PyTypeError>(py) {
            return PyTypeError::new_err(format!("argument '{name}': {}", e.value(py)));
        }
        if !e.is_instance_of::<PyOverflowError>(py) {
            return e;
        }
        let shown = v
            .call_method0("__index__")
            .and_then(|i| i.str())
            .map(|s| s.to_string())
            .unwrap_or_else(|_| "?".into());
        PyOverflowError::new_err(format!(
            "{name}={shown} is out of range for a C int ({} to {})",
            i32::MIN,
            i32::MAX
        ))
    })
}

/// `evlist.mmap(pages=)`.
pub fn pages(v: &Bound<'_, PyAny>) -> PyResult<i32> {
    c_int("pages", v)
}

/// `perf.data(fd=)`.
pub fn fd(v: &Bound<'_, PyAny>) -> PyResult<i32> {
    c_int("fd", v)
}
