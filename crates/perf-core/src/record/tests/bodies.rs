// SPDX-License-Identifier: GPL-2.0-only
//! Every record type from hand-built bytes, the SWITCH quirk, and header /
//! id-position errors.

use super::builder::*;
use super::info_with;
use super::roundtrip::patch_size;
use crate::error::Error;
use crate::record::*;

/// sample_type of a sample the 6.1 C module was seen reading:
/// PERIOD|TID|CPU|TIME|ID|STREAM_ID.
const EXAMPLE_TYPE: u64 = PERF_SAMPLE_PERIOD
    | PERF_SAMPLE_TID
    | PERF_SAMPLE_CPU
    | PERF_SAMPLE_TIME
    | PERF_SAMPLE_ID
    | PERF_SAMPLE_STREAM_ID;

/// A comm_event the 6.1 C module was seen reading, written byte by byte from
/// the uapi layout (not with the test encoder), so a mistake shared by the
/// encoder and the parser cannot hide.
#[cfg(target_endian = "little")]
#[test]
fn comm_from_a_literal_byte_image() {
    #[rustfmt::skip]
    let bytes: [u8; 64] = [
        0x03, 0x00, 0x00, 0x00,  0x00, 0x20,  0x40, 0x00,  // type 3, misc COMM_EXEC, size 64
        0xa3, 0x38, 0x00, 0x00,  0xa3, 0x38, 0x00, 0x00,   // pid, tid 14499
        b't', b'r', b'u', b'e', 0, 0, 0, 0,                 // comm "true", NUL padded to 8
        0xa3, 0x38, 0x00, 0x00,  0xa3, 0x38, 0x00, 0x00,   // sample_id: pid, tid
        0xd9, 0xc3, 0x66, 0x18, 0x9e, 0x00, 0x00, 0x00,    // time 679014220761
        0x9d, 0, 0, 0, 0, 0, 0, 0,                          // id 157
        0x9d, 0, 0, 0, 0, 0, 0, 0,                          // stream_id 157
        0x00, 0x00, 0x00, 0x00,  0x00, 0x00, 0x00, 0x00,   // cpu 0, res
    ];
    let info = info_with(EXAMPLE_TYPE, 0, true);
    let rec = parse(&bytes, &info).unwrap();
    assert_eq!(
        rec.header,
        Header {
            type_: PERF_RECORD_COMM,
            misc: 0x2000,
            size: 64
        }
    );
    let Body::Comm { pid, tid, comm } = &rec.body else {
        panic!("{:?}", rec.body)
    };
    assert_eq!(
        (*pid, *tid, bytes_of(&bytes, comm)),
        (14499, 14499, &b"true"[..])
    );
    let s = &rec.sample;
    assert_eq!((s.pid, s.tid, s.cpu), (14499, 14499, 0));
    assert_eq!((s.time, s.id, s.stream_id), (679_014_220_761, 157, 157));
    // PERIOD is never in the trailer: attr.sample_period (4000 here).
    assert_eq!((s.ip, s.addr, s.period), (0, 0, 4000));
    // is_pos = 1 + CPU + STREAM_ID = 3 u64s from the end.
    assert_eq!(event_id(&bytes, &info), Ok(Some(157)));
}

fn bytes_of<'a>(record: &'a [u8], r: &std::ops::Range<usize>) -> &'a [u8] {
    crate::record::bytes(record, r)
}

/// Builds `type_` with `body` written by `f`, plus the trailer of `s`.
fn record(type_: u32, misc: u16, info: &ParseInfo, s: &Sample, f: impl FnOnce(&mut W)) -> Vec<u8> {
    let mut w = W::new(type_, misc);
    f(&mut w);
    write_sample_id(&mut w, info, s);
    w.finish()
}

fn trailer_sample(info: &ParseInfo) -> Sample {
    let mut s = Sample::new(info);
    (s.pid, s.tid, s.time, s.id, s.stream_id, s.cpu) = (11, 12, 13, 14, 15, 1);
    s
}

#[test]
fn mmap() {
    let info = info_with(EXAMPLE_TYPE, 0, true);
    let s = trailer_sample(&info);
    let mut name = 0..0;
    let bytes = record(PERF_RECORD_MMAP, 2, &info, &s, |w| {
        w.u32(14499)
            .u32(14500)
            .u64(0x5619_f182_f000)
            .u64(0x4000)
            .u64(0x2000);
        name = w.c_string(b"/usr/bin/true");
    });
    let rec = parse(&bytes, &info).unwrap();
    assert_eq!(
        rec.body,
        Body::Mmap {
            pid: 14499,
            tid: 14500,
            start: 0x5619_f182_f000,
            len: 0x4000,
            pgoff: 0x2000,
            filename: name.clone()
        }
    );
    assert_eq!(bytes_of(&bytes, &name), b"/usr/bin/true");
    assert_eq!(rec.sample, s);
    assert_eq!(rec.header.misc, 2);
}

#[test]
fn mmap2_with_inode_and_with_build_id() {
    let info = info_with(EXAMPLE_TYPE | PERF_SAMPLE_IDENTIFIER, 0, true);
    let s = trailer_sample(&info);
    let mut name = 0..0;
    let bytes = record(PERF_RECORD_MMAP2, 2, &info, &s, |w| {
        w.u32(1).u32(2).u64(0x1000).u64(0x2000).u64(0x3000);
        w.u32(8).u32(3).u64(123456).u64(7);
        w.u32(5).u32(0x802);
        name = w.c_string(b"/lib/x86_64-linux-gnu/libc.so.6");
    });
    let rec = parse(&bytes, &info).unwrap();
    assert_eq!(
        rec.body,
        Body::Mmap2 {
            pid: 1,
            tid: 2,
            start: 0x1000,
            len: 0x2000,
            pgoff: 0x3000,
            file: Mmap2File::Inode {
                maj: 8,
                min: 3,
                ino: 123456,
                ino_generation: 7
            },
            prot: 5,
            flags: 0x802,
            filename: name.clone(),
        }
    );
    assert_eq!(bytes_of(&bytes, &name), b"/lib/x86_64-linux-gnu/libc.so.6");
    assert_eq!(rec.sample, s);
    assert_eq!(event_id(&bytes, &info), Ok(Some(14)));

    let misc = 2 | PERF_RECORD_MISC_MMAP_BUILD_ID;
    let build = |size: u8| {
        record(PERF_RECORD_MMAP2, misc, &info, &s, |w| {
            w.u32(1).u32(2).u64(0x1000).u64(0x2000).u64(0x3000);
            w.u8(size).u8(0).u16(0);
            w.bytes(&[0xab; 20]);
            w.u32(5).u32(0x802);
            w.c_string(b"x");
        })
    };
    let rec = parse(&build(20), &info).unwrap();
    let Body::Mmap2 { file, prot, .. } = rec.body else {
        panic!()
    };
    assert_eq!(
        file,
        Mmap2File::BuildId {
            size: 20,
            build_id: [0xab; 20]
        }
    );
    assert_eq!(prot, 5);
    let e = parse(&build(21), &info).unwrap_err();
    assert!(e.to_string().contains("build_id_size 21"), "{e}");
}

#[test]
fn fork_exit_throttle_unthrottle_lost_lost_samples() {
    let info = info_with(EXAMPLE_TYPE, 0, true);
    let s = trailer_sample(&info);
    for t in [PERF_RECORD_FORK, PERF_RECORD_EXIT] {
        let bytes = record(t, 0, &info, &s, |w| {
            w.u32(100).u32(99).u32(101).u32(98).u64(679_013_185_655);
        });
        let rec = parse(&bytes, &info).unwrap();
        assert_eq!(rec.header.type_, t);
        assert_eq!(
            rec.body,
            Body::Task {
                pid: 100,
                ppid: 99,
                tid: 101,
                ptid: 98,
                time: 679_013_185_655
            }
        );
        assert_eq!(rec.sample, s);
    }
    for t in [PERF_RECORD_THROTTLE, PERF_RECORD_UNTHROTTLE] {
        let bytes = record(t, 0, &info, &s, |w| {
            w.u64(5).u64(6).u64(7);
        });
        let rec = parse(&bytes, &info).unwrap();
        assert_eq!(
            rec.body,
            Body::Throttle {
                time: 5,
                id: 6,
                stream_id: 7,
                trailer_word: 11 | 12 << 32, // the trailer's pid, tid
            }
        );
        assert_eq!(rec.sample, s);
        // No trailer: nothing after stream_id.
        let bare = info_with(EXAMPLE_TYPE, 0, false);
        let bytes = record(t, 0, &bare, &Sample::new(&bare), |w| {
            w.u64(5).u64(6).u64(7);
        });
        let Body::Throttle { trailer_word, .. } = parse(&bytes, &bare).unwrap().body else {
            panic!()
        };
        assert_eq!(trailer_word, 0);
    }
    let bytes = record(PERF_RECORD_LOST, 0, &info, &s, |w| {
        w.u64(0xc5).u64(0x553b);
    });
    assert_eq!(
        parse(&bytes, &info).unwrap().body,
        Body::Lost {
            id: 0xc5,
            lost: 0x553b
        }
    );
    let bytes = record(PERF_RECORD_LOST_SAMPLES, 0, &info, &s, |w| {
        w.u64(42);
    });
    let rec = parse(&bytes, &info).unwrap();
    assert_eq!(rec.body, Body::LostSamples { lost: 42 });
    assert_eq!(rec.sample, s);
}

#[test]
fn read_records_follow_read_format() {
    let rf = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_ID | PERF_FORMAT_LOST;
    let info = info_with(EXAMPLE_TYPE, rf, true);
    let s = trailer_sample(&info);
    let bytes = record(PERF_RECORD_READ, 0, &info, &s, |w| {
        w.u32(3).u32(4).u64(1000).u64(2000).u64(77).u64(1);
    });
    let rec = parse(&bytes, &info).unwrap();
    let one = SampleRead {
        time_enabled: 2000,
        time_running: 0,
        counters: ReadCounters::One(ReadValue {
            value: 1000,
            id: 77,
            lost: 1,
        }),
    };
    assert_eq!(
        rec.body,
        Body::Read {
            pid: 3,
            tid: 4,
            values: one
        }
    );
    assert_eq!(rec.sample, s);

    let rf = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
    let info = info_with(EXAMPLE_TYPE, rf, true);
    let bytes = record(PERF_RECORD_READ, 0, &info, &s, |w| {
        w.u32(3)
            .u32(4)
            .u64(2)
            .u64(500)
            .u64(10)
            .u64(70)
            .u64(20)
            .u64(71);
    });
    let Body::Read { values, .. } = parse(&bytes, &info).unwrap().body else {
        panic!()
    };
    assert_eq!(values.time_running, 500);
    assert_eq!(
        values.values(),
        &[
            ReadValue {
                value: 10,
                id: 70,
                lost: 0
            },
            ReadValue {
                value: 20,
                id: 71,
                lost: 0
            }
        ]
    );
    // A group count that reaches into the trailer is malformed.
    let bytes = record(PERF_RECORD_READ, 0, &info, &s, |w| {
        w.u32(3)
            .u32(4)
            .u64(3)
            .u64(500)
            .u64(10)
            .u64(70)
            .u64(20)
            .u64(71);
    });
    assert!(parse(&bytes, &info).is_err());
}

/// A SWITCH (14) has no body, yet the C module reads
/// next_prev_pid/tid from the first 8 bytes after the header — the trailer.
#[test]
fn switch_reads_its_trailer_as_next_prev_like_the_c_module() {
    let info = info_with(EXAMPLE_TYPE, 0, true);
    let s = trailer_sample(&info);
    let bytes = record(
        PERF_RECORD_SWITCH,
        PERF_RECORD_MISC_SWITCH_OUT,
        &info,
        &s,
        |_| {},
    );
    let rec = parse(&bytes, &info).unwrap();
    assert_eq!(
        rec.body,
        Body::Switch {
            next_prev_pid: 11,
            next_prev_tid: 12
        }
    );
    assert_eq!(rec.sample, s);
    // With TIME first in the trailer (no TID) it is the time's two halves.
    let info = info_with(PERF_SAMPLE_TIME, 0, true);
    let mut s = Sample::new(&info);
    s.time = 0x0000_0002_0000_0001;
    let bytes = record(PERF_RECORD_SWITCH, 0, &info, &s, |_| {});
    assert_eq!(
        parse(&bytes, &info).unwrap().body,
        Body::Switch {
            next_prev_pid: 1,
            next_prev_tid: 2
        }
    );
    // No trailer at all: nothing to read, 0/0.
    let info = info_with(EXAMPLE_TYPE, 0, false);
    let bytes = W::new(PERF_RECORD_SWITCH, 0).finish();
    let rec = parse(&bytes, &info).unwrap();
    assert_eq!(
        rec.body,
        Body::Switch {
            next_prev_pid: 0,
            next_prev_tid: 0
        }
    );
    assert_eq!(rec.sample, Sample::new(&info));
    // SWITCH_CPU_WIDE has real fields before the trailer.
    let info = info_with(EXAMPLE_TYPE, 0, true);
    let s = trailer_sample(&info);
    let bytes = record(PERF_RECORD_SWITCH_CPU_WIDE, 0, &info, &s, |w| {
        w.u32(14532).u32(14533);
    });
    let rec = parse(&bytes, &info).unwrap();
    assert_eq!(
        rec.body,
        Body::Switch {
            next_prev_pid: 14532,
            next_prev_tid: 14533
        }
    );
    assert_eq!(rec.sample, s);
}

#[test]
fn other_types_keep_their_body_bytes() {
    let info = info_with(EXAMPLE_TYPE, 0, true);
    let s = trailer_sample(&info);
    for t in [
        PERF_RECORD_KSYMBOL,
        PERF_RECORD_AUX,
        PERF_RECORD_CGROUP,
        99,
        0,
    ] {
        let mut body = 0..0;
        let bytes = record(t, 0, &info, &s, |w| {
            body = w.bytes(b"0123456789abcdef");
        });
        let rec = parse(&bytes, &info).unwrap();
        assert_eq!(rec.body, Body::Other { body: body.clone() });
        assert_eq!(bytes_of(&bytes, &body), b"0123456789abcdef");
        assert_eq!(rec.sample, s);
    }
    // Without sample_id_all the body runs to the end.
    let info = info_with(EXAMPLE_TYPE, 0, false);
    let mut w = W::new(PERF_RECORD_NAMESPACES, 0);
    w.u64(1).u64(2);
    let rec = parse(&w.finish(), &info).unwrap();
    assert_eq!(rec.body, Body::Other { body: 8..24 });
}

#[test]
fn strings_stop_at_the_first_nul_and_tolerate_none() {
    let info = info_with(PERF_SAMPLE_TID, 0, true);
    let s = trailer_sample(&info);
    let (s_pid, s_tid) = (s.pid, s.tid);
    let bytes = record(PERF_RECORD_COMM, 0, &info, &s, |w| {
        w.u32(1).u32(2);
        w.bytes(b"ab\0cdefg");
    });
    let Body::Comm { comm, .. } = parse(&bytes, &info).unwrap().body else {
        panic!()
    };
    assert_eq!(bytes_of(&bytes, &comm), b"ab");
    // No NUL before the trailer: the whole field, never the trailer.
    let bytes = record(PERF_RECORD_COMM, 0, &info, &s, |w| {
        w.u32(1).u32(2);
        w.bytes(b"abcdefgh");
    });
    let rec = parse(&bytes, &info).unwrap();
    let Body::Comm { comm, .. } = rec.body else {
        panic!()
    };
    assert_eq!(bytes_of(&bytes, &comm), b"abcdefgh");
    assert_eq!((rec.sample.pid, rec.sample.tid), (s_pid, s_tid));
    // An empty comm.
    let bytes = record(PERF_RECORD_COMM, 0, &info, &s, |w| {
        w.u32(1).u32(2);
    });
    let Body::Comm { comm, .. } = parse(&bytes, &info).unwrap().body else {
        panic!()
    };
    assert!(comm.is_empty());
}

#[test]
fn header_errors() {
    let info = info_with(0, 0, false);
    assert!(header(&[0; 7]).is_err());
    assert!(parse(&[], &info).is_err());
    // size < 8
    let mut b = W::new(PERF_RECORD_LOST, 0).finish();
    b.get_mut(6..8)
        .unwrap()
        .copy_from_slice(&4u16.to_ne_bytes());
    let e = parse(&b, &info).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Malformed {
                what: "PERF_RECORD_LOST",
                ..
            }
        ),
        "{e:?}"
    );
    assert!(header(&b).is_err());
    // size != slice length, both ways.
    let mut b = W::new(PERF_RECORD_LOST, 0);
    b.u64(1).u64(2);
    let b = b.finish();
    let mut longer = b.clone();
    longer.extend_from_slice(&[0; 8]);
    assert!(parse(&longer, &info).is_err());
    assert!(parse(b.get(..16).unwrap(), &info).is_err());
    assert!(event_id(&longer, &info).is_err());
    // header() itself reads only 8 bytes of a longer buffer.
    assert_eq!(header(&longer).unwrap().size, 24);
    // A fixed body that runs into the trailer.
    let info = info_with(EXAMPLE_TYPE, 0, true);
    let mut w = W::new(PERF_RECORD_LOST, 0);
    w.u64(1);
    write_sample_id(&mut w, &info, &trailer_sample(&info));
    let e = parse(&w.finish(), &info).unwrap_err();
    assert!(e.to_string().contains("lost"), "{e}");
    // A record too short for its trailer.
    let mut b = W::new(PERF_RECORD_EXIT, 0);
    b.u64(1).u64(2);
    let e = parse(&b.finish(), &info).unwrap_err();
    assert!(e.to_string().contains("trailer"), "{e}");
}

#[test]
fn event_id_positions_and_errors() {
    // SAMPLE: id after ip, tid, time (id_pos 3).
    let t = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
    let info = info_with(t, 0, true);
    let mut w = W::new(PERF_RECORD_SAMPLE, 0);
    w.u64(1).u64(2).u64(3).u64(0x1d).u64(5);
    let b = w.finish();
    assert_eq!(event_id(&b, &info), Ok(Some(0x1d)));
    assert_eq!(parse(&b, &info).unwrap().sample.id, 0x1d);
    // A SAMPLE cut before the id.
    let mut w = W::new(PERF_RECORD_SAMPLE, 0);
    w.u64(1).u64(2).u64(3);
    assert!(event_id(&w.finish(), &info).is_err());
    // Non-SAMPLE: is_pos 2 (ID, then CPU last).
    let mut w = W::new(PERF_RECORD_LOST, 0);
    w.u64(9).u64(9).u64(0x1e).u64(0);
    assert_eq!(event_id(&w.finish(), &info), Ok(Some(0x1e)));
    let mut w = W::new(PERF_RECORD_LOST, 0);
    w.u64(0);
    assert!(event_id(&w.finish(), &info).is_err());
    // No id in the layout / no sample_id_all: None.
    let info = info_with(PERF_SAMPLE_TID, 0, true);
    assert_eq!(event_id(&b, &info), Ok(None));
    let info = info_with(t, 0, false);
    let mut w = W::new(PERF_RECORD_LOST, 0);
    w.u64(9).u64(9);
    assert_eq!(event_id(&w.finish(), &info), Ok(None));
    // IDENTIFIER: first u64 of a SAMPLE, last of anything else.
    let info = info_with(t | PERF_SAMPLE_IDENTIFIER, 0, true);
    assert_eq!(event_id(&b, &info), Ok(Some(1)));
    let mut w = W::new(PERF_RECORD_EXIT, 0);
    w.u64(9).u64(9).u64(0x2f);
    assert_eq!(event_id(&w.finish(), &info), Ok(Some(0x2f)));
}

#[test]
fn odd_sizes_read_the_trailer_at_perfs_u64_slots() {
    // perf indexes the trailer in whole u64s from the start; odd bytes at
    // the end (which the kernel never writes) stay outside it.
    let info = info_with(PERF_SAMPLE_IDENTIFIER, 0, true);
    let mut w = W::new(PERF_RECORD_LOST, 0);
    w.u64(1).u64(2).u64(0x77);
    w.bytes(&[0xee; 3]);
    let mut b = w.finish();
    patch_size(&mut b);
    let rec = parse(&b, &info).unwrap();
    assert_eq!(rec.sample.id, 0x77);
    assert_eq!(event_id(&b, &info), Ok(Some(0x77)));
}
