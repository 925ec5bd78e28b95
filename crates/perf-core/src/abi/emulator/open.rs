// SPDX-License-Identifier: GPL-2.0-only
//! The rest of `perf_event_open()` after `perf_copy_attr()`, for a machine
//! whose only PMU is the software one: permissions, sample rate, pid/cpu,
//! `perf_event_alloc()`'s checks, the software PMU's refusals, and the AUX
//! group-leader requirement.

use perf_abi::KernelVersion;

use crate::abi::syscall::OpenArgs;

use super::view::View;
use super::EmulatedKernel;

/// `PERF_TYPE_SOFTWARE`.
const PERF_TYPE_SOFTWARE: u32 = 1;
/// `PERF_FLAG_PID_CGROUP`.
const FLAG_PID_CGROUP: u64 = 1 << 2;
/// The clocks `perf_event_set_clock()` accepts: REALTIME, MONOTONIC,
/// MONOTONIC_RAW, BOOTTIME, TAI.
const CLOCKS: [u64; 5] = [0, 1, 4, 7, 11];
/// inherit + PERF_SAMPLE_READ works from here on, with PERF_SAMPLE_TID (kernel
/// commit 7e8b255650fc, "perf: Support PERF_SAMPLE_READ with inherit").
const INHERIT_SAMPLE_READ: KernelVersion = KernelVersion::new(6, 12, 0);
/// `PERF_COUNT_SW_*` values by release: the count of software
/// events from that release on.
const SOFTWARE_EVENTS: [(KernelVersion, u64); 5] = [
    (KernelVersion::new(2, 6, 31), 7),
    (KernelVersion::new(2, 6, 33), 9),
    (KernelVersion::new(3, 12, 0), 10),
    (KernelVersion::new(4, 4, 0), 11),
    (KernelVersion::new(5, 13, 0), 12),
];

/// Everything after the attr was copied; `Ok` means an fd is created.
pub(super) fn event_open(k: &EmulatedKernel, view: &View, args: OpenArgs) -> Result<(), i32> {
    check_permissions(k, view, args)?;
    check_period(k, view)?;
    check_target(k, args)?;
    check_alloc(k, view)?;
    check_software_pmu(k, view)?;
    // perf_get_aux_event(): there is no AUX-area group leader here.
    let aux_leader =
        view.field("aux_sample_size") != 0 || view.has("aux_pause") || view.has("aux_resume");
    if aux_leader {
        return Err(libc::EINVAL);
    }
    Ok(())
}

/// `perf_allow_kernel()`, `perf_allow_cpu()` and the namespaces check, for an
/// unprivileged caller.
fn check_permissions(k: &EmulatedKernel, view: &View, args: OpenArgs) -> Result<(), i32> {
    let Some(p) = k.privileges else {
        return Ok(());
    };
    if p.perfmon {
        return Ok(());
    }
    let kernel =
        !view.has("exclude_kernel") || view.has("SAMPLE_PHYS_ADDR") || view.has("SAMPLE_REGS_INTR");
    if kernel && p.paranoid > 1 {
        return Err(libc::EACCES);
    }
    if view.has("namespaces") {
        return Err(libc::EACCES);
    }
    if args.pid == -1 && args.cpu >= 0 && p.paranoid > 0 {
        return Err(libc::EACCES);
    }
    Ok(())
}

/// `sample_freq` above the sysctl, or a period with bit 63 set.
fn check_period(k: &EmulatedKernel, view: &View) -> Result<(), i32> {
    let period = view.sample_period();
    if view.has("freq") {
        if period > k.max_sample_rate {
            return Err(libc::EINVAL);
        }
    } else if period & (1 << 63) != 0 {
        return Err(libc::EINVAL);
    }
    Ok(())
}

/// pid and cpu, cgroup mode, the group leader.
fn check_target(k: &EmulatedKernel, args: OpenArgs) -> Result<(), i32> {
    let cgroup = args.flags & FLAG_PID_CGROUP != 0;
    if cgroup && (args.pid == -1 || args.cpu == -1) {
        return Err(libc::EINVAL);
    }
    if (args.pid == -1 && args.cpu == -1) || args.cpu < -1 || args.cpu >= k.nr_cpus {
        return Err(libc::EINVAL);
    }
    if cgroup || args.group_fd != -1 {
        // No cgroup or group-leader fds exist in the emulation.
        return Err(libc::EBADF);
    }
    Ok(())
}

/// `perf_event_alloc()`: inherit + PERF_SAMPLE_READ, the clock, the
/// callchain depth.
fn check_alloc(k: &EmulatedKernel, view: &View) -> Result<(), i32> {
    if view.has("inherit") && view.has("SAMPLE_READ") {
        let supported = k.version >= INHERIT_SAMPLE_READ && view.has("SAMPLE_TID");
        if !supported {
            return Err(libc::EINVAL);
        }
    }
    if view.has("use_clockid") && !CLOCKS.contains(&view.field("clockid")) {
        return Err(libc::EINVAL);
    }
    // 4.1-4.7 ignore these bytes (then __reserved_2).
    let max_stack = match k.has_field("sample_max_stack") {
        true => view.field("sample_max_stack"),
        false => 0,
    };
    if view.has("SAMPLE_CALLCHAIN") && max_stack > u64::from(k.max_stack) {
        return Err(libc::EOVERFLOW);
    }
    Ok(())
}

/// The software PMU: its configs, and what it cannot do (branch stacks, AUX).
fn check_software_pmu(k: &EmulatedKernel, view: &View) -> Result<(), i32> {
    let count = SOFTWARE_EVENTS
        .iter()
        .filter(|(since, _)| *since <= k.version)
        .map(|(_, n)| *n)
        .max()
        .unwrap_or(0);
    if view.type_() != PERF_TYPE_SOFTWARE || view.config() >= count {
        return Err(libc::ENOENT);
    }
    if view.has("SAMPLE_BRANCH_STACK") || view.has("aux_output") {
        return Err(libc::EOPNOTSUPP);
    }
    if view.has("aux_pause") && view.has("aux_resume") {
        return Err(libc::EINVAL);
    }
    if view.has("aux_start_paused") {
        return Err(libc::EOPNOTSUPP);
    }
    Ok(())
}
