// SPDX-License-Identifier: GPL-2.0-only
//! EACCES/EPERM and ENOENT that explain themselves (docs/abi.md §1.7): the paranoid
//! level, the capabilities the process has, what the attr asked for that
//! needs more, and what to change; or that the machine has no hardware PMU.

use crate::attr::Attr;

use super::environment::{cpu_pmus, Environment, Privileges};
use super::syscall::OpenArgs;

/// `PERF_TYPE_HARDWARE`.
const PERF_TYPE_HARDWARE: u32 = 0;
/// `PERF_TYPE_TRACEPOINT`.
const PERF_TYPE_TRACEPOINT: u32 = 2;
/// `PERF_TYPE_HW_CACHE`.
const PERF_TYPE_HW_CACHE: u32 = 3;
/// `exclude_kernel`.
const EXCLUDE_KERNEL: u64 = 1 << 5;
/// `PERF_SAMPLE_RAW`.
const SAMPLE_RAW: u64 = 1 << 10;

/// The hint for EACCES or EPERM from `perf_event_open`.
pub fn permission_hint(errno: i32, attr: &Attr, args: OpenArgs, env: &Environment) -> String {
    let p = Privileges::read(env);
    let level = match p.paranoid {
        Some(n) => format!("kernel.perf_event_paranoid is {n}"),
        None => format!(
            "{} is not readable (a kernel without perf events?)",
            env.paranoid.display()
        ),
    };
    let caps = match (p.perfmon, p.sys_admin) {
        (true, true) => "this process has CAP_PERFMON and CAP_SYS_ADMIN",
        (true, false) => "this process has CAP_PERFMON",
        (false, true) => "this process has CAP_SYS_ADMIN",
        (false, false) => "this process has neither CAP_PERFMON nor CAP_SYS_ADMIN",
    };
    let advice = advice(errno, attr, args, &p);
    format!("{level} and {caps}: {advice}")
}

/// What to change, for the first thing the attr asks that the level forbids.
fn advice(errno: i32, attr: &Attr, args: OpenArgs, p: &Privileges) -> String {
    let level = p.paranoid.unwrap_or(2);
    if level > 2 && !p.sys_admin {
        return format!(
            "levels above 2 come from a distribution patch (Debian, Ubuntu, Android): kernels \
             with it deny every perf_event_open without CAP_SYS_ADMIN (on Ubuntu CAP_PERFMON is \
             not enough), mainline kernels treat them as 2; \
             'sysctl kernel.perf_event_paranoid=2' restores the mainline rules{}",
            if attr.flags & EXCLUDE_KERNEL == 0 {
                ", which still need exclude_kernel=1 (':u') without CAP_PERFMON"
            } else {
                ""
            }
        );
    }
    if p.privileged() {
        return "so the paranoid level is not the cause: look for an LSM denial (SELinux, \
                AppArmor: the audit log), a seccomp filter (containers refuse perf_event_open \
                with EPERM by default), or an ftrace function event (always EPERM)"
            .into();
    }
    if attr.type_ == PERF_TYPE_TRACEPOINT && attr.sample_type & SAMPLE_RAW != 0 && level >= 0 {
        return "raw tracepoint samples (PERF_SAMPLE_RAW) need level -1 \
                ('sysctl kernel.perf_event_paranoid=-1') or CAP_PERFMON"
            .into();
    }
    if attr.flags & EXCLUDE_KERNEL == 0 && level >= 2 {
        return "at level 2 only user-space measurement is allowed: set exclude_kernel=1 (':u' \
                on the event name), or lower the level ('sysctl kernel.perf_event_paranoid=1'), \
                or grant CAP_PERFMON"
            .into();
    }
    if args.pid == -1 && level >= 1 {
        return "CPU-wide events (pid=-1) need level 0 or lower \
                ('sysctl kernel.perf_event_paranoid=0') or CAP_PERFMON; or measure a task \
                (threads=) instead"
            .into();
    }
    if args.pid > 0 && u32::try_from(args.pid).ok() != Some(std::process::id()) {
        return format!(
            "measuring another process (pid {}) needs ptrace access to it: the same user, or \
             CAP_SYS_PTRACE or CAP_PERFMON",
            args.pid
        );
    }
    let what = if errno == libc::EPERM {
        "EPERM"
    } else {
        "EACCES"
    };
    format!(
        "the level does not explain this {what}; look for an LSM denial (the audit log) or a \
         seccomp filter"
    )
}

/// The hint for ENOENT: a generic hardware event on a machine without (or
/// without that event in) a CPU PMU. `None` for other types.
pub fn enoent_hint(attr: &Attr, env: &Environment) -> Option<String> {
    // PERF_TYPE_RAW (4): raw CPU event codes need the CPU's PMU too.
    if attr.type_ != PERF_TYPE_HARDWARE && attr.type_ != PERF_TYPE_HW_CACHE && attr.type_ != 4 {
        return None;
    }
    let suggestion = "the software event 'cpu-clock' (type=PERF_TYPE_SOFTWARE, \
                      config=COUNT_SW_CPU_CLOCK) counts time instead";
    let pmus = cpu_pmus(env);
    Some(match pmus.as_slice() {
        [] => format!("no hardware PMU for this event on this machine (e.g. a VM); {suggestion}"),
        names => format!(
            "this machine's CPU PMU ({}) does not count this generic event; {suggestion}",
            names.join(", ")
        ),
    })
}
