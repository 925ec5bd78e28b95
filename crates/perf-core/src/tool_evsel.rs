// SPDX-License-Identifier: GPL-2.0-only
//! An open evsel of perf's tool PMU (`PERF_PMU_TYPE_TOOL`, `tool_pmu.c`):
//! no `perf_event_open`, perf computes the count itself.
//!
//! * `duration_time`: `CLOCK_MONOTONIC` nanoseconds since the open, on CPU
//!   index 0 / thread index 0 only (every other slot reads 0, so summing
//!   the slots does not scale it).
//! * `user_time`, `system_time`: clock ticks since the open, in
//!   nanoseconds, from `/proc/<pid>/stat` (fields 14 and 15) of each thread
//!   on CPU index 0, or, for thread `-1`, from `/proc/stat`'s line of each
//!   CPU (its `user` and `system` columns; the `cpu` total line for CPU
//!   `-1`) on thread index 0. Every other slot reads 0.
//!
//! The count is `val = ena = run`, as perf's `evsel__tool_pmu_read`. A
//! sample period is refused with `EINVAL`, as perf does.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::time::Instant;

use crate::attr::Attr;
use crate::counts::CountsValues;
use crate::cpumap::{Cpu, CpuMap};
use crate::error::{Error, Result};
use crate::threadmap::{Pid, ThreadMap};

/// perf's `PERF_PMU_TYPE_TOOL`: the tool PMU's `type`, never given to the
/// kernel.
pub const TOOL_PMU_TYPE: u32 = 0xffff_fffe;

/// A tool event: what perf computes in user space for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolEvent {
    /// Wall-clock nanoseconds since the evsel was opened.
    DurationTime = 1,
    /// User CPU time of the target, in nanoseconds.
    UserTime = 2,
    /// System CPU time of the target, in nanoseconds.
    SystemTime = 3,
}

impl ToolEvent {
    /// The tool event with `attr.config == config` (its discriminant).
    pub fn from_config(config: u64) -> Option<ToolEvent> {
        [
            ToolEvent::DurationTime,
            ToolEvent::UserTime,
            ToolEvent::SystemTime,
        ]
        .into_iter()
        .find(|&ev| ev as u64 == config)
    }
}

/// Where one slot of a CPU-time event reads from.
#[derive(Debug)]
struct StatSlot {
    file: File,
    /// The CPU of the `/proc/stat` line, or None for `/proc/<pid>/stat`.
    cpu: Option<Cpu>,
    /// The ticks read at open.
    start: u64,
}

/// An opened tool evsel: what its reads are measured from.
#[derive(Debug)]
pub struct ToolEvsel {
    event: ToolEvent,
    opened: Instant,
    nthreads: usize,
    /// `slots[cpu_idx * nthreads + thread_idx]`: None where the slot
    /// always reads 0.
    slots: Vec<Option<StatSlot>>,
}

fn einval(what: &str) -> Error {
    Error::Sys {
        op: "tool event",
        errno: libc::EINVAL,
        hint: Some(what.to_owned()),
    }
}

fn io_error(op: &'static str, e: &std::io::Error) -> Error {
    Error::Sys {
        op,
        errno: e.raw_os_error().unwrap_or(libc::EIO),
        hint: None,
    }
}

/// Field `field` (1-based, as proc(5) numbers them) of a `/proc/<pid>/stat`
/// line; only the numeric fields from 4 on. The command name may hold
/// spaces and parentheses: it ends at the last `)`.
pub fn pid_stat_field(text: &str, field: usize) -> Option<u64> {
    let rest = &text[text.rfind(')')? + 1..];
    // The state is field 3, the first word after the name.
    let idx = field.checked_sub(3).filter(|&i| i > 0)?;
    rest.split_ascii_whitespace().nth(idx)?.parse().ok()
}

/// Column `field` (1-based: 1 user, 2 nice, 3 system, …) of CPU `cpu`'s
/// line of `/proc/stat`; `cpu == -1` reads the `cpu` total line.
pub fn cpu_stat_field(text: &str, cpu: Cpu, field: usize) -> Option<u64> {
    let label = if cpu < 0 {
        "cpu".to_owned()
    } else {
        format!("cpu{cpu}")
    };
    let line = text
        .lines()
        .find(|l| l.split_ascii_whitespace().next() == Some(label.as_str()))?;
    line.split_ascii_whitespace()
        .nth(field.checked_sub(1)? + 1)?
        .parse()
        .ok()
}

/// `sysconf(_SC_CLK_TCK)`: the unit of the `/proc` CPU times.
fn ns_per_tick() -> u64 {
    use nix::unistd::{sysconf, SysconfVar};
    match sysconf(SysconfVar::CLK_TCK) {
        Ok(Some(t)) if t > 0 => 1_000_000_000 / t as u64,
        _ => 10_000_000,
    }
}

impl StatSlot {
    fn open(pid: Pid, cpu: Cpu) -> Result<StatSlot> {
        let (path, cpu) = if pid > -1 {
            (format!("/proc/{pid}/stat"), None)
        } else {
            ("/proc/stat".to_owned(), Some(cpu))
        };
        let file = File::open(&path).map_err(|e| io_error("open /proc stat file", &e))?;
        Ok(StatSlot {
            file,
            cpu,
            start: 0,
        })
    }

    /// The current ticks of `field` (14/15 of a pid's stat, or 1/3 of a
    /// CPU's line, as `system` says).
    fn ticks(&mut self, system: bool) -> Result<u64> {
        let mut text = String::new();
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_to_string(&mut text))
            .map_err(|e| io_error("read /proc stat file", &e))?;
        let value = match self.cpu {
            None => pid_stat_field(&text, if system { 15 } else { 14 }),
            Some(cpu) => cpu_stat_field(&text, cpu, if system { 3 } else { 1 }),
        };
        value.ok_or_else(|| einval("unexpected /proc stat format"))
    }
}

impl ToolEvsel {
    /// Opens a tool evsel for `attr` (type `PERF_PMU_TYPE_TOOL`) on these
    /// maps, reading the starting values.
    pub fn open(attr: &Attr, cpus: &CpuMap, threads: &ThreadMap) -> Result<ToolEvsel> {
        let event = ToolEvent::from_config(attr.config)
            .ok_or_else(|| einval("not an event of the tool PMU"))?;
        if attr.sample_period != 0 {
            return Err(einval("a tool event cannot sample"));
        }
        let nthreads = threads.len();
        let mut slots = Vec::with_capacity(cpus.len() * nthreads);
        let system = event == ToolEvent::SystemTime;
        for (ci, &cpu) in cpus.as_slice().iter().enumerate() {
            for (ti, &pid) in threads.as_slice().iter().enumerate() {
                let counts = match event {
                    ToolEvent::DurationTime => false,
                    _ if pid > -1 => ci == 0,
                    _ => ti == 0,
                };
                if !counts {
                    slots.push(None);
                    continue;
                }
                let mut slot = StatSlot::open(pid, cpu)?;
                slot.start = slot.ticks(system)?;
                slots.push(Some(slot));
            }
        }
        Ok(ToolEvsel {
            event,
            opened: Instant::now(),
            nthreads,
            slots,
        })
    }

    /// The tool event.
    pub fn event(&self) -> ToolEvent {
        self.event
    }

    /// The count of (CPU index, thread index) since the open.
    pub fn read(&mut self, cpu_idx: usize, thread_idx: usize) -> Result<CountsValues> {
        let delta = match self.event {
            ToolEvent::DurationTime if cpu_idx == 0 && thread_idx == 0 => {
                u64::try_from(self.opened.elapsed().as_nanos()).unwrap_or(u64::MAX)
            }
            ToolEvent::DurationTime => 0,
            ev => {
                let slot = cpu_idx
                    .checked_mul(self.nthreads)
                    .and_then(|s| s.checked_add(thread_idx))
                    .and_then(|s| self.slots.get_mut(s))
                    .and_then(Option::as_mut);
                match slot {
                    Some(s) => {
                        let now = s.ticks(ev == ToolEvent::SystemTime)?;
                        now.saturating_sub(s.start).saturating_mul(ns_per_tick())
                    }
                    None => 0,
                }
            }
        };
        Ok(CountsValues {
            val: delta,
            ena: delta,
            run: delta,
            ..CountsValues::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PID_STAT: &str = "4242 (a (b) c) R 1 4242 4242 0 -1 4194304 100 0 0 0 \
                            731 52 0 0 20 0 1 0 12345 1000000 200 18446744073709551615\n";

    #[test]
    fn pid_stat_utime_stime_after_a_name_with_parens_and_spaces() {
        assert_eq!(pid_stat_field(PID_STAT, 14), Some(731));
        assert_eq!(pid_stat_field(PID_STAT, 15), Some(52));
        assert_eq!(pid_stat_field(PID_STAT, 4), Some(1));
    }

    #[test]
    fn pid_stat_non_numeric_or_missing_fields() {
        assert_eq!(pid_stat_field(PID_STAT, 3), None);
        assert_eq!(pid_stat_field(PID_STAT, 2), None);
        assert_eq!(pid_stat_field(PID_STAT, 0), None);
        assert_eq!(pid_stat_field(PID_STAT, 200), None);
        assert_eq!(pid_stat_field("4242 no name", 14), None);
        assert_eq!(pid_stat_field("", 14), None);
    }

    const STAT: &str = "cpu  100 1 30 9000 5 0 2 0 0 0\n\
                        cpu0 60 1 20 4000 3 0 1 0 0 0\n\
                        cpu1 40 0 10 5000 2 0 1 0 0 0\n\
                        intr 1 2 3\n";

    #[test]
    fn cpu_stat_user_and_system_per_cpu_and_total() {
        assert_eq!(cpu_stat_field(STAT, 0, 1), Some(60));
        assert_eq!(cpu_stat_field(STAT, 0, 3), Some(20));
        assert_eq!(cpu_stat_field(STAT, 1, 1), Some(40));
        assert_eq!(cpu_stat_field(STAT, -1, 1), Some(100));
        assert_eq!(cpu_stat_field(STAT, -1, 3), Some(30));
    }

    #[test]
    fn cpu_stat_missing_cpu_or_column() {
        assert_eq!(cpu_stat_field(STAT, 2, 1), None);
        assert_eq!(cpu_stat_field(STAT, 0, 0), None);
        assert_eq!(cpu_stat_field(STAT, 0, 11), None);
        assert_eq!(cpu_stat_field("cpu10 1 2 3\n", 1, 1), None);
    }

    #[test]
    fn the_live_proc_files_parse() {
        let own = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        assert!(pid_stat_field(&own, 14).is_some(), "{own}");
        let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
        assert!(cpu_stat_field(&stat, -1, 3).is_some());
    }

    #[test]
    fn duration_counts_on_the_first_slot_only_and_sampling_is_refused() {
        let attr = Attr {
            type_: TOOL_PMU_TYPE,
            config: 1,
            ..Attr::default()
        };
        let cpus = CpuMap::from_cpus(vec![0, 1]);
        let threads = ThreadMap::any();
        let mut t = ToolEvsel::open(&attr, &cpus, &threads).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let first = t.read(0, 0).unwrap();
        assert!(first.val >= 2_000_000 && first.val == first.ena && first.val == first.run);
        assert_eq!(t.read(1, 0).unwrap(), CountsValues::default());
        let sampling = Attr {
            sample_period: 1,
            ..attr
        };
        let err = ToolEvsel::open(&sampling, &cpus, &threads).unwrap_err();
        assert!(matches!(err, Error::Sys { errno, .. } if errno == libc::EINVAL));
    }

    #[test]
    fn user_time_of_this_process_reads_from_the_first_cpu_only() {
        let attr = Attr {
            type_: TOOL_PMU_TYPE,
            config: 2,
            ..Attr::default()
        };
        let cpus = CpuMap::from_cpus(vec![-1, 0]);
        let threads = ThreadMap::from_tids(vec![std::process::id() as i32]);
        let mut t = ToolEvsel::open(&attr, &cpus, &threads).unwrap();
        assert_eq!(t.read(1, 0).unwrap(), CountsValues::default());
        assert!(t.read(0, 0).is_ok());
        let missing = ThreadMap::from_tids(vec![i32::MAX]);
        assert!(ToolEvsel::open(&attr, &cpus, &missing).is_err());
    }
}
