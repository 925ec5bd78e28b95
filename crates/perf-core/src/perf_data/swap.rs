// SPDX-License-Identifier: GPL-2.0-only
//! Records of a file written on a machine of the other byte order, turned
//! into native records (perf's `perf_event__swap_ops`), so that the shared
//! record parser reads file and live records alike.
//!
//! Every number becomes native, field by field at its width: u64 fields,
//! the u32 pairs `{pid, tid}` and `{cpu, res}` each as two u32s (perf swaps
//! them as a u64 and undoes it while parsing). Bytes that are not numbers of
//! the record stay as written: strings, the `PERF_SAMPLE_RAW` payload (a
//! tracepoint's fields are decoded in the byte order of the file's tracing
//! data, as perf and libtraceevent do), the user stack and AUX sample
//! copies (raw memory of the recorded machine). The bitfield word of a
//! HEADER_ATTR attr is converted as [`Attr::from_image`] reads it.
//!
//! Where perf 6.1 leaves fields unswapped (MMAP2 `prot`/`flags`, the build
//! id record's `pid`, EVENT_UPDATE's scale and cpus, KSYMBOL, BPF_EVENT),
//! they are swapped here by their layout. A count that runs past the
//! record stops the conversion there; the parser then reports the record.

use super::abi::*;
use crate::attr::Attr;
use crate::endian::{swap_at, swap_words, Endian};
use crate::record::*;

/// The byte order of a foreign record; `buf` holds the record and is
/// converted in place. `info` is the layout of the record's evsel (for
/// SAMPLE bodies and `sample_id` trailers), `None` when there is none.
pub fn to_native(buf: &mut [u8], info: Option<&ParseInfo>, foreign: Endian) {
    let Some(h) = super::reader::read_header(buf, foreign) else {
        return;
    };
    // The header: u32 type, u16 misc, u16 size.
    swap_at::<4>(buf, 0);
    swap_at::<2>(buf, 4);
    swap_at::<2>(buf, 6);
    let len = buf.len();
    let trailer = info
        .filter(|i| i.sample_id_all())
        .map_or(0, |i| i.trailer_size());
    let body_end = if h.type_ < PERF_RECORD_USER_TYPE_START && h.type_ != PERF_RECORD_SAMPLE {
        let words_end = HEADER_SIZE + ((len - HEADER_SIZE) & !7);
        match (info, words_end.checked_sub(trailer)) {
            (Some(info), Some(start)) if trailer > 0 && start >= HEADER_SIZE => {
                swap_sample_id(buf, start, info.sample_type());
                start
            }
            _ => len,
        }
    } else {
        len
    };
    let u32s =
        |buf: &mut [u8], at: usize, n: usize| (0..n).for_each(|i| swap_at::<4>(buf, at + 4 * i));
    let u64s =
        |buf: &mut [u8], at: usize, n: usize| (0..n).for_each(|i| swap_at::<8>(buf, at + 8 * i));
    let all64 = |buf: &mut [u8], at: usize, end: usize| swap_words::<8>(buf, at..end);
    match h.type_ {
        PERF_RECORD_SAMPLE => {
            if let Some(info) = info {
                swap_sample(buf, info);
            }
        }
        PERF_RECORD_MMAP => {
            u32s(buf, 8, 2);
            u64s(buf, 16, 3);
        }
        PERF_RECORD_MMAP2 => {
            u32s(buf, 8, 2);
            u64s(buf, 16, 3);
            if h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID == 0 {
                u32s(buf, 40, 2);
                u64s(buf, 48, 2);
            }
            u32s(buf, 64, 2);
        }
        PERF_RECORD_COMM | PERF_RECORD_ITRACE_START => u32s(buf, 8, 2),
        PERF_RECORD_FORK | PERF_RECORD_EXIT => {
            u32s(buf, 8, 4);
            swap_at::<8>(buf, 24);
        }
        PERF_RECORD_LOST
        | PERF_RECORD_LOST_SAMPLES
        | PERF_RECORD_THROTTLE
        | PERF_RECORD_UNTHROTTLE
        | PERF_RECORD_AUX
        | PERF_RECORD_AUX_OUTPUT_HW_ID => {
            all64(buf, 8, body_end);
        }
        PERF_RECORD_READ => {
            u32s(buf, 8, 2);
            all64(buf, 16, body_end);
        }
        PERF_RECORD_SWITCH_CPU_WIDE => u32s(buf, 8, 2),
        PERF_RECORD_NAMESPACES => {
            u32s(buf, 8, 2);
            all64(buf, 16, body_end);
        }
        PERF_RECORD_KSYMBOL => {
            swap_at::<8>(buf, 8);
            swap_at::<4>(buf, 16);
            swap_at::<2>(buf, 20);
            swap_at::<2>(buf, 22);
        }
        PERF_RECORD_BPF_EVENT => {
            swap_at::<2>(buf, 8);
            swap_at::<2>(buf, 10);
            swap_at::<4>(buf, 12);
        }
        PERF_RECORD_CGROUP => swap_at::<8>(buf, 8),
        PERF_RECORD_TEXT_POKE => {
            swap_at::<8>(buf, 8);
            swap_at::<2>(buf, 16);
            swap_at::<2>(buf, 18);
        }
        PERF_RECORD_HEADER_ATTR => swap_header_attr(buf, foreign),
        PERF_RECORD_HEADER_EVENT_TYPE => swap_at::<8>(buf, 8),
        PERF_RECORD_HEADER_TRACING_DATA => swap_at::<4>(buf, 8),
        PERF_RECORD_HEADER_BUILD_ID => swap_at::<4>(buf, 8),
        PERF_RECORD_ID_INDEX | PERF_RECORD_STAT_CONFIG | PERF_RECORD_STAT_ROUND => {
            all64(buf, 8, len)
        }
        PERF_RECORD_AUXTRACE_INFO => {
            swap_at::<4>(buf, 8);
            all64(buf, 16, len);
        }
        PERF_RECORD_AUXTRACE => {
            u64s(buf, 8, 3);
            u32s(buf, 32, 4);
        }
        PERF_RECORD_AUXTRACE_ERROR => swap_auxtrace_error(buf),
        PERF_RECORD_THREAD_MAP => {
            // { u64 nr; { u64 pid; char comm[16]; }[nr] }
            swap_at::<8>(buf, 8);
            let nr = Endian::NATIVE.u64_at(buf, 8).unwrap_or(0);
            let fits = (len.saturating_sub(16) / 24) as u64;
            (0..nr.min(fits) as usize).for_each(|i| swap_at::<8>(buf, 16 + 24 * i));
        }
        PERF_RECORD_CPU_MAP => swap_cpu_map_data(buf, 8, len),
        PERF_RECORD_STAT => {
            // { u64 id; u32 cpu; u32 thread; u64 val, ena, run; }
            swap_at::<8>(buf, 8);
            u32s(buf, 16, 2);
            u64s(buf, 24, 3);
        }
        PERF_RECORD_EVENT_UPDATE => swap_event_update(buf),
        PERF_RECORD_TIME_CONV => {
            // { u64 time_shift, time_mult, time_zero; u64 time_cycles, time_mask; u8 caps... }
            let n = if len >= 56 { 5 } else { 3 };
            u64s(buf, 8, n);
        }
        PERF_RECORD_HEADER_FEATURE => swap_at::<8>(buf, 8),
        _ => {}
    }
}

/// The `sample_id` trailer at `at`.
fn swap_sample_id(buf: &mut [u8], mut at: usize, t: u64) {
    let pair = |buf: &mut [u8], at: &mut usize| {
        swap_at::<4>(buf, *at);
        swap_at::<4>(buf, *at + 4);
        *at += 8;
    };
    let word = |buf: &mut [u8], at: &mut usize| {
        swap_at::<8>(buf, *at);
        *at += 8;
    };
    for (bit, is_pair) in [
        (PERF_SAMPLE_TID, true),
        (PERF_SAMPLE_TIME, false),
        (PERF_SAMPLE_ID, false),
        (PERF_SAMPLE_STREAM_ID, false),
        (PERF_SAMPLE_CPU, true),
        (PERF_SAMPLE_IDENTIFIER, false),
    ] {
        if t & bit != 0 {
            if is_pair {
                pair(buf, &mut at);
            } else {
                word(buf, &mut at);
            }
        }
    }
}

/// A SAMPLE body, field by field in the kernel's order.
fn swap_sample(buf: &mut [u8], info: &ParseInfo) {
    let t = info.sample_type();
    let has = |bit: u64| t & bit != 0;
    let mut c = Walk {
        buf,
        at: HEADER_SIZE,
    };
    for (bit, pair) in [
        (PERF_SAMPLE_IDENTIFIER, false),
        (PERF_SAMPLE_IP, false),
        (PERF_SAMPLE_TID, true),
        (PERF_SAMPLE_TIME, false),
        (PERF_SAMPLE_ADDR, false),
        (PERF_SAMPLE_ID, false),
        (PERF_SAMPLE_STREAM_ID, false),
        (PERF_SAMPLE_CPU, true),
        (PERF_SAMPLE_PERIOD, false),
    ] {
        if has(bit) {
            if pair {
                c.u32s(2);
            } else {
                c.u64s(1);
            }
        }
    }
    if has(PERF_SAMPLE_READ) {
        let rf = info.read_format();
        let per_value =
            1 + u64::from(rf & PERF_FORMAT_ID != 0) + u64::from(rf & PERF_FORMAT_LOST != 0);
        let times = u64::from(rf & PERF_FORMAT_TOTAL_TIME_ENABLED != 0)
            + u64::from(rf & PERF_FORMAT_TOTAL_TIME_RUNNING != 0);
        if rf & PERF_FORMAT_GROUP != 0 {
            let nr = c.u64();
            c.u64s(times.saturating_add(nr.saturating_mul(per_value)));
        } else {
            c.u64s(per_value + times);
        }
    }
    if has(PERF_SAMPLE_CALLCHAIN) {
        let nr = c.u64();
        c.u64s(nr);
    }
    if has(PERF_SAMPLE_RAW) {
        let size = c.u32();
        c.keep(u64::from(size));
    }
    if has(PERF_SAMPLE_BRANCH_STACK) {
        let nr = c.u64();
        if info.branch_hw_index() {
            c.u64s(1);
        }
        c.u64s(nr.saturating_mul(3));
        if info.branch_counters() {
            c.u64s(nr);
        }
    }
    if has(PERF_SAMPLE_REGS_USER) && c.u64() != 0 {
        c.u64s(u64::from(info.regs_user_mask().count_ones()));
    }
    if has(PERF_SAMPLE_STACK_USER) {
        let size = c.u64();
        if size != 0 {
            c.keep(size);
            c.u64s(1);
        }
    }
    for bit in [
        PERF_SAMPLE_WEIGHT_TYPE,
        PERF_SAMPLE_DATA_SRC,
        PERF_SAMPLE_TRANSACTION,
    ] {
        if t & bit != 0 {
            c.u64s(1);
        }
    }
    if has(PERF_SAMPLE_REGS_INTR) && c.u64() != 0 {
        c.u64s(u64::from(info.regs_intr_mask().count_ones()));
    }
    for bit in [
        PERF_SAMPLE_PHYS_ADDR,
        PERF_SAMPLE_CGROUP,
        PERF_SAMPLE_DATA_PAGE_SIZE,
        PERF_SAMPLE_CODE_PAGE_SIZE,
    ] {
        if has(bit) {
            c.u64s(1);
        }
    }
    if has(PERF_SAMPLE_AUX) {
        let size = c.u64();
        c.keep(size);
    }
}

/// A walk over a record, swapping as it goes; past the end it does nothing.
struct Walk<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl Walk<'_> {
    /// Swaps a u64 and returns it (native), or 0 past the end.
    fn u64(&mut self) -> u64 {
        swap_at::<8>(self.buf, self.at);
        let v = Endian::NATIVE.u64_at(self.buf, self.at).unwrap_or(0);
        self.at = self.at.saturating_add(8);
        v
    }

    fn u32(&mut self) -> u32 {
        swap_at::<4>(self.buf, self.at);
        let v = Endian::NATIVE.u32_at(self.buf, self.at).unwrap_or(0);
        self.at = self.at.saturating_add(4);
        v
    }

    fn u32s(&mut self, n: usize) {
        (0..n).for_each(|_| {
            self.u32();
        });
    }

    fn u64s(&mut self, n: u64) {
        let fits = (self.buf.len().saturating_sub(self.at) / 8) as u64;
        if n > fits {
            // Runs past the record: swap what is there and stop.
            let len = self.buf.len();
            swap_words::<8>(self.buf, self.at.min(len)..len);
            self.at = usize::MAX;
            return;
        }
        let n = n as usize;
        swap_words::<8>(self.buf, self.at..self.at + 8 * n);
        self.at += 8 * n;
    }

    fn keep(&mut self, n: u64) {
        self.at = usize::try_from(n)
            .ok()
            .and_then(|n| self.at.checked_add(n))
            .unwrap_or(usize::MAX);
    }
}

/// HEADER_ATTR: `{ header; struct perf_event_attr attr; u64 id[]; }`.
fn swap_header_attr(buf: &mut [u8], foreign: Endian) {
    let Some(size) = foreign.u32_at(buf, 12) else {
        return;
    };
    let size = if size == 0 { 64 } else { size as usize };
    let Some(image) = buf.get(HEADER_SIZE..HEADER_SIZE + size) else {
        return;
    };
    let attr = Attr::from_image(image, foreign);
    let native = attr.to_bytes(attr.size);
    let n = size.min(native.bytes().len());
    if let (Some(dst), Some(src)) = (
        buf.get_mut(HEADER_SIZE..HEADER_SIZE + n),
        native.bytes().get(..n),
    ) {
        dst.copy_from_slice(src);
    }
    let len = buf.len();
    swap_words::<8>(buf, HEADER_SIZE + size..len);
}

/// AUXTRACE_ERROR: `{ u32 type, code, cpu, pid, tid, fmt; u64 ip; char msg[64];
/// u64 time (fmt >= 1); u32 machine_pid, vcpu (fmt >= 2); }`.
fn swap_auxtrace_error(buf: &mut [u8]) {
    (0..6).for_each(|i| swap_at::<4>(buf, 8 + 4 * i));
    swap_at::<8>(buf, 32);
    let fmt = Endian::NATIVE.u32_at(buf, 28).unwrap_or(0);
    if fmt >= 1 {
        swap_at::<8>(buf, 104);
    }
    if fmt >= 2 {
        swap_at::<4>(buf, 112);
        swap_at::<4>(buf, 116);
    }
}

/// `struct perf_record_cpu_map_data` at `at`: `u16 type`, then
/// CPUS `{ u16 nr; u16 cpu[nr]; }`, MASK `{ u16 nr; u16 long_size;
/// u32/u64 mask[nr]; }` or RANGE_CPUS `{ u8 any_cpu; u8 pad; u16 start, end; }`.
fn swap_cpu_map_data(buf: &mut [u8], at: usize, end: usize) {
    swap_at::<2>(buf, at);
    let n16 = |buf: &[u8], at: usize| usize::from(Endian::NATIVE.u16_at(buf, at).unwrap_or(0));
    match n16(buf, at) {
        0 => {
            swap_at::<2>(buf, at + 2);
            let nr = n16(buf, at + 2);
            (0..nr)
                .take_while(|i| at + 6 + 2 * i <= end)
                .for_each(|i| swap_at::<2>(buf, at + 4 + 2 * i));
        }
        1 => {
            swap_at::<2>(buf, at + 2);
            swap_at::<2>(buf, at + 4);
            let nr = n16(buf, at + 2);
            match n16(buf, at + 4) {
                4 => (0..nr).for_each(|i| swap_at::<4>(buf, at + 6 + 4 * i)),
                // mask64_data has 4 bytes of padding after long_size.
                8 => (0..nr).for_each(|i| swap_at::<8>(buf, at + 10 + 8 * i)),
                _ => {}
            }
        }
        2 => {
            swap_at::<2>(buf, at + 4);
            swap_at::<2>(buf, at + 6);
        }
        _ => {}
    }
}

/// EVENT_UPDATE: `{ u64 type; u64 id; data }`: UNIT and NAME are strings,
/// SCALE a double, CPUS a cpu_map_data.
fn swap_event_update(buf: &mut [u8]) {
    swap_at::<8>(buf, 8);
    swap_at::<8>(buf, 16);
    match Endian::NATIVE.u64_at(buf, 8).unwrap_or(0) {
        super::user::EVENT_UPDATE_SCALE => swap_at::<8>(buf, 24),
        super::user::EVENT_UPDATE_CPUS => {
            let len = buf.len();
            swap_cpu_map_data(buf, 24, len);
        }
        _ => {}
    }
}
