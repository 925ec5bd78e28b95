// SPDX-License-Identifier: GPL-2.0-only
//! Parser tests on the fake sysfs and tracefs of `testdata/`. The expected
//! values are what perf 6.1 printed for the same strings on the VM (the
//! live comparison is `tests/test_parse_events_vs_perf.py`).

use std::path::PathBuf;

use super::*;
use crate::attr::Attr;
use crate::tracefs::Tracefs;

const HW: u32 = 0;
const SW: u32 = 1;
const TP: u32 = 2;
const CACHE: u32 = 3;
const RAW: u32 = 4;
const BP: u32 = 5;

fn testdata() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/parse_events/testdata")
}

fn parse(s: &str) -> Result<Vec<ParsedEvsel>, ParseError> {
    let sysfs = Sysfs::at(testdata().join("sysfs"));
    let tracefs = Tracefs::at(testdata().join("tracing"));
    parse_events_in(s, &sysfs, Some(&tracefs))
}

fn ok(s: &str) -> Vec<ParsedEvsel> {
    parse(s).unwrap_or_else(|e| panic!("{s:?} failed:\n{e}"))
}

fn one(s: &str) -> ParsedEvsel {
    let mut v = ok(s);
    assert_eq!(v.len(), 1, "{s}: {v:?}");
    v.remove(0)
}

fn err(s: &str) -> ParseError {
    match parse(s) {
        Ok(v) => panic!("{s:?} parsed: {v:?}"),
        Err(e) => e,
    }
}

fn flag(a: &Attr, name: &str) -> u64 {
    a.flag(name).unwrap_or_else(|| panic!("no flag {name}"))
}

/// The flag names set in `a` among the ones modifiers touch.
fn excl(a: &Attr) -> Vec<&'static str> {
    [
        "exclude_user",
        "exclude_kernel",
        "exclude_hv",
        "exclude_idle",
        "exclude_host",
        "exclude_guest",
        "pinned",
        "exclusive",
    ]
    .into_iter()
    .filter(|n| flag(a, n) != 0)
    .collect()
}

#[test]
fn every_flag_name_used_exists_in_the_feature_table() {
    let mut a = Attr::default();
    for name in [
        "exclude_user",
        "exclude_kernel",
        "exclude_hv",
        "exclude_idle",
        "exclude_host",
        "exclude_guest",
        "pinned",
        "exclusive",
        "precise_ip",
        "freq",
        "inherit",
        "mmap_data",
        "exclude_callchain_user",
    ] {
        assert_eq!(a.set_flag(name, 1), Some(()), "{name}");
    }
}

#[test]
fn hardware_and_software_symbols() {
    let cases = [
        ("cycles", HW, 0),
        ("cpu-cycles", HW, 0),
        ("instructions", HW, 1),
        ("cache-references", HW, 2),
        ("cache-misses", HW, 3),
        ("branches", HW, 4),
        ("branch-instructions", HW, 4),
        ("branch-misses", HW, 5),
        ("bus-cycles", HW, 6),
        ("stalled-cycles-frontend", HW, 7),
        ("idle-cycles-frontend", HW, 7),
        ("stalled-cycles-backend", HW, 8),
        ("idle-cycles-backend", HW, 8),
        ("ref-cycles", HW, 9),
        ("cpu-clock", SW, 0),
        ("task-clock", SW, 1),
        ("page-faults", SW, 2),
        ("faults", SW, 2),
        ("context-switches", SW, 3),
        ("cs", SW, 3),
        ("cpu-migrations", SW, 4),
        ("migrations", SW, 4),
        ("minor-faults", SW, 5),
        ("major-faults", SW, 6),
        ("alignment-faults", SW, 7),
        ("emulation-faults", SW, 8),
        ("dummy", SW, 9),
        ("bpf-output", SW, 10),
        ("cgroup-switches", SW, 11),
    ];
    for (s, t, c) in cases {
        let ev = one(s);
        assert_eq!((ev.attr.type_, ev.attr.config), (t, c), "{s}");
        assert_eq!(ev.name, s);
        assert_eq!(excl(&ev.attr), ["exclude_guest"], "{s}");
        assert_eq!(
            (ev.attr.sample_period, ev.attr.sample_type, ev.attr.size),
            (0, 0, 0)
        );
        assert_eq!(ev.pmu, None);
        assert!(ev.group.is_none() && ev.is_group_leader());
    }
}

#[test]
fn lists_keep_order_and_names_keep_the_text() {
    let v = ok("cycles,faults:u, cs ,dummy");
    let names: Vec<&str> = v.iter().map(|e| e.name.as_str()).collect();
    // perf names an event after its text, white space included.
    assert_eq!(names, ["cycles", "faults:u", " cs ", "dummy"]);
    assert_eq!(
        v.iter().map(|e| e.attr.config).collect::<Vec<_>>(),
        [0, 2, 3, 9]
    );
}

#[test]
fn cache_events() {
    let ev = one("L1-dcache-load-misses");
    assert_eq!((ev.attr.type_, ev.attr.config), (CACHE, 0x10000));
    assert_eq!(ev.name, "L1-dcache-load-misses");
    assert_eq!(
        (
            one("LLC-loads").attr.config,
            one("dTLB-store-misses").attr.config
        ),
        (0x2, 0x10103)
    );
    assert_eq!(one("branch-loads").attr.config, 0x5);
    assert_eq!(one("node-prefetches").attr.config, 0x206);
    // The cache name stays the event name: modifiers are not in it.
    let ev = one("l1d-loads:u");
    assert_eq!(ev.name, "l1d-loads");
    assert_eq!(
        excl(&ev.attr),
        ["exclude_kernel", "exclude_hv", "exclude_guest"]
    );
    assert_eq!(one("L1-dcache-loads/name=x/").name, "x");
    assert!(err("iTLB-stores").message.contains("invalid cache event"));
    assert!(err("branches-loads").message.contains("unknown event"));
}

#[test]
fn raw_and_numeric_events() {
    let ev = one("r1a2");
    assert_eq!(
        (ev.attr.type_, ev.attr.config, ev.name.as_str()),
        (RAW, 0x1a2, "r1a2")
    );
    assert_eq!(one("r1A2").attr.config, 0x1a2);
    assert_eq!(one("r1a2:u").name, "r1a2:u");
    let ev = one("r1a2/config=5/");
    assert_eq!((ev.attr.config, ev.name.as_str()), (5, "r1a2/config=5/"));
    assert_eq!(one("r1a2/name=x/").name, "x");
    assert!(err("r11112222333344445").message.contains("too large"));
    let ev = one("1:2");
    assert_eq!(
        (ev.attr.type_, ev.attr.config, ev.name.as_str()),
        (SW, 2, "1:2")
    );
    let ev = one("1:2:u");
    assert_eq!(
        excl(&ev.attr),
        ["exclude_kernel", "exclude_hv", "exclude_guest"]
    );
    assert_eq!(one("0x1:0x2/config=5/").attr.config, 5);
    assert!(err("1:x").message.contains("config number"));
    assert!(err("4294967296:1").message.contains("too large"));
}

#[test]
fn modifiers_on_events() {
    let ev = one("faults:u");
    assert_eq!(
        excl(&ev.attr),
        ["exclude_kernel", "exclude_hv", "exclude_guest"]
    );
    let ev = one("faults:k");
    assert_eq!(excl(&ev.attr), ["exclude_user", "exclude_hv"]);
    let ev = one("cs:G");
    assert_eq!(excl(&ev.attr), ["exclude_host"]);
    assert!(ev.exclude_gh);
    let ev = one("cpu-clock:ppp");
    assert_eq!(flag(&ev.attr, "precise_ip"), 3);
    let ev = one("task-clock:D");
    assert_eq!(excl(&ev.attr), ["pinned"]);
    assert_eq!(ev.name, "task-clock:D");
    assert!(one("faults:S").sample_read);
    assert!(one("faults:P").precise_max);
    assert!(one("faults:W").weak_group);
    assert!(one("faults:b").bpf_counter);
    assert_eq!(excl(&one("faults:I").attr), ["exclude_idle"]);
    // An empty modifier list changes nothing (perf accepts `faults:`).
    assert_eq!(excl(&one("faults:").attr), ["exclude_guest"]);
    let e = err("faults:uu");
    assert_eq!((e.message.as_str(), e.position), ("Bad modifier", 7));
    assert_eq!(err("faults:pppp").message, "Bad modifier");
    assert_eq!(err("faults:x").position, 7);
    assert!(err("faults:u:k").message.contains("parser error"));
    assert!(err("faultsu").message.contains("unknown event"));
}

#[test]
fn groups() {
    let v = ok("{task-clock,page-faults}:S");
    assert_eq!(v.len(), 2);
    let g0 = v.first().and_then(|e| e.group.clone());
    let g1 = v.get(1).and_then(|e| e.group.clone());
    assert_eq!(
        g0,
        Some(GroupInfo {
            index: 0,
            leader: 0,
            is_leader: true,
            nr_members: 2,
            name: None
        })
    );
    assert_eq!(
        g1.as_ref().map(|g| (g.leader, g.is_leader)),
        Some((0, false))
    );
    assert!(v.iter().all(|e| e.sample_read));
    assert_eq!(
        v.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(),
        ["task-clock", "page-faults"]
    );

    // Two groups and a loose event; group numbering and leaders.
    let v = ok("{faults,cs},dummy,mygrp{cs}:u");
    let groups: Vec<Option<(usize, usize, bool)>> = v
        .iter()
        .map(|e| e.group.as_ref().map(|g| (g.index, g.leader, g.is_leader)))
        .collect();
    assert_eq!(
        groups,
        [
            Some((0, 0, true)),
            Some((0, 0, false)),
            None,
            Some((1, 3, true))
        ]
    );
    assert_eq!(
        v.get(3)
            .and_then(|e| e.group.as_ref())
            .and_then(|g| g.name.clone()),
        Some("mygrp".into())
    );

    // Group modifiers start from the members' bits; D/e only on the leader.
    let v = ok("{faults:k,cs}:u");
    assert_eq!(
        v.iter().map(|e| excl(&e.attr)).collect::<Vec<_>>(),
        [
            vec!["exclude_hv", "exclude_guest"],
            vec!["exclude_kernel", "exclude_hv", "exclude_guest"]
        ]
    );
    let v = ok("{faults,cs}:D");
    assert_eq!(
        v.iter()
            .map(|e| flag(&e.attr, "pinned"))
            .collect::<Vec<_>>(),
        [1, 0]
    );
    let v = ok("{faults,cs:D}");
    assert_eq!(
        v.iter()
            .map(|e| flag(&e.attr, "pinned"))
            .collect::<Vec<_>>(),
        [0, 1]
    );
    let v = ok("{faults:G,cs}:p");
    assert_eq!(
        v.iter().map(|e| excl(&e.attr)).collect::<Vec<_>>(),
        [vec!["exclude_host"], vec!["exclude_guest"]]
    );
    assert_eq!(err("{faults:pp}:pp").message, "Bad modifier");

    assert_eq!(err("faults{cs}").position, 6);
    for bad in [
        "r1{cs}",
        "{}",
        "{faults",
        "{faults,}",
        "{{faults}}",
        "{faults}x",
        "{faults}:x",
        "faults}",
    ] {
        let _ = err(bad);
    }
}

#[test]
fn tracepoints_and_globs() {
    let ev = one("sched:sched_switch");
    assert_eq!((ev.attr.type_, ev.attr.config), (TP, 372));
    assert_eq!(ev.name, "sched:sched_switch");
    assert_eq!((ev.attr.sample_period, ev.attr.sample_type), (1, 0x584));
    assert_eq!(ev.attr.sample_type, tracepoint::TRACEPOINT_SAMPLE_TYPE);
    assert_eq!(excl(&ev.attr), ["exclude_guest"]);
    // The modifiers are not part of a tracepoint's name.
    let ev = one("sched:sched_switch:u");
    assert_eq!(ev.name, "sched:sched_switch");
    assert_eq!(
        excl(&ev.attr),
        ["exclude_kernel", "exclude_hv", "exclude_guest"]
    );
    assert_eq!(flag(&one("sched:sched_switch:p").attr, "precise_ip"), 1);

    let names = |s: &str| ok(s).into_iter().map(|e| e.name).collect::<Vec<_>>();
    assert_eq!(
        names("sched:sched_wak*"),
        [
            "sched:sched_wakeup",
            "sched:sched_wakeup_new",
            "sched:sched_waking"
        ]
    );
    assert_eq!(names("sched:*").len(), 5);
    assert_eq!(names("*:sched_switch"), ["sched:sched_switch"]);
    assert_eq!(names("sched*:*dump"), ["sched_ext:sched_ext_dump"]);
    assert_eq!(names("irq:irq_handler_e?it"), ["irq:irq_handler_exit"]);

    let e = err("sched:nosuch");
    assert_eq!((e.message.as_str(), e.position), ("unknown tracepoint", 0));
    assert!(e
        .help
        .as_deref()
        .is_some_and(|h| h.contains("events/sched/nosuch not found")));
    assert_eq!(err("sched:nomatch*").message, "unknown tracepoint");
    // A directory without a format file is no tracepoint (perf needs the format).
    assert_eq!(err("sched:no_format").message, "unknown tracepoint");
    assert_eq!(err("faults, sched:..").position, 8);
    assert!(err("sched:").message.contains("tracepoint name"));

    // Tracepoints take a few terms only.
    let ev = one("sched:sched_switch/call-graph=fp/");
    assert_eq!(ev.attr.sample_type & 0x20, 0x20);
    let e = err("sched:sched_switch/name=x/");
    assert_eq!(
        (e.message.as_str(), e.position),
        ("unknown term 'name'", 19)
    );
    assert_eq!(
        err("sched:sched_switch/period=1/").message,
        "unknown term 'period'"
    );

    // No tracefs at all.
    let sysfs = Sysfs::at(testdata().join("sysfs"));
    let e = parse_events_in("sched:sched_switch", &sysfs, None).err();
    assert_eq!(e.map(|e| e.message), Some("unknown tracepoint".into()));
    assert!(parse_events_in("faults", &sysfs, None).is_ok());
}

#[test]
fn breakpoints() {
    let ev = one("mem:0x1000");
    assert_eq!(
        (
            ev.attr.type_,
            ev.attr.bp_type,
            ev.attr.config1,
            ev.attr.config2
        ),
        (BP, 3, 0x1000, 4)
    );
    assert_eq!((ev.attr.sample_period, ev.name.as_str()), (1, "mem:0x1000"));
    assert_eq!(excl(&ev.attr), ["exclude_guest"]);
    assert_eq!(one("mem:4096").attr.config1, 0x1000);
    let ev = one("mem:0x1000:rw");
    assert_eq!((ev.attr.bp_type, ev.name.as_str()), (3, "mem:0x1000:rw"));
    assert_eq!(one("mem:0x1000:rwx").attr.bp_type, 7);
    let ev = one("mem:0x1000:x");
    assert_eq!((ev.attr.bp_type, ev.attr.config2), (4, 8));
    let ev = one("mem:0x1000/8");
    assert_eq!((ev.attr.config2, ev.name.as_str()), (8, "mem:0x1000"));
    let ev = one("mem:0x1000/0x2:w:u");
    assert_eq!((ev.attr.bp_type, ev.attr.config2), (2, 2));
    assert_eq!(
        excl(&ev.attr),
        ["exclude_kernel", "exclude_hv", "exclude_guest"]
    );
    let ev = one("mem:0x1000:u");
    assert_eq!((ev.attr.bp_type, ev.name.as_str()), (3, "mem:0x1000:u"));
    assert_eq!(
        excl(&ev.attr),
        ["exclude_kernel", "exclude_hv", "exclude_guest"]
    );
    assert!(err("mem:0x1000:rr").message.contains("breakpoint type"));
    assert!(err("mem:0x1000:q").message.contains("parser error"));
    assert!(err("mem:zz").message.contains("address"));
    assert!(err("mem:0x1000/x").message.contains("length"));
    // perf's order is ADDR/LEN:TYPE, not ADDR:TYPE/LEN.
    let _ = err("mem:0x1000:x/8");
}

#[test]
fn pmu_terms_and_formats() {
    let ev = one("software/config=1/");
    assert_eq!((ev.attr.type_, ev.attr.config), (SW, 1));
    assert_eq!(
        (ev.name.as_str(), ev.pmu.as_deref()),
        ("software/config=1/", Some("software"))
    );
    assert_eq!(excl(&ev.attr), ["exclude_guest"]);
    let ev = one("software/config=1,name=bar/");
    assert_eq!(ev.name, "bar");
    let ev = one("software/config=1/u");
    assert_eq!(ev.name, "software/config=1/u");
    assert_eq!(
        excl(&ev.attr),
        ["exclude_kernel", "exclude_hv", "exclude_guest"]
    );
    assert_eq!(one("software/config/").attr.config, 1);
    assert_eq!(one("software//").attr.config, 0);
    assert_eq!(one("software/ config = 3 , config1 = 2 /").attr.config1, 2);
    assert_eq!(one("tracepoint/config=372/").attr.type_, TP);

    let ev = one("cpu/event=0x3c,umask=0x1,edge,inv,cmask=2,ldlat=30/");
    assert_eq!(
        (ev.attr.type_, ev.attr.config, ev.attr.config1),
        (4, 0x0284_013c, 30)
    );
    let ev = one("fake/split=0xab,wide=0xffffffffffffffff,flag,three=7/");
    assert_eq!(
        (
            ev.attr.config,
            ev.attr.config1,
            ev.attr.config2,
            ev.attr.config3
        ),
        (1 << 63, u64::MAX, 0xa0b, 7)
    );
    // config= is applied before the format fields, which are ORed in.
    assert_eq!(one("cpu/umask=1,config=0x3c/").attr.config, 0x13c);

    let e = err("cpu/foo=1/");
    assert_eq!(
        (e.message.as_str(), e.position),
        ("unknown term 'foo' for pmu 'cpu'", 4)
    );
    assert!(e
        .help
        .as_deref()
        .is_some_and(|h| h.starts_with("valid terms: cmask,edge,event,inv,ldlat,umask,config,")));
    let e = err("cpu/event=0x100/");
    assert_eq!(
        (e.message.as_str(), e.position),
        ("value too big for format, maximum is 255", 10)
    );
    assert_eq!(err("cpu/event/").message, "no value assigned for term");
    assert_eq!(err("cpu/event=abc/").message, "expected numeric value");
    assert_eq!(
        err("fake/broken=1/").message,
        "unknown term 'broken' for pmu 'fake'"
    );
    let e = err("software/config=abc/");
    assert_eq!(
        (e.message.as_str(), e.position),
        ("expected numeric value", 16)
    );
    assert_eq!(err("software/name=3/").message, "expected string value");
    let e = err("nosuchpmu/config=1/");
    assert_eq!(
        (e.message.as_str(), e.position),
        ("Cannot find PMU `nosuchpmu'. Missing kernel support?", 0)
    );
    for bad in [
        "software/config=1,/",
        "software/,config=1/",
        "software/config=1/:u",
        "software/config=1",
        "faults/",
        "software/config=0X10/",
    ] {
        let _ = err(bad);
    }

    // Legacy events take the hard-coded terms only.
    let ev = one("faults/config=3/");
    assert_eq!((ev.attr.config, ev.name.as_str()), (3, "faults/config=3/"));
    assert_eq!(one("faults/name=foo/").name, "foo");
    assert!(err("faults/umask=1/")
        .help
        .as_deref()
        .is_some_and(|h| h.starts_with("valid terms: config,")));
    let ev = one("cpu-clock/period=100/u");
    assert_eq!(
        (ev.attr.sample_period, ev.name.as_str()),
        (100, "cpu-clock/period=100/u")
    );
    assert_eq!(one("cpu-clock//").name, "cpu-clock//");
}

#[test]
fn pmu_aliases() {
    let ev = one("msr/tsc/");
    assert_eq!(
        (ev.attr.type_, ev.attr.config, ev.name.as_str()),
        (10, 0, "msr/tsc/")
    );
    assert_eq!(one("msr/smi/").attr.config, 4);
    assert_eq!(one("msr/event=smi/").attr.config, 4);
    assert_eq!(one("msr/SMI/").attr.config, 4);
    let ev = one("cpu/mem-loads/");
    assert_eq!((ev.attr.config, ev.attr.config1), (0x1cd, 3));
    // An alias's terms can be overridden by later terms (format ORs).
    assert_eq!(one("cpu/cpu-cycles,umask=2/").attr.config, 0x23c);
    let ev = one("fake/ev_b/");
    assert_eq!((ev.attr.config, ev.attr.config2), (0xc0, 0xa0b));
    let ev = one("fake/ev_period/");
    assert_eq!((ev.attr.config, ev.attr.sample_period), (2, 1000));
    assert!(err("fake/ev_broken/").message.contains("bad sysfs alias"));

    // A bare alias makes one evsel per PMU that has it, sorted by PMU.
    let v = ok("tsc");
    let got: Vec<(u32, u64, &str, Option<&str>)> = v
        .iter()
        .map(|e| {
            (
                e.attr.type_,
                e.attr.config,
                e.name.as_str(),
                e.pmu.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [(42, 7, "tsc", Some("fake")), (10, 0, "tsc", Some("msr"))]
    );
    let v = ok("tsc:u");
    assert!(v
        .iter()
        .all(|e| e.name == "tsc:u" && flag(&e.attr, "exclude_kernel") == 1));
    assert_eq!(one("mem-loads").attr.config1, 3);
    assert_eq!(one("topdown-slots").attr.config, 0x400);

    // Numbered uncore PMUs.
    let v = ok("imc/clockticks/");
    assert_eq!(v.iter().map(|e| e.attr.type_).collect::<Vec<_>>(), [50, 51]);
    assert!(v
        .iter()
        .all(|e| e.attr.config == 0xff && e.name == "imc/clockticks/"));
    assert_eq!(ok("uncore_imc/event=1/").len(), 2);
    assert_eq!(one("uncore_imc_1/event=1/").attr.type_, 51);
    assert_eq!(ok("clockticks").len(), 2);
}

#[test]
fn config_terms_are_applied_and_kept() {
    let ev = one("faults/period=100/");
    assert_eq!((ev.attr.sample_period, flag(&ev.attr, "freq")), (100, 0));
    assert_eq!(ev.config_terms, [ConfigTerm::Period(100)]);
    let ev = one("faults/freq=50/");
    assert_eq!((ev.attr.sample_period, flag(&ev.attr, "freq")), (50, 1));
    let ev = one("faults/period=100,freq=50/");
    assert_eq!((ev.attr.sample_period, flag(&ev.attr, "freq")), (50, 1));
    let ev = one("faults/freq=50,period=100/");
    assert_eq!((ev.attr.sample_period, flag(&ev.attr, "freq")), (100, 0));
    let ev = one("faults/no-inherit/");
    assert_eq!(ev.config_terms, [ConfigTerm::Inherit(false)]);
    assert_eq!(flag(&one("faults/inherit/").attr, "inherit"), 1);
    assert_eq!(one("faults/time=1/").attr.sample_type, 0x4);
    assert_eq!(err("faults/time=2/").message, "expected 0 or 1");
    let ev = one("faults/call-graph=dwarf,stack-size=4097,max-stack=5/");
    assert_eq!(ev.attr.sample_stack_user, 4104);
    assert_eq!(ev.attr.sample_max_stack, 5);
    assert!(err("faults/call-graph=bogus/")
        .message
        .contains("call-graph"));
    assert_eq!(one("faults/branch_type=any/").attr.branch_sample_type, 8);
    assert!(err("faults/branch_type=nope/").message.contains("branch"));

    // Re-applying on top of a tool's defaults (what evlist.config() does).
    let ev = one("faults/period=100/");
    let mut attr = ev.attr;
    attr.sample_period = 4000;
    let _ = attr.set_flag("freq", 1);
    attr.sample_type |= 0x100;
    ev.apply_config_terms(&mut attr);
    assert_eq!(
        (
            attr.sample_period,
            flag(&attr, "freq"),
            attr.sample_type & 0x100
        ),
        (100, 0, 0)
    );
}

#[test]
fn errors_point_at_the_problem() {
    assert_eq!(err("").position, 0);
    assert_eq!(err(",").position, 0);
    let e = err("faults,");
    assert_eq!(e.position, 7);
    let e = err("faults,xyz");
    assert_eq!((e.message.as_str(), e.position), ("unknown event 'xyz'", 7));
    assert!(e
        .to_string()
        .starts_with("event syntax error: 'faults,xyz'\n"));
    assert_eq!(err("faults cs").position, 7);
    assert_eq!(err("software").message, "unknown event 'software'");
    assert_eq!(err("Faults").message, "unknown event 'Faults'");
    assert_eq!(err("faults#").position, 6);
    assert_eq!(err("faults:u#").position, 8);
    assert_eq!(err("faults/config=1'/").position, 15);
    assert!(err("faults/config='1/").message.contains("unterminated"));
}

/// A small deterministic PRNG (xorshift), so the fuzz loop needs no crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        let i = (self.next() % items.len() as u64) as usize;
        items.get(i).copied().unwrap_or_default()
    }
}

#[test]
fn fuzz_never_panics() {
    // Random strings from the grammar's own pieces, and random bytes.
    let pieces = [
        "cycles",
        "faults",
        "cs",
        "L1-dcache",
        "-load",
        "-misses",
        "r1a2",
        "r",
        "mem",
        ":",
        "::",
        "/",
        "//",
        ",",
        "{",
        "}",
        "sched",
        "sched_s*",
        "*",
        "?",
        "[",
        "]",
        "=",
        "config",
        "=0x",
        "0x",
        "1",
        "99999999999999999999",
        "u",
        "k",
        "ppp",
        "S",
        "software",
        "cpu",
        "fake",
        "event",
        "umask",
        "msr",
        "tsc",
        "name",
        "'",
        "x",
        " ",
        "\t",
        "imc",
        "é",
        "→",
        "\0",
        "period",
        "call-graph",
        "dwarf",
        "branch_type",
        "no",
        "w",
        "rwx",
        "e",
        "split",
        "ev_b",
        "-",
        ".",
        "!",
    ];
    let sysfs = Sysfs::at(testdata().join("sysfs"));
    let tracefs = Tracefs::at(testdata().join("tracing"));
    // One environment for all rounds, so sysfs is read once.
    let env = env::Env::new(&sysfs, env::TracefsSource::Given(&tracefs));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut parsed = 0;
    for round in 0..20_000 {
        let n = 1 + rng.next() % 12;
        let s: String = if round % 4 == 3 {
            let bytes: Vec<u8> = (0..n * 2).map(|_| (rng.next() % 128) as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            (0..n).map(|_| rng.pick(&pieces)).collect()
        };
        match parser::Parser::new(&s, &env).parse() {
            Ok(v) => {
                assert!(!v.is_empty(), "{s:?} gave no evsels");
                parsed += 1;
            }
            Err(e) => {
                assert!(
                    e.position <= s.len(),
                    "{s:?}: position {} past the end",
                    e.position
                );
                let _ = e.to_string();
            }
        }
    }
    // The generator does reach valid strings.
    assert!(parsed > 100, "only {parsed} parsed");
}
