// SPDX-License-Identifier: GPL-2.0-only
//! Shared code of the record-parser and ring-reader fuzz targets: the same
//! functions run under libFuzzer (`cargo +nightly fuzz run <target>`, the
//! `fuzz_targets/` bins) and under the stable, libFuzzer-free driver
//! `sweep` (a seeded PRNG over millions of inputs plus a systematic loop
//! over every `sample_type` × `read_format` combination).
//!
//! * [`layout`]: an `Attr` (sample_type, read_format, flags, register masks,
//!   branch_sample_type) from fuzz bytes or a PRNG.
//! * [`generate`]: valid records of that layout as the kernel writes them,
//!   with the values to expect back.
//! * [`check`]: runs `header`, `event_id`, `parse` and `parse_into` and
//!   asserts what must hold: never a panic, the two parse entry points agree,
//!   a valid record parses to the values written, a mutated one gives a value
//!   or an error.
//! * [`ring`]: a ring buffer in a memfd, written by a model kernel (honest or
//!   adversarial), read with `perf_core::ring::Ring`.
//! * [`perf_data`]: perf.data files (file or pipe mode, compressed or not,
//!   either magic) generated and mutated, or arbitrary bytes, read with
//!   `perf_core::session::Session`.
#![deny(missing_docs)]

pub mod check;
pub mod generate;
pub mod layout;
pub mod perf_data;
pub mod ring;
pub mod rng;
