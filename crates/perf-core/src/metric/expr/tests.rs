// SPDX-License-Identifier: GPL-2.0-only
//! perf's tests/expr.c: its cases as data (testdata/expr_cases.tsv), and
//! its checks of the running system's literals.

use super::*;

const CASES: &str = include_str!("testdata/expr_cases.tsv");

struct Setup {
    ctx: FixedContext,
    values: Vec<(String, f64)>,
    one: Option<String>,
    runtime: i32,
}

fn setup(s: &str) -> Setup {
    let mut out = Setup {
        ctx: FixedContext::default(),
        values: Vec::new(),
        one: None,
        runtime: 0,
    };
    for item in s.split(' ').filter(|x| *x != "-") {
        let (k, v) = item.split_once('=').expect("NAME=VALUE");
        match k {
            "one" => out.one = Some(v.to_owned()),
            "runtime" => out.runtime = v.parse().expect("runtime"),
            "cpuid" => out.ctx.cpuid = Some(v.to_owned()),
            k if k.starts_with('#') => {
                out.ctx
                    .literals
                    .insert(k[1..].to_owned(), v.parse().expect("literal"));
            }
            k => out.values.push((k.to_owned(), v.parse().expect("value"))),
        }
    }
    out
}

fn values_for(e: &Expr, given: &[(String, f64)]) -> Vec<Option<IdValue>> {
    e.ids()
        .iter()
        .map(|id| {
            given
                .iter()
                .find(|(k, _)| k == id)
                .map(|(_, v)| IdValue::new(*v))
        })
        .collect()
}

#[test]
fn perf_expr_test_cases() {
    let mut n = 0;
    for line in CASES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let [mode, set, src, want] = cols[..] else {
            panic!("bad case line: {line}");
        };
        let s = setup(set);
        let parsed = Expr::parse(src, s.runtime);
        match mode {
            "value" => {
                let e = parsed.unwrap_or_else(|err| panic!("{src}: {err}"));
                let got = e.eval(&s.ctx, &values_for(&e, &s.values)).unwrap();
                if want == "nan" {
                    assert!(got.is_nan(), "{src}: {got}");
                } else {
                    let want: f64 = want.parse().unwrap();
                    assert!(got == want, "{src}: got {got}, want {want}");
                }
            }
            "fail" => {
                let failed = parsed.and_then(|e| e.eval(&s.ctx, &values_for(&e, &s.values)));
                assert!(failed.is_err(), "{src}: {failed:?}");
            }
            "ids" => {
                let e = parsed.unwrap_or_else(|err| panic!("{src}: {err}"));
                let mut ids = e.find_ids(&s.ctx).unwrap();
                ids.retain(|x| Some(x) != s.one.as_ref());
                ids.sort();
                let mut want: Vec<String> = want
                    .split(' ')
                    .filter(|x| *x != "-")
                    .map(str::to_owned)
                    .collect();
                want.sort();
                assert_eq!(ids, want, "{src}");
            }
            m => panic!("unknown mode {m}"),
        }
        n += 1;
    }
    assert_eq!(n, 48);
}

#[test]
fn topology_literals_are_ordered_on_this_machine() {
    let ctx = SystemContext::new(false, None);
    let lit = |n: &str| {
        let e = Expr::parse(&format!("#{n}"), 0).unwrap();
        e.eval(&ctx, &[]).unwrap()
    };
    let (online, cpus, cores, dies, packages) = (
        lit("num_cpus_online"),
        lit("num_cpus"),
        lit("num_cores"),
        lit("num_dies"),
        lit("num_packages"),
    );
    assert!(online >= 1.0);
    assert!(cpus >= online);
    assert!(cpus >= cores);
    assert!(cores >= dies);
    if dies > 0.0 {
        assert!(dies >= packages);
    }
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap();
    let tsc = lit("system_tsc_freq");
    if cpuinfo.contains("GenuineIntel") && cpuinfo.contains("GHz") {
        assert!(tsc > 0.0);
    } else {
        assert!(tsc == 0.0);
    }
}

#[test]
fn cpuid_of_this_machine_matches_itself_escaped() {
    let ctx = SystemContext::new(false, None);
    let Some(cpuid) = ctx.cpuid() else {
        return;
    };
    let escaped = cpuid
        .replace('-', "\\-")
        .replace(',', "\\,")
        .replace('=', "\\=");
    let e = Expr::parse(&format!("strcmp_cpuid_str({escaped})"), 0).unwrap();
    assert!(e.eval(&ctx, &[]).unwrap() == 1.0);
    let e = Expr::parse("strcmp_cpuid_str(0x0)", 0).unwrap();
    assert!(e.eval(&ctx, &[]).unwrap() == 0.0);
}

#[test]
fn target_cpu_and_core_wide_follow_the_session() {
    let e = Expr::parse("#target_cpu", 0).unwrap();
    assert!(e.eval(&SystemContext::new(true, None), &[]).unwrap() == 1.0);
    assert!(e.eval(&SystemContext::new(false, None), &[]).unwrap() == 0.0);
    assert!(
        e.eval(&SystemContext::new(false, Some("0".into())), &[])
            .unwrap()
            == 1.0
    );
    let e = Expr::parse("#core_wide", 0).unwrap();
    assert!(e.eval(&SystemContext::new(false, None), &[]).unwrap() == 0.0);
    assert!(e.eval(&SystemContext::new(true, None), &[]).unwrap() == 1.0);
}

#[test]
fn errors_name_the_offset() {
    let err = Expr::parse("a + * b", 0).unwrap_err();
    assert_eq!(
        err,
        ExprError::Syntax {
            at: 4,
            what: "unexpected '*'".into()
        }
    );
    assert!(matches!(
        Expr::parse("FOO % 0", 0)
            .unwrap()
            .eval(&FixedContext::default(), &[None]),
        Err(ExprError::ModuloByZero { at: 4 })
    ));
    let e = Expr::parse("#no_such_literal", 0).unwrap();
    assert!(e.eval(&FixedContext::default(), &[]).is_err());
    let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert!(Expr::parse(&deep, 0).is_err());
    let long = vec!["a"; 100_000].join("+");
    assert!(Expr::parse(&long, 0).is_err());
}

#[test]
fn has_event_while_finding_ids_asks_the_context() {
    let ctx = FixedContext {
        events: vec!["cpu/cycles/".into()],
        ..FixedContext::default()
    };
    let e = Expr::parse("A if has_event(cpu@cycles@) else B", 0).unwrap();
    assert_eq!(e.find_ids(&ctx).unwrap(), ["A"]);
    let e = Expr::parse("A if has_event(cpu@nope@) else B", 0).unwrap();
    assert_eq!(e.find_ids(&ctx).unwrap(), ["B"]);
}
