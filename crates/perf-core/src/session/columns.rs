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
//! | `callchain_ips` | frame | the raw ips, leaf first, as [`SampleChain::frames`] walks the chain (with the unwound user frames of `--call-graph dwarf` samples) |
//! | `dso`, `symbol` | sample | the names of the sample ip's DSO and symbol (perf's `machine__resolve`) |
//! | `callchain_dso`, `callchain_symbol` | frame | the same for each frame (perf's `thread__resolve_callchain`) |
//! | `comm` | sample | the name of the sample's thread's comm when the sample is delivered |
//! | `callchain` | sample | the index of the sample's resolved call chain in [`Callchains`] |
//!
//! A batch is cleared and refilled, so memory is one batch's, whatever
//! the file's size; the [`Names`] and [`Callchains`] tables grow with the
//! distinct names and call chains only, and the memo of raw chains
//! already resolved ([`CallchainMemo`]) holds at most
//! [`CallchainMemo::CAPACITY`] chains.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use super::evlist::IdHasher;
use super::{Event, Machine};
pub use crate::session::callchains::Callchains;
use crate::session::CallchainMemo;
use crate::symbol::callchain::{SampleChain, PERF_MAX_STACK_DEPTH};
use crate::symbol::dso::{Dso, DsoSymbols};
use crate::symbol::resolve::{AddrLocation, SymbolRef};

/// The names of DSOs and symbols, each once, by index: index 0 is
/// `[unknown]`, what perf prints for an address without a map or a
/// symbol.
///
/// Each DSO and symbol already seen is remembered by identity (the `Dso`,
/// the symbol table and the index in it, kept alive here so that no other
/// takes their address), so a name is hashed once per distinct DSO or
/// symbol, not once per frame. Hashing and comparing the names of every
/// frame was 30 % of `read_columns` with `callchain_symbol` (cpu-clock
/// profile, the 1 M-sample file of benchmarks/perf_data_symbols.py); with
/// the memo reading that file's `sample_pid`, `sample_tid` and
/// `callchain_symbol` takes 15 % fewer instructions (callgrind: 5.00 G
/// against 5.87 G) and 12 % less CPU time (medians of 5 alternated runs:
/// 0.57 s against 0.64 s).
#[derive(Debug)]
pub struct Names {
    list: Vec<String>,
    index: HashMap<String, u32>,
    /// The slot in `symbols` of each table seen, by address.
    tables: HashMap<usize, usize, Fast>,
    /// Each table seen, and by symbol index the name's index (`NOT_SEEN`
    /// for a symbol not met yet).
    symbols: Vec<(Arc<DsoSymbols>, Vec<u32>)>,
    /// The name's index of each DSO seen, by address, and the DSO.
    dsos: HashMap<usize, (Arc<Dso>, u32), Fast>,
    /// The name's index of each comm seen, by address, and the comm.
    comms: HashMap<usize, (Arc<str>, u32), Fast>,
}

const NOT_SEEN: u32 = u32::MAX;

// Looked up for every frame and sample: with SipHash these look-ups were
// 10 % of reading `comm` and `callchain` (cpu-clock profile, the 1 M-sample
// file of benchmarks/perf_data_symbols.py).
type Fast = BuildHasherDefault<IdHasher>;

impl Default for Names {
    fn default() -> Self {
        let mut n = Names {
            list: Vec::new(),
            index: HashMap::new(),
            tables: HashMap::default(),
            symbols: Vec::new(),
            dsos: HashMap::default(),
            comms: HashMap::default(),
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
        let dso = al.map.as_ref().map_or(0, |m| self.dso(m.dso()));
        let sym = al.sym.as_ref().map_or(0, |s| self.symbol(s));
        (dso, sym)
    }

    /// The index of a DSO's long name.
    fn dso(&mut self, dso: &Arc<Dso>) -> u32 {
        let key = Arc::as_ptr(dso) as usize;
        if let Some((_, i)) = self.dsos.get(&key) {
            return *i;
        }
        let i = self.intern(dso.long_name());
        self.dsos.insert(key, (Arc::clone(dso), i));
        i
    }

    /// The index of the comm thread `tid` has now (perf's
    /// `thread__comm_str`, what `find_thread(pid, tid).comm()` gives), or
    /// of perf's `:<tid>` for a thread the records never named (the
    /// placeholder perf's `machine__findnew_thread` gives it).
    fn comm(&mut self, machine: &Machine, pid: i32, tid: i32) -> u32 {
        let Some(comm) = machine.find_thread(pid, tid).and_then(|t| t.comms().last()) else {
            return self.intern(&format!(":{tid}"));
        };
        let key = Arc::as_ptr(&comm.comm).cast::<u8>() as usize;
        if let Some((_, i)) = self.comms.get(&key) {
            return *i;
        }
        let i = self.intern(&comm.comm);
        self.comms.insert(key, (Arc::clone(&comm.comm), i));
        i
    }

    /// The index of a symbol's name.
    fn symbol(&mut self, sym: &SymbolRef) -> u32 {
        let (table, at) = sym.key();
        let key = Arc::as_ptr(table) as usize;
        let slot = match self.tables.get(&key) {
            Some(&slot) => slot,
            None => {
                self.symbols.push((Arc::clone(table), Vec::new()));
                self.tables.insert(key, self.symbols.len() - 1);
                self.symbols.len() - 1
            }
        };
        let at = at as usize;
        if let Some(&i) = self.symbols.get(slot).and_then(|(_, seen)| seen.get(at)) {
            if i != NOT_SEEN {
                return i;
            }
        }
        let i = self.intern(sym.name());
        if let Some((_, seen)) = self.symbols.get_mut(slot) {
            if seen.len() <= at {
                seen.resize(at + 1, NOT_SEEN);
            }
            if let Some(s) = seen.get_mut(at) {
                *s = i;
            }
        }
        i
    }
}

/// The distinct call chains and the memo of them by raw chain.
#[derive(Debug, Default)]
pub struct Chains {
    /// The distinct resolved chains (the `callchain` column's table).
    pub table: Callchains,
    /// The raw chains met, by address space, with their index in `table`
    /// (the per-sample memo's capacity: with 64 Ki chains reading this
    /// column took 1.4 % fewer instructions, callgrind on the 1 M-sample
    /// file of benchmarks/perf_data_symbols.py, for 7 MiB more peak RSS).
    pub memo: CallchainMemo<u32>,
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
    /// `comm`.
    pub comm: bool,
    /// `callchain` (the index in [`Callchains`]).
    pub distinct_callchain: bool,
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
    /// Per sample, the [`Names`] index of its thread's comm.
    pub comm: Vec<u32>,
    /// Per sample, the [`Callchains`] index of its resolved call chain.
    pub callchain: Vec<u32>,
    /// The frames of the sample being read (for `callchain`).
    frames: Vec<(u32, u32)>,
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
        self.comm.clear();
        self.callchain.clear();
    }

    /// Appends a sample: its call chain's frames, what its ip and its
    /// frames resolve to (loading the DSOs' symbols on first use), its
    /// thread's comm.
    pub fn push(&mut self, ev: &Event<'_>, names: &mut Names, chains: &mut Chains) {
        let w = self.wanted;
        let resolving = w.resolved || w.resolved_callchain || w.distinct_callchain;
        if !(w.callchain || resolving || w.comm) {
            return;
        }
        let s = &ev.record.sample;
        let machine = ev.machine.lock();
        if w.comm {
            self.comm.push(names.comm(&machine, s.pid, s.tid));
        }
        // The user frames of a `--call-graph dwarf` sample are unwound
        // only for a column that shows frames.
        let chain = if w.callchain || w.resolved_callchain || w.distinct_callchain {
            machine.sample_chain(s.pid, s.tid, &s.callchain, ev.user_stack())
        } else {
            SampleChain::recorded(&s.callchain)
        };
        let frames = chain.frames(PERF_MAX_STACK_DEPTH);
        if w.callchain {
            let ips = chain.frames(PERF_MAX_STACK_DEPTH);
            self.callchain_ips.extend(ips.map(|(_, ip)| ip));
        }
        if !resolving {
            if w.callchain {
                self.end_chain();
            }
            return;
        }
        let maps = machine.thread_maps(s.pid, s.tid);
        let dsos = machine.dsos();
        if w.resolved {
            let (dso, sym) = names.of(&dsos.thread_find_symbol(maps, ev.cpumode(), s.ip));
            self.dso.push(dso);
            self.symbol.push(sym);
        }
        if !(w.resolved_callchain || w.distinct_callchain) {
            if w.callchain {
                self.end_chain();
            }
            return;
        }
        let index = match chains.memo.get(&machine, s.pid, s.tid, &chain) {
            Ok(&i) => i,
            Err(pending) => {
                self.frames.clear();
                for (cpumode, ip) in frames {
                    self.frames
                        .push(names.of(&dsos.thread_find_symbol(maps, cpumode, ip)));
                }
                let i = chains.table.intern(&self.frames);
                chains.memo.insert(pending.unchanged(&machine), i);
                i
            }
        };
        if w.resolved_callchain {
            let chain = chains.table.get(index);
            self.callchain_dso.extend(chain.iter().map(|f| f.0));
            self.callchain_symbol.extend(chain.iter().map(|f| f.1));
        }
        if w.callchain || w.resolved_callchain {
            self.end_chain();
        }
        if w.distinct_callchain {
            self.callchain.push(index);
        }
    }

    /// Closes the sample's run of frames.
    fn end_chain(&mut self) {
        let frames = self.callchain_ips.len().max(self.callchain_dso.len());
        self.callchain_offsets
            .push(u64::try_from(frames).unwrap_or(u64::MAX));
    }
}
