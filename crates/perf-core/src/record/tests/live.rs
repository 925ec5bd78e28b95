// SPDX-License-Identifier: GPL-2.0-only
//! Records captured from the running kernel: software events on this test's
//! thread, read straight out of a test-only ring mapping, must all parse and
//! agree with what the test did (pids, tids, ids, names, mappings).
//!
//! The tests skip, saying why, when perf_event_open is refused
//! (perf_event_paranoid, seccomp, no perf support).
#![allow(unsafe_code)]

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::attr::{flag, Attr};
use crate::record::*;
use crate::sys::{self, Ioctl, OpenOutcome, PERF_FLAG_FD_CLOEXEC};

const PERF_TYPE_SOFTWARE: u32 = 1;
const PERF_COUNT_SW_TASK_CLOCK: u64 = 1;
const PERF_COUNT_SW_PAGE_FAULTS: u64 = 2;
const PERF_COUNT_SW_DUMMY: u64 = 9;
const PERF_CONTEXT_MAX: u64 = -4095i64 as u64;
const DATA_PAGES: usize = 64;

/// perf_event_open on this thread (and, with `inherit`, its children).
fn open(attr: &Attr, cpu: i32, group_fd: i32) -> Result<OwnedFd, String> {
    let mut bytes = attr.to_bytes(attr.needed_size());
    match sys::perf_event_open(&mut bytes, 0, cpu, group_fd, PERF_FLAG_FD_CLOEXEC) {
        OpenOutcome::Fd(fd) => Ok(fd),
        OpenOutcome::Failed { errno, .. } => Err(format!(
            "perf_event_open refused ({}), skipping the live record test",
            crate::error::strerror(errno)
        )),
    }
}

fn attr(config: u64, sample_type: u64, read_format: u64, flags: &[&str]) -> Attr {
    let mut a = Attr {
        type_: PERF_TYPE_SOFTWARE,
        config,
        sample_type,
        read_format,
        ..Attr::default()
    };
    a.set(flag::SAMPLE_ID_ALL, true);
    for f in flags {
        assert_eq!(a.set_flag(f, 1), Some(()), "flag {f}");
    }
    a
}

/// A test-only mapping of one event's ring: control page + data pages.
struct TestRing {
    base: *mut u8,
    len: usize,
}

impl TestRing {
    fn new(fd: &OwnedFd) -> Self {
        let len = (DATA_PAGES + 1) * sys::page_size();
        // SAFETY: a fresh shared mapping of a perf fd, placed by the kernel;
        // checked against MAP_FAILED below and unmapped only in Drop.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd.as_raw_fd(),
                0,
            )
        };
        assert_ne!(
            p,
            libc::MAP_FAILED,
            "mmap of the ring: {}",
            std::io::Error::last_os_error()
        );
        TestRing {
            base: p.cast(),
            len,
        }
    }

    /// A u64 field of `struct perf_event_mmap_page`.
    fn control(&self, offset: usize) -> &AtomicU64 {
        assert!(offset + 8 <= sys::page_size() && offset % 8 == 0);
        // SAFETY: the control page is mapped, the offset is inside it and
        // 8-aligned; the kernel updates these fields concurrently, which is
        // what the atomic type is for.
        unsafe { &*self.base.add(offset).cast::<AtomicU64>() }
    }

    /// Every whole record between data_tail (0: nothing consumed yet) and
    /// data_head, each copied out contiguously (wrapped ones included).
    fn records(&self) -> Vec<Vec<u8>> {
        let head = self.control(1024).load(Ordering::Acquire); // data_head
        let offset = self.control(1040).load(Ordering::Relaxed) as usize; // data_offset
        let size = self.control(1048).load(Ordering::Relaxed) as usize; // data_size
        assert!(offset + size <= self.len && size.is_power_of_two());
        // SAFETY: [offset, offset + size) is the mapped data area; the kernel
        // does not write below data_head, and we only read below it.
        let data = unsafe { std::slice::from_raw_parts(self.base.add(offset), size) };
        assert!(
            head < size as u64,
            "the test ring overflowed; make DATA_PAGES larger"
        );
        let byte = |pos: u64| data.get(pos as usize % size).copied().unwrap_or(0);
        let mut out = Vec::new();
        let mut pos = 0u64;
        while pos + 8 <= head {
            let h: Vec<u8> = (pos..pos + 8).map(byte).collect();
            let h = header(&h).expect("kernel header");
            let rec: Vec<u8> = (pos..pos + u64::from(h.size)).map(byte).collect();
            pos += u64::from(h.size);
            out.push(rec);
        }
        assert_eq!(pos, head, "records end exactly at data_head");
        out
    }
}

impl Drop for TestRing {
    fn drop(&mut self) {
        // SAFETY: base/len are exactly what mmap returned; nothing borrows
        // the mapping past this point (borrows of `self` have ended).
        unsafe { libc::munmap(self.base.cast(), self.len) };
    }
}

/// This thread's tid, without unsafe: /proc/thread-self -> "<pid>/task/<tid>".
fn gettid() -> u32 {
    let link = std::fs::read_link("/proc/thread-self").expect("/proc/thread-self");
    link.file_name()
        .and_then(|s| s.to_str())
        .and_then(|s| s.parse().ok())
        .expect("tid")
}

fn spin(ms: u64) -> u64 {
    let start = std::time::Instant::now();
    let mut x = 0u64;
    while start.elapsed().as_millis() < u128::from(ms) {
        x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(7));
    }
    x
}

/// SAMPLE (group read, callchain, every fixed field), MMAP, COMM, FORK and
/// SWITCH records of a task-clock leader on this thread.
#[test]
fn live_samples_and_side_band_records_parse() {
    let sample_type = PERF_SAMPLE_IDENTIFIER
        | PERF_SAMPLE_IP
        | PERF_SAMPLE_TID
        | PERF_SAMPLE_TIME
        | PERF_SAMPLE_ID
        | PERF_SAMPLE_STREAM_ID
        | PERF_SAMPLE_CPU
        | PERF_SAMPLE_PERIOD
        | PERF_SAMPLE_READ
        | PERF_SAMPLE_CALLCHAIN;
    let read_format = PERF_FORMAT_GROUP
        | PERF_FORMAT_ID
        | PERF_FORMAT_TOTAL_TIME_ENABLED
        | PERF_FORMAT_TOTAL_TIME_RUNNING
        | PERF_FORMAT_LOST;
    let mut leader_attr = attr(
        PERF_COUNT_SW_TASK_CLOCK,
        sample_type,
        read_format,
        &["disabled", "mmap", "comm", "task", "context_switch"],
    );
    leader_attr.sample_period = 200_000;
    let leader = match open(&leader_attr, -1, -1) {
        Ok(fd) => fd,
        Err(why) => return eprintln!("{why}"),
    };
    let member_attr = attr(
        PERF_COUNT_SW_PAGE_FAULTS,
        PERF_SAMPLE_IDENTIFIER,
        read_format,
        &[],
    );
    let member = open(&member_attr, -1, leader.as_raw_fd()).expect("group member");
    let (leader_id, member_id) = (
        sys::event_id(leader.as_raw_fd()).unwrap(),
        sys::event_id(member.as_raw_fd()).unwrap(),
    );
    let ring = TestRing::new(&leader);
    let (pid, tid) = (std::process::id(), gettid());

    sys::ioctl(leader.as_raw_fd(), Ioctl::Enable).unwrap();
    spin(30);
    // COMM: renaming this thread.
    let comm_path = format!("/proc/self/task/{tid}/comm");
    let old_comm = std::fs::read_to_string(&comm_path).unwrap();
    std::fs::write(&comm_path, "perf-rec-test").unwrap();
    // FORK: a new thread of this process.
    let child_tid = std::thread::spawn(gettid).join().unwrap();
    // MMAP: an executable mapping of our own binary.
    let exe = std::env::current_exe().unwrap();
    let file = std::fs::File::open(&exe).unwrap();
    let page = sys::page_size();
    // SAFETY: a fresh private read/exec mapping of one page of a file we
    // hold open, placed by the kernel, never accessed and unmapped at once.
    unsafe {
        let p = libc::mmap(
            std::ptr::null_mut(),
            page,
            libc::PROT_READ | libc::PROT_EXEC,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        );
        assert_ne!(p, libc::MAP_FAILED);
        libc::munmap(p, page);
    }
    // SWITCH: sleeping switches this thread out and back in.
    std::thread::sleep(std::time::Duration::from_millis(2));
    spin(10);
    sys::ioctl(leader.as_raw_fd(), Ioctl::Disable).unwrap();
    std::fs::write(&comm_path, old_comm.trim_end()).unwrap();

    let info = ParseInfo::new(&leader_attr);
    let mut seen = std::collections::BTreeMap::<u32, usize>::new();
    let mut last_time = 0;
    for bytes in ring.records() {
        let rec = parse(&bytes, &info).unwrap_or_else(|e| panic!("{e}: {bytes:x?}"));
        *seen.entry(rec.header.type_).or_default() += 1;
        assert_eq!(event_id(&bytes, &info), Ok(Some(leader_id)));
        let s = &rec.sample;
        assert_eq!((s.id, s.stream_id), (leader_id, leader_id), "{rec:?}");
        assert_eq!(s.pid as u32, pid, "{rec:?}");
        assert!(s.cpu < 4096 && s.time != u64::MAX, "{rec:?}");
        assert!(s.time >= last_time, "time goes forward: {rec:?}");
        last_time = s.time;
        match &rec.body {
            Body::Sample => {
                assert_eq!(s.tid as u32, tid);
                assert_ne!(s.ip, 0);
                assert_eq!(s.period, 200_000);
                assert!(!s.callchain.is_empty());
                let first = s.callchain.first().copied().unwrap_or(0);
                assert!(
                    first >= PERF_CONTEXT_MAX,
                    "callchain starts with a context: {first:#x}"
                );
                let read = s.read.as_ref().expect("READ");
                let ids: Vec<u64> = read.values().iter().map(|v| v.id).collect();
                assert_eq!(ids, [leader_id, member_id]);
                assert!(read.time_enabled >= read.time_running && read.time_running > 0);
                assert!(matches!(read.counters, ReadCounters::Group(_)));
            }
            Body::Comm {
                pid: p,
                tid: t,
                comm,
            } => {
                assert_eq!((*p, *t), (pid, tid));
                assert_eq!(bytes_of(&bytes, comm), b"perf-rec-test");
            }
            Body::Task {
                pid: p,
                ppid,
                tid: t,
                ptid,
                ..
            } => {
                assert_eq!(rec.header.type_, PERF_RECORD_FORK);
                assert_eq!((*p, *ppid, *t, *ptid), (pid, pid, child_tid, tid));
            }
            Body::Mmap {
                pid: p,
                tid: t,
                len,
                pgoff,
                filename,
                ..
            } => {
                assert_eq!((*p, *t, *len, *pgoff), (pid, tid, page as u64, 0));
                let name = bytes_of(&bytes, filename);
                assert_eq!(name, exe.as_os_str().as_encoded_bytes());
            }
            Body::Switch {
                next_prev_pid,
                next_prev_tid,
            } => {
                // Type 14: the C module's next_prev_* are the trailer's pid/tid.
                assert_eq!(rec.header.type_, PERF_RECORD_SWITCH);
                assert_eq!((*next_prev_pid, *next_prev_tid), (pid, tid));
                assert_eq!(s.tid as u32, tid);
            }
            // Possible on a loaded machine; parsed, nothing more to check.
            Body::Throttle { id, .. } => assert_eq!(*id, leader_id),
            Body::Lost { id, .. } => assert_eq!(*id, leader_id),
            other => panic!("unexpected record {other:?}"),
        }
    }
    eprintln!("live records by type: {seen:?}");
    for t in [
        PERF_RECORD_SAMPLE,
        PERF_RECORD_COMM,
        PERF_RECORD_FORK,
        PERF_RECORD_MMAP,
    ] {
        assert!(
            seen.contains_key(&t),
            "no {} seen: {seen:?}",
            record_name(t)
        );
    }
    assert!(
        seen.get(&PERF_RECORD_SWITCH).copied().unwrap_or(0) >= 2,
        "{seen:?}"
    );
    assert!(
        seen.get(&PERF_RECORD_SAMPLE).copied().unwrap_or(0) >= 5,
        "{seen:?}"
    );
}

fn bytes_of<'a>(record: &'a [u8], r: &std::ops::Range<usize>) -> &'a [u8] {
    crate::record::bytes(record, r)
}

/// An inherited dummy event: running `true` gives FORK, COMM (exec), MMAP2
/// and EXIT records of the child, with the parent event's id.
#[test]
fn live_child_process_records_parse() {
    let sample_type = PERF_SAMPLE_TID
        | PERF_SAMPLE_TIME
        | PERF_SAMPLE_ID
        | PERF_SAMPLE_STREAM_ID
        | PERF_SAMPLE_CPU
        | PERF_SAMPLE_IDENTIFIER;
    let dummy_attr = attr(
        PERF_COUNT_SW_DUMMY,
        sample_type,
        0,
        // mmap2 only picks the format: the kernel counts mmap listeners by
        // attr.mmap, so without it no MMAP2 is written (perf sets both).
        &["inherit", "mmap", "mmap2", "comm", "task"],
    );
    // The kernel refuses to mmap inherited per-task events with cpu == -1
    // (all children would write one ring), so open one per CPU, as perf
    // record does.
    let mut events = Vec::new();
    for cpu in 0..sys::nprocessors_onln().max(1) as i32 {
        let fd = match open(&dummy_attr, cpu, -1) {
            Ok(fd) => fd,
            Err(why) => return eprintln!("{why}"),
        };
        let ring = TestRing::new(&fd);
        events.push((fd, ring));
    }
    let ids: Vec<u64> = events
        .iter()
        .map(|(fd, _)| sys::event_id(fd.as_raw_fd()).unwrap())
        .collect();
    let status = std::process::Command::new("true").status().unwrap();
    assert!(status.success());
    for (fd, _) in &events {
        sys::ioctl(fd.as_raw_fd(), Ioctl::Disable).unwrap();
    }
    let mut records: Vec<(usize, Vec<u8>)> = Vec::new();
    for (cpu, (_, ring)) in events.iter().enumerate() {
        records.extend(ring.records().into_iter().map(|r| (cpu, r)));
    }
    let info = ParseInfo::new(&dummy_attr);
    records.sort_by_key(|(_, r)| parse(r, &info).map_or(0, |r| r.sample.time));

    let info = ParseInfo::new(&dummy_attr);
    let mut child = None;
    let mut seen = std::collections::BTreeMap::<u32, usize>::new();
    let mut mmap2_names = Vec::new();
    for (cpu, bytes) in records {
        let rec = parse(&bytes, &info).unwrap_or_else(|e| panic!("{e}: {bytes:x?}"));
        *seen.entry(rec.header.type_).or_default() += 1;
        let id = ids.get(cpu).copied();
        assert_eq!(event_id(&bytes, &info), Ok(id));
        assert_eq!(
            Some(rec.sample.id),
            id,
            "inherited records carry the parent's id"
        );
        assert_eq!(rec.sample.cpu as usize, cpu, "{rec:?}");
        match rec.body {
            Body::Task { pid, ppid, .. } if rec.header.type_ == PERF_RECORD_FORK => {
                assert_eq!(ppid, std::process::id());
                child = Some(pid);
            }
            Body::Task { pid, .. } => assert_eq!(Some(pid), child, "EXIT of the child"),
            Body::Comm { pid, ref comm, .. } => {
                assert_eq!(Some(pid), child);
                assert_eq!(bytes_of(&bytes, comm), b"true");
                assert_ne!(rec.header.misc & (1 << 13), 0, "PERF_RECORD_MISC_COMM_EXEC");
            }
            Body::Mmap2 {
                pid,
                ref filename,
                file,
                ..
            } => {
                assert_eq!(Some(pid), child);
                let name = String::from_utf8_lossy(bytes_of(&bytes, filename)).into_owned();
                // Files have an inode; [vdso] and friends have 0.
                let Mmap2File::Inode { ino, .. } = file else {
                    panic!("{file:?}")
                };
                assert_eq!(ino != 0, name.starts_with('/'), "{name}: {file:?}");
                mmap2_names.push(name);
            }
            ref other => panic!("unexpected record {other:?}"),
        }
        // The FORK is written in the parent's context, the rest in the child's.
        let writer = if rec.header.type_ == PERF_RECORD_FORK {
            std::process::id()
        } else {
            child.unwrap_or(0)
        };
        assert_eq!(rec.sample.pid as u32, writer, "{rec:?}");
    }
    eprintln!("child records by type: {seen:?}, mmap2: {mmap2_names:?}");
    for t in [
        PERF_RECORD_FORK,
        PERF_RECORD_COMM,
        PERF_RECORD_MMAP2,
        PERF_RECORD_EXIT,
    ] {
        assert!(
            seen.contains_key(&t),
            "no {} seen: {seen:?}",
            record_name(t)
        );
    }
    assert!(
        mmap2_names.iter().any(|n| n.ends_with("/true")),
        "{mmap2_names:?}"
    );
}
