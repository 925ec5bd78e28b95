// SPDX-License-Identifier: GPL-2.0-only
//! A test-side converter: the byte-swapped copy of a perf.data file (file,
//! pipe or directory), as a machine of the other byte order would have
//! written it. Every field is swapped at its width, the attrs' bitfield
//! bytes bit-reversed, the tracing data's endianness flag set and its
//! numbers swapped, and tracepoint payloads swapped field by field per
//! their formats. Compressed data is decompressed, converted and
//! compressed again.
//!
//! It reads the native file with perf-core's parsers only to find where
//! things are; that the copy is right is checked by the real perf, which
//! must print the same for the copy as for the original. Features it does
//! not know how to convert (topologies, caches, BPF, PMU caps) are left
//! out of the copy.

use std::path::Path;

use perf_core::endian::Endian;
use perf_core::perf_data::abi::{feature, *};
use perf_core::perf_data::header::{self, Header};
use perf_core::perf_data::{attrs, TracingData};
use perf_core::record::*;
use perf_core::session::Evlist;
use perf_core::tracefs::Format;

use super::swap_features::{feature_data, tracing_data};

const NE: Endian = Endian::NATIVE;

pub(super) fn rev(b: &mut [u8], at: usize, n: usize) {
    if let Some(f) = b.get_mut(at..at + n) {
        f.reverse();
    }
}

pub(super) fn u16_at(b: &[u8], at: usize) -> u16 {
    NE.u16_at(b, at).unwrap()
}
pub(super) fn u32_at(b: &[u8], at: usize) -> u32 {
    NE.u32_at(b, at).unwrap()
}
pub(super) fn u64_at(b: &[u8], at: usize) -> u64 {
    NE.u64_at(b, at).unwrap()
}

/// The attr image a machine of the other byte order writes.
pub(super) fn attr_image(native: &[u8]) -> Vec<u8> {
    assert_eq!(
        NE,
        Endian::Little,
        "the converter writes big-endian copies of little-endian files"
    );
    let mut b = native.to_vec();
    for (at, n) in [
        (0, 4),
        (4, 4),
        (8, 8),
        (16, 8),
        (24, 8),
        (32, 8),
        (48, 4),
        (52, 4),
        (56, 8),
        (64, 8),
        (72, 8),
        (80, 8),
        (88, 4),
        (92, 4),
        (96, 8),
        (104, 4),
        (108, 2),
        (110, 2),
        (112, 4),
        (116, 4),
        (120, 8),
        (128, 8),
        (136, 8),
    ] {
        if at + n <= b.len() {
            rev(&mut b, at, n);
        }
    }
    // The bitfield word: the first field is the top bit of byte 0.
    for byte in b.iter_mut().skip(40).take(8) {
        *byte = byte.reverse_bits();
    }
    b
}

/// Converts a whole file, pipe-mode file or `--threads` directory.
pub fn swap_copy(src: &Path, dst: &Path) {
    if src.is_dir() {
        std::fs::create_dir_all(dst).unwrap();
        let main = std::fs::read(src.join("data")).unwrap();
        let (out, evlist, td) = file(&main);
        std::fs::write(dst.join("data"), out).unwrap();
        for e in std::fs::read_dir(src).unwrap() {
            let name = e.unwrap().file_name().into_string().unwrap();
            if name.starts_with("data.") {
                let b = std::fs::read(src.join(&name)).unwrap();
                let mut c = Conv {
                    evlist: evlist.clone(),
                    td: td.clone(),
                    nr_cpus: 0,
                };
                std::fs::write(dst.join(&name), c.records(&b)).unwrap();
            }
        }
        return;
    }
    let b = std::fs::read(src).unwrap();
    let out = match header::parse(&b, "src").unwrap() {
        Header::Pipe { .. } => {
            let mut out = b[..16].to_vec();
            out[..8].reverse();
            rev(&mut out, 8, 8);
            let mut c = Conv {
                evlist: Evlist::default(),
                td: None,
                nr_cpus: 0,
            };
            out.extend(c.records(&b[16..]));
            out
        }
        Header::File(_) => file(&b).0,
    };
    std::fs::write(dst, out).unwrap();
}

/// A file-mode file: header, attrs and ids, data, features.
fn file(b: &[u8]) -> (Vec<u8>, Evlist, Option<TracingData>) {
    let Header::File(h) = header::parse(b, "src").unwrap() else {
        panic!("not a file")
    };
    let mut out = b[..h.data.offset as usize].to_vec();
    out[..8].reverse();
    for i in 0..7 {
        rev(&mut out, 8 + 8 * i, 8);
    }
    // Attrs and their ids.
    let mut evlist = Evlist::default();
    let parsed = attrs::parse_attrs(
        &b[h.attrs.offset as usize..h.attrs.end() as usize],
        &h,
        "src",
    )
    .unwrap();
    for (i, (attr, ids)) in parsed.iter().enumerate() {
        let at = (h.attrs.offset + i as u64 * h.attr_size) as usize;
        let n = (h.attr_size - 16) as usize;
        let img = attr_image(&b[at..at + n]);
        out[at..at + n].copy_from_slice(&img);
        rev(&mut out, at + n, 8);
        rev(&mut out, at + n + 8, 8);
        let id_bytes = &b[ids.offset as usize..ids.end() as usize];
        for j in 0..id_bytes.len() / 8 {
            rev(&mut out, ids.offset as usize + 8 * j, 8);
        }
        evlist.add(*attr, attrs::parse_ids(id_bytes, NE));
    }
    // Features: the ones this converter knows, converted; the others left out.
    let table = h.feature_table();
    let mut kept = Vec::new();
    let mut td = None;
    let mut nr_cpus = 0;
    for (i, bit) in h.feature_bits().enumerate() {
        let s = header::Section::read(&b[table.offset as usize..], 16 * i, NE);
        let data = &b[s.offset as usize..s.end() as usize];
        if bit == feature::TRACING_DATA {
            td = Some(TracingData::parse(data, "src", s.offset).unwrap());
        }
        if bit == feature::NRCPUS {
            nr_cpus = u32_at(data, 0);
        }
        if let Some(conv) = feature_data(bit, data, nr_cpus) {
            kept.push((bit, conv));
        }
    }
    if let Some(t) = &td {
        evlist.set_tracepoint_formats(t);
    }
    let mut c = Conv {
        evlist,
        td,
        nr_cpus,
    };
    let data = c.records(&b[h.data.offset as usize..h.data.end() as usize]);
    // Recompressed data may differ in size.
    out[48..56].copy_from_slice(&(data.len() as u64).to_be_bytes());
    out.extend(&data);
    // The feature bitmap, table and sections.
    let mut bits = [0u64; 4];
    for (bit, _) in &kept {
        bits[*bit as usize / 64] |= 1 << (bit % 64);
    }
    for (i, w) in bits.iter().enumerate() {
        out[72 + 8 * i..80 + 8 * i].copy_from_slice(&w.to_be_bytes());
    }
    let mut at = out.len() as u64 + 16 * kept.len() as u64;
    for (_, d) in &kept {
        out.extend(at.to_be_bytes());
        out.extend((d.len() as u64).to_be_bytes());
        at += d.len() as u64;
    }
    for (_, d) in &kept {
        out.extend(d);
    }
    let (evlist, td) = (c.evlist, c.td);
    (out, evlist, td)
}

pub(super) fn header_swap(out: &mut [u8], at: usize) {
    rev(out, at, 4);
    rev(out, at + 4, 2);
    rev(out, at + 6, 2);
}

/// The conversion state of a data stream: the evsels so far (pipe mode
/// adds to them), the formats, compression.
struct Conv {
    evlist: Evlist,
    td: Option<TracingData>,
    nr_cpus: u32,
}

impl Conv {
    /// Converts a stream of records.
    fn records(&mut self, b: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(b.len());
        let mut at = 0;
        let mut z: Option<Zstream> = None;
        while at + 8 <= b.len() {
            let size = u16_at(b, at + 6) as usize;
            let type_ = u32_at(b, at);
            let rec = &b[at..at + size];
            match type_ {
                PERF_RECORD_COMPRESSED => {
                    let z = z.get_or_insert_with(Zstream::new);
                    let plain = z.decompress(&rec[8..]);
                    let swapped = self.chunk(&plain, &mut z.carry);
                    for piece in z.compress(&swapped) {
                        let mut r = Vec::new();
                        r.extend(PERF_RECORD_COMPRESSED.to_be_bytes());
                        r.extend(0u16.to_be_bytes());
                        r.extend(((piece.len() + 8) as u16).to_be_bytes());
                        r.extend(piece);
                        out.extend(r);
                    }
                    at += size;
                    continue;
                }
                PERF_RECORD_HEADER_TRACING_DATA => {
                    let n = u32_at(rec, 8) as usize;
                    let data = &b[at + size..at + size + n];
                    let td = TracingData::parse(data, "src", 0).unwrap();
                    self.evlist.set_tracepoint_formats(&td);
                    self.td = Some(td);
                    out.extend(self.record(rec));
                    out.extend(tracing_data(data));
                    at += size + n;
                    continue;
                }
                _ => {}
            }
            out.extend(self.record(rec));
            at += size;
            if type_ == PERF_RECORD_AUXTRACE {
                let n = u64_at(rec, 8) as usize;
                out.extend_from_slice(&b[at..at + n]);
                at += n;
            }
        }
        assert_eq!(at, b.len());
        out
    }

    /// Converts the whole records of `carry + plain`, keeping the last
    /// partial one in `carry`; returns bytes of the same length as `plain`
    /// minus what stays carried plus what was carried.
    fn chunk(&mut self, plain: &[u8], carry: &mut Vec<u8>) -> Vec<u8> {
        carry.extend_from_slice(plain);
        let mut at = 0;
        let mut out = Vec::new();
        while at + 8 <= carry.len() {
            let size = u16_at(carry, at + 6) as usize;
            if at + size > carry.len() {
                break;
            }
            out.extend(self.record(&carry[at..at + size]));
            at += size;
        }
        carry.drain(..at);
        out
    }

    /// One record, swapped.
    fn record(&mut self, rec: &[u8]) -> Vec<u8> {
        let mut out = rec.to_vec();
        let type_ = u32_at(rec, 0);
        let h = perf_core::record::header(rec).unwrap();
        header_swap(&mut out, 0);
        if type_ >= PERF_RECORD_USER_TYPE_START {
            self.user(rec, &mut out);
            return out;
        }
        let evsel = self
            .evlist
            .event2evsel(h, rec, NE, "src", 0)
            .unwrap()
            .expect("an evsel")
            .clone();
        let info = evsel.info;
        if type_ == PERF_RECORD_SAMPLE {
            sample(
                &mut W {
                    out: &mut out,
                    at: 8,
                },
                rec,
                &info,
                evsel.tp_format.as_deref(),
            );
            return out;
        }
        let t = info.sample_type();
        let trailer = info.trailer_size();
        let end = 8 + ((rec.len() - 8) & !7) - trailer;
        let mut tw = W {
            out: &mut out,
            at: end,
        };
        if trailer > 0 {
            for (bit, pair) in [
                (PERF_SAMPLE_TID, true),
                (PERF_SAMPLE_TIME, false),
                (PERF_SAMPLE_ID, false),
                (PERF_SAMPLE_STREAM_ID, false),
                (PERF_SAMPLE_CPU, true),
                (PERF_SAMPLE_IDENTIFIER, false),
            ] {
                if t & bit != 0 {
                    if pair {
                        tw.n(4, 2);
                    } else {
                        tw.n(8, 1);
                    }
                }
            }
        }
        let mut w = W {
            out: &mut out,
            at: 8,
        };
        match type_ {
            PERF_RECORD_MMAP => {
                w.n(4, 2);
                w.n(8, 3);
            }
            PERF_RECORD_MMAP2 => {
                w.n(4, 2);
                w.n(8, 3);
                if h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID == 0 {
                    w.n(4, 2);
                    w.n(8, 2);
                } else {
                    w.at += 24;
                }
                w.n(4, 2);
            }
            PERF_RECORD_COMM => {
                w.n(4, 2);
            }
            PERF_RECORD_FORK | PERF_RECORD_EXIT => {
                w.n(4, 4);
                w.n(8, 1);
            }
            PERF_RECORD_LOST
            | PERF_RECORD_THROTTLE
            | PERF_RECORD_UNTHROTTLE
            | PERF_RECORD_LOST_SAMPLES => {
                w.n(8, (end - 8) / 8);
            }
            PERF_RECORD_SWITCH_CPU_WIDE => {
                w.n(4, 2);
            }
            PERF_RECORD_KSYMBOL => {
                w.n(8, 1);
                w.n(4, 1);
                w.n(2, 2);
            }
            PERF_RECORD_BPF_EVENT => {
                w.n(2, 2);
                w.n(4, 1);
            }
            PERF_RECORD_SWITCH => {}
            t => panic!("the converter does not know record type {t}"),
        }
        out
    }

    /// perf's own records.
    fn user(&mut self, rec: &[u8], out: &mut [u8]) {
        let type_ = u32_at(rec, 0);
        let mut w = W { out, at: 8 };
        let words = (rec.len() - 8) / 8;
        match type_ {
            PERF_RECORD_HEADER_ATTR => {
                let (attr, ids, size) = perf_core::perf_data::user::header_attr(rec).unwrap();
                let size = size as usize;
                w.out[8..8 + size].copy_from_slice(&attr_image(&rec[8..8 + size]));
                w.at = 8 + size;
                w.n(8, ids.len());
                self.evlist.add(attr, ids);
                if let Some(td) = &self.td {
                    self.evlist.set_tracepoint_formats(td);
                }
            }
            PERF_RECORD_HEADER_TRACING_DATA => {
                w.n(4, 1);
            }
            PERF_RECORD_HEADER_BUILD_ID => {
                w.n(4, 1);
            }
            PERF_RECORD_HEADER_FEATURE => {
                let feat = u64_at(rec, 8);
                w.n(8, 1);
                if feat == u64::from(feature::NRCPUS) {
                    self.nr_cpus = u32_at(rec, 16);
                }
                let data = feature_data(feat as u32, &rec[16..], self.nr_cpus)
                    .unwrap_or_else(|| panic!("feature {feat}"));
                w.out[16..].copy_from_slice(&data);
                if feat == u64::from(feature::EVENT_DESC) {
                    let mut f = perf_core::perf_data::Features::default();
                    f.parse_section(feat as u32, &rec[16..], NE, "src", 0)
                        .unwrap();
                    self.evlist.set_names(&f.event_desc);
                }
            }
            PERF_RECORD_FINISHED_ROUND
            | PERF_RECORD_FINISHED_INIT
            | PERF_RECORD_HEADER_EVENT_TYPE => {}
            PERF_RECORD_ID_INDEX | PERF_RECORD_STAT_CONFIG | PERF_RECORD_STAT_ROUND => {
                w.n(8, words);
            }
            PERF_RECORD_THREAD_MAP => {
                let nr = w.n(8, 1) as usize;
                for _ in 0..nr {
                    w.n(8, 1);
                    w.at += 16;
                }
            }
            PERF_RECORD_CPU_MAP => cpu_map(&mut w),
            PERF_RECORD_STAT => {
                w.n(8, 1);
                w.n(4, 2);
                w.n(8, 3);
            }
            PERF_RECORD_EVENT_UPDATE => {
                let t = w.n(8, 1);
                w.n(8, 1);
                match t {
                    // PERF_EVENT_UPDATE__SCALE, __CPUS
                    1 => {
                        w.n(8, 1);
                    }
                    3 => cpu_map(&mut w),
                    _ => {}
                }
            }
            PERF_RECORD_TIME_CONV => {
                w.n(8, if rec.len() >= 56 { 5 } else { 3 });
            }
            t => panic!("the converter does not know user record type {t}"),
        }
    }
}

/// A `perf_record_cpu_map_data` at `w.at`.
fn cpu_map(w: &mut W<'_>) {
    let t = w.n(2, 1);
    match t {
        0 => {
            let nr = w.n(2, 1) as usize;
            w.n(2, nr);
        }
        1 => {
            let nr = w.n(2, 1) as usize;
            let long = w.n(2, 1);
            if long == 8 {
                w.at += 4;
            }
            w.n(long as usize, nr);
        }
        2 => {
            w.at += 2;
            w.n(2, 2);
        }
        t => panic!("cpu map type {t}"),
    }
}

/// A writer walking a native record, swapping `count` fields of `width`
/// bytes and returning the last one's native value.
struct W<'a> {
    out: &'a mut [u8],
    at: usize,
}

impl W<'_> {
    fn n(&mut self, width: usize, count: usize) -> u64 {
        let mut last = 0;
        for _ in 0..count {
            let b = &self.out[self.at..self.at + width];
            last = match width {
                2 => u64::from(u16::from_ne_bytes([b[0], b[1]])),
                4 => u64::from(u32::from_ne_bytes(b.try_into().unwrap())),
                8 => u64::from_ne_bytes(b.try_into().unwrap()),
                _ => 0,
            };
            rev(self.out, self.at, width);
            self.at += width;
        }
        last
    }
}

/// A SAMPLE body, in the kernel's order, tracepoint payloads per format.
fn sample(w: &mut W<'_>, rec: &[u8], info: &ParseInfo, format: Option<&Format>) {
    let t = info.sample_type();
    let has = |b| t & b != 0;
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
                w.n(4, 2);
            } else {
                w.n(8, 1);
            }
        }
    }
    if has(PERF_SAMPLE_READ) {
        let rf = info.read_format();
        let per =
            1 + usize::from(rf & PERF_FORMAT_ID != 0) + usize::from(rf & PERF_FORMAT_LOST != 0);
        let times = usize::from(rf & PERF_FORMAT_TOTAL_TIME_ENABLED != 0)
            + usize::from(rf & PERF_FORMAT_TOTAL_TIME_RUNNING != 0);
        if rf & PERF_FORMAT_GROUP != 0 {
            let nr = w.n(8, 1) as usize;
            w.n(8, times + nr * per);
        } else {
            w.n(8, per + times);
        }
    }
    if has(PERF_SAMPLE_CALLCHAIN) {
        let nr = w.n(8, 1) as usize;
        w.n(8, nr);
    }
    if has(PERF_SAMPLE_RAW) {
        let size = w.n(4, 1) as usize;
        let start = w.at;
        if let Some(f) = format {
            raw(
                &mut w.out[start..start + size],
                &rec[start..start + size],
                f,
            );
        }
        w.at += size;
    }
    assert_eq!(
        t & !(PERF_SAMPLE_MASK | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW),
        0,
        "sample_type {t:#x}: the converter knows only these fields"
    );
}

/// A tracepoint payload: every numeric field (and array element) swapped,
/// `__data_loc` words too; strings as they are.
fn raw(out: &mut [u8], native: &[u8], f: &Format) {
    for field in f.common_fields.iter().chain(&f.fields) {
        let (off, size) = (field.offset as usize, field.size as usize);
        if field.is_dynamic() {
            rev(out, off, size);
            continue;
        }
        if field.is_array() {
            if field.is_string() || field.type_name.contains("char") || field.arraylen == 0 {
                continue;
            }
            let elem = size / field.arraylen as usize;
            for i in 0..field.arraylen as usize {
                rev(out, off + i * elem, elem);
            }
            continue;
        }
        if matches!(size, 2 | 4 | 8) && off + size <= native.len() {
            rev(out, off, size);
        }
    }
}

/// One zstd stream through the file, both ways, as perf writes it.
struct Zstream {
    d: zstd_safe::DCtx<'static>,
    c: zstd_safe::CCtx<'static>,
    carry: Vec<u8>,
}

impl Zstream {
    fn new() -> Zstream {
        let mut c = zstd_safe::CCtx::create();
        c.init(1).unwrap();
        Zstream {
            d: zstd_safe::DCtx::create(),
            c,
            carry: Vec::new(),
        }
    }

    fn decompress(&mut self, input: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; 64 << 20];
        let mut inb = zstd_safe::InBuffer::around(input);
        let mut ob = zstd_safe::OutBuffer::around(out.as_mut_slice());
        while inb.pos() < input.len() {
            self.d.decompress_stream(&mut ob, &mut inb).unwrap();
        }
        let n = ob.pos();
        out.truncate(n);
        out
    }

    /// Compresses and flushes, into pieces of at most 64 KiB - 8.
    fn compress(&mut self, data: &[u8]) -> Vec<Vec<u8>> {
        let mut out = vec![0u8; data.len() + 65536];
        let mut pos = 0;
        let mut inb = zstd_safe::InBuffer::around(data);
        while inb.pos() < data.len() {
            let mut o = zstd_safe::OutBuffer::around_pos(out.as_mut_slice(), pos);
            self.c.compress_stream(&mut o, &mut inb).unwrap();
            pos = o.pos();
        }
        loop {
            let mut o = zstd_safe::OutBuffer::around_pos(out.as_mut_slice(), pos);
            let left = self.c.flush_stream(&mut o).unwrap();
            pos = o.pos();
            if left == 0 {
                break;
            }
        }
        out.truncate(pos);
        out.chunks(65535 - 8).map(<[u8]>::to_vec).collect()
    }
}
