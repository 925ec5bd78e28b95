// SPDX-License-Identifier: GPL-2.0-only
//! The zstd path: a generated file whose data is compressed, with the
//! input's bytes spliced into the compressed stream, read by the session.
#![no_main]

use libfuzzer_sys::fuzz_target;
use perf_core_fuzz::rng::Rng;

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let (seed, bytes) = data.split_at(8);
    perf_core_fuzz::perf_data::zstd(&mut Rng::from_bytes(seed), bytes);
});
