// SPDX-License-Identifier: GPL-2.0-only
//! The CPU identifier perf matches against mapfile.csv (`get_cpuid_str()`):
//! `$PERF_CPUID` when set, else x86's `vendor-family-MODEL-STEPPING`
//! (`GenuineIntel-6-8F-8`, from /proc/cpuinfo), arm64's MIDR
//! (`0x00000000410fd0c0`, from sysfs) or powerpc's PVR (`0x004e1202`, from
//! /proc/cpuinfo's `pvr`).

/// perf's override of the CPU identifier.
pub const PERF_CPUID_ENV: &str = "PERF_CPUID";

/// The identifier of this CPU (or `$PERF_CPUID`); `None` when it cannot be
/// read.
pub fn cpuid() -> Option<String> {
    if let Some(id) = std::env::var(PERF_CPUID_ENV).ok().filter(|s| !s.is_empty()) {
        return Some(id);
    }
    host_cpuid()
}

#[cfg(any(target_arch = "x86_64", target_arch = "x86"))]
fn host_cpuid() -> Option<String> {
    x86_cpuid(&std::fs::read_to_string("/proc/cpuinfo").ok()?)
}

#[cfg(target_arch = "aarch64")]
fn host_cpuid() -> Option<String> {
    // perf reads the MIDR of the first CPU of the core PMU.
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online").ok()?;
    let cpu: u32 = online.trim().split([',', '-']).next()?.parse().ok()?;
    let path = format!("/sys/devices/system/cpu/cpu{cpu}/regs/identification/midr_el1");
    let midr = std::fs::read_to_string(path).ok()?;
    let v = u64::from_str_radix(midr.trim().trim_start_matches("0x"), 16).ok()?;
    Some(format!("0x{v:016x}"))
}

#[cfg(any(target_arch = "powerpc64", target_arch = "powerpc"))]
fn host_cpuid() -> Option<String> {
    pvr_cpuid(&std::fs::read_to_string("/proc/cpuinfo").ok()?)
}

#[cfg(not(any(
    target_arch = "x86_64",
    target_arch = "x86",
    target_arch = "aarch64",
    target_arch = "powerpc64",
    target_arch = "powerpc"
)))]
fn host_cpuid() -> Option<String> {
    None
}

/// `vendor-family-MODEL-STEPPING` from the first processor of /proc/cpuinfo
/// (family in decimal, model and stepping in upper-case hex: perf's
/// `"%s-%u-%X-%X"` of the CPUID leaves, which the kernel shows decoded).
pub fn x86_cpuid(cpuinfo: &str) -> Option<String> {
    let first = cpuinfo.split("\n\n").next()?;
    let field = |name: &str| {
        first.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name).then(|| v.trim().to_owned())
        })
    };
    let vendor = field("vendor_id")?;
    let family: u32 = field("cpu family")?.parse().ok()?;
    let model: u32 = field("model")?.parse().ok()?;
    let stepping: u32 = field("stepping")?.parse().ok()?;
    Some(format!("{vendor}-{family}-{model:X}-{stepping:X}"))
}

/// `0x%.8lx` of the PVR, from a `revision : 2.2 (pvr 004e 1202)` line.
pub fn pvr_cpuid(cpuinfo: &str) -> Option<String> {
    let line = cpuinfo.lines().find(|l| l.contains("(pvr "))?;
    let pvr = line.split("(pvr ").nth(1)?.trim_end_matches(')');
    let hex: String = pvr.split_whitespace().collect();
    let v = u32::from_str_radix(&hex, 16).ok()?;
    Some(format!("0x{v:08x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x86_from_cpuinfo() {
        let info = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 143\n\
                    model name\t: Intel(R) Xeon(R)\nstepping\t: 8\n\nprocessor\t: 1\n";
        assert_eq!(x86_cpuid(info).as_deref(), Some("GenuineIntel-6-8F-8"));
        let amd = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nstepping\t: 1\n";
        assert_eq!(x86_cpuid(amd).as_deref(), Some("AuthenticAMD-25-1-1"));
        assert_eq!(x86_cpuid("vendor_id: x\n"), None);
    }

    #[test]
    fn pvr_from_cpuinfo() {
        let info = "processor\t: 0\ncpu\t\t: POWER9\nrevision\t: 2.2 (pvr 004e 1202)\n";
        assert_eq!(pvr_cpuid(info).as_deref(), Some("0x004e1202"));
    }
}
