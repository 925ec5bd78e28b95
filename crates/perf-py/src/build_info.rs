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

/// Adds `__version__` and `__build__` (a dict: build, kernel_release, abi,
/// flavour, kernel_version, attr_size, build_version, python_abi), from values
/// build.rs computed, so the import does not parse the feature table. The
/// wheel targets no release: its kernel_release and abi are None.
pub fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let opt = |s: &'static str| (!s.is_empty()).then_some(s);
    let d = PyDict::new(py);
    d.set_item("build", env!("PERF_BUILD_KIND"))?;
    d.set_item("kernel_release", opt(TARGET_RELEASE))?;
    d.set_item("abi", opt(env!("PERF_TARGET_ABI")))?;
    d.set_item("flavour", opt(env!("PERF_TARGET_FLAVOUR")))?;
    d.set_item("kernel_version", opt(env!("PERF_TARGET_VERSION")))?;
    d.set_item(
        "attr_size",
        env!("PERF_TARGET_ATTR_SIZE").parse::<u32>().unwrap_or(0),
    )?;
    d.set_item("build_version", env!("CARGO_PKG_VERSION"))?;
    d.set_item("python_abi", "abi3")?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("__build__", d)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamped_identity_matches_the_manifest() {
        let m = manifest();
        assert_eq!(m.abi, env!("PERF_TARGET_ABI"));
        assert_eq!(m.flavour.unwrap_or_default(), env!("PERF_TARGET_FLAVOUR"));
        assert_eq!(
            m.kernel_version.unwrap_or_default(),
            env!("PERF_TARGET_VERSION")
        );
        assert_eq!(m.attr_size.to_string(), env!("PERF_TARGET_ATTR_SIZE"));
    }
}
