// SPDX-License-Identifier: GPL-2.0-only
//! The `perf` Python module: a thin pyo3 layer over `perf-core`.
//!
//! One file per Python type family; errors become Python exceptions in
//! `error.rs` only. The module is initialised single-phase (a classic
//! `PyInit_perf` calling `PyModule_Create`), like the kernel's C module, so
//! loaders that rely on `module_from_spec()` registering it in `sys.modules`
//! (Ubuntu's wrapper) get the extension.
//!
//! `unsafe` here is limited to the places that talk to CPython's C API
//! directly, each with its SAFETY notes: `PyInit_perf` (module.rs), the
//! hand-made `evlist.read_on_cpu` method (fast_method.rs), the per-format
//! tracepoint sample classes and their field getters (tracepoint_sample.rs),
//! and the frame those C entry points share (c_entry.rs).

mod abi_policy;
mod build_info;
mod c_entry;
mod columns;
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
mod fast_method;
mod functions;
mod memory_view;
mod module;
mod parse_events;
mod pmu;
mod recycler;
mod sequence;
mod thread_map;
mod tracepoint;
mod tracepoint_sample;

pub use module::PyInit_perf;
