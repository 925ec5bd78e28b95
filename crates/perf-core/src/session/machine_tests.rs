// SPDX-License-Identifier: GPL-2.0-only
//! The machine's rules on hand-built records.

use super::*;
use crate::attr::{flag, Attr};
use crate::record::{
    parse, ParseInfo, PERF_RECORD_COMM, PERF_RECORD_KSYMBOL, PERF_RECORD_MMAP2, PERF_SAMPLE_TIME,
};

/// Records whose `sample_id` trailer is `{ u64 time; }`.
fn info() -> ParseInfo {
    let mut a = Attr {
        sample_type: PERF_SAMPLE_TIME,
        ..Attr::default()
    };
    a.set(flag::SAMPLE_ID_ALL, true);
    ParseInfo::new(&a)
}

fn rec(type_: u32, misc: u16, body: &[u8], time: u64) -> Vec<u8> {
    let mut b = body.to_vec();
    while b.len() % 8 != 0 {
        b.push(0);
    }
    let size = (8 + b.len() + 8) as u16;
    let mut r = type_.to_ne_bytes().to_vec();
    r.extend_from_slice(&misc.to_ne_bytes());
    r.extend_from_slice(&size.to_ne_bytes());
    r.extend_from_slice(&b);
    r.extend_from_slice(&time.to_ne_bytes());
    r
}

fn u32s(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn comm(m: &mut Machine, pid: u32, tid: u32, name: &str, time: u64, exec: bool) {
    let mut body = u32s(&[pid, tid]);
    body.extend_from_slice(name.as_bytes());
    body.push(0);
    let misc = if exec { PERF_RECORD_MISC_COMM_EXEC } else { 0 };
    let r = rec(PERF_RECORD_COMM, misc, &body, time);
    m.process(&parse(&r, &info()).unwrap(), &r);
}

/// FORK or EXIT with `ids` = [pid, ppid, tid, ptid].
fn task(m: &mut Machine, type_: u32, misc: u16, ids: [u32; 4], time: u64) {
    let mut body = u32s(&ids);
    body.extend_from_slice(&time.to_ne_bytes());
    let r = rec(type_, misc, &body, time);
    m.process(&parse(&r, &info()).unwrap(), &r);
}

fn mmap2(m: &mut Machine, pid: u32, tid: u32, start: u64, len: u64, name: &str, misc: u16) {
    let mut body = u32s(&[pid, tid]);
    for v in [start, len, 0x1000] {
        body.extend_from_slice(&v.to_ne_bytes());
    }
    body.extend(u32s(&[8, 1]));
    body.extend_from_slice(&77u64.to_ne_bytes());
    body.extend_from_slice(&0u64.to_ne_bytes());
    body.extend(u32s(&[5, 2]));
    body.extend_from_slice(name.as_bytes());
    body.push(0);
    let r = rec(PERF_RECORD_MMAP2, misc, &body, 1);
    m.process(&parse(&r, &info()).unwrap(), &r);
}

#[test]
fn comm_changes_over_time() {
    let mut m = Machine::default();
    m.register_idle_thread();
    assert_eq!(m.find_thread(0, 0).map(Thread::comm), Some("swapper"));
    comm(&mut m, 100, 100, "bash", 10, false);
    let t = m.find_thread(100, 100).unwrap();
    // The first comm replaces the :tid placeholder.
    assert_eq!((t.comm(), t.comms().len(), t.comm_set()), ("bash", 1, true));
    comm(&mut m, 100, 100, "python3", 20, true);
    let t = m.find_thread(-1, 100).unwrap();
    assert_eq!(t.comm(), "python3");
    assert_eq!(
        (t.comm_at(15), t.comm_at(20), t.comm_at(5)),
        ("bash", "python3", "bash")
    );
    assert!(m.comm_exec);
    assert!(m.find_thread(101, 101).is_none());
}

#[test]
fn threads_of_a_process_share_maps_and_new_processes_copy_them() {
    // Kernel symbols from nowhere: the kernel's map stays as recorded.
    let conf = crate::symbol::conf::SymbolConf {
        kallsyms: Some("/nonexistent/kallsyms".into()),
        ..Default::default()
    };
    let mut m = Machine::new(Dsos::new(conf));
    comm(&mut m, 100, 100, "main", 1, false);
    mmap2(&mut m, 100, 100, 0x1000, 0x1000, "/bin/a", 2);
    // A second thread of 100: created with its leader's maps.
    comm(&mut m, 100, 101, "worker", 2, false);
    let worker = m.find_thread(100, 101).unwrap();
    assert_eq!(
        m.maps(worker).find(0x1800).map(|x| x.dso().name()),
        Some("/bin/a")
    );
    mmap2(&mut m, 100, 101, 0x3000, 0x1000, "/lib/b.so", 2);
    let main = m.find_thread(100, 100).unwrap();
    assert_eq!(m.maps(main).len(), 2, "the worker's mmap is the process's");
    // A fork into a new process: comm, ppid and a copy of the maps.
    task(&mut m, PERF_RECORD_FORK, 0, [200, 100, 200, 100], 5);
    let child = m.find_thread(200, 200).unwrap();
    assert_eq!((child.comm(), child.ppid, child.pid), ("main", 100, 200));
    assert_eq!(m.maps(child).len(), 2);
    mmap2(&mut m, 200, 200, 0x5000, 0x1000, "/bin/c", 2);
    assert_eq!(
        m.maps(m.find_thread(100, 100).unwrap()).len(),
        2,
        "copied, not shared"
    );
    // A synthesized fork (FORK_EXEC) copies no maps.
    task(
        &mut m,
        PERF_RECORD_FORK,
        PERF_RECORD_MISC_FORK_EXEC,
        [300, 100, 300, 100],
        6,
    );
    assert!(m.maps(m.find_thread(300, 300).unwrap()).is_empty());
    // A kernel mmap goes to the kernel maps.
    mmap2(
        &mut m,
        u32::MAX,
        0,
        0xffff_0000,
        0x1000,
        "[kernel.kallsyms]_text",
        1,
    );
    let k = m.dsos().find_kernel_map(0xffff_0800).expect("kernel map");
    assert_eq!(k.dso().name(), "[kernel.kallsyms]");
    assert!(m.thread_maps(100, 100).find(0xffff_0800).is_none());
    // A BPF program (KSYMBOL): its own map and symbol, until unregistered.
    let ksymbol = |m: &mut Machine, flags: u16| {
        let mut body = 0xffff_a000_u64.to_ne_bytes().to_vec();
        body.extend_from_slice(&0x80u32.to_ne_bytes());
        body.extend_from_slice(&1u16.to_ne_bytes());
        body.extend_from_slice(&flags.to_ne_bytes());
        body.extend_from_slice(b"bpf_prog_0123_f\0");
        let r = rec(PERF_RECORD_KSYMBOL, 1, &body, 9);
        let parsed = parse(&r, &info()).unwrap();
        m.process(&parsed, &r);
    };
    ksymbol(&mut m, 0);
    let al = m.resolve(-1, 0, 1, 0xffff_a010);
    assert_eq!(al.symbol_name(), Some("bpf_prog_0123_f"));
    assert_eq!(al.symoff(), Some(0x10));
    ksymbol(&mut m, 1);
    assert!(m.resolve(-1, 0, 1, 0xffff_a010).map.is_none());
    // EXIT marks, and the thread stays findable; a new FORK of that tid replaces it.
    task(&mut m, PERF_RECORD_EXIT, 0, [200, 100, 200, 100], 7);
    assert!(m.find_thread(200, 200).unwrap().exited);
    task(&mut m, PERF_RECORD_FORK, 0, [200, 300, 200, 300], 8);
    let t = m.find_thread(200, 200).unwrap();
    assert!(!t.exited);
    assert_eq!(
        (t.ppid, t.comm(), t.comms().len()),
        (300, "main", 1),
        "a fresh thread with the parent's comm"
    );
}
