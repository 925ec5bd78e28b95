// SPDX-License-Identifier: GPL-2.0-only
//! The field a kernel refused, found by probing as perf does: when neither
//! the ABI nor a known rule explains an EINVAL or EOVERFLOW, the attr is
//! opened again with one field lowered at a time (`precise_ip` step by step,
//! as perf's `evsel__precise_ip_fallback()` does; the others to zero). The
//! first change the kernel accepts names the field: "the kernel refused
//! sample_max_stack=65535: the same event opens with sample_max_stack=0".
//!
//! Each probe is the caller's attr with `disabled` set, closed at once: it
//! never counts or samples. Only a failed open pays for probes (one per
//! non-zero candidate field, at most [`CANDIDATES`] plus three).

use crate::attr::Attr;
use crate::sys::OpenOutcome;

use super::breakpoint::PERF_TYPE_BREAKPOINT;
use super::syscall::{OpenArgs, PerfSyscall};

/// The fields a probe may lower, in the order they are tried: the ones that
/// carry limits first, then the PMU-specific config words, then the
/// guest/host filter bits a PMU without them refuses (msr, power), and
/// last sampling itself, which a counting-only PMU refuses (msr, power,
/// uncore PMUs: `sample_period` or `sample_freq` non-zero).
pub const CANDIDATES: [&str; 19] = [
    "sample_max_stack",
    "aux_sample_size",
    "aux_watermark",
    "sample_stack_user",
    "sample_regs_user",
    "sample_regs_intr",
    "branch_sample_type",
    "wakeup_events",
    "sig_data",
    "aux_action",
    "config",
    "config1",
    "config2",
    "config3",
    "config4",
    "clockid",
    "exclude_guest",
    "exclude_host",
    "sample_period",
];

/// The value of a candidate field (`clockid` as its bits).
fn value(attr: &Attr, name: &str) -> u64 {
    match name {
        "sample_max_stack" => u64::from(attr.sample_max_stack),
        "aux_sample_size" => u64::from(attr.aux_sample_size),
        "aux_watermark" => u64::from(attr.aux_watermark),
        "sample_stack_user" => u64::from(attr.sample_stack_user),
        "sample_regs_user" => attr.sample_regs_user,
        "sample_regs_intr" => attr.sample_regs_intr,
        "branch_sample_type" => attr.branch_sample_type,
        "wakeup_events" => u64::from(attr.wakeup_events),
        "sig_data" => attr.sig_data,
        "aux_action" => u64::from(attr.aux_action),
        "config" => attr.config,
        "config1" => attr.config1,
        "config2" => attr.config2,
        "config3" => attr.config3,
        "config4" => attr.config4,
        "clockid" => u64::from(attr.clockid as u32),
        "sample_period" => attr.sample_period,
        _ => attr.flag(name).unwrap_or(0),
    }
}

/// `config1`/`config2` are `bp_addr`/`bp_len` on a breakpoint.
fn display_name(attr: &Attr, name: &'static str) -> &'static str {
    match (attr.type_ == PERF_TYPE_BREAKPOINT, name) {
        (true, "config1") => "bp_addr",
        (true, "config2") => "bp_len",
        _ => name,
    }
}

/// `name=value`, in hex for masks and config words.
fn shown(name: &str, v: u64) -> String {
    let hex = name.starts_with("config")
        || name.starts_with("sample_regs")
        || name == "branch_sample_type"
        || name == "bp_addr";
    if hex {
        format!("{name}={v:#x}")
    } else {
        format!("{name}={v}")
    }
}

/// True when the kernel behind `sys` opens `attr` (disabled; the fd is
/// closed at once).
fn opens<S: PerfSyscall + ?Sized>(sys: &S, attr: &Attr, args: OpenArgs, size: u32) -> bool {
    let mut probe = *attr;
    probe.set_flag("disabled", 1);
    let mut bytes = probe.to_bytes(size);
    matches!(sys.open(&mut bytes, args), OpenOutcome::Fd(_))
}

/// The sentence naming the field the kernel refused, or `None` when no
/// single lowered field makes the attr open. `size` is the attr size sent.
pub fn probe_refused<S: PerfSyscall + ?Sized>(
    sys: &S,
    attr: &Attr,
    args: OpenArgs,
    size: u32,
) -> Option<String> {
    let precise = attr.flag("precise_ip").unwrap_or(0);
    for lower in (0..precise).rev() {
        let mut probe = *attr;
        probe.set_flag("precise_ip", lower);
        if opens(sys, &probe, args, size) {
            return Some(format!(
                "precise_ip={precise} is more than this event supports: it opens with \
                 precise_ip={lower}"
            ));
        }
    }
    for name in CANDIDATES {
        let v = value(attr, name);
        if v == 0 {
            continue;
        }
        let mut probe = *attr;
        match name {
            "config" => probe.config = 0,
            "sample_period" => {
                probe.sample_period = 0;
                probe.set_flag("freq", 0)?;
            }
            "exclude_guest" | "exclude_host" => probe.set_flag(name, 0)?,
            _ => probe.set_field(name, 0)?,
        }
        if opens(sys, &probe, args, size) {
            if name == "sample_period" {
                let asked = if attr.flag("freq").unwrap_or(0) != 0 {
                    "sample_freq"
                } else {
                    "sample_period"
                };
                return Some(format!(
                    "the PMU refused sampling ({asked}={v}): the same event opens counting, \
                     with sample_period=0 (read it with evsel.read)"
                ));
            }
            let shown_name = display_name(attr, name);
            return Some(format!(
                "the kernel refused {}: the same event opens with {shown_name}=0",
                shown(shown_name, v)
            ));
        }
    }
    None
}
