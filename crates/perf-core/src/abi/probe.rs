// SPDX-License-Identifier: GPL-2.0-only
//! Learning a kernel's attr ABI without leaving an event open (docs/abi.md
//! §1.1).
//!
//! * The attr size: `size = 8` is below PERF_ATTR_SIZE_VER0, so
//!   `perf_copy_attr()` answers E2BIG and writes its own `sizeof` back; no
//!   event is created, and on mainline this runs before any permission check.
//! * Bits: one throw-away software event per feature row (task-clock, this
//!   task, any CPU, disabled, `exclude_kernel`/`exclude_hv` so that it passes
//!   `perf_event_paranoid` 2), the feature's bit set on that known-good base
//!   (plus its row's `probe_with` companions), newest release first. EINVAL
//!   or E2BIG means the kernel lacks the bit; an fd or any other errno
//!   (EOPNOTSUPP from a PMU that cannot do it, EACCES) means it parsed it.
//!
//! Every row is probed, not just the newest until one is accepted as perf
//! does: kernels with backported features (the reason Peter Zijlstra gives
//! for probing over version tables) then come out right bit by bit.

use perf_abi::{Feature, FeatureKind, FeatureTable, KernelVersion};

use crate::attr::{flag, Attr};

use super::image;
use super::kernel_abi::{AbiSource, AttrBits, KernelAbi};
use super::syscall::{OpenArgs, OutcomeClass, PerfSyscall};

/// `PERF_TYPE_SOFTWARE`.
const PERF_TYPE_SOFTWARE: u32 = 1;
/// `PERF_COUNT_SW_TASK_CLOCK`.
const COUNT_SW_TASK_CLOCK: u64 = 1;
/// `exclude_kernel`.
const EXCLUDE_KERNEL: u64 = 1 << 5;
/// `exclude_hv`.
const EXCLUDE_HV: u64 = 1 << 6;
/// The release of the first published struct: its rows need no probe.
const FIRST_RELEASE: KernelVersion = KernelVersion::new(2, 6, 31);

/// The known-good base every bit probe starts from.
pub fn base_attr() -> Attr {
    Attr {
        type_: PERF_TYPE_SOFTWARE,
        config: COUNT_SW_TASK_CLOCK,
        flags: flag::DISABLED | EXCLUDE_KERNEL | EXCLUDE_HV,
        ..Attr::default()
    }
}

/// The base's open arguments: this task, any CPU, no flags.
pub fn base_args() -> OpenArgs {
    OpenArgs {
        pid: 0,
        cpu: -1,
        group_fd: -1,
        flags: 0,
    }
}

/// Sends `attr` with the smallest size that carries it; the answer's class.
pub fn try_open<S: PerfSyscall + ?Sized>(sys: &S, attr: &Attr, args: OpenArgs) -> OutcomeClass {
    let mut bytes = attr.to_bytes(attr.needed_size());
    OutcomeClass::of(sys.open(&mut bytes, args))
}

/// The kernel's `sizeof(struct perf_event_attr)`, from the E2BIG it gives a
/// size-8 attr; `None` if it answers anything else.
pub fn probe_attr_size<S: PerfSyscall + ?Sized>(sys: &S) -> Option<u32> {
    let mut bytes = base_attr().to_bytes(8);
    match OutcomeClass::of(sys.open(&mut bytes, base_args())) {
        OutcomeClass::E2big(size) if size >= 64 => Some(size),
        _ => None,
    }
}

/// The attr and open arguments that probe one feature row, or `None` for rows
/// that are not probed (fields, which the size tells; rows marked
/// `probe = false`; malformed recipes).
pub fn feature_probe(f: &Feature) -> Option<(Attr, OpenArgs)> {
    if f.kind == FeatureKind::Field || !f.probe {
        return None;
    }
    let mut attr = base_attr();
    let mut args = base_args();
    if f.kind == FeatureKind::BranchSampleType {
        // The kernel looks at branch bits only under PERF_SAMPLE_BRANCH_STACK.
        image::apply_recipe(&mut attr, &mut args.flags, "SAMPLE_BRANCH_STACK")?;
    }
    image::set_feature(&mut attr, &mut args.flags, f);
    for entry in &f.probe_with {
        image::apply_recipe(&mut attr, &mut args.flags, entry)?;
    }
    Some((attr, args))
}

/// Whether the kernel knows one feature row; `None` when the row is not
/// probed.
pub fn probe_feature<S: PerfSyscall + ?Sized>(sys: &S, f: &Feature) -> Option<bool> {
    let (attr, args) = feature_probe(f)?;
    Some(try_open(sys, &attr, args).knows())
}

/// Learns a kernel's ABI (see the module docs). Falls back to the table for
/// the release `uname` reports where probing cannot answer.
pub fn probe<S: PerfSyscall + ?Sized>(sys: &S) -> KernelAbi {
    let release = sys.release();
    let version = KernelVersion::from_release(&release);
    // A release without a version: assume the newest the table knows.
    let table_version = version.unwrap_or(KernelVersion::new(u32::MAX, 0, 0));
    let mut abi = KernelAbi::from_table(&release, table_version);
    abi.version = version;
    let Some(size) = probe_attr_size(sys) else {
        return abi;
    };
    abi.attr_size = size;
    if !base_opens(sys) {
        abi.source = AbiSource::SizeProbed;
        return abi;
    }
    abi.known = probe_bits(sys, table_version);
    abi.source = AbiSource::Probed;
    abi
}

/// True when the base event itself opens (else every probe would say "known"
/// for the wrong reason, e.g. EACCES from a distribution's paranoid level 3).
fn base_opens<S: PerfSyscall + ?Sized>(sys: &S) -> bool {
    try_open(sys, &base_attr(), base_args()) == OutcomeClass::Ok
}

/// One probe per row newer than the first release, newest first; rows that
/// are not probed take the table's answer for `version`.
fn probe_bits<S: PerfSyscall + ?Sized>(sys: &S, version: KernelVersion) -> AttrBits {
    let table = FeatureTable::builtin();
    let mut rows: Vec<&Feature> = table
        .feature
        .iter()
        .filter(|f| f.kind != FeatureKind::Field)
        .collect();
    rows.sort_by_key(|f| std::cmp::Reverse(f.since_version()));
    let mut known = AttrBits::NONE;
    for f in rows {
        let knows = if f.since_version() <= FIRST_RELEASE {
            true
        } else {
            probe_feature(sys, f).unwrap_or(f.in_version(version))
        };
        if let (true, Some(word)) = (knows, known.get_mut(f.kind)) {
            *word |= f.mask();
        }
    }
    known
}
