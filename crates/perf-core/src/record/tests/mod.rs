// SPDX-License-Identifier: GPL-2.0-only
//! Tests of the record parser: hand-built records of every type, a
//! build/parse round trip over sample_type × read_format combinations,
//! truncations, random bytes, and records captured from the running kernel.

mod bodies;
mod builder;
mod live;
mod members;
mod roundtrip;

use crate::attr::{flag, Attr};
use crate::record::*;

/// A `ParseInfo` from the few attr fields the parser looks at.
pub(crate) fn info_with(sample_type: u64, read_format: u64, sample_id_all: bool) -> ParseInfo {
    let mut attr = Attr {
        sample_type,
        read_format,
        sample_period: 4000,
        ..Attr::default()
    };
    attr.set(flag::SAMPLE_ID_ALL, sample_id_all);
    ParseInfo::new(&attr)
}

/// Every sample_type bit the parser knows, 1 << 0 ..= 1 << 24.
pub(crate) const ALL_SAMPLE_BITS: u64 = (1 << 25) - 1;
/// Every read_format bit, 1 << 0 ..= 1 << 4.
pub(crate) const ALL_READ_BITS: u64 = (1 << 5) - 1;

#[test]
fn constants_match_the_uapi_bindings() {
    use perf_event_open_sys::bindings as b;
    let pairs: &[(u64, u64)] = &[
        (PERF_SAMPLE_IP, b::PERF_SAMPLE_IP.into()),
        (PERF_SAMPLE_TID, b::PERF_SAMPLE_TID.into()),
        (PERF_SAMPLE_TIME, b::PERF_SAMPLE_TIME.into()),
        (PERF_SAMPLE_ADDR, b::PERF_SAMPLE_ADDR.into()),
        (PERF_SAMPLE_READ, b::PERF_SAMPLE_READ.into()),
        (PERF_SAMPLE_CALLCHAIN, b::PERF_SAMPLE_CALLCHAIN.into()),
        (PERF_SAMPLE_ID, b::PERF_SAMPLE_ID.into()),
        (PERF_SAMPLE_CPU, b::PERF_SAMPLE_CPU.into()),
        (PERF_SAMPLE_PERIOD, b::PERF_SAMPLE_PERIOD.into()),
        (PERF_SAMPLE_STREAM_ID, b::PERF_SAMPLE_STREAM_ID.into()),
        (PERF_SAMPLE_RAW, b::PERF_SAMPLE_RAW.into()),
        (PERF_SAMPLE_BRANCH_STACK, b::PERF_SAMPLE_BRANCH_STACK.into()),
        (PERF_SAMPLE_REGS_USER, b::PERF_SAMPLE_REGS_USER.into()),
        (PERF_SAMPLE_STACK_USER, b::PERF_SAMPLE_STACK_USER.into()),
        (PERF_SAMPLE_WEIGHT, b::PERF_SAMPLE_WEIGHT.into()),
        (PERF_SAMPLE_DATA_SRC, b::PERF_SAMPLE_DATA_SRC.into()),
        (PERF_SAMPLE_IDENTIFIER, b::PERF_SAMPLE_IDENTIFIER.into()),
        (PERF_SAMPLE_TRANSACTION, b::PERF_SAMPLE_TRANSACTION.into()),
        (PERF_SAMPLE_REGS_INTR, b::PERF_SAMPLE_REGS_INTR.into()),
        (PERF_SAMPLE_PHYS_ADDR, b::PERF_SAMPLE_PHYS_ADDR.into()),
        (PERF_SAMPLE_AUX, b::PERF_SAMPLE_AUX.into()),
        (PERF_SAMPLE_CGROUP, b::PERF_SAMPLE_CGROUP.into()),
        (
            PERF_SAMPLE_DATA_PAGE_SIZE,
            b::PERF_SAMPLE_DATA_PAGE_SIZE.into(),
        ),
        (
            PERF_SAMPLE_CODE_PAGE_SIZE,
            b::PERF_SAMPLE_CODE_PAGE_SIZE.into(),
        ),
        (
            PERF_SAMPLE_WEIGHT_STRUCT,
            b::PERF_SAMPLE_WEIGHT_STRUCT.into(),
        ),
        (ALL_SAMPLE_BITS + 1, b::PERF_SAMPLE_MAX.into()),
        (
            PERF_FORMAT_TOTAL_TIME_ENABLED,
            b::PERF_FORMAT_TOTAL_TIME_ENABLED.into(),
        ),
        (
            PERF_FORMAT_TOTAL_TIME_RUNNING,
            b::PERF_FORMAT_TOTAL_TIME_RUNNING.into(),
        ),
        (PERF_FORMAT_ID, b::PERF_FORMAT_ID.into()),
        (PERF_FORMAT_GROUP, b::PERF_FORMAT_GROUP.into()),
        (PERF_FORMAT_LOST, b::PERF_FORMAT_LOST.into()),
        (ALL_READ_BITS + 1, b::PERF_FORMAT_MAX.into()),
        (
            PERF_SAMPLE_BRANCH_HW_INDEX,
            b::PERF_SAMPLE_BRANCH_HW_INDEX.into(),
        ),
        (
            PERF_SAMPLE_BRANCH_COUNTERS,
            b::PERF_SAMPLE_BRANCH_COUNTERS.into(),
        ),
        (
            PERF_RECORD_MISC_SWITCH_OUT.into(),
            b::PERF_RECORD_MISC_SWITCH_OUT.into(),
        ),
        (
            PERF_RECORD_MISC_MMAP_BUILD_ID.into(),
            b::PERF_RECORD_MISC_MMAP_BUILD_ID.into(),
        ),
        (
            PERF_RECORD_MISC_CPUMODE_MASK.into(),
            b::PERF_RECORD_MISC_CPUMODE_MASK.into(),
        ),
    ];
    for (i, (ours, theirs)) in pairs.iter().enumerate() {
        assert_eq!(ours, theirs, "constant #{i}");
    }
    let records: &[(u32, u32)] = &[
        (PERF_RECORD_MMAP, b::PERF_RECORD_MMAP),
        (PERF_RECORD_LOST, b::PERF_RECORD_LOST),
        (PERF_RECORD_COMM, b::PERF_RECORD_COMM),
        (PERF_RECORD_EXIT, b::PERF_RECORD_EXIT),
        (PERF_RECORD_THROTTLE, b::PERF_RECORD_THROTTLE),
        (PERF_RECORD_UNTHROTTLE, b::PERF_RECORD_UNTHROTTLE),
        (PERF_RECORD_FORK, b::PERF_RECORD_FORK),
        (PERF_RECORD_READ, b::PERF_RECORD_READ),
        (PERF_RECORD_SAMPLE, b::PERF_RECORD_SAMPLE),
        (PERF_RECORD_MMAP2, b::PERF_RECORD_MMAP2),
        (PERF_RECORD_AUX, b::PERF_RECORD_AUX),
        (PERF_RECORD_ITRACE_START, b::PERF_RECORD_ITRACE_START),
        (PERF_RECORD_LOST_SAMPLES, b::PERF_RECORD_LOST_SAMPLES),
        (PERF_RECORD_SWITCH, b::PERF_RECORD_SWITCH),
        (PERF_RECORD_SWITCH_CPU_WIDE, b::PERF_RECORD_SWITCH_CPU_WIDE),
        (PERF_RECORD_NAMESPACES, b::PERF_RECORD_NAMESPACES),
        (PERF_RECORD_KSYMBOL, b::PERF_RECORD_KSYMBOL),
        (PERF_RECORD_BPF_EVENT, b::PERF_RECORD_BPF_EVENT),
        (PERF_RECORD_CGROUP, b::PERF_RECORD_CGROUP),
        (PERF_RECORD_TEXT_POKE, b::PERF_RECORD_TEXT_POKE),
        (
            PERF_RECORD_AUX_OUTPUT_HW_ID,
            b::PERF_RECORD_AUX_OUTPUT_HW_ID,
        ),
        (
            PERF_RECORD_CALLCHAIN_DEFERRED,
            b::PERF_RECORD_CALLCHAIN_DEFERRED,
        ),
    ];
    for &(ours, theirs) in records {
        assert_eq!(ours, theirs);
        assert_ne!(record_name(ours), "perf record", "{ours} has a name");
    }
}
