// SPDX-License-Identifier: GPL-2.0-only
//! `perf_core::ring::Ring` on a memfd ring written by a model kernel, honest
//! (every record must come back intact, wrapped or not) or adversarial
//! (garbage, head moved anywhere: no panic, no record bigger than the ring).
#![no_main]

use libfuzzer_sys::fuzz_target;
use perf_core::attr::Attr;
use perf_core::record::{ParseInfo, Record};
use perf_core_fuzz::ring::{adversarial, honest};
use perf_core_fuzz::rng::Rng;

fuzz_target!(|data: &[u8]| {
    let mut rng = Rng::from_bytes(data);
    let mut reused = Record::new(&ParseInfo::new(&Attr::default()));
    if data.first().is_some_and(|b| b & 1 == 0) {
        honest(&mut rng, &mut reused);
    } else {
        adversarial(&mut rng, &mut reused);
    }
});
