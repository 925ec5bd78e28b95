// SPDX-License-Identifier: GPL-2.0-only
//! EINVAL and EOVERFLOW that name the field the kernel refused: the call-chain
//! depth limit, breakpoints, the probes that lower one field at a time, and
//! sizes below VER0 — against emulated kernels and ones that refuse a field
//! the emulator accepts (as a hardware PMU refuses `precise_ip`).

use std::cell::RefCell;
use std::path::PathBuf;

use perf_abi::KernelVersion;

use super::*;
use crate::attr::{Attr, AttrBytes};
use crate::endian::Endian;
use crate::error::Error;
use crate::sys::OpenOutcome;

/// The emulated 6.18, refusing with `errno` every attr `refuse` matches;
/// it records every attr it is asked to open.
pub(super) struct Refusing {
    inner: EmulatedKernel,
    refuse: fn(&Attr) -> bool,
    errno: i32,
    pub(super) seen: RefCell<Vec<Attr>>,
}

impl Refusing {
    pub(super) fn new(refuse: fn(&Attr) -> bool, errno: i32) -> Self {
        Refusing {
            inner: EmulatedKernel::new(KernelVersion::new(6, 18, 0)),
            refuse,
            errno,
            seen: RefCell::new(Vec::new()),
        }
    }
}

impl PerfSyscall for Refusing {
    fn open(&self, attr: &mut AttrBytes, args: OpenArgs) -> OpenOutcome {
        let size = attr.size_field() as usize;
        let seen = Attr::from_image(attr.bytes().get(..size).unwrap_or(&[]), Endian::Little);
        self.seen.borrow_mut().push(seen);
        if (self.refuse)(&seen) {
            return OpenOutcome::Failed {
                errno: self.errno,
                size: attr.size_field(),
            };
        }
        self.inner.open(attr, args)
    }

    fn release(&self) -> String {
        self.inner.release()
    }

    fn abi(&self) -> &KernelAbi {
        self.inner.abi()
    }
}

pub(super) fn hint_of(result: Result<Opened, Error>) -> (i32, String) {
    match result {
        Err(Error::Sys {
            op: "perf_event_open",
            errno,
            hint,
        }) => (errno, hint.unwrap_or_default()),
        other => panic!("not a perf_event_open error: {other:?}"),
    }
}

/// A policy whose `kernel.perf_event_max_stack` is `max_stack` (none: the
/// file is missing).
struct MaxStack {
    path: PathBuf,
}

impl MaxStack {
    fn new(tag: &str, max_stack: Option<u32>) -> Self {
        let path =
            std::env::temp_dir().join(format!("perf-abi-max-stack-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        if let Some(n) = max_stack {
            std::fs::write(&path, format!("{n}\n")).unwrap();
        }
        MaxStack { path }
    }

    fn policy(&self) -> Policy {
        let mut policy = Policy::default();
        policy.env.max_stack = self.path.clone();
        policy
    }
}

impl Drop for MaxStack {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn callchain(depth: u16) -> Attr {
    let attr = base_attr();
    Attr {
        sample_max_stack: depth,
        sample_type: attr.sample_type | 1 << 5, // PERF_SAMPLE_CALLCHAIN
        ..attr
    }
}

#[test]
fn eoverflow_names_sample_max_stack_and_the_sysctl() {
    let k = EmulatedKernel::new(KernelVersion::new(6, 18, 0));
    let env = MaxStack::new("127", Some(127));
    let result = open_with_fallback(
        &k,
        &callchain(65535),
        base_args(),
        &AttrBits::NONE,
        &env.policy(),
    );
    assert_eq!(
        hint_of(result),
        (
            libc::EOVERFLOW,
            "sample_max_stack=65535 is above kernel.perf_event_max_stack (127): ask for fewer \
             frames, or raise the limit ('sysctl kernel.perf_event_max_stack=65535')"
                .to_owned()
        )
    );
    // 127 is the limit itself: it opens.
    let opened = open_with_fallback(
        &k,
        &callchain(127),
        base_args(),
        &AttrBits::NONE,
        &env.policy(),
    );
    assert!(opened.is_ok());
}

#[test]
fn eoverflow_without_the_sysctl_is_found_by_probing() {
    let k = EmulatedKernel::new(KernelVersion::new(6, 18, 0));
    let missing = MaxStack::new("missing", None);
    let (errno, hint) = hint_of(open_with_fallback(
        &k,
        &callchain(200),
        base_args(),
        &AttrBits::NONE,
        &missing.policy(),
    ));
    assert_eq!(errno, libc::EOVERFLOW);
    assert!(
        hint.starts_with("sample_max_stack=200 is above kernel.perf_event_max_stack:"),
        "{hint}"
    );
    // The probe alone finds it too.
    let found = probe_refused(&k, &callchain(200), base_args(), 128);
    assert_eq!(
        found.as_deref(),
        Some(
            "the kernel refused sample_max_stack=200: the same event opens with sample_max_stack=0"
        )
    );
}

#[test]
fn precise_ip_is_lowered_step_by_step_as_perf_does() {
    let precise = |a: &Attr| a.flag("precise_ip").unwrap_or(0) > 1;
    let k = Refusing::new(precise, libc::EINVAL);
    let mut attr = base_attr();
    attr.set_flag("precise_ip", 3);
    attr.set_flag("disabled", 0);
    let (errno, hint) = hint_of(open_with_fallback(
        &k,
        &attr,
        base_args(),
        &AttrBits::NONE,
        &Policy::default(),
    ));
    assert_eq!(errno, libc::EINVAL);
    assert_eq!(
        hint,
        "precise_ip=3 is more than this event supports: it opens with precise_ip=1"
    );
    // Every probe was disabled: none of them counted.
    let seen = k.seen.borrow();
    let probes: Vec<u64> = seen
        .iter()
        .filter(|a| a.flag("precise_ip") != Some(3))
        .map(|a| a.flag("disabled").unwrap_or(0))
        .collect();
    assert_eq!(probes, [1, 1]);
}

#[test]
fn a_refused_field_is_named_with_its_value() {
    let k = Refusing::new(|a| a.config3 != 0, libc::EINVAL);
    let attr = Attr {
        config3: 0x5,
        sample_max_stack: 9,
        ..base_attr()
    };
    let (errno, hint) = hint_of(open_with_fallback(
        &k,
        &attr,
        base_args(),
        &AttrBits::NONE,
        &Policy::default(),
    ));
    assert_eq!(errno, libc::EINVAL);
    assert_eq!(
        hint,
        "the kernel refused config3=0x5: the same event opens with config3=0"
    );
    // A refusal no single field explains keeps the bare errno.
    let k = Refusing::new(|_| true, libc::EINVAL);
    let (errno, hint) = hint_of(open_with_fallback(
        &k,
        &attr,
        base_args(),
        &AttrBits::NONE,
        &Policy::default(),
    ));
    assert_eq!((errno, hint.as_str()), (libc::EINVAL, ""));
}

#[test]
fn breakpoint_fields_are_named_not_config() {
    // The emulator has no breakpoint PMU; the kernel's EINVAL is modelled.
    let k = Refusing::new(|a| a.type_ == 5, libc::EINVAL);
    let attr = Attr {
        type_: 5,
        config: u64::MAX,
        ..base_attr()
    };
    let (errno, hint) = hint_of(open_with_fallback(
        &k,
        &attr,
        base_args(),
        &AttrBits::NONE,
        &Policy::default(),
    ));
    assert_eq!(errno, libc::EINVAL);
    assert!(
        hint.starts_with("bp_type=0 (HW_BREAKPOINT_EMPTY) is not a breakpoint type"),
        "{hint}"
    );
}

#[test]
fn sizes_below_ver0_are_refused_before_any_syscall() {
    assert!(check_size(0).is_ok());
    assert!(check_size(ATTR_SIZE_VER0).is_ok());
    assert!(check_size(4096).is_ok());
    let k = EmulatedKernel::new(KernelVersion::new(6, 18, 0));
    let _ = k.abi();
    let before = k.calls();
    for size in [1, 8, 63] {
        let attr = Attr {
            size,
            ..base_attr()
        };
        let result =
            open_with_fallback(&k, &attr, base_args(), &AttrBits::NONE, &Policy::default());
        match result {
            Err(Error::InvalidArgument(msg)) => assert!(
                msg.starts_with(&format!("size={size} is below PERF_ATTR_SIZE_VER0 (64)")),
                "{msg}"
            ),
            other => panic!("size {size}: {other:?}"),
        }
    }
    assert_eq!(k.calls(), before);
}
