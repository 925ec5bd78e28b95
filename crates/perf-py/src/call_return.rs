// SPDX-License-Identifier: GPL-2.0-only
//! `perf.call_return`: one flushed thread stack entry, as the session's
//! `call_return` callback gets it (perf-core's `thread_stack`), and the
//! emitter that numbers them as python.c does (`db_id` from 1, in the
//! order they are made; no entry has a parent without AUX data).

use perf_core::session::thread_stack::CallReturn;
use perf_core::symbol::callchain::CallchainNode;
use pyo3::prelude::*;

use crate::symbols::PyCallchain;

/// perf call_return object.
#[pyclass(module = "perf", name = "call_return", frozen, subclass)]
pub struct PyCallReturn {
    cr: CallReturn,
    db_id: u64,
    call_path: Py<PyCallchain>,
}

#[pymethods]
impl PyCallReturn {
    fn __repr__(&self) -> &'static str {
        "{ type: call_return }"
    }

    /// Unique identifier of this call return.
    #[getter]
    fn db_id(&self) -> u64 {
        self.db_id
    }

    /// db_id of the calling call return, 0 if there is none.
    #[getter]
    fn parent_id(&self) -> u64 {
        0
    }

    /// Instructions executed between the call and the return.
    #[getter]
    fn insn_count(&self) -> u64 {
        0
    }

    /// Cycles elapsed between the call and the return.
    #[getter]
    fn cyc_count(&self) -> u64 {
        0
    }

    /// Thread comm at the time of the call/return, or None.
    #[getter]
    fn comm(&self) -> &str {
        &self.cr.comm
    }

    /// Machine PID (perf's host machine: -1).
    #[getter]
    fn machine_pid(&self) -> i32 {
        -1
    }

    /// Process ID of the thread, or None.
    #[getter]
    fn pid(&self) -> Option<i32> {
        (self.cr.pid != -1).then_some(self.cr.pid)
    }

    /// Thread identifier, None if unknown.
    #[getter]
    fn tid(&self) -> Option<i32> {
        (self.cr.tid != -1).then_some(self.cr.tid)
    }

    /// Timestamp of the call.
    #[getter]
    fn call_time(&self) -> u64 {
        self.cr.call_time
    }

    /// Timestamp of the return.
    #[getter]
    fn return_time(&self) -> u64 {
        self.cr.return_time
    }

    /// Branches taken between the call and the return.
    #[getter]
    fn branch_count(&self) -> u64 {
        self.cr.branch_count
    }

    /// Reference to the sample of the call.
    #[getter]
    fn call_ref(&self) -> u64 {
        self.cr.call_ref
    }

    /// Reference to the sample of the return.
    #[getter]
    fn return_ref(&self) -> u64 {
        self.cr.return_ref
    }

    /// Bitmask of perf.CALL_RETURN_* values.
    #[getter]
    fn flags(&self) -> u32 {
        self.cr.flags
    }

    /// perf.callchain from outermost caller to callee.
    #[getter]
    fn call_path(&self, py: Python<'_>) -> Py<PyCallchain> {
        self.call_path.clone_ref(py)
    }
}

/// Calls `callback` with each record, numbering them from `last_db_id`.
pub fn emit(
    py: Python<'_>,
    callback: &Py<PyAny>,
    last_db_id: &mut u64,
    records: Vec<CallReturn>,
) -> PyResult<()> {
    for mut cr in records {
        *last_db_id += 1;
        let frames = std::mem::take(&mut cr.call_path);
        let names: Vec<_> = frames.iter().map(|f| f.symbol.clone()).collect();
        let frames = frames
            .into_iter()
            .zip(names.iter())
            .map(|(f, name)| {
                let node = CallchainNode {
                    ip: f.ip,
                    location: f.location,
                    inline: None,
                };
                (node, name.as_deref())
            })
            .collect();
        let call_path = PyCallchain::of_frames(py, frames)?;
        let obj = Py::new(
            py,
            PyCallReturn {
                cr,
                db_id: *last_db_id,
                call_path,
            },
        )?;
        callback.bind(py).call1((obj,))?;
    }
    Ok(())
}
