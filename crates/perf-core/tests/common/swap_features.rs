// SPDX-License-Identifier: GPL-2.0-only
//! The byte-swapped copy's feature sections and tracing data (see
//! `swap_copy`): each converted by its layout in perf's header.c and
//! trace-event-read.c.

use perf_core::perf_data::abi::feature;

use super::swap_copy::{attr_image, header_swap, rev, u16_at, u32_at, u64_at};

/// A reader of native feature data writing it swapped.
struct F<'a> {
    b: &'a [u8],
    pos: usize,
    out: Vec<u8>,
}

impl F<'_> {
    fn u32(&mut self) -> u32 {
        let v = u32_at(self.b, self.pos);
        self.out.extend(v.to_be_bytes());
        self.pos += 4;
        v
    }
    fn u64(&mut self) -> u64 {
        let v = u64_at(self.b, self.pos);
        self.out.extend(v.to_be_bytes());
        self.pos += 8;
        v
    }
    fn raw(&mut self, n: usize) {
        self.out.extend_from_slice(&self.b[self.pos..self.pos + n]);
        self.pos += n;
    }
    fn string(&mut self) {
        let n = self.u32() as usize;
        self.raw(n);
    }
}

/// One feature section converted, or `None` for one the converter leaves
/// out; `nr_cpus` is `HEADER_NRCPUS`'s available CPUs (CPU_TOPOLOGY has
/// per-CPU fields).
pub(super) fn feature_data(bit: u32, b: &[u8], nr_cpus: u32) -> Option<Vec<u8>> {
    let mut f = F {
        b,
        pos: 0,
        out: Vec::new(),
    };
    match bit {
        feature::CPU_TOPOLOGY => {
            for _ in 0..2 {
                for _ in 0..f.u32() {
                    f.string();
                }
            }
            for _ in 0..2 * nr_cpus {
                f.u32();
            }
            if f.pos < b.len() {
                for _ in 0..f.u32() {
                    f.string();
                }
                for _ in 0..nr_cpus {
                    f.u32();
                }
            }
        }
        feature::NUMA_TOPOLOGY => {
            for _ in 0..f.u32() {
                f.u32();
                f.u64();
                f.u64();
                f.string();
            }
        }
        feature::MEM_TOPOLOGY => {
            f.u64();
            f.u64();
            for _ in 0..f.u64() {
                f.u64();
                f.u64();
                let bits = f.u64();
                for _ in 0..bits.div_ceil(64) {
                    f.u64();
                }
            }
        }
        // Counts of BPF programs, BTF data, PMUs with caps: 0 here.
        feature::BPF_PROG_INFO | feature::BPF_BTF | feature::PMU_CAPS if b.len() == 4 => {
            f.u32();
        }
        // perf 6.1's end-of-features mark in pipe mode (HEADER_LAST_FEATURE).
        32 if b.is_empty() => {}
        feature::TRACING_DATA => return Some(tracing_data(b)),
        feature::BUILD_ID => return Some(build_ids(b)),
        feature::HOSTNAME
        | feature::OSRELEASE
        | feature::VERSION
        | feature::ARCH
        | feature::CPUDESC
        | feature::CPUID => f.string(),
        feature::NRCPUS => {
            f.u32();
            f.u32();
        }
        feature::TOTAL_MEM | feature::CLOCKID | feature::DIR_FORMAT => {
            f.u64();
        }
        feature::CMDLINE => {
            for _ in 0..f.u32() {
                f.string();
            }
        }
        feature::EVENT_DESC => {
            let nr = f.u32();
            let sz = f.u32() as usize;
            for _ in 0..nr {
                f.out.extend(attr_image(&b[f.pos..f.pos + sz]));
                f.pos += sz;
                let nr_ids = f.u32();
                f.string();
                for _ in 0..nr_ids {
                    f.u64();
                }
            }
        }
        feature::BRANCH_STACK | feature::STAT => {}
        feature::PMU_MAPPINGS => {
            for _ in 0..f.u32() {
                f.u32();
                f.string();
            }
        }
        feature::GROUP_DESC => {
            for _ in 0..f.u32() {
                f.string();
                f.u32();
                f.u32();
            }
        }
        feature::SAMPLE_TIME => {
            f.u64();
            f.u64();
        }
        feature::COMPRESSED => {
            for _ in 0..5 {
                f.u32();
            }
        }
        feature::CLOCK_DATA => {
            f.u32();
            f.u32();
            f.u64();
            f.u64();
        }
        _ => return None,
    }
    assert_eq!(
        f.pos,
        b.len(),
        "feature {} converted whole",
        feature::name(bit)
    );
    Some(f.out)
}

/// `perf_record_header_build_id` records: header, pid.
pub(super) fn build_ids(b: &[u8]) -> Vec<u8> {
    let mut out = b.to_vec();
    let mut at = 0;
    while at < b.len() {
        let size = u16_at(b, at + 6) as usize;
        header_swap(&mut out, at);
        rev(&mut out, at + 8, 4);
        at += size;
    }
    out
}

/// perf's tracing data, with the big-endian flag and every number swapped.
pub(super) fn tracing_data(b: &[u8]) -> Vec<u8> {
    let mut out = b.to_vec();
    let mut p = 10;
    p += b[p..].iter().position(|&c| c == 0).unwrap() + 1; // version
    out[p] = 1; // file_bigendian
    p += 2; // + long_size
    let swap = |out: &mut Vec<u8>, p: &mut usize, n: usize| -> u64 {
        let v = if n == 4 {
            u64::from(u32_at(b, *p))
        } else {
            u64_at(b, *p)
        };
        rev(out, *p, n);
        *p += n;
        v
    };
    swap(&mut out, &mut p, 4); // page_size
    for tag in [12, 13] {
        p += tag; // "header_page\0" / "header_event\0"
        let n = swap(&mut out, &mut p, 8) as usize;
        p += n;
    }
    for _ in 0..swap(&mut out, &mut p, 4) {
        let n = swap(&mut out, &mut p, 8) as usize;
        p += n;
    }
    for _ in 0..swap(&mut out, &mut p, 4) {
        p += b[p..].iter().position(|&c| c == 0).unwrap() + 1;
        for _ in 0..swap(&mut out, &mut p, 4) {
            let n = swap(&mut out, &mut p, 8) as usize;
            p += n;
        }
    }
    let n = swap(&mut out, &mut p, 4) as usize; // kallsyms
    p += n;
    let n = swap(&mut out, &mut p, 4) as usize; // printk
    p += n;
    let n = swap(&mut out, &mut p, 8) as usize; // saved cmdlines
    p += n;
    assert!(p <= b.len());
    out
}
