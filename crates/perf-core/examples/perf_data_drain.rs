// SPDX-License-Identifier: GPL-2.0-only
//! Reads every sample of a perf.data file the way `perf script -F
//! comm,pid,tid,cpu,time,ip` does (the thread's comm, pid, tid, cpu, time,
//! ip of each sample), in time order, and prints samples/s and the peak
//! RSS as one JSON line. `benchmarks/perf_data_read.py` runs it.
//!
//! ```text
//! cargo run --release -p perf-core --example perf_data_drain -- perf.data [runs]
//! ```

use std::time::Instant;

use perf_core::session::{Event, Handler, Session};

/// Reads what perf script -F comm,pid,tid,cpu,time,ip prints.
#[derive(Default)]
struct Drain {
    samples: u64,
    /// Folded into a checksum so that nothing is optimised away.
    sum: u64,
}

impl Handler for Drain {
    type Error = std::convert::Infallible;

    #[inline]
    fn sample(&mut self, ev: &Event<'_>) -> Result<(), Self::Error> {
        let s = &ev.record.sample;
        let comm_len = ev
            .machine
            .lock()
            .find_thread(s.pid, s.tid)
            .map_or(0, |t| t.comm().len());
        self.samples += 1;
        self.sum = self
            .sum
            .wrapping_add(s.pid as u64)
            .wrapping_add(s.tid as u64)
            .wrapping_add(u64::from(s.cpu))
            .wrapping_add(s.time)
            .wrapping_add(s.ip)
            .wrapping_add(comm_len as u64);
        Ok(())
    }
}

fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches(" kB").parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "perf.data".to_owned());
    let runs: u32 = args.next().and_then(|r| r.parse().ok()).unwrap_or(1);
    let mut best = f64::MAX;
    let mut d = Drain::default();
    for _ in 0..runs {
        d = Drain::default();
        let t0 = Instant::now();
        let mut s = match Session::open(&path) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        };
        if let Err(e) = s.process_events(&mut d) {
            eprintln!("{e}");
            std::process::exit(1);
        }
        best = best.min(t0.elapsed().as_secs_f64());
    }
    println!(
        "{{\"samples\": {}, \"seconds\": {best:.4}, \"samples_per_s\": {:.0}, \"peak_rss_kib\": {}, \"checksum\": {}}}",
        d.samples,
        d.samples as f64 / best,
        peak_rss_kib(),
        d.sum
    );
}
