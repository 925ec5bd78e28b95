// SPDX-License-Identifier: GPL-2.0-only
//! The files the error explanations read, as paths so tests can point them
//! elsewhere: the paranoid level, the process's capabilities, the PMUs, the
//! sample-rate and call-chain depth limits.

use std::path::PathBuf;

/// `CAP_SYS_ADMIN`.
pub const CAP_SYS_ADMIN: u32 = 21;
/// `CAP_PERFMON` (Linux 5.8).
pub const CAP_PERFMON: u32 = 38;

/// Where to read the machine's perf settings from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// `/proc/sys/kernel/perf_event_paranoid`.
    pub paranoid: PathBuf,
    /// `/proc/self/status` (its `CapEff:` line).
    pub proc_status: PathBuf,
    /// `/sys/bus/event_source/devices` (one directory per PMU, each with a
    /// `type` file).
    pub event_source: PathBuf,
    /// `/proc/sys/kernel/perf_event_max_sample_rate`.
    pub max_sample_rate: PathBuf,
    /// `/proc/sys/kernel/perf_event_max_stack`.
    pub max_stack: PathBuf,
    /// `/sys/devices/system/cpu` (one `cpuN` directory per possible CPU).
    pub cpu_dir: PathBuf,
}

impl Default for Environment {
    fn default() -> Self {
        Environment {
            paranoid: "/proc/sys/kernel/perf_event_paranoid".into(),
            proc_status: "/proc/self/status".into(),
            event_source: "/sys/bus/event_source/devices".into(),
            max_sample_rate: "/proc/sys/kernel/perf_event_max_sample_rate".into(),
            max_stack: "/proc/sys/kernel/perf_event_max_stack".into(),
            cpu_dir: "/sys/devices/system/cpu".into(),
        }
    }
}

/// What the process may do, as far as perf is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Privileges {
    /// `kernel.perf_event_paranoid`, if readable.
    pub paranoid: Option<i32>,
    /// CAP_PERFMON is effective.
    pub perfmon: bool,
    /// CAP_SYS_ADMIN is effective.
    pub sys_admin: bool,
}

impl Privileges {
    /// Reads the paranoid level and the effective capabilities.
    pub fn read(env: &Environment) -> Self {
        let caps = std::fs::read_to_string(&env.proc_status)
            .ok()
            .and_then(|s| cap_eff(&s))
            .unwrap_or(0);
        Privileges {
            paranoid: read_number(&env.paranoid).and_then(|n| i32::try_from(n).ok()),
            perfmon: caps & (1 << CAP_PERFMON) != 0,
            sys_admin: caps & (1 << CAP_SYS_ADMIN) != 0,
        }
    }

    /// CAP_PERFMON or CAP_SYS_ADMIN: the paranoid levels do not apply.
    pub fn privileged(&self) -> bool {
        self.perfmon || self.sys_admin
    }
}

/// The `CapEff:` mask of a `/proc/<pid>/status` text.
pub fn cap_eff(status: &str) -> Option<u64> {
    let line = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
    u64::from_str_radix(line.trim(), 16).ok()
}

/// A file holding one integer.
pub fn read_number(path: &std::path::Path) -> Option<i64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// The PMUs whose `type` is `PERF_TYPE_RAW` (4): the CPU's own PMU (`cpu`,
/// `cpu_core`, `armv8_pmuv3_0`, …). Empty on a VM without a virtual PMU.
pub fn cpu_pmus(env: &Environment) -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(&env.event_source) else {
        return Vec::new();
    };
    let mut out: Vec<String> = dir
        .flatten()
        .filter(|e| read_number(&e.path().join("type")) == Some(4))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cap_eff_parses_the_status_line() {
        let status = "Name:\tx\nCapInh:\t0000000000000000\nCapEff:\t000001fffeffffff\n";
        let caps = cap_eff(status).unwrap();
        assert!(caps & (1 << CAP_PERFMON) != 0);
        assert!(caps & (1 << CAP_SYS_ADMIN) != 0);
        let perfmon_only = format!("CapEff:\t{:016x}\n", 1u64 << CAP_PERFMON);
        assert_eq!(cap_eff(&perfmon_only), Some(1 << 38));
        assert_eq!(cap_eff("Name: x\n"), None);
        assert_eq!(cap_eff("CapEff:\tzz\n"), None);
    }
}
