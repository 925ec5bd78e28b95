// SPDX-License-Identifier: GPL-2.0-only
//! EINVAL from a kernel that knows every bit of the attr: the consistency
//! rules of `perf_copy_attr()` and `perf_event_open()` that an attr (or the
//! pid/cpu pair) broke, each named in one sentence (docs/abi.md §1.6); and
//! EOVERFLOW, the call-chain depth limit.

use perf_abi::{FeatureTable, KernelVersion};

use crate::attr::Attr;

use super::environment::{read_number, Environment};
use super::image;
use super::syscall::OpenArgs;

/// `PERF_FLAG_PID_CGROUP`.
const FLAG_PID_CGROUP: u64 = 1 << 2;
/// `PERF_SAMPLE_BRANCH_PLM_ALL`.
const BRANCH_PLM_ALL: u64 = 0b111;
/// The clocks the kernel accepts for `use_clockid`.
const CLOCKS: [(i32, &str); 5] = [
    (0, "CLOCK_REALTIME"),
    (1, "CLOCK_MONOTONIC"),
    (4, "CLOCK_MONOTONIC_RAW"),
    (7, "CLOCK_BOOTTIME"),
    (11, "CLOCK_TAI"),
];
/// inherit + PERF_SAMPLE_READ (with PERF_SAMPLE_TID) from here on.
const INHERIT_SAMPLE_READ: KernelVersion = KernelVersion::new(6, 12, 0);

/// True when a bit row (flag, sample_type, …) is set in the attr.
fn has(attr: &Attr, name: &str) -> bool {
    FeatureTable::builtin()
        .get(name)
        .is_some_and(|f| image::word(attr, 0, f.kind) & f.mask() != 0)
}

/// The first broken rule, as a sentence; `None` when none applies.
pub fn explain_einval(
    attr: &Attr,
    args: OpenArgs,
    kernel: Option<KernelVersion>,
    env: &Environment,
) -> Option<String> {
    target_rule(attr, args)
        .or_else(|| cpu_rule(args, env))
        .or_else(|| flag_rule(attr))
        .or_else(|| sample_rule(attr, kernel))
        .or_else(|| period_rule(attr, env))
        .or_else(|| aux_rule(attr, args))
}

/// A CPU number the machine does not have (the kernel says only EINVAL).
fn cpu_rule(args: OpenArgs, env: &Environment) -> Option<String> {
    if args.cpu < 0
        || !env.cpu_dir.is_dir()
        || env.cpu_dir.join(format!("cpu{}", args.cpu)).exists()
    {
        return None;
    }
    let online = std::fs::read_to_string(env.cpu_dir.join("online")).unwrap_or_default();
    Some(format!(
        "CPU {} does not exist on this machine (online CPUs: {})",
        args.cpu,
        online.trim()
    ))
}

/// pid/cpu, cgroup mode, group members.
fn target_rule(attr: &Attr, args: OpenArgs) -> Option<String> {
    if args.pid == -1 && args.cpu == -1 {
        return Some(
            "pid=-1 with cpu=-1 names neither a task nor a CPU: give threads= (a task) or \
             cpus= (a CPU) to open()"
                .into(),
        );
    }
    if args.flags & FLAG_PID_CGROUP != 0 && (args.pid == -1 || args.cpu == -1) {
        return Some("PERF_FLAG_PID_CGROUP needs a cgroup fd as pid and a CPU".into());
    }
    if args.group_fd != -1 && (has(attr, "pinned") || has(attr, "exclusive")) {
        return Some("'pinned' and 'exclusive' apply only to a group leader".into());
    }
    None
}

/// Flag combinations `perf_copy_attr()` refuses (5.13).
fn flag_rule(attr: &Attr) -> Option<String> {
    let rules = [
        (
            has(attr, "sigtrap") && !has(attr, "remove_on_exec"),
            "'sigtrap' needs 'remove_on_exec'",
        ),
        (
            has(attr, "inherit_thread") && !has(attr, "inherit"),
            "'inherit_thread' needs 'inherit'",
        ),
        (
            has(attr, "remove_on_exec") && has(attr, "enable_on_exec"),
            "'remove_on_exec' and 'enable_on_exec' exclude each other",
        ),
    ];
    rules.iter().find(|(hit, _)| *hit).map(|(_, s)| (*s).into())
}

/// sample_type combinations and the fields they need.
fn sample_rule(attr: &Attr, kernel: Option<KernelVersion>) -> Option<String> {
    if has(attr, "SAMPLE_WEIGHT") && has(attr, "SAMPLE_WEIGHT_STRUCT") {
        return Some("PERF_SAMPLE_WEIGHT and PERF_SAMPLE_WEIGHT_STRUCT exclude each other".into());
    }
    if has(attr, "SAMPLE_BRANCH_STACK") && attr.branch_sample_type & !BRANCH_PLM_ALL == 0 {
        return Some(
            "PERF_SAMPLE_BRANCH_STACK needs a branch type in branch_sample_type (e.g. \
             PERF_SAMPLE_BRANCH_ANY), not only privilege bits"
                .into(),
        );
    }
    if has(attr, "SAMPLE_REGS_USER") && attr.sample_regs_user == 0 {
        return Some("PERF_SAMPLE_REGS_USER needs registers in sample_regs_user".into());
    }
    if has(attr, "SAMPLE_REGS_INTR") && attr.sample_regs_intr == 0 {
        return Some("PERF_SAMPLE_REGS_INTR needs registers in sample_regs_intr".into());
    }
    let stack = attr.sample_stack_user;
    if has(attr, "SAMPLE_STACK_USER") && (stack >= 0xffff || stack % 8 != 0) {
        return Some(format!(
            "sample_stack_user={stack}: it must be a multiple of 8 below 65535"
        ));
    }
    if has(attr, "inherit") && has(attr, "SAMPLE_READ") {
        let why = match kernel {
            Some(v) if v < INHERIT_SAMPLE_READ => {
                format!("'inherit' with PERF_SAMPLE_READ needs Linux 6.12 (this kernel is {v})")
            }
            _ if !has(attr, "SAMPLE_TID") => {
                "'inherit' with PERF_SAMPLE_READ also needs PERF_SAMPLE_TID".into()
            }
            _ => return None,
        };
        return Some(format!(
            "{why}; perf's fallback drops 'inherit', as set_abi_policy(\"lenient\") does"
        ));
    }
    None
}

/// The clock and the sampling period or frequency.
fn period_rule(attr: &Attr, env: &Environment) -> Option<String> {
    if has(attr, "use_clockid") && !CLOCKS.iter().any(|(id, _)| *id == attr.clockid) {
        let names: Vec<String> = CLOCKS.iter().map(|(id, n)| format!("{n} ({id})")).collect();
        return Some(format!(
            "clockid={} is not a clock perf accepts: {}; perf's fallback retries with \
             CLOCK_MONOTONIC (1) only to report a wrong clockid, set_abi_policy(\"lenient\") \
             opens the event with it",
            attr.clockid,
            names.join(", ")
        ));
    }
    if has(attr, "freq") {
        let max = read_number(&env.max_sample_rate)?;
        if i64::try_from(attr.sample_period).map_or(true, |f| f > max) {
            return Some(format!(
                "sample_freq={} is above kernel.perf_event_max_sample_rate ({max})",
                attr.sample_period
            ));
        }
    } else if attr.sample_period & (1 << 63) != 0 {
        return Some(format!("sample_period={} is too large", attr.sample_period));
    }
    None
}

/// The AUX-area fields, which need an AUX event (e.g. intel_pt) as leader.
fn aux_rule(attr: &Attr, args: OpenArgs) -> Option<String> {
    if has(attr, "aux_pause") && has(attr, "aux_resume") {
        return Some("'aux_pause' and 'aux_resume' exclude each other".into());
    }
    let size = attr.aux_sample_size;
    let wants_leader = [
        (format!("aux_sample_size={size}"), size != 0),
        ("'aux_pause'".into(), has(attr, "aux_pause")),
        ("'aux_resume'".into(), has(attr, "aux_resume")),
    ];
    let (name, _) = wants_leader.iter().find(|(_, hit)| *hit)?;
    let leader = match args.group_fd {
        -1 => "it has no group leader",
        _ => "is its group leader one?",
    };
    Some(format!(
        "{name} needs an AUX-area event (e.g. intel_pt) as group leader; {leader}"
    ))
}

/// EOVERFLOW: a call chain deeper than `kernel.perf_event_max_stack` (read
/// from `/proc`, as perf's hint for callchain ENOMEM does).
pub fn explain_eoverflow(attr: &Attr, env: &Environment) -> Option<String> {
    let depth = attr.sample_max_stack;
    if !has(attr, "SAMPLE_CALLCHAIN") || depth == 0 {
        return None;
    }
    let limit = match read_number(&env.max_stack) {
        Some(max) if i64::from(depth) <= max => return None,
        Some(max) => format!("kernel.perf_event_max_stack ({max})"),
        None => "kernel.perf_event_max_stack".to_owned(),
    };
    Some(format!(
        "sample_max_stack={depth} is above {limit}: ask for fewer frames, or raise the \
         limit ('sysctl kernel.perf_event_max_stack={depth}')"
    ))
}
