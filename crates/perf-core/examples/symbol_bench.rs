// SPDX-License-Identifier: GPL-2.0-only
//! The resolver side of benchmarks/symbols.py: reads the records of a
//! perf.data file (MMAPs, forks, samples with call chains, in the compact
//! form the driver writes from `perf script -D`), streams them through
//! `perf_core::symbol` and prints one JSON line with the time spent.
//!
//! Modes: `sym` resolves every frame (what `perf script -F
//! ip,sym,symoff,dso` does), `srcline` also gives every frame its source
//! line (`perf script -F ip,srcline`), `srccode` gives each sample's ip its
//! file, line and source text (the Python `srccode()`).
//!
//! Input lines:
//! `B <build id> <file>`, `M <misc> <pid> <start> <len> <pgoff> <prot>
//! <flags> <maj> <min> <ino> <gen> <build id|-> <file>`, `F <pid> <ppid>`,
//! `S <misc> <pid> <ip> <ips...>` (numbers in hex).

use std::collections::HashMap;
use std::io::BufRead;
use std::sync::Arc;
use std::time::Instant;

use perf_core::symbol::build_id::BuildId;
use perf_core::symbol::callchain::{SampleChain, PERF_MAX_STACK_DEPTH};
use perf_core::symbol::conf::SymbolConf;
use perf_core::symbol::dso::DsoId;
use perf_core::symbol::map::{MapInfo, Maps};
use perf_core::symbol::resolve::{CPUMODE_KERNEL, CPUMODE_MASK};
use perf_core::symbol::Dsos;

fn hex(s: &str) -> u64 {
    u64::from_str_radix(s, 16).unwrap_or(0)
}

fn maxrss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "srcline".into());
    let dsos = Dsos::new(SymbolConf::default());
    let mut procs: HashMap<i32, Maps> = HashMap::new();
    let no_maps = Maps::default();
    let (mut samples, mut frames, mut lines, mut texts) = (0u64, 0u64, 0u64, 0u64);
    let mut parse = std::time::Duration::ZERO;
    let start = Instant::now();
    let stdin = std::io::stdin();
    for line in stdin.lock().lines().map_while(Result::ok) {
        let t = Instant::now();
        let mut f = line.splitn(14, ' ');
        let kind = f.next().unwrap_or("");
        match kind {
            "B" => {
                let (b, name) = (f.next().unwrap_or(""), f.next().unwrap_or(""));
                if let Some(b) = BuildId::from_hex(b) {
                    dsos.add_header_build_id(name.as_bytes(), b);
                }
                parse += t.elapsed();
            }
            "M" => {
                let v: Vec<&str> = f.collect();
                if v.len() < 13 {
                    continue;
                }
                let bid = BuildId::from_hex(v[11]);
                let info = MapInfo {
                    pid: hex(v[1]) as i32,
                    start: hex(v[2]),
                    len: hex(v[3]),
                    pgoff: hex(v[4]),
                    filename: v[12].as_bytes(),
                    prot: hex(v[5]) as u32,
                    flags: hex(v[6]) as u32,
                    dso_id: bid.is_none().then(|| DsoId {
                        maj: hex(v[7]) as u32,
                        min: hex(v[8]) as u32,
                        ino: hex(v[9]),
                        ino_generation: hex(v[10]),
                    }),
                    build_id: bid,
                };
                parse += t.elapsed();
                if (hex(v[0]) as u16 & CPUMODE_MASK) as u8 == CPUMODE_KERNEL {
                    dsos.process_kernel_mmap(&info);
                } else {
                    let map = dsos.map_new(&info);
                    procs.entry(info.pid).or_default().insert(map);
                }
            }
            "F" => {
                let (pid, ppid) = (
                    hex(f.next().unwrap_or("")) as i32,
                    hex(f.next().unwrap_or("")) as i32,
                );
                if pid != ppid {
                    let parent = procs.get(&ppid).cloned().unwrap_or_default();
                    let child = procs.entry(pid).or_default();
                    for m in parent.iter() {
                        child.insert(Arc::clone(m));
                    }
                }
            }
            "S" => {
                let rest = line[2..].split(' ').map(hex).collect::<Vec<u64>>();
                parse += t.elapsed();
                let [misc, pid, ip, chain @ ..] = &rest[..] else {
                    continue;
                };
                samples += 1;
                let maps = procs.get(&(*pid as i32)).unwrap_or(&no_maps);
                let al = dsos.thread_find_symbol(maps, (*misc as u16 & CPUMODE_MASK) as u8, *ip);
                match mode.as_str() {
                    "srccode" => {
                        if let Some(c) = dsos.srccode(&al) {
                            lines += 1;
                            texts += u64::from(c.text.is_some());
                        }
                    }
                    _ => {
                        for node in dsos.resolve_callchain(
                            maps,
                            &SampleChain::recorded(chain),
                            PERF_MAX_STACK_DEPTH,
                        ) {
                            frames += 1;
                            let _ = std::hint::black_box(node.symbol_name());
                            if mode == "srcline"
                                && dsos
                                    .srcline_text(node.location.map.as_deref(), node.location.addr)
                                    .is_some()
                            {
                                lines += 1;
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let total = start.elapsed();
    println!(
        "{{\"mode\": \"{mode}\", \"samples\": {samples}, \"frames\": {frames}, \"lines\": {lines}, \"texts\": {texts}, \
         \"seconds\": {:.3}, \"input_seconds\": {:.3}, \"maxrss_kb\": {}}}",
        total.as_secs_f64(),
        parse.as_secs_f64(),
        maxrss_kb()
    );
}
