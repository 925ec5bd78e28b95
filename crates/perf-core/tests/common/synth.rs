// SPDX-License-Identifier: GPL-2.0-only
//! Small perf.data files written by hand, laid out as perf writes them
//! (header, ids, attrs, data, feature table, features), for the bad-input
//! tests: they need no perf tool and no root.

use perf_core::attr::{flag, Attr};
use perf_core::perf_data::abi::*;
use perf_core::record::*;

/// The sample_type of the synthetic event.
pub const SAMPLE_TYPE: u64 = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID;

/// A record: header then body (native order), padded to 8 bytes.
pub fn record(type_: u32, misc: u16, body: &[u8]) -> Vec<u8> {
    let mut b = body.to_vec();
    b.resize(body.len().div_ceil(8) * 8, 0);
    let mut r = type_.to_ne_bytes().to_vec();
    r.extend_from_slice(&misc.to_ne_bytes());
    r.extend_from_slice(&((b.len() + 8) as u16).to_ne_bytes());
    r.extend(b);
    r
}

fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// A SAMPLE of the synthetic event: ip, pid/tid, time, id.
pub fn sample(ip: u64, pid: u32, time: u64) -> Vec<u8> {
    let pidtid = u64::from(pid) | u64::from(pid) << 32;
    record(PERF_RECORD_SAMPLE, 2, &u64s(&[ip, pidtid, time, 7]))
}

/// A COMM with its `sample_id` trailer (tid, time, id).
pub fn comm(pid: u32, name: &str, time: u64) -> Vec<u8> {
    let mut b = u64s(&[u64::from(pid) | u64::from(pid) << 32]);
    let mut n = name.as_bytes().to_vec();
    n.resize((name.len() + 1).div_ceil(8) * 8, 0);
    b.extend(n);
    b.extend(u64s(&[u64::from(pid) | u64::from(pid) << 32, time, 7]));
    record(PERF_RECORD_COMM, 0, &b)
}

/// FINISHED_ROUND.
pub fn round() -> Vec<u8> {
    record(PERF_RECORD_FINISHED_ROUND, 0, &[])
}

/// Compresses `data` the way `perf record -z` does (one stream, never
/// ended, flushed after each read of a ring: here every 60 KiB of input),
/// each flush's output in COMPRESSED records of at most 60 KiB.
pub fn compressed(data: &[u8], level: i32) -> Vec<u8> {
    compressed_in(data, level, 60 << 10)
}

/// [`compressed`] with a flush every `chunk` bytes of input: with a chunk
/// that is not a multiple of the record size, each compressed record
/// decompresses to a piece that ends inside a record.
pub fn compressed_in(data: &[u8], level: i32, chunk: usize) -> Vec<u8> {
    let mut c = zstd_safe::CCtx::create();
    c.init(level).unwrap();
    let mut records = Vec::new();
    for part in data.chunks(chunk) {
        let mut out = vec![0u8; part.len() + 4096];
        let mut pos = 0;
        let mut inb = zstd_safe::InBuffer::around(part);
        while inb.pos() < part.len() {
            let mut o = zstd_safe::OutBuffer::around_pos(out.as_mut_slice(), pos);
            c.compress_stream(&mut o, &mut inb).unwrap();
            pos = o.pos();
        }
        loop {
            let mut o = zstd_safe::OutBuffer::around_pos(out.as_mut_slice(), pos);
            let left = c.flush_stream(&mut o).unwrap();
            pos = o.pos();
            if left == 0 {
                break;
            }
        }
        for piece in out[..pos].chunks(60 << 10) {
            records.extend_from_slice(&PERF_RECORD_COMPRESSED.to_ne_bytes());
            records.extend_from_slice(&0u16.to_ne_bytes());
            records.extend_from_slice(&((piece.len() + 8) as u16).to_ne_bytes());
            records.extend_from_slice(piece);
        }
    }
    records
}

/// COMPRESSED records turned into COMPRESSED2 ones (newer perf): `{ header;
/// u64 data_size; char data[]; }`, padded to 8 bytes.
pub fn compressed2(compressed: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 8 <= compressed.len() {
        let size = u16::from_ne_bytes([compressed[at + 6], compressed[at + 7]]) as usize;
        let data = &compressed[at + 8..at + size];
        let mut body = (data.len() as u64).to_ne_bytes().to_vec();
        body.extend_from_slice(data);
        out.extend(record(PERF_RECORD_COMPRESSED2, 0, &body));
        at += size;
    }
    out
}

/// A perf string feature: `{ u32 len; char s[len]; }`.
pub fn string(s: &str) -> Vec<u8> {
    let len = (s.len() + 1).div_ceil(8) * 8;
    let mut b = (len as u32).to_ne_bytes().to_vec();
    b.extend_from_slice(s.as_bytes());
    b.resize(4 + len, 0);
    b
}

/// The parts of a synthetic file.
pub struct Synth {
    pub attr: Attr,
    pub data: Vec<u8>,
    pub features: Vec<(u32, Vec<u8>)>,
}

/// Where things are in a built file.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub ids: u64,
    pub attrs: u64,
    pub data: u64,
    pub data_size: u64,
    pub table: u64,
}

impl Synth {
    /// One event (cpu-clock, sample_id_all) with ids [7], a COMM, four
    /// samples, a FINISHED_ROUND; features HOSTNAME and NRCPUS.
    pub fn new() -> Synth {
        let mut attr = Attr {
            type_: 1,
            size: 128,
            sample_period: 1000,
            sample_type: SAMPLE_TYPE,
            ..Attr::default()
        };
        attr.set(flag::SAMPLE_ID_ALL, true);
        let mut data = comm(42, "hello", 5);
        for t in [10, 30, 20, 40] {
            data.extend(sample(0x1000 + t, 42, t));
        }
        data.extend(round());
        let mut nrcpus = 2u32.to_ne_bytes().to_vec();
        nrcpus.extend_from_slice(&2u32.to_ne_bytes());
        Synth {
            attr,
            data,
            features: vec![
                (feature::HOSTNAME, string("synth")),
                (feature::NRCPUS, nrcpus),
            ],
        }
    }

    /// The file, and where its parts are.
    pub fn build(&self) -> (Vec<u8>, Layout) {
        let ids = 104u64;
        let attrs = ids + 8;
        let data = attrs + 128 + 16;
        let mut b = b"PERFILE2".to_vec();
        let table = data + self.data.len() as u64;
        let mut bits = [0u64; 4];
        for (bit, _) in &self.features {
            bits[*bit as usize / 64] |= 1 << (bit % 64);
        }
        for v in [104, 144, attrs, 144, data, self.data.len() as u64, 0, 0] {
            b.extend_from_slice(&v.to_ne_bytes());
        }
        for w in bits {
            b.extend_from_slice(&w.to_ne_bytes());
        }
        b.extend_from_slice(&7u64.to_ne_bytes());
        b.extend_from_slice(&self.attr.to_bytes(128).bytes()[..128]);
        b.extend_from_slice(&ids.to_ne_bytes());
        b.extend_from_slice(&8u64.to_ne_bytes());
        b.extend_from_slice(&self.data);
        let mut at = table + 16 * self.features.len() as u64;
        let mut sorted = self.features.clone();
        sorted.sort_by_key(|(bit, _)| *bit);
        for (_, f) in &sorted {
            b.extend_from_slice(&at.to_ne_bytes());
            b.extend_from_slice(&(f.len() as u64).to_ne_bytes());
            at += f.len() as u64;
        }
        for (_, f) in &sorted {
            b.extend_from_slice(f);
        }
        (
            b,
            Layout {
                ids,
                attrs,
                data,
                data_size: self.data.len() as u64,
                table,
            },
        )
    }
}
