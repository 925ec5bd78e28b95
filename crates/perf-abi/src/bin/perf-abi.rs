// SPDX-License-Identifier: GPL-2.0-only
//! `perf-abi`: the build's one source of ABI names.
//!
//! * `perf-abi abi RELEASE`       prints the ABI of a release
//! * `perf-abi flavour RELEASE`   prints its flavour (empty if none)
//! * `perf-abi manifest RELEASE BUILD_VERSION` prints the build manifest (TOML)
//! * `perf-abi pmu-events-source RELEASE` prints the kernel source a build
//!   for RELEASE takes perf's pmu-events tables from (`none` if none)
//! * `perf-abi features-md`       prints the feature table as Markdown (docs/abi.md)

use std::process::ExitCode;

use perf_abi::{BuildManifest, FeatureTable, KernelRelease};

/// The source the build script takes the pmu-events tables from, by the same
/// rule and inputs (`perf_abi::choose_source`).
fn pmu_events_source(release: &KernelRelease) -> Option<String> {
    let explicit = std::env::var(perf_abi::PMU_EVENTS_SOURCE_ENV).ok();
    let available: Vec<String> = std::fs::read_dir(perf_abi::PMU_EVENTS_SOURCE_DIR)
        .map(|dir| {
            dir.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    perf_abi::choose_source(explicit.as_deref(), release.version, &available)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["abi", release] => println!("{}", KernelRelease::parse(release).abi),
        ["flavour", release] => {
            println!(
                "{}",
                KernelRelease::parse(release).flavour.unwrap_or_default()
            )
        }
        ["manifest", release, version] => {
            let release = KernelRelease::parse(release);
            let mut manifest = BuildManifest::for_release(&release, version);
            manifest.pmu_events_source = pmu_events_source(&release);
            print!("{}", manifest.to_toml())
        }
        ["pmu-events-source", release] => println!(
            "{}",
            pmu_events_source(&KernelRelease::parse(release))
                .as_deref()
                .unwrap_or("none")
        ),
        ["features-md"] => print!("{}", FeatureTable::builtin().to_markdown()),
        _ => {
            eprintln!(
                "usage: perf-abi abi|flavour RELEASE | perf-abi manifest RELEASE BUILD_VERSION \
                 | perf-abi pmu-events-source RELEASE | perf-abi features-md"
            );
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
