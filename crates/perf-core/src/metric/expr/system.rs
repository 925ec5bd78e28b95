// SPDX-License-Identifier: GPL-2.0-only
//! The running system's literals, read as perf reads them: tool_pmu.c's
//! `tool_pmu__read_event()` (topology from cputopo.c over the online CPUs,
//! smt.c, the TSC frequency), `expr__has_event()` through this crate's
//! event parser, and perf's CPU id (`pmu_events::cpuid()`, which
//! `$PERF_CPUID` overrides). Values are read once per context.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::OnceLock;

use super::context::Context;
use crate::cpumap::CpuMap;

/// The running system, seen by a session that counts system-wide or on
/// a user's CPU list (perf's `#target_cpu`, `#core_wide`).
#[derive(Debug, Default)]
pub struct SystemContext {
    /// Counting every CPU (`-a`).
    pub system_wide: bool,
    /// The CPUs the user asked for (`-C`), if any.
    pub user_requested_cpu_list: Option<String>,
    sysfs: Option<PathBuf>,
    topology: OnceLock<Topology>,
    cpuid: OnceLock<Option<String>>,
}

#[derive(Debug, Default)]
struct Topology {
    online: Vec<i32>,
    cores: BTreeSet<String>,
    dies: BTreeSet<String>,
    packages: BTreeSet<String>,
    max_present: Option<i32>,
}

/// What a sysfs or procfs text file may hold here.
const CAP: u64 = 1 << 20;

impl SystemContext {
    /// The running system.
    pub fn new(system_wide: bool, user_requested_cpu_list: Option<String>) -> Self {
        SystemContext {
            system_wide,
            user_requested_cpu_list,
            ..Self::default()
        }
    }

    fn sysfs(&self) -> PathBuf {
        self.sysfs.clone().unwrap_or_else(|| PathBuf::from("/sys"))
    }

    fn read(&self, rel: &str) -> Option<String> {
        let bytes = crate::regular_file::read_capped(&self.sysfs().join(rel), CAP).ok()?;
        Some(String::from_utf8_lossy(&bytes).trim().to_owned())
    }

    fn topology(&self) -> &Topology {
        self.topology.get_or_init(|| {
            let online = CpuMap::online_in(&self.sysfs())
                .map(|m| m.as_slice().to_vec())
                .unwrap_or_default();
            let mut t = Topology::default();
            for &cpu in &online {
                let dir = format!("devices/system/cpu/cpu{cpu}/topology");
                let first = |a: &str, b: &str| {
                    self.read(&format!("{dir}/{a}"))
                        .or_else(|| self.read(&format!("{dir}/{b}")))
                };
                if let Some(s) = first("core_cpus_list", "thread_siblings_list") {
                    t.cores.insert(s);
                }
                if let Some(s) = self.read(&format!("{dir}/die_cpus_list")) {
                    t.dies.insert(s);
                }
                if let Some(s) = first("package_cpus_list", "core_siblings_list") {
                    t.packages.insert(s);
                }
            }
            t.max_present = self
                .read("devices/system/cpu/present")
                .and_then(|s| CpuMap::parse(&s).ok())
                .and_then(|m| m.as_slice().iter().max().copied());
            t.online = online;
            t
        })
    }

    fn smt_on(&self) -> bool {
        match self.read("devices/system/cpu/smt/active") {
            Some(v) => v == "1",
            None => self
                .topology()
                .cores
                .iter()
                .any(|c| c.contains(',') || c.contains('-')),
        }
    }

    /// perf's `core_wide()`: every SMT sibling of a counted CPU is counted.
    fn core_wide(&self) -> bool {
        if !self.system_wide {
            return false;
        }
        if !self.smt_on() {
            return true;
        }
        let Some(list) = &self.user_requested_cpu_list else {
            return true;
        };
        let Ok(user) = CpuMap::parse(list) else {
            return false;
        };
        self.topology().cores.iter().all(|core| {
            CpuMap::parse(core).is_ok_and(|c| {
                let n = c
                    .as_slice()
                    .iter()
                    .filter(|&&x| user.index_of(x).is_some())
                    .count();
                n == 0 || n == c.len()
            })
        })
    }

    /// x86's `arch_get_tsc_freq()`: Intel parts name it in the model
    /// name (`@ 2.10GHz`); 0 elsewhere.
    fn tsc_freq(&self) -> f64 {
        let Ok(bytes) =
            crate::regular_file::read_capped(std::path::Path::new("/proc/cpuinfo"), CAP)
        else {
            return 0.0;
        };
        let text = String::from_utf8_lossy(&bytes);
        if !cfg!(any(target_arch = "x86", target_arch = "x86_64"))
            || cpuinfo_field(&text, "vendor_id") != Some("GenuineIntel")
        {
            return 0.0;
        }
        cpuinfo_field(&text, "model name")
            .and_then(|m| m.rsplit_once('@'))
            .and_then(|(_, f)| f.trim().strip_suffix("GHz"))
            .and_then(|f| f.trim().parse::<f64>().ok())
            .map_or(0.0, |ghz| (ghz * 1e9).round())
    }
}

fn cpuinfo_field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim())
    })
}

impl Context for SystemContext {
    fn literal(&self, name: &str) -> Option<f64> {
        let t = || self.topology();
        #[allow(clippy::cast_precision_loss)]
        let count = |n: usize| n as f64;
        Some(match name.to_ascii_lowercase().as_str() {
            "has_pmem" => f64::from(u8::from(
                self.sysfs().join("firmware/acpi/tables/NFIT").exists(),
            )),
            "num_cores" => count(t().cores.len()),
            "num_cpus" => f64::from(t().max_present? + 1),
            "num_cpus_online" => count(t().online.len()),
            "num_dies" => count(t().dies.len()),
            "num_packages" => count(t().packages.len()),
            "smt_on" => f64::from(u8::from(self.smt_on())),
            "system_tsc_freq" => self.tsc_freq(),
            "core_wide" => f64::from(u8::from(self.core_wide())),
            "target_cpu" => f64::from(u8::from(
                self.system_wide || self.user_requested_cpu_list.is_some(),
            )),
            // `slots` is arm64's; the time events are counters, not literals.
            _ => return None,
        })
    }

    fn has_event(&self, event: &str) -> bool {
        crate::parse_events::parse_events(event).is_ok()
    }

    fn nmi_watchdog(&self) -> bool {
        crate::regular_file::read_capped(std::path::Path::new("/proc/sys/kernel/nmi_watchdog"), 64)
            .is_ok_and(|b| String::from_utf8_lossy(&b).trim() == "1")
    }

    fn cpuid(&self) -> Option<String> {
        self.cpuid.get_or_init(crate::pmu_events::cpuid).clone()
    }
}
