// SPDX-License-Identifier: GPL-2.0-only
//! The live machine: a [`Machine`] of the running system, fed by the
//! side-band records (COMM, FORK, EXIT, MMAP, MMAP2, KSYMBOL) an evlist
//! reads from its rings, so that live samples resolve as file samples do.
//!
//! What perf record synthesizes before it enables its events is made here
//! when a sample first needs it:
//!
//! * the kernel map (perf's `perf_event__synthesize_kernel_mmap`): one
//!   `[kernel.kallsyms]` map with the running kernel's build id, so the
//!   kernel's symbols come from `/proc/kallsyms` (or a matching vmlinux),
//!   the map spanning them once loaded;
//! * the maps of a process that was running before the evlist was opened
//!   (perf's `perf_event__synthesize_mmap_events`): its executable maps
//!   from `/proc/<pid>/maps`, read once, at its first resolution, added
//!   where the records made no map (a map a record made is newer).
//!
//! A process that has exited by then has no `/proc/<pid>/maps`: what the
//! records said of it is all there is.

use std::collections::HashSet;
use std::sync::Arc;

use super::machine::{Machine, MachineRef};
use crate::perf_data::abi::PERF_RECORD_MISC_KERNEL;
use crate::record::{
    Record, PERF_RECORD_COMM, PERF_RECORD_EXIT, PERF_RECORD_FORK, PERF_RECORD_KSYMBOL,
    PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_MMAP, PERF_RECORD_MMAP2,
};
use crate::symbol::callchain::CallchainNode;
use crate::symbol::map::{Map, MapInfo};
use crate::symbol::resolve::AddrLocation;
use crate::symbol::unwind::UserStack;
use crate::symbol::Dsos;

/// What the live machine synthesized so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct LiveState {
    /// Processes whose `/proc/<pid>/maps` were read (or could not be).
    proc_read: HashSet<i32>,
}

/// The record types a live machine takes in: the side-band records perf's
/// machine processes (`machine__process_event`).
#[inline]
pub fn is_side_band(type_: u32) -> bool {
    matches!(
        type_,
        PERF_RECORD_MMAP
            | PERF_RECORD_MMAP2
            | PERF_RECORD_COMM
            | PERF_RECORD_FORK
            | PERF_RECORD_EXIT
            | PERF_RECORD_KSYMBOL
    )
}

impl Machine {
    /// A machine of the running system whose objects and symbols are those
    /// of `dsos`: the kernel map is made now, processes' `/proc` maps at
    /// their first resolution.
    pub fn live(dsos: Dsos) -> Machine {
        let mut m = Machine::new(dsos);
        m.register_idle_thread();
        let running = m.dsos().conf().running_kernel;
        m.dsos().process_kernel_mmap(&MapInfo {
            pid: -1,
            start: 0,
            len: 0,
            pgoff: 0,
            filename: b"[kernel.kallsyms]_text",
            prot: 0,
            flags: 0,
            dso_id: None,
            build_id: running,
        });
        m.live = Some(LiveState::default());
        m
    }

    /// True for a machine made by [`Machine::live`].
    pub fn is_live(&self) -> bool {
        self.live.is_some()
    }

    /// Before resolving addresses of a sample of `pid`: a live machine
    /// reads the maps of a process it has not read yet from `/proc`.
    pub(super) fn prepare(&mut self, pid: i32) {
        let Some(live) = self.live.as_mut() else {
            return;
        };
        if pid <= 0 || !live.proc_read.insert(pid) {
            return;
        }
        let Ok(found) = self.dsos().proc_maps(pid) else {
            return;
        };
        let Some(maps) = self.process_maps_mut(pid) else {
            return;
        };
        // /proc's maps under those the records made (newer): the records'
        // maps are put back over them, cutting them as perf does.
        let recorded: Vec<Arc<Map>> = maps.iter().cloned().collect();
        for map in found.iter().chain(&recorded) {
            maps.insert(Arc::clone(map));
        }
    }
}

impl MachineRef {
    /// A live machine (see [`Machine::live`]) to share.
    pub fn live(dsos: Dsos) -> MachineRef {
        MachineRef::new(Machine::live(dsos))
    }

    /// Takes in a side-band record an evlist read (parsed with its
    /// evsel's layout; `bytes` is the record). Other records change
    /// nothing.
    pub fn process_live(&self, rec: &Record, bytes: &[u8]) {
        if is_side_band(rec.header.type_) {
            self.lock().process(rec, bytes);
        }
    }

    /// [`Machine::resolve`], a live machine first reading the process's
    /// maps from `/proc` if it has not yet.
    pub fn resolve(&self, pid: i32, tid: i32, cpumode: u8, addr: u64) -> AddrLocation {
        let mut m = self.lock();
        if u16::from(cpumode) & PERF_RECORD_MISC_CPUMODE_MASK != PERF_RECORD_MISC_KERNEL {
            m.prepare(pid);
        }
        m.resolve(pid, tid, cpumode, addr)
    }

    /// [`Machine::resolve_callchain`] of a sample's chain and its unwound
    /// `user` stack ([`Machine::sample_chain`]), after the same
    /// preparation.
    pub fn resolve_callchain(
        &self,
        pid: i32,
        tid: i32,
        chain: &[u64],
        user: Option<UserStack<'_>>,
    ) -> Vec<CallchainNode> {
        let mut m = self.lock();
        m.prepare(pid);
        let chain = m.sample_chain(pid, tid, chain, user);
        m.resolve_callchain(pid, tid, &chain)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Attr;
    use crate::record::{parse, ParseInfo};
    use crate::symbol::conf::SymbolConf;
    use crate::symbol::resolve::{CPUMODE_KERNEL, CPUMODE_USER};

    fn live() -> MachineRef {
        MachineRef::live(Dsos::new(SymbolConf::default()))
    }

    fn me() -> i32 {
        std::process::id() as i32
    }

    fn getpid_addr() -> u64 {
        libc::getpid as *const () as usize as u64
    }

    /// An MMAP2 record (no sample_id trailer) of `name` over `[start, start + len)`.
    fn mmap2(pid: i32, start: u64, len: u64, name: &str) -> Vec<u8> {
        let mut body: Vec<u8> = [pid, pid].iter().flat_map(|x| x.to_ne_bytes()).collect();
        for v in [start, len, 0] {
            body.extend_from_slice(&v.to_ne_bytes());
        }
        body.extend([0u32, 0].iter().flat_map(|x| x.to_ne_bytes()));
        body.extend_from_slice(&[0u8; 16]); // ino, ino_generation
        body.extend([5u32, 2].iter().flat_map(|x| x.to_ne_bytes()));
        body.extend_from_slice(name.as_bytes());
        body.push(0);
        while body.len() % 8 != 0 {
            body.push(0);
        }
        let mut r = PERF_RECORD_MMAP2.to_ne_bytes().to_vec();
        r.extend_from_slice(&2u16.to_ne_bytes()); // PERF_RECORD_MISC_USER
        r.extend_from_slice(&((8 + body.len()) as u16).to_ne_bytes());
        r.extend_from_slice(&body);
        r
    }

    /// A process running before the machine was made resolves through its
    /// `/proc/<pid>/maps`, read at its first resolution.
    #[test]
    fn proc_maps_fallback() {
        let m = live();
        let addr = getpid_addr();
        // No record named this process: without the fallback, no map.
        assert!(m
            .lock()
            .resolve(me(), me(), CPUMODE_USER, addr)
            .map
            .is_none());
        let al = m.resolve(me(), me(), CPUMODE_USER, addr);
        let name = al.symbol_name().unwrap_or_default().to_owned();
        assert!(name.contains("getpid"), "{name}");
        assert!(al.map.is_some_and(|m| m.dso().name().contains("libc")));
    }

    /// A map an MMAP2 record made is kept over what `/proc` says.
    #[test]
    fn records_before_proc_maps() {
        let m = live();
        let addr = getpid_addr();
        let r = mmap2(me(), addr & !0xfff, 0x1000, "/nonexistent/recorded.so");
        let info = ParseInfo::new(&Attr::default());
        m.process_live(&parse(&r, &info).expect("record"), &r);
        let al = m.resolve(me(), me(), CPUMODE_USER, addr);
        assert_eq!(
            al.map.map(|m| m.dso().name().to_owned()).as_deref(),
            Some("/nonexistent/recorded.so")
        );
        // Elsewhere in libc, /proc's map.
        let al = m.resolve(
            me(),
            me(),
            CPUMODE_USER,
            libc::write as *const () as usize as u64,
        );
        assert!(al.map.is_some_and(|m| m.dso().name().contains("libc")));
    }

    /// Kernel addresses resolve to `/proc/kallsyms` names.
    #[test]
    fn kernel_from_kallsyms() {
        let text = std::fs::read_to_string("/proc/kallsyms").unwrap_or_default();
        let Some((addr, name)) = text.lines().find_map(|l| {
            let mut f = l.split(' ');
            let (a, k, n) = (f.next()?, f.next()?, f.next()?);
            (k == "T" && n == "schedule").then(|| (u64::from_str_radix(a, 16).ok(), n))
        }) else {
            return; // no kallsyms here
        };
        let Some(addr) = addr.filter(|&a| a != 0) else {
            return; // addresses hidden (kptr_restrict)
        };
        let al = live().resolve(-1, -1, CPUMODE_KERNEL, addr + 1);
        assert_eq!(al.symbol_name(), Some(name));
        assert_eq!(
            al.map.map(|m| m.dso().name().to_owned()).as_deref(),
            Some("[kernel.kallsyms]")
        );
    }

    #[test]
    fn side_band_types() {
        assert!(is_side_band(PERF_RECORD_MMAP2) && is_side_band(PERF_RECORD_EXIT));
        assert!(!is_side_band(crate::record::PERF_RECORD_SAMPLE));
    }
}
