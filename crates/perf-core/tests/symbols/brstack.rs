// SPDX-License-Identifier: GPL-2.0-only
//! Branch stacks against perf 6.1. There is no LBR on the test machine, so
//! the file is written by hand (`common/synth.rs`): a COMM and an MMAP2 of
//! a binary built here, and samples whose branch entries point into its
//! functions, with every flag bit and branch type. Each entry, and each of
//! its addresses resolved by this crate's machine, must be what
//! `perf script -F brstack` and `-F brstacksym` print for the file.

use object::{Object, ObjectSegment, ObjectSymbol, SegmentFlags};
use perf_core::record::*;

use crate::common::synth::{comm, record, round, Synth};
use crate::perf::{build, Recording, TempDir};
use crate::script::{each_sample, sym_off};

const BASE: u64 = 0x5555_5555_4000;
const PID: u32 = 4242;
const FUNCTIONS: [&str; 4] = ["branch_alpha", "branch_beta", "branch_gamma", "main"];
/// An address no map holds.
const UNMAPPED: u64 = 0x1234;
/// perf 6.1's branch type names (util/branch.c) by `PERF_BR_*`: "" for
/// `PERF_BR_UNKNOWN`; for `PERF_BR_EXTEND_ABI` (15) the entry's `new_type`
/// (0 here: `FAULT_ALGN`).
const TYPE_NAMES: [&str; 16] = [
    "",
    "COND",
    "UNCOND",
    "IND",
    "CALL",
    "IND_CALL",
    "RET",
    "SYSCALL",
    "SYSRET",
    "COND_CALL",
    "COND_RET",
    "ERET",
    "IRQ",
    "SERROR",
    "NO_TX",
    "FAULT_ALGN",
];

fn u64s(v: &[u64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

/// `/M/X/A/cycles/type` as perf prints it (`P` when both predicted and
/// mispred are set: perf's `mispred_str`).
fn flags_text(e: &BranchEntry) -> String {
    let p = if e.predicted() {
        'P'
    } else if e.mispred() {
        'M'
    } else {
        '-'
    };
    let x = if e.in_tx() { 'X' } else { '-' };
    let a = if e.abort() { 'A' } else { '-' };
    let t = TYPE_NAMES[usize::from(e.type_())];
    format!("{p}/{x}/{a}/{}/{t}", e.cycles())
}

/// The executable segment (address, file offset, size) and the functions
/// (address, size) of the binary.
fn layout(exe: &std::path::Path) -> ((u64, u64, u64), Vec<(u64, u64)>) {
    let bytes = std::fs::read(exe).expect("read binary");
    let file = object::File::parse(&*bytes).expect("ELF");
    let seg = file
        .segments()
        .find(|s| matches!(s.flags(), SegmentFlags::Elf { p_flags, .. } if p_flags.0 & 1 != 0))
        .expect("executable segment");
    let text = (seg.address(), seg.file_range().0, seg.size());
    let funcs = FUNCTIONS
        .iter()
        .map(|n| {
            let s = file
                .symbols()
                .find(|s| s.name() == Ok(*n))
                .expect("function");
            (s.address(), s.size())
        })
        .collect();
    (text, funcs)
}

/// The file: samples with 1, 2, 4, 7, 16, 0 and 3 entries; every flag bit
/// alone and together, cycles 0 to 65535, every type, one unmapped target
/// in eleven.
fn write(exe: &std::path::Path, hw_index: bool) -> Vec<u8> {
    let ((vaddr, off, size), funcs) = layout(exe);
    let start = vaddr & !0xfff;
    let mut s = Synth::new();
    s.attr.type_ = 0;
    s.attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
    s.attr.branch_sample_type = 1 | 8; // PERF_SAMPLE_BRANCH_USER | _ANY
    if hw_index {
        s.attr.branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX;
    }
    let pidtid = u64::from(PID) | u64::from(PID) << 32;
    let mut data = comm(PID, "branches", 1000);
    let mut mmap2 = u64s(&[
        pidtid,
        BASE + start,
        (vaddr + size - start + 0xfff) & !0xfff,
    ]);
    mmap2.extend(u64s(&[off & !0xfff, 0, 0, 0, 5 | 2 << 32]));
    let name = exe.to_str().expect("utf-8 path");
    mmap2.extend(name.as_bytes());
    mmap2.resize((mmap2.len() + 1).div_ceil(8) * 8, 0);
    mmap2.extend(u64s(&[pidtid, 1001, 7]));
    data.extend(record(PERF_RECORD_MMAP2, 2, &mmap2));
    let addrs: Vec<u64> = funcs
        .iter()
        .enumerate()
        .map(|(i, (a, sz))| BASE + a + (i as u64 * 3) % sz)
        .collect();
    let mut n = 0u64;
    for (i, depth) in [1u64, 2, 4, 7, 16, 0, 3].into_iter().enumerate() {
        let mut body = u64s(&[BASE + funcs[0].0, pidtid, 2000 + i as u64, 7, depth]);
        if hw_index {
            body.extend(u64s(&[i as u64]));
        }
        for _ in 0..depth {
            let from = addrs[(n % 4) as usize] + n % 3;
            let to = if n % 11 != 0 {
                addrs[((n + 1) % 4) as usize]
            } else {
                UNMAPPED
            };
            let flags = (n % 16) | [0u64, 1, 7, 300, 65535][(n % 5) as usize] << 4 | (n % 16) << 20;
            body.extend(u64s(&[from, to, flags]));
            n += 1;
        }
        data.extend(record(PERF_RECORD_SAMPLE, 2, &body));
    }
    data.extend(round());
    s.data = data;
    s.build().0
}

fn check(hw_index: bool) {
    let dir = TempDir::new(if hw_index {
        "brstack-hw-idx"
    } else {
        "brstack"
    });
    let exe = build(&dir.0, "gcc", "branches.c", &["-O1", "-g"], "branches");
    let data = dir.0.join("perf.data");
    std::fs::write(&data, write(&exe, hw_index)).expect("write perf.data");
    let rec = Recording { dir, data };
    std::fs::create_dir_all(rec.home()).expect("home");
    let (mut addrs, mut syms) = (String::new(), String::new());
    let mut entries = 0;
    each_sample(&rec.data, rec.conf(), |ev| {
        let b = ev
            .record
            .sample
            .branch_stack
            .as_deref()
            .expect("branch stack");
        assert_eq!(b.hw_idx.is_some(), hw_index);
        let (mut a, mut s) = (Vec::new(), Vec::new());
        for e in &b.entries {
            let f = flags_text(e);
            a.push(format!("0x{:x}/0x{:x}/{f}", e.from, e.to));
            let (from, to) = (ev.resolve_addr(e.from), ev.resolve_addr(e.to));
            s.push(format!("{}/{}/{f}", sym_off(&from), sym_off(&to)));
            entries += 1;
        }
        addrs += &(a.join(" ") + "\n");
        syms += &(s.join(" ") + "\n");
    });
    let words = |t: String| -> String {
        t.lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ") + "\n")
            .collect()
    };
    assert_eq!(entries, 33);
    assert_eq!(addrs, words(rec.script(&["-F", "brstack"])));
    assert_eq!(syms, words(rec.script(&["-F", "brstacksym"])));
    for f in FUNCTIONS {
        assert!(syms.contains(&format!("{f}+0x")), "{f} in {syms}");
    }
    assert!(syms.contains("/[unknown]/"));
}

#[test]
fn branch_stacks_equal_perf_script() {
    skip_unless_perf!();
    check(false);
}

#[test]
fn branch_stacks_with_hw_index_equal_perf_script() {
    skip_unless_perf!();
    check(true);
}
