// SPDX-License-Identifier: GPL-2.0-only
//! Arbitrary bytes + an arbitrary evsel layout into `record::parse`,
//! `parse_into` and `event_id`: they must return, never panic, and agree.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perf_core::attr::Attr;
use perf_core::record::{event_id, header, parse, parse_into, ParseInfo, Record};

fn u64_at(data: &[u8], i: usize) -> u64 {
    data.get(i * 8..i * 8 + 8)
        .and_then(|b| b.first_chunk::<8>())
        .map_or(0, |b| u64::from_ne_bytes(*b))
}

fuzz_target!(|data: &[u8]| {
    // 48 bytes of layout, then the record.
    let Some((layout, record)) = data.split_at_checked(48) else {
        return;
    };
    let control = u64_at(layout, 5);
    let attr = Attr {
        sample_type: u64_at(layout, 0),
        read_format: u64_at(layout, 1),
        flags: u64_at(layout, 2),
        sample_regs_user: u64_at(layout, 3),
        sample_regs_intr: u64_at(layout, 4),
        branch_sample_type: control >> 8,
        sample_period: control,
        ..Attr::default()
    };
    let info = ParseInfo::new(&attr);
    let mut record = record.to_vec();
    // Usually make header.size agree with the length so parsing gets past
    // the header check.
    if let (0, Ok(size)) = (control & 1, u16::try_from(record.len())) {
        if let Some(field) = record.get_mut(6..8) {
            field.copy_from_slice(&size.to_ne_bytes());
        }
    }
    let _ = header(&record);
    let _ = event_id(&record, &info);
    let parsed = parse(&record, &info);
    let mut reused = Record::new(&info);
    let into = parse_into(&record, &info, &mut reused);
    assert_eq!(parsed.is_ok(), into.is_ok());
    if let Ok(r) = parsed {
        assert_eq!(r, reused);
    }
});
