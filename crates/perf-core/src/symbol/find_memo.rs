// SPDX-License-Identifier: GPL-2.0-only
//! The last answers of a symbol table's tree walk
//! ([`Symbols::find_index`](super::symbols::Symbols::find_index)), by
//! address. A kernel's 122 000 kallsyms symbols make a tree of 17 levels
//! whose nodes and symbols are out of the CPU's caches: the walk was 11 % of
//! the CPU time of a stack collapser in Python (cpu-clock profile), where
//! call chains repeat the same return addresses; with the memo the collapser
//! takes 15 % less CPU time (docs/performance.md). The answer of an address
//! is the walk's, whatever it is (overlapping symbols included), and the
//! memo is emptied whenever the table changes.

use std::fmt;
use std::sync::Mutex;

/// Direct-mapped slots (16 bytes each), allocated at the first lookup.
const SLOTS: usize = 4096;
const SHIFT: u32 = 64 - SLOTS.trailing_zeros();
/// `answer` of a slot that holds nothing.
const EMPTY: u32 = u32::MAX - 1;
/// `answer` of an address the walk found no symbol for.
const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
struct Slot {
    ip: u64,
    answer: u32,
}

const VACANT: Slot = Slot {
    ip: 0,
    answer: EMPTY,
};

/// See the module's doc.
#[derive(Default)]
pub(crate) struct FindMemo(Mutex<Vec<Slot>>);

impl FindMemo {
    /// The answer for `ip`: remembered, else `walk()`'s, remembered. Walks
    /// without remembering when another thread holds the memo.
    pub(crate) fn get_or(&self, ip: u64, walk: impl FnOnce() -> Option<u32>) -> Option<u32> {
        let Ok(mut slots) = self.0.try_lock() else {
            return walk();
        };
        if slots.is_empty() {
            slots.resize(SLOTS, VACANT);
        }
        let i = (ip.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> SHIFT) as usize;
        let Some(slot) = slots.get_mut(i) else {
            return walk();
        };
        if slot.answer != EMPTY && slot.ip == ip {
            return (slot.answer != NONE).then_some(slot.answer);
        }
        let found = walk();
        // Indexes are below u32::MAX - 1: a table holds fewer symbols.
        if found.is_none_or(|n| n < EMPTY) {
            *slot = Slot {
                ip,
                answer: found.unwrap_or(NONE),
            };
        }
        found
    }

    /// Forgets every answer (the table changed).
    pub(crate) fn clear(&mut self) {
        self.0.get_mut().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

impl Clone for FindMemo {
    fn clone(&self) -> Self {
        FindMemo::default()
    }
}

impl fmt::Debug for FindMemo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FindMemo")
    }
}
