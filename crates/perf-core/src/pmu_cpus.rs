// SPDX-License-Identifier: GPL-2.0-only
//! Where an uncore PMU counts: the CPUs of its `cpumask` file
//! (`/sys/bus/event_source/devices/<pmu>/cpumask`). perf opens an event of
//! such a PMU (power, the uncore units, …) on those CPUs with no task
//! (thread -1) when the user gave no CPUs, as libperf's map propagation
//! does with a PMU's own CPUs: the PMU counts per package or per die, not
//! per task, and one CPU of each is enough.

use std::path::Path;

use crate::attr::Attr;
use crate::cpumap::CpuMap;
use crate::threadmap::ThreadMap;

/// The PMU directories' parent in sysfs.
pub const DEVICES: &str = "/sys/bus/event_source/devices";

/// The `cpumask` of the PMU whose `type` is `type_` under `devices`; `None`
/// when no PMU has that type, it has no `cpumask` file, or the file is empty
/// or malformed (sysfs is kernel data: nothing here panics on it).
pub fn cpumask_in(devices: &Path, type_: u32) -> Option<CpuMap> {
    let entries = std::fs::read_dir(devices).ok()?;
    for entry in entries.flatten() {
        let dir = entry.path();
        let Ok(text) = std::fs::read_to_string(dir.join("type")) else {
            continue;
        };
        if text.trim().parse::<u32>().ok() != Some(type_) {
            continue;
        }
        let mask = std::fs::read_to_string(dir.join("cpumask")).ok()?;
        let mask = mask.trim();
        if mask.is_empty() {
            return None;
        }
        return CpuMap::parse(mask).ok().filter(|m| !m.is_any());
    }
    None
}

/// The maps an event of an uncore PMU opens on when no CPUs were given:
/// its PMU's `cpumask` CPUs and no task; `None` for other PMUs.
pub fn uncore_maps_in(devices: &Path, attr: &Attr) -> Option<(CpuMap, ThreadMap)> {
    cpumask_in(devices, attr.type_).map(|cpus| (cpus, ThreadMap::any()))
}

/// [`uncore_maps_in`] on this machine's sysfs.
pub fn uncore_maps(attr: &Attr) -> Option<(CpuMap, ThreadMap)> {
    uncore_maps_in(Path::new(DEVICES), attr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    struct Tree(PathBuf);

    impl Tree {
        fn new(tag: &str) -> Tree {
            let p = std::env::temp_dir().join(format!("pmu-cpus-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&p);
            Tree(p)
        }
        fn pmu(&self, name: &str, type_: &str, cpumask: Option<&str>) {
            let d = self.0.join(name);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("type"), type_).unwrap();
            if let Some(m) = cpumask {
                std::fs::write(d.join("cpumask"), m).unwrap();
            }
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn attr(type_: u32) -> Attr {
        Attr {
            type_,
            ..Attr::default()
        }
    }

    #[test]
    fn uncore_pmu_opens_on_its_cpumask_with_no_task() {
        let t = Tree::new("uncore");
        t.pmu("power", "23\n", Some("0,4\n"));
        t.pmu("software", "1\n", None);
        let (cpus, threads) = uncore_maps_in(&t.0, &attr(23)).unwrap();
        assert_eq!(cpus.as_slice(), [0, 4]);
        assert_eq!(threads.as_slice(), [-1]);
    }

    #[test]
    fn pmus_without_a_cpumask_keep_the_callers_maps() {
        let t = Tree::new("core");
        t.pmu("msr", "9\n", None);
        t.pmu("empty", "10\n", Some("\n"));
        t.pmu("garbage", "11\n", Some("zero-two\n"));
        t.pmu("badtype", "x\n", Some("0\n"));
        for type_ in [9, 10, 11, 12] {
            assert!(uncore_maps_in(&t.0, &attr(type_)).is_none(), "{type_}");
        }
        assert!(uncore_maps_in(Path::new("/nonexistent"), &attr(9)).is_none());
    }
}
