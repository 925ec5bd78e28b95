// SPDX-License-Identifier: GPL-2.0-only
//! A small deterministic PRNG (SplitMix64), seeded from fuzz bytes or a
//! sweep counter, so every input can be replayed from its seed.

/// SplitMix64.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// A generator seeded by hashing bytes (FNV-1a), for libFuzzer inputs.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in bytes {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h)
    }

    /// The next 64 random bits.
    pub fn u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.u64() % n
        }
    }

    /// True with probability 1/n.
    pub fn one_in(&mut self, n: u64) -> bool {
        self.below(n) == 0
    }

    /// A u64 that is often a boundary value.
    pub fn interesting(&mut self) -> u64 {
        const EDGES: [u64; 12] = [
            0,
            1,
            2,
            7,
            8,
            0xff,
            0xffff,
            0x7fff_ffff,
            0xffff_ffff,
            0x1_0000_0000,
            u64::MAX / 24,
            u64::MAX,
        ];
        match self.below(4) {
            0 => EDGES[self.below(EDGES.len() as u64) as usize],
            1 => self.below(64),
            _ => self.u64(),
        }
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u64() as u8).collect()
    }
}
