// SPDX-License-Identifier: GPL-2.0-only
//! `perf.DataWarning`: damage to a perf.data file that perf only warns
//! about (a feature section that cannot be read), given as a Python warning
//! while the samples are read all the same. Damage perf gives up at is an
//! `OSError`, raised after the records before it were delivered
//! (docs/perfdata.md, "Damaged files").

use std::ffi::CString;

use perf_core::perf_data::{abi::feature, Features};
use pyo3::create_exception;
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;

create_exception!(
    perf,
    DataWarning,
    PyUserWarning,
    "A perf.data file is damaged where perf only warns: its samples are read, some metadata is not."
);

/// Warns (once a call) of the feature sections of `path` that could not
/// be read. A warnings filter that makes it an error makes it this call's
/// error.
pub fn warn_unreadable(py: Python<'_>, path: &str, features: &Features) -> PyResult<()> {
    if features.unreadable.is_empty() {
        return Ok(());
    }
    // Sections that share a reason (a cut table) are named together.
    let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
    for (bit, why) in &features.unreadable {
        match groups.iter_mut().find(|(w, _)| w == why) {
            Some((_, names)) => names.push(feature::name(*bit)),
            None => groups.push((why, vec![feature::name(*bit)])),
        }
    }
    let each: Vec<String> = groups
        .iter()
        .map(|(why, names)| format!("{}: {why}", names.join(", ")))
        .collect();
    let n = features.unreadable.len();
    let text = format!(
        "{path}: {n} feature section{} could not be read, the samples are read without {}: {}",
        if n == 1 { "" } else { "s" },
        if n == 1 { "it" } else { "them" },
        each.join("; ")
    );
    let text = CString::new(text.replace('\0', "\\0")).unwrap_or_default();
    PyErr::warn(py, &py.get_type::<DataWarning>(), &text, 1)
}
