// SPDX-License-Identifier: GPL-2.0-only
//! perf's value-replacing fallbacks (`replacing`): `PERF_SAMPLE_WEIGHT_STRUCT`
//! → `PERF_SAMPLE_WEIGHT` on a kernel without it (emulated 5.10), a refused
//! clock → `CLOCK_MONOTONIC` → no `use_clockid` (emulated, and the emulator's
//! clocks checked against the running kernel), `precise_ip` lowered step by
//! step for `:P` (a PMU refusing the higher levels). Replacements of user
//! values happen under the lenient policy only; strict replaces nothing.

use std::cell::RefCell;

use perf_abi::KernelVersion;

use super::tests_refused::{hint_of, Refusing};
use super::*;
use crate::attr::{Attr, AttrBytes};
use crate::endian::Endian;
use crate::sys::OpenOutcome;

/// An emulated release that records every attr it is asked to open.
struct Recording {
    inner: EmulatedKernel,
    seen: RefCell<Vec<Attr>>,
}

impl Recording {
    fn new(major: u32, minor: u32) -> Self {
        Recording {
            inner: EmulatedKernel::new(KernelVersion::new(major, minor, 0)),
            seen: RefCell::new(Vec::new()),
        }
    }
}

impl PerfSyscall for Recording {
    fn open(&self, attr: &mut AttrBytes, args: OpenArgs) -> OpenOutcome {
        let size = attr.size_field() as usize;
        let seen = Attr::from_image(attr.bytes().get(..size).unwrap_or(&[]), Endian::Little);
        self.seen.borrow_mut().push(seen);
        self.inner.open(attr, args)
    }

    fn release(&self) -> String {
        self.inner.release()
    }

    fn abi(&self) -> &KernelAbi {
        self.inner.abi()
    }
}

fn policy(mode: FallbackMode) -> Policy {
    Policy {
        mode,
        ..Policy::default()
    }
}

fn bit(name: &str) -> u64 {
    perf_abi::FeatureTable::builtin().get(name).unwrap().mask()
}

fn weight_struct() -> Attr {
    let mut attr = base_attr();
    attr.sample_type |= bit("SAMPLE_WEIGHT_STRUCT");
    attr
}

fn replaced(name: &str, to: &str, reason: FallbackReason) -> Fallback {
    Fallback {
        name: name.into(),
        reason,
        replacement: Some(to.into()),
    }
}

#[test]
fn weight_struct_becomes_weight_under_lenient() {
    let k = Recording::new(5, 10);
    let opened = open_with_fallback(
        &k,
        &weight_struct(),
        base_args(),
        &AttrBits::NONE,
        &policy(FallbackMode::Lenient),
    )
    .unwrap();
    let (weight, wstruct) = (bit("SAMPLE_WEIGHT"), bit("SAMPLE_WEIGHT_STRUCT"));
    assert_eq!(opened.attr.sample_type & (weight | wstruct), weight);
    assert_eq!(
        opened.fallbacks,
        [replaced(
            "SAMPLE_WEIGHT_STRUCT",
            "SAMPLE_WEIGHT",
            FallbackReason::Kernel
        )]
    );
    assert_eq!(
        opened.fallbacks[0].label(),
        "SAMPLE_WEIGHT_STRUCT -> SAMPLE_WEIGHT"
    );
    // What perf sends: the struct, refused; then the plain weight, opened.
    let sent: Vec<u64> = k
        .seen
        .borrow()
        .iter()
        .map(|a| a.sample_type & (weight | wstruct))
        .collect();
    assert_eq!(sent, [wstruct, weight]);
}

#[test]
fn weight_struct_requested_is_an_error_that_says_what_perf_does() {
    let k = Recording::new(5, 10);
    let result = open_with_fallback(
        &k,
        &weight_struct(),
        base_args(),
        &AttrBits::NONE,
        &Policy::default(),
    );
    let (errno, hint) = hint_of(result);
    assert_eq!(errno, libc::EINVAL);
    assert_eq!(
        hint,
        "this kernel (5.10.0) does not support 'SAMPLE_WEIGHT_STRUCT' (added in Linux 5.12), \
         which perf replaces with 'SAMPLE_WEIGHT' (set_abi_policy(\"lenient\") does too)"
    );
    assert_eq!(k.seen.borrow().len(), 1, "no retry");
}

#[test]
fn weight_struct_as_a_module_default_is_replaced_strict_refuses() {
    let defaults = AttrBits::from_names(["SAMPLE_WEIGHT_STRUCT"]).unwrap();
    let k = Recording::new(5, 10);
    let opened = open_with_fallback(
        &k,
        &weight_struct(),
        base_args(),
        &defaults,
        &Policy::default(),
    )
    .unwrap();
    assert_eq!(
        opened.fallbacks[0].replacement.as_deref(),
        Some("SAMPLE_WEIGHT")
    );
    let k = Recording::new(5, 10);
    let strict = policy(FallbackMode::Strict);
    let (errno, hint) = hint_of(open_with_fallback(
        &k,
        &weight_struct(),
        base_args(),
        &defaults,
        &strict,
    ));
    assert_eq!(errno, libc::EINVAL);
    assert!(
        hint.ends_with("a module default that strict mode does not drop"),
        "{hint}"
    );
    // 5.12 has it: nothing is replaced.
    let k = Recording::new(5, 12);
    let opened = open_with_fallback(
        &k,
        &weight_struct(),
        base_args(),
        &AttrBits::NONE,
        &policy(FallbackMode::Lenient),
    )
    .unwrap();
    assert!(opened.fallbacks.is_empty());
}

fn with_clock(clockid: i32) -> Attr {
    let mut attr = base_attr();
    attr.set_flag("use_clockid", 1).unwrap();
    attr.clockid = clockid;
    attr
}

#[test]
fn refused_clock_becomes_monotonic_under_lenient_only() {
    // CLOCK_PROCESS_CPUTIME_ID (2): no kernel takes it.
    let k = Recording::new(6, 18);
    let opened = open_with_fallback(
        &k,
        &with_clock(2),
        base_args(),
        &AttrBits::NONE,
        &policy(FallbackMode::Lenient),
    )
    .unwrap();
    assert_eq!(
        (opened.attr.flag("use_clockid"), opened.attr.clockid),
        (Some(1), 1)
    );
    assert_eq!(
        opened.fallbacks,
        [replaced("clockid=2", "clockid=1", FallbackReason::Kernel)]
    );
    let sent: Vec<i32> = k.seen.borrow().iter().map(|a| a.clockid).collect();
    assert_eq!(sent, [2, 1]);

    for mode in [FallbackMode::Default, FallbackMode::Strict] {
        let k = Recording::new(6, 18);
        let (errno, hint) = hint_of(open_with_fallback(
            &k,
            &with_clock(2),
            base_args(),
            &AttrBits::NONE,
            &policy(mode),
        ));
        assert_eq!(errno, libc::EINVAL);
        assert!(
            hint.starts_with("clockid=2 is not a clock perf accepts: "),
            "{hint}"
        );
        assert!(
            hint.ends_with(
                "perf's fallback retries with CLOCK_MONOTONIC (1) only to report a wrong \
                 clockid, set_abi_policy(\"lenient\") opens the event with it"
            ),
            "{hint}"
        );
        assert_eq!(k.seen.borrow().len(), 1, "{mode:?}: no retry");
    }
}

#[test]
fn a_clock_refused_even_as_monotonic_loses_use_clockid() {
    fn clocked(a: &Attr) -> bool {
        a.flag("use_clockid") == Some(1)
    }
    let k = Refusing::new(clocked, libc::EINVAL);
    let opened = open_with_fallback(
        &k,
        &with_clock(7),
        base_args(),
        &AttrBits::NONE,
        &policy(FallbackMode::Lenient),
    )
    .unwrap();
    assert_eq!(
        (opened.attr.flag("use_clockid"), opened.attr.clockid),
        (Some(0), 0)
    );
    assert_eq!(opened.fallbacks.len(), 1);
    assert_eq!(opened.fallbacks[0].label(), "use_clockid");
    let sent: Vec<_> = k
        .seen
        .borrow()
        .iter()
        .map(|a| (a.flag("use_clockid"), a.clockid))
        .collect();
    assert_eq!(sent[..3], [(Some(1), 7), (Some(1), 1), (Some(0), 0)]);
}

fn precise(level: u64) -> Attr {
    let mut attr = base_attr();
    attr.set_flag("precise_ip", level).unwrap();
    attr
}

fn above_one(a: &Attr) -> bool {
    a.flag("precise_ip").unwrap_or(0) > 1
}

#[test]
fn max_precise_steps_down_until_the_pmu_accepts() {
    // `:P`: precise_ip=3 set by evlist.config() is a module default.
    let defaults = AttrBits::from_names(["precise_ip"]).unwrap();
    for mode in [FallbackMode::Default, FallbackMode::Lenient] {
        let k = Refusing::new(above_one, libc::EOPNOTSUPP);
        let opened =
            open_with_fallback(&k, &precise(3), base_args(), &defaults, &policy(mode)).unwrap();
        assert_eq!(opened.attr.flag("precise_ip"), Some(1));
        assert_eq!(
            opened.fallbacks,
            [replaced(
                "precise_ip=3",
                "precise_ip=1",
                FallbackReason::Pmu
            )]
        );
        let sent: Vec<_> = k
            .seen
            .borrow()
            .iter()
            .map(|a| a.flag("precise_ip"))
            .collect();
        assert_eq!(sent, [Some(3), Some(2), Some(1)], "{mode:?}");
    }
    // Strict opens exactly what was built.
    let k = Refusing::new(above_one, libc::EOPNOTSUPP);
    let strict = policy(FallbackMode::Strict);
    let result = open_with_fallback(&k, &precise(3), base_args(), &defaults, &strict);
    assert_eq!(hint_of(result).0, libc::EOPNOTSUPP);
}

#[test]
fn requested_precise_ip_is_named_not_lowered() {
    // `:ppp` or evsel(precise_ip=3): perf does not lower it either.
    let k = Refusing::new(above_one, libc::EINVAL);
    let result = open_with_fallback(
        &k,
        &precise(3),
        base_args(),
        &AttrBits::NONE,
        &Policy::default(),
    );
    let (errno, hint) = hint_of(result);
    assert_eq!(errno, libc::EINVAL);
    assert_eq!(
        hint,
        "precise_ip=3 is more than this event supports: it opens with precise_ip=1"
    );
}

#[test]
fn nothing_works_leaves_the_attr_as_asked() {
    // Every level refused (msr/tsc/P sampling): the error is about the
    // attr as asked, precise_ip=3, as perf restores precise_ip_original.
    fn always(_: &Attr) -> bool {
        true
    }
    let defaults = AttrBits::from_names(["precise_ip"]).unwrap();
    let k = Refusing::new(always, libc::EINVAL);
    let result = open_with_fallback(&k, &precise(3), base_args(), &defaults, &Policy::default());
    assert_eq!(hint_of(result).0, libc::EINVAL);
    let sent: Vec<_> = k
        .seen
        .borrow()
        .iter()
        .map(|a| a.flag("precise_ip"))
        .collect();
    assert_eq!(sent[..4], [Some(3), Some(2), Some(1), Some(0)]);
}

#[test]
fn emulated_clocks_are_the_real_kernels() {
    let emulated = EmulatedKernel::new(
        KernelVersion::from_release(&running_release()).expect("uname -r has a version"),
    );
    for clockid in 0..16 {
        let attr = with_clock(clockid);
        let size = attr.needed_size();
        let (mut real, mut emu) = (attr.to_bytes(size), attr.to_bytes(size));
        let r = OutcomeClass::of(RealKernel.open(&mut real, base_args()));
        let e = OutcomeClass::of(emulated.open(&mut emu, base_args()));
        assert_eq!(r, e, "clockid {clockid}");
    }
}

fn inherit_read(tid: bool) -> Attr {
    let mut attr = base_attr();
    attr.set_flag("inherit", 1).unwrap();
    attr.sample_type |= bit("SAMPLE_READ");
    if tid {
        attr.sample_type |= bit("SAMPLE_TID");
    }
    attr
}

#[test]
fn inherit_with_sample_read_loses_inherit_under_lenient() {
    // 6.1 refuses the pair; 6.18 refuses it without PERF_SAMPLE_TID.
    for (k, tid) in [(Recording::new(6, 1), true), (Recording::new(6, 18), false)] {
        let attr = inherit_read(tid);
        let lenient = policy(FallbackMode::Lenient);
        let opened = open_with_fallback(&k, &attr, base_args(), &AttrBits::NONE, &lenient).unwrap();
        assert_eq!(opened.attr.flag("inherit"), Some(0));
        assert_eq!(opened.attr.sample_type, attr.sample_type);
        assert_eq!(opened.fallbacks.len(), 1);
        assert_eq!(opened.fallbacks[0].label(), "inherit");
        let sent: Vec<_> = k.seen.borrow().iter().map(|a| a.flag("inherit")).collect();
        assert_eq!(sent, [Some(1), Some(0)]);

        let (errno, hint) = hint_of(open_with_fallback(
            &k,
            &attr,
            base_args(),
            &AttrBits::NONE,
            &Policy::default(),
        ));
        assert_eq!(errno, libc::EINVAL);
        assert!(
            hint.ends_with("perf's fallback drops 'inherit', as set_abi_policy(\"lenient\") does"),
            "{hint}"
        );
    }
}

#[test]
fn inherit_with_sample_read_on_the_running_kernel() {
    let v = KernelVersion::from_release(&running_release()).expect("uname -r has a version");
    let lenient = policy(FallbackMode::Lenient);
    let refused = open(&inherit_read(false), base_args(), &AttrBits::NONE, &lenient).unwrap();
    assert_eq!(refused.attr.flag("inherit"), Some(0));
    assert_eq!(refused.fallbacks[0].label(), "inherit");
    // With PERF_SAMPLE_TID, 6.12 and later take the pair as asked.
    let with_tid = open(&inherit_read(true), base_args(), &AttrBits::NONE, &lenient).unwrap();
    let kept = v >= KernelVersion::new(6, 12, 0);
    assert_eq!(with_tid.attr.flag("inherit"), Some(u64::from(kept)));
    assert_eq!(with_tid.fallbacks.is_empty(), kept);
}
