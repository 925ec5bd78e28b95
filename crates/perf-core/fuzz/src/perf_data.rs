// SPDX-License-Identifier: GPL-2.0-only
//! perf.data files for the session reader: random valid ones (file or pipe
//! mode, either byte order's magic, one to three attrs, samples and
//! side-band records of random layouts from [`generate`](crate::generate),
//! perf's own records, compressed or not), then mutated; or arbitrary
//! bytes. [`check`] reads one through `perf_core::session::Session` from a
//! memfd: it must give a value or an error, never a panic; an error must be
//! a perf.data error naming the file and an offset.

use std::fs::File;
use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};

use perf_core::attr::flag;
use perf_core::perf_data::abi::*;
use perf_core::perf_data::PerfData;
use perf_core::record::*;
use perf_core::session::{Event, Handler, ProcessError, Session, SessionOptions};

use crate::generate;
use crate::layout::Layout;
use crate::rng::Rng;

/// What a run of [`check`] saw.
#[derive(Debug, Default, Clone, Copy)]
pub struct FileTally {
    /// Files read.
    pub files: u64,
    /// Files read to the end.
    pub ok: u64,
    /// Files that gave an error.
    pub errors: u64,
    /// Records handed to the handler.
    pub records: u64,
    /// Samples.
    pub samples: u64,
    /// Files with compressed records.
    pub compressed: u64,
}

impl FileTally {
    /// Adds another tally.
    pub fn add(&mut self, o: FileTally) {
        self.files += o.files;
        self.ok += o.ok;
        self.errors += o.errors;
        self.records += o.records;
        self.samples += o.samples;
        self.compressed += o.compressed;
    }
}

fn rec(type_: u32, body: &[u8]) -> Vec<u8> {
    let mut b = body.to_vec();
    b.resize(body.len().div_ceil(8) * 8, 0);
    let mut r = type_.to_ne_bytes().to_vec();
    r.extend_from_slice(&0u16.to_ne_bytes());
    r.extend_from_slice(&((b.len() + 8) as u16).to_ne_bytes());
    r.extend(b);
    r
}

fn words(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// One of perf's own records, random but well formed.
fn user_record(rng: &mut Rng, ids: &[u64]) -> Vec<u8> {
    let id = ids
        .get(rng.below(ids.len().max(1) as u64) as usize)
        .copied()
        .unwrap_or(0);
    match rng.below(9) {
        0 => rec(PERF_RECORD_FINISHED_ROUND, &[]),
        1 => rec(PERF_RECORD_FINISHED_INIT, &[]),
        2 => {
            // PERF_EVENT_UPDATE__UNIT, __NAME
            let mut b = words(&[rng.below(3), id]);
            b.extend_from_slice(b"msec\0");
            rec(PERF_RECORD_EVENT_UPDATE, &b)
        }
        3 => {
            let mut b = words(&[1, rng.u64() & 0xffff]);
            b.extend_from_slice(b"comm\0\0\0\0\0\0\0\0\0\0\0\0");
            rec(PERF_RECORD_THREAD_MAP, &b)
        }
        4 => rec(PERF_RECORD_CPU_MAP, &[2, 0, 0, 0, 0, 0, 1, 0]),
        5 => rec(
            PERF_RECORD_STAT,
            &words(&[id, rng.u64(), rng.u64(), rng.u64(), rng.u64()]),
        ),
        6 => rec(PERF_RECORD_STAT_ROUND, &words(&[rng.below(2), rng.u64()])),
        7 => rec(PERF_RECORD_ID_INDEX, &words(&[1, id, 0, 0, 0])),
        _ => {
            // An AUXTRACE record and its payload.
            let n = rng.below(64);
            let mut r = rec(PERF_RECORD_AUXTRACE, &words(&[n, 0, 0, 0, 0]));
            r.extend(rng.bytes(n as usize));
            r
        }
    }
}

/// Sets the id a record carries (SAMPLE: IDENTIFIER at word 0; others:
/// the last word of the trailer) when the layout has IDENTIFIER.
fn set_id(record: &mut [u8], layout: &Layout, id: u64) {
    let t = layout.attr.sample_type;
    if t & PERF_SAMPLE_IDENTIFIER == 0 || record.len() < 16 {
        return;
    }
    let ty = u32::from_ne_bytes([record[0], record[1], record[2], record[3]]);
    let at = if ty == PERF_RECORD_SAMPLE {
        8
    } else if layout.attr.has(flag::SAMPLE_ID_ALL) {
        8 + ((record.len() - 8) & !7) - 8
    } else {
        return;
    };
    record[at..at + 8].copy_from_slice(&id.to_ne_bytes());
}

/// zstd-compresses `data` as `perf record -z` does, into COMPRESSED (or
/// COMPRESSED2) records; `splice` is written over the zstd stream at a
/// random place first.
fn compressed(data: &[u8], rng: &mut Rng, splice: &[u8]) -> Vec<u8> {
    let mut c = zstd_safe::CCtx::create();
    let _ = c.init(1 + rng.below(3) as i32);
    let mut out = vec![0u8; data.len() + 4096];
    let mut pos = 0;
    let mut inb = zstd_safe::InBuffer::around(data);
    while inb.pos() < data.len() {
        let mut o = zstd_safe::OutBuffer::around_pos(out.as_mut_slice(), pos);
        if c.compress_stream(&mut o, &mut inb).is_err() {
            break;
        }
        pos = o.pos();
    }
    loop {
        let mut o = zstd_safe::OutBuffer::around_pos(out.as_mut_slice(), pos);
        let left = c.flush_stream(&mut o).unwrap_or(0);
        pos = o.pos();
        if left == 0 {
            break;
        }
    }
    out.truncate(pos);
    if !splice.is_empty() {
        let at = rng.below(out.len() as u64 + 1) as usize;
        let end = (at + splice.len()).min(out.len());
        out.splice(at..end, splice.iter().copied());
    }
    let cut = 16 + rng.below(2000) as usize;
    let two = rng.one_in(2);
    out.chunks(cut)
        .flat_map(|piece| {
            if two {
                let mut b = words(&[piece.len() as u64]);
                b.extend_from_slice(piece);
                rec(PERF_RECORD_COMPRESSED2, &b)
            } else {
                let mut r = PERF_RECORD_COMPRESSED.to_ne_bytes().to_vec();
                r.extend_from_slice(&0u16.to_ne_bytes());
                r.extend_from_slice(&((piece.len() + 8) as u16).to_ne_bytes());
                r.extend_from_slice(piece);
                r
            }
        })
        .collect()
}

/// A random, valid perf.data file.
pub fn file(rng: &mut Rng) -> Vec<u8> {
    let z = rng.one_in(3);
    file_with(rng, z, &[])
}

/// A random perf.data file, compressed if `z`, with `splice` written into
/// its zstd stream.
fn file_with(rng: &mut Rng, z: bool, splice: &[u8]) -> Vec<u8> {
    let mut layout = Layout::random(rng);
    let nr = 1 + rng.below(3) as usize;
    if nr > 1 {
        layout.attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
    }
    layout.attr.size = 128;
    let ids: Vec<u64> = (0..nr).map(|i| 100 + i as u64).collect();
    // The data: samples, side-band and perf's own records.
    let mut data = Vec::new();
    for _ in 0..rng.below(40) {
        let r = match rng.below(8) {
            0..=3 => generate::sample(&layout, rng).map(|(r, _)| r),
            4..=5 => {
                let types = &generate::SIDE_BAND;
                let ty = types[rng.below(types.len() as u64) as usize];
                generate::side_band(&layout, ty, rng).map(|(r, _)| r)
            }
            _ => Some(user_record(rng, &ids)),
        };
        if let Some(mut r) = r {
            set_id(&mut r, &layout, ids[rng.below(nr as u64) as usize]);
            data.extend(r);
        }
    }
    if z {
        data = compressed(&data, rng, splice);
    }
    let pipe = rng.one_in(4);
    let mut out = Vec::new();
    let attr_img = layout.attr.to_bytes(128);
    if pipe {
        out.extend_from_slice(b"PERFILE2");
        out.extend_from_slice(&16u64.to_ne_bytes());
        for id in &ids {
            let mut b = attr_img.bytes()[..128].to_vec();
            b.extend_from_slice(&id.to_ne_bytes());
            out.extend(rec(PERF_RECORD_HEADER_ATTR, &b));
        }
        if z {
            let mut f = words(&[u64::from(feature::COMPRESSED)]);
            for v in [0u32, 1, 1, 1, 1 + rng.below(1 << 20) as u32] {
                f.extend_from_slice(&v.to_ne_bytes());
            }
            out.extend(rec(PERF_RECORD_HEADER_FEATURE, &f));
        }
        out.extend(data);
    } else {
        let ids_at = 104u64;
        let attrs_at = ids_at + 8 * nr as u64;
        let data_at = attrs_at + 144 * nr as u64;
        let features: Vec<(u32, Vec<u8>)> = if z {
            let f: Vec<u8> = [0u32, 1, 1, 1, 1 + rng.below(1 << 20) as u32]
                .iter()
                .flat_map(|v| v.to_ne_bytes())
                .collect();
            vec![
                (
                    feature::HOSTNAME,
                    vec![8, 0, 0, 0, b'f', b'u', b'z', b'z', 0, 0, 0, 0],
                ),
                (feature::COMPRESSED, f),
            ]
        } else {
            vec![(
                feature::HOSTNAME,
                vec![8, 0, 0, 0, b'f', b'u', b'z', b'z', 0, 0, 0, 0],
            )]
        };
        out.extend_from_slice(b"PERFILE2");
        for v in [
            104,
            144,
            attrs_at,
            144 * nr as u64,
            data_at,
            data.len() as u64,
            0,
            0,
        ] {
            out.extend_from_slice(&v.to_ne_bytes());
        }
        let mut bits = 0u64;
        for (bit, _) in &features {
            bits |= 1 << bit;
        }
        out.extend_from_slice(&bits.to_ne_bytes());
        out.extend_from_slice(&[0; 24]);
        for id in &ids {
            out.extend_from_slice(&id.to_ne_bytes());
        }
        for i in 0..nr {
            out.extend_from_slice(&attr_img.bytes()[..128]);
            out.extend_from_slice(&(ids_at + 8 * i as u64).to_ne_bytes());
            out.extend_from_slice(&8u64.to_ne_bytes());
        }
        out.extend(data);
        let mut at = out.len() as u64 + 16 * features.len() as u64;
        for (_, f) in &features {
            out.extend_from_slice(&at.to_ne_bytes());
            out.extend_from_slice(&(f.len() as u64).to_ne_bytes());
            at += f.len() as u64;
        }
        for (_, f) in &features {
            out.extend_from_slice(f);
        }
    }
    // The other byte order's magic: everything is then read swapped.
    if rng.one_in(8) {
        out[..8].copy_from_slice(b"2ELIFREP");
    }
    out
}

/// Mutates a file: bytes flipped or set to interesting values, cut,
/// spliced, sizes rewritten.
pub fn mutate(b: &mut Vec<u8>, rng: &mut Rng) {
    if b.is_empty() {
        return;
    }
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() as u64) as usize;
        match rng.below(5) {
            0 => b[at] ^= 1 << rng.below(8),
            1 => b[at] = rng.u64() as u8,
            2 => {
                let v = rng.interesting().to_ne_bytes();
                let n = (b.len() - at).min(8);
                b[at..at + n].copy_from_slice(&v[..n]);
            }
            3 => b.truncate(at),
            _ => {
                let n = rng.below(64) as usize;
                let extra = rng.bytes(n);
                b.splice(at..at, extra);
            }
        }
        if b.is_empty() {
            return;
        }
    }
}

struct Touch {
    records: u64,
    samples: u64,
}

impl Handler for Touch {
    type Error = ();

    fn sample(&mut self, ev: &Event<'_>) -> Result<(), ()> {
        self.samples += 1;
        let s = &ev.record.sample;
        let m = ev.machine.lock();
        let _ = m
            .find_thread(s.pid, s.tid)
            .map(|t| (t.comm().len(), m.maps(t).find(s.ip).is_some()));
        let _ = ev.raw();
        Ok(())
    }

    fn record(&mut self, ev: &Event<'_>) -> Result<(), ()> {
        self.records += 1;
        assert_eq!(ev.bytes.len(), usize::from(ev.record.header.size));
        Ok(())
    }
}

/// Reads `bytes` as a perf.data file from a memfd (a regular file), with a
/// small decompression bound and queue so that bombs stay fast.
pub fn check(bytes: &[u8]) -> FileTally {
    let mut t = FileTally {
        files: 1,
        ..FileTally::default()
    };
    // SAFETY: memfd_create with a valid NUL-terminated name; the result is
    // checked and, when valid, owned by the File below.
    let fd = unsafe { libc::memfd_create(c"perf-fuzz-data".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return t;
    }
    // SAFETY: fd is a fresh descriptor nothing else owns.
    let mut f = unsafe { File::from_raw_fd(fd) };
    if f.write_all(bytes).is_err() {
        return t;
    }
    let options = SessionOptions {
        queue_bytes: 1 << 20,
        ..SessionOptions::default()
    };
    let data = match PerfData::from_fd(OwnedFd::from(f), "fuzz.data") {
        Ok(d) => d,
        Err(_) => return t,
    };
    let result = Session::new(data, options)
        .map_err(ProcessError::<()>::Data)
        .and_then(|mut s| {
            let mut h = Touch {
                records: 0,
                samples: 0,
            };
            let r = s.process_events(&mut h);
            t.records += h.records;
            t.samples += h.samples;
            t.compressed += u64::from(s.stats().nr_compressed > 0);
            let _ = (s.e_machine(), s.is_64_bit(), s.features().hostname.clone());
            r
        });
    match result {
        Ok(()) => t.ok += 1,
        Err(ProcessError::Data(e)) => {
            t.errors += 1;
            let text = e.to_string();
            assert!(
                matches!(e, perf_core::Error::PerfData(_))
                    && text.starts_with("fuzz.data: ")
                    && text.contains("(at file offset 0x"),
                "an error that does not name the file and offset: {text}"
            );
        }
        Err(ProcessError::Handler(())) => {}
    }
    t
}

/// A generated compressed file with `bytes` written into its zstd stream,
/// checked (the zstd path: garbage, bombs, streams cut anywhere).
pub fn zstd(rng: &mut Rng, bytes: &[u8]) -> FileTally {
    check(&file_with(rng, true, bytes))
}

/// A generated file, mutated, whole, or cut short, checked.
pub fn generated(rng: &mut Rng) -> FileTally {
    let mut f = file(rng);
    match rng.below(8) {
        0 | 1 => check(&f),
        2 => cut_short(&f, rng),
        _ => {
            mutate(&mut f, rng);
            check(&f)
        }
    }
}

/// A valid file and a prefix of it, as a killed `perf record` or a full
/// disk leaves one: the prefix gives no more samples than the whole, and
/// fewer only with an error (a pipe cut at a record boundary excepted: it
/// is a whole, shorter stream).
fn cut_short(f: &[u8], rng: &mut Rng) -> FileTally {
    let whole = check(f);
    let at = rng.below(f.len() as u64) as usize;
    let part = check(&f[..at]);
    let header_size = f.get(8..16).and_then(|b| <[u8; 8]>::try_from(b).ok());
    let pipe = header_size.is_some_and(|b| u64::from_le_bytes(b) == 16 || u64::from_be_bytes(b) == 16);
    if whole.errors == 0 {
        assert!(
            part.samples <= whole.samples,
            "a prefix of {at} bytes gave {} samples, the whole file {}",
            part.samples,
            whole.samples
        );
        assert!(
            part.samples == whole.samples || part.errors == 1 || pipe,
            "a prefix of {at} bytes gave {} of {} samples and no error",
            part.samples,
            whole.samples
        );
    }
    part
}
