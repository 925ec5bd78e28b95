// SPDX-License-Identifier: GPL-2.0-only
//! The libFuzzer-free driver (stable Rust) of the fuzz targets.
//!
//! ```text
//! sweep [--systematic full|quick|none] [--random N] [--ring N] [--perf-data N] [--seed S] [--threads T]
//! ```
//!
//! * systematic: every `sample_type` subset of the 25 uapi bits, each with
//!   every `read_format` of the 5 bits (`full`, 2^30 layouts) or one
//!   rotating `read_format` (`quick`, 2^25). Per layout a valid SAMPLE
//!   (checked against the values written), and per `sample_type` a mutant of
//!   it and a valid side-band record of a rotating type (READ records among
//!   them); register masks, branch flags and sample_id_all are random.
//! * random: N seeds of the `parse_generated` target.
//! * ring: N seeds of the `ring_read` target (half honest, half adversarial).
//! * perf-data: N perf.data files read by the session: generated and
//!   mutated (`perf_data_generated`), compressed with bytes spliced into
//!   the zstd stream (`perf_data_zstd`), or arbitrary bytes
//!   (`perf_data_bytes`).
//!
//! A failed check is a panic; each is caught, printed with its seed, and
//! counted; the exit status is 1 if there was any. The last line is a JSON
//! summary (execs, panics, wraps...).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use perf_core::attr::Attr;
use perf_core::record::{ParseInfo, Record};
use perf_core_fuzz::check::{self, Tally};
use perf_core_fuzz::layout::{Layout, FORMAT_BITS, SAMPLE_BITS};
use perf_core_fuzz::perf_data::{self, FileTally};
use perf_core_fuzz::ring::{self, RingTally};
use perf_core_fuzz::rng::Rng;

static PANICS: AtomicU64 = AtomicU64::new(0);

struct Args {
    systematic: String,
    random: u64,
    ring: u64,
    perf_data: u64,
    seed: u64,
    threads: u64,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        systematic: "quick".into(),
        random: 1_000_000,
        ring: 20_000,
        perf_data: 1_000_000,
        seed: 0x5eed,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        let num = || {
            value
                .parse::<u64>()
                .map_err(|e| format!("{flag} {value}: {e}"))
        };
        match flag.as_str() {
            "--systematic" => a.systematic = value.clone(),
            "--random" => a.random = num()?,
            "--ring" => a.ring = num()?,
            "--perf-data" => a.perf_data = num()?,
            "--seed" => a.seed = num()?,
            "--threads" => a.threads = num()?.max(1),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(a)
}

/// Runs `f`, turning a panic into a printed, counted failure.
fn guarded(what: &str, seed: u64, f: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        PANICS.fetch_add(1, Ordering::Relaxed);
        eprintln!("PANIC in {what}, seed {seed:#x}");
    }
}

fn fresh() -> Record {
    Record::new(&ParseInfo::new(&Attr::default()))
}

/// Layouts `range` of the systematic loop: index = sample_type << 5 | read_format.
fn systematic(range: std::ops::Range<u64>, full: bool, seed: u64) -> Tally {
    let mut tally = Tally::default();
    let mut reused = fresh();
    for i in range {
        let (st, rf) = if full {
            (i >> FORMAT_BITS, i & ((1 << FORMAT_BITS) - 1))
        } else {
            (i, i % (1 << FORMAT_BITS))
        };
        let s = seed ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        guarded("systematic", s, || {
            let mut rng = Rng::new(s);
            let layout = Layout::new(st, rf, &mut rng);
            if let Some((rec, e)) = perf_core_fuzz::generate::sample(&layout, &mut rng) {
                check::valid(&rec, &e, &layout, &mut reused, &mut tally);
                // In full mode the side-band record and the mutant come once
                // per sample_type (their layout does not depend on more).
                if full && rf != st % (1 << FORMAT_BITS) {
                    return;
                }
                let mut m = rec;
                perf_core_fuzz::generate::mutate(&mut m, &mut rng);
                check::any(&m, &ParseInfo::new(&layout.attr), &mut reused, &mut tally);
            }
            let types = &perf_core_fuzz::generate::SIDE_BAND;
            let ty = types[(st % types.len() as u64) as usize];
            if let Some((rec, e)) = perf_core_fuzz::generate::side_band(&layout, ty, &mut rng) {
                check::valid(&rec, &e, &layout, &mut reused, &mut tally);
            }
        });
    }
    tally
}

fn random(n: u64, seed: u64) -> Tally {
    let mut tally = Tally::default();
    let mut reused = fresh();
    for i in 0..n {
        let s = seed.wrapping_add(i).wrapping_mul(0xd129_0b41_5d7f_3c6b);
        guarded("parse_generated", s, || {
            check::generated(&mut Rng::new(s), &mut reused, &mut tally);
        });
    }
    tally
}

fn rings(n: u64, seed: u64) -> RingTally {
    let mut tally = RingTally::default();
    let mut reused = fresh();
    for i in 0..n {
        let s = seed.wrapping_add(i).wrapping_mul(0xa076_1d64_78bd_642f);
        guarded("ring_read", s, || {
            let mut rng = Rng::new(s);
            let t = if i % 2 == 0 {
                ring::honest(&mut rng, &mut reused)
            } else {
                ring::adversarial(&mut rng, &mut reused)
            };
            tally.add(t);
        });
    }
    tally
}

fn perf_data_files(n: u64, seed: u64) -> FileTally {
    let mut tally = FileTally::default();
    for i in 0..n {
        let s = seed.wrapping_add(i).wrapping_mul(0x2545_f491_4f6c_dd1d);
        guarded("perf_data", s, || {
            let mut rng = Rng::new(s);
            let t = match i % 8 {
                0 => {
                    let n = rng.below(256) as usize;
                    let bytes = rng.bytes(n);
                    perf_data::zstd(&mut rng, &bytes)
                }
                1 => {
                    let n = rng.below(512) as usize;
                    let mut bytes = rng.bytes(n);
                    if rng.one_in(2) && bytes.len() >= 8 {
                        bytes[..8].copy_from_slice(b"PERFILE2");
                    }
                    perf_data::check(&bytes)
                }
                _ => perf_data::generated(&mut rng),
            };
            tally.add(t);
        });
    }
    tally
}

/// Splits 0..n into `threads` parts and runs `f` on each in parallel.
fn parallel<T: Send, F: Fn(u64, u64) -> T + Sync>(n: u64, threads: u64, f: F) -> Vec<T> {
    let chunk = n.div_ceil(threads);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let f = &f;
                s.spawn(move || f(t * chunk, ((t + 1) * chunk).min(n)))
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    })
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("sweep: {e}");
            std::process::exit(2);
        }
    };
    // Panics are caught and reported by `guarded`; keep the default hook's
    // message (it names the failed assertion) but only once per panic.
    let t0 = Instant::now();
    let (full, layouts) = match a.systematic.as_str() {
        "full" => (true, 1u64 << (SAMPLE_BITS + FORMAT_BITS)),
        "quick" => (false, 1u64 << SAMPLE_BITS),
        _ => (false, 0),
    };
    let mut sys = Tally::default();
    for t in parallel(layouts, a.threads, |lo, hi| {
        systematic(lo..hi, full, a.seed)
    }) {
        sys.add(t);
    }
    let t_sys = t0.elapsed().as_secs_f64();
    let mut rnd = Tally::default();
    for t in parallel(a.random, a.threads, |lo, hi| random(hi - lo, a.seed ^ lo)) {
        rnd.add(t);
    }
    let mut ring = RingTally::default();
    for t in parallel(a.ring, a.threads, |lo, hi| {
        rings(hi - lo, a.seed ^ (lo << 32))
    }) {
        ring.add(t);
    }
    let mut files = FileTally::default();
    for t in parallel(a.perf_data, a.threads, |lo, hi| {
        perf_data_files(hi - lo, a.seed ^ (lo << 40))
    }) {
        files.add(t);
    }
    let panics = PANICS.load(Ordering::Relaxed);
    println!(
        "{{\"systematic\": \"{}\", \"layouts\": {layouts}, \"systematic_execs\": {}, \
         \"systematic_seconds\": {t_sys:.1}, \"random_inputs\": {}, \"random_execs\": {}, \
         \"random_parsed\": {}, \"random_errors\": {}, \"rings\": {}, \"ring_records\": {}, \
         \"ring_wrapped_records\": {}, \"ring_laps\": {}, \"ring_errors\": {}, \
         \"ring_parse_execs\": {}, \"perf_data_files\": {}, \"perf_data_ok\": {}, \
         \"perf_data_errors\": {}, \"perf_data_records\": {}, \"perf_data_samples\": {}, \
         \"perf_data_compressed\": {}, \"panics\": {panics}, \"seconds\": {:.1}}}",
        a.systematic,
        sys.execs,
        a.random,
        rnd.execs,
        rnd.parsed,
        rnd.errors,
        ring.rings,
        ring.records,
        ring.wrapped,
        ring.laps,
        ring.errors,
        ring.parse.execs,
        files.files,
        files.ok,
        files.errors,
        files.records,
        files.samples,
        files.compressed,
        t0.elapsed().as_secs_f64()
    );
    if panics > 0 {
        std::process::exit(1);
    }
}
