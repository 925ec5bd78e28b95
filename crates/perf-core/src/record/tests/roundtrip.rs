// SPDX-License-Identifier: GPL-2.0-only
//! parse(build(x)) == x for SAMPLE records over sample_type × read_format
//! combinations, and for the `sample_id` trailer of other records; every
//! truncation of those records must be an error, never a panic.

use super::builder::*;
use super::{ALL_READ_BITS, ALL_SAMPLE_BITS};
use crate::attr::{flag, Attr};
use crate::error::Error;
use crate::record::*;

/// An attr-derived ParseInfo with the given layout bits and random extras
/// (register masks, branch flags, sample_id_all, period).
fn random_info(rng: &mut Rng, sample_type: u64, read_format: u64) -> ParseInfo {
    let sparse = |rng: &mut Rng| rng.u64() & rng.u64() & rng.u64();
    let mut attr = Attr {
        sample_type,
        read_format,
        sample_period: rng.u64(),
        sample_regs_user: sparse(rng),
        sample_regs_intr: sparse(rng),
        branch_sample_type: rng.u64()
            & (PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_COUNTERS | 7),
        ..Attr::default()
    };
    attr.set(flag::SAMPLE_ID_ALL, rng.bool());
    ParseInfo::new(&attr)
}

/// Builds a random SAMPLE for `info`, parses it back, checks every field,
/// the id lookup, and that every truncation fails cleanly. Returns the
/// record size.
fn sample_roundtrip(rng: &mut Rng, info: &ParseInfo, reused: &mut Record) -> usize {
    let (mut expected, payloads) = random_sample(rng, info);
    let misc = rng.u64() as u16;
    let bytes = encode_sample(info, &mut expected, &payloads, misc);
    let ctx = || {
        format!(
            "sample_type {:#x} read_format {:#x}",
            info.sample_type(),
            info.read_format()
        )
    };
    let rec = match parse(&bytes, info) {
        Ok(r) => r,
        Err(e) => panic!("{}: {e}", ctx()),
    };
    let header = Header {
        type_: PERF_RECORD_SAMPLE,
        misc,
        size: bytes.len() as u16,
    };
    assert_eq!(rec.header, header, "{}", ctx());
    assert_eq!(rec.body, Body::Sample, "{}", ctx());
    assert_eq!(rec.sample, expected, "{}", ctx());
    let payload = |r: &Option<std::ops::Range<usize>>| {
        r.as_ref().map(|r| crate::record::bytes(&bytes, r).to_vec())
    };
    let has = |bit: u64| info.sample_type() & bit != 0;
    assert_eq!(
        payload(&rec.sample.raw),
        has(PERF_SAMPLE_RAW).then(|| payloads.raw.clone())
    );
    assert_eq!(
        payload(&rec.sample.aux),
        has(PERF_SAMPLE_AUX).then(|| payloads.aux.clone())
    );
    let stack = rec
        .sample
        .user_stack
        .as_ref()
        .map(|s| crate::record::bytes(&bytes, &s.data).to_vec());
    assert_eq!(
        stack,
        has(PERF_SAMPLE_STACK_USER).then(|| payloads.stack.clone())
    );

    // parse_into over whatever the previous case left gives the same record.
    assert_eq!(parse_into(&bytes, info, reused), Ok(()), "{}", ctx());
    assert_eq!(*reused, rec, "{}", ctx());

    let want_id = info.id_pos().map(|_| expected.id);
    assert_eq!(event_id(&bytes, info), Ok(want_id), "{}", ctx());

    // Trailing bytes the parser does not know about are ignored.
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0xa5; 8]);
    patch_size(&mut longer);
    assert_eq!(
        parse(&longer, info).map(|r| r.sample),
        Ok(expected),
        "{}",
        ctx()
    );

    for cut in 0..bytes.len() {
        let short = bytes.get(..cut).unwrap_or_default();
        assert!(
            parse(short, info).is_err(),
            "{}: cut at {cut} with stale size",
            ctx()
        );
        if cut >= HEADER_SIZE {
            let mut short = short.to_vec();
            patch_size(&mut short);
            let r = parse(&short, info);
            assert!(
                matches!(
                    r,
                    Err(Error::Malformed {
                        what: "PERF_RECORD_SAMPLE",
                        ..
                    })
                ),
                "{}: cut at {cut} of {} parsed: {r:?}",
                ctx(),
                bytes.len()
            );
        }
    }
    bytes.len()
}

pub(crate) fn patch_size(record: &mut [u8]) {
    let size = record.len() as u16;
    if let Some(s) = record.get_mut(6..8) {
        s.copy_from_slice(&size.to_ne_bytes());
    }
}

#[test]
fn every_sample_bit_alone_with_every_read_format() {
    let mut rng = Rng::new(1);
    let mut reused = Record::new(&super::info_with(0, 0, false));
    let mut cases = 0;
    for bit in 0..25 {
        for read_format in 0..=ALL_READ_BITS {
            for _ in 0..3 {
                let info = random_info(&mut rng, 1 << bit, read_format);
                sample_roundtrip(&mut rng, &info, &mut reused);
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 25 * 32 * 3);
}

#[test]
fn all_sample_bits_together() {
    let mut rng = Rng::new(2);
    let mut reused = Record::new(&super::info_with(0, 0, false));
    let mut largest = 0;
    for read_format in 0..=ALL_READ_BITS {
        for _ in 0..20 {
            let info = random_info(&mut rng, ALL_SAMPLE_BITS, read_format);
            largest = largest.max(sample_roundtrip(&mut rng, &info, &mut reused));
        }
    }
    assert!(
        largest > 300,
        "the generator produced real payloads ({largest})"
    );
}

#[test]
fn random_sample_type_combinations() {
    let mut rng = Rng::new(3);
    let mut reused = Record::new(&super::info_with(0, 0, false));
    for _ in 0..4000 {
        let sample_type = rng.u64() & ALL_SAMPLE_BITS;
        let read_format = rng.u64() & ALL_READ_BITS;
        let info = random_info(&mut rng, sample_type, read_format);
        sample_roundtrip(&mut rng, &info, &mut reused);
    }
}

#[test]
fn a_sample_without_fields_is_all_defaults() {
    let info = super::info_with(0, 0, true);
    let rec = parse(&W::new(PERF_RECORD_SAMPLE, 0).finish(), &info).unwrap();
    let s = rec.sample;
    assert_eq!((s.pid, s.tid, s.cpu), (-1, -1, u32::MAX));
    assert_eq!((s.time, s.id, s.stream_id), (u64::MAX, u64::MAX, u64::MAX));
    assert_eq!((s.ip, s.addr, s.period), (0, 0, 4000));
}

#[test]
fn weight_struct_is_split_like_perf() {
    let info = super::info_with(PERF_SAMPLE_WEIGHT_STRUCT, 0, false);
    let mut w = W::new(PERF_RECORD_SAMPLE, 0);
    w.u32(0x1234_5678).u16(0x9abc).u16(0xdef0);
    let s = parse(&w.finish(), &info).unwrap().sample;
    assert_eq!(
        (s.weight, s.ins_lat, s.retire_lat),
        (0x1234_5678, 0x9abc, 0xdef0)
    );
    // With both bits, PERF_SAMPLE_WEIGHT wins and the u64 is kept whole.
    let info = super::info_with(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT, 0, false);
    let mut w = W::new(PERF_RECORD_SAMPLE, 0);
    w.u64(0x1122_3344_5566_7788);
    let s = parse(&w.finish(), &info).unwrap().sample;
    assert_eq!(
        (s.weight, s.ins_lat, s.retire_lat),
        (0x1122_3344_5566_7788, 0, 0)
    );
}

#[test]
fn bad_counts_are_malformed() {
    let cases: &[(u64, u64, &str)] = &[
        (PERF_SAMPLE_CALLCHAIN, u64::MAX, "callchain"),
        (PERF_SAMPLE_CALLCHAIN, u64::MAX / 8 + 1, "callchain"),
        (PERF_SAMPLE_CALLCHAIN, 3, "callchain"),
        (PERF_SAMPLE_BRANCH_STACK, u64::MAX / 24 + 1, "branch_stack"),
        (PERF_SAMPLE_BRANCH_STACK, 1, "branch_stack"),
        (PERF_SAMPLE_AUX, u64::MAX, "aux"),
        (PERF_SAMPLE_STACK_USER, u64::MAX, "stack_user"),
        (PERF_SAMPLE_READ, u64::MAX / 16 + 1, "read_format"),
        (PERF_SAMPLE_READ, 3, "read_format"),
    ];
    for &(bit, nr, field) in cases {
        let info = super::info_with(bit, PERF_FORMAT_GROUP | PERF_FORMAT_ID, false);
        let mut w = W::new(PERF_RECORD_SAMPLE, 0);
        w.u64(nr).u64(1).u64(2);
        let e = parse(&w.finish(), &info).unwrap_err();
        assert!(e.to_string().contains(field), "{bit:#x} nr {nr}: {e}");
    }
    // dyn_size larger than size: perf's "user stack dump failure".
    let info = super::info_with(PERF_SAMPLE_STACK_USER, 0, false);
    let mut w = W::new(PERF_RECORD_SAMPLE, 0);
    w.u64(8).u64(0).u64(9);
    let e = parse(&w.finish(), &info).unwrap_err();
    assert!(e.to_string().contains("dyn_size 9"), "{e}");
    // The raw size is a u32; one past the end fails.
    let info = super::info_with(PERF_SAMPLE_RAW, 0, false);
    let mut w = W::new(PERF_RECORD_SAMPLE, 0);
    w.u32(5).u32(0);
    assert!(parse(&w.finish(), &info).is_err());
}

/// Non-SAMPLE records: every combination of the six trailer bits, with and
/// without sample_id_all, on a fixed-size body (LOST) and a string body (COMM).
#[test]
fn sample_id_trailer_for_every_bit_combination() {
    let bits = [
        PERF_SAMPLE_TID,
        PERF_SAMPLE_TIME,
        PERF_SAMPLE_ID,
        PERF_SAMPLE_STREAM_ID,
        PERF_SAMPLE_CPU,
        PERF_SAMPLE_IDENTIFIER,
    ];
    let mut rng = Rng::new(4);
    let mut reused = Record::new(&super::info_with(0, 0, false));
    // Dirty it with a rich sample first.
    let rich = random_info(&mut rng, ALL_SAMPLE_BITS, ALL_READ_BITS);
    sample_roundtrip(&mut rng, &rich, &mut reused);
    let mut parsed = 0;
    for combo in 0u32..64 {
        // The non-trailer bits (IP, ADDR, PERIOD, ...) must not matter.
        let noise =
            rng.u64() & (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW);
        let t = bits
            .iter()
            .enumerate()
            .filter(|(i, _)| combo & (1 << i) != 0)
            .fold(noise, |t, (_, b)| t | b);
        for sample_id_all in [false, true] {
            let info = super::info_with(t, 0, sample_id_all);
            let expected = random_sample_id(&mut rng, &info);

            let mut w = W::new(PERF_RECORD_LOST, 0);
            w.u64(0x55).u64(0x66);
            write_sample_id(&mut w, &info, &expected);
            let lost = w.finish();
            let rec = parse(&lost, &info).unwrap();
            assert_eq!(
                rec.body,
                Body::Lost {
                    id: 0x55,
                    lost: 0x66
                },
                "{t:#x}"
            );
            assert_eq!(rec.sample, expected, "{t:#x} sample_id_all {sample_id_all}");
            let want_id = info.is_pos().filter(|_| sample_id_all).map(|_| expected.id);
            assert_eq!(event_id(&lost, &info), Ok(want_id), "{t:#x}");

            let mut w = W::new(PERF_RECORD_COMM, 0);
            w.u32(7).u32(8);
            let comm = w.c_string(b"kworker/0:1");
            write_sample_id(&mut w, &info, &expected);
            let bytes = w.finish();
            let rec = parse(&bytes, &info).unwrap();
            assert_eq!(
                rec.body,
                Body::Comm {
                    pid: 7,
                    tid: 8,
                    comm
                },
                "{t:#x}"
            );
            assert_eq!(rec.sample, expected);
            parsed += 2;

            // Truncations: never a panic; an error whenever the fixed body
            // and the trailer cannot both fit.
            for cut in 0..lost.len() {
                assert!(parse(lost.get(..cut).unwrap_or_default(), &info).is_err());
                if cut >= HEADER_SIZE {
                    let mut short = lost.get(..cut).unwrap_or_default().to_vec();
                    patch_size(&mut short);
                    let r = parse(&short, &info);
                    if cut < HEADER_SIZE + 16 + info.trailer_size() {
                        assert!(r.is_err(), "{t:#x} cut {cut}: {r:?}");
                    }
                }
            }
            for cut in HEADER_SIZE..bytes.len() {
                let mut short = bytes.get(..cut).unwrap_or_default().to_vec();
                patch_size(&mut short);
                let r = parse(&short, &info);
                if cut < HEADER_SIZE + 8 + info.trailer_size() {
                    assert!(r.is_err(), "{t:#x} cut {cut}: {r:?}");
                }
                let _ = event_id(&short, &info);
            }
        }
    }
    assert_eq!(parsed, 64 * 2 * 2);
}

/// Random bytes with random layouts: never a panic, and whatever parses
/// re-parses identically.
#[test]
fn random_bytes_never_panic() {
    let mut rng = Rng::new(5);
    let mut ok = 0;
    for i in 0..30_000 {
        let (sample_type, read_format) = (rng.u64() & ALL_SAMPLE_BITS, rng.u64() & ALL_READ_BITS);
        let info = random_info(&mut rng, sample_type, read_format);
        let len = rng.below(160) as usize;
        let mut bytes = rng.bytes(len);
        // Mostly a consistent header with a known type, so parsing gets deep.
        if len >= HEADER_SIZE && i % 8 != 0 {
            let t = 1 + rng.below(16) as u32;
            bytes
                .get_mut(..4)
                .unwrap_or_default()
                .copy_from_slice(&t.to_ne_bytes());
            patch_size(&mut bytes);
            // Small counts make nested structures plausible.
            for w in bytes
                .get_mut(HEADER_SIZE..)
                .unwrap_or_default()
                .chunks_exact_mut(8)
            {
                if rng.below(3) == 0 {
                    w.copy_from_slice(&rng.below(4).to_ne_bytes());
                }
            }
        }
        if let Ok(r) = parse(&bytes, &info) {
            ok += 1;
            assert_eq!(parse(&bytes, &info), Ok(r));
        }
        let _ = event_id(&bytes, &info);
        let _ = header(&bytes);
    }
    assert!(ok > 1000, "only {ok} random records parsed");
}
