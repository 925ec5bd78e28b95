// SPDX-License-Identifier: GPL-2.0-only
//! Valid records of a layout, byte for byte as the kernel writes them
//! (`perf_output_sample`, `perf_event__output_id_sample`, the side-band
//! record writers), with the values a correct parser must give back.

use perf_core::record::*;

use crate::layout::Layout;
use crate::rng::Rng;

/// The values written into a SAMPLE record, to compare with the parse.
#[derive(Debug, Clone, Default)]
pub struct Expect {
    /// Record type.
    pub type_: u32,
    /// The id written (IDENTIFIER/ID, SAMPLE or trailer), if any.
    pub id: Option<u64>,
    /// ip.
    pub ip: Option<u64>,
    /// pid, tid.
    pub pid_tid: Option<(u32, u32)>,
    /// time.
    pub time: Option<u64>,
    /// addr.
    pub addr: Option<u64>,
    /// stream_id.
    pub stream_id: Option<u64>,
    /// cpu.
    pub cpu: Option<u32>,
    /// period.
    pub period: Option<u64>,
    /// The counter values of a read_format block.
    pub read_values: Option<Vec<u64>>,
    /// callchain ips.
    pub callchain: Option<Vec<u64>>,
    /// raw size.
    pub raw_len: Option<usize>,
    /// branch stack entries.
    pub branch_nr: Option<usize>,
    /// user regs count.
    pub user_regs: Option<usize>,
    /// user stack (size, dyn_size).
    pub user_stack: Option<(usize, u64)>,
    /// weight (the full u64).
    pub weight: Option<u64>,
    /// data_src, transaction, phys_addr, cgroup, data/code page size.
    pub tail: Vec<(&'static str, u64)>,
    /// intr regs count.
    pub intr_regs: Option<usize>,
    /// aux size.
    pub aux_len: Option<usize>,
    /// The body fields of a side-band record, as u64s in writing order.
    pub body_words: Vec<u64>,
}

/// A record being written.
#[derive(Debug, Default)]
pub struct Writer {
    /// The bytes, header included.
    pub bytes: Vec<u8>,
}

impl Writer {
    fn new(type_: u32, misc: u16) -> Self {
        let mut w = Writer::default();
        w.u32(type_);
        w.bytes.extend_from_slice(&misc.to_ne_bytes());
        w.bytes.extend_from_slice(&0u16.to_ne_bytes());
        w
    }
    fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_ne_bytes());
    }
    fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_ne_bytes());
    }
    fn raw(&mut self, b: &[u8]) {
        self.bytes.extend_from_slice(b);
    }
    /// Sets header.size; None if the record is too big for a u16.
    fn finish(mut self) -> Option<Vec<u8>> {
        let size = u16::try_from(self.bytes.len()).ok()?;
        self.bytes
            .get_mut(6..8)?
            .copy_from_slice(&size.to_ne_bytes());
        Some(self.bytes)
    }
}

fn small(rng: &mut Rng, n: u64) -> u64 {
    if rng.one_in(8) {
        0
    } else {
        rng.below(n + 1)
    }
}

/// A `struct read_format` block; returns the counter values.
fn read_format(w: &mut Writer, rf: u64, rng: &mut Rng) -> Vec<u64> {
    let has = |bit: u64| rf & bit != 0;
    let mut values = Vec::new();
    if !has(PERF_FORMAT_GROUP) {
        let v = rng.u64();
        values.push(v);
        w.u64(v);
        for bit in [
            PERF_FORMAT_TOTAL_TIME_ENABLED,
            PERF_FORMAT_TOTAL_TIME_RUNNING,
            PERF_FORMAT_ID,
            PERF_FORMAT_LOST,
        ] {
            if has(bit) {
                w.u64(rng.u64());
            }
        }
        return values;
    }
    let nr = small(rng, 5);
    w.u64(nr);
    for bit in [
        PERF_FORMAT_TOTAL_TIME_ENABLED,
        PERF_FORMAT_TOTAL_TIME_RUNNING,
    ] {
        if has(bit) {
            w.u64(rng.u64());
        }
    }
    for _ in 0..nr {
        let v = rng.u64();
        values.push(v);
        w.u64(v);
        if has(PERF_FORMAT_ID) {
            w.u64(rng.u64());
        }
        if has(PERF_FORMAT_LOST) {
            w.u64(rng.u64());
        }
    }
    values
}

fn regs(w: &mut Writer, mask: u64, rng: &mut Rng) -> usize {
    let abi = rng.below(3); // NONE, 32, 64
    w.u64(abi);
    if abi == 0 {
        return 0;
    }
    let n = mask.count_ones() as usize;
    for _ in 0..n {
        w.u64(rng.u64());
    }
    n
}

/// A PERF_RECORD_SAMPLE of the layout; None if it would not fit a u16 size.
pub fn sample(layout: &Layout, rng: &mut Rng) -> Option<(Vec<u8>, Expect)> {
    let a = &layout.attr;
    let t = a.sample_type;
    let has = |bit: u64| t & bit != 0;
    let mut w = Writer::new(PERF_RECORD_SAMPLE, rng.u64() as u16);
    let mut e = Expect {
        type_: PERF_RECORD_SAMPLE,
        ..Expect::default()
    };
    let id = rng.u64();
    let put = |w: &mut Writer, rng: &mut Rng, bit: u64, slot: &mut Option<u64>| {
        if has(bit) {
            let v = rng.u64();
            w.u64(v);
            *slot = Some(v);
        }
    };
    if has(PERF_SAMPLE_IDENTIFIER) {
        w.u64(id);
        e.id = Some(id);
    }
    put(&mut w, rng, PERF_SAMPLE_IP, &mut e.ip);
    if has(PERF_SAMPLE_TID) {
        let (p, t2) = (rng.u64() as u32, rng.u64() as u32);
        w.u32(p);
        w.u32(t2);
        e.pid_tid = Some((p, t2));
    }
    put(&mut w, rng, PERF_SAMPLE_TIME, &mut e.time);
    put(&mut w, rng, PERF_SAMPLE_ADDR, &mut e.addr);
    if has(PERF_SAMPLE_ID) {
        w.u64(id);
        e.id = Some(id);
    }
    put(&mut w, rng, PERF_SAMPLE_STREAM_ID, &mut e.stream_id);
    if has(PERF_SAMPLE_CPU) {
        let c = rng.u64() as u32;
        w.u32(c);
        w.u32(0);
        e.cpu = Some(c);
    }
    put(&mut w, rng, PERF_SAMPLE_PERIOD, &mut e.period);
    if has(PERF_SAMPLE_READ) {
        e.read_values = Some(read_format(&mut w, a.read_format, rng));
    }
    if has(PERF_SAMPLE_CALLCHAIN) {
        let nr = small(rng, 12);
        w.u64(nr);
        let ips: Vec<u64> = (0..nr).map(|_| rng.u64()).collect();
        ips.iter().for_each(|&ip| w.u64(ip));
        e.callchain = Some(ips);
    }
    if has(PERF_SAMPLE_RAW) {
        // size + 4 is a multiple of 8, as the kernel pads it.
        let size = 8 * small(rng, 16) as usize + 4;
        w.u32(size as u32);
        w.raw(&rng.bytes(size));
        e.raw_len = Some(size);
    }
    if has(PERF_SAMPLE_BRANCH_STACK) {
        let nr = small(rng, 8);
        w.u64(nr);
        if a.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX != 0 {
            w.u64(rng.u64());
        }
        for _ in 0..nr * 3 {
            w.u64(rng.u64());
        }
        if a.branch_sample_type & PERF_SAMPLE_BRANCH_COUNTERS != 0 {
            for _ in 0..nr {
                w.u64(rng.u64());
            }
        }
        e.branch_nr = Some(nr as usize);
    }
    if has(PERF_SAMPLE_REGS_USER) {
        e.user_regs = Some(regs(&mut w, a.sample_regs_user, rng));
    }
    if has(PERF_SAMPLE_STACK_USER) {
        let size = 8 * small(rng, 16);
        w.u64(size);
        w.raw(&rng.bytes(size as usize));
        let dyn_size = if size == 0 { 0 } else { rng.below(size + 1) };
        if size != 0 {
            w.u64(dyn_size);
        }
        e.user_stack = Some((size as usize, dyn_size));
    }
    if t & PERF_SAMPLE_WEIGHT_TYPE != 0 {
        let v = rng.u64();
        w.u64(v);
        e.weight = Some(v);
    }
    for (bit, name) in [
        (PERF_SAMPLE_DATA_SRC, "data_src"),
        (PERF_SAMPLE_TRANSACTION, "transaction"),
    ] {
        if has(bit) {
            let v = rng.u64();
            w.u64(v);
            e.tail.push((name, v));
        }
    }
    if has(PERF_SAMPLE_REGS_INTR) {
        e.intr_regs = Some(regs(&mut w, a.sample_regs_intr, rng));
    }
    for (bit, name) in [
        (PERF_SAMPLE_PHYS_ADDR, "phys_addr"),
        (PERF_SAMPLE_CGROUP, "cgroup"),
        (PERF_SAMPLE_DATA_PAGE_SIZE, "data_page_size"),
        (PERF_SAMPLE_CODE_PAGE_SIZE, "code_page_size"),
    ] {
        if has(bit) {
            let v = rng.u64();
            w.u64(v);
            e.tail.push((name, v));
        }
    }
    if has(PERF_SAMPLE_AUX) {
        let size = 8 * small(rng, 8);
        w.u64(size);
        w.raw(&rng.bytes(size as usize));
        e.aux_len = Some(size as usize);
    }
    Some((w.finish()?, e))
}

/// The side-band record types generated, known and unknown.
pub const SIDE_BAND: [u32; 17] = [
    PERF_RECORD_MMAP,
    PERF_RECORD_LOST,
    PERF_RECORD_COMM,
    PERF_RECORD_EXIT,
    PERF_RECORD_THROTTLE,
    PERF_RECORD_UNTHROTTLE,
    PERF_RECORD_FORK,
    PERF_RECORD_READ,
    PERF_RECORD_MMAP2,
    PERF_RECORD_AUX,
    PERF_RECORD_ITRACE_START,
    PERF_RECORD_LOST_SAMPLES,
    PERF_RECORD_SWITCH,
    PERF_RECORD_SWITCH_CPU_WIDE,
    PERF_RECORD_NAMESPACES,
    PERF_RECORD_CALLCHAIN_DEFERRED,
    0x7fff_0001, // nobody's type
];

fn string(w: &mut Writer, rng: &mut Rng) {
    // NUL-terminated, padded to 8 bytes, as perf_event_mmap/comm write it.
    let len = rng.below(40) as usize;
    let mut s: Vec<u8> = (0..len).map(|_| b'a' + (rng.below(26) as u8)).collect();
    s.push(0);
    while !s.len().is_multiple_of(8) {
        s.push(0);
    }
    w.raw(&s);
}

/// A non-SAMPLE record of `type_` with the layout's `sample_id` trailer;
/// None if it would not fit a u16 size.
pub fn side_band(layout: &Layout, type_: u32, rng: &mut Rng) -> Option<(Vec<u8>, Expect)> {
    let a = &layout.attr;
    let mut misc = rng.u64() as u16 & !PERF_RECORD_MISC_MMAP_BUILD_ID;
    let build_id = type_ == PERF_RECORD_MMAP2 && rng.one_in(2);
    if build_id {
        misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
    }
    let mut w = Writer::new(type_, misc);
    let mut e = Expect {
        type_,
        ..Expect::default()
    };
    let word = |w: &mut Writer, e: &mut Expect, rng: &mut Rng| {
        let v = rng.u64();
        w.u64(v);
        e.body_words.push(v);
    };
    match type_ {
        PERF_RECORD_MMAP => {
            (0..4).for_each(|_| word(&mut w, &mut e, rng));
            string(&mut w, rng);
        }
        PERF_RECORD_LOST => (0..2).for_each(|_| word(&mut w, &mut e, rng)),
        PERF_RECORD_COMM => {
            word(&mut w, &mut e, rng);
            string(&mut w, rng);
        }
        PERF_RECORD_EXIT | PERF_RECORD_FORK => (0..3).for_each(|_| word(&mut w, &mut e, rng)),
        PERF_RECORD_THROTTLE | PERF_RECORD_UNTHROTTLE => {
            (0..3).for_each(|_| word(&mut w, &mut e, rng))
        }
        PERF_RECORD_READ => {
            word(&mut w, &mut e, rng);
            e.read_values = Some(read_format(&mut w, a.read_format, rng));
        }
        PERF_RECORD_MMAP2 => {
            (0..4).for_each(|_| word(&mut w, &mut e, rng));
            if build_id {
                let mut b = rng.bytes(24);
                if let Some(size) = b.first_mut() {
                    *size %= 21;
                }
                w.raw(&b);
            } else {
                (0..3).for_each(|_| word(&mut w, &mut e, rng));
            }
            word(&mut w, &mut e, rng);
            string(&mut w, rng);
        }
        PERF_RECORD_LOST_SAMPLES => word(&mut w, &mut e, rng),
        PERF_RECORD_SWITCH => {}
        PERF_RECORD_SWITCH_CPU_WIDE => word(&mut w, &mut e, rng),
        _ => (0..rng.below(6)).for_each(|_| word(&mut w, &mut e, rng)),
    }
    if a.has(perf_core::attr::flag::SAMPLE_ID_ALL) {
        trailer(&mut w, a.sample_type, &mut e, rng);
    }
    Some((w.finish()?, e))
}

/// The `struct sample_id` trailer.
fn trailer(w: &mut Writer, t: u64, e: &mut Expect, rng: &mut Rng) {
    let has = |bit: u64| t & bit != 0;
    let id = rng.u64();
    if has(PERF_SAMPLE_TID) {
        let (p, t2) = (rng.u64() as u32, rng.u64() as u32);
        w.u32(p);
        w.u32(t2);
        e.pid_tid = Some((p, t2));
    }
    if has(PERF_SAMPLE_TIME) {
        let v = rng.u64();
        w.u64(v);
        e.time = Some(v);
    }
    if has(PERF_SAMPLE_ID) {
        w.u64(id);
        e.id = Some(id);
    }
    if has(PERF_SAMPLE_STREAM_ID) {
        let v = rng.u64();
        w.u64(v);
        e.stream_id = Some(v);
    }
    if has(PERF_SAMPLE_CPU) {
        let c = rng.u64() as u32;
        w.u32(c);
        w.u32(0);
        e.cpu = Some(c);
    }
    if has(PERF_SAMPLE_IDENTIFIER) {
        w.u64(id);
        e.id = Some(id);
    }
}

/// Changes a valid record into a (probably) broken one: truncation, a
/// wrong header size, flipped bytes, an absurd count. Returns what was done.
pub fn mutate(record: &mut Vec<u8>, rng: &mut Rng) -> &'static str {
    let fix_size = |r: &mut Vec<u8>| {
        if let Ok(size) = u16::try_from(r.len()) {
            if let Some(field) = r.get_mut(6..8) {
                field.copy_from_slice(&size.to_ne_bytes());
            }
        }
    };
    match rng.below(7) {
        0 => {
            let n = rng.below(record.len() as u64 + 1) as usize;
            record.truncate(n);
            fix_size(record);
            "truncated, size fixed"
        }
        1 => {
            let n = rng.below(record.len() as u64 + 1) as usize;
            record.truncate(n);
            "truncated, size kept"
        }
        2 => {
            if let Some(f) = record.get_mut(6..8) {
                f.copy_from_slice(&(rng.u64() as u16).to_ne_bytes());
            }
            "header.size"
        }
        3 => {
            for _ in 0..=rng.below(4) {
                let i = rng.below(record.len() as u64) as usize;
                if let Some(b) = record.get_mut(i) {
                    *b ^= 1 << rng.below(8);
                }
            }
            "bit flips"
        }
        4 => {
            // An absurd value in a random u64 slot (counts, sizes, nr).
            let words = record.len().saturating_sub(8) / 8;
            let i = 8 + 8 * rng.below(words as u64) as usize;
            let v = rng.interesting();
            if let Some(f) = record.get_mut(i..i + 8) {
                f.copy_from_slice(&v.to_ne_bytes());
            }
            "absurd word"
        }
        5 => {
            let n = rng.below(24) as usize;
            let extra = rng.bytes(n);
            record.extend_from_slice(&extra);
            fix_size(record);
            "trailing bytes"
        }
        _ => {
            if let Some(f) = record.get_mut(0..4) {
                f.copy_from_slice(&(rng.below(32) as u32).to_ne_bytes());
            }
            "type"
        }
    }
}
