// SPDX-License-Identifier: GPL-2.0-only
//! Shared by the perf.data tests: the real perf tool as recorder and
//! oracle (`perf record`, `perf script -D`, `-F`, `-s`), what our session
//! delivers, and the temporary files.
#![allow(dead_code)]

pub mod oracle;
pub mod swap_copy;
mod swap_features;
pub mod synth;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use perf_core::session::{Event, Handler, Session};

/// The perf tool the tests use as oracle.
pub const PERF: &str = "/usr/bin/perf";

/// Why the real-perf tests cannot run here, if they cannot.
pub fn skip_reason() -> Option<String> {
    if !Path::new(PERF).exists() {
        return Some(format!("{PERF} is not installed (Debian's linux-perf)"));
    }
    if std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) != Some("0"))
        })
        .unwrap_or(true)
    {
        return Some("needs root (system-wide recording and tracepoints)".into());
    }
    if !Path::new("/sys/kernel/tracing/events").exists()
        && !Path::new("/sys/kernel/debug/tracing/events").exists()
    {
        return Some("tracefs is not mounted (scripts/setup.sh mounts it)".into());
    }
    None
}

/// Skips the calling test (returns from it) with the reason printed.
#[macro_export]
macro_rules! require_perf {
    () => {
        if let Some(why) = $crate::common::skip_reason() {
            eprintln!("SKIPPED: {why}");
            return;
        }
    };
}

/// A directory under cargo's target/tmp, removed on drop (and, for one
/// kept in a static, at the next run).
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let p = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("{tag}-{}", N.fetch_add(1, Ordering::Relaxed)));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs a command, panicking with its stderr if it fails; returns stdout.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `perf <args>` in `dir`.
pub fn perf(dir: &Path, args: &[&str]) -> String {
    run(Command::new(PERF).args(args).current_dir(dir))
}

/// A C workload: `getppid` N times, then forks a child that execs
/// `/bin/true` (COMM, FORK, EXIT and MMAP records), in `dir`.
pub fn workload(dir: &Path) -> PathBuf {
    let src = dir.join("work.c");
    std::fs::write(
        &src,
        r#"#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
#include <time.h>
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
/* work N [MS]: N rounds of a syscall and some arithmetic, going on for at
 * least MS milliseconds of wall time (for interval counting). */
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    double until = now() + (argc > 2 ? atol(argv[2]) : 0) / 1e3;
    volatile long x = 0;
    for (long i = 0; i < n || now() < until; i++) { getppid(); for (int j = 0; j < 2000; j++) x += j; }
    pid_t p = fork();
    if (p == 0) { execl("/bin/true", "true", (char *)0); _exit(1); }
    waitpid(p, 0, 0);
    return 0;
}
"#,
    )
    .unwrap();
    let bin = dir.join("work");
    run(Command::new("gcc").args(["-O1", "-o"]).arg(&bin).arg(&src));
    bin
}

/// What our session delivered, as plain values.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Delivered {
    /// Every record: (offset, path, size, type, time as perf -D prints it
    /// is checked separately).
    pub records: Vec<Rec>,
    /// Every sample.
    pub samples: Vec<Smp>,
    /// STAT records: (evsel name, cpu, thread, val, ena, run).
    pub stats: Vec<(String, u32, u32, u64, u64, u64)>,
    /// STAT_ROUND records: (type, time).
    pub rounds: Vec<(u64, u64)>,
}

/// One record as `perf script -D` heads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rec {
    pub offset: u64,
    pub file: String,
    pub size: u64,
    pub type_: u32,
    /// The sample time perf prints before the offset (samples and records
    /// with a `sample_id` trailer).
    pub time: u64,
}

/// One sample's members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Smp {
    pub comm: String,
    pub pid: i32,
    pub tid: i32,
    pub cpu: u32,
    pub time: u64,
    pub period: u64,
    pub event: String,
    pub ip: u64,
    pub addr: u64,
    /// Tracepoint fields, as `perf script -s` gives them.
    pub fields: Vec<(String, oracle::FieldValue)>,
}

/// A handler collecting what it is given.
#[derive(Default)]
pub struct Collector(pub Delivered);

impl Handler for Collector {
    type Error = String;

    fn sample(&mut self, ev: &Event<'_>) -> Result<(), String> {
        let s = &ev.record.sample;
        // perf's machine__findnew_thread: a thread it does not know is
        // created with comm ":<tid>".
        let comm = ev
            .machine
            .lock()
            .find_thread(s.pid, s.tid)
            .map_or_else(|| format!(":{}", s.tid), |t| t.comm().to_owned());
        let mut fields = Vec::new();
        if let Some(format) = ev.evsel.and_then(|e| e.tp_format.clone()) {
            for f in &format.fields {
                let v = ev
                    .field(&f.name)
                    .ok_or("no field")?
                    .map_err(|e| e.to_string())?;
                fields.push((f.name.clone(), oracle::FieldValue::of(&v)));
            }
        }
        self.0.samples.push(Smp {
            comm,
            pid: s.pid,
            tid: s.tid,
            cpu: s.cpu,
            time: s.time,
            period: s.period,
            event: ev.evsel.map_or_else(String::new, |e| e.name.clone()),
            ip: s.ip,
            addr: s.addr,
            fields,
        });
        Ok(())
    }

    fn stat(
        &mut self,
        ev: &Event<'_>,
        st: &perf_core::perf_data::user::Stat,
    ) -> Result<(), String> {
        let name = ev.evsel.map_or("unknown", |e| e.name.as_str()).to_owned();
        self.0
            .stats
            .push((name, st.cpu, st.thread, st.val, st.ena, st.run));
        Ok(())
    }

    fn stat_round(
        &mut self,
        _: &Event<'_>,
        r: &perf_core::perf_data::user::StatRound,
    ) -> Result<(), String> {
        self.0.rounds.push((r.type_, r.time));
        Ok(())
    }

    fn record(&mut self, ev: &Event<'_>) -> Result<(), String> {
        self.0.records.push(Rec {
            offset: ev.offset,
            file: ev.path.rsplit('/').next().unwrap_or("").to_owned(),
            size: ev.bytes.len() as u64,
            type_: ev.type_(),
            time: ev.record.sample.time,
        });
        Ok(())
    }
}

/// Reads `path` with our session, collecting everything.
pub fn deliver(path: &Path) -> (Session, Delivered) {
    let mut s =
        Session::open(path.to_str().unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut c = Collector::default();
    s.process_events(&mut c)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (s, c.0)
}
