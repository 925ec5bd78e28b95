// SPDX-License-Identifier: GPL-2.0-only
//! `perf.session(data, sample=None, stat=None, context_switch=None,
//! call_return=None, itrace=None, vmlinux=None, kallsyms=None, symfs=None,
//! *, inline=False)`: reads
//! a `perf.data` input in time order (perf-core's `session::Session`),
//! calling back into Python:
//!
//! * `sample(event)` for every SAMPLE, as a `perf.sample_event` (a
//!   tracepoint's: an object of the class of its format, from the file's
//!   own tracing data), recycled as the live readers' are;
//! * `stat(event, name)` for every STAT record (`perf.stat_event`, the
//!   counter's evsel name) and `stat(event, None)` for STAT_ROUND;
//! * `context_switch(event)` for SWITCH and SWITCH_CPU_WIDE records (the
//!   series after 7.3-rc1).
//! * `call_return(cr)` with each flushed thread stack entry, a
//!   `perf.call_return` (call_return.rs, perf-core's `thread_stack`): with
//!   no AUX data, each thread's first sample is its stack's bottom, flushed
//!   at the thread's first sample after an exec and, for every stack left,
//!   at the end of `process_events()` (the C flushes those when the
//!   session is freed).
//!
//! `itrace` (default `$PERF_ITRACE`) is parsed as perf's `--itrace`;
//! with no AUX data decoded it changes nothing.
//!
//! `inline=True` (ours) sets `symbol_conf.inline_name`, which upstream's
//! session clears: call chains get perf script's frames for inlined code.
//!
//! `read_columns()` (session_columns.rs) reads the same samples in batches
//! of columns instead, calling no callback; both go on from where the
//! other stopped.
//!
//! COMM, FORK, EXIT, MMAP, MMAP2 records build the session's threads,
//! which `find_thread` answers from as they are when it is called. Ctrl-C
//! stops `process_events()` with `KeyboardInterrupt`: the signal check runs
//! every 64 records, and a blocking read of a pipe is interrupted. The
//! session holds its callbacks and takes part in garbage collection, so a
//! `session -> bound method -> object -> session` cycle is collected.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use perf_core::perf_data::user::{Stat, StatRound};
use perf_core::record::{Body, PERF_RECORD_FORK, PERF_RECORD_SWITCH, PERF_RECORD_SWITCH_CPU_WIDE};
use perf_core::session::thread_stack::ThreadStacks;
use perf_core::session::{self, itrace, Event, Handler, MachineRef, ProcessError, Session};
use perf_core::symbol::conf::SymbolConf;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::{PyTraverseError, PyVisit};

use crate::call_return;
use crate::data::{try_lock, PyData, PyWait};
use crate::error::PerfError;
use crate::events;
use crate::evsel::PyEvsel;
use crate::gil_free;
use crate::recycler::Recycler;
use crate::session_columns::{self, ColumnsState};
use crate::symbols::{ChainMemo, SampleSource};
use crate::thread::{PyThread, ThreadCache};

/// perf session object.
#[pyclass(module = "perf", name = "session", frozen, subclass, weakref)]
pub struct PySession {
    data: Py<PyData>,
    callbacks: Mutex<Callbacks>,
    machine: MachineRef,
    memo: ChainMemo,
    threads: Mutex<ThreadCache>,
    e_machine: u16,
    is_64_bit: bool,
    run: Mutex<Run>,
}

/// The Python callbacks (`None`: not called).
#[derive(Default)]
struct Callbacks {
    sample: Option<Py<PyAny>>,
    stat: Option<Py<PyAny>>,
    context_switch: Option<Py<PyAny>>,
    call_return: Option<Py<PyAny>>,
}

impl Callbacks {
    /// No callback: nothing to call.
    fn is_empty(&self) -> bool {
        self.sample.is_none()
            && self.stat.is_none()
            && self.context_switch.is_none()
            && self.call_return.is_none()
    }

    fn clone_ref(&self, py: Python<'_>) -> Callbacks {
        let c = |o: &Option<Py<PyAny>>| o.as_ref().map(|o| o.clone_ref(py));
        Callbacks {
            sample: c(&self.sample),
            stat: c(&self.stat),
            context_switch: c(&self.context_switch),
            call_return: c(&self.call_return),
        }
    }

    fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        for o in [
            &self.sample,
            &self.stat,
            &self.context_switch,
            &self.call_return,
        ]
        .into_iter()
        .flatten()
        {
            visit.call(o)?;
        }
        Ok(())
    }
}

/// The reading state, behind the session's lock while `process_events`
/// runs.
struct Run {
    session: Session,
    cache: Recycler,
    /// Per evsel index, made at its first sample.
    evsels: Vec<Option<EvselSlot>>,
    wait: Arc<PyWait>,
    columns: ColumnsState,
    /// The thread stacks `call_return` is fed from.
    stacks: ThreadStacks,
    /// The last `perf.call_return` db_id given.
    last_db_id: u64,
}

/// What the samples of one evsel point at.
struct EvselSlot {
    obj: Py<PyEvsel>,
    source: Arc<SampleSource>,
}

/// perf's `evsel__name` of a file's evsel: its name in the file, else the
/// name its attr gives.
pub fn evsel_name(e: &session::Evsel) -> String {
    if e.name.is_empty() {
        crate::evsel_name::from_attr(&e.attr)
    } else {
        e.name.clone()
    }
}

/// A callback argument: `None` or a callable (`TypeError("<name> must be
/// callable")` otherwise, as python.c).
fn callback(arg: Option<Bound<'_, PyAny>>, name: &str) -> PyResult<Option<Py<PyAny>>> {
    match arg {
        None => Ok(None),
        Some(a) if a.is_none() => Ok(None),
        Some(a) if a.is_callable() => Ok(Some(a.unbind())),
        Some(_) => Err(PyTypeError::new_err(format!("{name} must be callable"))),
    }
}

#[pymethods]
impl PySession {
    #[new]
    #[pyo3(signature = (data, sample=None, stat=None, context_switch=None, call_return=None, itrace=None, vmlinux=None, kallsyms=None, symfs=None, *, inline=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        data: &Bound<'_, PyAny>,
        sample: Option<Bound<'_, PyAny>>,
        stat: Option<Bound<'_, PyAny>>,
        context_switch: Option<Bound<'_, PyAny>>,
        call_return: Option<Bound<'_, PyAny>>,
        itrace: Option<String>,
        vmlinux: Option<PathBuf>,
        kallsyms: Option<PathBuf>,
        symfs: Option<PathBuf>,
        inline: bool,
    ) -> PyResult<Self> {
        let data = data.cast::<PyData>().map_err(|_| {
            let t = data
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            PyTypeError::new_err(format!("argument 1 must be perf.data, not {t}"))
        })?;
        let callbacks = Callbacks {
            sample: callback(sample, "sample")?,
            stat: callback(stat, "stat")?,
            context_switch: callback(context_switch, "context_switch")?,
            call_return: callback(call_return, "call_return")?,
        };
        let mut session = data.get().open_session()?;
        crate::damage::warn_unreadable(data.py(), data.get().path(), session.features())?;
        // As python.c, once the file is open: unset, $PERF_ITRACE.
        let itrace = itrace
            .or_else(|| std::env::var_os("PERF_ITRACE").map(|v| v.to_string_lossy().into_owned()));
        if let Some(text) = itrace {
            itrace::parse(&text).map_err(PerfError::from)?;
        }
        let mut symbols = SymbolConf::from_keywords(vmlinux, kallsyms, symfs);
        symbols.inline_name = inline;
        session.set_symbols(symbols);
        Ok(PySession {
            machine: session.machine().clone(),
            memo: ChainMemo::default(),
            threads: Mutex::default(),
            e_machine: session.e_machine(),
            is_64_bit: session.is_64_bit(),
            run: Mutex::new(Run {
                evsels: Vec::new(),
                cache: Recycler::new(),
                wait: data.get().wait(),
                columns: ColumnsState::default(),
                stacks: ThreadStacks::default(),
                last_db_id: 0,
                session,
            }),
            data: data.clone().unbind(),
            callbacks: Mutex::new(callbacks),
        })
    }

    /// Iterate and process events.
    fn process_events(&self, py: Python<'_>) -> PyResult<()> {
        let mut run = try_lock(&self.run, "process_events is already running")?;
        let callbacks = self
            .callbacks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone_ref(py);
        if callbacks.is_empty() {
            // Nothing calls Python: the whole read runs without the GIL.
            let Run { session, wait, .. } = &mut *run;
            let mut quiet = gil_free::Quiet::new(py)?;
            return match py.detach(|| session.process_events(&mut quiet)) {
                Ok(()) => Ok(()),
                Err(ProcessError::Handler(e)) => Err(e),
                Err(ProcessError::Data(e)) => Err(wait.error(e)),
            };
        }
        let Run {
            session,
            cache,
            evsels,
            wait,
            columns: _,
            stacks,
            last_db_id,
        } = &mut *run;
        let mut handler = PyHandler {
            py,
            callbacks,
            cache,
            evsels,
            machine: &self.machine,
            memo: &self.memo,
            stacks,
            last_db_id,
        };
        match session.process_events(&mut handler) {
            Ok(()) => handler.flush_stacks(),
            Err(ProcessError::Handler(e)) => Err(e),
            Err(ProcessError::Data(e)) => Err(wait.error(e)),
        }
    }

    /// The next batch of samples, in time order, as array.array columns
    /// (all, or those named in columns; dso, symbol, callchain_dso and
    /// callchain_symbol only when named): at most max_events samples
    /// (default 65536); an empty batch at the end. Calls no callback.
    #[pyo3(signature = (columns=None, max_events=None))]
    fn read_columns(
        &self,
        py: Python<'_>,
        columns: Option<&Bound<'_, PyAny>>,
        max_events: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::columns::SampleColumns> {
        let mut run = try_lock(&self.run, "process_events is already running")?;
        let Run {
            session,
            cache,
            wait,
            columns: state,
            ..
        } = &mut *run;
        session_columns::read_columns(py, session, state, cache, columns, max_events, |e| {
            wait.error(e)
        })
    }

    /// Returns the thread associated with a pid (and tid): a `perf.thread`
    /// as the records read so far describe it, or None.
    #[pyo3(signature = (pid, tid=-1, /))]
    fn find_thread(&self, py: Python<'_>, pid: i32, tid: i32) -> PyResult<Option<Py<PyThread>>> {
        let (pid, tid) = if tid == -1 { (-1, pid) } else { (pid, tid) };
        let (seen, key) = {
            let machine = self.machine.lock();
            let Some(t) = machine.find_thread(pid, tid) else {
                return Ok(None);
            };
            let threads = self.threads.lock().unwrap_or_else(|p| p.into_inner());
            (threads.find(py, t), PyThread::key(t))
        };
        if let Some(t) = seen {
            return Ok(Some(t));
        }
        // Made with no lock held (see symbols.rs).
        let t = Py::new(py, PyThread::new(py, &key))?;
        let mut threads = self.threads.lock().unwrap_or_else(|p| p.into_inner());
        threads.insert(key, t.clone_ref(py));
        Ok(Some(t))
    }

    /// The ELF machine (`EM_*`) the file was recorded on.
    #[getter]
    fn e_machine(&self) -> u16 {
        self.e_machine
    }

    /// Whether the recorded kernel is 64-bit.
    #[getter]
    fn is_64_bit(&self) -> bool {
        self.is_64_bit
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.data)?;
        // A lock held elsewhere (process_events running) means the session
        // is in use: not visiting only keeps it alive.
        if let Ok(c) = self.callbacks.try_lock() {
            c.traverse(&visit)?;
        }
        if let Ok(run) = self.run.try_lock() {
            for slot in run.evsels.iter().flatten() {
                visit.call(&slot.obj)?;
            }
            run.cache.traverse(&visit)?;
            run.columns.traverse(&visit)?;
        }
        Ok(())
    }

    fn __clear__(&self) {
        if let Ok(mut c) = self.callbacks.try_lock() {
            *c = Callbacks::default();
        }
    }
}

/// The session's [`Handler`]: builds the event objects and calls Python.
struct PyHandler<'a, 'py> {
    py: Python<'py>,
    callbacks: Callbacks,
    cache: &'a mut Recycler,
    evsels: &'a mut Vec<Option<EvselSlot>>,
    machine: &'a MachineRef,
    memo: &'a ChainMemo,
    stacks: &'a mut ThreadStacks,
    last_db_id: &'a mut u64,
}

impl PyHandler<'_, '_> {
    /// Feeds a sample to the thread stacks, calling `call_return` with
    /// what an exec flushes.
    fn stack_sample(&mut self, ev: &Event<'_>) -> PyResult<()> {
        let Some(cb) = &self.callbacks.call_return else {
            return Ok(());
        };
        let mut out = Vec::new();
        self.stacks.sample(
            &self.machine.lock(),
            &ev.record.sample,
            ev.cpumode(),
            &mut out,
        );
        call_return::emit(self.py, cb, self.last_db_id, out)
    }

    /// A FORK record replaced a thread: its stack is flushed.
    fn stack_fork(&mut self, ev: &Event<'_>) -> PyResult<()> {
        let (Some(cb), Body::Task { tid, .. }) = (&self.callbacks.call_return, &ev.record.body)
        else {
            return Ok(());
        };
        let mut out = Vec::new();
        self.stacks.flush_tid(*tid as i32, &mut out);
        call_return::emit(self.py, cb, self.last_db_id, out)
    }

    /// The end of the input: every stack left is flushed.
    fn flush_stacks(&mut self) -> PyResult<()> {
        let Some(cb) = &self.callbacks.call_return else {
            return Ok(());
        };
        let mut out = Vec::new();
        self.stacks.flush_all(&self.machine.lock(), &mut out);
        call_return::emit(self.py, cb, self.last_db_id, out)
    }
}

/// The Python evsel and sample source of a file evsel, made at its first
/// sample.
fn slot<'s>(
    py: Python<'_>,
    evsels: &'s mut Vec<Option<EvselSlot>>,
    machine: &MachineRef,
    memo: &ChainMemo,
    evsel: &session::Evsel,
) -> PyResult<&'s EvselSlot> {
    let idx = evsel.idx;
    if evsels.len() <= idx {
        evsels.resize_with(idx + 1, || None);
    }
    let Some(cell) = evsels.get_mut(idx) else {
        return Err(PyValueError::new_err("evsel index out of range"));
    };
    if cell.is_none() {
        let mut core = perf_core::evsel::Evsel::new(evsel.attr);
        core.name = Some(evsel_name(evsel));
        *cell = Some(EvselSlot {
            obj: Py::new(py, PyEvsel::wrap(core))?,
            source: Arc::new(SampleSource {
                machine: machine.clone(),
                info: evsel.info,
                memo: Arc::clone(memo),
            }),
        });
    }
    cell.as_ref()
        .ok_or_else(|| PyValueError::new_err("evsel index out of range"))
}

impl Handler for PyHandler<'_, '_> {
    type Error = PyErr;

    #[inline]
    fn sample(&mut self, ev: &Event<'_>) -> PyResult<()> {
        if ev.evsel.is_some() {
            self.stack_sample(ev)?;
        }
        let (Some(cb), Some(evsel)) = (&self.callbacks.sample, ev.evsel) else {
            return Ok(());
        };
        let slot = slot(self.py, self.evsels, self.machine, self.memo, evsel)?;
        let event = events::file_sample(self.py, ev, Some(&slot.obj), &slot.source, self.cache)?;
        cb.bind(self.py).call1((event,))?;
        Ok(())
    }

    fn stat(&mut self, ev: &Event<'_>, stat: &Stat) -> PyResult<()> {
        let Some(cb) = &self.callbacks.stat else {
            return Ok(());
        };
        let name = ev.evsel.map_or_else(|| "unknown".to_owned(), evsel_name);
        let event = events::stat_event(self.py, stat)?;
        cb.bind(self.py).call1((event, name))?;
        Ok(())
    }

    fn stat_round(&mut self, _ev: &Event<'_>, round: &StatRound) -> PyResult<()> {
        let Some(cb) = &self.callbacks.stat else {
            return Ok(());
        };
        let event = events::stat_round_event(self.py, round)?;
        cb.bind(self.py).call1((event, self.py.None()))?;
        Ok(())
    }

    #[inline]
    fn record(&mut self, ev: &Event<'_>) -> PyResult<()> {
        let t = ev.type_();
        if t == PERF_RECORD_FORK {
            return self.stack_fork(ev);
        }
        if t != PERF_RECORD_SWITCH && t != PERF_RECORD_SWITCH_CPU_WIDE {
            return Ok(());
        }
        let Some(cb) = &self.callbacks.context_switch else {
            return Ok(());
        };
        let evsel = match ev.evsel {
            Some(e) => Some(&slot(self.py, self.evsels, self.machine, self.memo, e)?.obj),
            None => None,
        };
        let event = events::file_record(self.py, ev, evsel)?;
        cb.bind(self.py).call1((event,))?;
        Ok(())
    }

    #[inline]
    fn check(&mut self) -> PyResult<()> {
        self.py.check_signals()
    }
}
