// SPDX-License-Identifier: GPL-2.0-only
//! The frame of the hand-made C entry points (tracepoint_sample.rs): Rust
//! results become a new reference or NULL with the exception set, and no
//! panic unwinds into the interpreter.
#![allow(unsafe_code)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::prelude::*;

/// Runs `f` for CPython and hands back its result: the object (a new
/// reference), or NULL with the Python exception set. A panic (which the
/// callers do not raise on any input) becomes a RuntimeError naming `what`.
///
/// # Safety
///
/// Call only from a function CPython calls with the GIL held (an attached
/// thread state), as it does for methods and getters.
pub unsafe fn call(
    what: &str,
    f: impl FnOnce(Python<'_>) -> PyResult<Py<PyAny>>,
) -> *mut ffi::PyObject {
    // SAFETY: per this function's contract, the GIL is held.
    let py = unsafe { Python::assume_attached() };
    let result = catch_unwind(AssertUnwindSafe(|| f(py))).unwrap_or_else(|_| {
        Err(PyRuntimeError::new_err(format!(
            "perf: internal error in {what} (please report)"
        )))
    });
    match result {
        Ok(obj) => obj.into_ptr(),
        Err(e) => {
            e.restore(py);
            ptr::null_mut()
        }
    }
}
