// SPDX-License-Identifier: GPL-2.0-only
//! Module definition and the single-phase `PyInit_perf`.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;

use pyo3::prelude::*;
use pyo3::{ffi, PyTypeInfo};

use crate::cpu_map::PyCpuMap;
use crate::evlist::PyEvlist;
use crate::evsel::PyEvsel;
use crate::thread_map::PyThreadMap;

/// Fills the module: types in the C module's order, then the constants.
fn populate(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("evlist", PyEvlist::type_object(py))?;
    m.add("evsel", PyEvsel::type_object(py))?;
    crate::events::add_to(m)?;
    m.add(
        "event_iterator",
        crate::event_iter::EventIterator::type_object(py),
    )?;
    m.add(
        "sample_columns",
        crate::columns::SampleColumns::type_object(py),
    )?;
    m.add("thread_map", PyThreadMap::type_object(py))?;
    m.add("cpu_map", PyCpuMap::type_object(py))?;
    crate::constants::add_to(m)?;
    m.add_function(wrap_pyfunction!(crate::tracepoint::tracepoint, m)?)?;
    m.add_function(wrap_pyfunction!(crate::abi_policy::set_abi_policy, m)?)?;
    m.add_function(wrap_pyfunction!(crate::parse_events::parse_events, m)?)?;
    m.add_function(wrap_pyfunction!(crate::parse_metrics::parse_metrics, m)?)?;
    m.add_function(wrap_pyfunction!(crate::metrics::metrics, m)?)?;
    m.add_function(wrap_pyfunction!(crate::pmu::pmus, m)?)?;
    m.add_function(wrap_pyfunction!(crate::functions::syscall_name, m)?)?;
    m.add_function(wrap_pyfunction!(crate::functions::syscall_id, m)?)?;
    m.add_function(wrap_pyfunction!(crate::functions::arch_strerrno, m)?)?;
    m.add_function(wrap_pyfunction!(crate::functions::config_get, m)?)?;
    m.add(
        "counts_values",
        crate::counts::PyCountsValues::type_object(py),
    )?;
    m.add("pmu", crate::pmu::PyPmu::type_object(py))?;
    m.add("data", crate::data::PyData::type_object(py))?;
    m.add("DataWarning", py.get_type::<crate::damage::DataWarning>())?;
    m.add("session", crate::session::PySession::type_object(py))?;
    m.add("thread", crate::thread::PyThread::type_object(py))?;
    m.add(
        "call_return",
        crate::call_return::PyCallReturn::type_object(py),
    )?;
    m.add("callchain", crate::symbols::PyCallchain::type_object(py))?;
    m.add(
        "callchain_node",
        crate::symbols::PyCallchainNode::type_object(py),
    )?;
    m.add(
        "branch_stack",
        crate::symbols::PyBranchStack::type_object(py),
    )?;
    m.add(
        "branch_entry",
        crate::symbols::PyBranchEntry::type_object(py),
    )?;
    crate::build_info::add_to(m)?;
    Ok(())
}

/// The `PyModuleDef` CPython keeps a pointer to for the life of the process.
struct ModuleDef(UnsafeCell<ffi::PyModuleDef>);

// SAFETY: CPython only touches the definition while holding the GIL (module
// creation and its own bookkeeping); we never access it from Rust.
unsafe impl Sync for ModuleDef {}

static MODULE_DEF: ModuleDef = ModuleDef(UnsafeCell::new(ffi::PyModuleDef {
    m_base: ffi::PyModuleDef_HEAD_INIT,
    m_name: c"perf".as_ptr(),
    m_doc: c"".as_ptr(),
    m_size: -1,
    m_methods: std::ptr::null_mut(),
    m_slots: std::ptr::null_mut(),
    m_traverse: None,
    m_clear: None,
    m_free: None,
}));

/// The module's init function, single-phase like the C module's.
///
/// # Safety
///
/// Called by CPython's import machinery with the GIL held, once per import.
#[no_mangle]
pub unsafe extern "C" fn PyInit_perf() -> *mut ffi::PyObject {
    Python::attach(|py| {
        // SAFETY: MODULE_DEF is a valid, 'static PyModuleDef with no slots.
        let raw = unsafe { ffi::PyModule_Create(MODULE_DEF.0.get()) };
        if raw.is_null() {
            return raw;
        }
        // SAFETY: PyModule_Create returned a new, non-null module reference.
        let m = unsafe { Bound::from_owned_ptr(py, raw).cast_into_unchecked::<PyModule>() };
        match populate(&m) {
            Ok(()) => m.into_ptr(),
            Err(e) => {
                e.restore(py);
                std::ptr::null_mut()
            }
        }
    })
}
