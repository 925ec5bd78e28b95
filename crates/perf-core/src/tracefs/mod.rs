// SPDX-License-Identifier: GPL-2.0-only
//! tracefs: finding it, tracepoint ids, `format` files and reading
//! tracepoint fields out of `PERF_SAMPLE_RAW` payloads.
//!
//! | perf / libtraceevent                     | here                          |
//! |------------------------------------------|-------------------------------|
//! | `tracefs__mount()`, `tracing_path`       | [`tracefs()`], [`mount`]      |
//! | `tp_pmu__id()` (`events/<sys>/<name>/id`) | [`Tracefs::tracepoint_id`]    |
//! | `trace_event__tp_format()`               | [`Tracefs::format`]           |
//! | `trace_event__tp_format_id()`            | [`Tracefs::cached_format`]    |
//! | `evsel__tp_format()` (6.15+)             | [`Tracefs::format_by_id`]     |
//! | `struct tep_event`                       | [`Format`]                    |
//! | `tep_find_any_field()`                   | [`Format::field`]             |
//! | `struct tep_format_field`, `TEP_FIELD_IS_*` | [`Field`], [`field`]       |
//! | python.c `tracepoint_field()`            | [`Field::value`] → [`Value`]  |
//!
//! Nothing here hard-codes `/sys/kernel/debug/tracing`: [`tracefs()`] looks
//! at `/sys/kernel/tracing` first (see [`mount`]), and every other function
//! takes its tracefs directory through a [`Tracefs`].

use std::sync::OnceLock;

pub mod events;
pub mod field;
pub mod format;
mod lexer;
pub mod mount;
pub mod value;

#[cfg(test)]
mod testutil;

pub use events::Tracefs;
pub use field::Field;
pub use format::Format;
pub use value::{Signed, Value};

use crate::error::Result;

static TRACEFS: OnceLock<Tracefs> = OnceLock::new();

/// The system's tracefs, found (or mounted) on first use and kept for the
/// life of the process, with its format caches. A failure is not cached:
/// the next call looks again.
///
/// # Errors
/// Those of [`mount::locate_or_mount`].
pub fn tracefs() -> Result<&'static Tracefs> {
    if let Some(t) = TRACEFS.get() {
        return Ok(t);
    }
    let root = mount::locate_or_mount()?;
    Ok(TRACEFS.get_or_init(|| Tracefs::at(root)))
}

/// [`Tracefs::tracepoint_id`] on the system's tracefs.
///
/// # Errors
/// Those of [`tracefs()`] and [`Tracefs::tracepoint_id`].
pub fn tracepoint_id(sys: &str, name: &str) -> Result<u64> {
    tracefs()?.tracepoint_id(sys, name)
}

#[cfg(test)]
#[path = "system_tests.rs"]
mod system_tests;
