// SPDX-License-Identifier: GPL-2.0-only
//! The uapi constants the record parser needs, spelled as in
//! `include/uapi/linux/perf_event.h`. The values are checked against
//! perf-event-open-sys's bindings in the tests.

/// Size of `struct perf_event_header`.
pub const HEADER_SIZE: usize = 8;

/// `PERF_RECORD_MMAP`
pub const PERF_RECORD_MMAP: u32 = 1;
/// `PERF_RECORD_LOST`
pub const PERF_RECORD_LOST: u32 = 2;
/// `PERF_RECORD_COMM`
pub const PERF_RECORD_COMM: u32 = 3;
/// `PERF_RECORD_EXIT`
pub const PERF_RECORD_EXIT: u32 = 4;
/// `PERF_RECORD_THROTTLE`
pub const PERF_RECORD_THROTTLE: u32 = 5;
/// `PERF_RECORD_UNTHROTTLE`
pub const PERF_RECORD_UNTHROTTLE: u32 = 6;
/// `PERF_RECORD_FORK`
pub const PERF_RECORD_FORK: u32 = 7;
/// `PERF_RECORD_READ`
pub const PERF_RECORD_READ: u32 = 8;
/// `PERF_RECORD_SAMPLE`
pub const PERF_RECORD_SAMPLE: u32 = 9;
/// `PERF_RECORD_MMAP2`
pub const PERF_RECORD_MMAP2: u32 = 10;
/// `PERF_RECORD_AUX`
pub const PERF_RECORD_AUX: u32 = 11;
/// `PERF_RECORD_ITRACE_START`
pub const PERF_RECORD_ITRACE_START: u32 = 12;
/// `PERF_RECORD_LOST_SAMPLES`
pub const PERF_RECORD_LOST_SAMPLES: u32 = 13;
/// `PERF_RECORD_SWITCH`
pub const PERF_RECORD_SWITCH: u32 = 14;
/// `PERF_RECORD_SWITCH_CPU_WIDE`
pub const PERF_RECORD_SWITCH_CPU_WIDE: u32 = 15;
/// `PERF_RECORD_NAMESPACES`
pub const PERF_RECORD_NAMESPACES: u32 = 16;
/// `PERF_RECORD_KSYMBOL`
pub const PERF_RECORD_KSYMBOL: u32 = 17;
/// `PERF_RECORD_BPF_EVENT`
pub const PERF_RECORD_BPF_EVENT: u32 = 18;
/// `PERF_RECORD_CGROUP`
pub const PERF_RECORD_CGROUP: u32 = 19;
/// `PERF_RECORD_TEXT_POKE`
pub const PERF_RECORD_TEXT_POKE: u32 = 20;
/// `PERF_RECORD_AUX_OUTPUT_HW_ID`
pub const PERF_RECORD_AUX_OUTPUT_HW_ID: u32 = 21;
/// `PERF_RECORD_CALLCHAIN_DEFERRED` (6.18)
pub const PERF_RECORD_CALLCHAIN_DEFERRED: u32 = 22;

/// `PERF_RECORD_MISC_CPUMODE_MASK`
pub const PERF_RECORD_MISC_CPUMODE_MASK: u16 = 7;
/// `PERF_RECORD_MISC_SWITCH_OUT` (on SWITCH records; the same bit is
/// `MMAP_DATA`, `COMM_EXEC` and `FORK_EXEC` on other types)
pub const PERF_RECORD_MISC_SWITCH_OUT: u16 = 1 << 13;
/// `PERF_RECORD_MISC_MMAP_BUILD_ID`: an MMAP2 record carries a build id
/// instead of maj/min/ino/ino_generation.
pub const PERF_RECORD_MISC_MMAP_BUILD_ID: u16 = 1 << 14;

/// `PERF_SAMPLE_IP`
pub const PERF_SAMPLE_IP: u64 = 1 << 0;
/// `PERF_SAMPLE_TID`
pub const PERF_SAMPLE_TID: u64 = 1 << 1;
/// `PERF_SAMPLE_TIME`
pub const PERF_SAMPLE_TIME: u64 = 1 << 2;
/// `PERF_SAMPLE_ADDR`
pub const PERF_SAMPLE_ADDR: u64 = 1 << 3;
/// `PERF_SAMPLE_READ`
pub const PERF_SAMPLE_READ: u64 = 1 << 4;
/// `PERF_SAMPLE_CALLCHAIN`
pub const PERF_SAMPLE_CALLCHAIN: u64 = 1 << 5;
/// `PERF_SAMPLE_ID`
pub const PERF_SAMPLE_ID: u64 = 1 << 6;
/// `PERF_SAMPLE_CPU`
pub const PERF_SAMPLE_CPU: u64 = 1 << 7;
/// `PERF_SAMPLE_PERIOD`
pub const PERF_SAMPLE_PERIOD: u64 = 1 << 8;
/// `PERF_SAMPLE_STREAM_ID`
pub const PERF_SAMPLE_STREAM_ID: u64 = 1 << 9;
/// `PERF_SAMPLE_RAW`
pub const PERF_SAMPLE_RAW: u64 = 1 << 10;
/// `PERF_SAMPLE_BRANCH_STACK`
pub const PERF_SAMPLE_BRANCH_STACK: u64 = 1 << 11;
/// `PERF_SAMPLE_REGS_USER`
pub const PERF_SAMPLE_REGS_USER: u64 = 1 << 12;
/// `PERF_SAMPLE_STACK_USER`
pub const PERF_SAMPLE_STACK_USER: u64 = 1 << 13;
/// `PERF_SAMPLE_WEIGHT`
pub const PERF_SAMPLE_WEIGHT: u64 = 1 << 14;
/// `PERF_SAMPLE_DATA_SRC`
pub const PERF_SAMPLE_DATA_SRC: u64 = 1 << 15;
/// `PERF_SAMPLE_IDENTIFIER`
pub const PERF_SAMPLE_IDENTIFIER: u64 = 1 << 16;
/// `PERF_SAMPLE_TRANSACTION`
pub const PERF_SAMPLE_TRANSACTION: u64 = 1 << 17;
/// `PERF_SAMPLE_REGS_INTR`
pub const PERF_SAMPLE_REGS_INTR: u64 = 1 << 18;
/// `PERF_SAMPLE_PHYS_ADDR`
pub const PERF_SAMPLE_PHYS_ADDR: u64 = 1 << 19;
/// `PERF_SAMPLE_AUX`
pub const PERF_SAMPLE_AUX: u64 = 1 << 20;
/// `PERF_SAMPLE_CGROUP`
pub const PERF_SAMPLE_CGROUP: u64 = 1 << 21;
/// `PERF_SAMPLE_DATA_PAGE_SIZE`
pub const PERF_SAMPLE_DATA_PAGE_SIZE: u64 = 1 << 22;
/// `PERF_SAMPLE_CODE_PAGE_SIZE`
pub const PERF_SAMPLE_CODE_PAGE_SIZE: u64 = 1 << 23;
/// `PERF_SAMPLE_WEIGHT_STRUCT`
pub const PERF_SAMPLE_WEIGHT_STRUCT: u64 = 1 << 24;
/// `PERF_SAMPLE_WEIGHT_TYPE` (either weight layout)
pub const PERF_SAMPLE_WEIGHT_TYPE: u64 = PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT;

/// The bits that can appear in the `sample_id` trailer of non-SAMPLE records
/// (`IP`, `ADDR` and `PERIOD` never do).
pub const SAMPLE_ID_BITS: u64 = PERF_SAMPLE_TID
    | PERF_SAMPLE_TIME
    | PERF_SAMPLE_ID
    | PERF_SAMPLE_STREAM_ID
    | PERF_SAMPLE_CPU
    | PERF_SAMPLE_IDENTIFIER;

/// perf's `PERF_SAMPLE_MASK`: the fixed-size u64 fields at the front of a
/// SAMPLE; `8 * popcount` is the smallest SAMPLE body (`evsel->sample_size`).
pub const PERF_SAMPLE_MASK: u64 = PERF_SAMPLE_IP
    | PERF_SAMPLE_TID
    | PERF_SAMPLE_TIME
    | PERF_SAMPLE_ADDR
    | PERF_SAMPLE_ID
    | PERF_SAMPLE_STREAM_ID
    | PERF_SAMPLE_CPU
    | PERF_SAMPLE_PERIOD
    | PERF_SAMPLE_IDENTIFIER;

/// `PERF_FORMAT_TOTAL_TIME_ENABLED`
pub const PERF_FORMAT_TOTAL_TIME_ENABLED: u64 = 1 << 0;
/// `PERF_FORMAT_TOTAL_TIME_RUNNING`
pub const PERF_FORMAT_TOTAL_TIME_RUNNING: u64 = 1 << 1;
/// `PERF_FORMAT_ID`
pub const PERF_FORMAT_ID: u64 = 1 << 2;
/// `PERF_FORMAT_GROUP`
pub const PERF_FORMAT_GROUP: u64 = 1 << 3;
/// `PERF_FORMAT_LOST`
pub const PERF_FORMAT_LOST: u64 = 1 << 4;

/// `PERF_SAMPLE_BRANCH_HW_INDEX`: branch stacks carry `hw_idx` after `nr`.
pub const PERF_SAMPLE_BRANCH_HW_INDEX: u64 = 1 << 17;
/// `PERF_SAMPLE_BRANCH_COUNTERS`: branch stacks carry one u64 of counters
/// per entry after the entries (6.8+).
pub const PERF_SAMPLE_BRANCH_COUNTERS: u64 = 1 << 19;

/// The `PERF_RECORD_*` name of a record type, for messages.
pub fn record_name(type_: u32) -> &'static str {
    match type_ {
        PERF_RECORD_MMAP => "PERF_RECORD_MMAP",
        PERF_RECORD_LOST => "PERF_RECORD_LOST",
        PERF_RECORD_COMM => "PERF_RECORD_COMM",
        PERF_RECORD_EXIT => "PERF_RECORD_EXIT",
        PERF_RECORD_THROTTLE => "PERF_RECORD_THROTTLE",
        PERF_RECORD_UNTHROTTLE => "PERF_RECORD_UNTHROTTLE",
        PERF_RECORD_FORK => "PERF_RECORD_FORK",
        PERF_RECORD_READ => "PERF_RECORD_READ",
        PERF_RECORD_SAMPLE => "PERF_RECORD_SAMPLE",
        PERF_RECORD_MMAP2 => "PERF_RECORD_MMAP2",
        PERF_RECORD_AUX => "PERF_RECORD_AUX",
        PERF_RECORD_ITRACE_START => "PERF_RECORD_ITRACE_START",
        PERF_RECORD_LOST_SAMPLES => "PERF_RECORD_LOST_SAMPLES",
        PERF_RECORD_SWITCH => "PERF_RECORD_SWITCH",
        PERF_RECORD_SWITCH_CPU_WIDE => "PERF_RECORD_SWITCH_CPU_WIDE",
        PERF_RECORD_NAMESPACES => "PERF_RECORD_NAMESPACES",
        PERF_RECORD_KSYMBOL => "PERF_RECORD_KSYMBOL",
        PERF_RECORD_BPF_EVENT => "PERF_RECORD_BPF_EVENT",
        PERF_RECORD_CGROUP => "PERF_RECORD_CGROUP",
        PERF_RECORD_TEXT_POKE => "PERF_RECORD_TEXT_POKE",
        PERF_RECORD_AUX_OUTPUT_HW_ID => "PERF_RECORD_AUX_OUTPUT_HW_ID",
        PERF_RECORD_CALLCHAIN_DEFERRED => "PERF_RECORD_CALLCHAIN_DEFERRED",
        _ => "perf record",
    }
}

/// perf's `PERF_MEM_DATA_SRC_NONE`: every part of `perf_mem_data_src` "not
/// available" (op, level, snoop, lock and TLB `NA` bits), the `data_src` of
/// a sample that does not record one.
pub const PERF_MEM_DATA_SRC_NONE: u64 = 1 | 1 << 5 | 1 << 19 | 1 << 24 | 1 << 26;
