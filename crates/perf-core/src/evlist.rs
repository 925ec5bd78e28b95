// SPDX-License-Identifier: GPL-2.0-only
//! `evlist`: a list of evsels, their ring buffers and poll fds (libperf's
//! `struct perf_evlist` plus perf's `evlist__mmap`/`read_on_cpu` logic).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::os::fd::RawFd;
use std::sync::{Arc, Mutex, MutexGuard};

use perf_event_open_sys::bindings::PERF_TYPE_TRACEPOINT;

use crate::abi::Policy;
use crate::cpumap::{Cpu, CpuMap};
use crate::error::{Error, Result};
use crate::evsel::Evsel;
use crate::record::{event_id, ParseInfo, PERF_RECORD_SAMPLE};
use crate::ring::Ring;
use crate::session::MachineRef;
use crate::symbol::conf::SymbolConf;
use crate::symbol::Dsos;
use crate::sys::{self, Ioctl};
use crate::threadmap::ThreadMap;
use crate::tracefs::{self, Format};

/// An evsel shared between its evlist and its Python object.
pub type SharedEvsel = Arc<Mutex<Evsel>>;

/// Locks an evsel; a poisoned lock (a panic elsewhere) still gives the data.
pub fn lock(evsel: &SharedEvsel) -> MutexGuard<'_, Evsel> {
    evsel.lock().unwrap_or_else(|p| p.into_inner())
}

/// One mapped ring and the CPU it belongs to (-1 in per-thread mode).
#[derive(Debug)]
struct RingSlot {
    cpu: Cpu,
    ring: Ring,
}

/// One record as `read_on_cpu_with` hands it out: valid until the callback
/// returns (it may point straight into the ring).
#[derive(Debug, Clone, Copy)]
pub struct RecordRef<'a> {
    /// Index of the evsel in the evlist.
    pub evsel_idx: usize,
    /// The whole record, header included.
    pub bytes: &'a [u8],
    /// The evsel's parse info (as opened).
    pub info: &'a ParseInfo,
    /// The evsel's tracepoint format, for tracepoint evsels.
    pub format: Option<&'a Arc<Format>>,
    /// The evlist's live machine, when it tracks mmaps (see
    /// [`Evlist::machine`]).
    pub machine: Option<&'a MachineRef>,
}

/// What [`Evlist::read_ring_with`] found in a ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RingRead<R> {
    /// No complete record (or no such ring).
    Empty,
    /// A record that matched no evsel: consumed, and counted in
    /// `stats.unmatched`.
    Unmatched,
    /// A record, and what the callback made of it.
    Record(R),
}

/// Counters of what reading skipped.
#[derive(Debug, Default, Clone, Copy)]
pub struct ReadStats {
    /// Records that could not be matched to an evsel (no sample id in the
    /// layout and more than one evsel), consumed and dropped as perf does.
    pub unmatched: u64,
}

/// The evlist.
#[derive(Debug, Default)]
pub struct Evlist {
    /// CPUs given at creation (None: system-wide maps are made at open).
    pub cpus: Option<Arc<CpuMap>>,
    /// Threads given at creation.
    pub threads: Option<Arc<ThreadMap>>,
    evsels: Vec<SharedEvsel>,
    rings: Vec<RingSlot>,
    pollfds: Vec<RawFd>,
    ids: HashMap<u64, usize>,
    parse_infos: Vec<ParseInfo>,
    formats: Vec<Option<Arc<Format>>>,
    scratch: Vec<u8>,
    machine: Option<MachineRef>,
    /// What reading skipped.
    pub stats: ReadStats,
}

impl Evlist {
    /// An evlist over these maps.
    pub fn new(cpus: Option<Arc<CpuMap>>, threads: Option<Arc<ThreadMap>>) -> Self {
        Evlist {
            cpus,
            threads,
            ..Evlist::default()
        }
    }

    /// Appends an evsel; returns the new number of entries.
    pub fn add(&mut self, evsel: SharedEvsel) -> usize {
        self.evsels.push(evsel);
        self.evsels.len()
    }

    /// Number of evsels.
    pub fn len(&self) -> usize {
        self.evsels.len()
    }

    /// True with no evsels.
    pub fn is_empty(&self) -> bool {
        self.evsels.is_empty()
    }

    /// The evsel at an index.
    pub fn get(&self, idx: usize) -> Option<&SharedEvsel> {
        self.evsels.get(idx)
    }

    /// The maps `open()` uses: the evlist's, or system-wide (online CPUs ×
    /// "any thread") when none were given.
    pub fn maps(&self) -> Result<(Arc<CpuMap>, Arc<ThreadMap>)> {
        let cpus = match &self.cpus {
            Some(c) => c.clone(),
            None if self.threads.as_ref().is_some_and(|t| !t.is_any()) => Arc::new(CpuMap::any()),
            None => Arc::new(CpuMap::online()?),
        };
        let threads = self
            .threads
            .clone()
            .unwrap_or_else(|| Arc::new(ThreadMap::any()));
        Ok((cpus, threads))
    }

    /// Opens every evsel on the evlist's maps; on failure closes them all.
    /// With no CPUs given, an event of an uncore PMU opens on its PMU's
    /// `cpumask` CPUs with no task, as perf does (`pmu_cpus`).
    pub fn open(&mut self, policy: &Policy) -> Result<()> {
        let (cpus, threads) = self.maps()?;
        let result = (0..self.evsels.len()).try_for_each(|i| {
            let uncore = match self.cpus {
                None => crate::pmu_cpus::uncore_maps(&lock(&self.evsels[i]).attr),
                Some(_) => None,
            };
            let (cpus, threads) = match uncore {
                Some((c, t)) => (Arc::new(c), Arc::new(t)),
                None => (cpus.clone(), threads.clone()),
            };
            let leader = lock(&self.evsels[i]).group_leader.filter(|&l| l < i);
            // Members are opened with their leader's fd for the same
            // (CPU, thread), so the kernel schedules the group together.
            let leader_fds: Option<Vec<RawFd>> = leader.and_then(|l| {
                Some(
                    lock(self.evsels.get(l)?)
                        .fds()?
                        .iter()
                        .map(|f| f.raw())
                        .collect(),
                )
            });
            lock(&self.evsels[i]).open_in_group(cpus, threads, policy, leader_fds.as_deref())
        });
        if result.is_err() {
            self.close();
        }
        result
    }

    /// Unmaps the rings and closes every evsel's fds.
    pub fn close(&mut self) {
        self.munmap();
        for evsel in &self.evsels {
            lock(evsel).close();
        }
    }

    /// The union of the CPUs of every evsel (as opened, else the evlist's).
    pub fn all_cpus(&self) -> CpuMap {
        let mut all = CpuMap::from_cpus(Vec::new());
        for evsel in &self.evsels {
            if let Some(t) = lock(evsel).fds() {
                all = all.merge(&t.cpus);
            }
        }
        if all.is_empty() {
            if let Ok((cpus, _)) = self.maps() {
                return (*cpus).clone();
            }
        }
        all
    }

    /// perf record's defaults on every evsel (`evlist.config()`), then each
    /// evsel's own config terms again.
    pub fn config(&mut self) {
        let mut guards = self.lock_all();
        let mut refs: Vec<&mut Evsel> = guards.iter_mut().map(|g| &mut **g).collect();
        crate::config::config(&mut refs);
        for e in refs {
            let terms = std::mem::take(&mut e.config_terms);
            crate::parse_events::apply_config_terms(&terms, &mut e.attr);
            e.config_terms = terms;
        }
    }

    /// Each evsel once, in order of first occurrence (one may be added twice).
    fn distinct(&self) -> impl Iterator<Item = &SharedEvsel> {
        self.evsels
            .iter()
            .enumerate()
            .filter(|(i, e)| !self.evsels[..*i].iter().any(|p| Arc::ptr_eq(p, e)))
            .map(|(_, e)| e)
    }

    /// Locks every distinct evsel, returning the guards in `distinct()`
    /// order. The locks are taken in address order, one global order, so
    /// two evlists sharing evsels in different orders cannot deadlock.
    fn lock_all(&self) -> Vec<MutexGuard<'_, Evsel>> {
        let evsels: Vec<&SharedEvsel> = self.distinct().collect();
        let mut order: Vec<usize> = (0..evsels.len()).collect();
        order.sort_by_key(|&i| Arc::as_ptr(evsels[i]) as usize);
        let mut slots: Vec<Option<MutexGuard<'_, Evsel>>> = evsels.iter().map(|_| None).collect();
        for i in order {
            slots[i] = Some(lock(evsels[i]));
        }
        slots.into_iter().flatten().collect()
    }

    /// For each evlist index, the position of its evsel in `distinct()`.
    fn distinct_slots(&self) -> Vec<usize> {
        let mut firsts: Vec<&SharedEvsel> = Vec::new();
        self.evsels
            .iter()
            .map(|e| match firsts.iter().position(|p| Arc::ptr_eq(p, e)) {
                Some(k) => k,
                None => {
                    firsts.push(e);
                    firsts.len() - 1
                }
            })
            .collect()
    }

    /// Drops the rings (fds stay open).
    pub fn munmap(&mut self) {
        self.rings.clear();
        self.pollfds.clear();
        self.ids.clear();
        self.parse_infos.clear();
        self.formats.clear();
    }

    /// Maps one ring of `pages` data pages per CPU (per thread when the CPU
    /// map is "any"), redirecting every other fd of that CPU into it with
    /// `PERF_EVENT_IOC_SET_OUTPUT`, and collects the poll fds and event ids.
    pub fn mmap(&mut self, pages: usize) -> Result<()> {
        self.munmap();
        let page_size = sys::page_size();
        // An evsel added twice is locked (and mapped) once.
        let slot = self.distinct_slots();
        let guards = self.lock_all();
        let mut tables = Vec::with_capacity(guards.len());
        for (idx, g) in guards.iter().enumerate() {
            match g.fds() {
                Some(t) => tables.push(t),
                None => {
                    return Err(Error::InvalidArgument(format!(
                        "evsel {idx} of the evlist is not open: call evlist.open() or evsel.open() before mmap()"
                    )))
                }
            }
        }
        let mut rings = Vec::new();
        let mut pollfds = Vec::new();
        let mut ids = HashMap::new();
        // Every (cpu, thread) position that any evsel has, CPU-major, in the
        // order libperf's mmap_per_cpu/mmap_per_thread visit them.
        let all_cpus = tables
            .iter()
            .fold(CpuMap::from_cpus(Vec::new()), |acc, t| acc.merge(&t.cpus));
        let nthreads = tables.iter().map(|t| t.threads.len()).max().unwrap_or(0);
        let per_thread = all_cpus.is_any();
        for &cpu in all_cpus.as_slice() {
            let mut output: Option<RawFd> = None;
            for thread in 0..nthreads {
                if per_thread {
                    output = None;
                }
                for (idx, t) in tables.iter().enumerate() {
                    let Some(cpu_idx) = t.cpus.index_of(cpu) else {
                        continue;
                    };
                    let Some(fd) = t.get(cpu_idx, thread) else {
                        continue;
                    };
                    match output {
                        None => {
                            rings.push(RingSlot {
                                cpu,
                                ring: Ring::new(fd.raw(), pages, page_size)?,
                            });
                            output = Some(fd.raw());
                        }
                        Some(out) => sys::set_output(fd.raw(), out)?,
                    }
                    pollfds.push(fd.raw());
                    // The evlist index of the evsel's first occurrence.
                    let first = slot.iter().position(|&k| k == idx).unwrap_or(idx);
                    ids.insert(fd.id(), first);
                }
            }
        }
        let per_index = || slot.iter().filter_map(|&k| tables.get(k));
        let parse_infos = per_index().map(|t| ParseInfo::new(&t.attr)).collect();
        // Tracepoint formats, looked up once per evsel (by id, as perf ≥ 6.15).
        let formats = per_index()
            .map(|t| {
                (t.attr.type_ == PERF_TYPE_TRACEPOINT)
                    .then(|| tracefs::tracefs().ok()?.format_by_id(t.attr.config).ok())
                    .flatten()
            })
            .collect();
        // A live machine once an evsel asks for mmap records (perf's
        // tracking evsel, as `config()` sets it up): kept across mmap()s.
        let tracks = tables
            .iter()
            .any(|t| t.attr.flag("mmap") == Some(1) || t.attr.flag("mmap2") == Some(1));
        drop(guards);
        if tracks && self.machine.is_none() {
            self.machine = Some(MachineRef::live(Dsos::new(SymbolConf::default())));
        }
        self.rings = rings;
        self.pollfds = pollfds;
        self.ids = ids;
        self.parse_infos = parse_infos;
        self.formats = formats;
        Ok(())
    }

    /// The fds to poll (every fd, as perf adds them).
    pub fn pollfds(&self) -> &[RawFd] {
        &self.pollfds
    }

    /// Reads at most one record from the ring of `cpu` (a CPU *number*), as
    /// the C module's `read_on_cpu`, handing it to `f` with the index of its
    /// evsel and that evsel's parse info and tracepoint format. `Ok(None)`
    /// when the ring has no complete record or the record belongs to no
    /// known evsel (it is consumed then, and counted in `stats.unmatched`).
    /// `Err(UnknownCpu)` for a CPU without a ring.
    pub fn read_on_cpu_with<R>(
        &mut self,
        cpu: Cpu,
        f: impl FnOnce(RecordRef<'_>) -> R,
    ) -> Result<Option<R>> {
        let Some(idx) = self.rings.iter().position(|r| r.cpu == cpu) else {
            return Err(Error::UnknownCpu { cpu });
        };
        match self.read_ring_with(idx, f)? {
            RingRead::Record(r) => Ok(Some(r)),
            RingRead::Empty | RingRead::Unmatched => Ok(None),
        }
    }

    /// Reads at most one record from ring number `idx` (see `ring_count`),
    /// handing it to `f` as [`read_on_cpu_with`](Self::read_on_cpu_with)
    /// does.
    pub fn read_ring_with<R>(
        &mut self,
        idx: usize,
        f: impl FnOnce(RecordRef<'_>) -> R,
    ) -> Result<RingRead<R>> {
        let Some(slot) = self.rings.get_mut(idx) else {
            return Ok(RingRead::Empty);
        };
        let (infos, formats, ids) = (&self.parse_infos, &self.formats, &self.ids);
        let machine = self.machine.as_ref();
        let out = slot.ring.with_next_record(&mut self.scratch, |bytes| {
            let evsel_idx = event2evsel(bytes, infos, ids)?;
            let info = infos.get(evsel_idx)?;
            let format = formats.get(evsel_idx).and_then(Option::as_ref);
            Some(f(RecordRef {
                evsel_idx,
                bytes,
                info,
                format,
                machine,
            }))
        })?;
        Ok(match out {
            None => RingRead::Empty,
            Some(None) => {
                self.stats.unmatched += 1;
                RingRead::Unmatched
            }
            Some(Some(r)) => RingRead::Record(r),
        })
    }

    /// Reads the records now in ring `idx`, handing each to `f` as
    /// [`read_ring_with`](Self::read_ring_with) does, until the ring is
    /// empty or `f` answers `Break` (the record it was given is consumed).
    /// Records that match no evsel are consumed and counted in
    /// `stats.unmatched`. The batch readers' loop: the ring, the parse
    /// tables and `data_head` are looked up once per drain, and the space is
    /// given back once (`Ring::drain_with`).
    pub fn drain_ring_with(
        &mut self,
        idx: usize,
        mut f: impl FnMut(RecordRef<'_>) -> ControlFlow<()>,
    ) -> Result<()> {
        let Some(slot) = self.rings.get_mut(idx) else {
            return Ok(());
        };
        let (infos, formats, ids) = (&self.parse_infos, &self.formats, &self.ids);
        let unmatched = &mut self.stats.unmatched;
        let machine = self.machine.as_ref();
        slot.ring.drain_with(&mut self.scratch, |bytes| {
            let found = event2evsel(bytes, infos, ids).and_then(|i| Some((i, infos.get(i)?)));
            let Some((evsel_idx, info)) = found else {
                *unmatched += 1;
                return ControlFlow::Continue(());
            };
            f(RecordRef {
                evsel_idx,
                bytes,
                info,
                format: formats.get(evsel_idx).and_then(Option::as_ref),
                machine,
            })
        })
    }

    /// The live machine: made by `mmap()` when an evsel asks for mmap
    /// records (`attr.mmap` or `attr.mmap2`, as `config()` sets them on
    /// the tracking evsel), fed with the side-band records read, and what
    /// live samples resolve in.
    pub fn machine(&self) -> Option<&MachineRef> {
        self.machine.as_ref()
    }

    /// Number of rings (one per CPU, or per thread for the "any CPU" map).
    pub fn ring_count(&self) -> usize {
        self.rings.len()
    }

    /// Runs an ioctl (enable/disable) on every fd of every evsel.
    pub fn ioctl_all(&self, which: Ioctl) -> Result<()> {
        for evsel in &self.evsels {
            let g = lock(evsel);
            if let Some(t) = g.fds() {
                for fd in t.iter() {
                    sys::ioctl(fd.raw(), which)?;
                }
            }
        }
        Ok(())
    }

    /// The tracepoint format of a tracepoint evsel (found when the rings
    /// were mapped).
    pub fn format(&self, idx: usize) -> Option<&Arc<Format>> {
        self.formats.get(idx).and_then(Option::as_ref)
    }

    /// The parse info of an evsel as it was when the rings were mapped.
    pub fn parse_info(&self, idx: usize) -> Option<&ParseInfo> {
        self.parse_infos.get(idx)
    }
}

/// perf's `evlist__event2evsel`: which evsel a record belongs to.
#[inline]
fn event2evsel(record: &[u8], infos: &[ParseInfo], ids: &HashMap<u64, usize>) -> Option<usize> {
    let first = infos.first()?;
    if infos.len() == 1 {
        return Some(0);
    }
    let rtype = record
        .get(0..4)
        .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]]))?;
    if !first.sample_id_all() && rtype != PERF_RECORD_SAMPLE {
        return Some(0);
    }
    match event_id(record, first) {
        Ok(Some(0)) => Some(0),
        Ok(Some(id)) => ids.get(&id).copied(),
        _ => None,
    }
}
