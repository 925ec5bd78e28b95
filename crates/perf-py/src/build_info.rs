// SPDX-License-Identifier: GPL-2.0-only
//! What this build is: `perf.__version__` and `perf.__build__`.

use perf_abi::{BuildManifest, KernelRelease};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The kernel release this build targets (stamped by build.rs).
pub const TARGET_RELEASE: &str = env!("PERF_TARGET_RELEASE");

/// The manifest of this build.
pub fn manifest() -> BuildManifest {
    BuildManifest::for_release(
        &KernelRelease::parse(TARGET_RELEASE),
        env!("CARGO_PKG_VERSION"),
    )
}

/// Adds `__version__` and `__build__` (a dict: kernel_release, abi, flavour,
/// kernel_version, attr_size, build_version, python_abi).
pub fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let b = manifest();
    let d = PyDict::new(py);
    d.set_item("kernel_release", &b.kernel_release)?;
    d.set_item("abi", &b.abi)?;
    d.set_item("flavour", &b.flavour)?;
    d.set_item("kernel_version", &b.kernel_version)?;
    d.set_item("attr_size", b.attr_size)?;
    d.set_item("build_version", &b.build_version)?;
    d.set_item("python_abi", &b.python_abi)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__build__", d)?;
    Ok(())
}
