// SPDX-License-Identifier: GPL-2.0-only
//! A random layout and a valid record of it, generated from the input's
//! seed, checked against the values written; then mutants of it (truncated,
//! resized, bit-flipped, absurd counts), which must parse or give an error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perf_core::attr::Attr;
use perf_core::record::{ParseInfo, Record};
use perf_core_fuzz::check::{generated, Tally};
use perf_core_fuzz::rng::Rng;

fuzz_target!(|data: &[u8]| {
    let mut reused = Record::new(&ParseInfo::new(&Attr::default()));
    generated(
        &mut Rng::from_bytes(data),
        &mut reused,
        &mut Tally::default(),
    );
});
