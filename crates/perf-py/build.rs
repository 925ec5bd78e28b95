// SPDX-License-Identifier: GPL-2.0-only
//! Stamps the build with the kernel release it targets:
//! `PERF_PYTHON_TARGET_RELEASE` if set, else the release of the build machine.

fn main() {
    println!("cargo:rerun-if-env-changed=PERF_PYTHON_TARGET_RELEASE");
    let release = std::env::var("PERF_PYTHON_TARGET_RELEASE")
        .ok()
        .filter(|r| !r.trim().is_empty())
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/osrelease").ok())
        .unwrap_or_default();
    println!("cargo:rustc-env=PERF_TARGET_RELEASE={}", release.trim());
}
