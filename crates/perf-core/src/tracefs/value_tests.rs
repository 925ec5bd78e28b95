// SPDX-License-Identifier: GPL-2.0-only
//! Decoding of hand-built `PERF_SAMPLE_RAW` payloads against the fixture
//! formats, including malformed and truncated ones.

use super::*;
use crate::tracefs::field::{
    TEP_FIELD_IS_ARRAY, TEP_FIELD_IS_DYNAMIC, TEP_FIELD_IS_SIGNED, TEP_FIELD_IS_STRING,
};
use crate::tracefs::format::Format;
use crate::tracefs::testutil::fixture;

fn format(sys: &str, name: &str) -> Format {
    Format::parse(sys, &fixture(sys, name)).unwrap_or_else(|e| panic!("{e}"))
}

fn get<'a>(f: &Format, raw: &'a [u8], name: &str) -> Value<'a> {
    let field = f.field(name).unwrap_or_else(|| panic!("no field {name}"));
    field.value(raw).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A payload builder: native-endian numbers at fixed offsets.
struct Raw(Vec<u8>);

impl Raw {
    fn new(len: usize) -> Raw {
        Raw(vec![0; len])
    }
    fn put(mut self, at: usize, bytes: &[u8]) -> Raw {
        if self.0.len() < at + bytes.len() {
            self.0.resize(at + bytes.len(), 0);
        }
        self.0[at..at + bytes.len()].copy_from_slice(bytes);
        self
    }
    fn common(self, ty: u16, pid: i32) -> Raw {
        self.put(0, &ty.to_ne_bytes())
            .put(2, &[1])
            .put(3, &[3])
            .put(4, &pid.to_ne_bytes())
    }
    /// A `__data_loc`/`__rel_loc` word: `len << 16 | offset`.
    fn loc(self, at: usize, offset: u16, len: u16) -> Raw {
        let word = u32::from(len) << 16 | u32::from(offset);
        self.put(at, &word.to_ne_bytes())
    }
}

fn sched_switch_raw() -> Vec<u8> {
    Raw::new(68)
        .common(372, 14576)
        .put(8, b"python3\0")
        .put(24, &14576i32.to_ne_bytes())
        .put(28, &120i32.to_ne_bytes())
        .put(32, &1i64.to_ne_bytes())
        .put(40, b"swapper/0\0")
        .put(56, &0i32.to_ne_bytes())
        .put(60, &120i32.to_ne_bytes())
        .0
}

fn signed(raw: u64, size: u32) -> Value<'static> {
    Value::Signed(Signed { raw, size })
}

#[test]
fn sched_switch_as_observed_from_the_c_module() {
    // Read by the 6.1 C module: prev_comm 'python3', prev_pid 14576, prev_prio 120,
    // prev_state 1, next_comm 'swapper/0', next_pid 0, next_prio 120,
    // common_pid 14576, common_type 372, common_flags 1, common_preempt_count 3.
    let f = format("sched", "sched_switch");
    let raw = sched_switch_raw();
    assert_eq!(get(&f, &raw, "prev_comm"), Value::Str("python3"));
    assert_eq!(get(&f, &raw, "prev_pid"), signed(14576, 4));
    assert_eq!(get(&f, &raw, "prev_prio"), signed(120, 4));
    assert_eq!(get(&f, &raw, "prev_state"), signed(1, 8));
    assert_eq!(get(&f, &raw, "next_comm"), Value::Str("swapper/0"));
    assert_eq!(get(&f, &raw, "next_pid"), signed(0, 4));
    assert_eq!(get(&f, &raw, "next_prio"), signed(120, 4));
    assert_eq!(get(&f, &raw, "common_type"), Value::Unsigned(372));
    assert_eq!(get(&f, &raw, "common_flags"), Value::Unsigned(1));
    assert_eq!(get(&f, &raw, "common_preempt_count"), Value::Unsigned(3));
    assert_eq!(get(&f, &raw, "common_pid"), signed(14576, 4));
}

#[test]
fn negative_signed_fields_keep_the_c_quirk() {
    let f = format("sched", "sched_switch");
    let raw = Raw(sched_switch_raw())
        .put(24, &(-1i32).to_ne_bytes())
        .put(32, &(-2i64).to_ne_bytes())
        .0;
    let Value::Signed(pid) = get(&f, &raw, "prev_pid") else {
        panic!("prev_pid is signed");
    };
    assert_eq!(pid.c_compatible(), 4_294_967_295);
    assert_eq!(pid.sign_extended(), -1);
    let Value::Signed(state) = get(&f, &raw, "prev_state") else {
        panic!("prev_state is signed");
    };
    assert_eq!((state.c_compatible(), state.sign_extended()), (-2, -2));
    assert_eq!(Signed { raw: 0xff, size: 1 }.sign_extended(), -1);
    assert_eq!(Signed { raw: 0xff, size: 1 }.c_compatible(), 255);
    assert_eq!(
        Signed {
            raw: 0x8000,
            size: 2
        }
        .sign_extended(),
        -32768
    );
}

#[test]
fn pointers_are_unsigned() {
    let f = format("alarmtimer", "alarmtimer_start");
    let raw = Raw::new(40)
        .put(8, &0xffff_8880_0000_1000u64.to_ne_bytes())
        .put(24, &(-5i64).to_ne_bytes())
        .0;
    assert_eq!(
        get(&f, &raw, "alarm"),
        Value::Unsigned(0xffff_8880_0000_1000)
    );
    assert_eq!(get(&f, &raw, "expires"), signed((-5i64) as u64, 8));
}

#[test]
fn data_loc_string() {
    let f = format("sched", "sched_process_exec");
    let raw = Raw::new(20)
        .loc(8, 20, 10)
        .put(12, &42i32.to_ne_bytes())
        .put(20, b"/bin/true\0")
        .0;
    assert_eq!(get(&f, &raw, "filename"), Value::Str("/bin/true"));
    let field = f.field("filename").unwrap_or_else(|| unreachable!());
    assert_eq!(field.array_location(&raw).ok(), Some((20, 10)));
    assert_eq!(get(&f, &raw, "pid"), signed(42, 4));
}

#[test]
fn rel_loc_counts_from_the_end_of_the_word() {
    let f = format("sample-trace", "foo_rel_loc");
    // foo's word is at 8..12; its data starts 8 bytes after that (past
    // bar and bitmask's word), at 20.
    let raw = Raw::new(20)
        .loc(8, 8, 16)
        .put(12, &752i32.to_ne_bytes())
        .loc(16, 16, 8)
        .put(20, b"Hello __rel_loc\0")
        .put(36, &0xdead_beefu64.to_ne_bytes())
        .0;
    assert_eq!(get(&f, &raw, "foo"), Value::Str("Hello __rel_loc"));
    assert_eq!(get(&f, &raw, "bar"), signed(752, 4));
    assert_eq!(
        get(&f, &raw, "bitmask"),
        Value::Bytes(&0xdead_beefu64.to_ne_bytes())
    );
}

#[test]
fn unprintable_strings_become_bytes_for_good() {
    let f = format("sched", "sched_switch");
    let mut raw = sched_switch_raw();
    raw[8] = 0xc3; // not isprint() in the C locale
    let comm = f.field("prev_comm").unwrap_or_else(|| unreachable!());
    assert!(comm.is_string());
    assert_eq!(comm.value(&raw).ok(), Some(Value::Bytes(&raw[8..24])));
    assert!(!comm.is_string(), "the C module clears TEP_FIELD_IS_STRING");
    // A later, printable value still comes out as bytes.
    let good = sched_switch_raw();
    assert_eq!(comm.value(&good).ok(), Some(Value::Bytes(&good[8..24])));
    // Other fields are not affected.
    assert_eq!(get(&f, &good, "next_comm"), Value::Str("swapper/0"));
}

#[test]
fn printable_array_rules() {
    assert!(is_printable_array(b"ab c\t\n\x0b\x0c\r\0"));
    assert!(is_printable_array(b"\0"));
    // Only bytes before the first NUL are checked.
    assert!(is_printable_array(b"ab\0\xff\x01\0"));
    assert!(!is_printable_array(b""));
    assert!(!is_printable_array(b"abc"), "no trailing NUL");
    assert!(!is_printable_array(b"a\x7f\0"));
    assert!(!is_printable_array(b"a\x80\0"));

    let f = format("sched", "sched_switch");
    // All 16 bytes used, no NUL at all: bytes.
    let raw = Raw(sched_switch_raw()).put(40, b"0123456789abcdef").0;
    assert_eq!(
        get(&f, &raw, "next_comm"),
        Value::Bytes(b"0123456789abcdef")
    );
    // Garbage after the NUL, last byte NUL: the string before the NUL.
    let raw = Raw(sched_switch_raw())
        .put(8, b"ab\0\xff\xfe\0\0\0\0\0\0\0\0\0\0\0")
        .0;
    assert_eq!(get(&f, &raw, "prev_comm"), Value::Str("ab"));
}

#[test]
fn empty_arrays_and_odd_sizes() {
    // `unsigned long args[]` of size 0: an empty bytearray.
    let f = format("ftrace", "function");
    let raw = Raw::new(24).0;
    assert_eq!(get(&f, &raw, "args"), Value::Bytes(b""));
    // A zero-length char[] string is not printable: bytes, flag cleared.
    let buf = Field::new(
        "buf",
        "char[]",
        8,
        0,
        0,
        TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING,
    );
    assert_eq!(buf.value(&raw).ok(), Some(Value::Bytes(b"")));
    assert!(!buf.is_string());
    // tep_read_number() reads nothing for sizes other than 1/2/4/8.
    let odd = Field::new("odd", "u24", 0, 3, 0, TEP_FIELD_IS_SIGNED);
    assert_eq!(odd.value(b"\xff\xff\xff").ok(), Some(signed(0, 3)));
    let wide = Field::new("wide", "__u128", 100, 16, 0, 0);
    assert_eq!(wide.value(b"").ok(), Some(Value::Unsigned(0)));
    // An old 2-byte __data_loc word has no length: an empty array.
    let old = Field::new(
        "s",
        "__data_loc char[]",
        0,
        2,
        0,
        TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING,
    );
    assert_eq!(old.value(b"\x04\0ab\0").ok(), Some(Value::Bytes(b"")));
}

#[test]
fn malformed_payloads_are_errors() {
    let f = format("sched", "sched_process_exec");
    let filename = f.field("filename").unwrap_or_else(|| unreachable!());
    // Data past the end of the payload.
    let raw = Raw::new(20).loc(8, 16, 10).put(16, b"abcd").0;
    let err = filename.value(&raw);
    assert!(
        matches!(
            err,
            Err(Error::Malformed {
                what: "tracepoint field",
                ..
            })
        ),
        "{err:?}"
    );
    assert!(filename.is_string(), "a failed read leaves the flag alone");
    // Offset far outside.
    let raw = Raw::new(20).loc(8, 0xffff, 0xffff).0;
    assert!(filename.value(&raw).is_err());
    // A field whose word itself is outside.
    let far = Field::new(
        "far",
        "__rel_loc char[]",
        u32::MAX - 1,
        4,
        0,
        0x1 | 0x10 | 0x100,
    );
    assert!(far.value(&[0; 64]).is_err());
    let far = Field::new("far", "int", u32::MAX, 4, 0, 0);
    assert!(far.value(&[0; 64]).is_err());
}

/// Every truncation of a valid payload: each field either decodes to its
/// full value or is an error; no panics.
#[test]
fn every_truncation() {
    let cases: Vec<(Format, Vec<u8>)> = vec![
        (format("sched", "sched_switch"), sched_switch_raw()),
        (
            format("sched", "sched_process_exec"),
            Raw::new(20).loc(8, 20, 10).put(20, b"/bin/true\0").0,
        ),
        (
            format("sample-trace", "foo_rel_loc"),
            Raw::new(20)
                .loc(8, 8, 4)
                .loc(16, 4, 8)
                .put(20, b"abc\0")
                .put(24, &7u64.to_ne_bytes())
                .0,
        ),
    ];
    for (f, raw) in &cases {
        for field in f.common_fields.iter().chain(&f.fields) {
            let full = field.value(raw).unwrap_or_else(|e| panic!("{e}"));
            let mut errors = 0;
            for cut in 0..raw.len() {
                match field.value(&raw[..cut]) {
                    Ok(v) => assert_eq!(v, full, "{} cut at {cut}", field.name),
                    Err(_) => errors += 1,
                }
            }
            assert!(errors > 0, "{}: some truncation must fail", field.name);
            assert_eq!(field.is_string(), full_is_str(&full), "{}", field.name);
        }
    }
}

fn full_is_str(v: &Value<'_>) -> bool {
    matches!(v, Value::Str(_))
}
