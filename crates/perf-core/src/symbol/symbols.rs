// SPDX-License-Identifier: GPL-2.0-only
//! A DSO's symbol table with perf's rules (tools/perf/util/symbol.c):
//! insertion into an rbtree by start address, `symbols__fixup_end` (a
//! zero-sized symbol ends where the next one starts),
//! `symbols__fixup_duplicate` (of symbols sharing a start, keep the one
//! `choose_best_symbol` prefers) and `symbols__find` (the tree walk).

use std::sync::OnceLock;

use super::demangle::demangle_sym;
use super::find_memo::FindMemo;
use super::rbtree::{RbTree, NIL};

/// `STB_LOCAL`.
pub const STB_LOCAL: u8 = 0;
/// `STB_GLOBAL`.
pub const STB_GLOBAL: u8 = 1;
/// `STB_WEAK`.
pub const STB_WEAK: u8 = 2;
/// `STT_OBJECT`.
pub const STT_OBJECT: u8 = 1;
/// `STT_FUNC`.
pub const STT_FUNC: u8 = 2;

/// One symbol, as perf's `struct symbol`: `[start, end)` in the DSO's
/// address space (file offsets for user ELF objects, see `map.rs`), the
/// name as perf shows it, and the ELF binding and type.
///
/// perf demangles every name when it loads a table; here a mangled name
/// is demangled the first time it is shown (or compared, for aliases at one
/// address), which gives the same names for a fraction of the work on
/// large C++ objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// First address.
    pub start: u64,
    /// One past the last address (perf's `end`); equal to `start` only for
    /// a zero-sized symbol that `fixup_end` could not extend.
    pub end: u64,
    /// `STB_*`.
    pub binding: u8,
    /// `STT_*`.
    pub kind: u8,
    name: Name,
}

/// A symbol's name: most names are shown as they are (16 bytes); a name
/// perf would demangle keeps its demangled form beside it once computed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Name {
    Plain(Box<str>),
    Mangled(Box<Mangled>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Mangled {
    raw: Box<str>,
    shown: OnceLock<Option<Box<str>>>,
}

/// Names the demanglers never change (`demangle_sym` returns nothing for
/// them): everything but C++ (`_Z`, `_GLOBAL_`), Rust (`_Z`, `_R`) and
/// OCaml (`caml`) names.
fn may_demangle(raw: &str) -> bool {
    raw.starts_with("_Z")
        || raw.starts_with("_R")
        || raw.starts_with("_GLOBAL_")
        || raw.starts_with("caml")
}

impl Symbol {
    /// `symbol__new` with the name as shown: a zero length makes
    /// `end == start`.
    pub fn new(start: u64, len: u64, binding: u8, kind: u8, name: &str) -> Self {
        Symbol {
            start,
            end: start.wrapping_add(len),
            binding,
            kind,
            name: Name::Plain(name.into()),
        }
    }

    /// A symbol whose name perf demangles (`demangle_sym` of a user-space
    /// ELF name).
    pub fn mangled(start: u64, len: u64, binding: u8, kind: u8, raw: &str) -> Self {
        let mut s = Symbol::new(start, len, binding, kind, raw);
        if may_demangle(raw) {
            s.name = Name::Mangled(Box::new(Mangled {
                raw: raw.into(),
                shown: OnceLock::new(),
            }));
        }
        s
    }

    /// The name perf shows.
    pub fn name(&self) -> &str {
        match &self.name {
            Name::Plain(n) => n,
            Name::Mangled(m) => m
                .shown
                .get_or_init(|| demangle_sym(&m.raw, false).map(String::into_boxed_str))
                .as_deref()
                .unwrap_or(&m.raw),
        }
    }

    /// The name in the symbol table (before demangling).
    pub fn raw_name(&self) -> &str {
        match &self.name {
            Name::Plain(n) => n,
            Name::Mangled(m) => &m.raw,
        }
    }

    /// Moves the symbol by `delta` (a relocated kernel, a module's base).
    pub(crate) fn with_range(mut self, start: u64, end: u64) -> Self {
        self.start = start;
        self.end = end;
        self
    }
}

/// Which of two symbols at one address perf keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    A,
    B,
}

fn prefix_underscores(name: &str) -> usize {
    name.bytes().take_while(|&b| b == b'_').count()
}

// choose_best_symbol, then x86's (the weak default)
// arch__choose_best_symbol.
fn choose_best(a: &Symbol, b: &Symbol) -> Choice {
    let (la, lb) = (a.end.wrapping_sub(a.start), b.end.wrapping_sub(b.start));
    if lb == 0 && la > 0 {
        return Choice::A;
    }
    if la == 0 && lb > 0 {
        return Choice::B;
    }
    let (wa, wb) = (a.binding == STB_WEAK, b.binding == STB_WEAK);
    if wb && !wa {
        return Choice::A;
    }
    if wa && !wb {
        return Choice::B;
    }
    let (ga, gb) = (a.binding == STB_GLOBAL, b.binding == STB_GLOBAL);
    if ga && !gb {
        return Choice::A;
    }
    if gb && !ga {
        return Choice::B;
    }
    // The same table entry twice (.symtab and .dynsym): equal names, so
    // no need to demangle them to compare.
    let same = a.name == b.name;
    if !same {
        let (ua, ub) = (prefix_underscores(a.name()), prefix_underscores(b.name()));
        if ub > ua {
            return Choice::A;
        }
        if ua > ub {
            return Choice::B;
        }
        match a.name().len().cmp(&b.name().len()) {
            std::cmp::Ordering::Greater => return Choice::A,
            std::cmp::Ordering::Less => return Choice::B,
            std::cmp::Ordering::Equal => {}
        }
    }
    // Avoid "SyS" kernel syscall aliases.
    if (!same || a.raw_name().contains("SyS"))
        && (a.name().starts_with("SyS") || a.name().starts_with("compat_SyS"))
    {
        return Choice::B;
    }
    Choice::A
}

/// `symbols__fixup_end` over symbols in the order `order` (perf's
/// in-order walk of its tree).
pub(crate) fn fixup_end(syms: &mut [Symbol], order: &[u32], is_kallsyms: bool) {
    let Some(&last) = order.last() else {
        return;
    };
    for pair in order.windows(2) {
        let [prev, curr] = [pair[0], pair[1]];
        let (curr_start, curr_module) = match syms.get(curr as usize) {
            Some(c) => (c.start, c.raw_name().contains('[')),
            None => continue,
        };
        if let Some(p) = syms.get_mut(prev as usize) {
            if p.end == p.start {
                p.end = if is_kallsyms && p.raw_name().contains('[') != curr_module {
                    roundup_page(p.end.wrapping_add(4096))
                } else {
                    curr_start
                };
            }
        }
    }
    if let Some(c) = syms.get_mut(last as usize) {
        if c.end == c.start {
            c.end = roundup_page(c.start).wrapping_add(4096);
        }
    }
}

/// `symbols__fixup_duplicate`'s victims, in the order perf erases them:
/// along each run of equal starts, the survivor meets the next symbol and
/// `choose_best_symbol` drops one of the two.
pub(crate) fn duplicate_losers(syms: &[Symbol], order: &[u32]) -> Vec<u32> {
    let mut losers = Vec::new();
    let mut it = order.iter().copied();
    let Some(mut curr) = it.next() else {
        return losers;
    };
    for next in it {
        let (Some(c), Some(n)) = (syms.get(curr as usize), syms.get(next as usize)) else {
            continue;
        };
        if c.start != n.start {
            curr = next;
        } else if choose_best(c, n) == Choice::A {
            losers.push(next);
        } else {
            losers.push(curr);
            curr = next;
        }
    }
    losers
}

/// `roundup(x, 4096)` in C's wrapping u64 arithmetic.
fn roundup_page(x: u64) -> u64 {
    x.wrapping_add(4095) & !4095
}

/// Tables this large remember their walks' answers ([`FindMemo`]); a
/// smaller one (at most 12 levels, 256 KiB of symbols and tree nodes) stays
/// in the CPU's caches and walks.
const MEMO_FROM: usize = 4096;

/// A DSO's symbols: perf's `dso->symbols` rbtree.
#[derive(Debug, Clone)]
pub struct Symbols {
    syms: Vec<Symbol>,
    tree: RbTree,
    len: usize,
    memo: FindMemo,
}

impl Default for Symbols {
    fn default() -> Self {
        Symbols::new()
    }
}

impl Symbols {
    /// No symbols.
    pub fn new() -> Self {
        Symbols {
            syms: Vec::new(),
            tree: RbTree::new(),
            len: 0,
            memo: FindMemo::default(),
        }
    }

    /// How many symbols are in the table.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when there is no symbol.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `symbols__insert`.
    pub fn insert(&mut self, sym: Symbol) {
        let start = sym.start;
        self.memo.clear();
        self.syms.push(sym);
        let syms = &self.syms;
        self.tree
            .insert(|e| syms.get(e as usize).is_some_and(|s| start < s.start));
        self.len += 1;
    }

    fn get(&self, n: u32) -> Option<&Symbol> {
        self.syms.get(n as usize)
    }

    fn erase(&mut self, n: u32) {
        self.memo.clear();
        self.tree.erase(n);
        self.len -= 1;
    }

    /// The symbols in address order.
    pub fn iter(&self) -> impl Iterator<Item = &Symbol> + '_ {
        self.tree.in_order().filter_map(|n| self.get(n))
    }

    /// The first symbol in address order (`dso__first_symbol`).
    pub fn first(&self) -> Option<&Symbol> {
        self.get(self.tree.first())
    }

    /// The last symbol in address order (`dso__last_symbol`).
    pub fn last(&self) -> Option<&Symbol> {
        self.get(self.tree.last())
    }

    /// `symbols__find`: walks the tree the way perf does, so overlapping
    /// symbols resolve to the one perf reports.
    pub fn find(&self, ip: u64) -> Option<&Symbol> {
        self.find_index(ip).and_then(|n| self.get(n))
    }

    /// [`Symbols::find`] as an index for [`Symbols::at`].
    pub fn find_index(&self, ip: u64) -> Option<u32> {
        if self.len < MEMO_FROM {
            return self.walk(ip);
        }
        self.memo.get_or(ip, || self.walk(ip))
    }

    /// perf's `symbols__find`: the tree walk.
    fn walk(&self, ip: u64) -> Option<u32> {
        let mut n = self.tree.root();
        while n != NIL {
            let s = self.get(n)?;
            if ip < s.start {
                n = self.tree.left(n);
            } else if ip > s.end || (ip == s.end && ip != s.start) {
                n = self.tree.right(n);
            } else {
                return Some(n);
            }
        }
        None
    }

    /// The symbol at an index [`Symbols::find_index`] gave.
    pub fn at(&self, index: u32) -> Option<&Symbol> {
        self.get(index)
    }

    /// `symbols__fixup_end`: a zero-sized symbol ends where the next one
    /// starts (in kallsyms, not across the kernel/module boundary, where it
    /// ends at the next page instead); a zero-sized last symbol gets the
    /// rest of its page and one more.
    pub fn fixup_end(&mut self, is_kallsyms: bool) {
        self.memo.clear();
        let order: Vec<u32> = self.tree.in_order().collect();
        fixup_end(&mut self.syms, &order, is_kallsyms);
    }

    /// `symbols__fixup_duplicate`: of the symbols that share a start, keep
    /// the one `choose_best_symbol` prefers (comparing in tree order, the
    /// survivor against the next), erasing the others in perf's order.
    pub fn fixup_duplicate(&mut self) {
        let order: Vec<u32> = self.tree.in_order().collect();
        for n in duplicate_losers(&self.syms, &order) {
            self.erase(n);
        }
    }

    /// A table of symbols already sorted by start, with perf's insertion
    /// order being this order (a kallsyms file after its fix-ups).
    pub fn from_sorted(syms: Vec<Symbol>) -> Self {
        let mut tree = RbTree::new();
        for s in &syms {
            let start = s.start;
            tree.insert(|e| syms.get(e as usize).is_some_and(|x| start < x.start));
        }
        let len = syms.len();
        Symbols {
            syms,
            tree,
            len,
            memo: FindMemo::default(),
        }
    }

    /// Moves every symbol out, in address order.
    pub fn into_sorted(self) -> Vec<Symbol> {
        let order: Vec<u32> = self.tree.in_order().collect();
        let mut slots: Vec<Option<Symbol>> = self.syms.into_iter().map(Some).collect();
        order
            .into_iter()
            .filter_map(|n| slots.get_mut(n as usize).and_then(Option::take))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sym(start: u64, len: u64, binding: u8, name: &str) -> Symbol {
        Symbol::new(start, len, binding, STT_FUNC, name)
    }

    #[test]
    fn duplicates_keep_perfs_choice() {
        // The libc case: __getppid and __GI___getppid are both local and
        // sized, getppid is weak: the longest name wins.
        let mut t = Symbols::new();
        t.insert(sym(0xd54f0, 8, STB_LOCAL, "__getppid"));
        t.insert(sym(0xd54f0, 8, STB_LOCAL, "__GI___getppid"));
        t.insert(sym(0xd54f0, 8, STB_WEAK, "getppid"));
        t.fixup_end(false);
        t.fixup_duplicate();
        assert_eq!(t.len(), 1);
        assert_eq!(
            t.find(0xd54f3).map(|s| s.name()).unwrap_or_default(),
            "__GI___getppid"
        );
        // Sized beats zero-sized; non-weak beats weak; global beats local;
        // fewer leading underscores; then the longer name; SyS loses.
        for (a, b, want) in [
            (sym(0, 0, STB_GLOBAL, "a"), sym(0, 4, STB_LOCAL, "b"), "b"),
            (sym(0, 4, STB_WEAK, "a"), sym(0, 4, STB_LOCAL, "b"), "b"),
            (sym(0, 4, STB_LOCAL, "a"), sym(0, 4, STB_GLOBAL, "b"), "b"),
            (
                sym(0, 4, STB_GLOBAL, "__a"),
                sym(0, 4, STB_GLOBAL, "_bb"),
                "_bb",
            ),
            (
                sym(0, 4, STB_GLOBAL, "ab"),
                sym(0, 4, STB_GLOBAL, "b"),
                "ab",
            ),
            (
                sym(0, 4, STB_GLOBAL, "SyS_x"),
                sym(0, 4, STB_GLOBAL, "sys_x"),
                "sys_x",
            ),
            (
                sym(0, 4, STB_GLOBAL, "ab"),
                sym(0, 4, STB_GLOBAL, "cd"),
                "ab",
            ),
        ] {
            let mut t = Symbols::new();
            t.insert(a);
            t.insert(b);
            t.fixup_duplicate();
            assert_eq!(t.iter().map(|s| s.name()).collect::<Vec<_>>(), [want]);
        }
    }

    #[test]
    fn zero_sized_symbols_end_at_the_next() {
        let mut t = Symbols::new();
        t.insert(sym(0x1000, 0, STB_GLOBAL, "a"));
        t.insert(sym(0x1010, 0x8, STB_GLOBAL, "b"));
        t.insert(sym(0x1020, 0, STB_GLOBAL, "c"));
        t.fixup_end(false);
        let ends: Vec<u64> = t.iter().map(|s| s.end).collect();
        assert_eq!(ends, [0x1010, 0x1018, 0x3000]);
        assert_eq!(t.find(0x1018), None, "gap after a sized symbol");
        assert_eq!(t.find(0x1020).map(|s| s.name()), Some("c"));
        // kallsyms: no stretching across the kernel/module boundary.
        let mut k = Symbols::new();
        k.insert(sym(0xffff_0000, 0, STB_GLOBAL, "last_kernel"));
        k.insert(sym(0xffff_9000, 0, STB_GLOBAL, "m1\t[mod]"));
        k.fixup_end(true);
        assert_eq!(k.first().map(|s| s.end), Some(0xffff_1000));
    }

    #[test]
    fn overlapping_symbols_resolve_by_the_tree_walk() {
        // Which of two overlapping symbols an address gives depends on
        // the tree walk, as in perf.
        let mut t = Symbols::new();
        t.insert(sym(0x100, 0x100, STB_GLOBAL, "outer"));
        t.insert(sym(0x150, 0x10, STB_GLOBAL, "inner"));
        t.insert(sym(0x300, 0x10, STB_GLOBAL, "after"));
        // Three ascending inserts rotate: "inner" is the root, so an
        // address inside both is found at the root.
        assert_eq!(t.find(0x155).map(|s| s.name()), Some("inner"));
        assert_eq!(t.find(0x110).map(|s| s.name()), Some("outer"));
        // Past "inner" the walk goes right, away from "outer": perf finds
        // no symbol there although "outer" covers it.
        assert_eq!(t.find(0x170), None);
    }

    #[test]
    fn remembered_answers_are_the_walks_and_forgotten_on_change() {
        let mut t = Symbols::new();
        for i in 0..MEMO_FROM as u64 {
            t.insert(sym(0x1000 + i * 0x20, 0x10, STB_GLOBAL, &format!("f{i}")));
        }
        let addrs: Vec<u64> = (0..20000u64).map(|i| 0x1000 + i * 7).collect();
        let walked: Vec<Option<u32>> = addrs.iter().map(|&a| t.walk(a)).collect();
        for _ in 0..2 {
            let found: Vec<Option<u32>> = addrs.iter().map(|&a| t.find_index(a)).collect();
            assert_eq!(found, walked);
        }
        // Each change forgets: an address in a gap, then in a new symbol;
        // a symbol stretched by fixup_end; one erased by fixup_duplicate.
        assert_eq!(t.find(0x1015), None);
        t.insert(sym(0x1012, 0x4, STB_GLOBAL, "gap"));
        assert_eq!(t.find(0x1015).map(|s| s.name()), Some("gap"));
        t.insert(sym(0x90000, 0, STB_GLOBAL, "zero"));
        assert_eq!(t.find(0x90004), None);
        t.fixup_end(false);
        assert_eq!(t.find(0x90004).map(|s| s.name()), Some("zero"));
        t.insert(sym(0x90000, 8, STB_GLOBAL, "sized"));
        assert_eq!(t.find(0x90004).map(|s| s.name()), Some("zero"));
        t.fixup_duplicate();
        assert_eq!(t.find(0x90004).map(|s| s.name()), Some("sized"));
    }
}
