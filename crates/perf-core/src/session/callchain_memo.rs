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

use super::machine::MachineRef;
use crate::symbol::callchain::CallchainNode;

/// See the module's documentation.
#[derive(Debug)]
pub struct CallchainMemo<V> {
    epoch: u64,
    entries: HashMap<Box<[u64]>, V>,
    /// The key being looked up: the maps' stamp, then the chain.
    key: Vec<u64>,
}

impl<V> Default for CallchainMemo<V> {
    fn default() -> Self {
        CallchainMemo {
            epoch: 0,
            entries: HashMap::new(),
            key: Vec::new(),
        }
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
    /// The epoch and key to keep it under; `None` when something it
    /// depends on changed while it was resolved (a symbol table loaded).
    key: Option<(u64, Box<[u64]>)>,
}

impl<V> CallchainMemo<V> {
    /// At most this many chains are kept; the memo is emptied when a new
    /// one would make more. On the 1 M-sample file of docs/performance.md
    /// (101 000 distinct chains and address spaces, a process's samples
    /// close in time) 4096 finds 86 % of the samples' chains (8192: 88 %,
    /// no bound: 90.5 %) for 6 MiB of peak RSS with the Python objects
    /// (8192: 12 MiB), and the collapser's CPU time is no different.
    pub const CAPACITY: usize = 4096;

    /// How many chains are kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True if none is.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keeps `value` for the chain of `resolved` (unless it must not be
    /// kept, or the epoch changed since it was resolved).
    pub fn insert(&mut self, resolved: Resolved, value: V) {
        let Some((epoch, key)) = resolved.key else {
            return;
        };
        if epoch != self.epoch {
            return;
        }
        if self.entries.len() >= Self::CAPACITY {
            self.entries.clear();
        }
        self.entries.insert(key, value);
    }
}

impl MachineRef {
    /// [`super::Machine::resolve_callchain`] through `memo`: what it keeps
    /// for the same chain in the same address space, else the chain
    /// resolved now (a live machine reads the process's maps first, as
    /// [`MachineRef::resolve_callchain`] does).
    pub fn resolve_callchain_memo<'m, V>(
        &self,
        memo: &'m mut CallchainMemo<V>,
        pid: i32,
        tid: i32,
        chain: &[u64],
    ) -> Lookup<'m, V> {
        let mut m = self.lock();
        m.prepare(pid);
        let epoch = m.dsos().stamp();
        if epoch != memo.epoch {
            memo.entries.clear();
            memo.epoch = epoch;
        }
        memo.key.clear();
        memo.key.push(m.thread_maps(pid, tid).stamp());
        memo.key.extend_from_slice(chain);
        if let Some(v) = memo.entries.get(memo.key.as_slice()) {
            return Lookup::Hit(v);
        }
        let nodes = m.resolve_callchain(pid, tid, chain);
        let unchanged = m.dsos().stamp() == epoch;
        Lookup::Miss(Resolved {
            nodes,
            key: unchanged.then(|| (epoch, memo.key.clone().into_boxed_slice())),
        })
    }
}
