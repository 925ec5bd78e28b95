// SPDX-License-Identifier: GPL-2.0-only
//! The legacy event names: hardware and software symbols (perf's
//! `event_symbols_hw` / `event_symbols_sw` and the lexer rules naming them)
//! and hardware cache events (`evsel__hw_cache*` and the table of which
//! cache/op pairs exist).

use perf_event_open_sys::bindings as b;

/// A symbolic event name: `(name, PERF_TYPE_*, config)`. Aliases are
/// separate rows (`cycles` and `cpu-cycles` both give `HARDWARE/0`).
const SYMBOLS: &[(&str, u32, u64)] = &[
    (
        "cpu-cycles",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_CPU_CYCLES as u64,
    ),
    (
        "cycles",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_CPU_CYCLES as u64,
    ),
    (
        "instructions",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_INSTRUCTIONS as u64,
    ),
    (
        "cache-references",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_CACHE_REFERENCES as u64,
    ),
    (
        "cache-misses",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_CACHE_MISSES as u64,
    ),
    (
        "branch-instructions",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_BRANCH_INSTRUCTIONS as u64,
    ),
    (
        "branches",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_BRANCH_INSTRUCTIONS as u64,
    ),
    (
        "branch-misses",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_BRANCH_MISSES as u64,
    ),
    (
        "bus-cycles",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_BUS_CYCLES as u64,
    ),
    (
        "stalled-cycles-frontend",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND as u64,
    ),
    (
        "idle-cycles-frontend",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND as u64,
    ),
    (
        "stalled-cycles-backend",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_STALLED_CYCLES_BACKEND as u64,
    ),
    (
        "idle-cycles-backend",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_STALLED_CYCLES_BACKEND as u64,
    ),
    (
        "ref-cycles",
        b::PERF_TYPE_HARDWARE,
        b::PERF_COUNT_HW_REF_CPU_CYCLES as u64,
    ),
    (
        "cpu-clock",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_CPU_CLOCK as u64,
    ),
    (
        "task-clock",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_TASK_CLOCK as u64,
    ),
    (
        "page-faults",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_PAGE_FAULTS as u64,
    ),
    (
        "faults",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_PAGE_FAULTS as u64,
    ),
    (
        "context-switches",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_CONTEXT_SWITCHES as u64,
    ),
    (
        "cs",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_CONTEXT_SWITCHES as u64,
    ),
    (
        "cpu-migrations",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_CPU_MIGRATIONS as u64,
    ),
    (
        "migrations",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_CPU_MIGRATIONS as u64,
    ),
    (
        "minor-faults",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_PAGE_FAULTS_MIN as u64,
    ),
    (
        "major-faults",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_PAGE_FAULTS_MAJ as u64,
    ),
    (
        "alignment-faults",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_ALIGNMENT_FAULTS as u64,
    ),
    (
        "emulation-faults",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_EMULATION_FAULTS as u64,
    ),
    (
        "dummy",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_DUMMY as u64,
    ),
    (
        "bpf-output",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_BPF_OUTPUT as u64,
    ),
    (
        "cgroup-switches",
        b::PERF_TYPE_SOFTWARE,
        b::PERF_COUNT_SW_CGROUP_SWITCHES as u64,
    ),
];

/// `(PERF_TYPE_HARDWARE or _SOFTWARE, config)` of a symbolic name; exact
/// and case-sensitive, as perf's lexer matches them.
pub fn symbol(name: &str) -> Option<(u32, u64)> {
    SYMBOLS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, t, c)| (t, c))
}

/// Cache names, by `PERF_COUNT_HW_CACHE_*` index (`evsel__hw_cache`).
///
/// `branches` is left out on purpose: perf's lexer reads it as the hardware
/// symbol `branch-instructions` first, so `branches-loads` is a syntax error
/// in perf, and so it is here.
const CACHE_TYPES: [&[&str]; 7] = [
    &["L1-dcache", "l1-d", "l1d", "L1-data"],
    &["L1-icache", "l1-i", "l1i", "L1-instruction"],
    &["LLC", "L2"],
    &["dTLB", "d-tlb", "Data-TLB"],
    &["iTLB", "i-tlb", "Instruction-TLB"],
    &["branch", "bpu", "btb", "bpc"],
    &["node"],
];

/// Operation names, by `PERF_COUNT_HW_CACHE_OP_*` (`evsel__hw_cache_op`).
const CACHE_OPS: [&[&str]; 3] = [
    &["load", "loads", "read"],
    &["store", "stores", "write"],
    &[
        "prefetch",
        "prefetches",
        "speculative-read",
        "speculative-load",
    ],
];

/// Result names, by `PERF_COUNT_HW_CACHE_RESULT_*` (`evsel__hw_cache_result`).
const CACHE_RESULTS: [&[&str]; 2] = [&["refs", "Reference", "ops", "access"], &["misses", "miss"]];

/// Which operations each cache has (`evsel__hw_cache_stat`): bit `op` set
/// when `cache-op` exists. L1I has no writes; iTLB and the branch unit only
/// reads.
const CACHE_OPS_VALID: [u8; 7] = [0b111, 0b101, 0b111, 0b111, 0b001, 0b001, 0b111];

/// True when cache `cache` supports operation `op` (both table indexes).
pub fn cache_op_valid(cache: usize, op: usize) -> bool {
    CACHE_OPS_VALID
        .get(cache)
        .is_some_and(|bits| op < 8 && bits & (1 << op) != 0)
}

/// Why a word that starts like a cache event is not one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheError {
    /// Not a cache event name at all.
    NotCache,
    /// A real cache and operation that do not go together (`iTLB-stores`).
    InvalidOp,
}

/// Splits `word` at the longest of `names` that it starts with and that is
/// followed by `-` or the end: `(table index, rest after the '-')`. A `-`
/// with nothing after it is no match.
fn take<'w>(word: &'w str, table: &[&[&str]]) -> Option<(usize, &'w str)> {
    let mut best: Option<(usize, &'w str, usize)> = None;
    for (i, names) in table.iter().enumerate() {
        for name in names.iter() {
            let Some(rest) = word.strip_prefix(name) else {
                continue;
            };
            let rest = match rest.strip_prefix('-') {
                Some("") => continue,
                Some(after) => after,
                None if rest.is_empty() => rest,
                None => continue,
            };
            if best.is_none_or(|(_, _, len)| name.len() > len) {
                best = Some((i, rest, name.len()));
            }
        }
    }
    best.map(|(i, rest, _)| (i, rest))
}

/// One `-`-separated part after the cache name.
#[derive(Clone, Copy)]
enum Part {
    Op(usize),
    Result(usize),
}

/// The longest operation or result name `rest` starts with.
fn take_part(rest: &str) -> Option<(Part, &str)> {
    let op = take(rest, &CACHE_OPS);
    let res = take(rest, &CACHE_RESULTS);
    match (op, res) {
        // The shorter rest is the longer name.
        (Some((_, ro)), Some((r, rr))) if rr.len() < ro.len() => Some((Part::Result(r), rr)),
        (Some((o, ro)), _) => Some((Part::Op(o), ro)),
        (None, Some((r, rr))) => Some((Part::Result(r), rr)),
        (None, None) => None,
    }
}

/// The `PERF_TYPE_HW_CACHE` config of `type[-op_or_result[-op_or_result]]`
/// (`L1-dcache-load-misses` → `0x10000`), with perf 6.1's rules
/// (`parse_events_add_cache`): a part is taken as the operation while none
/// is known, else as the result while none is known, else ignored (so
/// `l1d-misses-misses` is `L1-dcache-loads-misses`); the operation defaults
/// to read, the result to access.
///
/// # Errors
/// [`CacheError::NotCache`] if `word` is not of that shape,
/// [`CacheError::InvalidOp`] for an operation the cache does not have.
pub fn cache_config(word: &str) -> Result<u64, CacheError> {
    let (cache, mut rest) = take(word, &CACHE_TYPES).ok_or(CacheError::NotCache)?;
    let mut op: Option<usize> = None;
    let mut result: Option<usize> = None;
    for _ in 0..2 {
        if rest.is_empty() {
            break;
        }
        let (part, after) = take_part(rest).ok_or(CacheError::NotCache)?;
        match part {
            Part::Op(o) if op.is_none() => {
                if !cache_op_valid(cache, o) {
                    return Err(CacheError::InvalidOp);
                }
                op = Some(o);
            }
            Part::Result(r) if result.is_none() => result = Some(r),
            _ => {}
        }
        rest = after;
    }
    if !rest.is_empty() {
        return Err(CacheError::NotCache);
    }
    let op = op.unwrap_or(b::PERF_COUNT_HW_CACHE_OP_READ as usize);
    let result = result.unwrap_or(b::PERF_COUNT_HW_CACHE_RESULT_ACCESS as usize);
    Ok(cache as u64 | (op as u64) << 8 | (result as u64) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_and_aliases() {
        assert_eq!(symbol("cycles"), Some((0, 0)));
        assert_eq!(symbol("cpu-cycles"), Some((0, 0)));
        assert_eq!(symbol("branches"), Some((0, 4)));
        assert_eq!(symbol("idle-cycles-backend"), Some((0, 8)));
        assert_eq!(symbol("ref-cycles"), Some((0, 9)));
        assert_eq!(symbol("faults"), Some((1, 2)));
        assert_eq!(symbol("cs"), Some((1, 3)));
        assert_eq!(symbol("migrations"), Some((1, 4)));
        assert_eq!(symbol("dummy"), Some((1, 9)));
        assert_eq!(symbol("bpf-output"), Some((1, 10)));
        assert_eq!(symbol("cgroup-switches"), Some((1, 11)));
        assert_eq!(symbol("Cycles"), None);
        assert_eq!(symbol("cycles:u"), None);
    }

    #[test]
    fn cache_names_as_perf_6_1_decodes_them() {
        // Values checked against `perf stat -vv -e NAME` (Debian 6.1).
        let cases = [
            ("L1-dcache-load-misses", 0x10000),
            ("L1-dcache-loads", 0x0),
            ("L1-dcache-stores-misses", 0x10100),
            ("L1-dcache-misses-loads", 0x10000),
            ("l1d-misses-misses", 0x10000),
            ("LLC-prefetch-refs", 0x202),
            ("node-prefetches", 0x206),
            ("dTLB-speculative-read-miss", 0x10203),
            ("dTLB-store-misses", 0x10103),
            ("branch-loads", 0x5),
            ("bpu-loads", 0x5),
            ("LLC-loads", 0x2),
            ("L1-icache-load-misses", 0x10001),
            ("iTLB-load-misses", 0x10004),
            ("Data-TLB", 0x3),
            ("L1-instruction-prefetch", 0x201),
        ];
        for (name, config) in cases {
            assert_eq!(cache_config(name), Ok(config), "{name}");
        }
    }

    #[test]
    fn cache_names_perf_refuses() {
        assert_eq!(cache_config("iTLB-store"), Err(CacheError::InvalidOp));
        assert_eq!(cache_config("L1-icache-stores"), Err(CacheError::InvalidOp));
        assert_eq!(cache_config("branch-prefetch"), Err(CacheError::InvalidOp));
        for bad in [
            "branches-loads",
            "L1-DCACHE-loads",
            "l1-dcache-loads",
            "LLC-",
            "LLC-loads-misses-refs",
            "LLCx",
            "cycles",
            "",
        ] {
            assert_eq!(cache_config(bad), Err(CacheError::NotCache), "{bad}");
        }
    }
}
