// SPDX-License-Identifier: GPL-2.0-only
//! `perf.thread`: a thread of a perf.data file as `session.find_thread()`
//! found it (a copy of what the session knew then), and the session's
//! cache of them ([`ThreadCache`]): a thread unchanged since it was last
//! found is the same object, its comm the same `str`.

use std::collections::HashMap;
use std::sync::Arc;

use perf_core::session::Thread;
use pyo3::prelude::*;
use pyo3::types::PyString;

/// perf thread object.
#[pyclass(module = "perf", name = "thread", frozen)]
pub struct PyThread {
    pid: i32,
    tid: i32,
    ppid: i32,
    cpu: i32,
    comm: Py<PyString>,
}

/// What a `perf.thread` shows of a thread: equal keys, equal objects. The
/// comm is compared by identity (the thread's current one; a new COMM
/// record is a new one), which the key's reference keeps unique.
pub struct ThreadKey {
    pid: i32,
    tid: i32,
    ppid: i32,
    cpu: i32,
    comm: Option<Arc<str>>,
}

impl ThreadKey {
    fn of(t: &Thread) -> ThreadKey {
        ThreadKey {
            pid: t.pid,
            tid: t.tid,
            ppid: t.ppid,
            cpu: t.cpu,
            comm: t.comms().last().map(|c| Arc::clone(&c.comm)),
        }
    }

    fn shows(&self, t: &Thread) -> bool {
        let comm = t.comms().last().map(|c| &c.comm);
        (self.pid, self.tid, self.ppid, self.cpu) == (t.pid, t.tid, t.ppid, t.cpu)
            && match (&self.comm, comm) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    }
}

impl PyThread {
    /// What a `perf.thread` of `t` as it is now would show.
    pub fn key(t: &Thread) -> ThreadKey {
        ThreadKey::of(t)
    }

    /// The thread as `key` shows it.
    pub fn new(py: Python<'_>, key: &ThreadKey) -> PyThread {
        PyThread {
            pid: key.pid,
            tid: key.tid,
            ppid: key.ppid,
            cpu: key.cpu,
            comm: PyString::new(py, key.comm.as_deref().unwrap_or("")).unbind(),
        }
    }
}

/// The `perf.thread`s a session handed out, by tid (threads are found by
/// tid), each with what it shows.
#[derive(Default)]
pub struct ThreadCache(HashMap<i32, (ThreadKey, Py<PyThread>)>);

impl ThreadCache {
    /// At most this many threads are kept; the cache is emptied when a new
    /// one would make more (a file's threads at one time are far fewer:
    /// 3 000 processes in the 1 M-sample file of docs/performance.md).
    const CAPACITY: usize = 8192;

    /// The object made for `t` if `t` has not changed since.
    pub fn find(&self, py: Python<'_>, t: &Thread) -> Option<Py<PyThread>> {
        self.0
            .get(&t.tid)
            .filter(|(key, _)| key.shows(t))
            .map(|(_, obj)| obj.clone_ref(py))
    }

    /// Keeps `obj`, made for `key`.
    pub fn insert(&mut self, key: ThreadKey, obj: Py<PyThread>) {
        if self.0.len() >= Self::CAPACITY {
            self.0.clear();
        }
        self.0.insert(key.tid, (key, obj));
    }
}

#[pymethods]
impl PyThread {
    /// Comm(and) associated with this thread.
    fn comm(&self, py: Python<'_>) -> Py<PyString> {
        self.comm.clone_ref(py)
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
