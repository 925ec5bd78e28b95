// SPDX-License-Identifier: GPL-2.0-only
//! perf.data files recorded here by the real perf (6.1), read by our
//! session and compared with what perf itself prints about them, record by
//! record and sample by sample:
//!
//! | file | how it is recorded |
//! |---|---|
//! | `sw.data` | per process, four software events (`PERF_SAMPLE_ID`), `--sample-cpu` |
//! | `tp.data` | `-a`, `sched:sched_switch` and `syscalls:sys_*_getp*` (`IDENTIFIER`, a dummy event) |
//! | `raw.data` | per process, `raw_syscalls:sys_enter` and `sys_exit` |
//! | `z.data` | `-z` (COMPRESSED records), cpu-clock and a syscall tracepoint |
//! | `pipe.data` | `perf record -o - > pipe.data` (attrs, features, tracing data as records) |
//! | `pz.data` | `perf record -z -o - > pz.data` (compressed pipe mode) |
//! | `th.data/` | `--threads` (a directory of `data.N` files) |
//! | `stat.data` | `perf stat record -I 10` (a workload of at least 200 ms) |
//!
//! The oracles: `perf script -D` (every record: offset, size, type, time;
//! every sample: pid, tid, ip, period, addr and the thread's comm),
//! `perf script -F comm,pid,tid,cpu,time,period,event,ip --ns`, `perf script
//! -s` printing every tracepoint field, `perf script` on the stat file and
//! `perf report --header-only`. Byte-swapped copies (made by
//! `common::swap_copy`) must make perf print the same as the originals, and
//! our session must read them as it reads the originals.

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use common::oracle::{self, FieldValue};
use common::{deliver, perf, Delivered, TempDir};

/// The recorded files, made once for all tests of this binary.
struct Files {
    dir: TempDir,
}

impl Files {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

fn files() -> Option<&'static Files> {
    static FILES: OnceLock<Option<Files>> = OnceLock::new();
    FILES
        .get_or_init(|| {
            if let Some(why) = common::skip_reason() {
                eprintln!("SKIPPED: {why}");
                return None;
            }
            let dir = TempDir::new("perf-data-real");
            let d = dir.path();
            let work = common::workload(d);
            let w = work.to_str().unwrap();
            let rec = |args: &[&str]| {
                let mut a = vec!["record", "-q"];
                a.extend_from_slice(args);
                perf(d, &a);
            };
            rec(&[
                "--sample-cpu",
                "-e",
                "cpu-clock/period=200000/",
                "-e",
                "task-clock/period=400000/",
                "-e",
                "page-faults/period=1/",
                "-e",
                "context-switches/period=1/",
                "-o",
                "sw.data",
                "--",
                w,
                "3000",
            ]);
            rec(&[
                "-a",
                "-e",
                "sched:sched_switch",
                "-e",
                "syscalls:sys_*_getp*",
                "-o",
                "tp.data",
                "--",
                w,
                "2000",
            ]);
            rec(&[
                "-e",
                "raw_syscalls:sys_enter",
                "-e",
                "raw_syscalls:sys_exit",
                "-o",
                "raw.data",
                "--",
                w,
                "1000",
            ]);
            rec(&[
                "-z",
                "-e",
                "cpu-clock/period=100000/",
                "-e",
                "syscalls:sys_enter_getppid",
                "-o",
                "z.data",
                "--",
                w,
                "3000",
            ]);
            rec(&[
                "--threads",
                "-e",
                "cpu-clock/period=50000/",
                "-o",
                "th.data",
                "--",
                w,
                "20000",
            ]);
            // Pipe mode: perf record -o - > file.
            let piped = |file: &str, z: &[&str]| {
                let out = std::fs::File::create(d.join(file)).unwrap();
                let mut args = vec!["record", "-q"];
                args.extend_from_slice(z);
                args.extend_from_slice(&["-o", "-", "-e", "cpu-clock/period=200000/"]);
                args.extend_from_slice(&["-e", "syscalls:sys_enter_getppid", "--", w, "2000"]);
                common::run(
                    std::process::Command::new(common::PERF)
                        .args(&args)
                        .current_dir(d)
                        .stdout(out),
                );
            };
            piped("pipe.data", &[]);
            piped("pz.data", &["-z"]);
            perf(
                d,
                &[
                    "stat",
                    "record",
                    "-I",
                    "10",
                    "-e",
                    "task-clock,page-faults,context-switches",
                    "-o",
                    "stat.data",
                    "--",
                    w,
                    "5000",
                    // At least 200 ms, so the 10 ms interval makes rounds
                    // however fast the machine runs the 5000 rounds.
                    "200",
                ],
            );
            Some(Files { dir })
        })
        .as_ref()
}

const RECORDED: [&str; 8] = [
    "sw.data",
    "tp.data",
    "raw.data",
    "z.data",
    "pipe.data",
    "pz.data",
    "th.data",
    "stat.data",
];

/// Asserts two sequences are equal, naming the first difference (not
/// printing thousands of elements).
fn same<T: PartialEq + std::fmt::Debug>(ours: &[T], theirs: &[T], what: &str) {
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        assert_eq!(a, b, "{what}: element {i}");
    }
    assert_eq!(ours.len(), theirs.len(), "{what}: lengths");
}

/// Every record in the order perf delivers it, with its offset, file,
/// size, type and time; every sample's members and thread comm.
fn check_dump(dir: &Path, file: &str, ours: &Delivered) {
    let (recs, samples) = oracle::dump(dir, file);
    assert!(!recs.is_empty(), "{file}: perf -D printed nothing");
    assert_eq!(ours.records.len(), recs.len(), "{file}: number of records");
    let pipe = file.ends_with("pipe.data") || file.ends_with("pz.data");
    for (i, (o, (p, time))) in ours.records.iter().zip(&recs).enumerate() {
        let what = format!("{file}: record {i} ({o:?} vs {p:?})");
        assert_eq!(
            (o.offset, o.size, o.type_),
            (p.offset, p.size, p.type_),
            "{what}"
        );
        // perf names pipe-mode records' file "pipe".
        assert_eq!(
            if pipe { "pipe" } else { o.file.as_str() },
            p.file,
            "{what}"
        );
        if let Some(t) = time {
            if o.type_ < 64 {
                assert_eq!(o.time, *t, "{what}: time");
            }
        }
    }
    assert_eq!(
        ours.samples.len(),
        samples.len(),
        "{file}: number of samples"
    );
    for (i, (o, p)) in ours.samples.iter().zip(&samples).enumerate() {
        let got = (o.pid, o.tid, o.ip, o.period, o.addr, o.comm.as_str());
        let want = (p.pid, p.tid, p.ip, p.period, p.addr, p.comm.as_str());
        assert_eq!(got, want, "{file}: sample {i}");
    }
}

fn has_cpu(file: &str) -> bool {
    !matches!(file, "z.data" | "th.data" | "pipe.data" | "pz.data")
}

/// Every sample against `perf script -F comm,pid,tid[,cpu],time,period,event,ip`.
fn check_fields(dir: &Path, file: &str, ours: &Delivered) {
    let cpu = has_cpu(file);
    let lines = oracle::fields(dir, file, cpu);
    assert_eq!(ours.samples.len(), lines.len(), "{file}: samples");
    for (i, (o, p)) in ours.samples.iter().zip(&lines).enumerate() {
        let got = (
            o.comm.as_str(),
            o.pid,
            o.tid,
            cpu.then_some(o.cpu),
            o.time,
            o.period,
            o.event.as_str(),
            o.ip,
        );
        let want = (
            p.comm.as_str(),
            p.pid,
            p.tid,
            p.cpu,
            p.time,
            p.period,
            p.event.as_str(),
            p.ip,
        );
        assert_eq!(got, want, "{file}: sample {i}");
    }
}

/// Every tracepoint sample's fields against `perf script -s`.
fn check_tracepoint_fields(dir: &Path, file: &str, ours: &Delivered) {
    let script = oracle::script_fields(dir, file);
    let tp: Vec<_> = ours
        .samples
        .iter()
        .filter(|s| !s.fields.is_empty())
        .collect();
    assert!(!script.is_empty(), "{file}: no tracepoint samples");
    assert_eq!(tp.len(), script.len(), "{file}: tracepoint samples");
    for (i, (o, p)) in tp.iter().zip(&script).enumerate() {
        let got = (
            o.event.as_str(),
            o.pid,
            o.tid,
            o.cpu,
            o.time,
            o.period,
            o.ip,
            o.comm.as_str(),
        );
        let want = (
            p.event.as_str(),
            p.pid,
            p.tid,
            p.cpu,
            p.time,
            p.period,
            p.ip,
            p.comm.as_str(),
        );
        assert_eq!(got, want, "{file}: tracepoint sample {i}");
        assert_eq!(
            o.fields, p.fields,
            "{file}: tracepoint sample {i} ({})",
            o.event
        );
    }
}

#[test]
fn every_record_and_sample_matches_perf_script_dump() {
    let Some(f) = files() else { return };
    for file in RECORDED {
        let (_, ours) = deliver(&f.path(file));
        check_dump(f.dir.path(), file, &ours);
    }
}

#[test]
fn every_sample_matches_perf_script_fields() {
    let Some(f) = files() else { return };
    for file in RECORDED.iter().filter(|f| **f != "stat.data") {
        let (_, ours) = deliver(&f.path(file));
        assert!(
            ours.samples.len() > 100,
            "{file}: {} samples",
            ours.samples.len()
        );
        check_fields(f.dir.path(), file, &ours);
    }
}

#[test]
fn every_tracepoint_field_matches_perf_script_python() {
    let Some(f) = files() else { return };
    for file in ["tp.data", "raw.data", "z.data", "pipe.data", "pz.data"] {
        let (s, ours) = deliver(&f.path(file));
        assert!(s.tracing_data().is_some(), "{file}: tracing data");
        check_tracepoint_fields(f.dir.path(), file, &ours);
    }
}

#[test]
fn stat_records_match_perf_script() {
    let Some(f) = files() else { return };
    let (s, ours) = deliver(&f.path("stat.data"));
    let lines = oracle::stat_lines(f.dir.path(), "stat.data");
    assert!(ours.rounds.len() >= 2, "{} rounds", ours.rounds.len());
    // perf script prints, at each STAT_ROUND, every evsel's counts per
    // (cpu, thread) as the STAT records before it left them (a STAT names
    // its CPU by number and its thread by index).
    let mut counts = std::collections::HashMap::new();
    let mut want = Vec::new();
    let (mut stat_i, mut round_i) = (0, 0);
    let (cpus, threads) = (s.cpu_map(), s.thread_map());
    for r in &ours.records {
        match r.type_ {
            76 => {
                let (name, cpu, thread, val, ena, run) = ours.stats[stat_i].clone();
                counts.insert((name, cpu, thread), (val, ena, run));
                stat_i += 1;
            }
            77 => {
                let time = ours.rounds[round_i].1;
                round_i += 1;
                for e in s.evlist().evsels() {
                    for &cpu in cpus {
                        for (ti, &(pid, _)) in threads.iter().enumerate() {
                            let (val, ena, run) = counts
                                .get(&(e.name.clone(), cpu as u32, ti as u32))
                                .copied()
                                .unwrap_or_default();
                            want.push((cpu, pid as i32, val, ena, run, time, e.name.clone()));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    assert_eq!(stat_i, ours.stats.len());
    same(&want, &lines, "stat.data");
    assert_eq!(
        s.evlist()
            .evsels()
            .iter()
            .map(|e| e.name.as_str())
            .collect::<Vec<_>>(),
        ["task-clock", "page-faults", "context-switches"]
    );
    assert!(s.features().stat);
    assert!(!s.stat_config().is_empty());
}

#[test]
fn features_match_perf_report_header() {
    let Some(f) = files() else { return };
    for file in ["sw.data", "tp.data", "z.data", "th.data", "stat.data"] {
        let (s, _) = deliver(&f.path(file));
        let h: std::collections::HashMap<_, _> =
            oracle::header(f.dir.path(), file).into_iter().collect();
        let ft = s.features();
        let get = |k: &str| h.get(k).map(String::as_str);
        assert_eq!(ft.hostname.as_deref(), get("hostname"), "{file}");
        assert_eq!(ft.os_release.as_deref(), get("os release"), "{file}");
        assert_eq!(ft.version.as_deref(), get("perf version"), "{file}");
        assert_eq!(ft.arch.as_deref(), get("arch"), "{file}");
        assert_eq!(ft.cpu_desc.as_deref(), get("cpudesc"), "{file}");
        assert_eq!(ft.cpuid.as_deref(), get("cpuid"), "{file}");
        let nr = ft.nr_cpus.unwrap();
        assert_eq!(
            Some(nr.online.to_string().as_str()),
            get("nrcpus online"),
            "{file}"
        );
        assert_eq!(
            Some(nr.available.to_string().as_str()),
            get("nrcpus avail"),
            "{file}"
        );
        assert_eq!(
            ft.total_mem.map(|m| format!("{m} kB")).as_deref(),
            get("total memory"),
            "{file}"
        );
        // perf prints the cmdline joined by spaces, with a trailing space.
        assert_eq!(
            ft.cmdline.as_ref().map(|c| c.join(" ")).as_deref(),
            get("cmdline"),
            "{file}"
        );
        let names: Vec<_> = ft.event_desc.iter().map(|d| d.name.as_str()).collect();
        let perf_names: Vec<_> = oracle::perf_event_names(f.dir.path(), file);
        assert_eq!(names, perf_names, "{file}");
        assert_eq!(s.e_machine(), 62, "{file}: x86_64");
        assert!(s.is_64_bit());
    }
    let (s, _) = deliver(&f.path("z.data"));
    let c = s.features().compressed.unwrap();
    assert_eq!((c.type_, c.level), (1, 1));
    assert!(s.stats().nr_compressed > 0 && s.stats().decompressed_bytes > 0);
    let (s, _) = deliver(&f.path("th.data"));
    assert_eq!(s.features().dir_format, Some(1));
    let (s, ours) = deliver(&f.path("sw.data"));
    assert!(
        !s.machine().lock().build_ids().is_empty(),
        "sw.data has build ids"
    );
    // ID_INDEX, THREAD_MAP, CPU_MAP and EVENT_UPDATE records, as perf
    // script -D shows them: an entry per id, the workload's pid, the CPUs,
    // the clock events' unit and scale.
    let mut ids: Vec<u64> = s
        .evlist()
        .evsels()
        .iter()
        .flat_map(|e| e.ids.clone())
        .collect();
    let mut indexed: Vec<u64> = s.id_index().iter().map(|e| e.id).collect();
    ids.sort_unstable();
    indexed.sort_unstable();
    assert_eq!(indexed, ids);
    let first_pid = ours.samples.first().map(|x| x.pid).unwrap();
    assert_eq!(
        s.thread_map()
            .iter()
            .map(|t| t.0 as i32)
            .collect::<Vec<_>>(),
        [first_pid]
    );
    let online = s.features().nr_cpus.unwrap().online as i32;
    assert_eq!(s.cpu_map(), (0..online).collect::<Vec<_>>());
    let clock = &s.evlist().evsels()[0];
    assert_eq!(
        (clock.unit.as_deref(), clock.scale),
        (Some("msec"), Some(1e-6))
    );
}

#[test]
fn a_pipe_reads_like_the_file() {
    let Some(f) = files() else { return };
    let (_, file) = deliver(&f.path("pipe.data"));
    let mut child = std::process::Command::new("cat")
        .arg(f.path("pipe.data"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let fd = std::os::fd::OwnedFd::from(child.stdout.take().unwrap());
    let data = perf_core::perf_data::PerfData::from_fd(fd, "pipe.data").unwrap();
    assert!(data.is_stream());
    let mut s = perf_core::session::Session::new(data, Default::default()).unwrap();
    // The header's records are read before processing.
    assert!(s.features().hostname.is_some() && !s.evlist().evsels().is_empty());
    assert!(s.tracing_data().is_some());
    // Pipe mode names and units come from EVENT_UPDATE records too.
    let names: Vec<_> = s.evlist().evsels().iter().map(|e| e.name.clone()).collect();
    assert_eq!(
        names,
        ["cpu-clock/period=200000/", "syscalls:sys_enter_getppid"]
    );
    let mut c = common::Collector::default();
    s.process_events(&mut c).unwrap();
    child.wait().unwrap();
    assert_eq!(c.0, file);
    assert_eq!(s.evlist().evsels()[0].unit.as_deref(), Some("msec"));
}

#[test]
fn byte_swapped_copies_read_the_same() {
    let Some(f) = files() else { return };
    let d = f.dir.path();
    for file in RECORDED {
        let swapped = format!("swapped-{file}");
        common::swap_copy::swap_copy(&f.path(file), &f.path(&swapped));
        let (s, theirs) = deliver(&f.path(&swapped));
        assert!(!s.endian().is_native(), "{file}: the copy is foreign");
        let (_, ours) = deliver(&f.path(file));
        // perf reads the copy as it reads the original (perf 6.1 cannot read
        // foreign pipe-mode data: evsels from HEADER_ATTR records never get
        // `needs_swap`, so it misreads pid/tid and the RAW size; the parts
        // the pipe copy converts are converted by the same code as the
        // files' and checked there).
        let pipe = file == "pipe.data" || file == "pz.data";
        if pipe {
        } else if file != "stat.data" {
            same(
                &oracle::fields(d, &swapped, has_cpu(file)),
                &oracle::fields(d, file, has_cpu(file)),
                &format!("perf -F on {swapped}"),
            );
        } else {
            same(
                &oracle::stat_lines(d, &swapped),
                &oracle::stat_lines(d, file),
                &format!("perf on {swapped}"),
            );
        }
        if ["tp.data", "raw.data", "z.data"].contains(&file) {
            // Arrays of numbers are the file's bytes (swapped in the copy):
            // perf and we must agree on the copy's.
            check_tracepoint_fields(d, &swapped, &theirs);
        }
        // And so do we: every record and sample (compressed records move).
        let numbers = |d: &Delivered| {
            let mut d = d.samples.clone();
            for s in &mut d {
                s.fields.retain(|(_, v)| !matches!(v, FieldValue::Bytes(_)));
            }
            d
        };
        same(
            &numbers(&theirs),
            &numbers(&ours),
            &format!("{swapped}: samples"),
        );
        same(&theirs.stats, &ours.stats, &format!("{swapped}: stats"));
        // The evsels as attrs, EVENT_DESC and EVENT_UPDATE left them.
        let (o, _) = deliver(&f.path(file));
        let evsels = |s: &perf_core::session::Session| {
            s.evlist()
                .evsels()
                .iter()
                .map(|e| {
                    (
                        e.attr,
                        e.name.clone(),
                        e.unit.clone(),
                        e.scale.map(f64::to_bits),
                        e.ids.clone(),
                    )
                })
                .collect::<Vec<_>>()
        };
        same(&evsels(&s), &evsels(&o), &format!("{swapped}: evsels"));
        if !pipe && file != "th.data" {
            // The features the copy keeps, as perf and we read them.
            let keep = [
                "hostname",
                "os release",
                "perf version",
                "arch",
                "nrcpus online",
                "nrcpus avail",
                "cpudesc",
                "cpuid",
                "total memory",
                "cmdline",
            ];
            let pick = |h: Vec<(String, String)>| {
                h.into_iter()
                    .filter(|(k, _)| keep.contains(&k.as_str()))
                    .collect::<Vec<_>>()
            };
            same(
                &pick(oracle::header(d, &swapped)),
                &pick(oracle::header(d, file)),
                &format!("perf report --header-only on {swapped}"),
            );
            same(
                &oracle::perf_event_names(d, &swapped),
                &oracle::perf_event_names(d, file),
                &format!("{swapped}: event names"),
            );
            let (o, _) = deliver(&f.path(file));
            let (ft, fo) = (s.features(), o.features());
            assert_eq!(
                (
                    &ft.hostname,
                    &ft.cmdline,
                    &ft.nr_cpus,
                    &ft.event_desc,
                    &ft.sample_time
                ),
                (
                    &fo.hostname,
                    &fo.cmdline,
                    &fo.nr_cpus,
                    &fo.event_desc,
                    &fo.sample_time
                ),
                "{swapped}"
            );
        }
        same(
            &theirs.rounds,
            &ours.rounds,
            &format!("{swapped}: stat rounds"),
        );
        if file == "z.data" || file == "pz.data" {
            // Compressed records move: compare all but the offsets.
            let types = |d: &Delivered| {
                d.records
                    .iter()
                    .map(|r| (r.type_, r.size, r.time))
                    .collect::<Vec<_>>()
            };
            same(
                &types(&theirs),
                &types(&ours),
                &format!("{swapped}: records"),
            );
        } else {
            let strip = |d: &Delivered| {
                d.records
                    .iter()
                    .map(|r| {
                        (
                            r.offset,
                            r.file.trim_start_matches("swapped-").to_owned(),
                            r.size,
                            r.type_,
                            r.time,
                        )
                    })
                    .collect::<Vec<_>>()
            };
            same(
                &strip(&theirs),
                &strip(&ours),
                &format!("{swapped}: records"),
            );
            if !pipe {
                check_dump(d, &swapped, &theirs);
            }
        }
    }
}

/// A [`common::Collector`] that pauses the session after every `every`-th
/// kernel record it is asked about.
struct Pausing {
    c: common::Collector,
    every: u64,
    asked: u64,
    pauses: u64,
}

impl perf_core::session::Handler for Pausing {
    type Error = String;
    fn sample(&mut self, ev: &perf_core::session::Event<'_>) -> Result<(), String> {
        self.c.sample(ev)
    }
    fn stat(
        &mut self,
        ev: &perf_core::session::Event<'_>,
        st: &perf_core::perf_data::user::Stat,
    ) -> Result<(), String> {
        self.c.stat(ev, st)
    }
    fn stat_round(
        &mut self,
        ev: &perf_core::session::Event<'_>,
        r: &perf_core::perf_data::user::StatRound,
    ) -> Result<(), String> {
        self.c.stat_round(ev, r)
    }
    fn record(&mut self, ev: &perf_core::session::Event<'_>) -> Result<(), String> {
        self.c.record(ev)
    }
    fn pause(&mut self) -> bool {
        self.asked += 1;
        let pause = self.asked % self.every == 0;
        self.pauses += u64::from(pause);
        pause
    }
}

/// Pausing the session after any record and going on delivers every
/// record and sample as one uninterrupted read does, in the same order:
/// in every recorded file, at several pause intervals, and with a queue
/// cap small enough that HALF flushes (which can pause too) happen.
#[test]
fn a_paused_session_goes_on_where_it_stopped() {
    use perf_core::session::{Session, SessionOptions};
    let Some(f) = files() else { return };
    let mut halves = 0;
    for file in RECORDED {
        for queue_bytes in [perf_core::session::DEFAULT_QUEUE_BYTES, 1 << 16] {
            let options = || SessionOptions {
                queue_bytes,
                ..SessionOptions::default()
            };
            let open = || {
                let data = perf_core::perf_data::PerfData::open(f.path(file).to_str().unwrap());
                Session::new(data.unwrap(), options()).unwrap()
            };
            let mut whole = common::Collector::default();
            let mut s = open();
            s.process_events(&mut whole).unwrap();
            assert!(s.finished());
            let half_flushes = s.stats().nr_half_flushes;
            for every in [1, 7, 1000] {
                let mut h = Pausing {
                    c: common::Collector::default(),
                    every,
                    asked: 0,
                    pauses: 0,
                };
                let mut s = open();
                let mut calls = 0;
                while !s.finished() {
                    s.process_events(&mut h).unwrap();
                    calls += 1;
                }
                assert_eq!(h.c.0, whole.0, "{file}, pausing every {every}");
                assert_eq!(calls, h.pauses + 1, "{file}: a call per pause");
                assert_eq!(s.stats().nr_half_flushes, half_flushes, "{file}");
            }
            eprintln!("{file}, cap {queue_bytes}: {half_flushes} half flushes");
            halves += half_flushes;
        }
    }
    assert!(halves > 0, "the small cap flushes halves");
}
