// SPDX-License-Identifier: GPL-2.0-only
//! Arbitrary bytes as a perf.data file: a value or a perf.data error that
//! names the file and the offset, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    perf_core_fuzz::perf_data::check(data);
});
