// SPDX-License-Identifier: GPL-2.0-only
//! Module functions over perf's tables and configuration (7.3 and the
//! series after it): `syscall_name`, `syscall_id`, `arch_strerrno`,
//! `config_get`. The work is in perf-core (syscalltbl, errno_names,
//! perf_config); this file converts arguments as python.c does.
//!
//! `elf_machine` follows the later series (`"i|O"`): positional or keyword,
//! `None` or anything that is not a valid `e_machine` (≤ 0 or > 65535)
//! meaning the host; 7.3-rc1 took it keyword-only (`"i|$i"`), which this
//! accepts too.

use perf_core::{e_machine, errno_names, perf_config, syscalltbl};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::error::PerfError;

/// `s` format: a str without NUL characters.
fn no_nul(s: &str) -> PyResult<&str> {
    if s.contains('\0') {
        return Err(PyValueError::new_err("embedded null character"));
    }
    Ok(s)
}

/// Turns a syscall number to a string.
#[pyfunction]
#[pyo3(signature = (id, elf_machine=None))]
pub fn syscall_name(id: i32, elf_machine: Option<i64>) -> Option<&'static str> {
    syscalltbl::name(e_machine::or_host(elf_machine), id)
}

/// Turns a syscall name to a number.
#[pyfunction]
#[pyo3(signature = (name, elf_machine=None))]
pub fn syscall_id(name: &str, elf_machine: Option<i64>) -> PyResult<i32> {
    let machine = e_machine::or_host(elf_machine);
    Ok(syscalltbl::id(machine, no_nul(name)?).map_err(PerfError::from)?)
}

/// Turns an errno number to a string.
#[pyfunction]
#[pyo3(signature = (err, elf_machine=None))]
pub fn arch_strerrno(err: i32, elf_machine: Option<i64>) -> Option<&'static str> {
    errno_names::arch_strerrno(e_machine::or_host(elf_machine), err)
}

/// Get a perf config value.
#[pyfunction]
#[pyo3(signature = (name, /))]
pub fn config_get(py: Python<'_>, name: &str) -> PyResult<Option<Py<PyAny>>> {
    let name = no_nul(name)?;
    let Some(value) = py.detach(|| perf_config::get(name.as_bytes())) else {
        return Ok(None);
    };
    // Values are bytes in the file; like PyUnicode_FromString, strict UTF-8
    // (CPython's decoder raises UnicodeDecodeError with its own message).
    let text = match String::from_utf8(value) {
        Ok(text) => text.into_pyobject(py)?.into_any(),
        Err(e) => PyBytes::new(py, e.as_bytes()).call_method1("decode", ("utf-8",))?,
    };
    Ok(Some(text.unbind()))
}
