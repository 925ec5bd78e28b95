// SPDX-License-Identifier: GPL-2.0-only
//! A memo of resolved call chains: many samples share a stack, and
//! resolving one (a map and a symbol lookup per frame) costs more than
//! finding it again. An answer is kept under what determines it:
//!
//! * the chain's words as recorded (`PERF_CONTEXT_*` markers included);
//! * the stamp of the maps the sample's thread sees ([`Maps::stamp`]: a
//!   new one at every change of them, an MMAP over the same address
//!   included), so a process that maps something else, execs or forks
//!   finds its chains anew;
//! * as the memo's epoch, the stamp of the DSOs ([`Dsos::stamp`]: a symbol
//!   table loaded, a kernel map or BPF program added or removed): the
//!   memo is emptied when it changes.
//!
//! An answer found while one of those changed is not kept, so the memo's
//! answers are always the ones resolving again would give. What the memo
//! keeps with each chain (`V`) is its user's: the Python session keeps its
//! `perf.callchain` object.
//!
//! [`Maps::stamp`]: crate::symbol::map::Maps::stamp
//! [`Dsos::stamp`]: crate::symbol::Dsos::stamp

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::evlist::IdHasher;
use super::machine::{Machine, MachineRef};
use crate::symbol::callchain::{CallchainNode, SampleChain};
use crate::symbol::unwind::UserStack;

// Every sample's chain is hashed: SipHash was 11 % of reading the
// columnar `callchain` (cpu-clock profile, the 1 M-sample file of
// benchmarks/perf_data_symbols.py).
type Fast = BuildHasherDefault<IdHasher>;

/// See the module's documentation.
#[derive(Debug)]
pub struct CallchainMemo<V> {
    epoch: u64,
    capacity: usize,
    entries: HashMap<Box<[u64]>, V, Fast>,
    /// The key being looked up: the maps' stamp, then the chain.
    key: Vec<u64>,
}

impl<V> Default for CallchainMemo<V> {
    fn default() -> Self {
        CallchainMemo::with_capacity(Self::CAPACITY)
    }
}

/// What [`MachineRef::resolve_callchain_memo`] found.
#[derive(Debug)]
pub enum Lookup<'m, V> {
    /// What was kept for the same chain in the same address space.
    Hit(&'m V),
    /// Resolved now: give the user's value to [`CallchainMemo::insert`].
    Miss(Resolved),
}

/// A chain resolved on a miss.
#[derive(Debug)]
pub struct Resolved {
    /// The frames, as [`super::Machine::resolve_callchain`] gives them.
    pub nodes: Vec<CallchainNode>,
    /// Where to keep it.
    pub pending: Pending,
}

/// Where to keep the answer for a chain not found: the epoch and key it
/// was looked up under, `None` once something it depends on changed
/// (a symbol table loaded while it was resolved).
#[derive(Debug)]
pub struct Pending(Option<(u64, Box<[u64]>)>);

impl Pending {
    /// Itself if the DSOs of `m` are still those it was looked up
    /// against, else one that keeps nothing: call it, with the machine
    /// still locked, once the chain is resolved.
    #[must_use]
    pub fn unchanged(self, m: &Machine) -> Pending {
        match self.0 {
            Some((epoch, _)) if epoch != m.dsos().stamp() => Pending(None),
            kept => Pending(kept),
        }
    }
}

impl<V> CallchainMemo<V> {
    /// At most this many chains are kept by default; the memo is emptied
    /// when a new one would make more. On the 1 M-sample file of
    /// docs/performance.md (101 000 distinct chains and address spaces, a
    /// process's samples close in time) 4096 finds 86 % of the samples'
    /// chains (8192: 88 %, no bound: 90.5 %) for 6 MiB of peak RSS with
    /// the Python objects (8192: 12 MiB), and the collapser's CPU time is
    /// no different.
    pub const CAPACITY: usize = 4096;

    /// An empty memo that keeps at most `capacity` chains.
    pub fn with_capacity(capacity: usize) -> Self {
        CallchainMemo {
            epoch: 0,
            capacity,
            entries: HashMap::default(),
            key: Vec::new(),
        }
    }

    /// How many chains are kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if none is.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// What is kept for `chain` of a sample of `pid`/`tid` in `m`, else
    /// where to keep what it resolves to (see [`Pending::unchanged`]).
    pub fn get(
        &mut self,
        m: &Machine,
        pid: i32,
        tid: i32,
        chain: &SampleChain<'_>,
    ) -> Result<&V, Pending> {
        let epoch = m.dsos().stamp();
        if epoch != self.epoch {
            self.entries.clear();
            self.epoch = epoch;
        }
        self.key.clear();
        self.key.push(m.thread_maps(pid, tid).stamp());
        // The recorded words' count keeps the two parts apart.
        self.key.push(chain.recorded.len() as u64);
        self.key.extend_from_slice(chain.recorded);
        self.key.extend_from_slice(&chain.unwound);
        if let Some(v) = self.entries.get(self.key.as_slice()) {
            return Ok(v);
        }
        Err(Pending(Some((epoch, self.key.clone().into_boxed_slice()))))
    }

    /// Keeps `value` for the chain of `pending` (unless it must not be
    /// kept, or the epoch changed since it was looked up).
    pub fn insert(&mut self, pending: Pending, value: V) {
        let Some((epoch, key)) = pending.0 else {
            return;
        };
        if epoch != self.epoch {
            return;
        }
        if self.entries.len() >= self.capacity {
            self.entries.clear();
        }
        self.entries.insert(key, value);
    }
}

impl MachineRef {
    /// [`super::Machine::resolve_callchain`] through `memo`: what it keeps
    /// for the same chain in the same address space, else the chain
    /// resolved now (a live machine reads the process's maps first, as
    /// [`MachineRef::resolve_callchain`] does). A sample's `user` stack
    /// (`--call-graph dwarf`) is unwound first, and the chain is looked up
    /// with its frames ([`super::Machine::sample_chain`]).
    pub fn resolve_callchain_memo<'m, V>(
        &self,
        memo: &'m mut CallchainMemo<V>,
        pid: i32,
        tid: i32,
        chain: &[u64],
        user: Option<UserStack<'_>>,
    ) -> Lookup<'m, V> {
        let mut m = self.lock();
        m.prepare(pid);
        let chain = m.sample_chain(pid, tid, chain, user);
        match memo.get(&m, pid, tid, &chain) {
            Ok(v) => Lookup::Hit(v),
            Err(pending) => {
                let nodes = m.resolve_callchain(pid, tid, &chain);
                Lookup::Miss(Resolved {
                    nodes,
                    pending: pending.unchanged(&m),
                })
            }
        }
    }
}
