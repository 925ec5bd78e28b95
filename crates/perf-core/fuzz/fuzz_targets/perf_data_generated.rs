// SPDX-License-Identifier: GPL-2.0-only
//! A valid perf.data file generated from the input's seed (file or pipe
//! mode, random layouts, samples, side-band and perf's records, compressed
//! or not, either magic), usually mutated, read by the session.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perf_core_fuzz::rng::Rng;

fuzz_target!(|data: &[u8]| {
    perf_core_fuzz::perf_data::generated(&mut Rng::from_bytes(data));
});
