// SPDX-License-Identifier: GPL-2.0-only
//! Finding tracefs: `/sys/kernel/tracing`, then the debugfs automount at
//! `/sys/kernel/debug/tracing`, then any tracefs in `/proc/mounts`, and as
//! a last resort mounting it at `/sys/kernel/tracing` (libapi's
//! `tracefs__mount()` does the same).
//!
//! Everything but [`locate_or_mount`] takes the paths it looks at, so tests
//! can point it at a fake tree.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Where tracefs usually is, in the order tried.
pub const KNOWN_MOUNTPOINTS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// True if `dir` looks like a mounted tracefs: it has an `events/` directory.
pub fn is_tracefs(dir: &Path) -> bool {
    dir.join("events").is_dir()
}

/// The first of [`KNOWN_MOUNTPOINTS`] under `sysroot` (`/` on a real
/// system) that [`is_tracefs`].
pub fn find_known(sysroot: &Path) -> Option<PathBuf> {
    KNOWN_MOUNTPOINTS
        .iter()
        .map(|m| sysroot.join(m.trim_start_matches('/')))
        .find(|p| is_tracefs(p))
}

/// The mount points of type `tracefs` in the text of `/proc/mounts`, with
/// the kernel's octal escapes (`\040` for a space…) decoded.
pub fn tracefs_mountpoints(proc_mounts: &str) -> Vec<PathBuf> {
    proc_mounts
        .lines()
        .filter_map(|line| {
            let mut cols = line.split_ascii_whitespace();
            let (_dev, dir, fstype) = (cols.next()?, cols.next()?, cols.next()?);
            (fstype == "tracefs").then(|| unescape_mount_path(dir))
        })
        .collect()
}

/// Undoes the `\ooo` escapes `/proc/mounts` uses for space, tab, newline
/// and backslash.
fn unescape_mount_path(s: &str) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        let octal = b
            .get(i + 1..i + 4)
            .filter(|d| c == b'\\' && d.iter().all(|x| (b'0'..=b'7').contains(x)));
        match octal.map(|d| d.iter().fold(0u32, |v, x| v * 8 + u32::from(x - b'0'))) {
            Some(v) if v <= 0xff => {
                out.push(v as u8);
                i += 4;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    PathBuf::from(std::ffi::OsString::from_vec(out))
}

/// tracefs on this system, without mounting anything: a known mount point,
/// else a tracefs listed in `/proc/mounts`.
pub fn locate() -> Option<PathBuf> {
    find_known(Path::new("/")).or_else(|| {
        let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
        tracefs_mountpoints(&mounts)
            .into_iter()
            .find(|p| is_tracefs(p))
    })
}

/// [`locate`], else `mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)`.
///
/// # Errors
/// [`Error::Sys`] with the errno of the failed `mount` (`EPERM` when not
/// root, `ENOENT` when the kernel has no `/sys/kernel/tracing`, `ENODEV`
/// without tracefs support); [`Error::Malformed`] if the mount succeeded but
/// has no `events/` directory.
pub fn locate_or_mount() -> Result<PathBuf> {
    if let Some(found) = locate() {
        return Ok(found);
    }
    let target = Path::new(KNOWN_MOUNTPOINTS[0]);
    let mounted = nix::mount::mount(
        Some("nodev"),
        target,
        Some("tracefs"),
        nix::mount::MsFlags::empty(),
        None::<&str>,
    );
    match mounted {
        // EBUSY: someone mounted it meanwhile.
        Ok(()) | Err(nix::errno::Errno::EBUSY) if is_tracefs(target) => Ok(target.to_path_buf()),
        Ok(()) | Err(nix::errno::Errno::EBUSY) => Err(Error::Malformed {
            what: "tracefs",
            detail: format!("{} has no events/ directory", target.display()),
        }),
        Err(errno) => Err(Error::Sys {
            op: "mount tracefs",
            errno: errno as i32,
            hint: Some(format!("mounting tracefs at {}", target.display())),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(paths: &[&str]) -> crate::tracefs::testutil::TempTree {
        let t = crate::tracefs::testutil::TempTree::new("mount");
        for p in paths {
            std::fs::create_dir_all(t.path().join(p)).ok();
        }
        t
    }

    #[test]
    fn prefers_sys_kernel_tracing() {
        let t = tree(&[
            "sys/kernel/tracing/events",
            "sys/kernel/debug/tracing/events",
        ]);
        assert_eq!(
            find_known(t.path()),
            Some(t.path().join("sys/kernel/tracing"))
        );
    }

    #[test]
    fn falls_back_to_debugfs_and_needs_events() {
        // An empty /sys/kernel/tracing (tracefs not mounted there) is skipped.
        let t = tree(&["sys/kernel/tracing", "sys/kernel/debug/tracing/events"]);
        assert_eq!(
            find_known(t.path()),
            Some(t.path().join("sys/kernel/debug/tracing"))
        );
        let none = tree(&["sys/kernel/tracing", "sys/kernel/debug"]);
        assert_eq!(find_known(none.path()), None);
    }

    #[test]
    fn proc_mounts_parsing() {
        let text = "sysfs /sys sysfs rw 0 0\n\
                    nodev /sys/kernel/tracing tracefs rw,relatime 0 0\n\
                    tracefs /mnt/my\\040trace tracefs rw 0 0\n\
                    debugfs /sys/kernel/debug debugfs rw 0 0\n\
                    short line\n";
        assert_eq!(
            tracefs_mountpoints(text),
            [
                PathBuf::from("/sys/kernel/tracing"),
                PathBuf::from("/mnt/my trace")
            ]
        );
        assert_eq!(unescape_mount_path("a\\134b\\0"), PathBuf::from("a\\b\\0"));
    }

    #[test]
    fn this_machine_has_tracefs() {
        // The test VM has tracefs mounted at /sys/kernel/tracing (preamble).
        let Some(found) = locate() else {
            eprintln!("skipped: tracefs is not mounted on this machine");
            return;
        };
        assert!(found.join("events/sched").is_dir(), "{}", found.display());
    }
}
