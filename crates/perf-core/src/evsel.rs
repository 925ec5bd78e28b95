// SPDX-License-Identifier: GPL-2.0-only
//! `evsel`: one event selector — a `perf_event_attr` and the fds it was opened
//! with, one per (CPU, thread) of its maps (libperf's `struct perf_evsel`).

use std::sync::Arc;

use crate::abi::{self, AttrBits, Fallback, OpenArgs, Policy};
use crate::attr::Attr;
use crate::counts::{self, CountsValues};
use crate::cpumap::{Cpu, CpuMap};
use crate::error::Result;
use crate::sys::EventFd;
use crate::threadmap::{Pid, ThreadMap};
use crate::tool_evsel::ToolEvsel;

/// The fds of an opened evsel: `fds[cpu_idx * threads.len() + thread_idx]`.
#[derive(Debug)]
pub struct FdTable {
    /// The CPUs the evsel was opened on.
    pub cpus: Arc<CpuMap>,
    /// The threads it was opened for.
    pub threads: Arc<ThreadMap>,
    /// The attr as the kernel accepted it (after any fallback).
    pub attr: Attr,
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
    /// The attr as the user configured it; after an open, with what the
    /// open dropped cleared, as perf's fallback leaves `evsel->core.attr`.
    pub attr: Attr,
    /// An explicit name (from `parse_events`), else derived from the attr.
    pub name: Option<String>,
    /// perf's `evsel->tracking`: ask `evlist.config()` for side-band records.
    pub tracking: bool,
    /// perf's `evsel->precise_max` (`:P`): `evlist.config()` asks for
    /// `precise_ip=3` as a module default, which the open lowers step by
    /// step until the PMU accepts it.
    pub precise_max: bool,
    /// Bits the module set by default (not asked for by the user): these
    /// fall back silently when the kernel lacks them.
    pub defaults: AttrBits,
    /// What the last open dropped, and why.
    pub fallbacks: Vec<Fallback>,
    /// Per-event config terms from `parse_events` (`period=`, `call-graph=`…),
    /// re-applied after `evlist.config()` as perf does.
    pub config_terms: Vec<crate::parse_events::ConfigTerm>,
    /// Index in its evlist of this evsel's group leader, when it is a group
    /// member (`{a,b}` in `parse_events`); None for leaders and loners.
    pub group_leader: Option<usize>,
    fds: Option<FdTable>,
    /// While open, for an event of the tool PMU (which has no fds).
    tool: Option<ToolEvsel>,
    /// The previous `read()` of each fd, for deltas.
    prev_counts: Vec<Option<CountsValues>>,
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
    ///
    /// The first open goes through `abi::open` (module defaults the kernel
    /// lacks are dropped, anything else it refuses is explained); the rest
    /// reuse the attr it settled on.
    pub fn open(
        &mut self,
        cpus: Arc<CpuMap>,
        threads: Arc<ThreadMap>,
        policy: &Policy,
    ) -> Result<()> {
        self.open_in_group(cpus, threads, policy, None)
    }

    /// `open`, as a member of the group whose leader has these fds (one per
    /// (CPU, thread), in the same order).
    pub fn open_in_group(
        &mut self,
        cpus: Arc<CpuMap>,
        threads: Arc<ThreadMap>,
        policy: &Policy,
        leader_fds: Option<&[std::os::fd::RawFd]>,
    ) -> Result<()> {
        self.close();
        if self.attr.type_ == crate::tool_evsel::TOOL_PMU_TYPE {
            return self.open_tool(cpus, threads);
        }
        let mut fds = Vec::with_capacity(cpus.len() * threads.len());
        let mut settled: Option<(Attr, u64)> = None;
        for &cpu in cpus.as_slice() {
            for &pid in threads.as_slice() {
                let group_fd = leader_fds
                    .and_then(|l| l.get(fds.len()).copied())
                    .unwrap_or(-1);
                let opened = match &settled {
                    None => {
                        let args = OpenArgs {
                            group_fd,
                            ..OpenArgs::new(pid, cpu)
                        };
                        abi::open(&self.attr, args, &self.defaults, policy)?
                    }
                    Some((attr, flags)) => {
                        let args = OpenArgs {
                            flags: *flags,
                            group_fd,
                            ..OpenArgs::new(pid, cpu)
                        };
                        abi::open(attr, args, &AttrBits::NONE, policy)?
                    }
                };
                if settled.is_none() {
                    settled = Some((opened.attr, opened.flags));
                    self.fallbacks = opened.fallbacks;
                }
                fds.push(EventFd::new(opened.fd));
            }
        }
        let attr = settled.map_or(self.attr, |(a, _)| a);
        // What was dropped stays dropped, as in perf: the attributes seen
        // from Python are the ones opened. The size stays the caller's.
        self.attr = Attr {
            size: self.attr.size,
            ..attr
        };
        self.prev_counts = vec![None; fds.len()];
        self.fds = Some(FdTable {
            cpus,
            threads,
            attr,
            fds,
        });
        Ok(())
    }

    /// A tool PMU event: no `perf_event_open`, an empty fd table over
    /// the maps, the starting values read (`tool_evsel`).
    fn open_tool(&mut self, cpus: Arc<CpuMap>, threads: Arc<ThreadMap>) -> Result<()> {
        let tool = ToolEvsel::open(&self.attr, &cpus, &threads)?;
        self.prev_counts = vec![None; cpus.len() * threads.len()];
        self.fallbacks.clear();
        self.fds = Some(FdTable {
            cpus,
            threads,
            attr: self.attr,
            fds: Vec::new(),
        });
        self.tool = Some(tool);
        Ok(())
    }

    /// Closes every fd (idempotent).
    pub fn close(&mut self) {
        self.fds = None;
        self.tool = None;
        self.prev_counts.clear();
    }

    /// Reads the counter of (CPU number, thread id) — perf ≥ 6.17's
    /// `evsel.read(cpu, thread)`: the change since the previous read of the
    /// same fd (since open for the first). `CpuNotInMap` or `ThreadNotInMap`
    /// when that CPU or thread is not in the maps the evsel was opened with.
    pub fn read_counts(&mut self, cpu: Cpu, tid: Pid) -> Result<CountsValues> {
        let (slot, now) = self.read_now(cpu, tid)?;
        let prev = self
            .prev_counts
            .get_mut(slot)
            .and_then(Option::take)
            .unwrap_or_default();
        if let Some(p) = self.prev_counts.get_mut(slot) {
            *p = Some(now);
        }
        Ok(now.delta(&prev))
    }

    /// The change since the previous [`Self::read_counts`] of (CPU number,
    /// thread id), leaving that previous read in place: what perf's
    /// `evlist.compute_metric()` reads (it never advances the counts
    /// `evsel.read()` keeps).
    pub fn peek_counts(&mut self, cpu: Cpu, tid: Pid) -> Result<CountsValues> {
        let (slot, now) = self.read_now(cpu, tid)?;
        let prev = self
            .prev_counts
            .get(slot)
            .copied()
            .flatten()
            .unwrap_or_default();
        Ok(now.delta(&prev))
    }

    /// The fd slot of (CPU number, thread id) and its counter now.
    fn read_now(&mut self, cpu: Cpu, tid: Pid) -> Result<(usize, CountsValues)> {
        let Some(t) = &self.fds else {
            return Err(crate::Error::InvalidArgument(
                "evsel is not open".to_owned(),
            ));
        };
        let Some(ci) = t.cpus.index_of(cpu) else {
            return Err(crate::Error::CpuNotInMap { cpu });
        };
        let not_in_map = || crate::Error::ThreadNotInMap { thread: tid };
        let ti = t.threads.index_of(tid).ok_or_else(not_in_map)?;
        let slot = ci * t.threads.len() + ti;
        let now = match &mut self.tool {
            Some(tool) => tool.read(ci, ti)?,
            None => {
                let fd = t.get(ci, ti).ok_or_else(not_in_map)?;
                counts::read_counter(fd.raw(), t.attr.read_format)?
            }
        };
        Ok((slot, now))
    }

    /// True for an open event of the tool PMU: its fd table is empty.
    pub fn is_tool(&self) -> bool {
        self.tool.is_some()
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
