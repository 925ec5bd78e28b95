// SPDX-License-Identifier: GPL-2.0-only
//! Evsel layouts: the attr fields that decide how records are laid out.

use perf_core::attr::{flag, Attr};
use perf_core::record::{PERF_SAMPLE_BRANCH_COUNTERS, PERF_SAMPLE_BRANCH_HW_INDEX};

use crate::rng::Rng;

/// The `sample_type` bits of the uapi header (0..=24).
pub const SAMPLE_BITS: u32 = 25;
/// Every known `sample_type` bit.
pub const SAMPLE_KNOWN: u64 = (1 << SAMPLE_BITS) - 1;
/// The `read_format` bits (TOTAL_TIME_ENABLED, TOTAL_TIME_RUNNING, ID,
/// GROUP, LOST).
pub const FORMAT_BITS: u32 = 5;

/// A layout.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// The attr the parser gets.
    pub attr: Attr,
}

impl Layout {
    /// A layout with these `sample_type`/`read_format` and random other
    /// layout fields (register masks, branch flags, sample_id_all).
    pub fn new(sample_type: u64, read_format: u64, rng: &mut Rng) -> Self {
        let mask = |rng: &mut Rng| match rng.below(4) {
            0 => 0,
            1 => u64::MAX,
            _ => rng.u64() & rng.u64(),
        };
        let mut attr = Attr {
            sample_type,
            read_format,
            sample_regs_user: mask(rng),
            sample_regs_intr: mask(rng),
            sample_period: rng.interesting(),
            ..Attr::default()
        };
        if rng.one_in(2) {
            attr.branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX;
        }
        if rng.one_in(3) {
            attr.branch_sample_type |= PERF_SAMPLE_BRANCH_COUNTERS;
        }
        attr.set(flag::SAMPLE_ID_ALL, !rng.one_in(4));
        Layout { attr }
    }

    /// A random layout: known bits mostly, any bits sometimes.
    pub fn random(rng: &mut Rng) -> Self {
        let st = if rng.one_in(16) {
            rng.u64()
        } else {
            rng.u64() & SAMPLE_KNOWN
        };
        let rf = if rng.one_in(16) {
            rng.u64()
        } else {
            rng.below(1 << FORMAT_BITS)
        };
        Layout::new(st, rf, rng)
    }

    /// `sample_type`.
    pub fn sample_type(&self) -> u64 {
        self.attr.sample_type
    }

    /// `read_format`.
    pub fn read_format(&self) -> u64 {
        self.attr.read_format
    }

    /// True when the layout uses only bits the parser knows.
    pub fn known(&self) -> bool {
        self.attr.sample_type & !SAMPLE_KNOWN == 0 && self.attr.read_format >> FORMAT_BITS == 0
    }
}
