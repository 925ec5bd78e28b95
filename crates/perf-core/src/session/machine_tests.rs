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

#[test]
fn the_callchain_memo_answers_as_resolving_again() {
    use super::super::{CallchainMemo, Lookup};
    use crate::symbol::callchain::{SampleChain, PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER};
    // A pid no process here has: its JIT map is this test's.
    let pid = 4_000_000 + std::process::id() % 100_000;
    let jit = format!("/tmp/perf-{pid}.map");
    std::fs::write(&jit, "1000 100 jitted_a\n").unwrap();
    let conf = crate::symbol::conf::SymbolConf {
        kallsyms: Some("/nonexistent/kallsyms".into()),
        ..Default::default()
    };
    let mr = MachineRef::new(Machine::new(Dsos::new(conf)));
    let mut memo = CallchainMemo::<u32>::default();
    let names = |nodes: &[CallchainNode]| -> Vec<(String, String)> {
        let n = |x: &CallchainNode| (x.symbol_name().to_owned(), x.dso_name(true).to_owned());
        nodes.iter().map(n).collect()
    };
    // Looks up (pid, tid, chain): the answer, Some(value) on a hit; a
    // miss is kept as `value` and checked against resolving again.
    let look = |memo: &mut CallchainMemo<u32>, tid: u32, chain: &[u64], value: u32| {
        let (p, t) = (pid as i32, tid as i32);
        let got = match mr.resolve_callchain_memo(memo, p, t, chain, None) {
            Lookup::Hit(v) => Ok(*v),
            Lookup::Miss(r) => Err(r),
        };
        let again = names(
            &mr.lock()
                .resolve_callchain(p, t, &SampleChain::recorded(chain)),
        );
        match got {
            Ok(v) => (again, Some(v)),
            Err(r) => {
                assert_eq!(names(&r.nodes), again);
                memo.insert(r.pending, value);
                (again, None)
            }
        }
    };
    let chain = [PERF_CONTEXT_USER, 0x1010, 0x1020];
    let jitted = ("jitted_a".to_owned(), jit.clone());
    comm(&mut mr.lock(), pid, pid, "jit", 1, false);
    mmap2(&mut mr.lock(), pid, pid, 0x1000, 0x1000, "//anon", 2);
    // The first resolution loads the JIT map: not kept (a load may change
    // the next answer), the second is, the third finds it.
    let (first, hit) = look(&mut memo, pid, &chain, 1);
    assert_eq!((first, hit), (vec![jitted.clone(), jitted.clone()], None));
    assert!(memo.is_empty());
    assert_eq!(look(&mut memo, pid, &chain, 2).1, None);
    assert_eq!(look(&mut memo, pid, &chain, 3).1, Some(2));
    // Another thread of the process sees the same maps.
    comm(&mut mr.lock(), pid, pid + 1, "worker", 2, false);
    assert_eq!(look(&mut memo, pid + 1, &chain, 4).1, Some(2));
    // An mmap over the same address: a new answer, never the kept one.
    mmap2(
        &mut mr.lock(),
        pid,
        pid + 1,
        0x1000,
        0x1000,
        "/nonexistent/b.so",
        2,
    );
    let (after, hit) = look(&mut memo, pid, &chain, 5);
    assert_eq!(hit, None);
    let b = ("[unknown]".to_owned(), "/nonexistent/b.so".to_owned());
    assert_eq!(after, [b.clone(), b.clone()]);
    look(&mut memo, pid, &chain, 6);
    assert_eq!(
        look(&mut memo, pid + 1, &chain, 7),
        (vec![b.clone(), b], Some(6))
    );
    // A fork: the child's copy of the maps answers the same (found again:
    // a copy made map by map is a change of the child's maps); its own
    // mmap changes its answers, not its parent's.
    task(
        &mut mr.lock(),
        PERF_RECORD_FORK,
        0,
        [pid + 2, pid, pid + 2, pid],
        3,
    );
    let (child, hit) = look(&mut memo, pid + 2, &chain, 8);
    assert_eq!(
        (child.len(), child[0].1.as_str(), hit),
        (2, "/nonexistent/b.so", None)
    );
    assert_eq!(look(&mut memo, pid + 2, &chain, 9).1, Some(8));
    mmap2(
        &mut mr.lock(),
        pid + 2,
        pid + 2,
        0x1000,
        0x1000,
        "//anon",
        2,
    );
    let (child, hit) = look(&mut memo, pid + 2, &chain, 9);
    assert_eq!(
        (child[0].1.as_str(), hit),
        (format!("/tmp/perf-{}.map", pid + 2).as_str(), None)
    );
    let (parent, _) = look(&mut memo, pid, &chain, 10);
    assert_eq!(parent[0].1, "/nonexistent/b.so");
    // Kernel chains: a BPF program registered, then unregistered at the
    // same address (the DSOs' change empties the memo).
    let kchain = [PERF_CONTEXT_KERNEL, 0xffff_a010];
    let ksymbol = |m: &mut Machine, flags: u16| {
        let mut body = 0xffff_a000_u64.to_ne_bytes().to_vec();
        body.extend_from_slice(&0x80u32.to_ne_bytes());
        body.extend_from_slice(&1u16.to_ne_bytes());
        body.extend_from_slice(&flags.to_ne_bytes());
        body.extend_from_slice(b"bpf_prog_0123_f\0");
        let r = rec(PERF_RECORD_KSYMBOL, 1, &body, 9);
        m.process(&parse(&r, &info()).unwrap(), &r);
    };
    ksymbol(&mut mr.lock(), 0);
    look(&mut memo, pid, &kchain, 11);
    let (bpf, hit) = look(&mut memo, pid, &kchain, 12);
    assert_eq!(hit, Some(11));
    assert_eq!(bpf[0].0, "bpf_prog_0123_f");
    ksymbol(&mut mr.lock(), 1);
    let (gone, hit) = look(&mut memo, pid, &kchain, 13);
    assert_eq!((gone[0].0.as_str(), hit), ("[unknown]", None));
    // Bounded: a full memo is emptied before it takes one more.
    let mut memo = CallchainMemo::<u32>::default();
    for i in 0..CallchainMemo::<u32>::CAPACITY as u64 + 1 {
        look(&mut memo, pid, &[PERF_CONTEXT_USER, 0x10_0000 + i], 0);
    }
    assert_eq!(memo.len(), 1);
    let _ = std::fs::remove_file(&jit);
}
