// SPDX-License-Identifier: GPL-2.0-only
//! `open_with_fallback`: perf_event_open with the module's policy.
//!
//! 1. A build with a target ABI refuses, before any syscall, what its target
//!    lacks (EINVAL, "this build targets Linux 6.8 (ABI 6.8.0-31) which has
//!    no 'config4' (added in Linux 6.19)"); module defaults it lacks are
//!    dropped instead.
//! 2. The attr goes out with the smallest size that carries every non-zero
//!    field, so old kernels accept unchanged attrs.
//! 3. On EINVAL/E2BIG the kernel's probed ABI names what it lacks. Bits the
//!    module set by default (`defaults`) are cleared and the open retried, as
//!    the C module does through perf's own fallback; the attr as finally
//!    opened and the list of what was dropped come back. Anything the user
//!    asked for is an error that keeps the errno and names the field(s) and
//!    the release that added each. [`FallbackMode::Strict`] turns every
//!    fallback into that error, [`FallbackMode::Lenient`] every such error
//!    into a fallback.
//!    Dropped defaults are listed in perf's fallback order (`missing`).
//! 4. An EINVAL the ABI does not explain first gets perf's value-replacing
//!    retries (`replacing`: the clock, then `precise_ip`; on other errnos
//!    `precise_ip` only) when the value may be replaced; the first attr that
//!    opens is kept. Else it names the consistency rule or the
//!    breakpoint field it broke. Else a PMU refused the attr: perf's PMU
//!    fallback clears `exclude_guest`/`exclude_host` when they are module
//!    defaults (`missing`) and retries; else the error names the field a
//!    probe finds the kernel refused (`refused`). EOVERFLOW names
//!    `sample_max_stack` and the sysctl it is above.
//! 5. EACCES/EPERM and ENOENT for hardware events get hints; other errnos are
//!    returned as they are.
//!
//! An explicit `size` below `PERF_ATTR_SIZE_VER0` is refused before any
//! syscall: every kernel answers it with E2BIG.

use std::os::fd::OwnedFd;

use crate::attr::{Attr, AttrBytes};
use crate::error::{Error, Result};
use crate::sys::OpenOutcome;

use super::breakpoint::{self, BpArch};
use super::environment::Environment;
use super::explain::{self, Lack};
use super::image;
use super::kernel_abi::{AttrBits, BuildTarget};
use super::missing;
use super::permission;
use super::refused;
use super::replacing;
use super::rules;
use super::syscall::{OpenArgs, PerfSyscall, RealKernel};

/// Retries after dropping defaults (each retry drops at least one bit).
const MAX_ATTEMPTS: usize = 8;

/// How `open_with_fallback` treats what the kernel lacks.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// What may fall back.
    pub mode: FallbackMode,
    /// The ABI this build targets; `None` skips the before-the-syscall check.
    pub target: Option<BuildTarget>,
    /// Where the hints read the paranoid level, capabilities and PMUs.
    pub env: Environment,
}

/// What `open_with_fallback` may drop from an attr the kernel (or the
/// build's target) does not accept (the Python module's `set_abi_policy`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum FallbackMode {
    /// Bits the module set by default are dropped; anything the user asked
    /// for is an error.
    #[default]
    Default,
    /// Nothing is dropped: a module default the kernel lacks is an error
    /// too, the same as a field the user asked for.
    Strict,
    /// Everything is dropped: bits the user asked for that the kernel lacks
    /// are listed in `Opened::fallbacks` too, instead of failing.
    Lenient,
}

/// Why a default was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FallbackReason {
    /// The running kernel refused it.
    Kernel,
    /// The build's target ABI lacks it.
    BuildTarget,
    /// The event's PMU refused it (`exclude_guest`/`exclude_host` on a PMU
    /// without guest/host filtering), as perf's fallback finds.
    Pmu,
}

/// One thing the open dropped or replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fallback {
    /// The feature row (`mmap2`, `FORMAT_LOST`, `FLAG_FD_CLOEXEC`), or for a
    /// replaced value the field as asked for (`clockid=2`, `precise_ip=3`).
    pub name: String,
    /// Why.
    pub reason: FallbackReason,
    /// What was opened in its place (`SAMPLE_WEIGHT`, `clockid=1`,
    /// `precise_ip=1`); `None` when it was only dropped (`replacing`).
    pub replacement: Option<String>,
}

impl Fallback {
    /// `mmap2`, or `SAMPLE_WEIGHT_STRUCT -> SAMPLE_WEIGHT` for a replacement.
    pub fn label(&self) -> String {
        match &self.replacement {
            Some(to) => format!("{} -> {to}", self.name),
            None => self.name.clone(),
        }
    }
}

/// An opened event.
#[derive(Debug)]
pub struct Opened {
    /// The event.
    pub fd: OwnedFd,
    /// The attr as the kernel accepted it (defaults dropped, `size` = what
    /// was sent).
    pub attr: Attr,
    /// The open flags as sent.
    pub flags: u64,
    /// What was dropped or replaced, in order.
    pub fallbacks: Vec<Fallback>,
}

/// `PERF_ATTR_SIZE_VER0`: no kernel takes a smaller attr.
pub const ATTR_SIZE_VER0: u32 = 64;

/// Refuses an explicit `size` no kernel accepts (1 to 63: `perf_copy_attr()`
/// answers E2BIG on every release). 0 means "the smallest size that carries
/// the attr".
pub fn check_size(size: u32) -> Result<()> {
    if size == 0 || size >= ATTR_SIZE_VER0 {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "size={size} is below PERF_ATTR_SIZE_VER0 (64), the smallest perf_event_attr a \
         kernel accepts (it answers E2BIG): leave size=0 to send the smallest size that \
         carries the attr"
    )))
}

/// The size to send: the smallest that carries every non-zero field, or the
/// caller's explicit `size` if that is larger (capped at the buffer).
fn send_size(attr: &Attr) -> u32 {
    let needed = attr.needed_size();
    match attr.size {
        0 => needed,
        size => size.max(needed).min(AttrBytes::CAPACITY as u32),
    }
}

fn sys_error(errno: i32, hint: Option<String>) -> Error {
    Error::Sys {
        op: "perf_event_open",
        errno,
        hint,
    }
}

/// Splits lacks into (dropped defaults, in perf's fallback order; errors);
/// strict keeps everything an error.
fn partition(lacks: Vec<Lack>, defaults: &AttrBits, mode: FallbackMode) -> (Vec<Lack>, Vec<Lack>) {
    if mode == FallbackMode::Strict {
        return (Vec::new(), lacks);
    }
    let (mut dropped, refused): (Vec<Lack>, Vec<Lack>) =
        lacks.into_iter().partition(|l| l.is_default(defaults));
    dropped.sort_by_key(|l| missing::perf_rank(&l.name()));
    (dropped, refused)
}

/// perf's PMU fallback: clears the `exclude_guest`/`exclude_host` defaults
/// the PMU refused and records them; false when there is nothing to clear
/// (or strict mode forbids it).
fn drop_guest_host(
    attr: &mut Attr,
    defaults: &AttrBits,
    mode: FallbackMode,
    fallbacks: &mut Vec<Fallback>,
) -> bool {
    if mode == FallbackMode::Strict {
        return false;
    }
    let names = missing::guest_host_fallback(attr, defaults);
    for name in &names {
        let _ = attr.set_flag(name, 0);
        fallbacks.push(Fallback {
            name: (*name).to_owned(),
            reason: FallbackReason::Pmu,
            replacement: None,
        });
    }
    !names.is_empty()
}

/// Clears dropped defaults from the attr and records them; a row perf
/// replaces (`SAMPLE_WEIGHT_STRUCT`) gets its replacement set.
fn drop_defaults(
    attr: &mut Attr,
    flags: &mut u64,
    dropped: &[Lack],
    reason: FallbackReason,
    fallbacks: &mut Vec<Fallback>,
) {
    for l in dropped {
        if let Some((kind, mask)) = l.bits() {
            image::apply_bits(attr, flags, kind, mask, false);
            let name = l.name();
            let replacement = replacing::replacement_of(&name)
                .and_then(|to| perf_abi::FeatureTable::builtin().get(to))
                .map(|to| {
                    image::apply_bits(attr, flags, to.kind, to.mask(), true);
                    to.name.clone()
                });
            fallbacks.push(Fallback {
                name,
                reason,
                replacement,
            });
        }
    }
}

/// perf's value-replacing retries (`replacing::steps`) after an open
/// refused with `errno`: the first alternative attr the kernel opens, with
/// `fallbacks` extended by what it changed.
fn try_replacements<S: PerfSyscall + ?Sized>(
    sys: &S,
    attr: &Attr,
    call: OpenArgs,
    errno: i32,
    defaults: &AttrBits,
    policy: &Policy,
    fallbacks: &[Fallback],
) -> Option<Opened> {
    if policy.mode == FallbackMode::Strict {
        return None;
    }
    for (mut alt, changed) in replacing::steps(attr, errno, defaults) {
        let size = send_size(&alt);
        let mut bytes = alt.to_bytes(size);
        if let OpenOutcome::Fd(fd) = sys.open(&mut bytes, call) {
            alt.size = size;
            let mut fallbacks = fallbacks.to_vec();
            fallbacks.push(changed);
            return Some(Opened {
                fd,
                attr: alt,
                flags: call.flags,
                fallbacks,
            });
        }
    }
    None
}

/// Opens `attr` on the kernel behind `sys` with the module's policy (see the
/// module docs). `defaults` holds the bits the module set on its own (not
/// asked for by the user); only those may be dropped silently.
pub fn open_with_fallback<S: PerfSyscall + ?Sized>(
    sys: &S,
    attr: &Attr,
    args: OpenArgs,
    defaults: &AttrBits,
    policy: &Policy,
) -> Result<Opened> {
    let lenient_defaults;
    let defaults = if policy.mode == FallbackMode::Lenient {
        lenient_defaults = AttrBits::of_attr(attr, args.flags);
        &lenient_defaults
    } else {
        defaults
    };
    check_size(attr.size)?;
    let mut attr = *attr;
    let mut flags = args.flags;
    let mut fallbacks = Vec::new();
    if let Some(target) = &policy.target {
        let lacks = explain::target_lacks(target, &attr, flags);
        let (dropped, refused) = partition(lacks, defaults, policy.mode);
        if !refused.is_empty() {
            let hint = explain::target_message(target, &refused, defaults);
            return Err(sys_error(libc::EINVAL, Some(hint)));
        }
        let reason = FallbackReason::BuildTarget;
        drop_defaults(&mut attr, &mut flags, &dropped, reason, &mut fallbacks);
    }
    for _ in 0..MAX_ATTEMPTS {
        let size = send_size(&attr);
        let mut bytes = attr.to_bytes(size);
        let call = OpenArgs { flags, ..args };
        let (errno, kernel_size) = match sys.open(&mut bytes, call) {
            OpenOutcome::Fd(fd) => {
                attr.size = size;
                return Ok(Opened {
                    fd,
                    attr,
                    flags,
                    fallbacks,
                });
            }
            OpenOutcome::Failed { errno, size } => (errno, size),
        };
        if errno != libc::EINVAL && errno != libc::E2BIG {
            if let Some(opened) =
                try_replacements(sys, &attr, call, errno, defaults, policy, &fallbacks)
            {
                return Ok(opened);
            }
            return Err(explain_other(sys, errno, &attr, call, size, &policy.env));
        }
        let abi = sys.abi();
        let e2big = (errno == libc::E2BIG).then_some(kernel_size);
        let lacks = explain::kernel_lacks(abi, &attr, flags, e2big.unwrap_or(abi.attr_size));
        let (dropped, refused) = partition(lacks, defaults, policy.mode);
        if !refused.is_empty() {
            let hint = explain::kernel_message(abi, &refused, defaults, e2big);
            return Err(sys_error(errno, Some(hint)));
        }
        if dropped.is_empty() {
            let hint = match e2big {
                Some(k) => Some(format!(
                    "the kernel's perf_event_attr is {k} bytes; {size} were sent"
                )),
                None => {
                    let tried =
                        try_replacements(sys, &attr, call, errno, defaults, policy, &fallbacks);
                    if let Some(opened) = tried {
                        return Ok(opened);
                    }
                    let rule = rules::explain_einval(&attr, call, abi.version, &policy.env)
                        .or_else(|| breakpoint::explain(&attr, BpArch::this()));
                    if rule.is_none()
                        && drop_guest_host(&mut attr, defaults, policy.mode, &mut fallbacks)
                    {
                        continue;
                    }
                    rule.or_else(|| refused::probe_refused(sys, &attr, call, size))
                }
            };
            return Err(sys_error(errno, hint));
        }
        let reason = FallbackReason::Kernel;
        drop_defaults(&mut attr, &mut flags, &dropped, reason, &mut fallbacks);
    }
    Err(sys_error(libc::EINVAL, None))
}

/// Hints for the errnos that are not about the ABI; `size` is the attr size
/// sent, for probes.
fn explain_other<S: PerfSyscall + ?Sized>(
    sys: &S,
    errno: i32,
    attr: &Attr,
    args: OpenArgs,
    size: u32,
    env: &Environment,
) -> Error {
    let hint = match errno {
        libc::EACCES | libc::EPERM => Some(permission::permission_hint(errno, attr, args, env)),
        libc::ENOENT => permission::enoent_hint(attr, env),
        libc::EOVERFLOW => rules::explain_eoverflow(attr, env)
            .or_else(|| refused::probe_refused(sys, attr, args, size)),
        _ => None,
    };
    sys_error(errno, hint)
}

/// [`open_with_fallback`] on the running kernel.
pub fn open(attr: &Attr, args: OpenArgs, defaults: &AttrBits, policy: &Policy) -> Result<Opened> {
    open_with_fallback(&RealKernel, attr, args, defaults, policy)
}
