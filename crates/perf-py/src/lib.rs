// SPDX-License-Identifier: GPL-2.0-only
//! The `perf` Python module: a thin pyo3 layer over `perf-core`.
//!
//! One file per Python type family; errors become Python exceptions in
//! `error.rs` only. The module is initialised single-phase (a classic
//! `PyInit_perf` calling `PyModule_Create`), like the kernel's C module, so
//! loaders that rely on `module_from_spec()` registering it in `sys.modules`
//! (Ubuntu's wrapper) get the extension.
//!
//! `unsafe` is denied in the crate and allowed only in the modules that
//! call CPython's C API directly, each `unsafe` block with its SAFETY note:
//!
//! | module | what | why not pyo3's own machinery |
//! |---|---|---|
//! | `module.rs` | the single-phase `PyInit_perf` | pyo3's `#[pymodule]` is multi-phase, which Ubuntu's wrapper cannot load (docs/design.md) |
//! | `tracepoint_sample.rs` | a class per tracepoint format, with a getset per field and a `tp_getattro` that answers the members first | pyo3 cannot make classes at run time; without the `tp_getattro`, +14 % per event on a loop reading four members |
//! | `memory_view.rs` | a read-only memoryview of a Rust buffer | without it `read_columns()` makes a `bytes` per column and call: +6 % instructions, and page faults that cost ~40 % of its events/s |
//! | `c_entry.rs` | the frame of `tracepoint_sample.rs`'s C entry points | (no panic unwinds into CPython) |
//!
//! One more speed trick is safe code: `recycler.rs` refills event objects
//! nobody holds (it reads their reference count), without which the
//! `read_on_cpu` loop costs +61 % per event. The figures are
//! `benchmarks/instructions.sh`'s (docs/performance.md).
#![deny(unsafe_code)]

mod abi_policy;
mod arrow;
mod build_info;
mod c_entry;
mod call_return;
mod columns;
mod constants;
mod counts;
mod cpu_map;
mod damage;
mod data;
mod error;
mod event_iter;
mod events;
mod evlist;
mod evsel;
mod evsel_args;
mod evsel_name;
mod fifo;
mod functions;
mod gil_free;
mod int_arg;
mod memory_view;
mod metrics;
mod module;
mod parse_events;
mod parse_metrics;
mod pmu;
mod recycler;
mod sequence;
mod session;
mod session_columns;
mod symbols;
mod thread;
mod thread_map;
mod tracepoint;
mod tracepoint_sample;

pub use module::PyInit_perf;
