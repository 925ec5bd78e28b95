// SPDX-License-Identifier: GPL-2.0-only
//! Test-side encoder: builds record bytes the way the kernel lays them out,
//! from the same types the parser returns, plus a small deterministic PRNG.

use std::ops::Range;

use crate::record::*;

/// xorshift64*: deterministic, dependency-free randomness for tests.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub(crate) fn u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.u64() % n
    }

    pub(crate) fn bool(&mut self) -> bool {
        self.u64() & 1 == 1
    }

    pub(crate) fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u64() as u8).collect()
    }
}

/// A record under construction; `finish` patches `header.size`.
pub(crate) struct W(pub(crate) Vec<u8>);

impl W {
    pub(crate) fn new(type_: u32, misc: u16) -> Self {
        let mut w = W(Vec::new());
        w.u32(type_).u16(misc).u16(0);
        w
    }

    pub(crate) fn pos(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_ne_bytes());
        self
    }

    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_ne_bytes());
        self
    }

    pub(crate) fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_ne_bytes());
        self
    }

    pub(crate) fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }

    /// Writes `b` and returns where it went.
    pub(crate) fn bytes(&mut self, b: &[u8]) -> Range<usize> {
        let start = self.pos();
        self.0.extend_from_slice(b);
        start..self.pos()
    }

    /// A C string padded with NULs to a multiple of 8 (at least one NUL),
    /// as the kernel writes comm/filename; returns the range without NULs.
    pub(crate) fn c_string(&mut self, s: &[u8]) -> Range<usize> {
        let r = self.bytes(s);
        let padded = (s.len() + 1).div_ceil(8) * 8;
        self.0.resize(r.start + padded, 0);
        r
    }

    pub(crate) fn finish(mut self) -> Vec<u8> {
        let size = self.0.len() as u16;
        if let Some(s) = self.0.get_mut(6..8) {
            s.copy_from_slice(&size.to_ne_bytes());
        }
        self.0
    }
}

/// Payloads of a sample that the `Sample` only points at.
#[derive(Default, Clone)]
pub(crate) struct Payloads {
    pub(crate) raw: Vec<u8>,
    pub(crate) stack: Vec<u8>,
    pub(crate) aux: Vec<u8>,
}

pub(crate) fn write_read(w: &mut W, read_format: u64, r: &SampleRead) {
    let has = |bit: u64| read_format & bit != 0;
    let vals = r.values();
    if has(PERF_FORMAT_GROUP) {
        w.u64(vals.len() as u64);
    } else {
        w.u64(vals.first().map_or(0, |v| v.value));
    }
    if has(PERF_FORMAT_TOTAL_TIME_ENABLED) {
        w.u64(r.time_enabled);
    }
    if has(PERF_FORMAT_TOTAL_TIME_RUNNING) {
        w.u64(r.time_running);
    }
    let per_value = |w: &mut W, v: &ReadValue| {
        if has(PERF_FORMAT_ID) {
            w.u64(v.id);
        }
        if has(PERF_FORMAT_LOST) {
            w.u64(v.lost);
        }
    };
    if has(PERF_FORMAT_GROUP) {
        for v in vals {
            w.u64(v.value);
            per_value(w, v);
        }
    } else if let Some(v) = vals.first() {
        per_value(w, v);
    }
}

/// Encodes a SAMPLE the kernel way and points `s`'s payload ranges at where
/// the payloads went.
pub(crate) fn encode_sample(info: &ParseInfo, s: &mut Sample, p: &Payloads, misc: u16) -> Vec<u8> {
    let t = info.sample_type();
    let has = |bit: u64| t & bit != 0;
    let mut w = W::new(PERF_RECORD_SAMPLE, misc);
    if has(PERF_SAMPLE_IDENTIFIER) {
        w.u64(s.id);
    }
    if has(PERF_SAMPLE_IP) {
        w.u64(s.ip);
    }
    if has(PERF_SAMPLE_TID) {
        w.u32(s.pid as u32).u32(s.tid as u32);
    }
    if has(PERF_SAMPLE_TIME) {
        w.u64(s.time);
    }
    if has(PERF_SAMPLE_ADDR) {
        w.u64(s.addr);
    }
    if has(PERF_SAMPLE_ID) {
        w.u64(s.id);
    }
    if has(PERF_SAMPLE_STREAM_ID) {
        w.u64(s.stream_id);
    }
    if has(PERF_SAMPLE_CPU) {
        w.u32(s.cpu).u32(0xdead);
    }
    if has(PERF_SAMPLE_PERIOD) {
        w.u64(s.period);
    }
    if let Some(r) = &s.read {
        write_read(&mut w, info.read_format(), r);
    }
    if has(PERF_SAMPLE_CALLCHAIN) {
        w.u64(s.callchain.len() as u64);
        for &ip in &s.callchain {
            w.u64(ip);
        }
    }
    if has(PERF_SAMPLE_RAW) {
        w.u32(p.raw.len() as u32);
        s.raw = Some(w.bytes(&p.raw));
    }
    if let Some(b) = &s.branch_stack {
        w.u64(b.entries.len() as u64);
        if let Some(i) = b.hw_idx {
            w.u64(i);
        }
        for e in &b.entries {
            w.u64(e.from).u64(e.to).u64(e.flags);
        }
        for &c in &b.counters {
            w.u64(c);
        }
    }
    if let Some(r) = &s.user_regs {
        w.u64(r.abi);
        for &v in &r.regs {
            w.u64(v);
        }
    }
    if let Some(st) = &mut s.user_stack {
        w.u64(p.stack.len() as u64);
        if p.stack.is_empty() {
            st.data = w.pos()..w.pos();
        } else {
            st.data = w.bytes(&p.stack);
            w.u64(st.dyn_size);
        }
    }
    if has(PERF_SAMPLE_WEIGHT) {
        w.u64(s.weight);
    } else if has(PERF_SAMPLE_WEIGHT_STRUCT) {
        w.u64(s.weight | u64::from(s.ins_lat) << 32 | u64::from(s.retire_lat) << 48);
    }
    if has(PERF_SAMPLE_DATA_SRC) {
        w.u64(s.data_src);
    }
    if has(PERF_SAMPLE_TRANSACTION) {
        w.u64(s.transaction);
    }
    if let Some(r) = &s.intr_regs {
        w.u64(r.abi);
        for &v in &r.regs {
            w.u64(v);
        }
    }
    if has(PERF_SAMPLE_PHYS_ADDR) {
        w.u64(s.phys_addr);
    }
    if has(PERF_SAMPLE_CGROUP) {
        w.u64(s.cgroup);
    }
    if has(PERF_SAMPLE_DATA_PAGE_SIZE) {
        w.u64(s.data_page_size);
    }
    if has(PERF_SAMPLE_CODE_PAGE_SIZE) {
        w.u64(s.code_page_size);
    }
    if has(PERF_SAMPLE_AUX) {
        w.u64(p.aux.len() as u64);
        s.aux = Some(w.bytes(&p.aux));
    }
    w.finish()
}

/// Appends the `sample_id` trailer for the fields of `s`.
pub(crate) fn write_sample_id(w: &mut W, info: &ParseInfo, s: &Sample) {
    if !info.sample_id_all() {
        return;
    }
    let t = info.sample_type();
    let has = |bit: u64| t & bit != 0;
    if has(PERF_SAMPLE_TID) {
        w.u32(s.pid as u32).u32(s.tid as u32);
    }
    if has(PERF_SAMPLE_TIME) {
        w.u64(s.time);
    }
    if has(PERF_SAMPLE_ID) {
        w.u64(s.id);
    }
    if has(PERF_SAMPLE_STREAM_ID) {
        w.u64(s.stream_id);
    }
    if has(PERF_SAMPLE_CPU) {
        w.u32(s.cpu).u32(0xbeef);
    }
    if has(PERF_SAMPLE_IDENTIFIER) {
        w.u64(s.id);
    }
}

/// Random sample_id fields for the trailer bits of `info` (the rest default).
pub(crate) fn random_sample_id(rng: &mut Rng, info: &ParseInfo) -> Sample {
    let mut s = Sample::new(info);
    if !info.sample_id_all() {
        return s;
    }
    let t = info.sample_type();
    let has = |bit: u64| t & bit != 0;
    if has(PERF_SAMPLE_TID) {
        (s.pid, s.tid) = (rng.u64() as i32, rng.u64() as i32);
    }
    if has(PERF_SAMPLE_TIME) {
        s.time = rng.u64();
    }
    if has(PERF_SAMPLE_ID) || has(PERF_SAMPLE_IDENTIFIER) {
        s.id = rng.u64();
    }
    if has(PERF_SAMPLE_STREAM_ID) {
        s.stream_id = rng.u64();
    }
    if has(PERF_SAMPLE_CPU) {
        s.cpu = rng.u64() as u32;
    }
    s
}

fn random_read(rng: &mut Rng, read_format: u64) -> SampleRead {
    let has = |bit: u64| read_format & bit != 0;
    let value = |rng: &mut Rng| ReadValue {
        value: rng.u64(),
        id: if has(PERF_FORMAT_ID) { rng.u64() } else { 0 },
        lost: if has(PERF_FORMAT_LOST) { rng.u64() } else { 0 },
    };
    let counters = if has(PERF_FORMAT_GROUP) {
        ReadCounters::Group((0..rng.below(4)).map(|_| value(rng)).collect())
    } else {
        ReadCounters::One(value(rng))
    };
    SampleRead {
        time_enabled: if has(PERF_FORMAT_TOTAL_TIME_ENABLED) {
            rng.u64()
        } else {
            0
        },
        time_running: if has(PERF_FORMAT_TOTAL_TIME_RUNNING) {
            rng.u64()
        } else {
            0
        },
        counters,
    }
}

fn random_regs(rng: &mut Rng, mask: u64) -> Regs {
    let abi = rng.below(3);
    let regs = if abi == 0 {
        Vec::new()
    } else {
        (0..mask.count_ones()).map(|_| rng.u64()).collect()
    };
    Regs { abi, mask, regs }
}

/// A random SAMPLE for `info`: every field its `sample_type` carries gets a
/// random value, the rest keep perf's defaults.
pub(crate) fn random_sample(rng: &mut Rng, info: &ParseInfo) -> (Sample, Payloads) {
    let t = info.sample_type();
    let has = |bit: u64| t & bit != 0;
    let mut s = Sample::new(info);
    let mut p = Payloads::default();
    let set = |bit: u64, field: &mut u64, rng: &mut Rng| {
        if has(bit) {
            *field = rng.u64();
        }
    };
    set(PERF_SAMPLE_IP, &mut s.ip, rng);
    set(PERF_SAMPLE_TIME, &mut s.time, rng);
    set(PERF_SAMPLE_ADDR, &mut s.addr, rng);
    set(PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER, &mut s.id, rng);
    set(PERF_SAMPLE_STREAM_ID, &mut s.stream_id, rng);
    set(PERF_SAMPLE_PERIOD, &mut s.period, rng);
    set(PERF_SAMPLE_DATA_SRC, &mut s.data_src, rng);
    set(PERF_SAMPLE_TRANSACTION, &mut s.transaction, rng);
    set(PERF_SAMPLE_PHYS_ADDR, &mut s.phys_addr, rng);
    set(PERF_SAMPLE_CGROUP, &mut s.cgroup, rng);
    set(PERF_SAMPLE_DATA_PAGE_SIZE, &mut s.data_page_size, rng);
    set(PERF_SAMPLE_CODE_PAGE_SIZE, &mut s.code_page_size, rng);
    if has(PERF_SAMPLE_TID) {
        (s.pid, s.tid) = (rng.u64() as i32, rng.u64() as i32);
    }
    if has(PERF_SAMPLE_CPU) {
        s.cpu = rng.u64() as u32;
    }
    if has(PERF_SAMPLE_READ) {
        s.read = Some(random_read(rng, info.read_format()));
    }
    if has(PERF_SAMPLE_CALLCHAIN) {
        s.callchain = (0..rng.below(6)).map(|_| rng.u64()).collect();
    }
    if has(PERF_SAMPLE_RAW) {
        // Mostly kernel-like padding (4 + size multiple of 8), sometimes odd.
        let n = rng.below(24) as usize;
        let n = if rng.bool() {
            n
        } else {
            (n + 4).div_ceil(8) * 8 - 4
        };
        p.raw = rng.bytes(n);
    }
    if has(PERF_SAMPLE_BRANCH_STACK) {
        let nr = rng.below(4) as usize;
        s.branch_stack = Some(Box::new(BranchStack {
            hw_idx: info.branch_hw_index().then(|| rng.u64()),
            entries: (0..nr)
                .map(|_| BranchEntry {
                    from: rng.u64(),
                    to: rng.u64(),
                    flags: rng.u64(),
                })
                .collect(),
            counters: if info.branch_counters() {
                (0..nr).map(|_| rng.u64()).collect()
            } else {
                Vec::new()
            },
        }));
    }
    if has(PERF_SAMPLE_REGS_USER) {
        s.user_regs = Some(Box::new(random_regs(rng, info.regs_user_mask())));
    }
    if has(PERF_SAMPLE_STACK_USER) {
        let size = if rng.bool() {
            0
        } else {
            8 * (1 + rng.below(4))
        };
        p.stack = rng.bytes(size as usize);
        s.user_stack = Some(Box::new(StackUser {
            data: 0..0,
            dyn_size: if size == 0 { 0 } else { rng.below(size + 1) },
        }));
    }
    if has(PERF_SAMPLE_WEIGHT) {
        s.weight = rng.u64();
    } else if has(PERF_SAMPLE_WEIGHT_STRUCT) {
        s.weight = rng.u64() & 0xffff_ffff;
        s.ins_lat = rng.u64() as u16;
        s.retire_lat = rng.u64() as u16;
    }
    if has(PERF_SAMPLE_REGS_INTR) {
        s.intr_regs = Some(Box::new(random_regs(rng, info.regs_intr_mask())));
    }
    if has(PERF_SAMPLE_AUX) {
        let n = rng.below(3) as usize * 8;
        p.aux = rng.bytes(n);
    }
    (s, p)
}
