// SPDX-License-Identifier: GPL-2.0-only
//! Which kernel source tree a build takes perf's pmu-events tables from
//! (`tools/perf/pmu-events/arch`): the rule, with the I/O left to callers
//! (the build script and the `perf-abi` binary list the directory).

use crate::version::KernelVersion;

/// Environment variable naming the source explicitly: a `linux-source-*`
/// tarball, an unpacked kernel tree, or `none` (tables of the common
/// software metrics only).
pub const PMU_EVENTS_SOURCE_ENV: &str = "PERF_PMU_EVENTS_SOURCE";

/// Where Debian's `linux-source-X.Y` packages put their tarballs.
pub const PMU_EVENTS_SOURCE_DIR: &str = "/usr/src";

/// The series of a Debian source tarball's file name:
/// `linux-source-6.12.tar.xz` → `(6, 12)`.
pub fn source_series(file_name: &str) -> Option<(u32, u32)> {
    let series = file_name
        .strip_prefix("linux-source-")?
        .strip_suffix(".tar.xz")?;
    let (major, minor) = series.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// The source of a build's tables.
///
/// * `explicit`: the value of [`PMU_EVENTS_SOURCE_ENV`], if set and not
///   empty: `none` means no source, anything else is used as given.
/// * `target`: the kernel version the build targets (`None`: the wheel, or a
///   release without a version).
/// * `available`: file names found in [`PMU_EVENTS_SOURCE_DIR`].
///
/// The tarball of the target's own series when there is one, else the
/// newest series available; `None` when nothing is.
pub fn choose_source(
    explicit: Option<&str>,
    target: Option<KernelVersion>,
    available: &[String],
) -> Option<String> {
    if let Some(explicit) = explicit.map(str::trim).filter(|s| !s.is_empty()) {
        return (explicit != "none").then(|| explicit.to_owned());
    }
    let mut series: Vec<((u32, u32), &String)> = available
        .iter()
        .filter_map(|name| source_series(name).map(|s| (s, name)))
        .collect();
    series.sort();
    let own = target.and_then(|t| {
        series
            .iter()
            .find(|(s, _)| *s == (t.major, t.minor))
            .map(|(_, name)| *name)
    });
    own.or_else(|| series.last().map(|(_, name)| *name))
        .map(|name| format!("{PMU_EVENTS_SOURCE_DIR}/{name}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn avail() -> Vec<String> {
        [
            "linux-source-6.12.tar.xz",
            "README",
            "linux-source-6.1.tar.xz",
        ]
        .map(str::to_owned)
        .to_vec()
    }

    #[test]
    fn series_of_names() {
        assert_eq!(source_series("linux-source-6.1.tar.xz"), Some((6, 1)));
        assert_eq!(source_series("linux-source-6.12.tar.bz2"), None);
        assert_eq!(source_series("linux-headers-6.1.tar.xz"), None);
    }

    #[test]
    fn own_series_else_newest() {
        let v = |s| KernelVersion::from_release(s);
        assert_eq!(
            choose_source(None, v("6.1.0-40-amd64"), &avail()).as_deref(),
            Some("/usr/src/linux-source-6.1.tar.xz")
        );
        for newer in ["6.12.57+deb13-amd64", "7.3.0", "5.10.0-30-amd64"] {
            assert_eq!(
                choose_source(None, v(newer), &avail()).as_deref(),
                Some("/usr/src/linux-source-6.12.tar.xz")
            );
        }
        assert_eq!(
            choose_source(None, None, &avail()).as_deref(),
            Some("/usr/src/linux-source-6.12.tar.xz")
        );
        assert_eq!(choose_source(None, v("6.1.0"), &[]), None);
    }

    #[test]
    fn explicit_wins() {
        assert_eq!(choose_source(Some("none"), None, &avail()), None);
        assert_eq!(
            choose_source(Some("/src/linux"), None, &avail()).as_deref(),
            Some("/src/linux")
        );
        assert_eq!(
            choose_source(Some(""), None, &avail()).as_deref(),
            Some("/usr/src/linux-source-6.12.tar.xz")
        );
    }
}
