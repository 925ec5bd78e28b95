// SPDX-License-Identifier: GPL-2.0-only
//! perf's missing-feature fallback order (`evsel__detect_missing_features()`
//! in tools/perf/util/evsel.c, 6.1 and the newest), and the one fallback the
//! ABI probe cannot see: a PMU that refuses `exclude_guest`/`exclude_host`.
//!
//! perf finds a missing feature by dropping one bit per retry, in the order
//! the bits were added to `perf_event_attr`. Here the probed ABI already
//! says which bits the kernel lacks, so they are dropped in one retry; the
//! order only decides how `Opened::fallbacks` lists them, the same order
//! perf reports its "switching off …" steps in.
//!
//! A PMU is another matter: the kernel knows `exclude_guest` (the probe
//! opens it on the software PMU), but a PMU with `PERF_PMU_CAP_NO_EXCLUDE`
//! (msr, power, most uncore PMUs) answers EINVAL to any `exclude_*` bit.
//! perf then clears `exclude_guest` and `exclude_host` for that PMU, unless
//! the user asked for them (`:G`/`:H`, perf's `exclude_GH`), and retries.

use crate::attr::Attr;

use super::kernel_abi::AttrBits;

/// Feature rows in perf's fallback order: `BRANCH_COUNTERS` (6.8) ahead of
/// 6.1's list, which starts at `FORMAT_LOST` and ends at the group read.
/// perf bails out instead of dropping the page sizes, `cgroup`,
/// `aux_output` and `write_backward`; here what they are is decided by
/// whether the user asked for them, as for every row.
pub const PERF_ORDER: [&str; 21] = [
    "BRANCH_COUNTERS",
    "FORMAT_LOST",
    "SAMPLE_WEIGHT_STRUCT",
    "SAMPLE_CODE_PAGE_SIZE",
    "SAMPLE_DATA_PAGE_SIZE",
    "cgroup",
    "BRANCH_HW_INDEX",
    "aux_output",
    "bpf_event",
    "ksymbol",
    "write_backward",
    "use_clockid",
    "FLAG_FD_CLOEXEC",
    "mmap2",
    "exclude_guest",
    "exclude_host",
    "sample_id_all",
    "BRANCH_NO_FLAGS",
    "BRANCH_NO_CYCLES",
    "FORMAT_GROUP",
    "inherit",
];

/// The place of a feature row in perf's order; rows perf does not fall
/// back from come after every row it does, in their table order.
pub fn perf_rank(name: &str) -> usize {
    PERF_ORDER
        .iter()
        .position(|n| *n == name)
        .unwrap_or(PERF_ORDER.len())
}

/// The bits perf clears for a PMU without guest/host filtering.
pub const GUEST_HOST: [&str; 2] = ["exclude_guest", "exclude_host"];

/// perf's PMU fallback for an EINVAL the probed ABI does not explain: the
/// `exclude_guest`/`exclude_host` bits set in `attr` that may be cleared
/// (module defaults: perf's parse-time `exclude_guest`, never an explicit
/// `:G`/`:H` or keyword). Empty when there is nothing to clear, or when one
/// of them is a user request: perf bails out then, and so does this.
pub fn guest_host_fallback(attr: &Attr, defaults: &AttrBits) -> Vec<&'static str> {
    let set: Vec<&'static str> = GUEST_HOST
        .into_iter()
        .filter(|n| attr.flag(n).unwrap_or(0) != 0)
        .collect();
    let all_defaults = set.iter().all(|n| {
        AttrBits::from_names([*n])
            .map(|bits| bits.flags & defaults.flags != 0)
            .unwrap_or(false)
    });
    if all_defaults {
        set
    } else {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Attr;

    fn attr_with(flags: &[&str]) -> Attr {
        let mut attr = Attr::default();
        for f in flags {
            attr.set_flag(f, 1).unwrap();
        }
        attr
    }

    #[test]
    fn order_follows_perf() {
        // 6.1: read_lost first, weight_struct, …, cloexec, mmap2, then the
        // PMU's exclude_guest/exclude_host, then sample_id_all, lbr_flags.
        let ranks: Vec<usize> = [
            "FORMAT_LOST",
            "SAMPLE_WEIGHT_STRUCT",
            "cgroup",
            "use_clockid",
            "FLAG_FD_CLOEXEC",
            "mmap2",
            "exclude_guest",
            "sample_id_all",
            "BRANCH_NO_FLAGS",
        ]
        .iter()
        .map(|n| perf_rank(n))
        .collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{ranks:?}");
        assert_eq!(perf_rank("defer_callchain"), PERF_ORDER.len());
    }

    #[test]
    fn every_row_is_in_the_table() {
        for name in PERF_ORDER {
            assert!(
                perf_abi::FeatureTable::builtin().get(name).is_some(),
                "{name}"
            );
        }
    }

    #[test]
    fn guest_host_clears_defaults_only() {
        let defaults = AttrBits::from_names(["exclude_guest", "exclude_host"]).unwrap();
        let attr = attr_with(&["exclude_guest"]);
        assert_eq!(guest_host_fallback(&attr, &defaults), ["exclude_guest"]);
        let both = attr_with(&["exclude_guest", "exclude_host"]);
        assert_eq!(
            guest_host_fallback(&both, &defaults),
            ["exclude_guest", "exclude_host"]
        );
    }

    #[test]
    fn guest_host_bails_out_on_a_user_request() {
        // `:H` (exclude_guest asked for) is perf's exclude_GH: no fallback.
        let attr = attr_with(&["exclude_guest"]);
        assert!(guest_host_fallback(&attr, &AttrBits::NONE).is_empty());
        let only_guest = AttrBits::from_names(["exclude_guest"]).unwrap();
        let both = attr_with(&["exclude_guest", "exclude_host"]);
        assert!(guest_host_fallback(&both, &only_guest).is_empty());
    }

    #[test]
    fn guest_host_has_nothing_to_clear() {
        let defaults = AttrBits::from_names(["exclude_guest"]).unwrap();
        let attr = attr_with(&["exclude_kernel"]);
        assert!(guest_host_fallback(&attr, &defaults).is_empty());
    }
}
