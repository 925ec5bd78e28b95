// SPDX-License-Identifier: GPL-2.0-only
//! What in an attr a kernel (or a build's target) lacks, and the sentence
//! that names it: "this kernel (6.18.44) does not support 'defer_callchain'
//! (added in Linux 6.19)".

use perf_abi::{Feature, FeatureKind, FeatureTable, KernelVersion, Reserved};

use crate::attr::Attr;

use super::image;
use super::kernel_abi::{AttrBits, BuildTarget, KernelAbi};
use super::replacing;

/// One thing an attr uses that a kernel does not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lack {
    /// A feature row of the table.
    Feature(&'static Feature),
    /// A bit no row of the table names.
    UnknownBit {
        /// The word it is in.
        kind: FeatureKind,
        /// Its position.
        bit: u32,
    },
    /// Padding the kernel requires to be zero.
    Reserved(&'static Reserved),
}

impl Lack {
    /// The word and mask to clear to drop it, if it is bits.
    pub fn bits(&self) -> Option<(FeatureKind, u64)> {
        match *self {
            Lack::Feature(f) if f.kind != FeatureKind::Field => Some((f.kind, f.mask())),
            Lack::UnknownBit { kind, bit } => Some((kind, 1u64.checked_shl(bit).unwrap_or(0))),
            _ => None,
        }
    }

    /// True when every bit of it is in `defaults` (so it may fall back).
    pub fn is_default(&self, defaults: &AttrBits) -> bool {
        self.bits()
            .is_some_and(|(kind, mask)| mask != 0 && defaults.get(kind) & mask == mask)
    }

    /// Its name: the row's, or `sample_type bit 40`.
    pub fn name(&self) -> String {
        match *self {
            Lack::Feature(f) => f.name.clone(),
            Lack::UnknownBit { kind, bit } => format!("{} bit {bit}", kind.word()),
            Lack::Reserved(r) => r.name.clone(),
        }
    }

    /// The release that added it (none for unknown bits and padding).
    pub fn since(&self) -> Option<KernelVersion> {
        match *self {
            Lack::Feature(f) => Some(f.since_version()),
            _ => None,
        }
    }

    /// `'defer_callchain' (added in Linux 6.19)`, `'aux_pause' (added in
    /// Linux 6.13 and 6.12.24)`. With the kernel's version, a feature the
    /// table gives that release is said to be configured out.
    pub fn describe(&self, kernel: Option<KernelVersion>) -> String {
        match *self {
            Lack::Feature(f) => match kernel {
                Some(v) if f.in_version(v) => format!(
                    "'{}' (added in Linux {}, but configured out or not backported here)",
                    f.name,
                    f.since_text()
                ),
                _ => format!("'{}' (added in Linux {})", f.name, f.since_text()),
            },
            Lack::UnknownBit { .. } => format!("{} (no Linux release has it)", self.name()),
            Lack::Reserved(r) => format!("'{}' (padding that must be zero)", r.name),
        }
    }
}

/// Every bit of `attr` (and its open flags) outside `known`, as rows of the
/// table where it has them. Branch bits count only under
/// PERF_SAMPLE_BRANCH_STACK, as the kernel checks them only then.
fn lacking_bits(attr: &Attr, open_flags: u64, known: &AttrBits) -> Vec<Lack> {
    let table = FeatureTable::builtin();
    let mut out = Vec::new();
    let branch_stack = table
        .get("SAMPLE_BRANCH_STACK")
        .is_some_and(|f| attr.sample_type & f.mask() != 0);
    for kind in FeatureKind::BITS {
        if kind == FeatureKind::BranchSampleType && !branch_stack {
            continue;
        }
        let mut missing = image::word(attr, open_flags, kind) & !known.get(kind);
        for f in table.by_mask(kind, missing) {
            out.push(Lack::Feature(f));
            missing &= !f.mask();
        }
        while missing != 0 {
            let bit = missing.trailing_zeros();
            out.push(Lack::UnknownBit { kind, bit });
            missing &= missing - 1;
        }
    }
    out
}

/// Newest first, padding and unknown bits last; no duplicates; the
/// `aux_action` field is named by its bits.
fn sorted(lacks: Vec<Lack>) -> Vec<Lack> {
    let mut out: Vec<Lack> = Vec::with_capacity(lacks.len());
    for l in lacks {
        if !out.contains(&l) {
            out.push(l);
        }
    }
    let aux_bits = out
        .iter()
        .any(|l| matches!(l, Lack::Feature(f) if f.kind == FeatureKind::AuxAction));
    if aux_bits {
        out.retain(|l| !matches!(l, Lack::Feature(f) if f.name == "aux_action"));
    }
    out.sort_by_key(|l| std::cmp::Reverse(l.since()));
    out
}

/// What `attr` uses that the kernel described by `abi` lacks. `kernel_size`
/// is the kernel's struct size (the E2BIG answer when there is one).
pub fn kernel_lacks(abi: &KernelAbi, attr: &Attr, open_flags: u64, kernel_size: u32) -> Vec<Lack> {
    let mut out = lacking_bits(attr, open_flags, &abi.known);
    for f in image::fields_set(attr) {
        if f.end() > kernel_size {
            out.push(Lack::Feature(f));
        }
    }
    out.extend(padding_lacks(attr, abi.version));
    sorted(out)
}

/// The checked padding of `version` that `attr` has non-zero, named after the
/// newer field that lives there when there is one.
fn padding_lacks(attr: &Attr, version: Option<KernelVersion>) -> Vec<Lack> {
    let Some(version) = version else {
        // Only padding still padding today can be blamed without a version.
        return image::reserved_set(attr)
            .into_iter()
            .filter(|r| r.until.is_none())
            .map(Lack::Reserved)
            .collect();
    };
    let fields = image::fields_set(attr);
    image::reserved_set(attr)
        .into_iter()
        .filter(|r| r.checked_in(version))
        .map(|r| {
            let newer = fields.iter().find(|f| {
                let o = f.offset.unwrap_or(0);
                o < r.offset + r.size && f.end() > r.offset
            });
            match newer {
                Some(f) => Lack::Feature(f),
                None => Lack::Reserved(r),
            }
        })
        .collect()
}

/// What `attr` uses that a build's target kernel lacks.
pub fn target_lacks(target: &BuildTarget, attr: &Attr, open_flags: u64) -> Vec<Lack> {
    let mut out = lacking_bits(attr, open_flags, &target.known());
    for f in image::fields_set(attr) {
        if !target.has(&f.name) {
            out.push(Lack::Feature(f));
        }
    }
    out.extend(padding_lacks(attr, target.version));
    sorted(out)
}

/// `'a' (added in Linux X), 'b' (added in Linux Y)`; module defaults are
/// marked as such.
fn list(lacks: &[Lack], kernel: Option<KernelVersion>, defaults: &AttrBits) -> String {
    lacks
        .iter()
        .map(|l| {
            let mut s = l.describe(kernel);
            if l.is_default(defaults) {
                s.push_str(", a module default that strict mode does not drop");
            } else if let Some(perf) = replacing::perf_would(&l.name()) {
                s.push_str(&perf);
            }
            s
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The hint for a kernel that lacks `lacks`: "this kernel (6.18.44) does not
/// support 'config4' (added in Linux 6.19): its perf_event_attr is 136 bytes".
pub fn kernel_message(
    abi: &KernelAbi,
    lacks: &[Lack],
    defaults: &AttrBits,
    e2big_size: Option<u32>,
) -> String {
    let mut s = format!(
        "this kernel ({}) does not support {}",
        abi.describe(),
        list(lacks, abi.version, defaults)
    );
    if let Some(size) = e2big_size {
        s.push_str(&format!(": its perf_event_attr is {size} bytes"));
    }
    s
}

/// The refusal of a build whose target lacks `lacks`: "this build targets
/// Linux 6.8 (ABI 6.8.0-31) which has no 'config4' (added in Linux 6.19)".
pub fn target_message(target: &BuildTarget, lacks: &[Lack], defaults: &AttrBits) -> String {
    format!(
        "this build targets {target} which has no {}",
        list(lacks, None, defaults)
    )
}
