// SPDX-License-Identifier: GPL-2.0-only
//! `struct map`: a mapped range of a DSO, and how addresses translate.
//!
//! `map_ip` turns a sampled address into the DSO's address space: for a
//! file mapping `ip - start + pgoff`, the offset in the file, which is
//! where perf puts user-space symbols (see `elf_syms.rs`); for anonymous
//! memory, JIT maps and the kernel loaded from kallsyms, the identity.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::build_id::BuildId;
use super::dso::{Dso, DsoId, DsoKind};

/// `PROT_EXEC`.
pub const PROT_EXEC: u32 = 0x4;
/// `MAP_HUGETLB`.
pub const MAP_HUGETLB: u32 = 0x40000;

/// What an MMAP or MMAP2 record says about a mapping: the input the
/// session's thread model gives to [`super::Dsos::map_new`].
#[derive(Debug, Clone, Copy)]
pub struct MapInfo<'a> {
    /// The process (`pid` of the record): names `/tmp/perf-<pid>.map`.
    pub pid: i32,
    /// First address.
    pub start: u64,
    /// Length.
    pub len: u64,
    /// File offset of `start`.
    pub pgoff: u64,
    /// The file name as recorded (`//anon`, `[vdso]`, a path, …).
    pub filename: &'a [u8],
    /// `prot` (MMAP2). For a plain MMAP record, perf uses `PROT_EXEC`
    /// unless `PERF_RECORD_MISC_MMAP_DATA` is set in `header.misc`.
    pub prot: u32,
    /// `flags` (MMAP2), 0 for MMAP.
    pub flags: u32,
    /// Device and inode (MMAP2 without a build id).
    pub dso_id: Option<DsoId>,
    /// The build id in the record (MMAP2 with
    /// `PERF_RECORD_MISC_MMAP_BUILD_ID`).
    pub build_id: Option<BuildId>,
}

/// `is_anon_memory`.
pub(crate) fn is_anon_memory(name: &[u8]) -> bool {
    name == b"//anon" || name.starts_with(b"/dev/zero") || name.starts_with(b"/anon_hugepage")
}

/// `is_no_dso_memory`.
pub(crate) fn is_no_dso_memory(name: &[u8]) -> bool {
    name.starts_with(b"[stack") || name.starts_with(b"/SYSV") || name == b"[heap]"
}

/// `is_vdso_map`.
pub(crate) fn is_vdso_map(name: &[u8]) -> bool {
    name == b"[vdso]"
}

/// A mapping of (part of) a DSO.
#[derive(Debug, Clone)]
pub struct Map {
    start: u64,
    end: u64,
    pgoff: u64,
    identity: bool,
    dso: Arc<Dso>,
}

impl Map {
    /// A map of `[start, end)` at file offset `pgoff`; `identity` for
    /// `identity__map_ip` maps.
    pub fn new(start: u64, end: u64, pgoff: u64, identity: bool, dso: Arc<Dso>) -> Self {
        Map {
            start,
            end,
            pgoff,
            identity,
            dso,
        }
    }

    /// First address.
    pub fn start(&self) -> u64 {
        self.start
    }

    /// One past the last address.
    pub fn end(&self) -> u64 {
        self.end
    }

    /// The file offset of `start` (0 for the vDSO).
    pub fn pgoff(&self) -> u64 {
        self.pgoff
    }

    /// The mapped object.
    pub fn dso(&self) -> &Arc<Dso> {
        &self.dso
    }

    /// True if addresses are not translated (anonymous memory, JIT maps,
    /// the kernel loaded from kallsyms).
    pub fn is_identity(&self) -> bool {
        self.identity
    }

    /// `start <= addr < end`.
    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.start && addr < self.end
    }

    /// `map->map_ip`: a sampled address in the DSO's address space.
    pub fn map_ip(&self, ip: u64) -> u64 {
        if self.identity {
            ip
        } else {
            ip.wrapping_sub(self.start).wrapping_add(self.pgoff)
        }
    }

    /// `map->unmap_ip`: the inverse of [`Map::map_ip`].
    pub fn unmap_ip(&self, addr: u64) -> u64 {
        if self.identity {
            addr
        } else {
            addr.wrapping_add(self.start).wrapping_sub(self.pgoff)
        }
    }

    /// `map__rip_2objdump`: a map-relative address as objdump and addr2line
    /// see it (for user objects, `rip + (.text's sh_addr - sh_offset)`).
    /// Needs the DSO loaded; before that it returns `rip`.
    pub fn rip_2objdump(&self, rip: u64) -> u64 {
        let Some(l) = self.dso.loaded() else {
            return rip;
        };
        if !l.adjust_symbols {
            return rip;
        }
        if l.rel {
            return rip.wrapping_sub(self.pgoff);
        }
        if !self.dso.is_kernel() {
            return rip.wrapping_add(l.text_offset);
        }
        self.unmap_ip(rip)
    }

    /// A copy covering `[start, end)`, with `pgoff` moved along (the
    /// pieces `maps__fixup_overlappings` keeps of an overlapped map).
    pub fn with_range(&self, start: u64, end: u64) -> Map {
        let pgoff = if self.identity {
            self.pgoff
        } else {
            self.pgoff.wrapping_add(start.wrapping_sub(self.start))
        };
        Map {
            start,
            end,
            pgoff,
            identity: self.identity,
            dso: Arc::clone(&self.dso),
        }
    }

    /// What perf script's `dso` field shows (`map__fprintf_dsoname`):
    /// the long name with `show_kernel_path` (the Python session sets
    /// it), else the name.
    pub fn dso_name(&self, show_kernel_path: bool) -> &str {
        if show_kernel_path {
            self.dso.long_name()
        } else {
            self.dso.name()
        }
    }

    /// True for kernel and module maps.
    pub fn is_kernel(&self) -> bool {
        self.dso.is_kernel()
    }

    /// True for maps of memory that has no object.
    pub fn is_anon(&self) -> bool {
        self.dso.kind() == DsoKind::Anon
    }
}

/// A thread's (or the kernel's) maps: perf's `struct maps`, ordered by
/// start, never overlapping.
#[derive(Debug, Clone, Default)]
pub struct Maps {
    by_start: BTreeMap<u64, Arc<Map>>,
    /// A new [`super::next_stamp`] at every change (0: never changed, no
    /// maps); a copy keeps it, as it has the same maps.
    stamp: u64,
}

impl Maps {
    /// No maps.
    pub const EMPTY: Maps = Maps {
        by_start: BTreeMap::new(),
        stamp: 0,
    };

    /// Equal stamps are equal maps: the same ones, or a copy unchanged
    /// since (an address finds the same map in both).
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// `maps__find`: the map holding `addr`.
    pub fn find(&self, addr: u64) -> Option<&Arc<Map>> {
        self.by_start
            .range(..=addr)
            .next_back()
            .map(|(_, m)| m)
            .filter(|m| m.contains(addr))
    }

    /// The maps, by start.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Map>> {
        self.by_start.values()
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.by_start.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.by_start.is_empty()
    }

    /// `maps__fixup_overlappings` + `maps__insert`: the parts of older maps
    /// that `map` overlaps are cut away (what is left before and after it
    /// stays, `pgoff` moved along), then `map` goes in.
    pub fn insert(&mut self, map: Arc<Map>) {
        self.stamp = super::next_stamp();
        let (s, e) = (map.start(), map.end());
        let overlapping: Vec<u64> = self
            .by_start
            .range(..e)
            .rev()
            .take_while(|(_, m)| m.end() > s)
            .map(|(&start, _)| start)
            .collect();
        for start in overlapping {
            let Some(old) = self.by_start.remove(&start) else {
                continue;
            };
            if old.start() < s {
                self.by_start
                    .insert(old.start(), Arc::new(old.with_range(old.start(), s)));
            }
            if e < old.end() {
                self.by_start
                    .insert(e, Arc::new(old.with_range(e, old.end())));
            }
        }
        self.by_start.insert(s, map);
    }

    /// Removes the map starting at `start` (a BPF program unregistered).
    pub fn remove(&mut self, start: u64) {
        self.stamp = super::next_stamp();
        self.by_start.remove(&start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_ip_and_ranges() {
        let dso = Arc::new(Dso::new("/bin/x", DsoKind::User, DsoId::default()));
        let m = Map::new(0x5000, 0x9000, 0x1000, false, dso);
        assert_eq!(m.map_ip(0x5123), 0x1123);
        assert_eq!(m.unmap_ip(0x1123), 0x5123);
        let after = m.with_range(0x7000, 0x9000);
        assert_eq!(after.pgoff(), 0x3000);
        assert_eq!(after.map_ip(0x7010), m.map_ip(0x7010));
        assert!(is_anon_memory(b"//anon") && is_no_dso_memory(b"[heap]") && is_vdso_map(b"[vdso]"));
    }

    #[test]
    fn overlapping_maps_are_cut() {
        let dso = Arc::new(Dso::new("/bin/x", DsoKind::User, DsoId::default()));
        let mut maps = Maps::default();
        maps.insert(Arc::new(Map::new(
            0x1000,
            0x5000,
            0,
            false,
            Arc::clone(&dso),
        )));
        maps.insert(Arc::new(Map::new(
            0x2000,
            0x3000,
            0x9000,
            false,
            Arc::clone(&dso),
        )));
        let r: Vec<(u64, u64, u64)> = maps
            .iter()
            .map(|m| (m.start(), m.end(), m.pgoff()))
            .collect();
        assert_eq!(
            r,
            [
                (0x1000, 0x2000, 0),
                (0x2000, 0x3000, 0x9000),
                (0x3000, 0x5000, 0x2000)
            ]
        );
        assert_eq!(maps.find(0x2fff).map(|m| m.pgoff()), Some(0x9000));
        assert!(maps.find(0x5000).is_none());
        assert!(maps.find(0xfff).is_none());
        // One covering several replaces them; the ends are kept.
        maps.insert(Arc::new(Map::new(
            0x6000,
            0x7000,
            0x100,
            false,
            Arc::clone(&dso),
        )));
        maps.insert(Arc::new(Map::new(0x1800, 0x6800, 0, false, dso)));
        let r: Vec<(u64, u64, u64)> = maps
            .iter()
            .map(|m| (m.start(), m.end(), m.pgoff()))
            .collect();
        assert_eq!(
            r,
            [
                (0x1000, 0x1800, 0),
                (0x1800, 0x6800, 0),
                (0x6800, 0x7000, 0x900)
            ]
        );
        assert_eq!(maps.find(0x6900).map(|m| m.map_ip(0x6900)), Some(0xa00));
    }
}
