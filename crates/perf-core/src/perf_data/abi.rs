// SPDX-License-Identifier: GPL-2.0-only
//! The perf.data vocabulary: the user record types perf writes next to the
//! kernel's records (`tools/lib/perf/include/perf/event.h`,
//! `enum perf_user_event_type`) and the feature bits of the header
//! (`tools/perf/util/header.h`, `HEADER_*`), spelled as perf spells them.

/// `PERF_RECORD_USER_TYPE_START`: types from here on are perf's own.
pub const PERF_RECORD_USER_TYPE_START: u32 = 64;
/// `PERF_RECORD_HEADER_ATTR`: an attr and its ids (pipe mode).
pub const PERF_RECORD_HEADER_ATTR: u32 = 64;
/// `PERF_RECORD_HEADER_EVENT_TYPE` (deprecated).
pub const PERF_RECORD_HEADER_EVENT_TYPE: u32 = 65;
/// `PERF_RECORD_HEADER_TRACING_DATA`: `{ u32 size }`, then `size` bytes of
/// tracing data not counted in `header.size` (pipe mode).
pub const PERF_RECORD_HEADER_TRACING_DATA: u32 = 66;
/// `PERF_RECORD_HEADER_BUILD_ID`.
pub const PERF_RECORD_HEADER_BUILD_ID: u32 = 67;
/// `PERF_RECORD_FINISHED_ROUND`: no record before it has a timestamp above
/// the maximum of the round before (the two-round window).
pub const PERF_RECORD_FINISHED_ROUND: u32 = 68;
/// `PERF_RECORD_ID_INDEX`.
pub const PERF_RECORD_ID_INDEX: u32 = 69;
/// `PERF_RECORD_AUXTRACE_INFO`.
pub const PERF_RECORD_AUXTRACE_INFO: u32 = 70;
/// `PERF_RECORD_AUXTRACE`: followed by `size` bytes of trace data not
/// counted in `header.size`.
pub const PERF_RECORD_AUXTRACE: u32 = 71;
/// `PERF_RECORD_AUXTRACE_ERROR`.
pub const PERF_RECORD_AUXTRACE_ERROR: u32 = 72;
/// `PERF_RECORD_THREAD_MAP`.
pub const PERF_RECORD_THREAD_MAP: u32 = 73;
/// `PERF_RECORD_CPU_MAP`.
pub const PERF_RECORD_CPU_MAP: u32 = 74;
/// `PERF_RECORD_STAT_CONFIG`.
pub const PERF_RECORD_STAT_CONFIG: u32 = 75;
/// `PERF_RECORD_STAT`.
pub const PERF_RECORD_STAT: u32 = 76;
/// `PERF_RECORD_STAT_ROUND`.
pub const PERF_RECORD_STAT_ROUND: u32 = 77;
/// `PERF_RECORD_EVENT_UPDATE`.
pub const PERF_RECORD_EVENT_UPDATE: u32 = 78;
/// `PERF_RECORD_TIME_CONV`.
pub const PERF_RECORD_TIME_CONV: u32 = 79;
/// `PERF_RECORD_HEADER_FEATURE`: one feature section (pipe mode).
pub const PERF_RECORD_HEADER_FEATURE: u32 = 80;
/// `PERF_RECORD_COMPRESSED`: zstd data (what perf 6.1 `-z` writes).
pub const PERF_RECORD_COMPRESSED: u32 = 81;
/// `PERF_RECORD_FINISHED_INIT`: the synthesized records are done.
pub const PERF_RECORD_FINISHED_INIT: u32 = 82;
/// `PERF_RECORD_COMPRESSED2`: `{ u64 data_size }`, then zstd data, padded
/// to 8 bytes (newer perf).
pub const PERF_RECORD_COMPRESSED2: u32 = 83;
/// One past the last user type this reader knows (`PERF_RECORD_HEADER_MAX`
/// of the newest perf).
pub const PERF_RECORD_HEADER_MAX: u32 = 84;

/// `PERF_RECORD_MISC_COMM_EXEC` (on COMM records).
pub const PERF_RECORD_MISC_COMM_EXEC: u16 = 1 << 13;
/// `PERF_RECORD_MISC_FORK_EXEC` (on FORK records perf synthesizes: do not
/// clone the parent's maps).
pub const PERF_RECORD_MISC_FORK_EXEC: u16 = 1 << 13;
/// `PERF_RECORD_MISC_MMAP_DATA` (on MMAP/MMAP2: a data mapping).
pub const PERF_RECORD_MISC_MMAP_DATA: u16 = 1 << 13;
/// `PERF_RECORD_MISC_KERNEL` cpumode.
pub const PERF_RECORD_MISC_KERNEL: u16 = 1;
/// `PERF_RECORD_MISC_GUEST_KERNEL` cpumode.
pub const PERF_RECORD_MISC_GUEST_KERNEL: u16 = 4;

/// `PERF_TYPE_TRACEPOINT`.
pub const PERF_TYPE_TRACEPOINT: u32 = 2;

/// The feature bits of the header, `HEADER_*` (bit 0 is reserved).
pub mod feature {
    /// `HEADER_TRACING_DATA`
    pub const TRACING_DATA: u32 = 1;
    /// `HEADER_BUILD_ID`
    pub const BUILD_ID: u32 = 2;
    /// `HEADER_HOSTNAME`
    pub const HOSTNAME: u32 = 3;
    /// `HEADER_OSRELEASE`
    pub const OSRELEASE: u32 = 4;
    /// `HEADER_VERSION`
    pub const VERSION: u32 = 5;
    /// `HEADER_ARCH`
    pub const ARCH: u32 = 6;
    /// `HEADER_NRCPUS`
    pub const NRCPUS: u32 = 7;
    /// `HEADER_CPUDESC`
    pub const CPUDESC: u32 = 8;
    /// `HEADER_CPUID`
    pub const CPUID: u32 = 9;
    /// `HEADER_TOTAL_MEM`
    pub const TOTAL_MEM: u32 = 10;
    /// `HEADER_CMDLINE`
    pub const CMDLINE: u32 = 11;
    /// `HEADER_EVENT_DESC`
    pub const EVENT_DESC: u32 = 12;
    /// `HEADER_CPU_TOPOLOGY`
    pub const CPU_TOPOLOGY: u32 = 13;
    /// `HEADER_NUMA_TOPOLOGY`
    pub const NUMA_TOPOLOGY: u32 = 14;
    /// `HEADER_BRANCH_STACK`
    pub const BRANCH_STACK: u32 = 15;
    /// `HEADER_PMU_MAPPINGS`
    pub const PMU_MAPPINGS: u32 = 16;
    /// `HEADER_GROUP_DESC`
    pub const GROUP_DESC: u32 = 17;
    /// `HEADER_AUXTRACE`
    pub const AUXTRACE: u32 = 18;
    /// `HEADER_STAT`
    pub const STAT: u32 = 19;
    /// `HEADER_CACHE`
    pub const CACHE: u32 = 20;
    /// `HEADER_SAMPLE_TIME`
    pub const SAMPLE_TIME: u32 = 21;
    /// `HEADER_MEM_TOPOLOGY`
    pub const MEM_TOPOLOGY: u32 = 22;
    /// `HEADER_CLOCKID`
    pub const CLOCKID: u32 = 23;
    /// `HEADER_DIR_FORMAT`
    pub const DIR_FORMAT: u32 = 24;
    /// `HEADER_BPF_PROG_INFO`
    pub const BPF_PROG_INFO: u32 = 25;
    /// `HEADER_BPF_BTF`
    pub const BPF_BTF: u32 = 26;
    /// `HEADER_COMPRESSED`
    pub const COMPRESSED: u32 = 27;
    /// `HEADER_CPU_PMU_CAPS`
    pub const CPU_PMU_CAPS: u32 = 28;
    /// `HEADER_CLOCK_DATA`
    pub const CLOCK_DATA: u32 = 29;
    /// `HEADER_HYBRID_TOPOLOGY`
    pub const HYBRID_TOPOLOGY: u32 = 30;
    /// `HEADER_PMU_CAPS`
    pub const PMU_CAPS: u32 = 31;
    /// `HEADER_CPU_DOMAIN_INFO`
    pub const CPU_DOMAIN_INFO: u32 = 32;
    /// `HEADER_E_MACHINE`
    pub const E_MACHINE: u32 = 33;
    /// `HEADER_CLN_SIZE`
    pub const CLN_SIZE: u32 = 34;
    /// `HEADER_MEMORY_RANGES`
    pub const MEMORY_RANGES: u32 = 35;

    /// The `HEADER_*` name of a feature bit, for messages.
    pub fn name(bit: u32) -> &'static str {
        const NAMES: [&str; 36] = [
            "RESERVED",
            "TRACING_DATA",
            "BUILD_ID",
            "HOSTNAME",
            "OSRELEASE",
            "VERSION",
            "ARCH",
            "NRCPUS",
            "CPUDESC",
            "CPUID",
            "TOTAL_MEM",
            "CMDLINE",
            "EVENT_DESC",
            "CPU_TOPOLOGY",
            "NUMA_TOPOLOGY",
            "BRANCH_STACK",
            "PMU_MAPPINGS",
            "GROUP_DESC",
            "AUXTRACE",
            "STAT",
            "CACHE",
            "SAMPLE_TIME",
            "MEM_TOPOLOGY",
            "CLOCKID",
            "DIR_FORMAT",
            "BPF_PROG_INFO",
            "BPF_BTF",
            "COMPRESSED",
            "CPU_PMU_CAPS",
            "CLOCK_DATA",
            "HYBRID_TOPOLOGY",
            "PMU_CAPS",
            "CPU_DOMAIN_INFO",
            "E_MACHINE",
            "CLN_SIZE",
            "MEMORY_RANGES",
        ];
        usize::try_from(bit)
            .ok()
            .and_then(|i| NAMES.get(i))
            .copied()
            .unwrap_or("unknown feature")
    }
}

/// The `PERF_RECORD_*` name of any record type (kernel or user), for
/// messages and dumps.
pub fn record_name(type_: u32) -> &'static str {
    match type_ {
        PERF_RECORD_HEADER_ATTR => "PERF_RECORD_HEADER_ATTR",
        PERF_RECORD_HEADER_EVENT_TYPE => "PERF_RECORD_HEADER_EVENT_TYPE",
        PERF_RECORD_HEADER_TRACING_DATA => "PERF_RECORD_HEADER_TRACING_DATA",
        PERF_RECORD_HEADER_BUILD_ID => "PERF_RECORD_HEADER_BUILD_ID",
        PERF_RECORD_FINISHED_ROUND => "PERF_RECORD_FINISHED_ROUND",
        PERF_RECORD_ID_INDEX => "PERF_RECORD_ID_INDEX",
        PERF_RECORD_AUXTRACE_INFO => "PERF_RECORD_AUXTRACE_INFO",
        PERF_RECORD_AUXTRACE => "PERF_RECORD_AUXTRACE",
        PERF_RECORD_AUXTRACE_ERROR => "PERF_RECORD_AUXTRACE_ERROR",
        PERF_RECORD_THREAD_MAP => "PERF_RECORD_THREAD_MAP",
        PERF_RECORD_CPU_MAP => "PERF_RECORD_CPU_MAP",
        PERF_RECORD_STAT_CONFIG => "PERF_RECORD_STAT_CONFIG",
        PERF_RECORD_STAT => "PERF_RECORD_STAT",
        PERF_RECORD_STAT_ROUND => "PERF_RECORD_STAT_ROUND",
        PERF_RECORD_EVENT_UPDATE => "PERF_RECORD_EVENT_UPDATE",
        PERF_RECORD_TIME_CONV => "PERF_RECORD_TIME_CONV",
        PERF_RECORD_HEADER_FEATURE => "PERF_RECORD_HEADER_FEATURE",
        PERF_RECORD_COMPRESSED => "PERF_RECORD_COMPRESSED",
        PERF_RECORD_FINISHED_INIT => "PERF_RECORD_FINISHED_INIT",
        PERF_RECORD_COMPRESSED2 => "PERF_RECORD_COMPRESSED2",
        _ => crate::record::record_name(type_),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(feature::name(feature::E_MACHINE), "E_MACHINE");
        assert_eq!(feature::name(feature::TRACING_DATA), "TRACING_DATA");
        assert_eq!(feature::name(200), "unknown feature");
        assert_eq!(
            record_name(PERF_RECORD_COMPRESSED2),
            "PERF_RECORD_COMPRESSED2"
        );
        assert_eq!(record_name(9), "PERF_RECORD_SAMPLE");
    }
}
