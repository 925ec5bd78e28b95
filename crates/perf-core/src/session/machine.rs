// SPDX-License-Identifier: GPL-2.0-only
//! The machine a file was recorded on, as its side-band records describe
//! it: perf's `struct machine` with its threads (`struct thread`) and
//! their maps, built from COMM, FORK, EXIT, MMAP, MMAP2 and KSYMBOL records
//! by the rules of perf's machine.c and thread.c:
//!
//! * threads are found by tid; a thread created with a pid that is not its
//!   tid shares its leader's maps (the leader is created too);
//! * a thread's first COMM replaces its `:<tid>` placeholder, later ones
//!   are added with their time, so the comm changes over time;
//! * FORK gives the child the parent's comm and ppid, and a copy of the
//!   parent's maps when it is a new process (not for FORKs perf
//!   synthesized with `PERF_RECORD_MISC_FORK_EXEC`); an existing thread
//!   with the child's tid is replaced;
//! * EXIT marks the thread exited (it stays findable, as in perf);
//! * MMAP/MMAP2 of user space go to the thread's maps (a
//!   [`crate::symbol::map::Map`] of the session's [`Dsos`], overlaps cut as
//!   perf's `maps__fixup_overlappings` does), kernel ones and KSYMBOLs to
//!   the kernel maps the [`Dsos`] keep.
//!
//! The machine owns the session's [`Dsos`]: every object is known once and
//! its symbols are loaded once (by build id), whatever the number of
//! processes mapping it. [`Machine::resolve`] and
//! [`Machine::resolve_callchain`] are perf's `machine__resolve` and
//! `thread__resolve_callchain` for a sample.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::evlist::IdHasher;
use crate::perf_data::abi::*;
use crate::perf_data::BuildId;
use crate::record::PERF_RECORD_MISC_CPUMODE_MASK;
use crate::record::{
    bytes, Body, Mmap2File, Record, PERF_RECORD_EXIT, PERF_RECORD_FORK, PERF_RECORD_KSYMBOL,
};
use crate::symbol::callchain::{CallchainNode, SampleChain, PERF_MAX_STACK_DEPTH};
use crate::symbol::dso::DsoId;
use crate::symbol::map::{MapInfo, Maps};
use crate::symbol::resolve::AddrLocation;
use crate::symbol::unwind::UserStack;
use crate::symbol::{build_id, Dsos};

/// The maps of a thread that has none.
static NO_MAPS: Maps = Maps::EMPTY;

/// One comm of a thread, from the time it was set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comm {
    /// The name.
    pub comm: Arc<str>,
    /// When it was set (the COMM or FORK record's time; 0 for the idle
    /// thread and placeholders).
    pub start: u64,
    /// Set by an exec (`PERF_RECORD_MISC_COMM_EXEC`).
    pub exec: bool,
}

/// A thread: perf's `struct thread`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    /// Its process (-1 when not known yet).
    pub pid: i32,
    /// Its id.
    pub tid: i32,
    /// Its parent's tid (-1 when not known).
    pub ppid: i32,
    /// perf's `thread->cpu`: -1 (sessions never set it).
    pub cpu: i32,
    /// Set by an EXIT record.
    pub exited: bool,
    comms: Vec<Comm>,
    comm_set: bool,
    maps: usize,
}

impl Thread {
    fn new(pid: i32, tid: i32, maps: usize) -> Thread {
        Thread {
            pid,
            tid,
            ppid: -1,
            cpu: -1,
            exited: false,
            comms: vec![Comm {
                comm: format!(":{tid}").into(),
                start: 0,
                exec: false,
            }],
            comm_set: false,
            maps,
        }
    }

    /// The current comm (perf's `thread__comm_str`).
    pub fn comm(&self) -> &str {
        self.comms.last().map_or("", |c| &c.comm)
    }

    /// The comm the thread had at `time`: the newest one set at or
    /// before it (perf's `thread__comm_by_time`... the oldest if none).
    pub fn comm_at(&self, time: u64) -> &str {
        self.comms
            .iter()
            .rev()
            .find(|c| c.start <= time)
            .or_else(|| self.comms.first())
            .map_or("", |c| &c.comm)
    }

    /// Every comm, oldest first.
    pub fn comms(&self) -> &[Comm] {
        &self.comms
    }

    /// True once a COMM (or a FORK from a named parent) has named it.
    pub fn comm_set(&self) -> bool {
        self.comm_set
    }

    /// perf's `__thread__set_comm`.
    fn set_comm(&mut self, comm: Arc<str>, start: u64, exec: bool) {
        if self.comm_set {
            self.comms.push(Comm { comm, start, exec });
        } else if let Some(first) = self.comms.last_mut() {
            // Override the :tid placeholder.
            first.comm = comm;
            first.start = start;
            first.exec |= exec;
        }
        self.comm_set = true;
    }
}

/// The machine: threads, their maps, the DSOs (and the kernel's maps),
/// build ids.
#[derive(Debug, Clone, Default)]
pub struct Machine {
    // Looked up for every sample a handler resolves: SipHash was 7 % of a
    // drain of a 1 M-sample file (perf record), this hasher ~1 %.
    threads: HashMap<i32, Thread, BuildHasherDefault<IdHasher>>,
    maps: Vec<Maps>,
    dsos: Arc<Dsos>,
    build_ids: Vec<BuildId>,
    /// A COMM with `PERF_RECORD_MISC_COMM_EXEC` was seen (perf's
    /// `machine->comm_exec`).
    pub comm_exec: bool,
    /// What a live machine synthesized (`None` for a file's machine).
    pub(super) live: Option<super::live::LiveState>,
}

impl Machine {
    /// A machine whose objects and symbols are those of `dsos`.
    pub fn new(dsos: Dsos) -> Machine {
        Machine {
            dsos: Arc::new(dsos),
            ..Machine::default()
        }
    }

    /// Takes objects and symbols from `dsos` (the file's build ids given
    /// again); the maps made so far keep the old DSOs.
    pub(crate) fn set_dsos(&mut self, dsos: Dsos) {
        for b in &self.build_ids {
            dsos.add_header_build_id(b.filename.as_bytes(), build_id::BuildId::new(&b.build_id));
        }
        self.dsos = Arc::new(dsos);
    }

    /// The objects (DSOs), the kernel's maps and the symbol sources.
    pub fn dsos(&self) -> &Arc<Dsos> {
        &self.dsos
    }

    /// perf's `machine__find_thread`: the thread with id `tid` (threads
    /// are found by tid; `pid` is not used). For a process's main thread,
    /// pass its pid as `tid`.
    pub fn find_thread(&self, pid: i32, tid: i32) -> Option<&Thread> {
        let _ = pid;
        self.threads.get(&tid)
    }

    /// Every thread, in no particular order.
    pub fn threads(&self) -> impl Iterator<Item = &Thread> {
        self.threads.values()
    }

    /// The maps of a thread's process.
    pub fn maps(&self, thread: &Thread) -> &Maps {
        self.maps.get(thread.maps).unwrap_or(&NO_MAPS)
    }

    /// The maps a sample of `pid`/`tid` sees: its thread's, else (a thread
    /// the records never named) its process's, as perf's
    /// `machine__findnew_thread` would make it.
    pub fn thread_maps(&self, pid: i32, tid: i32) -> &Maps {
        match self.threads.get(&tid).or_else(|| self.threads.get(&pid)) {
            Some(t) => self.maps(t),
            None => &NO_MAPS,
        }
    }

    /// perf's `machine__resolve` for an address of a sample of `pid`/`tid`
    /// with `cpumode` (`header.misc & PERF_RECORD_MISC_CPUMODE_MASK`): its
    /// map, DSO and symbol, the DSO's symbols loaded on first use.
    pub fn resolve(&self, pid: i32, tid: i32, cpumode: u8, addr: u64) -> AddrLocation {
        self.dsos
            .thread_find_symbol(self.thread_maps(pid, tid), cpumode, addr)
    }

    /// perf's `thread__resolve_callchain` (default `callchain_param`,
    /// `PERF_MAX_STACK_DEPTH`) of a sample's chain: the frames, leaf
    /// first, `PERF_CONTEXT_*` markers consumed.
    pub fn resolve_callchain(
        &self,
        pid: i32,
        tid: i32,
        chain: &SampleChain<'_>,
    ) -> Vec<CallchainNode> {
        self.dsos
            .resolve_callchain(self.thread_maps(pid, tid), chain, PERF_MAX_STACK_DEPTH)
    }

    /// A sample's chain ([`SampleChain`]): its recorded
    /// `PERF_SAMPLE_CALLCHAIN` words and, for a sample with user registers
    /// and a stack dump (`--call-graph dwarf`), the user frames unwound
    /// from them in its thread's address space ([`Dsos::unwind_user`]).
    pub fn sample_chain<'c>(
        &self,
        pid: i32,
        tid: i32,
        recorded: &'c [u64],
        user: Option<UserStack<'_>>,
    ) -> SampleChain<'c> {
        SampleChain {
            recorded,
            unwound: user.map_or_else(Vec::new, |user| {
                let maps = self.thread_maps(pid, tid);
                self.dsos.unwind_user(maps, &user, PERF_MAX_STACK_DEPTH)
            }),
        }
    }

    /// The build ids of the file (its `HEADER_BUILD_ID` feature and
    /// `PERF_RECORD_HEADER_BUILD_ID` records).
    pub fn build_ids(&self) -> &[BuildId] {
        &self.build_ids
    }

    /// The file's build-id table: kept, and given to the DSOs (a map of
    /// one of these files gets its recorded build id).
    pub(crate) fn add_build_ids(&mut self, ids: impl IntoIterator<Item = BuildId>) {
        for b in ids {
            self.dsos
                .add_header_build_id(b.filename.as_bytes(), build_id::BuildId::new(&b.build_id));
            self.build_ids.push(b);
        }
    }

    /// The maps of process `pid` (its main thread is made if needed).
    pub(super) fn process_maps_mut(&mut self, pid: i32) -> Option<&mut Maps> {
        let idx = self.findnew_thread(pid, pid).maps;
        self.maps.get_mut(idx)
    }

    fn new_maps(&mut self) -> usize {
        self.maps.push(Maps::default());
        self.maps.len() - 1
    }

    /// perf's `__machine__findnew_thread`.
    pub(crate) fn findnew_thread(&mut self, pid: i32, tid: i32) -> &mut Thread {
        if self.threads.contains_key(&tid) {
            self.update_thread_pid(tid, pid);
        } else {
            // thread__init_maps: own maps, or the leader's (created too).
            let maps = if pid == tid || pid == -1 {
                self.new_maps()
            } else {
                let leader = self.findnew_thread(pid, pid);
                leader.maps
            };
            self.threads.insert(tid, Thread::new(pid, tid, maps));
        }
        self.threads
            .entry(tid)
            .or_insert_with(|| Thread::new(pid, tid, 0))
    }

    /// perf's `machine__update_thread_pid`: a thread whose pid was unknown
    /// joins its leader's maps.
    fn update_thread_pid(&mut self, tid: i32, pid: i32) {
        let Some(th) = self.threads.get(&tid) else {
            return;
        };
        if pid == th.pid || pid == -1 || th.pid != -1 {
            return;
        }
        let own = th.maps;
        if let Some(th) = self.threads.get_mut(&tid) {
            th.pid = pid;
        }
        if pid == tid {
            return;
        }
        let leader = self.findnew_thread(pid, pid).maps;
        if let Some(th) = self.threads.get_mut(&tid) {
            if own != leader {
                th.maps = leader;
            }
        }
    }

    /// The idle task perf registers before processing (`swapper`, 0/0).
    pub(crate) fn register_idle_thread(&mut self) {
        self.findnew_thread(0, 0)
            .set_comm("swapper".into(), 0, false);
    }

    /// Takes in a side-band record (after it was parsed): COMM, FORK,
    /// EXIT, MMAP, MMAP2, KSYMBOL. Other records change nothing.
    pub(crate) fn process(&mut self, rec: &Record, bytes_of: &[u8]) {
        let misc = rec.header.misc;
        match (&rec.body, rec.header.type_) {
            (Body::Comm { pid, tid, comm }, _) => {
                let exec = misc & PERF_RECORD_MISC_COMM_EXEC != 0;
                self.comm_exec |= exec;
                let name: Arc<str> = String::from_utf8_lossy(bytes(bytes_of, comm)).into();
                self.findnew_thread(*pid as i32, *tid as i32)
                    .set_comm(name, rec.sample.time, exec);
            }
            (
                Body::Task {
                    pid,
                    ppid,
                    tid,
                    ptid,
                    ..
                },
                PERF_RECORD_FORK,
            ) => {
                let clone_maps = misc & PERF_RECORD_MISC_FORK_EXEC == 0;
                self.fork(
                    *pid as i32,
                    *tid as i32,
                    *ppid as i32,
                    *ptid as i32,
                    rec.sample.time,
                    clone_maps,
                );
            }
            (Body::Task { tid, .. }, PERF_RECORD_EXIT) => {
                if let Some(t) = self.threads.get_mut(&(*tid as i32)) {
                    t.exited = true;
                }
            }
            (
                Body::Mmap {
                    pid,
                    tid,
                    start,
                    len,
                    pgoff,
                    filename,
                },
                _,
            ) => {
                let prot = if misc & PERF_RECORD_MISC_MMAP_DATA == 0 {
                    libc::PROT_EXEC as u32
                } else {
                    0
                };
                let info = MapInfo {
                    pid: *pid as i32,
                    start: *start,
                    len: *len,
                    pgoff: *pgoff,
                    filename: bytes(bytes_of, filename),
                    prot,
                    flags: 0,
                    dso_id: None,
                    build_id: None,
                };
                self.insert_map(*tid as i32, misc, &info);
            }
            (
                Body::Mmap2 {
                    pid,
                    tid,
                    start,
                    len,
                    pgoff,
                    file,
                    prot,
                    flags,
                    filename,
                },
                _,
            ) => {
                let (dso_id, build_id) = match *file {
                    Mmap2File::Inode {
                        maj,
                        min,
                        ino,
                        ino_generation,
                    } => (
                        Some(DsoId {
                            maj,
                            min,
                            ino,
                            ino_generation,
                        }),
                        None,
                    ),
                    Mmap2File::BuildId { size, build_id } => (
                        None,
                        build_id
                            .get(..usize::from(size))
                            .map(build_id::BuildId::new),
                    ),
                };
                let info = MapInfo {
                    pid: *pid as i32,
                    start: *start,
                    len: *len,
                    pgoff: *pgoff,
                    filename: bytes(bytes_of, filename),
                    prot: *prot,
                    flags: *flags,
                    dso_id,
                    build_id,
                };
                self.insert_map(*tid as i32, misc, &info);
            }
            (Body::Other { body }, PERF_RECORD_KSYMBOL) => self.ksymbol(bytes(bytes_of, body)),
            _ => {}
        }
    }

    /// perf's `machine__process_mmap2_event`: a kernel map (by the
    /// record's cpumode) to the DSOs' kernel maps, else a map of the
    /// thread's process.
    fn insert_map(&mut self, tid: i32, misc: u16, info: &MapInfo<'_>) {
        let cpumode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
        if cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL {
            self.dsos.process_kernel_mmap(info);
            return;
        }
        let map = self.dsos.map_new(info);
        let maps = self.findnew_thread(info.pid, tid).maps;
        if let Some(m) = self.maps.get_mut(maps) {
            m.insert(map);
        }
    }

    /// KSYMBOL: `{ u64 addr; u32 len; u16 ksym_type; u16 flags; char name[]; }`;
    /// flags bit 0 is `PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER`.
    fn ksymbol(&mut self, body: &[u8]) {
        let ne = crate::endian::Endian::NATIVE;
        let (Some(addr), Some(len), Some(flags)) =
            (ne.u64_at(body, 0), ne.u32_at(body, 8), ne.u16_at(body, 14))
        else {
            return;
        };
        let name = body.get(16..).unwrap_or_default();
        let end = name.iter().position(|&c| c == 0).unwrap_or(name.len());
        let name = String::from_utf8_lossy(name.get(..end).unwrap_or_default());
        self.dsos.process_ksymbol(addr, len, &name, flags & 1 != 0);
    }

    /// perf's `machine__process_fork_event`.
    fn fork(&mut self, pid: i32, tid: i32, ppid: i32, ptid: i32, time: u64, clone_maps: bool) {
        let existing = self.threads.contains_key(&tid);
        if self.findnew_thread(ppid, ptid).pid != ppid {
            // An erroneous parent (lost or out-of-order records): replace it.
            self.threads.remove(&ptid);
            self.findnew_thread(ppid, ptid);
        }
        if existing {
            self.threads.remove(&tid);
        }
        self.findnew_thread(pid, tid);
        let Some(parent) = self.threads.get(&ptid) else {
            return;
        };
        let (parent_comm, parent_set, parent_pid, parent_maps, parent_tid) = (
            parent.comms.last().map(|c| Arc::clone(&c.comm)),
            parent.comm_set,
            parent.pid,
            parent.maps,
            parent.tid,
        );
        let Some(child) = self.threads.get_mut(&tid) else {
            return;
        };
        if parent_set {
            if let Some(c) = parent_comm {
                child.set_comm(c, time, false);
            }
        }
        child.ppid = parent_tid;
        let child_maps = child.maps;
        // thread__clone_maps: a thread of the same process shares them; a
        // new process gets a copy.
        if child.pid != parent_pid && child_maps != parent_maps && clone_maps {
            let copy = self.maps.get(parent_maps).cloned().unwrap_or_default();
            if let Some(m) = self.maps.get_mut(child_maps) {
                for map in copy.iter() {
                    m.insert(Arc::clone(map));
                }
            }
        }
    }
}

/// The machine as the session shares it: the session changes it only
/// between handler calls, so a handler (or a Python `find_thread` called
/// from one) can lock it.
#[derive(Debug, Clone, Default)]
pub struct MachineRef(Arc<Mutex<Machine>>);

impl MachineRef {
    /// Shares `machine`.
    pub fn new(machine: Machine) -> MachineRef {
        MachineRef(Arc::new(Mutex::new(machine)))
    }

    /// The machine (a panicking holder cannot leave it half-changed: every
    /// change is made under one lock and completes).
    pub fn lock(&self) -> MutexGuard<'_, Machine> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
