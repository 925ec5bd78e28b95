// SPDX-License-Identifier: GPL-2.0-only
//! The shape of the kernel's red-black tree (lib/rbtree.c), over indices.
//!
//! perf keeps a DSO's symbols in an rbtree keyed by start address and
//! answers "which symbol holds this address" by walking it
//! (`symbols__find`). When symbols overlap (a sized symbol with a label
//! inside it, aliases of different sizes) the answer depends on which node
//! the walk meets first, that is on the tree's shape, which in turn depends
//! on the insertion order and on the erasures of `symbols__fixup_duplicate`.
//! So this is the same algorithm (insertion and erasure with the same
//! rebalancing cases), not just any ordered map: the nodes are the indices
//! of the caller's symbol vector and the tree holds only links.

/// No node.
pub(crate) const NIL: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Node {
    left: u32,
    right: u32,
    parent: u32,
    red: bool,
}

/// Links of a red-black tree whose node `i` is the caller's element `i`.
#[derive(Debug, Clone)]
pub(crate) struct RbTree {
    nodes: Vec<Node>,
    root: u32,
}

impl Default for RbTree {
    fn default() -> Self {
        RbTree::new()
    }
}

impl RbTree {
    pub(crate) fn new() -> Self {
        RbTree {
            nodes: Vec::new(),
            root: NIL,
        }
    }

    pub(crate) fn root(&self) -> u32 {
        self.root
    }

    pub(crate) fn left(&self, n: u32) -> u32 {
        self.node(n).map_or(NIL, |x| x.left)
    }

    pub(crate) fn right(&self, n: u32) -> u32 {
        self.node(n).map_or(NIL, |x| x.right)
    }

    fn parent(&self, n: u32) -> u32 {
        self.node(n).map_or(NIL, |x| x.parent)
    }

    fn node(&self, n: u32) -> Option<&Node> {
        self.nodes.get(n as usize)
    }

    fn set(&mut self, n: u32, f: impl FnOnce(&mut Node)) {
        if let Some(x) = self.nodes.get_mut(n as usize) {
            f(x);
        }
    }

    fn is_red(&self, n: u32) -> bool {
        self.node(n).is_some_and(|x| x.red)
    }

    /// Adds node `n` (which must be `nodes.len()`, the next element) where
    /// the kernel's descent puts it: left while `goes_left(existing)`, else
    /// right (`__symbols__insert`: `ip < s->start` goes left, so equal keys
    /// go right and keep insertion order in the in-order walk).
    pub(crate) fn insert(&mut self, goes_left: impl Fn(u32) -> bool) -> u32 {
        let n = self.nodes.len() as u32;
        let mut parent = NIL;
        let mut cur = self.root;
        let mut left = false;
        while cur != NIL {
            parent = cur;
            left = goes_left(cur);
            cur = if left {
                self.left(cur)
            } else {
                self.right(cur)
            };
        }
        self.nodes.push(Node {
            left: NIL,
            right: NIL,
            parent,
            red: true,
        });
        if parent == NIL {
            self.root = n;
        } else if left {
            self.set(parent, |p| p.left = n);
        } else {
            self.set(parent, |p| p.right = n);
        }
        self.insert_fixup(n);
        n
    }

    fn rotate_left(&mut self, x: u32) {
        let y = self.right(x);
        let yl = self.left(y);
        self.set(x, |n| n.right = yl);
        if yl != NIL {
            self.set(yl, |n| n.parent = x);
        }
        self.replace_child(x, y);
        self.set(y, |n| n.left = x);
        self.set(x, |n| n.parent = y);
    }

    fn rotate_right(&mut self, x: u32) {
        let y = self.left(x);
        let yr = self.right(y);
        self.set(x, |n| n.left = yr);
        if yr != NIL {
            self.set(yr, |n| n.parent = x);
        }
        self.replace_child(x, y);
        self.set(y, |n| n.right = x);
        self.set(x, |n| n.parent = y);
    }

    /// Puts `new` where `old` hangs from `old`'s parent (or the root).
    fn replace_child(&mut self, old: u32, new: u32) {
        let p = self.parent(old);
        if new != NIL {
            self.set(new, |n| n.parent = p);
        }
        if p == NIL {
            self.root = new;
        } else if self.left(p) == old {
            self.set(p, |n| n.left = new);
        } else {
            self.set(p, |n| n.right = new);
        }
    }

    // __rb_insert: case 1 recolours, case 2 rotates at the parent, case 3
    // at the grandparent.
    fn insert_fixup(&mut self, mut z: u32) {
        loop {
            let p = self.parent(z);
            if p == NIL {
                self.set(z, |n| n.red = false);
                return;
            }
            if !self.is_red(p) {
                return;
            }
            let g = self.parent(p);
            if self.left(g) == p {
                let uncle = self.right(g);
                if self.is_red(uncle) {
                    self.set(uncle, |n| n.red = false);
                    self.set(p, |n| n.red = false);
                    self.set(g, |n| n.red = true);
                    z = g;
                    continue;
                }
                let mut p = p;
                if self.right(p) == z {
                    self.rotate_left(p);
                    p = z;
                }
                self.set(p, |n| n.red = false);
                self.set(g, |n| n.red = true);
                self.rotate_right(g);
                return;
            } else {
                let uncle = self.left(g);
                if self.is_red(uncle) {
                    self.set(uncle, |n| n.red = false);
                    self.set(p, |n| n.red = false);
                    self.set(g, |n| n.red = true);
                    z = g;
                    continue;
                }
                let mut p = p;
                if self.left(p) == z {
                    self.rotate_right(p);
                    p = z;
                }
                self.set(p, |n| n.red = false);
                self.set(g, |n| n.red = true);
                self.rotate_left(g);
                return;
            }
        }
    }

    /// Removes node `z` (`rb_erase`: a node with two children is replaced
    /// by its in-order successor).
    pub(crate) fn erase(&mut self, z: u32) {
        if self.node(z).is_none() {
            return;
        }
        let (zl, zr) = (self.left(z), self.right(z));
        // x: the node that moves into the hole; xp: its parent afterwards.
        let (x, xp, removed_black);
        if zl == NIL || zr == NIL {
            x = if zl == NIL { zr } else { zl };
            xp = self.parent(z);
            removed_black = !self.is_red(z);
            self.replace_child(z, x);
        } else {
            let mut y = zr;
            while self.left(y) != NIL {
                y = self.left(y);
            }
            removed_black = !self.is_red(y);
            x = self.right(y);
            if self.parent(y) == z {
                xp = y;
            } else {
                xp = self.parent(y);
                self.replace_child(y, x);
                self.set(y, |n| n.right = zr);
                self.set(zr, |n| n.parent = y);
            }
            self.replace_child(z, y);
            self.set(y, |n| n.left = zl);
            self.set(zl, |n| n.parent = y);
            let zred = self.is_red(z);
            self.set(y, |n| n.red = zred);
        }
        self.set(z, |n| {
            n.left = NIL;
            n.right = NIL;
            n.parent = NIL;
        });
        if removed_black {
            self.erase_fixup(x, xp);
        }
    }

    // __rb_erase_color: sibling red (1), sibling's children black (2),
    // near nephew red (3), far nephew red (4).
    fn erase_fixup(&mut self, mut x: u32, mut xp: u32) {
        while x != self.root && !self.is_red(x) {
            if xp == NIL {
                break;
            }
            if self.left(xp) == x {
                let mut w = self.right(xp);
                if self.is_red(w) {
                    self.set(w, |n| n.red = false);
                    self.set(xp, |n| n.red = true);
                    self.rotate_left(xp);
                    w = self.right(xp);
                }
                if !self.is_red(self.left(w)) && !self.is_red(self.right(w)) {
                    self.set(w, |n| n.red = true);
                    x = xp;
                    xp = self.parent(x);
                } else {
                    if !self.is_red(self.right(w)) {
                        let wl = self.left(w);
                        self.set(wl, |n| n.red = false);
                        self.set(w, |n| n.red = true);
                        self.rotate_right(w);
                        w = self.right(xp);
                    }
                    let pred = self.is_red(xp);
                    self.set(w, |n| n.red = pred);
                    self.set(xp, |n| n.red = false);
                    let wr = self.right(w);
                    self.set(wr, |n| n.red = false);
                    self.rotate_left(xp);
                    x = self.root;
                    break;
                }
            } else {
                let mut w = self.left(xp);
                if self.is_red(w) {
                    self.set(w, |n| n.red = false);
                    self.set(xp, |n| n.red = true);
                    self.rotate_right(xp);
                    w = self.left(xp);
                }
                if !self.is_red(self.left(w)) && !self.is_red(self.right(w)) {
                    self.set(w, |n| n.red = true);
                    x = xp;
                    xp = self.parent(x);
                } else {
                    if !self.is_red(self.left(w)) {
                        let wr = self.right(w);
                        self.set(wr, |n| n.red = false);
                        self.set(w, |n| n.red = true);
                        self.rotate_left(w);
                        w = self.left(xp);
                    }
                    let pred = self.is_red(xp);
                    self.set(w, |n| n.red = pred);
                    self.set(xp, |n| n.red = false);
                    let wl = self.left(w);
                    self.set(wl, |n| n.red = false);
                    self.rotate_right(xp);
                    x = self.root;
                    break;
                }
            }
        }
        self.set(x, |n| n.red = false);
    }

    /// The first node in order.
    pub(crate) fn first(&self) -> u32 {
        let mut n = self.root;
        while self.left(n) != NIL {
            n = self.left(n);
        }
        n
    }

    /// The last node in order.
    pub(crate) fn last(&self) -> u32 {
        let mut n = self.root;
        while self.right(n) != NIL {
            n = self.right(n);
        }
        n
    }

    /// The in-order successor of `n` (`rb_next`).
    pub(crate) fn next(&self, n: u32) -> u32 {
        if n == NIL {
            return NIL;
        }
        let r = self.right(n);
        if r != NIL {
            let mut m = r;
            while self.left(m) != NIL {
                m = self.left(m);
            }
            return m;
        }
        let mut c = n;
        let mut p = self.parent(c);
        while p != NIL && self.right(p) == c {
            c = p;
            p = self.parent(c);
        }
        p
    }

    /// The nodes in order.
    pub(crate) fn in_order(&self) -> impl Iterator<Item = u32> + '_ {
        let first = if self.root == NIL { NIL } else { self.first() };
        std::iter::successors(Some(first).filter(|&n| n != NIL), move |&n| {
            Some(self.next(n)).filter(|&m| m != NIL)
        })
    }

    #[cfg(test)]
    /// Checks the red-black invariants; returns the black height.
    pub(crate) fn check(&self) -> usize {
        fn walk(t: &RbTree, n: u32, parent: u32) -> usize {
            if n == NIL {
                return 1;
            }
            assert_eq!(t.parent(n), parent, "parent link of {n}");
            if t.is_red(n) {
                assert!(
                    !t.is_red(t.left(n)) && !t.is_red(t.right(n)),
                    "red {n} has a red child"
                );
            }
            let l = walk(t, t.left(n), n);
            let r = walk(t, t.right(n), n);
            assert_eq!(l, r, "black heights under {n}");
            l + usize::from(!t.is_red(n))
        }
        assert!(!self.is_red(self.root));
        walk(self, self.root, NIL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator (no dependency for tests).
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    #[test]
    fn default_is_empty() {
        let mut t = RbTree::default();
        assert_eq!(t.root(), NIL);
        let keys = [3u64, 1, 2];
        for &k in &keys {
            t.insert(|e| k < keys[e as usize]);
        }
        t.check();
        assert_eq!(t.in_order().collect::<Vec<_>>(), [1, 2, 0]);
    }

    #[test]
    fn insert_and_erase_keep_order_and_invariants() {
        let mut seed = 7;
        let keys: Vec<u64> = (0..2000).map(|_| lcg(&mut seed) % 500).collect();
        let mut t = RbTree::new();
        for (i, &k) in keys.iter().enumerate() {
            let n = t.insert(|e| k < keys[e as usize]);
            assert_eq!(n as usize, i);
        }
        t.check();
        let mut alive: Vec<bool> = vec![true; keys.len()];
        for _ in 0..1500 {
            let i = (lcg(&mut seed) as usize) % keys.len();
            if alive[i] {
                t.erase(i as u32);
                alive[i] = false;
                t.check();
            }
        }
        let order: Vec<u32> = t.in_order().collect();
        let mut want: Vec<u32> = (0..keys.len() as u32)
            .filter(|&i| alive[i as usize])
            .collect();
        // Stable by key: equal keys stay in insertion order.
        want.sort_by_key(|&i| keys[i as usize]);
        assert_eq!(order, want);
    }

    fn preorder(t: &RbTree, n: u32, out: &mut String) {
        if n == NIL {
            out.push('-');
            return;
        }
        out.push_str(&format!("{n}("));
        preorder(t, t.left(n), out);
        out.push(',');
        preorder(t, t.right(n), out);
        out.push(')');
    }

    /// The shape after inserting `n` keys `lcg() % modulo` and then erasing
    /// `m` random nodes, the way `kernel_shape` below drives the kernel.
    fn shape(n: usize, m: usize, modulo: u64, mut seed: u64) -> String {
        let keys: Vec<u64> = (0..n).map(|_| lcg(&mut seed) % modulo).collect();
        let mut t = RbTree::new();
        for &k in &keys {
            t.insert(|e| k < keys[e as usize]);
        }
        let mut dead = vec![false; n];
        for _ in 0..m {
            let i = (lcg(&mut seed) % n as u64) as usize;
            if !dead[i] {
                t.erase(i as u32);
                dead[i] = true;
            }
        }
        t.check();
        let mut out = String::new();
        preorder(&t, t.root(), &mut out);
        out
    }

    /// The same shapes as the kernel's own tools/lib/rbtree.c (Linux 6.1),
    /// printed by a C harness that does what `shape` does with
    /// `rb_link_node` + `rb_insert_color_cached` and `rb_erase_cached`
    /// (descending left while `key < node.key`) and prints
    /// `idx(left,right)` in preorder.
    #[test]
    fn kernel_shape() {
        assert_eq!(shape(7, 0, 100, 1), "0(1(4(6(-,-),-),3(-,-)),2(5(-,-),-))");
        assert_eq!(
            shape(40, 15, 10, 3),
            "2(10(11(24(22(-,-),32(-,36(-,-))),1(-,-)),4(27(-,37(-,-)),31(-,-))),\
             3(12(28(7(-,-),34(-,-)),23(19(-,-),-)),13(35(14(-,-),0(38(-,-),8(-,-))),\
             30(16(-,-),33(-,39(-,-))))))"
        );
        assert_eq!(shape(200, 120, 30, 11), SHAPE_200);
    }

    const SHAPE_200: &str =
        "0(12(4(48(13(55(25(-,49(-,-)),191(70(-,-),-)),104(44(-,62(-,-)),193(-,-))),81(108(74(-,8\
     9(-,-)),147(-,-)),150(112(-,-),184(-,-)))),61(162(92(34(-,-),103(-,121(-,-))),120(178(-,\
     63(-,-)),142(-,-))),32(88(82(-,-),151(123(-,-),175(-,-))),177(59(-,-),183(-,-))))),78(45\
     (41(171(23(-,-),-),71(-,79(-,-))),117(110(-,-),195(-,-))),68(114(96(90(-,-),-),125(-,-))\
     ,102(118(-,169(-,-)),93(86(-,-),140(-,-)))))),36(20(3(67(186(167(-,-),189(-,-)),152(101(\
     -,-),165(-,-))),109(28(-,-),164(-,-))),2(113(135(133(27(-,-),-),153(185(-,-),-)),50(122(\
     -,-),111(-,-))),170(173(33(-,-),30(-,-)),128(176(-,196(-,-)),157(136(-,-),198(-,-)))))),\
     65(66(181(38(-,-),197(182(-,-),199(-,-))),132(69(-,-),155(144(-,-),156(-,-)))),60(31(100\
     (99(-,-),-),56(-,58(-,-))),148(124(-,-),179(-,-))))))";
}
