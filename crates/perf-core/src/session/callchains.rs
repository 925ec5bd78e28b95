// SPDX-License-Identifier: GPL-2.0-only
//! The columnar reader's table of distinct resolved call chains (the
//! `callchain` column indexes it), and its memo of the chain each raw
//! call chain of a process resolved to, so that a chain met again is
//! hashed once instead of resolved frame by frame.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use super::evlist::IdHasher;
use crate::perf_data::abi::{
    PERF_RECORD_FINISHED_ROUND, PERF_RECORD_MISC_GUEST_KERNEL, PERF_RECORD_MISC_KERNEL,
};
use crate::record::{
    Body, Record, PERF_RECORD_AUX, PERF_RECORD_CGROUP, PERF_RECORD_ITRACE_START, PERF_RECORD_LOST,
    PERF_RECORD_LOST_SAMPLES, PERF_RECORD_MISC_CPUMODE_MASK, PERF_RECORD_NAMESPACES,
    PERF_RECORD_READ, PERF_RECORD_SAMPLE, PERF_RECORD_SWITCH, PERF_RECORD_SWITCH_CPU_WIDE,
    PERF_RECORD_THROTTLE, PERF_RECORD_UNTHROTTLE,
};

// Hashing every sample's chain with SipHash was 11 % of reading the
// `callchain` column (cpu-clock profile, the 1 M-sample file of
// benchmarks/perf_data_symbols.py); see the measure in docs/performance.md.
type Fast = BuildHasherDefault<IdHasher>;

/// The distinct resolved call chains, each once, by index: a chain is its
/// frames' [`Names`](super::columns::Names) indexes of DSO and symbol,
/// leaf first (what `callchain_dso` and `callchain_symbol` give for a
/// sample of it). Index 0 is the empty chain.
#[derive(Debug)]
pub struct Callchains {
    list: Vec<Arc<[(u32, u32)]>>,
    index: HashMap<Arc<[(u32, u32)]>, u32, Fast>,
}

impl Default for Callchains {
    fn default() -> Self {
        let mut c = Callchains {
            list: Vec::new(),
            index: HashMap::default(),
        };
        c.intern(&[]);
        c
    }
}

impl Callchains {
    /// The index of `frames`, added if new.
    pub fn intern(&mut self, frames: &[(u32, u32)]) -> u32 {
        if let Some(&i) = self.index.get(frames) {
            return i;
        }
        let i = u32::try_from(self.list.len()).unwrap_or(u32::MAX);
        let chain: Arc<[(u32, u32)]> = frames.into();
        self.list.push(Arc::clone(&chain));
        self.index.insert(chain, i);
        i
    }

    /// The frames of chain `i` (empty for an index never given).
    pub fn get(&self, i: u32) -> &[(u32, u32)] {
        self.list.get(i as usize).map_or(&[], |c| c)
    }

    /// Every chain's frames, by index.
    pub fn list(&self) -> &[Arc<[(u32, u32)]>] {
        &self.list
    }
}

/// By process, the [`Callchains`] index each raw `PERF_SAMPLE_CALLCHAIN`
/// (its words, markers included) resolved to. A process's entries are
/// forgotten when a record changes what its addresses resolve to (its
/// MMAP, MMAP2, COMM, FORK, EXIT), all of them at any record that may
/// change the kernel's maps or the DSOs (a kernel MMAP, KSYMBOL, a build
/// id, a record this list does not know), and when it holds
/// [`ChainMemo::LIMIT`] chains (memory stays bounded whatever the file).
/// The session's records all go through the reader that keeps the memo:
/// `process_events()` after `read_columns()` reads to the end, and
/// nothing reads after it.
#[derive(Debug, Default)]
pub struct ChainMemo {
    by_pid: HashMap<i32, HashMap<Box<[u64]>, u32, Fast>, Fast>,
    len: usize,
}

impl ChainMemo {
    /// The most raw chains remembered: 64 Ki, a few MiB.
    pub const LIMIT: usize = 1 << 16;

    /// The chain `raw` of process `pid` resolved to, if it was met since
    /// the process's maps last changed.
    pub fn get(&self, pid: i32, raw: &[u64]) -> Option<u32> {
        self.by_pid.get(&pid)?.get(raw).copied()
    }

    /// Remembers that `raw` of process `pid` resolved to chain `index`.
    pub fn insert(&mut self, pid: i32, raw: &[u64], index: u32) {
        if self.len >= Self::LIMIT {
            self.clear();
        }
        let chains = self.by_pid.entry(pid).or_default();
        if chains.insert(raw.into(), index).is_none() {
            self.len += 1;
        }
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        self.by_pid.clear();
        self.len = 0;
    }

    /// Forgets what `record` may have changed (see the type's
    /// documentation).
    pub fn forget(&mut self, record: &Record) {
        let pid = match record.body {
            Body::Mmap { pid, .. } | Body::Mmap2 { pid, .. } | Body::Comm { pid, .. } => pid,
            Body::Task { pid, .. } => pid,
            _ => {
                if !KEEPS.contains(&record.header.type_) {
                    self.clear();
                }
                return;
            }
        };
        let kernel = matches!(
            record.header.misc & PERF_RECORD_MISC_CPUMODE_MASK,
            PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_GUEST_KERNEL
        );
        match i32::try_from(pid) {
            Ok(pid) if pid >= 0 && !kernel => {
                if let Some(chains) = self.by_pid.remove(&pid) {
                    self.len = self.len.saturating_sub(chains.len());
                }
            }
            _ => self.clear(),
        }
    }
}

/// Records that change no process's maps, the kernel's or the DSOs.
const KEEPS: [u32; 13] = [
    PERF_RECORD_SAMPLE,
    PERF_RECORD_LOST,
    PERF_RECORD_THROTTLE,
    PERF_RECORD_UNTHROTTLE,
    PERF_RECORD_READ,
    PERF_RECORD_AUX,
    PERF_RECORD_ITRACE_START,
    PERF_RECORD_LOST_SAMPLES,
    PERF_RECORD_SWITCH,
    PERF_RECORD_SWITCH_CPU_WIDE,
    PERF_RECORD_NAMESPACES,
    PERF_RECORD_CGROUP,
    PERF_RECORD_FINISHED_ROUND,
];
