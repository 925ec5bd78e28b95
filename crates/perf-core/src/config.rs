// SPDX-License-Identifier: GPL-2.0-only
//! `evlist.config()`: perf record's default options applied to every evsel
//! (perf's `evlist__config` → `evsel__config` with the record_opts of
//! python.c: sample_time, freq 4000 Hz, no_inherit, no_buffering, no target).

use crate::abi::AttrBits;
use crate::evsel::Evsel;
use crate::record::{
    PERF_FORMAT_LOST, PERF_SAMPLE_ID, PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_PERIOD,
    PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
};

/// perf record's default sampling frequency.
pub const DEFAULT_FREQ: u64 = 4000;

/// Applies perf record's defaults to a list of evsels (the first is the
/// group leader unless the attrs say otherwise).
pub fn config(evsels: &mut [&mut Evsel]) {
    let many = evsels.len() > 1;
    for evsel in evsels.iter_mut() {
        let tracking = evsel.tracking;
        let precise_max = evsel.precise_max;
        let a = &mut evsel.attr;
        a.set_flag("sample_id_all", 1);
        a.set_flag("inherit", 0);
        a.read_format |= PERF_FORMAT_LOST;
        a.sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
        if a.sample_period == 0 {
            a.set_flag("freq", 1);
            a.sample_period = DEFAULT_FREQ;
        }
        if a.flag("freq") == Some(1) {
            a.sample_type |= PERF_SAMPLE_PERIOD;
        }
        if many {
            a.sample_type = (a.sample_type & !PERF_SAMPLE_ID) | PERF_SAMPLE_IDENTIFIER;
        }
        // no_buffering: a wakeup per record.
        a.set_flag("watermark", 0);
        a.wakeup_events = 1;
        let t = u64::from(tracking);
        for f in ["mmap", "mmap2", "comm", "comm_exec", "task"] {
            a.set_flag(f, t);
        }
        // No target: leaders start disabled and are enabled at exec
        // (members follow their leader).
        if evsel.group_leader.is_none() {
            a.set_flag("disabled", 1);
            a.set_flag("enable_on_exec", 1);
        }
        // `:P`: the highest precise_ip, lowered at open until it works.
        if precise_max {
            a.set_flag("precise_ip", 3);
        }
        // What config() added may fall back on kernels that lack it.
        let mut names = vec!["FLAG_FD_CLOEXEC", "sample_id_all", "FORMAT_LOST"];
        if tracking {
            names.extend(["mmap2", "comm_exec"]);
        }
        if many {
            names.push("SAMPLE_IDENTIFIER");
        }
        if precise_max {
            names.push("precise_ip");
        }
        // Added to the defaults parse_events set (a PMU's exclude_guest),
        // which stay defaults: config() makes none of them a request.
        if let Ok(bits) = AttrBits::from_names(names) {
            evsel.defaults = evsel.defaults.union(&bits);
        }
    }
}
