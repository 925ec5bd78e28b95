// SPDX-License-Identifier: GPL-2.0-only
//! The `perf` Python module: a thin pyo3 layer over `perf-core`.
//!
//! One file per Python type family; errors become Python exceptions in
//! `error.rs` only. The module is initialised single-phase (a classic
//! `PyInit_perf` calling `PyModule_Create`), like the kernel's C module, so
//! loaders that rely on `module_from_spec()` registering it in `sys.modules`
//! (Ubuntu's wrapper) get the extension.
//!
//! `unsafe` here is limited to `PyInit_perf` (module.rs) and one call of
//! `PyObject_GenericGetAttr` (tracepoint.rs), each with its SAFETY note.

mod abi_policy;
mod build_info;
mod constants;
mod counts;
mod cpu_map;
mod error;
mod event_iter;
mod events;
mod evlist;
mod evsel;
mod evsel_args;
mod evsel_name;
mod module;
mod parse_events;
mod pmu;
mod sequence;
mod thread_map;
mod tracepoint;

pub use module::PyInit_perf;
