// SPDX-License-Identifier: GPL-2.0-only
//! The columnar reader's table of distinct resolved call chains (the
//! `callchain` column indexes it).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Arc;

use super::evlist::IdHasher;

// The session's hasher: the chains are looked up on each miss of the
// memo of raw chains (session/callchain_memo.rs).
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
