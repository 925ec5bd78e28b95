// SPDX-License-Identifier: GPL-2.0-only
//! `perf-abi`: the build's one source of ABI names.
//!
//! * `perf-abi abi RELEASE`       prints the ABI of a release
//! * `perf-abi flavour RELEASE`   prints its flavour (empty if none)
//! * `perf-abi manifest RELEASE BUILD_VERSION` prints the build manifest (TOML)
//! * `perf-abi features-md`       prints the feature table as Markdown (docs/abi.md)

use std::process::ExitCode;

use perf_abi::{BuildManifest, FeatureTable, KernelRelease};

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
            print!(
                "{}",
                BuildManifest::for_release(&KernelRelease::parse(release), version).to_toml()
            )
        }
        ["features-md"] => print!("{}", FeatureTable::builtin().to_markdown()),
        _ => {
            eprintln!(
                "usage: perf-abi abi|flavour RELEASE | perf-abi manifest RELEASE BUILD_VERSION \
                 | perf-abi features-md"
            );
            return ExitCode::from(2);
        }
    }
    ExitCode::SUCCESS
}
