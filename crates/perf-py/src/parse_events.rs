// SPDX-License-Identifier: GPL-2.0-only
//! `perf.parse_events(event_string, cpus=None, threads=None)` (6.14+).

use std::sync::Arc;

use perf_core::cpumap::CpuMap;
use perf_core::evlist::Evlist;
use perf_core::evsel::Evsel;
use perf_core::parse_events as parser;
use perf_core::threadmap::ThreadMap;
use pyo3::prelude::*;

use crate::cpu_map::PyCpuMap;
use crate::error::PerfError;
use crate::evlist::PyEvlist;
use crate::evsel::{map_arg, PyEvsel};
use crate::thread_map::PyThreadMap;

/// Parse an event string ("cycles,sched:sched_switch", "{a,b}:S", "pmu/config=1/")
/// into a new evlist.
#[pyfunction]
#[pyo3(signature = (event_string, cpus=None, threads=None, /))]
pub fn parse_events(
    py: Python<'_>,
    event_string: &str,
    cpus: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyEvlist> {
    let cpus = map_arg::<PyCpuMap>(cpus, "cpus")?.map(|c| c.get().map.clone());
    let threads = map_arg::<PyThreadMap>(threads, "threads")?.map(|t| t.get().map.clone());
    let parsed = py
        .detach(|| parser::parse_events(event_string))
        .map_err(PerfError::from)?;
    let (core, objects) = evsels_from_parsed(py, parsed, cpus, threads)?;
    Ok(PyEvlist::from_parts(core, objects))
}

/// The evlist (core and Python evsel objects) of the evsels perf's event
/// parser made, on these maps.
pub fn evsels_from_parsed(
    py: Python<'_>,
    parsed: Vec<parser::ParsedEvsel>,
    cpus: Option<Arc<CpuMap>>,
    threads: Option<Arc<ThreadMap>>,
) -> PyResult<(Evlist, Vec<Py<PyEvsel>>)> {
    let mut core = Evlist::new(cpus, threads);
    let mut objects = Vec::with_capacity(parsed.len());
    for (idx, p) in parsed.into_iter().enumerate() {
        let mut evsel = Evsel::new(p.attr);
        evsel.name = Some(p.name);
        evsel.tracking = idx == 0;
        evsel.precise_max = p.precise_max;
        evsel.config_terms = p.config_terms;
        evsel.group_leader = p.group.as_ref().filter(|g| !g.is_leader).map(|g| g.leader);
        // perf's parse-time exclude_guest is a default its fallback clears
        // for a PMU without guest/host filtering; `:G`/`:H` is a request.
        let names: &[&str] = if p.exclude_gh {
            &["FLAG_FD_CLOEXEC"]
        } else {
            &["FLAG_FD_CLOEXEC", "exclude_guest", "exclude_host"]
        };
        if let Ok(bits) = perf_core::abi::AttrBits::from_names(names.iter().copied()) {
            evsel.defaults = bits;
        }
        let obj = Py::new(py, PyEvsel::wrap(evsel))?;
        core.add(Arc::clone(&obj.get().inner));
        objects.push(obj);
    }
    Ok((core, objects))
}
