// SPDX-License-Identifier: GPL-2.0-only
//! perf's fallbacks in perf's order: what the kernel lacks is dropped and
//! listed in `evsel__detect_missing_features()` order, and a PMU that
//! refuses `exclude_guest`/`exclude_host` (msr, power) gets them cleared
//! when they are module defaults, and named when the user asked for them.

use perf_abi::KernelVersion;

use super::tests_refused::{hint_of, Refusing};
use super::*;
use crate::attr::Attr;

/// A PMU with `PERF_PMU_CAP_NO_EXCLUDE`'s answer to the guest/host bits.
fn guest_host(attr: &Attr) -> bool {
    attr.flag("exclude_guest") == Some(1) || attr.flag("exclude_host") == Some(1)
}

fn with_guest() -> Attr {
    let mut attr = base_attr();
    attr.set_flag("exclude_guest", 1).unwrap();
    attr
}

fn guest_defaults() -> AttrBits {
    AttrBits::from_names(["exclude_guest", "exclude_host", "FLAG_FD_CLOEXEC"]).unwrap()
}

#[test]
fn default_exclude_guest_is_cleared_for_a_pmu_that_refuses_it() {
    let k = Refusing::new(guest_host, libc::EINVAL);
    let args = OpenArgs::new(0, -1);
    let opened = open_with_fallback(
        &k,
        &with_guest(),
        args,
        &guest_defaults(),
        &Policy::default(),
    )
    .unwrap();
    assert_eq!(opened.attr.flag("exclude_guest"), Some(0));
    assert_eq!(
        opened.fallbacks,
        [Fallback {
            name: "exclude_guest".into(),
            reason: FallbackReason::Pmu,
            replacement: None,
        }]
    );
    // Two calls, as perf's newest: with exclude_guest, then without; the
    // open flags (close-on-exec) are kept, unlike 6.1's guess.
    let seen = k.seen.borrow();
    let guests: Vec<_> = seen.iter().map(|a| a.flag("exclude_guest")).collect();
    assert_eq!(guests, [Some(1), Some(0)]);
    assert_eq!(opened.flags, args.flags);
}

#[test]
fn requested_exclude_guest_is_named_not_dropped() {
    let k = Refusing::new(guest_host, libc::EINVAL);
    let result = open_with_fallback(
        &k,
        &with_guest(),
        OpenArgs::new(0, -1),
        &AttrBits::NONE,
        &Policy::default(),
    );
    let (errno, hint) = hint_of(result);
    assert_eq!(errno, libc::EINVAL);
    assert_eq!(
        hint,
        "the kernel refused exclude_guest=1: the same event opens with exclude_guest=0"
    );
}

#[test]
fn strict_mode_names_a_default_exclude_guest() {
    let k = Refusing::new(guest_host, libc::EINVAL);
    let policy = Policy {
        mode: FallbackMode::Strict,
        ..Policy::default()
    };
    let result = open_with_fallback(
        &k,
        &with_guest(),
        OpenArgs::new(0, -1),
        &guest_defaults(),
        &policy,
    );
    let (errno, hint) = hint_of(result);
    assert_eq!(errno, libc::EINVAL);
    assert!(hint.contains("exclude_guest=1"), "{hint}");
}

#[test]
fn a_broken_rule_is_named_without_a_retry() {
    let k = Refusing::new(|_| true, libc::EINVAL);
    let result = open_with_fallback(
        &k,
        &with_guest(),
        OpenArgs::new(-1, -1),
        &guest_defaults(),
        &Policy::default(),
    );
    let (_, hint) = hint_of(result);
    assert!(hint.starts_with("pid=-1 with cpu=-1"), "{hint}");
    assert_eq!(k.seen.borrow().len(), 1);
}

#[test]
fn a_pmu_refusing_more_than_guest_host_still_names_the_field() {
    // exclude_guest cleared, then config3 is what the PMU refuses.
    let k = Refusing::new(|a| guest_host(a) || a.config3 != 0, libc::EINVAL);
    let mut attr = with_guest();
    attr.config3 = 5;
    let result = open_with_fallback(
        &k,
        &attr,
        OpenArgs::new(0, -1),
        &guest_defaults(),
        &Policy::default(),
    );
    let (_, hint) = hint_of(result);
    assert!(hint.contains("config3=0x5"), "{hint}");
}

#[test]
fn lacking_defaults_are_listed_in_perfs_order() {
    // 3.2 lacks mmap2 (3.12), close-on-exec (3.14), comm_exec (3.16) and
    // PERF_FORMAT_LOST (6.0): perf switches off read_lost, cloexec, mmap2
    // in that order; comm_exec is not one of perf's and comes last.
    let k = EmulatedKernel::new(KernelVersion::new(3, 2, 0));
    let mut attr = base_attr();
    for f in ["mmap2", "comm_exec"] {
        attr.set_flag(f, 1).unwrap();
    }
    attr.read_format |= 1 << 4;
    let defaults =
        AttrBits::from_names(["mmap2", "comm_exec", "FORMAT_LOST", "FLAG_FD_CLOEXEC"]).unwrap();
    let args = OpenArgs {
        flags: crate::sys::PERF_FLAG_FD_CLOEXEC,
        ..base_args()
    };
    let opened = open_with_fallback(&k, &attr, args, &defaults, &Policy::default()).unwrap();
    let names: Vec<&str> = opened.fallbacks.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["FORMAT_LOST", "FLAG_FD_CLOEXEC", "mmap2", "comm_exec"]
    );
}
