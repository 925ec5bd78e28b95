// SPDX-License-Identifier: GPL-2.0-only
//! The module's integer constants: the 67 of the 6.1 module, in its order,
//! plus the three 7.3 added (COUNT_HW_REF_CPU_CYCLES, RECORD_STAT,
//! RECORD_STAT_ROUND) and the three `perf.call_return` flags of the newer
//! series (CALL_RETURN_NO_CALL, CALL_RETURN_NO_RETURN, CALL_RETURN_NON_CALL:
//! perf's thread-stack.h). The values are the uapi header's
//! (perf-event-open-sys' bindings and perf-core's record constants, which
//! are checked against them) and perf's own record types.

use perf_core::record as r;
use perf_core::session::thread_stack as cr;
use perf_event_open_sys::bindings as b;
use pyo3::prelude::*;

/// (name, value) in the C module's table order.
pub const CONSTANTS: &[(&str, i64)] = &[
    ("TYPE_HARDWARE", b::PERF_TYPE_HARDWARE as i64),
    ("TYPE_SOFTWARE", b::PERF_TYPE_SOFTWARE as i64),
    ("TYPE_TRACEPOINT", b::PERF_TYPE_TRACEPOINT as i64),
    ("TYPE_HW_CACHE", b::PERF_TYPE_HW_CACHE as i64),
    ("TYPE_RAW", b::PERF_TYPE_RAW as i64),
    ("TYPE_BREAKPOINT", b::PERF_TYPE_BREAKPOINT as i64),
    ("COUNT_HW_CPU_CYCLES", b::PERF_COUNT_HW_CPU_CYCLES as i64),
    (
        "COUNT_HW_REF_CPU_CYCLES",
        b::PERF_COUNT_HW_REF_CPU_CYCLES as i64,
    ),
    (
        "COUNT_HW_INSTRUCTIONS",
        b::PERF_COUNT_HW_INSTRUCTIONS as i64,
    ),
    (
        "COUNT_HW_CACHE_REFERENCES",
        b::PERF_COUNT_HW_CACHE_REFERENCES as i64,
    ),
    (
        "COUNT_HW_CACHE_MISSES",
        b::PERF_COUNT_HW_CACHE_MISSES as i64,
    ),
    (
        "COUNT_HW_BRANCH_INSTRUCTIONS",
        b::PERF_COUNT_HW_BRANCH_INSTRUCTIONS as i64,
    ),
    (
        "COUNT_HW_BRANCH_MISSES",
        b::PERF_COUNT_HW_BRANCH_MISSES as i64,
    ),
    ("COUNT_HW_BUS_CYCLES", b::PERF_COUNT_HW_BUS_CYCLES as i64),
    ("COUNT_HW_CACHE_L1D", b::PERF_COUNT_HW_CACHE_L1D as i64),
    ("COUNT_HW_CACHE_L1I", b::PERF_COUNT_HW_CACHE_L1I as i64),
    ("COUNT_HW_CACHE_LL", b::PERF_COUNT_HW_CACHE_LL as i64),
    ("COUNT_HW_CACHE_DTLB", b::PERF_COUNT_HW_CACHE_DTLB as i64),
    ("COUNT_HW_CACHE_ITLB", b::PERF_COUNT_HW_CACHE_ITLB as i64),
    ("COUNT_HW_CACHE_BPU", b::PERF_COUNT_HW_CACHE_BPU as i64),
    (
        "COUNT_HW_CACHE_OP_READ",
        b::PERF_COUNT_HW_CACHE_OP_READ as i64,
    ),
    (
        "COUNT_HW_CACHE_OP_WRITE",
        b::PERF_COUNT_HW_CACHE_OP_WRITE as i64,
    ),
    (
        "COUNT_HW_CACHE_OP_PREFETCH",
        b::PERF_COUNT_HW_CACHE_OP_PREFETCH as i64,
    ),
    (
        "COUNT_HW_CACHE_RESULT_ACCESS",
        b::PERF_COUNT_HW_CACHE_RESULT_ACCESS as i64,
    ),
    (
        "COUNT_HW_CACHE_RESULT_MISS",
        b::PERF_COUNT_HW_CACHE_RESULT_MISS as i64,
    ),
    (
        "COUNT_HW_STALLED_CYCLES_FRONTEND",
        b::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND as i64,
    ),
    (
        "COUNT_HW_STALLED_CYCLES_BACKEND",
        b::PERF_COUNT_HW_STALLED_CYCLES_BACKEND as i64,
    ),
    ("COUNT_SW_CPU_CLOCK", b::PERF_COUNT_SW_CPU_CLOCK as i64),
    ("COUNT_SW_TASK_CLOCK", b::PERF_COUNT_SW_TASK_CLOCK as i64),
    ("COUNT_SW_PAGE_FAULTS", b::PERF_COUNT_SW_PAGE_FAULTS as i64),
    (
        "COUNT_SW_CONTEXT_SWITCHES",
        b::PERF_COUNT_SW_CONTEXT_SWITCHES as i64,
    ),
    (
        "COUNT_SW_CPU_MIGRATIONS",
        b::PERF_COUNT_SW_CPU_MIGRATIONS as i64,
    ),
    (
        "COUNT_SW_PAGE_FAULTS_MIN",
        b::PERF_COUNT_SW_PAGE_FAULTS_MIN as i64,
    ),
    (
        "COUNT_SW_PAGE_FAULTS_MAJ",
        b::PERF_COUNT_SW_PAGE_FAULTS_MAJ as i64,
    ),
    (
        "COUNT_SW_ALIGNMENT_FAULTS",
        b::PERF_COUNT_SW_ALIGNMENT_FAULTS as i64,
    ),
    (
        "COUNT_SW_EMULATION_FAULTS",
        b::PERF_COUNT_SW_EMULATION_FAULTS as i64,
    ),
    ("COUNT_SW_DUMMY", b::PERF_COUNT_SW_DUMMY as i64),
    ("SAMPLE_IP", r::PERF_SAMPLE_IP as i64),
    ("SAMPLE_TID", r::PERF_SAMPLE_TID as i64),
    ("SAMPLE_TIME", r::PERF_SAMPLE_TIME as i64),
    ("SAMPLE_ADDR", r::PERF_SAMPLE_ADDR as i64),
    ("SAMPLE_READ", r::PERF_SAMPLE_READ as i64),
    ("SAMPLE_CALLCHAIN", r::PERF_SAMPLE_CALLCHAIN as i64),
    ("SAMPLE_ID", r::PERF_SAMPLE_ID as i64),
    ("SAMPLE_CPU", r::PERF_SAMPLE_CPU as i64),
    ("SAMPLE_PERIOD", r::PERF_SAMPLE_PERIOD as i64),
    ("SAMPLE_STREAM_ID", r::PERF_SAMPLE_STREAM_ID as i64),
    ("SAMPLE_RAW", r::PERF_SAMPLE_RAW as i64),
    (
        "FORMAT_TOTAL_TIME_ENABLED",
        r::PERF_FORMAT_TOTAL_TIME_ENABLED as i64,
    ),
    (
        "FORMAT_TOTAL_TIME_RUNNING",
        r::PERF_FORMAT_TOTAL_TIME_RUNNING as i64,
    ),
    ("FORMAT_ID", r::PERF_FORMAT_ID as i64),
    ("FORMAT_GROUP", r::PERF_FORMAT_GROUP as i64),
    ("RECORD_MMAP", r::PERF_RECORD_MMAP as i64),
    ("RECORD_LOST", r::PERF_RECORD_LOST as i64),
    ("RECORD_COMM", r::PERF_RECORD_COMM as i64),
    ("RECORD_EXIT", r::PERF_RECORD_EXIT as i64),
    ("RECORD_THROTTLE", r::PERF_RECORD_THROTTLE as i64),
    ("RECORD_UNTHROTTLE", r::PERF_RECORD_UNTHROTTLE as i64),
    ("RECORD_FORK", r::PERF_RECORD_FORK as i64),
    ("RECORD_READ", r::PERF_RECORD_READ as i64),
    ("RECORD_SAMPLE", r::PERF_RECORD_SAMPLE as i64),
    ("RECORD_MMAP2", r::PERF_RECORD_MMAP2 as i64),
    ("RECORD_AUX", r::PERF_RECORD_AUX as i64),
    ("RECORD_ITRACE_START", r::PERF_RECORD_ITRACE_START as i64),
    ("RECORD_LOST_SAMPLES", r::PERF_RECORD_LOST_SAMPLES as i64),
    ("RECORD_SWITCH", r::PERF_RECORD_SWITCH as i64),
    (
        "RECORD_SWITCH_CPU_WIDE",
        r::PERF_RECORD_SWITCH_CPU_WIDE as i64,
    ),
    (
        "RECORD_STAT",
        perf_core::perf_data::abi::PERF_RECORD_STAT as i64,
    ),
    (
        "RECORD_STAT_ROUND",
        perf_core::perf_data::abi::PERF_RECORD_STAT_ROUND as i64,
    ),
    (
        "RECORD_MISC_SWITCH_OUT",
        r::PERF_RECORD_MISC_SWITCH_OUT as i64,
    ),
    ("CALL_RETURN_NO_CALL", cr::CALL_RETURN_NO_CALL as i64),
    ("CALL_RETURN_NO_RETURN", cr::CALL_RETURN_NO_RETURN as i64),
    ("CALL_RETURN_NON_CALL", cr::CALL_RETURN_NON_CALL as i64),
];

/// Adds every constant to the module.
pub fn add_to(m: &Bound<'_, PyModule>) -> PyResult<()> {
    for &(name, value) in CONSTANTS {
        m.add(name, value)?;
    }
    Ok(())
}
