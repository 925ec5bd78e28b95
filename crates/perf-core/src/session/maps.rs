// SPDX-License-Identifier: GPL-2.0-only
//! The memory maps of a process (perf's `struct maps` of `struct map`),
//! from MMAP and MMAP2 records, kept as the records say them: symbol
//! resolution decides what file (dso) a map stands for.

use std::collections::BTreeMap;
use std::sync::Arc;

/// What an MMAP2 record says identifies the mapped file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MapFile {
    /// An MMAP record: nothing beyond the name.
    Unknown,
    /// Device and inode (`maj`, `min`, `ino`, `ino_generation`).
    Inode {
        /// `maj`.
        maj: u32,
        /// `min`.
        min: u32,
        /// `ino`.
        ino: u64,
        /// `ino_generation`.
        ino_generation: u64,
    },
    /// The build id (`PERF_RECORD_MISC_MMAP_BUILD_ID`).
    BuildId(Vec<u8>),
}

/// One mapping: perf's `struct map` before a dso is attached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Map {
    /// First address.
    pub start: u64,
    /// One past the last address.
    pub end: u64,
    /// Offset in the file of `start`.
    pub pgoff: u64,
    /// The file name as recorded (`/usr/lib/…`, `[vdso]`, `//anon`,
    /// `[kernel.kallsyms]_text`…).
    pub filename: Arc<str>,
    /// Device/inode or build id.
    pub file: MapFile,
    /// `PROT_*` (MMAP records: `PROT_EXEC` unless `PERF_RECORD_MISC_MMAP_DATA`).
    pub prot: u32,
    /// `MAP_*`.
    pub flags: u32,
    /// The record's `header.misc` (its cpumode says user or kernel).
    pub misc: u16,
}

impl Map {
    /// The file offset of `addr` (perf's `map__map_ip` for file maps).
    pub fn map_ip(&self, addr: u64) -> u64 {
        addr.wrapping_sub(self.start).wrapping_add(self.pgoff)
    }
}

/// A set of non-overlapping maps, ordered by start.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Maps {
    by_start: BTreeMap<u64, Arc<Map>>,
}

impl Maps {
    /// No maps.
    pub(crate) const EMPTY: Maps = Maps {
        by_start: BTreeMap::new(),
    };

    /// The map holding `addr` (perf's `maps__find`).
    pub fn find(&self, addr: u64) -> Option<&Arc<Map>> {
        self.by_start
            .range(..=addr)
            .next_back()
            .map(|(_, m)| m)
            .filter(|m| addr < m.end)
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

    /// Inserts `map`, first cutting out of the existing maps what it
    /// covers (perf's `maps__fixup_overlappings` then `maps__insert`): a
    /// map it overlaps keeps its part before `map.start` and its part after
    /// `map.end` (with `pgoff` moved along).
    pub fn insert(&mut self, map: Map) {
        let (start, end) = (map.start, map.end);
        let overlapping: Vec<u64> = self
            .by_start
            .range(..end)
            .rev()
            .take_while(|(_, m)| m.end > start)
            .map(|(&s, _)| s)
            .collect();
        for s in overlapping {
            let Some(old) = self.by_start.remove(&s) else {
                continue;
            };
            if old.start < start {
                let mut before = Map::clone(&old);
                before.end = start;
                self.by_start.insert(before.start, Arc::new(before));
            }
            if end < old.end {
                let mut after = Map::clone(&old);
                after.pgoff = after.pgoff.wrapping_add(end - old.start);
                after.start = end;
                self.by_start.insert(after.start, Arc::new(after));
            }
        }
        self.by_start.insert(start, Arc::new(map));
    }

    /// Removes the map starting at `start` (KSYMBOL unregister).
    pub(crate) fn remove(&mut self, start: u64) {
        self.by_start.remove(&start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(start: u64, end: u64, pgoff: u64, name: &str) -> Map {
        Map {
            start,
            end,
            pgoff,
            filename: name.into(),
            file: MapFile::Unknown,
            prot: 5,
            flags: 2,
            misc: 2,
        }
    }

    #[test]
    fn overlaps_are_cut_as_perf_does() {
        let mut m = Maps::default();
        m.insert(map(0x1000, 0x5000, 0, "a"));
        m.insert(map(0x6000, 0x7000, 0x100, "b"));
        assert_eq!(m.find(0x4fff).map(|m| &*m.filename), Some("a"));
        assert!(m.find(0x5000).is_none());
        assert!(m.find(0xfff).is_none());
        // A map in the middle of "a" splits it.
        m.insert(map(0x2000, 0x3000, 0, "c"));
        let got: Vec<_> = m
            .iter()
            .map(|m| (m.start, m.end, m.pgoff, m.filename.to_string()))
            .collect();
        assert_eq!(
            got,
            [
                (0x1000, 0x2000, 0, "a".into()),
                (0x2000, 0x3000, 0, "c".into()),
                (0x3000, 0x5000, 0x2000, "a".into()),
                (0x6000, 0x7000, 0x100, "b".into()),
            ]
        );
        // One covering several replaces them.
        m.insert(map(0x1800, 0x6800, 0, "d"));
        let got: Vec<_> = m
            .iter()
            .map(|m| (m.start, m.end, m.pgoff, m.filename.to_string()))
            .collect();
        assert_eq!(
            got,
            [
                (0x1000, 0x1800, 0, "a".into()),
                (0x1800, 0x6800, 0, "d".into()),
                (0x6800, 0x7000, 0x900, "b".into())
            ]
        );
        assert_eq!(m.find(0x6900).map(|m| m.map_ip(0x6900)), Some(0xa00));
    }
}
