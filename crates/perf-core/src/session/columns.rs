// SPDX-License-Identifier: GPL-2.0-only
//! The columns a perf.data file's columnar reader adds to the sample
//! members (which come from [`record::MEMBERS`](crate::record::MEMBERS)):
//! call chains as offsets into one flat column of raw ips, and the DSO and
//! symbol of each sample's ip and of each frame, dictionary-encoded (a
//! `u32` per value, indexing one table of names per session).
//!
//! | column | one per | what |
//! |---|---|---|
//! | `callchain_offsets` | sample, plus one | sample *i*'s frames are `callchain_ips[offsets[i]..offsets[i + 1]]` (the first offset is 0) |
//! | `callchain_ips` | frame | the raw ips, leaf first, as [`callchain_frames`] walks the chain |
//! | `dso`, `symbol` | sample | the names of the sample ip's DSO and symbol (perf's `machine__resolve`) |
//! | `callchain_dso`, `callchain_symbol` | frame | the same for each frame (perf's `thread__resolve_callchain`) |
//!
//! A batch is cleared and refilled, so memory is one batch's, whatever
//! the file's size; the [`Names`] table grows with the distinct names
//! only.

use std::collections::HashMap;

use super::Event;
use crate::symbol::callchain::{callchain_frames, PERF_MAX_STACK_DEPTH};
use crate::symbol::resolve::AddrLocation;

/// The names of DSOs and symbols, each once, by index: index 0 is
/// `[unknown]`, what perf prints for an address without a map or a
/// symbol.
#[derive(Debug, Clone)]
pub struct Names {
    list: Vec<String>,
    index: HashMap<String, u32>,
}

impl Default for Names {
    fn default() -> Self {
        let mut n = Names {
            list: Vec::new(),
            index: HashMap::new(),
        };
        n.intern(UNKNOWN);
        n
    }
}

/// perf's name of what it could not resolve.
pub const UNKNOWN: &str = "[unknown]";

impl Names {
    /// The index of `name`, added if new.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        let i = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        self.list.push(name.to_owned());
        self.index.insert(name.to_owned(), i);
        i
    }

    /// Every name, by index.
    pub fn list(&self) -> &[String] {
        &self.list
    }

    /// The index of a location's DSO name (perf's long name, as the
    /// Python session's `show_kernel_path` shows it) and of its symbol's.
    fn of(&mut self, al: &AddrLocation) -> (u32, u32) {
        let dso = al.map.as_ref().map_or(0, |m| self.intern(m.dso_name(true)));
        let sym = al.symbol_name().map_or(0, |s| self.intern(s));
        (dso, sym)
    }
}

/// Which of the file columns a batch fills.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Wanted {
    /// `callchain_offsets` and `callchain_ips`.
    pub callchain: bool,
    /// `dso` and `symbol`.
    pub resolved: bool,
    /// `callchain_dso` and `callchain_symbol`.
    pub resolved_callchain: bool,
}

/// One batch of the file columns (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct FileColumns {
    /// What is filled.
    pub wanted: Wanted,
    /// One more than there are samples (when call chains are wanted).
    pub callchain_offsets: Vec<u64>,
    /// The frames' raw ips, leaf first.
    pub callchain_ips: Vec<u64>,
    /// Per sample, the [`Names`] index of its ip's DSO.
    pub dso: Vec<u32>,
    /// Per sample, the [`Names`] index of its ip's symbol.
    pub symbol: Vec<u32>,
    /// Per frame, the [`Names`] index of its DSO.
    pub callchain_dso: Vec<u32>,
    /// Per frame, the [`Names`] index of its symbol.
    pub callchain_symbol: Vec<u32>,
}

impl FileColumns {
    /// Empty columns for `wanted`.
    pub fn new(wanted: Wanted) -> Self {
        let mut c = FileColumns {
            wanted,
            ..FileColumns::default()
        };
        c.clear();
        c
    }

    /// Empties the columns for the next batch.
    pub fn clear(&mut self) {
        self.callchain_offsets.clear();
        if self.wanted.callchain || self.wanted.resolved_callchain {
            self.callchain_offsets.push(0);
        }
        self.callchain_ips.clear();
        self.dso.clear();
        self.symbol.clear();
        self.callchain_dso.clear();
        self.callchain_symbol.clear();
    }

    /// Appends a sample: its call chain's frames, and what its ip and its
    /// frames resolve to (loading the DSOs' symbols on first use).
    pub fn push(&mut self, ev: &Event<'_>, names: &mut Names) {
        let w = self.wanted;
        if !(w.callchain || w.resolved || w.resolved_callchain) {
            return;
        }
        let s = &ev.record.sample;
        let frames = callchain_frames(&s.callchain, PERF_MAX_STACK_DEPTH);
        if !(w.resolved || w.resolved_callchain) {
            self.callchain_ips.extend(frames.map(|(_, ip)| ip));
            self.end_chain();
            return;
        }
        let machine = ev.machine.lock();
        let maps = machine.thread_maps(s.pid, s.tid);
        let dsos = machine.dsos();
        if w.resolved {
            let (dso, sym) = names.of(&dsos.thread_find_symbol(maps, ev.cpumode(), s.ip));
            self.dso.push(dso);
            self.symbol.push(sym);
        }
        if w.callchain || w.resolved_callchain {
            for (cpumode, ip) in frames {
                if w.callchain {
                    self.callchain_ips.push(ip);
                }
                if w.resolved_callchain {
                    let (dso, sym) = names.of(&dsos.thread_find_symbol(maps, cpumode, ip));
                    self.callchain_dso.push(dso);
                    self.callchain_symbol.push(sym);
                }
            }
            self.end_chain();
        }
    }

    /// Closes the sample's run of frames.
    fn end_chain(&mut self) {
        let frames = self.callchain_ips.len().max(self.callchain_dso.len());
        self.callchain_offsets
            .push(u64::try_from(frames).unwrap_or(u64::MAX));
    }
}
