// SPDX-License-Identifier: GPL-2.0-only
//! `perf.tracepoint(sys, name)` and tracepoint fields read as attributes of
//! `sample_event` objects.
//!
//! Formats are loaded on demand by tracepoint id (as perf ≥ 6.15 does), so
//! fields work without a prior `perf.tracepoint()` call. Signed fields are
//! sign-extended (the C module returned narrow negative values zero-extended,
//! e.g. -1 as 4294967295); string arrays that are not printable come back as
//! `bytearray`, and stay so for that field, as in the C module.

use perf_core::endian::Endian;
use perf_core::tracefs::{self, Field, Value};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyString};

use crate::error::PerfError;

/// Get tracepoint config.
#[pyfunction]
#[pyo3(signature = (sys=None, name=None))]
pub fn tracepoint(py: Python<'_>, sys: Option<&str>, name: Option<&str>) -> i64 {
    let (Some(sys), Some(name)) = (sys, name) else {
        return -1;
    };
    py.detach(|| tracefs::tracepoint_id(sys, name))
        .ok()
        .and_then(|id| i64::try_from(id).ok())
        .unwrap_or(-1)
}

/// A field's value in a raw payload whose numbers are in byte order
/// `order` (native for live samples; a file's tracing data says its own) as
/// a Python object (`str`, `bytearray` or `int`). A payload too short for
/// the field raises ValueError.
pub fn value(py: Python<'_>, f: &Field, payload: &[u8], order: Endian) -> PyResult<Py<PyAny>> {
    let value = f.value_in(payload, order).map_err(PerfError::from)?;
    Ok(match value {
        Value::Str(s) => PyString::new(py, s).into_any().unbind(),
        Value::Bytes(b) => PyByteArray::new(py, b).into_any().unbind(),
        Value::Unsigned(u) => u.into_pyobject(py)?.into_any().unbind(),
        Value::Signed(s) => s.sign_extended().into_pyobject(py)?.into_any().unbind(),
    })
}
