// SPDX-License-Identifier: GPL-2.0-only
//! An emulated kernel behind the syscall seam: `perf_event_open` as a given
//! Linux release answers it, modelled from the feature table (docs/abi.md §2, §5).
//!
//! It models `perf_copy_attr()` (size rules, E2BIG with the size written
//! back, `__reserved_*`, the flag / `sample_type` / `read_format` /
//! `branch_sample_type` / `aux_action` masks, the consistency checks), then
//! the parts of `perf_event_open()` an attr on a machine with only the
//! software PMU meets (pid/cpu, permissions when asked to, clockid, sample
//! rate, inherit + PERF_SAMPLE_READ, EOPNOTSUPP for what the software PMU
//! cannot do, the AUX group-leader requirement). It is not a kernel: events
//! are `/dev/null` fds, there are no groups (a `group_fd` gives EBADF), and
//! every type but `PERF_TYPE_SOFTWARE` gives ENOENT, as on a VM without a PMU.

mod copy_attr;
mod open;
mod view;

use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use perf_abi::{FeatureTable, KernelVersion};

use crate::attr::AttrBytes;
use crate::sys::OpenOutcome;

use super::kernel_abi::{AttrBits, KernelAbi};
use super::probe;
use super::syscall::{OpenArgs, PerfSyscall};

/// What an unprivileged caller of the emulated kernel may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmulatedPrivileges {
    /// `kernel.perf_event_paranoid`.
    pub paranoid: i32,
    /// The caller has CAP_PERFMON (or CAP_SYS_ADMIN).
    pub perfmon: bool,
}

/// An emulated Linux release.
#[derive(Debug)]
pub struct EmulatedKernel {
    version: KernelVersion,
    release: String,
    attr_size: u32,
    known: AttrBits,
    /// `PAGE_SIZE`.
    pub page_size: u32,
    /// CPUs 0..nr_cpus exist.
    pub nr_cpus: i32,
    /// `kernel.perf_event_max_sample_rate`.
    pub max_sample_rate: u64,
    /// `kernel.perf_event_max_stack`.
    pub max_stack: u16,
    /// `None`: the caller is root; else the permission checks apply.
    pub privileges: Option<EmulatedPrivileges>,
    abi: OnceLock<KernelAbi>,
    calls: AtomicUsize,
}

impl EmulatedKernel {
    /// Linux `version` with everything configured in, called by root.
    pub fn new(version: KernelVersion) -> Self {
        let table = FeatureTable::builtin();
        EmulatedKernel {
            version,
            release: version.to_string(),
            attr_size: table.attr_size_for(version),
            known: AttrBits::for_version(version),
            page_size: 4096,
            nr_cpus: 2,
            max_sample_rate: 100_000,
            max_stack: 127,
            privileges: None,
            abi: OnceLock::new(),
            calls: AtomicUsize::new(0),
        }
    }

    /// The same kernel called by an unprivileged process.
    pub fn unprivileged(mut self, paranoid: i32, perfmon: bool) -> Self {
        self.privileges = Some(EmulatedPrivileges { paranoid, perfmon });
        self
    }

    /// The emulated release.
    pub fn version(&self) -> KernelVersion {
        self.version
    }

    /// How many `perf_event_open` calls it has answered.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }

    /// True when the emulated release has a field row.
    fn has_field(&self, name: &str) -> bool {
        FeatureTable::builtin()
            .get(name)
            .is_some_and(|f| f.in_version(self.version))
    }

    fn answer(&self, attr: &mut AttrBytes, args: OpenArgs) -> Result<OwnedFd, i32> {
        let view = copy_attr::copy_attr(self, attr, args)?;
        open::event_open(self, &view, args)?;
        std::fs::File::open("/dev/null")
            .map(OwnedFd::from)
            .map_err(|e| e.raw_os_error().unwrap_or(libc::EMFILE))
    }
}

impl PerfSyscall for EmulatedKernel {
    fn open(&self, attr: &mut AttrBytes, args: OpenArgs) -> OpenOutcome {
        self.calls.fetch_add(1, Ordering::Relaxed);
        match self.answer(attr, args) {
            Ok(fd) => OpenOutcome::Fd(fd),
            Err(errno) => OpenOutcome::Failed {
                errno,
                size: attr.size_field(),
            },
        }
    }

    fn release(&self) -> String {
        self.release.clone()
    }

    fn abi(&self) -> &KernelAbi {
        self.abi.get_or_init(|| probe::probe(self))
    }
}
