// SPDX-License-Identifier: GPL-2.0-only
//! The fast member reader agrees with the full parser: for every
//! sample_type it covers, on honest, truncated and random records.

use super::builder::Rng;
use super::info_with;
use crate::record::*;

/// The bits the fast path covers.
const COVERED: [u64; 10] = [
    PERF_SAMPLE_IDENTIFIER,
    PERF_SAMPLE_IP,
    PERF_SAMPLE_TID,
    PERF_SAMPLE_TIME,
    PERF_SAMPLE_ADDR,
    PERF_SAMPLE_ID,
    PERF_SAMPLE_STREAM_ID,
    PERF_SAMPLE_CPU,
    PERF_SAMPLE_PERIOD,
    PERF_SAMPLE_RAW,
];

fn sample_type_of(subset: u32) -> u64 {
    COVERED
        .iter()
        .enumerate()
        .filter(|(i, _)| subset & (1 << i) != 0)
        .fold(0, |t, (_, bit)| t | bit)
}

/// A SAMPLE record of `len` bytes (a multiple of 8, ≥ 8): random body,
/// honest header, and, with RAW, a raw.size that fits or not.
fn record(rng: &mut Rng, len: usize, raw_at: Option<usize>) -> Vec<u8> {
    let mut r = rng.bytes(len);
    r[0..4].copy_from_slice(&PERF_RECORD_SAMPLE.to_ne_bytes());
    r[6..8].copy_from_slice(&(len as u16).to_ne_bytes());
    if let Some(at) = raw_at.filter(|&at| at + 4 <= len && rng.bool()) {
        let fits = (len - at - 4) as u32;
        let size = if rng.bool() {
            rng.below(u64::from(fits) + 1) as u32
        } else {
            fits + 1 + rng.below(16) as u32
        };
        r[at..at + 4].copy_from_slice(&size.to_ne_bytes());
    }
    r
}

#[test]
fn fast_members_agree_with_the_full_parser() {
    let mut rng = Rng::new(7);
    let mut fast = 0;
    for subset in 0..(1u32 << COVERED.len()) {
        let t = sample_type_of(subset);
        let info = info_with(t, 0, true);
        let fixed = 8 + 8 * (t & PERF_SAMPLE_MASK).count_ones() as usize;
        let raw_at = (t & PERF_SAMPLE_RAW != 0).then_some(fixed);
        for _ in 0..40 {
            let len = 8 * (1 + rng.below((fixed as u64 + 40) / 8)) as usize;
            let bytes = record(&mut rng, len, raw_at);
            let full = parse(&bytes, &info);
            match sample_members(&bytes, &info) {
                Some(m) => {
                    fast += 1;
                    let full = full.expect("the fast path accepted what the parser rejects");
                    assert_eq!(m, SampleMembers::of(&full.sample), "sample_type {t:#x}");
                }
                None => assert!(
                    full.is_err(),
                    "fell back on a good record, sample_type {t:#x}"
                ),
            }
        }
    }
    assert!(fast > 10_000, "{fast}");
}

#[test]
fn other_layouts_and_records_take_the_full_parser() {
    let info = info_with(PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN, 0, true);
    let mut r = vec![0u8; 32];
    r[0..4].copy_from_slice(&PERF_RECORD_SAMPLE.to_ne_bytes());
    r[6..8].copy_from_slice(&32u16.to_ne_bytes());
    assert_eq!(sample_members(&r, &info), None);
    let info = info_with(PERF_SAMPLE_TID, 0, true);
    assert!(sample_members(&r, &info).is_some());
    r[0..4].copy_from_slice(&PERF_RECORD_COMM.to_ne_bytes());
    assert_eq!(sample_members(&r, &info), None);
}

/// The value of a member as `member_sources` places it.
fn read(bytes: &[u8], source: MemberSource) -> u64 {
    match source {
        MemberSource::U64(at) => u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap()),
        MemberSource::U32(at) => {
            u64::from(u32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap()))
        }
        MemberSource::Const(v) => v,
    }
}

#[test]
fn member_sources_agree_with_sample_members() {
    let mut rng = Rng::new(11);
    for subset in 0..(1u32 << COVERED.len()) {
        let t = sample_type_of(subset);
        let info = info_with(t, 0, true);
        let sources = member_sources(&info).expect("a covered layout");
        assert_eq!(sources.raw.is_some(), t & PERF_SAMPLE_RAW != 0);
        let fixed = 8 + 8 * (t & PERF_SAMPLE_MASK).count_ones() as usize;
        let raw_at = (t & PERF_SAMPLE_RAW != 0).then_some(fixed);
        for _ in 0..10 {
            let len = 8 * (1 + rng.below((fixed as u64 + 40) / 8)) as usize;
            let bytes = record(&mut rng, len, raw_at);
            let Some(m) = sample_members(&bytes, &info) else {
                continue;
            };
            assert!(bytes.len() >= sources.need);
            let got: Vec<u64> = sources.at.iter().map(|s| read(&bytes, *s)).collect();
            assert_eq!(got, m.words(), "sample_type {t:#x}");
        }
    }
    let other = info_with(PERF_SAMPLE_TID | PERF_SAMPLE_READ, 0, true);
    assert_eq!(member_sources(&other), None);
}
