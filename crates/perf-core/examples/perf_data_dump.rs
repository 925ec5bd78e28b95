// SPDX-License-Identifier: GPL-2.0-only
//! Prints every record of a perf.data file as `perf script -D` heads them
//! (`<offset>@<path> [<size>]: event: <type>`), with the sample members.
//!
//! ```text
//! cargo run --release -p perf-core --example perf_data_dump -- perf.data
//! ```

use perf_core::session::{Event, Handler, Session};

struct Dump;

impl Handler for Dump {
    type Error = std::io::Error;

    fn sample(&mut self, ev: &Event<'_>) -> Result<(), Self::Error> {
        let s = &ev.record.sample;
        let comm = ev
            .machine
            .lock()
            .find_thread(s.pid, s.tid)
            .map(|t| t.comm().to_owned());
        let name = ev.evsel.map_or("", |e| e.name.as_str());
        println!(
            "  sample {name} pid {} tid {} cpu {} time {} period {} ip {:#x} comm {comm:?}",
            s.pid, s.tid, s.cpu, s.time, s.period, s.ip
        );
        Ok(())
    }

    fn record(&mut self, ev: &Event<'_>) -> Result<(), Self::Error> {
        println!(
            "{:#x}@{} [{:#x}]: event: {}",
            ev.offset,
            ev.path,
            ev.bytes.len(),
            ev.type_()
        );
        Ok(())
    }
}

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "perf.data".to_owned());
    let mut session = match Session::open(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    if let Err(e) = session.process_events(&mut Dump) {
        eprintln!("{e}");
        std::process::exit(1);
    }
    eprintln!("{:?}", session.stats());
}
