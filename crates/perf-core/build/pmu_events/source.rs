// SPDX-License-Identifier: GPL-2.0-only
//! The kernel source the tables come from (perf_abi::choose_source), and its
//! tools/perf/pmu-events directory: a tree as given, or a tarball whose
//! pmu-events directory is extracted once into a cache keyed by the
//! tarball's name, size and mtime.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::UNIX_EPOCH;

/// The chosen source, `None` for a build without one.
///
/// scripts/build.sh names it in $PERF_PMU_EVENTS_SOURCE (`perf-abi
/// pmu-events-source RELEASE`), so that builds for releases of one series
/// share this crate's compilation; without it, the rule is applied here to
/// $PERF_PYTHON_TARGET_RELEASE or the build machine's release (the wheel:
/// the newest source), which cargo does not track.
pub fn chosen() -> Option<String> {
    println!(
        "cargo:rerun-if-env-changed={}",
        perf_abi::PMU_EVENTS_SOURCE_ENV
    );
    let explicit = std::env::var(perf_abi::PMU_EVENTS_SOURCE_ENV).ok();
    let target = if std::env::var_os("CARGO_FEATURE_NEWEST_PMU_EVENTS").is_some() {
        None
    } else {
        std::env::var("PERF_PYTHON_TARGET_RELEASE")
            .ok()
            .filter(|r| !r.trim().is_empty())
            .or_else(|| std::fs::read_to_string("/proc/sys/kernel/osrelease").ok())
            .and_then(|r| perf_abi::KernelVersion::from_release(r.trim()))
    };
    let available: Vec<String> = std::fs::read_dir(perf_abi::PMU_EVENTS_SOURCE_DIR)
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    perf_abi::choose_source(explicit.as_deref(), target, &available)
}

/// tools/perf/pmu-events of `source` (a tarball or a directory).
pub fn pmu_events_dir(source: &str, workspace: &Path, out_dir: &Path) -> PathBuf {
    let path = Path::new(source);
    println!("cargo:rerun-if-changed={source}");
    if path.is_dir() {
        let inner = path.join("tools/perf/pmu-events");
        return if inner.is_dir() {
            inner
        } else {
            path.to_owned()
        };
    }
    let meta = std::fs::metadata(path).unwrap_or_else(|e| panic!("{source}: {e}"));
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_secs());
    let name = path.file_name().map_or_else(
        || "source".into(),
        |n| n.to_string_lossy().replace(".tar.xz", ""),
    );
    let key = format!("{name}-{}-{mtime}", meta.len());
    // build/ of the workspace is shared by every target directory; OUT_DIR
    // when it cannot be written.
    let cache = [
        workspace.join("build/pmu-events"),
        out_dir.join("pmu-events"),
    ]
    .into_iter()
    .find(|dir| std::fs::create_dir_all(dir).is_ok())
    .unwrap_or_else(|| out_dir.to_owned());
    let done = cache.join(&key);
    if !done.join("arch").is_dir() {
        extract(path, &cache, &done);
    }
    done
}

/// Extracts `*/tools/perf/pmu-events/*` into a fresh directory renamed to
/// `done` at the end, so a concurrent or interrupted build sees all or none.
fn extract(tarball: &Path, cache: &Path, done: &Path) {
    let tmp = cache.join(format!(".tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap_or_else(|e| panic!("{}: {e}", tmp.display()));
    let status = Command::new("tar")
        .arg("-xJf")
        .arg(tarball)
        .arg("-C")
        .arg(&tmp)
        .args(["--wildcards", "*/tools/perf/pmu-events/*"])
        .status()
        .unwrap_or_else(|e| panic!("tar: {e}"));
    assert!(status.success(), "tar -xJf {}: {status}", tarball.display());
    let top = std::fs::read_dir(&tmp)
        .ok()
        .and_then(|mut d| d.next())
        .and_then(Result::ok)
        .map(|e| e.path().join("tools/perf/pmu-events"))
        .filter(|p| p.join("arch").is_dir())
        .unwrap_or_else(|| panic!("{}: no tools/perf/pmu-events/arch", tarball.display()));
    if std::fs::rename(&top, done).is_err() && !done.join("arch").is_dir() {
        panic!("cannot move {} to {}", top.display(), done.display());
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
