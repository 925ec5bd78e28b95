// SPDX-License-Identifier: GPL-2.0-only
//! What the parser needs to know about an evsel, computed once from its attr.

use super::abi::*;
use super::members::MembersLayout;
use crate::attr::{flag, Attr};

/// The layout facts of one evsel's records, precomputed from its
/// `perf_event_attr` (linux-perf-event-reader's `RecordParseInfo`, perf's `evsel->id_pos`,
/// `evsel->is_pos`, `evsel->sample_size`).
///
/// Records from the same ring can come from different evsels; the caller
/// picks the evsel first (with [`event_id`](super::event_id) and the
/// evlist's id table, or because there is only one) and parses with that
/// evsel's `ParseInfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseInfo {
    sample_type: u64,
    read_format: u64,
    sample_id_all: bool,
    sample_period: u64,
    regs_user_mask: u64,
    regs_intr_mask: u64,
    // popcount of the masks, 0..=64.
    regs_user_nr: u64,
    regs_intr_nr: u64,
    branch_hw_index: bool,
    branch_counters: bool,
    // Bytes of the sample_id trailer of non-SAMPLE records, 0..=48.
    trailer_size: usize,
    // u64 index of the id in a SAMPLE body (perf's id_pos), 0..=4.
    id_pos: Option<usize>,
    // u64 index of the id counted from the end of other records (perf's
    // is_pos: 1 = the last u64), 1..=3.
    is_pos: Option<usize>,
    // Bytes of the fixed u64 fields at the front of a SAMPLE body.
    sample_size: usize,
    // Member offsets for the fast path (fixed fields and RAW only).
    members: Option<MembersLayout>,
}

impl ParseInfo {
    /// The parse info of an evsel with this attr.
    pub fn new(attr: &Attr) -> Self {
        let t = attr.sample_type;
        let bytes_of = |mask: u64| 8 * (t & mask).count_ones() as usize;
        ParseInfo {
            sample_type: t,
            read_format: attr.read_format,
            sample_id_all: attr.has(flag::SAMPLE_ID_ALL),
            sample_period: attr.sample_period,
            regs_user_mask: attr.sample_regs_user,
            regs_intr_mask: attr.sample_regs_intr,
            regs_user_nr: u64::from(attr.sample_regs_user.count_ones()),
            regs_intr_nr: u64::from(attr.sample_regs_intr.count_ones()),
            branch_hw_index: attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX != 0,
            branch_counters: attr.branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS != 0,
            trailer_size: bytes_of(SAMPLE_ID_BITS),
            id_pos: id_pos(t),
            is_pos: is_pos(t),
            sample_size: bytes_of(PERF_SAMPLE_MASK),
            members: MembersLayout::new(t),
        }
    }

    /// `attr.sample_type`.
    pub fn sample_type(&self) -> u64 {
        self.sample_type
    }

    /// `attr.read_format`.
    pub fn read_format(&self) -> u64 {
        self.read_format
    }

    /// `attr.sample_id_all`: non-SAMPLE records end with a `sample_id` trailer.
    pub fn sample_id_all(&self) -> bool {
        self.sample_id_all
    }

    /// `attr.sample_period` (the union slot: the frequency for freq events);
    /// perf's value of `sample.period` when `PERF_SAMPLE_PERIOD` is not set.
    pub fn sample_period(&self) -> u64 {
        self.sample_period
    }

    /// `attr.sample_regs_user`.
    pub fn regs_user_mask(&self) -> u64 {
        self.regs_user_mask
    }

    /// `attr.sample_regs_intr`.
    pub fn regs_intr_mask(&self) -> u64 {
        self.regs_intr_mask
    }

    pub(crate) fn regs_user_nr(&self) -> u64 {
        self.regs_user_nr
    }

    pub(crate) fn regs_intr_nr(&self) -> u64 {
        self.regs_intr_nr
    }

    /// Branch stacks carry `hw_idx` (`PERF_SAMPLE_BRANCH_HW_INDEX`).
    pub fn branch_hw_index(&self) -> bool {
        self.branch_hw_index
    }

    /// Branch stacks carry per-entry counters (`PERF_SAMPLE_BRANCH_COUNTERS`).
    pub fn branch_counters(&self) -> bool {
        self.branch_counters
    }

    /// Size in bytes of the `sample_id` trailer of non-SAMPLE records when
    /// `sample_id_all` is set (0 otherwise).
    pub fn trailer_size(&self) -> usize {
        if self.sample_id_all {
            self.trailer_size
        } else {
            0
        }
    }

    /// perf's `id_pos`: index of the id among the u64s of a SAMPLE body.
    pub fn id_pos(&self) -> Option<usize> {
        self.id_pos
    }

    /// perf's `is_pos`: index of the id among the u64s of a non-SAMPLE
    /// record, counted from the end (1 = the last u64).
    pub fn is_pos(&self) -> Option<usize> {
        self.is_pos
    }

    /// perf's `evsel->sample_size`: the fixed-size u64 fields of a SAMPLE body.
    pub fn sample_size(&self) -> usize {
        self.sample_size
    }

    /// Where the sample members are, when `sample_type` has only fixed-size
    /// fields and RAW (see [`sample_members`](super::sample_members)).
    pub(crate) fn members_layout(&self) -> Option<&MembersLayout> {
        self.members.as_ref()
    }
}

/// perf's `__perf_evsel__calc_id_pos`.
fn id_pos(t: u64) -> Option<usize> {
    if t & PERF_SAMPLE_IDENTIFIER != 0 {
        return Some(0);
    }
    if t & PERF_SAMPLE_ID == 0 {
        return None;
    }
    Some(
        (t & (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR)).count_ones()
            as usize,
    )
}

/// perf's `__perf_evsel__calc_is_pos`.
fn is_pos(t: u64) -> Option<usize> {
    if t & PERF_SAMPLE_IDENTIFIER != 0 {
        return Some(1);
    }
    if t & PERF_SAMPLE_ID == 0 {
        return None;
    }
    Some(1 + (t & (PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID)).count_ones() as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(sample_type: u64, sample_id_all: bool) -> ParseInfo {
        let mut attr = Attr {
            sample_type,
            ..Attr::default()
        };
        attr.set(flag::SAMPLE_ID_ALL, sample_id_all);
        ParseInfo::new(&attr)
    }

    #[test]
    fn id_positions_follow_perf() {
        let all = PERF_SAMPLE_IP
            | PERF_SAMPLE_TID
            | PERF_SAMPLE_TIME
            | PERF_SAMPLE_ADDR
            | PERF_SAMPLE_ID
            | PERF_SAMPLE_STREAM_ID
            | PERF_SAMPLE_CPU;
        assert_eq!(info(all, true).id_pos(), Some(4));
        assert_eq!(info(all, true).is_pos(), Some(3));
        assert_eq!(info(all | PERF_SAMPLE_IDENTIFIER, true).id_pos(), Some(0));
        assert_eq!(info(all | PERF_SAMPLE_IDENTIFIER, true).is_pos(), Some(1));
        assert_eq!(
            info(PERF_SAMPLE_ID | PERF_SAMPLE_TIME, true).id_pos(),
            Some(1)
        );
        assert_eq!(
            info(PERF_SAMPLE_ID | PERF_SAMPLE_CPU, true).is_pos(),
            Some(2)
        );
        assert_eq!(info(all & !PERF_SAMPLE_ID, true).id_pos(), None);
        assert_eq!(info(all & !PERF_SAMPLE_ID, true).is_pos(), None);
    }

    #[test]
    fn sizes() {
        let t = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
        assert_eq!(info(t, true).trailer_size(), 24);
        assert_eq!(info(t, false).trailer_size(), 0);
        assert_eq!(info(t | PERF_SAMPLE_READ, true).sample_size(), 32);
    }
}
