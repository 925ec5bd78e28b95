// SPDX-License-Identifier: GPL-2.0-only
//! The `perf_event_open` core of the `perf` Python module, with no Python in it.
//!
//! If you know the kernel's tools/lib/perf, the map is:
//!
//! | kernel / libperf            | here                      |
//! |-----------------------------|---------------------------|
//! | `struct perf_event_attr`    | [`attr::Attr`]            |
//! | `struct perf_cpu_map`       | [`cpumap::CpuMap`]        |
//! | `struct perf_thread_map`    | [`threadmap::ThreadMap`]  |
//! | `struct perf_evsel`         | [`evsel::Evsel`]          |
//! | `struct perf_evlist`        | [`evlist::Evlist`]        |
//! | `struct perf_mmap`          | [`ring::Ring`]            |
//! | `evsel__parse_sample`       | [`record::parse`]         |
//!
//! `unsafe` lives only in `sys` (syscalls, ioctls) and `ring` (the mmapped
//! ring buffer); every block says why it is sound.
#![deny(unsafe_code)]
#![deny(missing_docs)]

pub mod abi;
pub mod attr;
pub mod config;
pub mod counts;
pub mod cpumap;
pub mod e_machine;
pub mod endian;
pub mod errno_names;
pub mod error;
pub mod evlist;
pub mod evsel;
pub mod metric;
pub mod parse_events;
pub mod perf_config;
pub mod perf_data;
pub mod pmu_cpus;
pub mod pmu_events;
pub mod record;
pub mod regular_file;
pub mod ring;
pub mod session;
pub mod symbol;
pub mod sys;
pub mod syscalltbl;
pub mod threadmap;
pub mod tool_evsel;
pub mod tracefs;
pub use error::{Error, Result};
