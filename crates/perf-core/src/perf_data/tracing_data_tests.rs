// SPDX-License-Identifier: GPL-2.0-only
//! Tracing data built by hand from the tracefs fixtures, in both byte
//! orders, and cut short.

use super::*;
use crate::tracefs::Value;

const HEADER_PAGE: &str = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n\
\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n\
\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n\
\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n";

fn fixture(sys: &str, name: &str) -> String {
    let p = format!(
        "{}/src/tracefs/testdata/events/{sys}/{name}/format",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// perf's `tracing_data_get` layout (trace-event-info.c).
fn tracing_data(e: Endian, version: &str, formats: &[(&str, &str)]) -> Vec<u8> {
    let u32b = |v: u32| match e {
        Endian::Little => v.to_le_bytes().to_vec(),
        Endian::Big => v.to_be_bytes().to_vec(),
    };
    let u64b = |v: u64| match e {
        Endian::Little => v.to_le_bytes().to_vec(),
        Endian::Big => v.to_be_bytes().to_vec(),
    };
    let mut b = vec![23, 8, 68];
    b.extend_from_slice(b"tracing");
    b.extend_from_slice(version.as_bytes());
    b.push(0);
    b.push(u8::from(e == Endian::Big));
    b.push(8);
    b.extend(u32b(4096));
    b.extend_from_slice(b"header_page\0");
    b.extend(u64b(HEADER_PAGE.len() as u64));
    b.extend_from_slice(HEADER_PAGE.as_bytes());
    b.extend_from_slice(b"header_event\0");
    b.extend(u64b(5));
    b.extend_from_slice(b"event");
    b.extend(u32b(0)); // ftrace formats
    b.extend(u32b(formats.len() as u32)); // one system per format
    for (sys, name) in formats {
        let text = fixture(sys, name);
        b.extend_from_slice(sys.as_bytes());
        b.push(0);
        b.extend(u32b(1));
        b.extend(u64b(text.len() as u64));
        b.extend_from_slice(text.as_bytes());
    }
    b.extend(u32b(0)); // kallsyms
    b.extend(u32b(3));
    b.extend_from_slice(b"p\n\0");
    if version != "0.5" {
        b.extend(u64b(9));
        b.extend_from_slice(b"1 swapper");
    }
    b
}

#[test]
fn formats_by_id_in_both_orders() {
    for e in [Endian::Little, Endian::Big] {
        let b = tracing_data(
            e,
            "0.6",
            &[("sched", "sched_switch"), ("syscalls", "sys_enter_openat")],
        );
        let t = TracingData::parse(&b, "f", 0).unwrap();
        assert_eq!(
            (t.version.as_str(), t.endian, t.long_size, t.page_size),
            ("0.6", Some(e), 8, 4096)
        );
        assert_eq!(t.size, b.len() as u64);
        assert_eq!(t.events.len(), 2);
        assert!(t.unparsed.is_empty(), "{:?}", t.unparsed);
        let switch = t.events.iter().find(|f| f.name == "sched_switch").unwrap();
        assert_eq!(
            t.format(switch.id).map(|f| f.name.as_str()),
            Some("sched_switch")
        );
        assert_eq!(t.saved_cmdlines, "1 swapper");
        // A field decoded in the tracing data's byte order.
        let pid = switch.field("prev_pid").unwrap();
        let mut raw = vec![0u8; 64];
        let v = 4242i32;
        let bytes = match e {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        };
        raw[pid.offset as usize..pid.offset as usize + 4].copy_from_slice(&bytes);
        match pid.value_in(&raw, e).unwrap() {
            Value::Signed(s) => assert_eq!(s.sign_extended(), 4242),
            v => panic!("{v:?}"),
        }
    }
    // Version 0.5 has no saved cmdlines.
    let b = tracing_data(Endian::Little, "0.5", &[]);
    let t = TracingData::parse(&b, "f", 0).unwrap();
    assert_eq!((t.saved_cmdlines.as_str(), t.size), ("", b.len() as u64));
}

#[test]
fn bad_or_cut_tracing_data_is_named() {
    let b = tracing_data(Endian::Little, "0.6", &[("sched", "sched_switch")]);
    for cut in [0, 2, 9, 12, 30, 60, b.len() - 20, b.len() - 1] {
        let e = TracingData::parse(&b[..cut], "f", 0x100)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("tracing data") && e.contains("f: "),
            "{cut}: {e}"
        );
    }
    let mut bad = b.clone();
    bad[0] = 24;
    assert!(TracingData::parse(&bad, "f", 0)
        .unwrap_err()
        .to_string()
        .contains("magic"));
    // A format that does not parse is kept aside, not fatal.
    let mut odd = tracing_data(Endian::Little, "0.6", &[]);
    let at = odd.len() - 4 - 4 - 3 - 8 - 9;
    let text = b"name: x\nnot a format";
    let mut sys = b"odd\0".to_vec();
    sys.extend(1u32.to_le_bytes());
    sys.extend((text.len() as u64).to_le_bytes());
    sys.extend_from_slice(text);
    odd.splice(at..at, sys);
    // systems count: 0 → 1
    let systems_at = at - 4;
    odd[systems_at..systems_at + 4].copy_from_slice(&1u32.to_le_bytes());
    let t = TracingData::parse(&odd, "f", 0).unwrap();
    assert_eq!(t.unparsed.len(), 1);
    assert_eq!(t.unparsed[0].0, "odd");
}
