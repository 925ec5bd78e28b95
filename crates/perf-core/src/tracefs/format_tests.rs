// SPDX-License-Identifier: GPL-2.0-only
//! Tests of the `format` parser on the checked-in fixtures and on
//! hand-written oddities that libtraceevent accepts.

use super::*;
use crate::tracefs::field::{
    TEP_FIELD_IS_ARRAY as A, TEP_FIELD_IS_DYNAMIC as D, TEP_FIELD_IS_LONG as L,
    TEP_FIELD_IS_POINTER as P, TEP_FIELD_IS_RELATIVE as R, TEP_FIELD_IS_SIGNED as S,
    TEP_FIELD_IS_STRING as STR,
};
use crate::tracefs::testutil::fixture;

fn parse_fixture(sys: &str, name: &str) -> Format {
    Format::parse(sys, &fixture(sys, name)).unwrap_or_else(|e| panic!("{sys}:{name}: {e}"))
}

/// `(name, type_name, offset, size, arraylen, flags)` of every field.
type Row<'a> = (&'a str, &'a str, u32, u32, u32, u32);

fn rows(fields: &[Field]) -> Vec<Row<'_>> {
    fields
        .iter()
        .map(|f| {
            (
                f.name.as_str(),
                f.type_name.as_str(),
                f.offset,
                f.size,
                f.arraylen,
                f.flags(),
            )
        })
        .collect()
}

const COMMON: [Row<'static>; 4] = [
    ("common_type", "unsigned short", 0, 2, 0, 0),
    ("common_flags", "unsigned char", 2, 1, 0, 0),
    ("common_preempt_count", "unsigned char", 3, 1, 0, 0),
    ("common_pid", "int", 4, 4, 0, S),
];

#[test]
fn sched_switch() {
    let f = parse_fixture("sched", "sched_switch");
    assert_eq!(
        (f.system.as_str(), f.name.as_str(), f.id),
        ("sched", "sched_switch", 372)
    );
    assert_eq!(rows(&f.common_fields), COMMON);
    assert_eq!(
        rows(&f.fields),
        [
            ("prev_comm", "char[16]", 8, 16, 16, A | STR),
            ("prev_pid", "pid_t", 24, 4, 0, S),
            ("prev_prio", "int", 28, 4, 0, S),
            ("prev_state", "long", 32, 8, 0, S | L),
            ("next_comm", "char[16]", 40, 16, 16, A | STR),
            ("next_pid", "pid_t", 56, 4, 0, S),
            ("next_prio", "int", 60, 4, 0, S),
        ]
    );
    let fmt = f.print_fmt.as_deref().unwrap_or_default();
    assert!(fmt.starts_with("\"prev_comm=%s prev_pid=%d"), "{fmt}");
    assert!(fmt.ends_with("REC->next_prio"), "{fmt}");
}

#[test]
fn data_loc_fields() {
    let f = parse_fixture("sched", "sched_process_exec");
    assert_eq!(
        rows(&f.fields),
        [
            ("filename", "__data_loc char[]", 8, 4, 0, A | STR | D),
            ("pid", "pid_t", 12, 4, 0, S),
            ("old_pid", "pid_t", 16, 4, 0, S),
        ]
    );
    let f = parse_fixture("irq", "irq_handler_entry");
    assert_eq!(
        rows(&f.fields),
        [
            ("irq", "int", 8, 4, 0, S),
            ("name", "__data_loc char[]", 12, 4, 0, A | STR | D),
        ]
    );
}

#[test]
fn rel_loc_fields_with_brackets_after_the_name() {
    let f = parse_fixture("sample-trace", "foo_rel_loc");
    assert_eq!(f.id, 1259);
    assert_eq!(
        rows(&f.fields),
        [
            ("foo", "__rel_loc char[]", 8, 4, 0, A | STR | D | R | S),
            ("bar", "int", 12, 4, 0, S),
            (
                "bitmask",
                "__rel_loc unsigned long[]",
                16,
                4,
                0,
                A | D | R | L
            ),
        ]
    );
}

#[test]
fn pointers_and_ftrace() {
    let f = parse_fixture("alarmtimer", "alarmtimer_start");
    assert_eq!(
        rows(&f.fields),
        [
            ("alarm", "void *", 8, 8, 0, P),
            ("alarm_type", "unsigned char", 16, 1, 0, 0),
            ("expires", "s64", 24, 8, 0, S),
            ("now", "s64", 32, 8, 0, S),
        ]
    );
    let f = parse_fixture("syscalls", "sys_enter_openat");
    assert_eq!(f.field("filename").map(Field::flags), Some(P));
    assert_eq!(
        f.field("filename").map(|x| x.type_name.as_str()),
        Some("const char *")
    );
    let f = parse_fixture("ftrace", "function");
    assert_eq!(f.id, 1);
    assert_eq!(
        rows(&f.fields),
        [
            ("ip", "unsigned long", 8, 8, 0, L),
            ("parent_ip", "unsigned long", 16, 8, 0, L),
            ("args", "unsigned long[]", 24, 0, 0, A | L),
        ]
    );
}

#[test]
fn find_any_field_searches_common_fields_first() {
    let text = "name: x\nID: 9\nformat:\n\
        \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\
        \tfield:u8 common_pid;\toffset:8;\tsize:1;\tsigned:0;\n\
        \tfield:u8 other;\toffset:9;\tsize:1;\tsigned:0;\n";
    let f = Format::parse("x", text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(f.field("common_pid").map(|x| x.offset), Some(4));
    assert_eq!(f.field("other").map(|x| x.offset), Some(9));
    assert!(f.field("nosuch").is_none());
    assert_eq!(f.print_fmt, None);
}

fn one_field(sys: &str, decl_line: &str) -> Field {
    let text = format!("name: t\nID: 1\nformat:\n\n{decl_line}\n\nprint fmt: \"\"\n");
    let f = Format::parse(sys, &text).unwrap_or_else(|e| panic!("{decl_line:?}: {e}"));
    assert_eq!(f.fields.len(), 1, "{decl_line:?}");
    f.fields
        .into_iter()
        .next()
        .unwrap_or_else(|| unreachable!())
}

#[test]
fn declarations_libtraceevent_accepts() {
    let f = one_field(
        "x",
        "\tfield:u32 __attribute__((user)) *ptr;\toffset:8;\tsize:8;\tsigned:0;",
    );
    assert_eq!(f.name, "ptr");
    assert_eq!(f.type_name, "u32 __attribute__((user)) *");
    assert_eq!(f.flags(), P);

    // Old kernels: no "signed:" and 2-byte __data_loc strings.
    let f = one_field("x", "\tfield:__data_loc char[] s;\toffset:8;\tsize:2;");
    assert_eq!(f.flags(), A | STR | D);
    let f = one_field("x", "\tfield:__data_loc u64[] s;\toffset:8;\tsize:2;");
    assert_eq!(
        f.flags(),
        A | STR | D,
        "size 2 makes any __data_loc a string"
    );

    // Symbolic and hex bounds, and the `special` keyword / `.` of ftrace.
    let f = one_field(
        "x",
        "\tfield:char comm[TASK_COMM_LEN];\toffset:0x8;\tsize:16;\tsigned:0;",
    );
    assert_eq!(
        (f.arraylen, f.offset, f.type_name.as_str()),
        (0, 8, "char[TASK_COMM_LEN]")
    );
    let f = one_field(
        "x",
        "\tfield:unsigned long args[6];\toffset:8;\tsize:48;\tsigned:0;",
    );
    assert_eq!((f.arraylen, f.flags()), (6, A | L));
    let f = one_field(
        "ftrace",
        "\tfield special:struct ftrace_graph_ent graph_ent.func;\toffset:8;\tsize:8;",
    );
    assert_eq!(
        (f.name.as_str(), f.type_name.as_str()),
        ("func", "struct ftrace_graph_ent graph_ent .")
    );
    assert!(Format::parse(
        "sched",
        "name: t\nID: 1\nformat:\n\tfield special:int x;\toffset:8;\tsize:4;\n"
    )
    .is_err());
}

#[test]
fn rejects_what_libtraceevent_rejects() {
    let bad = [
        "",
        "nom: x\nID: 1\nformat:\n",
        "name: x\nformat:\n",
        "name: x\nID: one\nformat:\n",
        "name: x\nID: 1\nformat: extra\n",
        "name: x\nID: 1\nformat:\n\tfeld:int a;\toffset:0;\tsize:4;\n",
        "name: x\nID: 1\nformat:\n\tfield:a;\toffset:0;\tsize:4;\n",
        "name: x\nID: 1\nformat:\n\tfield:int a\toffset:0;\tsize:4;\n",
        "name: x\nID: 1\nformat:\n\tfield:int a[4;\toffset:0;\tsize:4;\n",
        "name: x\nID: 1\nformat:\n\tfield:int a;\toffset:x;\tsize:4;\n",
        "name: x\nID: 1\nformat:\n\tfield:int a;\toffset:99999999999;\tsize:4;\n",
        "name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsignd:1;\n",
        "name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1; x\n",
    ];
    for text in bad {
        let got = Format::parse("x", text);
        assert!(
            matches!(
                got,
                Err(Error::Malformed {
                    what: "tracepoint format",
                    ..
                })
            ),
            "{text:?} gave {got:?}"
        );
    }
    let err = Format::parse(
        "x",
        "name: x\nID: 1\nformat:\n\n\tfield:int a;\toffset:0;\tsize:four;\n",
    );
    let msg = err.map(|_| ()).unwrap_err().to_string();
    assert!(msg.contains("line 5") && msg.contains("\"four\""), "{msg}");
}

/// Every prefix of a real file either fails or yields a prefix of its
/// fields: never a panic, never a half-read field.
#[test]
fn every_truncation_of_a_real_file() {
    for (sys, name) in [("sched", "sched_switch"), ("sample-trace", "foo_rel_loc")] {
        let text = fixture(sys, name);
        let full = parse_fixture(sys, name);
        let mut ok = 0;
        for cut in 0..text.len() {
            let Ok(f) = Format::parse(sys, text.get(..cut).unwrap_or_default()) else {
                continue;
            };
            ok += 1;
            assert_eq!(f.id, full.id, "cut {cut}");
            assert!(
                full.common_fields.starts_with(&f.common_fields),
                "cut {cut}"
            );
            assert!(full.fields.starts_with(&f.fields), "cut {cut}");
            if !f.fields.is_empty() {
                assert_eq!(f.common_fields, full.common_fields, "cut {cut}");
            }
        }
        assert!(
            ok > 0 && ok < text.len(),
            "{sys}:{name}: {ok} prefixes parsed"
        );
    }
}

#[test]
fn strtoul_rules() {
    assert_eq!(parse_ulong("16"), Some(16));
    assert_eq!(parse_ulong("0x10"), Some(16));
    assert_eq!(parse_ulong("010"), Some(8));
    assert_eq!(parse_ulong("0"), Some(0));
    assert_eq!(parse_ulong("08"), None);
    assert_eq!(parse_ulong("1a"), None);
    assert_eq!(leading_ulong("16UL"), 16);
    assert_eq!(leading_ulong("08"), 0);
    assert_eq!(leading_ulong("TASK_COMM_LEN"), 0);
    assert_eq!(leading_ulong("99999999999"), 0);
}
