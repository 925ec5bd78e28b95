// SPDX-License-Identifier: GPL-2.0-only
//! The process-wide ABI policy: what `open()` does when the running kernel
//! (or this build's target ABI) lacks something the attr uses.
//!
//! * `"default"`: bits the module set by default fall back silently (listed
//!   in `evsel.fallbacks`); anything the user asked for raises `OSError` with
//!   the kernel's errno and a message naming the field and the release that
//!   added it.
//! * `"strict"`: nothing falls back, defaults included.
//! * `"lenient"`: everything the kernel lacks falls back, user requests too.
//!
//! Chosen with `perf.set_abi_policy(mode)` or the environment variable
//! `PERF_PYTHON_ABI_POLICY` (read at import).

use std::sync::{Arc, RwLock};

use perf_core::abi::{BuildTarget, FallbackMode, Policy};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

static POLICY: RwLock<Option<Arc<Policy>>> = RwLock::new(None);

fn make(mode: &str) -> Option<Policy> {
    let mode = match mode {
        "default" | "" => FallbackMode::Default,
        "strict" => FallbackMode::Strict,
        "lenient" => FallbackMode::Lenient,
        _ => return None,
    };
    Some(Policy {
        mode,
        target: Some(BuildTarget::from_manifest(&crate::build_info::manifest())),
        ..Policy::default()
    })
}

/// The current policy (the environment's choice until set).
pub fn current() -> Arc<Policy> {
    if let Some(p) = POLICY.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return p.clone();
    }
    let mode = std::env::var("PERF_PYTHON_ABI_POLICY").unwrap_or_default();
    let p = Arc::new(make(&mode).or_else(|| make("default")).unwrap_or_default());
    *POLICY.write().unwrap_or_else(|e| e.into_inner()) = Some(p.clone());
    p
}

/// Set what open() does when the kernel lacks an attr feature: 'default'
/// (module defaults fall back, user requests raise OSError), 'strict' (nothing
/// falls back) or 'lenient' (everything falls back).
#[pyfunction]
pub fn set_abi_policy(mode: &str) -> PyResult<()> {
    let p = make(mode).ok_or_else(|| {
        PyValueError::new_err(format!(
            "abi policy must be 'default', 'strict' or 'lenient', not {mode:?}"
        ))
    })?;
    *POLICY.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(p));
    Ok(())
}
