// SPDX-License-Identifier: GPL-2.0-only
//! `perf.evlist(cpus, threads)`: evsels, their ring buffers and poll fds.

use std::ops::ControlFlow;
use std::sync::{Arc, Mutex, MutexGuard};

use perf_core::evlist::{Evlist, RingRead};
use perf_core::metric::EvlistMetrics;
use perf_core::sys::{self, Ioctl};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyIterator, PyList};
use pyo3::{PyTraverseError, PyVisit};

use crate::columns::{self, SampleColumns};
use crate::cpu_map::PyCpuMap;
use crate::error::{PerfError, PerfResult};
use crate::event_iter::EventIterator;
use crate::events::{self, Decoded};
use crate::evsel::{map_arg, PyEvsel};
use crate::recycler::Recycler;
use crate::sequence::{sequence_index, sequence_iter, SeqIndex};
use crate::symbols::{ChainMemo, SampleSource};
use crate::thread_map::PyThreadMap;

/// perf event selector list object.
#[pyclass(module = "perf", name = "evlist", subclass, frozen)]
pub struct PyEvlist {
    inner: Mutex<Inner>,
}

/// Everything behind the evlist's one lock.
struct Inner {
    core: Evlist,
    /// The Python evsel objects, so `evlist[i] is ev` holds.
    evsels: Vec<Py<PyEvsel>>,
    /// Per evsel, what its live samples resolve in: empty unless the
    /// evlist has a live machine (`Evlist::machine`).
    sources: Vec<Arc<SampleSource>>,
    cache: Recycler,
    /// The metrics of an evlist made by `parse_metrics()`.
    metrics: Option<Arc<EvlistMetrics>>,
}

impl PyEvlist {
    /// The next event from ring `*ring` onwards, moving `*ring` past rings
    /// that are empty; None when every ring is empty.
    pub fn next_event(&self, py: Python<'_>, ring: &mut usize) -> PyResult<Option<Py<PyAny>>> {
        let mut guard = self.inner();
        let Inner {
            core,
            evsels,
            sources,
            cache,
            ..
        } = &mut *guard;
        while *ring < core.ring_count() {
            let out = core
                .read_ring_with(*ring, |rec| {
                    let i = rec.evsel_idx;
                    events::build(py, rec, evsels.get(i), sources.get(i), cache)
                })
                .map_err(PerfError::from)?;
            match out {
                RingRead::Record(event) => return event.map(Some),
                RingRead::Unmatched => continue,
                RingRead::Empty => *ring += 1,
            }
        }
        Ok(None)
    }

    fn inner(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// An evlist made by `parse_events`.
    pub fn from_parts(core: Evlist, evsels: Vec<Py<PyEvsel>>) -> Self {
        PyEvlist {
            inner: Mutex::new(Inner {
                core,
                evsels,
                sources: Vec::new(),
                cache: Recycler::new(),
                metrics: None,
            }),
        }
    }

    /// This evlist with the metrics its evsels count for.
    pub fn with_metrics(self, metrics: Arc<EvlistMetrics>) -> Self {
        self.inner().metrics = Some(metrics);
        self
    }
}

/// Per evsel, the live machine and the record layout its samples resolve
/// with (none without a live machine).
fn live_sources(core: &Evlist) -> Vec<Arc<SampleSource>> {
    let Some(machine) = core.machine() else {
        return Vec::new();
    };
    let memo = ChainMemo::default();
    (0..core.len())
        .map_while(|i| core.parse_info(i))
        .map(|info| {
            Arc::new(SampleSource {
                machine: machine.clone(),
                info: *info,
                memo: Arc::clone(&memo),
            })
        })
        .collect()
}

#[pymethods]
impl PyEvlist {
    #[new]
    #[pyo3(signature = (cpus, threads, /))]
    fn new(cpus: &Bound<'_, PyAny>, threads: &Bound<'_, PyAny>) -> PyResult<Self> {
        let cpus = map_arg::<PyCpuMap>(Some(cpus), "cpus")?.map(|c| c.get().map.clone());
        let threads =
            map_arg::<PyThreadMap>(Some(threads), "threads")?.map(|t| t.get().map.clone());
        Ok(PyEvlist::from_parts(Evlist::new(cpus, threads), Vec::new()))
    }

    /// adds an event selector to the list.
    fn add(&self, evsel: &Bound<'_, PyAny>) -> PyResult<usize> {
        let evsel = evsel.cast::<PyEvsel>().map_err(|_| {
            let t = evsel
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default();
            PyTypeError::new_err(format!("argument 1 must be perf.evsel, not {t}"))
        })?;
        let mut inner = self.inner();
        let n = inner.core.add(evsel.get().inner.clone());
        inner.evsels.push(evsel.clone().unbind());
        Ok(n)
    }

    /// open the file descriptors.
    #[pyo3(signature = (*_args, **_kwargs))]
    fn open(
        &self,
        py: Python<'_>,
        _args: &Bound<'_, pyo3::types::PyTuple>,
        _kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PerfResult<()> {
        let policy = crate::abi_policy::current();
        py.detach(|| self.inner().core.open(&policy))?;
        Ok(())
    }

    /// List of metric names within the evlist.
    fn metrics(&self) -> Vec<String> {
        self.inner()
            .metrics
            .as_ref()
            .map(|m| m.names())
            .unwrap_or_default()
    }

    /// compute metric for given name, cpu and thread
    #[pyo3(signature = (metric, cpu, thread, /))]
    fn compute_metric(&self, py: Python<'_>, metric: &str, cpu: i32, thread: i32) -> PyResult<f64> {
        let value = py.detach(|| {
            let inner = self.inner();
            match &inner.metrics {
                Some(m) => m.compute(&inner.core, metric, cpu, thread),
                None => Ok(None),
            }
        });
        match value.map_err(PerfError::from)? {
            Some(v) => Ok(v),
            None => Err(PyTypeError::new_err(format!(
                "Unknown metric '{metric}' for CPU '{cpu}' and thread '{thread}'"
            ))),
        }
    }

    /// close the file descriptors.
    fn close(&self) {
        self.inner().core.close();
    }

    /// mmap the file descriptor table.
    #[pyo3(signature = (pages=128, overwrite=0))]
    fn mmap(
        &self,
        py: Python<'_>,
        #[pyo3(from_py_with = crate::int_arg::pages)] pages: i32,
        overwrite: i32,
    ) -> PerfResult<()> {
        let _ = overwrite; // parsed and ignored, as in the C module
        let pages = perf_core::ring::data_pages(pages.into())?;
        py.detach(|| {
            let mut inner = self.inner();
            inner.core.mmap(pages)?;
            inner.sources = live_sources(&inner.core);
            Ok::<_, perf_core::error::Error>(())
        })?;
        Ok(())
    }

    /// poll the file descriptor table.
    #[pyo3(signature = (timeout=-1))]
    fn poll(&self, py: Python<'_>, timeout: i32) -> PyResult<usize> {
        let fds: Vec<i32> = self.inner().core.pollfds().to_vec();
        match py.detach(|| sys::poll(&fds, timeout)) {
            Ok((n, _)) => Ok(n),
            Err(e) => {
                if e.errno() == Some(libc::EINTR) {
                    py.check_signals()?;
                }
                Err(PerfError::from(e).into())
            }
        }
    }

    /// get the poll file descriptor table.
    #[pyo3(signature = (*_args, **_kwargs))]
    fn get_pollfd<'py>(
        &self,
        py: Python<'py>,
        _args: &Bound<'py, pyo3::types::PyTuple>,
        _kwargs: Option<&Bound<'py, pyo3::types::PyDict>>,
    ) -> PyResult<Bound<'py, PyList>> {
        static IO_OPEN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let open =
            IO_OPEN.get_or_try_init(py, || py.import("io")?.getattr("open").map(Bound::unbind))?;
        let fds: Vec<i32> = self.inner().core.pollfds().to_vec();
        let list = PyList::empty(py);
        for fd in fds {
            let kwargs = pyo3::types::PyDict::new(py);
            kwargs.set_item("closefd", false)?;
            list.append(open.bind(py).call((fd, "r"), Some(&kwargs))?)?;
        }
        Ok(list)
    }

    /// reads an event.
    // The next event of the ring of `cpu`, or None.
    #[pyo3(signature = (cpu, sample_id_all=1), text_signature = "($self, /, cpu, sample_id_all=1)")]
    fn read_on_cpu(
        &self,
        py: Python<'_>,
        cpu: i32,
        sample_id_all: i32,
    ) -> PyResult<Option<Py<PyAny>>> {
        let _ = sample_id_all; // parsed and ignored, as in the C module
        let mut guard = self.inner();
        let Inner {
            core,
            evsels,
            sources,
            cache,
            ..
        } = &mut *guard;
        // The closure hands back a pointer-sized value and parks a Python
        // error aside: the per-event path then moves no large Result around.
        let mut failed = None;
        let out = core.read_on_cpu_with(cpu, |rec| {
            let i = rec.evsel_idx;
            events::build(py, rec, evsels.get(i), sources.get(i), cache)
                .map_err(|e| failed = Some(e))
                .ok()
        });
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(out.map_err(PerfError::from)?.flatten())
    }

    /// An iterator over every event now in the rings, ring after ring (the
    /// batch reader: one call drains everything, at most max_events events).
    #[pyo3(signature = (max_events=None))]
    fn read_all(slf: &Bound<'_, Self>, max_events: Option<usize>) -> EventIterator {
        EventIterator::new(slf.clone().unbind(), max_events)
    }

    /// Drains every ring (at most max_events records) into columns: the
    /// samples' members as array.array columns (all, or those named in
    /// columns), the other records as event objects in .others. A record
    /// that cannot be decoded stops the drain and raises; what was read
    /// before it is on the exception as .columns.
    #[pyo3(signature = (columns=None, max_events=None))]
    fn read_columns(
        &self,
        py: Python<'_>,
        columns: Option<&Bound<'_, PyAny>>,
        max_events: Option<usize>,
    ) -> PyResult<SampleColumns> {
        let mask = columns::wanted(columns)?;
        let mut builder = columns::Builder::new(mask, self.inner().cache.take_columns());
        let mut others = Vec::new();
        let mut failed = None;
        let mut read = 0usize;
        if max_events != Some(0) {
            let mut guard = self.inner();
            let Inner {
                core,
                cache,
                evsels,
                ..
            } = &mut *guard;
            for ring in 0..core.ring_count() {
                let drained = core.drain_ring_with(ring, |rec| {
                    if !builder.push_direct(&rec) {
                        match events::decode(py, &rec, evsels.get(rec.evsel_idx), cache) {
                            Ok(Decoded::Sample(m, _)) => builder.push(rec.evsel_idx, &m),
                            Ok(Decoded::Other(event)) => others.push(event),
                            Err(e) => {
                                failed = Some(e);
                                return ControlFlow::Break(());
                            }
                        }
                    }
                    read += 1;
                    if max_events.is_some_and(|m| read >= m) {
                        ControlFlow::Break(())
                    } else {
                        ControlFlow::Continue(())
                    }
                });
                if let Err(e) = drained {
                    failed = Some(PerfError::from(e).into());
                }
                if failed.is_some() || max_events.is_some_and(|m| read >= m) {
                    break;
                }
            }
        }
        let (result, buffers) = builder.finish(py, others);
        self.inner().cache.keep_columns(buffers);
        let result = result?;
        match failed {
            None => Ok(result),
            Some(e) => {
                e.value(py).setattr("columns", Py::new(py, result)?)?;
                Err(e)
            }
        }
    }

    /// CPU map union of all evsel CPU maps.
    fn all_cpus(&self) -> PyCpuMap {
        PyCpuMap::wrap(std::sync::Arc::new(self.inner().core.all_cpus()))
    }

    /// Apply default record options to the evlist.
    fn config(&self) {
        self.inner().core.config();
    }

    /// Enable the evsels in the evlist.
    fn enable(&self) -> PerfResult<()> {
        self.inner().core.ioctl_all(Ioctl::Enable)?;
        Ok(())
    }

    /// Disable the evsels in the evlist.
    fn disable(&self) -> PerfResult<()> {
        self.inner().core.ioctl_all(Ioctl::Disable)?;
        Ok(())
    }

    fn __len__(&self) -> usize {
        self.inner().evsels.len()
    }

    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Py<PyEvsel>> {
        let inner = self.inner();
        let SeqIndex(i) = sequence_index(index, inner.evsels.len())?;
        Ok(inner.evsels[i].clone_ref(py))
    }

    fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyIterator>> {
        sequence_iter(slf.as_any())
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let names: Vec<String> = self
            .inner()
            .evsels
            .iter()
            .map(|e| crate::evsel_name::name(&perf_core::evlist::lock(&e.bind(py).get().inner)))
            .collect();
        format!("evlist([{}])", names.join(","))
    }

    // GC support: a Python evsel (subclass) may point back at its evlist.
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        if let Ok(inner) = self.inner.try_lock() {
            for e in &inner.evsels {
                visit.call(e)?;
            }
            inner.cache.traverse(&visit)?;
        }
        Ok(())
    }

    fn __clear__(&self) {
        if let Ok(mut inner) = self.inner.try_lock() {
            inner.evsels.clear();
            inner.cache = Recycler::new();
        }
    }

    /// Records read_on_cpu consumed because they matched no evsel.
    #[getter]
    fn unmatched(&self) -> u64 {
        self.inner().core.stats.unmatched
    }
}
