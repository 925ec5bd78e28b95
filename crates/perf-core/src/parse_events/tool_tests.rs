// SPDX-License-Identifier: GPL-2.0-only
//! The tool PMU's events as `parse_events` makes them: type
//! `PERF_PMU_TYPE_TOOL`, config `tool_pmu.c`'s enum, named as written.

use super::*;

fn parse(s: &str) -> Result<Vec<ParsedEvsel>, ParseError> {
    let sysfs = Sysfs::at(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("src/parse_events/testdata/sysfs"),
    );
    parse_events_in(s, &sysfs, None)
}

#[test]
fn bare_names_and_the_tool_pmu_syntax() {
    for (s, config) in [
        ("duration_time", 1),
        ("user_time", 2),
        ("system_time", 3),
        ("tool/duration_time/", 1),
        ("tool/system_time/", 3),
    ] {
        let v = parse(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(v.len(), 1, "{s}");
        assert_eq!(
            (v[0].attr.type_, v[0].attr.config),
            (TOOL_PMU_TYPE, config),
            "{s}"
        );
        assert_eq!(v[0].name, s);
    }
}

#[test]
fn in_lists_and_groups() {
    let v = parse("duration_time,cpu-clock,{user_time,system_time}").unwrap_or_default();
    let got: Vec<(u32, u64)> = v.iter().map(|e| (e.attr.type_, e.attr.config)).collect();
    assert_eq!(
        got,
        [
            (TOOL_PMU_TYPE, 1),
            (1, 0),
            (TOOL_PMU_TYPE, 2),
            (TOOL_PMU_TYPE, 3)
        ]
    );
}

#[test]
fn unknown_tool_terms_are_refused() {
    for s in [
        "tool/num_cpus/",
        "tool/config=1/",
        "tool/duration_time,user_time/",
        "tool//",
    ] {
        assert!(parse(s).is_err(), "{s}");
    }
    assert!(parse("duration_times").is_err());
}
