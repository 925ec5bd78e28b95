// SPDX-License-Identifier: GPL-2.0-only
//! `perf.thread`: a thread of a perf.data file as `session.find_thread()`
//! found it (a copy of what the session knew then).

use perf_core::session::Thread;
use pyo3::prelude::*;

/// perf thread object.
#[pyclass(module = "perf", name = "thread", frozen)]
pub struct PyThread {
    pid: i32,
    tid: i32,
    ppid: i32,
    cpu: i32,
    comm: String,
}

impl PyThread {
    /// The thread as it is now.
    pub fn snapshot(t: &Thread) -> PyThread {
        PyThread {
            pid: t.pid,
            tid: t.tid,
            ppid: t.ppid,
            cpu: t.cpu,
            comm: t.comm().to_owned(),
        }
    }
}

#[pymethods]
impl PyThread {
    /// Comm(and) associated with this thread.
    fn comm(&self) -> String {
        self.comm.clone()
    }

    /// process ID
    #[getter]
    fn pid(&self) -> i32 {
        self.pid
    }

    /// thread ID
    #[getter]
    fn tid(&self) -> i32 {
        self.tid
    }

    /// parent process ID
    #[getter]
    fn ppid(&self) -> i32 {
        self.ppid
    }

    /// cpu number
    #[getter]
    fn cpu(&self) -> i32 {
        self.cpu
    }
}
