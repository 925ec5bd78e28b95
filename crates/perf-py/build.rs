// SPDX-License-Identifier: GPL-2.0-only
//! Stamps the build with what it is. A per-ABI build targets one kernel
//! release: `PERF_PYTHON_TARGET_RELEASE` if set, else the release of the
//! build machine. The wheel (the `wheel` feature, which pyproject.toml turns
//! on) is one build for every kernel: it targets no release, so it knows
//! every attr feature of the table and the running kernel alone says what
//! falls back.

fn main() {
    println!("cargo:rerun-if-env-changed=PERF_PYTHON_TARGET_RELEASE");
    let wheel = std::env::var_os("CARGO_FEATURE_WHEEL").is_some();
    let release = if wheel {
        String::new()
    } else {
        std::env::var("PERF_PYTHON_TARGET_RELEASE")
            .ok()
            .filter(|r| !r.trim().is_empty())
            .or_else(|| std::fs::read_to_string("/proc/sys/kernel/osrelease").ok())
            .unwrap_or_default()
    };
    let release = release.trim();
    let kind = if wheel { "wheel" } else { "per-abi" };
    println!("cargo:rustc-env=PERF_BUILD_KIND={kind}");
    println!("cargo:rustc-env=PERF_TARGET_RELEASE={release}");
    // The identity `perf.__build__` reports, computed here so that importing
    // the module does not parse the feature table.
    let m = perf_abi::BuildManifest::for_release(
        &perf_abi::KernelRelease::parse(release),
        &std::env::var("CARGO_PKG_VERSION").unwrap_or_default(),
    );
    println!("cargo:rustc-env=PERF_TARGET_ABI={}", m.abi);
    println!(
        "cargo:rustc-env=PERF_TARGET_FLAVOUR={}",
        m.flavour.unwrap_or_default()
    );
    println!(
        "cargo:rustc-env=PERF_TARGET_VERSION={}",
        m.kernel_version.unwrap_or_default()
    );
    println!("cargo:rustc-env=PERF_TARGET_ATTR_SIZE={}", m.attr_size);
    println!("cargo:rerun-if-changed=../perf-abi/data/features.toml");
}
