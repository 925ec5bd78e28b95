// SPDX-License-Identifier: GPL-2.0-only
//! `evsel`: one event selector — a `perf_event_attr` and the fds it was opened
//! with, one per (CPU, thread) of its maps (libperf's `struct perf_evsel`).

use std::sync::Arc;

use crate::attr::Attr;
use crate::cpumap::{Cpu, CpuMap};
use crate::error::{Error, Result};
use crate::sys::{self, EventFd, OpenOutcome};
use crate::threadmap::{Pid, ThreadMap};

/// The fds of an opened evsel: `fds[cpu_idx * threads.len() + thread_idx]`.
#[derive(Debug)]
pub struct FdTable {
    /// The CPUs the evsel was opened on.
    pub cpus: Arc<CpuMap>,
    /// The threads it was opened for.
    pub threads: Arc<ThreadMap>,
    fds: Vec<EventFd>,
}

impl FdTable {
    /// The fd for (CPU index, thread index).
    pub fn get(&self, cpu_idx: usize, thread_idx: usize) -> Option<&EventFd> {
        self.fds.get(
            cpu_idx
                .checked_mul(self.threads.len())?
                .checked_add(thread_idx)?,
        )
    }

    /// Every fd, CPU-major.
    pub fn iter(&self) -> impl Iterator<Item = &EventFd> {
        self.fds.iter()
    }
}

/// An event selector.
#[derive(Debug, Default)]
pub struct Evsel {
    /// The attr as the user configured it.
    pub attr: Attr,
    /// An explicit name (from `parse_events`), else derived from the attr.
    pub name: Option<String>,
    /// perf's `evsel->tracking`: ask `evlist.config()` for side-band records.
    pub tracking: bool,
    fds: Option<FdTable>,
}

impl Evsel {
    /// A closed evsel for an attr.
    pub fn new(attr: Attr) -> Self {
        Evsel {
            attr,
            ..Evsel::default()
        }
    }

    /// Opens one fd per (CPU, thread); on any failure closes what was opened
    /// and returns the error. Re-opening closes the previous fds first.
    pub fn open(&mut self, cpus: Arc<CpuMap>, threads: Arc<ThreadMap>) -> Result<()> {
        self.close();
        let mut fds = Vec::with_capacity(cpus.len() * threads.len());
        for &cpu in cpus.as_slice() {
            for &pid in threads.as_slice() {
                fds.push(open_one(&self.attr, pid, cpu)?);
            }
        }
        self.fds = Some(FdTable { cpus, threads, fds });
        Ok(())
    }

    /// Closes every fd (idempotent).
    pub fn close(&mut self) {
        self.fds = None;
    }

    /// The fd table while open.
    pub fn fds(&self) -> Option<&FdTable> {
        self.fds.as_ref()
    }

    /// The kernel ids of every open fd.
    pub fn ids(&self) -> Vec<u64> {
        self.fds
            .iter()
            .flat_map(|t| t.iter().map(EventFd::id))
            .collect()
    }
}

/// `perf_event_open` for one (pid, cpu), close-on-exec, sending the smallest
/// attr size that carries every field set.
fn open_one(attr: &Attr, pid: Pid, cpu: Cpu) -> Result<EventFd> {
    let size = if attr.size != 0 {
        attr.size
    } else {
        attr.needed_size()
    };
    let mut bytes = attr.to_bytes(size);
    match sys::perf_event_open(&mut bytes, pid, cpu, -1, sys::PERF_FLAG_FD_CLOEXEC) {
        OpenOutcome::Fd(fd) => Ok(EventFd::new(fd)),
        OpenOutcome::Failed { errno, .. } => Err(Error::Sys {
            op: "perf_event_open",
            errno,
            hint: None,
        }),
    }
}
