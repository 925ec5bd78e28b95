// SPDX-License-Identifier: GPL-2.0-only
//! perf's `evsel__name()` for evsels built from an attr: `cycles:HG`,
//! `dummy:HG`, `L1-dcache-load-misses`, `raw 0x1234`, `mem:0x1000:rw`.

use perf_core::attr::{flag, Attr};
use perf_core::evsel::Evsel;
use perf_event_open_sys::bindings as b;

const HW: [&str; 10] = [
    "cycles",
    "instructions",
    "cache-references",
    "cache-misses",
    "branches",
    "branch-misses",
    "bus-cycles",
    "stalled-cycles-frontend",
    "stalled-cycles-backend",
    "ref-cycles",
];
const SW: [&str; 10] = [
    "cpu-clock",
    "task-clock",
    "page-faults",
    "context-switches",
    "cpu-migrations",
    "minor-faults",
    "major-faults",
    "alignment-faults",
    "emulation-faults",
    "dummy",
];
const CACHE: [&str; 7] = [
    "L1-dcache",
    "L1-icache",
    "LLC",
    "dTLB",
    "iTLB",
    "branch",
    "node",
];
const CACHE_OP: [&str; 3] = ["load", "store", "prefetch"];
const CACHE_OP_ALIAS: [&str; 3] = ["loads", "stores", "prefetches"];
const CACHE_RESULT: [&str; 2] = ["refs", "misses"];

/// The evsel's name: its explicit name, else derived from the attr.
pub fn name(evsel: &Evsel) -> String {
    match &evsel.name {
        Some(n) => n.clone(),
        None => from_attr(&evsel.attr),
    }
}

/// perf's name for an attr without an explicit name.
pub fn from_attr(attr: &Attr) -> String {
    let idx = |v: u64, n: usize| usize::try_from(v).ok().filter(|&i| i < n);
    let with_mods = |base: &str| format!("{base}{}", modifiers(attr));
    match attr.type_ {
        b::PERF_TYPE_HARDWARE => {
            with_mods(idx(attr.config, HW.len()).map_or("unknown-hardware", |i| HW[i]))
        }
        b::PERF_TYPE_SOFTWARE => {
            with_mods(idx(attr.config, SW.len()).map_or("unknown-software", |i| SW[i]))
        }
        b::PERF_TYPE_TRACEPOINT => perf_core::tracefs::tracefs()
            .and_then(|t| t.format_by_id(attr.config))
            .map(|f| format!("{}:{}", f.system, f.name))
            .unwrap_or_else(|_| "unknown tracepoint".to_owned()),
        b::PERF_TYPE_HW_CACHE => with_mods(&cache_name(attr.config)),
        b::PERF_TYPE_RAW => format!("raw 0x{:x}", attr.config),
        b::PERF_TYPE_BREAKPOINT => {
            let mut s = format!("mem:0x{:x}:", attr.config1);
            for (bit, c) in [(1, 'r'), (2, 'w'), (4, 'x')] {
                if attr.bp_type & bit != 0 {
                    s.push(c);
                }
            }
            s
        }
        t => format!("unknown attr type: {t}"),
    }
}

fn cache_name(config: u64) -> String {
    let (cache, op, result) = (config & 0xff, (config >> 8) & 0xff, (config >> 16) & 0xff);
    let Some(cache) = CACHE.get(cache as usize) else {
        return "unknown-ext-hardware-cache-type".to_owned();
    };
    let Some(&op_name) = CACHE_OP.get(op as usize) else {
        return "unknown-ext-hardware-cache-op".to_owned();
    };
    match result {
        0 => format!("{cache}-{}", CACHE_OP_ALIAS[op as usize]),
        1 => format!("{cache}-{op_name}-{}", CACHE_RESULT[1]),
        _ => "unknown-ext-hardware-cache-result".to_owned(),
    }
}

/// perf's `evsel__add_modifiers`.
fn modifiers(attr: &Attr) -> String {
    let mut m = String::new();
    let mut exclude_guest_default = false;
    let flagv = |n: &str| attr.flag(n).unwrap_or(0) != 0;
    let (ek, eu, eh) = (
        flagv("exclude_kernel"),
        flagv("exclude_user"),
        flagv("exclude_hv"),
    );
    if ek || eu || eh {
        if !ek {
            m.push('k');
        }
        if !eu {
            m.push('u');
        }
        if !eh {
            m.push('h');
        }
        exclude_guest_default = true;
    }
    let precise = attr.flag("precise_ip").unwrap_or(0) as usize;
    if precise > 0 {
        m.push_str(&"ppp"[..precise.min(3)]);
        exclude_guest_default = true;
    }
    let (host, guest) = (attr.has(flag::EXCLUDE_HOST), attr.has(flag::EXCLUDE_GUEST));
    if host || guest == exclude_guest_default {
        if !host {
            m.push('H');
        }
        if !guest {
            m.push('G');
        }
    }
    if m.is_empty() {
        m
    } else {
        format!(":{m}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let mut a = Attr::default();
        assert_eq!(from_attr(&a), "cycles:HG");
        a.set_flag("exclude_kernel", 1);
        assert_eq!(from_attr(&a), "cycles:uh");
        let mut d = Attr {
            type_: b::PERF_TYPE_SOFTWARE,
            config: 9,
            ..Attr::default()
        };
        assert_eq!(from_attr(&d), "dummy:HG");
        d.config = 1;
        assert_eq!(from_attr(&d), "task-clock:HG");
        let mut p = Attr::default();
        p.set_flag("precise_ip", 2);
        assert_eq!(from_attr(&p), "cycles:pp");
        let c = Attr {
            type_: b::PERF_TYPE_HW_CACHE,
            config: 0x10000,
            ..Attr::default()
        };
        assert_eq!(from_attr(&c), "L1-dcache-load-misses:HG");
        let r = Attr {
            type_: b::PERF_TYPE_RAW,
            config: 0x1234,
            ..Attr::default()
        };
        assert_eq!(from_attr(&r), "raw 0x1234");
    }
}
