// SPDX-License-Identifier: GPL-2.0-only
//! `perf.evsel(**kw)`: an event selector. Subclassable; `__init__` holds the
//! C module's argument parsing so `perf.evsel.__init__(self, **kw)` works
//! from Python subclasses (tracepoint.py does that).

use std::sync::{Arc, Mutex};

use perf_core::evlist::{lock, SharedEvsel};
use perf_core::evsel::Evsel;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use pyo3::PyClass;

use crate::counts::PyCountsValues;
use crate::cpu_map::PyCpuMap;
use crate::error::{PerfError, PerfResult};
use crate::evsel_args;
use crate::thread_map::PyThreadMap;

/// perf event selector list object.
#[pyclass(module = "perf", name = "evsel", subclass, frozen)]
pub struct PyEvsel {
    pub inner: SharedEvsel,
}

impl PyEvsel {
    /// Wraps a core evsel (for `parse_events`).
    pub fn wrap(evsel: Evsel) -> Self {
        PyEvsel {
            inner: Arc::new(Mutex::new(evsel)),
        }
    }
}

/// `cpus=`/`threads=` arguments: a map object or None.
pub fn map_arg<'py, T: PyClass>(
    v: Option<&Bound<'py, PyAny>>,
    what: &str,
) -> PyResult<Option<Bound<'py, T>>> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v.cast::<T>().map(|b| Some(b.clone())).map_err(|_| {
            PyTypeError::new_err(format!(
                "{what} must be a perf.{what_type} or None",
                what_type = if what == "cpus" {
                    "cpu_map"
                } else {
                    "thread_map"
                }
            ))
        }),
    }
}

#[pymethods]
impl PyEvsel {
    // tp_new accepts anything so subclasses may have their own __init__
    // signature; the object starts as `perf.evsel()` with no arguments.
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn __new__(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let parsed = evsel_args::parse(&PyTuple::empty(_args.py()), None)?;
        let mut evsel = Evsel::new(parsed.attr);
        evsel.defaults = parsed.defaults;
        Ok(PyEvsel::wrap(evsel))
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __init__(
        &self,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let parsed = evsel_args::parse(args, kwargs)?;
        let mut e = lock(&self.inner);
        e.close();
        e.attr = parsed.attr;
        e.defaults = parsed.defaults;
        e.fallbacks.clear();
        Ok(())
    }

    /// open the event selector file descriptor table.
    #[pyo3(signature = (cpus=None, threads=None, group=0, inherit=0))]
    fn open(
        &self,
        py: Python<'_>,
        cpus: Option<&Bound<'_, PyAny>>,
        threads: Option<&Bound<'_, PyAny>>,
        group: i32,
        inherit: i32,
    ) -> PyResult<()> {
        let _ = group; // parsed and ignored, as in the C module
        let cpus = map_arg::<PyCpuMap>(cpus, "cpus")?.map(|c| c.get().map.clone());
        let threads = map_arg::<PyThreadMap>(threads, "threads")?.map(|t| t.get().map.clone());
        let inner = self.inner.clone();
        let policy = crate::abi_policy::current();
        py.detach(move || {
            let mut e = lock(&inner);
            e.attr.set_flag("inherit", u64::from(inherit as u32));
            // No CPUs: an uncore PMU's cpumask CPUs and no task, as perf.
            let uncore = match cpus {
                None => perf_core::pmu_cpus::uncore_maps(&e.attr),
                Some(_) => None,
            };
            let (cpus, threads) = match uncore {
                Some((c, t)) => (Arc::new(c), Arc::new(t)),
                None => (
                    cpus.unwrap_or_else(|| Arc::new(perf_core::cpumap::CpuMap::any())),
                    threads.unwrap_or_else(|| Arc::new(perf_core::threadmap::ThreadMap::any())),
                ),
            };
            e.open(cpus, threads, &policy)
        })
        .map_err(PerfError::from)?;
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!("evsel({})", crate::evsel_name::name(&lock(&self.inner)))
    }

    /// tracking event.
    #[getter]
    fn get_tracking(&self) -> bool {
        lock(&self.inner).tracking
    }
    #[setter]
    fn set_tracking(&self, v: bool) {
        lock(&self.inner).tracking = v;
    }
    /// attribute type.
    #[getter(r#type)]
    fn get_type(&self) -> u32 {
        lock(&self.inner).attr.type_
    }
    #[setter(r#type)]
    fn set_type(&self, v: u32) {
        lock(&self.inner).attr.type_ = v;
    }
    /// attribute size.
    #[getter]
    fn get_size(&self) -> u32 {
        // Once open, the size the kernel was sent; before, what will be.
        let e = lock(&self.inner);
        match (e.fds(), e.attr.size) {
            (Some(t), _) => t.attr.size,
            (None, 0) => e.attr.needed_size(),
            (None, size) => size,
        }
    }
    #[setter]
    fn set_size(&self, v: u32) -> PerfResult<()> {
        perf_core::abi::check_size(v)?;
        lock(&self.inner).attr.size = v;
        Ok(())
    }
    /// attribute config.
    #[getter]
    fn get_config(&self) -> u64 {
        lock(&self.inner).attr.config
    }
    #[setter]
    fn set_config(&self, v: u64) {
        lock(&self.inner).attr.config = v;
    }
    /// attribute sample_period.
    #[getter]
    fn get_sample_period(&self) -> u64 {
        lock(&self.inner).attr.sample_period
    }
    #[setter]
    fn set_sample_period(&self, v: u64) {
        lock(&self.inner).attr.sample_period = v;
    }
    /// attribute sample_type.
    #[getter]
    fn get_sample_type(&self) -> u64 {
        lock(&self.inner).attr.sample_type
    }
    #[setter]
    fn set_sample_type(&self, v: u64) {
        lock(&self.inner).attr.sample_type = v;
    }
    /// attribute read_format.
    #[getter]
    fn get_read_format(&self) -> u64 {
        lock(&self.inner).attr.read_format
    }
    #[setter]
    fn set_read_format(&self, v: u64) {
        lock(&self.inner).attr.read_format = v;
    }
    /// attribute wakeup_events.
    #[getter]
    fn get_wakeup_events(&self) -> u32 {
        lock(&self.inner).attr.wakeup_events
    }
    #[setter]
    fn set_wakeup_events(&self, v: u32) {
        lock(&self.inner).attr.wakeup_events = v;
    }
    /// What the last open() dropped or replaced because the kernel (or this
    /// build's target ABI, or the event's PMU) refused it, as (name, reason)
    /// pairs; a replacement is named "old -> new".
    #[getter]
    fn fallbacks(&self) -> Vec<(String, &'static str)> {
        lock(&self.inner)
            .fallbacks
            .iter()
            .map(|f| {
                let why = match f.reason {
                    perf_core::abi::FallbackReason::Kernel => "kernel",
                    perf_core::abi::FallbackReason::BuildTarget => "build target",
                    perf_core::abi::FallbackReason::Pmu => "pmu",
                };
                (f.label(), why)
            })
            .collect()
    }

    /// CPUs the event is to be used with.
    fn cpus(&self) -> PyCpuMap {
        let e = lock(&self.inner);
        let map = e
            .fds()
            .map(|t| t.cpus.clone())
            .unwrap_or_else(|| Arc::new(perf_core::cpumap::CpuMap::any()));
        PyCpuMap::wrap(map)
    }

    /// threads the event is to be used with.
    fn threads(&self) -> PyThreadMap {
        let e = lock(&self.inner);
        let map = e
            .fds()
            .map(|t| t.threads.clone())
            .unwrap_or_else(|| Arc::new(perf_core::threadmap::ThreadMap::any()));
        PyThreadMap::wrap(map)
    }

    /// read counters
    #[pyo3(signature = (cpu, thread, /))]
    fn read(&self, py: Python<'_>, cpu: i32, thread: i32) -> PerfResult<PyCountsValues> {
        let inner = self.inner.clone();
        let counts = py.detach(move || lock(&inner).read_counts(cpu, thread))?;
        Ok(counts.into())
    }

    /// event IDs.
    #[getter]
    fn ids(&self) -> Vec<u64> {
        lock(&self.inner).ids()
    }
}
