// SPDX-License-Identifier: GPL-2.0-only
//! `perf_copy_attr()` (kernel/events/core.c) for one emulated release, plus
//! the open-flags check that precedes it in `perf_event_open()`.
//!
//! The size rules are the same before and after 5.4's switch to
//! `copy_struct_from_user()`: 0 means VER0; below VER0 or above PAGE_SIZE is
//! E2BIG; larger than the kernel's struct is E2BIG unless the extra bytes are
//! zero; E2BIG writes the kernel's size back. Which padding is checked comes
//! from the table's `[[reserved]]` rows (`__reserved_2` only from 5.4).

use perf_abi::{FeatureKind, FeatureTable};

use crate::abi::image::nonzero;
use crate::abi::syscall::OpenArgs;
use crate::attr::AttrBytes;

use super::view::View;
use super::EmulatedKernel;

/// PERF_ATTR_SIZE_VER0.
const VER0: u32 = 64;
/// `PERF_SAMPLE_BRANCH_PLM_ALL` (user, kernel, hv).
const BRANCH_PLM_ALL: u64 = 0b111;
/// `USHRT_MAX`: `sample_stack_user` must stay below it.
const USHRT_MAX: u64 = 0xffff;

/// Reads the attr as `k` would; the kernel's copy, or the errno.
pub(super) fn copy_attr(
    k: &EmulatedKernel,
    attr: &mut AttrBytes,
    args: OpenArgs,
) -> Result<View, i32> {
    // perf_event_open(): "for future expandability…"
    if args.flags & !k.known.open_flags != 0 {
        return Err(libc::EINVAL);
    }
    let size = match attr.size_field() {
        0 => VER0,
        s => s,
    };
    if size < VER0 || size > k.page_size {
        return Err(e2big(k, attr));
    }
    if size > k.attr_size && nonzero(attr.bytes(), k.attr_size, size - k.attr_size) {
        return Err(e2big(k, attr));
    }
    let view = View::new(attr.bytes(), size.min(k.attr_size) as usize);
    check_reserved(k, &view)?;
    check_masks(k, &view)?;
    check_sample_fields(&view)?;
    check_consistency(&view)?;
    Ok(view)
}

/// `err_size:` writes the kernel's size back and returns E2BIG.
fn e2big(k: &EmulatedKernel, attr: &mut AttrBytes) -> i32 {
    if let Some(size) = attr.bytes_mut().get_mut(4..8) {
        size.copy_from_slice(&k.attr_size.to_ne_bytes());
    }
    libc::E2BIG
}

/// `__reserved_1` (flag bits beyond the kernel's), the checked padding, and
/// the reserved bits of `aux_action`.
fn check_reserved(k: &EmulatedKernel, view: &View) -> Result<(), i32> {
    let table = FeatureTable::builtin();
    if view.word(FeatureKind::Flag) & !k.known.flags != 0 {
        return Err(libc::EINVAL);
    }
    let padding = table
        .reserved
        .iter()
        .filter(|r| r.checked_in(k.version))
        .any(|r| nonzero(view.bytes(), r.offset, r.size));
    if padding {
        return Err(libc::EINVAL);
    }
    let has_aux_action = table
        .get("aux_action")
        .is_some_and(|f| f.in_version(k.version));
    if has_aux_action && view.word(FeatureKind::AuxAction) & !k.known.aux_action != 0 {
        return Err(libc::EINVAL);
    }
    Ok(())
}

/// `sample_type & ~(PERF_SAMPLE_MAX-1)`, the same for `read_format`, and the
/// branch checks under PERF_SAMPLE_BRANCH_STACK.
fn check_masks(k: &EmulatedKernel, view: &View) -> Result<(), i32> {
    if view.word(FeatureKind::SampleType) & !k.known.sample_type != 0 {
        return Err(libc::EINVAL);
    }
    if view.word(FeatureKind::ReadFormat) & !k.known.read_format != 0 {
        return Err(libc::EINVAL);
    }
    if view.has("SAMPLE_BRANCH_STACK") {
        let mask = view.word(FeatureKind::BranchSampleType);
        // only using defined bits; at least one branch bit must be set
        if mask & !k.known.branch_sample_type != 0 || mask & !BRANCH_PLM_ALL == 0 {
            return Err(libc::EINVAL);
        }
    }
    Ok(())
}

/// The register and user-stack sampling checks (x86's `perf_reg_validate()`
/// refuses an empty mask).
fn check_sample_fields(view: &View) -> Result<(), i32> {
    if view.has("SAMPLE_REGS_USER") && view.field("sample_regs_user") == 0 {
        return Err(libc::EINVAL);
    }
    if view.has("SAMPLE_STACK_USER") {
        let stack = view.field("sample_stack_user");
        if stack >= USHRT_MAX || stack % 8 != 0 {
            return Err(libc::EINVAL);
        }
    }
    if view.has("SAMPLE_REGS_INTR") && view.field("sample_regs_intr") == 0 {
        return Err(libc::EINVAL);
    }
    Ok(())
}

/// Contradictory attrs (5.12, 5.13): only reachable on kernels that know the
/// bits, since unknown bits failed above.
fn check_consistency(view: &View) -> Result<(), i32> {
    let contradictions = [
        view.has("SAMPLE_WEIGHT") && view.has("SAMPLE_WEIGHT_STRUCT"),
        view.has("inherit_thread") && !view.has("inherit"),
        view.has("remove_on_exec") && view.has("enable_on_exec"),
        view.has("sigtrap") && !view.has("remove_on_exec"),
    ];
    if contradictions.into_iter().any(|c| c) {
        return Err(libc::EINVAL);
    }
    Ok(())
}
