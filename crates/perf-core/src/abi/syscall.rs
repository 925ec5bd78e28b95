// SPDX-License-Identifier: GPL-2.0-only
//! The syscall seam: `perf_event_open` behind a trait, so the probes and the
//! fallback logic run unchanged against the real kernel or an emulated one.

use std::os::fd::RawFd;
use std::sync::OnceLock;

use crate::attr::AttrBytes;
use crate::sys::{self, OpenOutcome};

use super::kernel_abi::KernelAbi;
use super::probe;

/// The arguments of `perf_event_open` besides the attr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenArgs {
    /// The task (0 = this one, -1 = any task on `cpu`).
    pub pid: i32,
    /// The CPU (-1 = any CPU the task runs on).
    pub cpu: i32,
    /// The group leader's fd, or -1.
    pub group_fd: RawFd,
    /// `PERF_FLAG_*` bits.
    pub flags: u64,
}

impl OpenArgs {
    /// `(pid, cpu)` with no group leader and `PERF_FLAG_FD_CLOEXEC`, as the
    /// module opens every event.
    pub fn new(pid: i32, cpu: i32) -> Self {
        OpenArgs {
            pid,
            cpu,
            group_fd: -1,
            flags: sys::PERF_FLAG_FD_CLOEXEC,
        }
    }
}

/// A kernel that answers `perf_event_open`.
pub trait PerfSyscall {
    /// `perf_event_open(attr, pid, cpu, group_fd, flags)` on a raw attr image;
    /// on E2BIG the kernel's own attr size is written into the image's `size`.
    fn open(&self, attr: &mut AttrBytes, args: OpenArgs) -> OpenOutcome;

    /// The kernel's release (`uname -r`), informational.
    fn release(&self) -> String;

    /// The kernel's ABI as probed through [`PerfSyscall::open`], learned on
    /// first use and cached for the lifetime of this seam.
    fn abi(&self) -> &KernelAbi;
}

/// The running kernel.
#[derive(Debug, Clone, Copy, Default)]
pub struct RealKernel;

impl PerfSyscall for RealKernel {
    fn open(&self, attr: &mut AttrBytes, args: OpenArgs) -> OpenOutcome {
        sys::perf_event_open(attr, args.pid, args.cpu, args.group_fd, args.flags)
    }

    fn release(&self) -> String {
        running_release()
    }

    fn abi(&self) -> &KernelAbi {
        running_abi()
    }
}

/// The running kernel's ABI, probed once per process (docs/abi.md §1.1).
pub fn running_abi() -> &'static KernelAbi {
    static ABI: OnceLock<KernelAbi> = OnceLock::new();
    ABI.get_or_init(|| probe::probe(&RealKernel))
}

/// `uname -r` of the running kernel (empty if uname fails).
pub fn running_release() -> String {
    nix::sys::utsname::uname()
        .map(|u| u.release().to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What one `perf_event_open` answer means for ABI questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeClass {
    /// An fd was created (and has been closed again).
    Ok,
    /// EINVAL: an unknown bit, or an inconsistent attr.
    Einval,
    /// E2BIG, with the size the kernel wrote back.
    E2big(u32),
    /// Any other errno: the attr got past `perf_copy_attr()`.
    Other(i32),
}

impl OutcomeClass {
    /// Classifies an answer, closing its fd if there is one.
    pub fn of(outcome: OpenOutcome) -> Self {
        match outcome {
            OpenOutcome::Fd(fd) => {
                drop(fd);
                OutcomeClass::Ok
            }
            OpenOutcome::Failed { errno, size } => match errno {
                libc::EINVAL => OutcomeClass::Einval,
                libc::E2BIG => OutcomeClass::E2big(size),
                e => OutcomeClass::Other(e),
            },
        }
    }

    /// True when the answer shows the kernel parsed the attr: an fd, or an
    /// error that comes after `perf_copy_attr()` (EOPNOTSUPP from a PMU that
    /// cannot do it, EACCES, …).
    pub fn knows(self) -> bool {
        matches!(self, OutcomeClass::Ok | OutcomeClass::Other(_))
    }
}
