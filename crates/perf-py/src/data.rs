// SPDX-License-Identifier: GPL-2.0-only
//! `perf.data(path="perf.data", fd=-1)`: a perf.data input (a file, a
//! `perf record --threads` directory, `"-"` for stdin, or the read end of a
//! pipe), which `perf.session` reads, and its header as plain values
//! (`data.header`).
//!
//! A file can be read by any number of sessions (each reads a `dup` of it
//! from the start); a stream can be read once: the first of `data.header`
//! and `perf.session(data)` reads its header, and the session takes it
//! over. While a stream blocks, the GIL is released, and a signal that
//! interrupts the read runs the Python handlers (Ctrl-C stops reading with
//! `KeyboardInterrupt`).

use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use perf_core::perf_data::abi::feature;
use perf_core::perf_data::{self, PerfData, StreamWait};
use perf_core::session::{Session, SessionOptions};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};

use crate::error::PerfError;

/// perf data file object.
#[pyclass(module = "perf", name = "data", frozen, subclass)]
pub struct PyData {
    path: String,
    state: Mutex<State>,
    /// The header, once read (a stream's is read once).
    header: Mutex<Option<Arc<Header>>>,
    wait: Arc<PyWait>,
}

/// What the input is at.
enum State {
    /// Opened, nothing read.
    Opened(PerfData),
    /// A stream whose header `data.header` read: the session to come
    /// takes it.
    Read(Box<Session>),
    /// A stream a session took.
    Taken,
}

/// The parts of the header `data.header` shows.
pub struct Header {
    features: perf_data::Features,
    events: Vec<EventInfo>,
    is_pipe: bool,
}

struct EventInfo {
    name: String,
    type_: u32,
    config: u64,
    sample_type: u64,
    read_format: u64,
    sample_period: u64,
    freq: bool,
    ids: Vec<u64>,
}

impl Header {
    /// What `session` knows of its input's header (after `Session::new`:
    /// in pipe mode, the records of the header).
    pub fn of(session: &Session) -> Header {
        let events = session
            .evlist()
            .evsels()
            .iter()
            .map(|e| EventInfo {
                name: crate::session::evsel_name(e),
                type_: e.attr.type_,
                config: e.attr.config,
                sample_type: e.attr.sample_type,
                read_format: e.attr.read_format,
                sample_period: e.attr.sample_period,
                freq: e.attr.has(perf_core::attr::flag::FREQ),
                ids: e.ids.clone(),
            })
            .collect();
        Header {
            features: session.features().clone(),
            events,
            is_pipe: session.is_pipe(),
        }
    }

    /// The header as a dict of plain values (see docs/perfdata.md).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let f = &self.features;
        let d = PyDict::new(py);
        d.set_item("hostname", &f.hostname)?;
        d.set_item("os_release", &f.os_release)?;
        d.set_item("perf_version", &f.version)?;
        d.set_item("arch", &f.arch)?;
        d.set_item("nr_cpus_online", f.nr_cpus.map(|n| n.online))?;
        d.set_item("nr_cpus_avail", f.nr_cpus.map(|n| n.available))?;
        d.set_item("cpu_desc", &f.cpu_desc)?;
        d.set_item("cpuid", &f.cpuid)?;
        d.set_item("total_mem", f.total_mem)?;
        d.set_item("cmdline", &f.cmdline)?;
        let events = PyList::empty(py);
        for e in &self.events {
            let ev = PyDict::new(py);
            ev.set_item("name", &e.name)?;
            ev.set_item("type", e.type_)?;
            ev.set_item("config", e.config)?;
            ev.set_item("sample_type", e.sample_type)?;
            ev.set_item("read_format", e.read_format)?;
            ev.set_item("sample_period", e.sample_period)?;
            ev.set_item("freq", e.freq)?;
            ev.set_item("ids", &e.ids)?;
            events.append(ev)?;
        }
        d.set_item("events", events)?;
        let build_ids = PyList::empty(py);
        for b in &f.build_ids {
            let entry = PyDict::new(py);
            entry.set_item("filename", &b.filename)?;
            entry.set_item("build_id", hex(&b.build_id))?;
            entry.set_item("pid", b.pid)?;
            entry.set_item("misc", b.misc)?;
            build_ids.append(entry)?;
        }
        d.set_item("build_ids", build_ids)?;
        let pmus = PyDict::new(py);
        for (type_, name) in &f.pmu_mappings {
            pmus.set_item(name, type_)?;
        }
        d.set_item("pmu_mappings", pmus)?;
        d.set_item("sample_time", f.sample_time)?;
        d.set_item("clockid", f.clock_data.map(|c| c.clockid))?;
        let reference = match f.clock_data {
            Some(c) => {
                let r = PyDict::new(py);
                r.set_item("tod_ns", c.tod_ns)?;
                r.set_item("clockid_ns", c.clockid_ns)?;
                Some(r)
            }
            None => None,
        };
        d.set_item("clock_reference", reference)?;
        d.set_item("clockid_res_ns", f.clockid_res_ns)?;
        let compressed = match f.compressed {
            Some(c) => {
                let c_dict = PyDict::new(py);
                c_dict.set_item("type", c.type_)?;
                c_dict.set_item("level", c.level)?;
                c_dict.set_item("ratio", c.ratio)?;
                c_dict.set_item("mmap_len", c.mmap_len)?;
                Some(c_dict)
            }
            None => None,
        };
        d.set_item("compressed", compressed)?;
        let mut present = f.present.clone();
        present.sort_unstable();
        let names: Vec<&str> = present.iter().map(|&b| feature::name(b)).collect();
        d.set_item("features", PyTuple::new(py, names)?)?;
        let unreadable = PyDict::new(py);
        for (bit, why) in &f.unreadable {
            unreadable.set_item(feature::name(*bit), why)?;
        }
        d.set_item("unreadable_features", unreadable)?;
        d.set_item("pipe", self.is_pipe)?;
        Ok(d)
    }
}

/// Lowercase hex, as perf prints build ids.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The [`StreamWait`] of a Python input: the GIL released around a blocking
/// read; on `EINTR`, the signal handlers run, and the exception one raises
/// (`KeyboardInterrupt`) is kept to be raised instead of the read's error.
#[derive(Default)]
pub struct PyWait {
    parked: Mutex<Option<PyErr>>,
}

impl StreamWait for PyWait {
    fn blocking(
        &self,
        read: &mut (dyn FnMut() -> std::io::Result<usize> + Send),
    ) -> std::io::Result<usize> {
        Python::attach(|py| py.detach(read))
    }

    fn interrupted(&self) -> bool {
        Python::attach(|py| match py.check_signals() {
            Ok(()) => true,
            Err(e) => {
                *self.parked.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                false
            }
        })
    }
}

impl PyWait {
    /// The Python exception for a core error: the one a signal handler
    /// raised while a read waited, if any, else the error's own.
    pub fn error(&self, e: perf_core::Error) -> PyErr {
        let parked = self.parked.lock().unwrap_or_else(|p| p.into_inner()).take();
        parked.unwrap_or_else(|| PerfError::from(e).into())
    }
}

/// Locks without waiting: a thread that holds the lock may be blocked on a
/// pipe with the GIL released, and waiting here with the GIL held would
/// never end.
pub fn try_lock<'a, T>(m: &'a Mutex<T>, busy: &str) -> PyResult<MutexGuard<'a, T>> {
    match m.try_lock() {
        Ok(g) => Ok(g),
        Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
        Err(TryLockError::WouldBlock) => Err(PyValueError::new_err(busy.to_owned())),
    }
}

const BUSY: &str = "perf.data is being read by another thread";

impl PyData {
    /// The input for a new session, its header read (`Session::new`).
    pub fn open_session(&self) -> PyResult<Session> {
        let mut state = try_lock(&self.state, BUSY)?;
        let session = match &mut *state {
            State::Opened(data) => match data.try_clone().map_err(|e| self.wait.error(e))? {
                Some(copy) => self.new_session(copy)?,
                None => {
                    let State::Opened(data) = std::mem::replace(&mut *state, State::Taken) else {
                        unreachable!("matched above")
                    };
                    self.new_session(data)?
                }
            },
            State::Read(_) => {
                let State::Read(s) = std::mem::replace(&mut *state, State::Taken) else {
                    unreachable!("matched above")
                };
                *s
            }
            State::Taken => {
                return Err(PyValueError::new_err(format!(
                    "{}: a stream can be read once, and a session has read it",
                    self.path
                )))
            }
        };
        self.keep_header(&session);
        Ok(session)
    }

    fn new_session(&self, mut data: PerfData) -> PyResult<Session> {
        data.set_wait(self.wait.clone());
        Session::new(data, SessionOptions::default()).map_err(|e| self.wait.error(e))
    }

    fn keep_header(&self, session: &Session) {
        let mut h = self.header.lock().unwrap_or_else(|p| p.into_inner());
        if h.is_none() {
            *h = Some(Arc::new(Header::of(session)));
        }
    }

    /// The path given (`-` for a pipe).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What turns core errors of this input into Python exceptions.
    pub fn wait(&self) -> Arc<PyWait> {
        self.wait.clone()
    }

    fn read_header(&self) -> PyResult<Arc<Header>> {
        if let Some(h) = &*self.header.lock().unwrap_or_else(|p| p.into_inner()) {
            return Ok(h.clone());
        }
        let mut state = try_lock(&self.state, BUSY)?;
        let session = match &mut *state {
            State::Opened(data) => match data.try_clone().map_err(|e| self.wait.error(e))? {
                Some(copy) => self.new_session(copy)?,
                None => {
                    let State::Opened(data) = std::mem::replace(&mut *state, State::Taken) else {
                        unreachable!("matched above")
                    };
                    let s = self.new_session(data)?;
                    self.keep_header(&s);
                    *state = State::Read(Box::new(s));
                    return self.read_header_kept();
                }
            },
            // A session read (or is reading) the stream: it kept the header.
            State::Read(_) | State::Taken => return self.read_header_kept(),
        };
        self.keep_header(&session);
        self.read_header_kept()
    }

    fn read_header_kept(&self) -> PyResult<Arc<Header>> {
        self.header
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or_else(|| PyValueError::new_err("perf.data: the header could not be read"))
    }
}

#[pymethods]
impl PyData {
    #[new]
    #[pyo3(signature = (path="perf.data", fd=-1))]
    fn new(
        py: Python<'_>,
        path: &str,
        #[pyo3(from_py_with = crate::int_arg::fd)] fd: i32,
    ) -> PyResult<Self> {
        // python.c's "s" format.
        if path.contains('\0') {
            return Err(PyValueError::new_err("embedded null character"));
        }
        let wait = Arc::new(PyWait::default());
        let opened = if fd != -1 {
            let Some(owned) = perf_core::sys::dup_fifo(fd).map_err(PerfError::from)? else {
                return Err(PyValueError::new_err(
                    "fd argument is only supported for pipes",
                ));
            };
            if path != "-" && path != "perf.data" {
                return Err(PyValueError::new_err(
                    "path must be '-' when fd is provided",
                ));
            }
            let data = PerfData::from_fd(owned, "-").map_err(PerfError::from)?;
            ("-".to_owned(), data)
        } else if let Some(data) = crate::fifo::open(py, path)? {
            (path.to_owned(), data)
        } else {
            let data = py
                .detach(|| PerfData::open(path))
                .map_err(PerfError::from)?;
            (path.to_owned(), data)
        };
        let (path, data) = opened;
        Ok(PyData {
            path,
            state: Mutex::new(State::Opened(data)),
            header: Mutex::new(None),
            wait,
        })
    }

    fn __str__(&self) -> String {
        self.path.clone()
    }

    fn __repr__(&self) -> String {
        self.path.clone()
    }

    /// The header's features as plain values: hostname, os_release,
    /// perf_version, arch, nr_cpus_online, nr_cpus_avail, cpu_desc, cpuid,
    /// total_mem (kB), cmdline, events (name, type, config, sample_type,
    /// read_format, sample_period, freq, ids), build_ids (filename,
    /// build_id, pid, misc), pmu_mappings, sample_time (first, last),
    /// clockid, clock_reference (tod_ns, clockid_ns), clockid_res_ns,
    /// compressed, features (the names present), unreadable_features
    /// (name: why; each also a perf.DataWarning), pipe. A value the file
    /// does not have is None (empty for lists).
    #[getter]
    fn header<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let header = self.read_header()?;
        crate::damage::warn_unreadable(py, &self.path, &header.features)?;
        header.to_dict(py)
    }
}
