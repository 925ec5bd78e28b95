// SPDX-License-Identifier: GPL-2.0-only
//! perf's fallbacks that replace a value instead of clearing a bit
//! (`evsel__disable_missing_features()` and `evsel__precise_ip_fallback()`
//! in tools/perf/util/evsel.c, 6.1 and the newest):
//!
//! * `inherit` with `PERF_SAMPLE_READ`, refused, loses `inherit` (the
//!   newest perf's `inherit_sample_read`: Linux before 6.12, or without
//!   `PERF_SAMPLE_TID`);
//! * `PERF_SAMPLE_WEIGHT_STRUCT`, when the kernel lacks it, becomes
//!   `PERF_SAMPLE_WEIGHT` ([`replacement_of`], applied where lacking bits
//!   are dropped);
//! * a `clockid` the kernel refuses becomes `CLOCK_MONOTONIC`, then
//!   `use_clockid` is dropped (perf's `clockid_wrong`, then `clockid`);
//! * `precise_ip` is lowered one step at a time down to 0 (perf does this
//!   for `:P`, whose 3 means "the highest level that works").
//!
//! A value is replaced only when its bits are in `defaults`: a module
//! default (`:P`'s `precise_ip`), or anything under the lenient policy,
//! which passes every bit of the attr as a default. Strict mode passes
//! none, so it replaces nothing.

use perf_abi::FeatureTable;

use crate::attr::Attr;

use super::fallback::{Fallback, FallbackReason};
use super::kernel_abi::AttrBits;

/// Bit rows perf replaces by another row when the kernel lacks them.
pub const REPLACED_BITS: [(&str, &str); 1] = [("SAMPLE_WEIGHT_STRUCT", "SAMPLE_WEIGHT")];

/// `CLOCK_MONOTONIC`, the clock perf's fallback uses ("should always work").
pub const CLOCK_MONOTONIC: i32 = 1;

/// The row perf puts in place of a lacking row, if it replaces it.
pub fn replacement_of(name: &str) -> Option<&'static str> {
    REPLACED_BITS
        .iter()
        .find(|(from, _)| *from == name)
        .map(|(_, to)| *to)
}

/// True when any bit of the row `name` is in `defaults`.
fn may_replace(defaults: &AttrBits, name: &str) -> bool {
    FeatureTable::builtin()
        .get(name)
        .is_some_and(|f| defaults.get(f.kind) & f.mask() != 0)
}

fn replaced(name: String, replacement: String, reason: FallbackReason) -> Fallback {
    Fallback {
        name,
        reason,
        replacement: Some(replacement),
    }
}

/// True when the row `name` (a flag or `sample_type` bit) is set.
fn has(attr: &Attr, name: &str) -> bool {
    FeatureTable::builtin()
        .get(name)
        .is_some_and(|f| super::image::word(attr, 0, f.kind) & f.mask() != 0)
}

/// The attrs to try after an open refused with `errno` that the ABI does
/// not explain, in the order perf tries them, each with what it changed:
/// on EINVAL no `inherit` (with `PERF_SAMPLE_READ`), the clock
/// (`CLOCK_MONOTONIC`, then no `use_clockid`), then on any errno
/// `precise_ip` lowered step by step. Each is an alternative to `attr`, not
/// cumulative: the first the kernel opens is kept.
pub fn steps(attr: &Attr, errno: i32, defaults: &AttrBits) -> Vec<(Attr, Fallback)> {
    let mut out = Vec::new();
    let inherit_read = has(attr, "inherit") && has(attr, "SAMPLE_READ");
    if errno == libc::EINVAL && inherit_read && may_replace(defaults, "inherit") {
        let mut a = *attr;
        let _ = a.set_flag("inherit", 0);
        let dropped = Fallback {
            name: "inherit".into(),
            reason: FallbackReason::Kernel,
            replacement: None,
        };
        out.push((a, dropped));
    }
    let clock = attr.flag("use_clockid").unwrap_or(0) != 0;
    if errno == libc::EINVAL && clock && may_replace(defaults, "use_clockid") {
        let from = format!("clockid={}", attr.clockid);
        if attr.clockid != CLOCK_MONOTONIC {
            let mut a = *attr;
            a.clockid = CLOCK_MONOTONIC;
            let to = format!("clockid={CLOCK_MONOTONIC}");
            out.push((a, replaced(from, to, FallbackReason::Kernel)));
        }
        let mut a = *attr;
        let _ = a.set_flag("use_clockid", 0);
        a.clockid = 0;
        let dropped = Fallback {
            name: "use_clockid".into(),
            reason: FallbackReason::Kernel,
            replacement: None,
        };
        out.push((a, dropped));
    }
    let precise = attr.flag("precise_ip").unwrap_or(0);
    if precise > 0 && may_replace(defaults, "precise_ip") {
        for lower in (0..precise).rev() {
            let mut a = *attr;
            let _ = a.set_flag("precise_ip", lower);
            let fb = replaced(
                format!("precise_ip={precise}"),
                format!("precise_ip={lower}"),
                FallbackReason::Pmu,
            );
            out.push((a, fb));
        }
    }
    out
}

/// What the error for a refused request adds when perf would replace it:
/// `, which perf replaces with 'SAMPLE_WEIGHT' (set_abi_policy("lenient")
/// does too)`.
pub fn perf_would(name: &str) -> Option<String> {
    replacement_of(name).map(|to| {
        format!(", which perf replaces with '{to}' (set_abi_policy(\"lenient\") does too)")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_clock(clockid: i32) -> Attr {
        let mut attr = Attr::default();
        attr.set_flag("use_clockid", 1).unwrap();
        attr.clockid = clockid;
        attr
    }

    #[test]
    fn clock_goes_to_monotonic_then_off() {
        let all = AttrBits::of_attr(&with_clock(2), 0);
        let got: Vec<_> = steps(&with_clock(2), libc::EINVAL, &all)
            .into_iter()
            .map(|(a, f)| (a.flag("use_clockid"), a.clockid, f.name, f.replacement))
            .collect();
        assert_eq!(
            got,
            [
                (Some(1), 1, "clockid=2".into(), Some("clockid=1".into())),
                (Some(0), 0, "use_clockid".into(), None),
            ]
        );
        // CLOCK_MONOTONIC itself refused: only dropping use_clockid is left.
        assert_eq!(steps(&with_clock(1), libc::EINVAL, &all).len(), 1);
        // Not on another errno, and not for a user request.
        assert!(steps(&with_clock(2), libc::EACCES, &all).is_empty());
        assert!(steps(&with_clock(2), libc::EINVAL, &AttrBits::NONE).is_empty());
    }

    #[test]
    fn precise_ip_steps_down_to_zero() {
        let mut attr = Attr::default();
        attr.set_flag("precise_ip", 3).unwrap();
        let defaults = AttrBits::from_names(["precise_ip"]).unwrap();
        let got: Vec<_> = steps(&attr, libc::EOPNOTSUPP, &defaults)
            .into_iter()
            .map(|(a, f)| (a.flag("precise_ip"), f.replacement))
            .collect();
        assert_eq!(
            got,
            [
                (Some(2), Some("precise_ip=2".into())),
                (Some(1), Some("precise_ip=1".into())),
                (Some(0), Some("precise_ip=0".into())),
            ]
        );
        assert!(steps(&attr, libc::EINVAL, &AttrBits::NONE).is_empty());
    }

    #[test]
    fn weight_struct_becomes_weight() {
        assert_eq!(
            replacement_of("SAMPLE_WEIGHT_STRUCT"),
            Some("SAMPLE_WEIGHT")
        );
        assert_eq!(replacement_of("mmap2"), None);
        for (from, to) in REPLACED_BITS {
            let table = FeatureTable::builtin();
            assert_eq!(
                table.get(from).map(|f| f.kind),
                table.get(to).map(|f| f.kind)
            );
        }
    }
}
