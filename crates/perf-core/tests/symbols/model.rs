// SPDX-License-Identifier: GPL-2.0-only
//! A minimal thread/map model for the tests (the session has the real
//! one): maps per process from MMAP records with perf's overlap fix-ups,
//! copied on fork, the kernel's from kernel-mode MMAPs.

use std::collections::HashMap;
use std::sync::Arc;

use perf_core::symbol::build_id::BuildId;
use perf_core::symbol::dso::DsoId;
use perf_core::symbol::map::{self, Map, MapInfo};
use perf_core::symbol::resolve::{ThreadMaps, CPUMODE_KERNEL, CPUMODE_MASK};
use perf_core::symbol::Dsos;

use super::dump::{Event, Mmap};

pub struct Machine {
    pub dsos: Dsos,
    procs: HashMap<i32, Vec<Arc<Map>>>,
}

pub struct ProcMaps<'a>(pub &'a [Arc<Map>]);

impl ThreadMaps for ProcMaps<'_> {
    fn find_map(&self, addr: u64) -> Option<Arc<Map>> {
        map::find(self.0, addr)
    }
}

impl Machine {
    pub fn new(dsos: Dsos) -> Self {
        Machine {
            dsos,
            procs: HashMap::new(),
        }
    }

    pub fn maps(&self, pid: i32) -> ProcMaps<'_> {
        ProcMaps(self.procs.get(&pid).map_or(&[][..], |v| &v[..]))
    }

    pub fn apply(&mut self, ev: &Event) {
        match ev {
            Event::Mmap(m) => self.mmap(m),
            Event::Fork { pid, ppid } => {
                if pid != ppid {
                    let parent = self.procs.get(ppid).cloned().unwrap_or_default();
                    let child = self.procs.entry(*pid).or_default();
                    for m in parent {
                        map::insert(child, m);
                    }
                }
            }
            Event::Sample { .. } => {}
        }
    }

    fn mmap(&mut self, m: &Mmap) {
        let bid = m.build_id.as_deref().and_then(BuildId::from_hex);
        let info = MapInfo {
            pid: m.pid,
            start: m.start,
            len: m.len,
            pgoff: m.pgoff,
            filename: m.filename.as_bytes(),
            prot: m.prot,
            flags: m.flags,
            dso_id: m.dev_ino.map(|(maj, min, ino, ino_generation)| DsoId {
                maj,
                min,
                ino,
                ino_generation,
            }),
            build_id: bid,
        };
        if (m.misc & CPUMODE_MASK) as u8 == CPUMODE_KERNEL {
            self.dsos.process_kernel_mmap(&info);
            return;
        }
        let map = self.dsos.map_new(&info);
        map::insert(self.procs.entry(m.pid).or_default(), map);
    }
}
