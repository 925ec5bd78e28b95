// SPDX-License-Identifier: GPL-2.0-only
//! Term reading, hard-coded terms and `apply_config_terms` against what
//! `perf record -vv -e 'faults/TERMS/'` printed on the VM.

use super::*;

fn terms(s: &str) -> Result<Vec<Term>, ParseError> {
    let mut c = Cursor::new(s);
    let t = parse_terms(&mut c)?;
    if !c.at_end() {
        return Err(c.unexpected("the end"));
    }
    Ok(t)
}

fn term(name: &str, name_pos: usize, value: TermValue, value_pos: usize) -> Term {
    Term {
        name: name.into(),
        name_pos,
        value,
        value_pos,
    }
}

#[test]
fn reading_terms() {
    assert_eq!(terms(""), Ok(vec![]));
    assert_eq!(terms("  "), Ok(vec![]));
    assert_eq!(
        terms("config=0x1a,name=foo,edge, call-graph = dwarf ,name='a b,c'"),
        Ok(vec![
            term("config", 0, TermValue::Num(0x1a), 7),
            term("name", 12, TermValue::Str("foo".into()), 17),
            term("edge", 21, TermValue::Bare, 25),
            term("call-graph", 27, TermValue::Str("dwarf".into()), 40),
            term("name", 47, TermValue::Str("a b,c".into()), 52),
        ])
    );
    assert_eq!(
        terms("x=01").map(|t| t.first().and_then(Term::num)),
        Ok(Some(1))
    );
    assert_eq!(
        terms("x=a:b.c-d*").map(|t| t.first().map(|t| t.value.clone())),
        Ok(Some(TermValue::Str("a:b.c-d*".into())))
    );
    for bad in [
        "a,", ",a", "a,,b", "=1", "a=", "a=0X1", "a=1x", "a='x", "1=2", "a b",
    ] {
        assert!(terms(bad).is_err(), "{bad}");
    }
    assert_eq!(terms("a=0X1").err().map(|e| e.position), Some(2));
}

#[test]
fn known_terms() {
    assert_eq!(known("config"), Some(Known::Config));
    assert_eq!(known("no-inherit"), Some(Known::NoInherit));
    assert_eq!(known("umask"), None);
    let help = valid_terms_help(&["event"]);
    assert!(help.starts_with("valid terms: event,config,config1,config2,config3,name,period,freq,"));
}

fn apply(s: &str, attr: &mut Attr) -> Result<Vec<Outcome>, ParseError> {
    terms(s)?
        .iter()
        .map(|t| apply_known(known(&t.name).unwrap_or(Known::Config), t, attr, s))
        .collect()
}

#[test]
fn hard_coded_terms() {
    let mut a = Attr::default();
    let out = apply(
        "config=1,config1=2,config2=3,config3=4,name=x,config",
        &mut a,
    );
    assert_eq!(
        out.as_ref().map(|o| o.get(4).cloned()),
        Ok(Some(Outcome::Name("x".into())))
    );
    assert_eq!((a.config, a.config1, a.config2, a.config3), (1, 2, 3, 4));
    let cases: &[(&str, ConfigTerm)] = &[
        ("period=100", ConfigTerm::Period(100)),
        ("freq=50", ConfigTerm::Freq(50)),
        ("time=0", ConfigTerm::Time(false)),
        ("time", ConfigTerm::Time(true)),
        ("inherit", ConfigTerm::Inherit(true)),
        ("inherit=0", ConfigTerm::Inherit(false)),
        ("no-inherit", ConfigTerm::Inherit(false)),
        ("no-inherit=0", ConfigTerm::Inherit(true)),
        ("stack-size=4096", ConfigTerm::StackSize(4096)),
        ("max-stack=5", ConfigTerm::MaxStack(5)),
        ("call-graph=fp", ConfigTerm::CallGraph(CallGraph::Fp)),
        ("call-graph=dwarf", ConfigTerm::CallGraph(CallGraph::Dwarf)),
        ("call-graph=lbr", ConfigTerm::CallGraph(CallGraph::Lbr)),
        ("call-graph=no", ConfigTerm::CallGraph(CallGraph::No)),
        ("branch_type=no", ConfigTerm::BranchType(0)),
        ("branch_type=u", ConfigTerm::BranchType(0x1 | 0x8)),
        ("branch_type=any_call", ConfigTerm::BranchType(0x10)),
    ];
    for (s, want) in cases {
        let got = apply(s, &mut Attr::default());
        assert_eq!(got, Ok(vec![Outcome::Config(*want)]), "{s}");
    }
    let errors = [
        ("config=x", "expected numeric value"),
        ("name=1", "expected string value"),
        ("name", "expected string value"),
        ("time=2", "expected 0 or 1"),
        ("max-stack=65536", "too big"),
        ("stack-size=4294967295", "too big"),
        ("branch_type=bogus", "invalid branch sample type"),
        (
            "call-graph=bogus",
            "invalid call-graph mode (fp, dwarf, lbr or no)",
        ),
        ("call-graph=1", "expected string value"),
    ];
    for (s, msg) in errors {
        let e = apply(s, &mut Attr::default()).err();
        assert_eq!(e.map(|e| e.message), Some(msg.to_owned()), "{s}");
    }
}

/// `PERF_SAMPLE_*` letters for readable expectations.
const IP_TID_TIME_PERIOD: u64 = 0x1 | 0x2 | 0x4 | 0x100;

/// perf record's defaults for a software event, then the terms.
fn record(terms: &[ConfigTerm]) -> Attr {
    let mut a = Attr {
        sample_period: 4000,
        sample_type: IP_TID_TIME_PERIOD,
        ..Attr::default()
    };
    let _ = a.set_flag("freq", 1);
    let _ = a.set_flag("inherit", 1);
    apply_config_terms(terms, &mut a);
    a
}

#[test]
fn config_terms_as_perf_record_applies_them() {
    use ConfigTerm::*;
    // faults/period=100/: IP|TID|TIME, period 100, freq off.
    let a = record(&[Period(100)]);
    assert_eq!(
        (a.sample_period, a.sample_type, a.flag("freq")),
        (100, 0x7, Some(0))
    );
    // faults/freq=50,period=100/ and the other order.
    assert_eq!(record(&[Freq(50), Period(100)]).sample_period, 100);
    let a = record(&[Period(100), Freq(50)]);
    assert_eq!(
        (a.sample_period, a.sample_type, a.flag("freq")),
        (50, IP_TID_TIME_PERIOD, Some(1))
    );
    // faults/time=0/: IP|TID|PERIOD.
    assert_eq!(record(&[Time(false)]).sample_type, 0x103);
    // faults/inherit=0/
    assert_eq!(record(&[Inherit(false)]).flag("inherit"), Some(0));
    // faults/call-graph=fp/: +CALLCHAIN, no max stack.
    let a = record(&[CallGraph(super::CallGraph::Fp)]);
    assert_eq!(
        (a.sample_type, a.sample_max_stack),
        (IP_TID_TIME_PERIOD | 0x20, 0)
    );
    // faults/max-stack=5/: frame pointers implied.
    let a = record(&[MaxStack(5)]);
    assert_eq!(
        (a.sample_type, a.sample_max_stack),
        (IP_TID_TIME_PERIOD | 0x20, 5)
    );
    // faults/stack-size=4096/ alone: nothing.
    assert_eq!(record(&[StackSize(4096)]), record(&[]));
    // faults/call-graph=dwarf/: ADDR|CALLCHAIN|REGS_USER|STACK_USER|DATA_SRC.
    let a = record(&[CallGraph(super::CallGraph::Dwarf)]);
    assert_eq!(
        a.sample_type,
        IP_TID_TIME_PERIOD | 0x8 | 0x20 | 0x1000 | 0x2000 | 0x8000
    );
    assert_eq!(
        (a.sample_stack_user, a.sample_regs_user),
        (8192, USER_REGS_MASK)
    );
    assert_eq!(
        (a.flag("exclude_callchain_user"), a.flag("mmap_data")),
        (Some(1), Some(1))
    );
    assert_eq!(
        record(&[StackSize(4097), CallGraph(super::CallGraph::Dwarf)]).sample_stack_user,
        4104
    );
    // faults/call-graph=lbr/
    let a = record(&[CallGraph(super::CallGraph::Lbr)]);
    assert_eq!(a.sample_type, IP_TID_TIME_PERIOD | 0x20 | 0x800);
    assert_eq!(
        a.branch_sample_type,
        0x1 | 0x800 | 0x4000 | 0x8000 | 0x20000
    );
    // faults/call-graph=no/
    assert_eq!(record(&[CallGraph(super::CallGraph::No)]), record(&[]));
    // faults/branch_type=any/ and =no
    let a = record(&[BranchType(8)]);
    assert_eq!(
        (a.sample_type, a.branch_sample_type),
        (IP_TID_TIME_PERIOD | 0x800, 8)
    );
    assert_eq!(record(&[BranchType(8), BranchType(0)]), record(&[]));
}

#[test]
fn branch_names() {
    assert_eq!(branch_type("any"), Some(0x8));
    assert_eq!(branch_type("k"), Some(0x2 | 0x8));
    assert_eq!(branch_type("hv"), Some(0x4 | 0x8));
    assert_eq!(branch_type("ind_jmp"), Some(0x1000));
    assert_eq!(branch_type("stack"), Some(0x800));
    assert_eq!(branch_type("save_type"), Some(0x10000));
    assert_eq!(branch_type("ANY"), None);
}
