// SPDX-License-Identifier: GPL-2.0-only
//! Bad perf.data input: each class of problem gives an error that names
//! it, the file and the offset; never a panic, a hang or unbounded memory.
//! The files are written by hand (`common::synth`), so these tests need no
//! perf tool and no root.

mod common;

use std::path::{Path, PathBuf};

use common::synth::{self, Synth};
use common::TempDir;
use perf_core::error::{DataError, DataErrorKind, Error};
use perf_core::perf_data::abi::*;
use perf_core::session::{Event, Handler, Session};

fn write(dir: &TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

struct Count {
    samples: Vec<(u64, String)>,
}

impl Handler for Count {
    type Error = String;
    fn sample(&mut self, ev: &Event<'_>) -> Result<(), String> {
        let s = &ev.record.sample;
        let comm = ev
            .machine
            .lock()
            .find_thread(s.pid, s.tid)
            .map(|t| t.comm().to_owned())
            .unwrap_or_default();
        self.samples.push((s.time, comm));
        Ok(())
    }
}

/// Opens and processes `p`; the samples, or the error.
fn read(p: &Path) -> Result<Vec<(u64, String)>, Error> {
    let mut s = Session::open(p.to_str().unwrap())?;
    let mut c = Count {
        samples: Vec::new(),
    };
    match s.process_events(&mut c) {
        Ok(()) => Ok(c.samples),
        Err(perf_core::session::ProcessError::Data(e)) => Err(e),
        Err(perf_core::session::ProcessError::Handler(e)) => panic!("handler: {e}"),
    }
}

fn data_error(r: Result<Vec<(u64, String)>, Error>) -> DataError {
    match r {
        Err(Error::PerfData(d)) => *d,
        other => panic!("not a perf.data error: {other:?}"),
    }
}

/// Reads `bytes` and returns the error, checking its message names the
/// file and the offset.
fn bad(dir: &TempDir, name: &str, bytes: &[u8]) -> DataError {
    let p = write(dir, name, bytes);
    let e = data_error(read(&p));
    let text = Error::PerfData(Box::new(e.clone())).to_string();
    assert!(text.starts_with(&p.display().to_string()), "{text}");
    assert!(
        text.ends_with(&format!("(at file offset {:#x})", e.offset)),
        "{text}"
    );
    e
}

fn put_u64(b: &mut [u8], at: u64, v: u64) {
    b[at as usize..at as usize + 8].copy_from_slice(&v.to_ne_bytes());
}

#[test]
fn the_synthetic_file_reads_in_time_order() {
    let dir = TempDir::new("bad");
    let (b, _) = Synth::new().build();
    let p = write(&dir, "ok.data", &b);
    let got = read(&p).unwrap();
    assert_eq!(
        got,
        [
            (10, "hello".into()),
            (20, "hello".into()),
            (30, "hello".into()),
            (40, "hello".into())
        ]
    );
    let s = Session::open(p.to_str().unwrap()).unwrap();
    assert_eq!(s.features().hostname.as_deref(), Some("synth"));
    // The same records compressed, as perf record -z writes them.
    let mut z = Synth::new();
    z.data = synth::compressed(&z.data, 1);
    z.features.push((
        feature::COMPRESSED,
        [0u32, 1, 1, 1, 528384]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect(),
    ));
    let (b, _) = z.build();
    assert_eq!(read(&write(&dir, "z.data", &b)).unwrap(), got);
}

#[test]
fn missing_and_unreadable_paths_raise_their_errno() {
    let dir = TempDir::new("bad");
    for (path, errno) in [
        (dir.join("nonexistent.data"), libc::ENOENT),
        (PathBuf::from("/etc/passwd/perf.data"), libc::ENOTDIR),
        (dir.path().to_path_buf(), libc::ENOENT), // a directory without `data`
    ] {
        let e = data_error(read(&path));
        assert!(
            matches!(e.kind, DataErrorKind::Io { errno: n, .. } if n == errno),
            "{}: {e}",
            path.display()
        );
        assert_eq!(e.errno(), errno);
    }
}

#[test]
fn bad_magic() {
    let dir = TempDir::new("bad");
    let (mut b, _) = Synth::new().build();
    b[..8].copy_from_slice(b"PERFILE3");
    let e = bad(&dir, "magic.data", &b);
    assert_eq!(
        e.kind,
        DataErrorKind::BadMagic {
            found: "PERFILE3".into()
        }
    );
    assert_eq!((e.offset, e.errno()), (0, libc::EINVAL));
    assert!(e.to_string().contains("not a perf.data file"), "{e}");
    let e = bad(&dir, "text.data", b"hello, world\n");
    assert!(matches!(e.kind, DataErrorKind::BadMagic { .. }), "{e}");
}

/// What reading a damaged file gave: the samples delivered, the error
/// that stopped the reading, the feature sections that could not be read.
type Partly = (Vec<(u64, String)>, Option<Error>, Vec<(u32, String)>);

/// Opens and processes `p` to its end or its damage.
fn read_partly(p: &Path) -> Partly {
    let mut s = match Session::open(p.to_str().unwrap()) {
        Ok(s) => s,
        Err(e) => return (Vec::new(), Some(e), Vec::new()),
    };
    let mut c = Count {
        samples: Vec::new(),
    };
    let e = match s.process_events(&mut c) {
        Ok(()) => None,
        Err(perf_core::session::ProcessError::Data(e)) => Some(e),
        Err(perf_core::session::ProcessError::Handler(e)) => panic!("handler: {e}"),
    };
    (c.samples, e, s.features().unreadable.clone())
}

/// The file cut at every length, never a panic: a header or attrs cut
/// short is an error; a data section cut short delivers the samples
/// before the cut, in order, then the error; the feature sections cut
/// short leave every sample read and name the sections that could not be.
#[test]
fn a_file_cut_anywhere_reads_what_precedes_the_cut() {
    let dir = TempDir::new("bad");
    let (b, l) = Synth::new().build();
    let all = read(&write(&dir, "whole.data", &b)).unwrap();
    let data_end = l.data + l.data_size;
    for cut in 0..b.len() {
        let p = write(&dir, "cut.data", &b[..cut]);
        let (got, e, unreadable) = read_partly(&p);
        let cut = cut as u64;
        if cut < l.data {
            let e = data_error(Err(e.expect("an error")));
            assert!(got.is_empty(), "cut at {cut}");
            if (16..104).contains(&cut) {
                assert!(
                    e.to_string()
                        .contains("truncated file header: needs 104 bytes"),
                    "{e}"
                );
            } else if cut >= 104 {
                assert!(
                    e.to_string().contains("past the end of the file"),
                    "cut at {cut}: {e}"
                );
            } else {
                assert!(
                    matches!(
                        e.kind,
                        DataErrorKind::BadMagic { .. } | DataErrorKind::Truncated { .. }
                    ),
                    "cut at {cut}: {e}"
                );
            }
        } else if cut < data_end {
            let e = data_error(Err(e.expect("an error")));
            assert!(
                matches!(e.kind, DataErrorKind::Truncated { .. }),
                "cut at {cut}: {e}"
            );
            assert!(e.offset <= cut, "cut at {cut}: {e}");
            // The samples of the records before the cut, in time order.
            assert!(got.is_sorted(), "cut at {cut}: {got:?}");
            assert!(got.iter().all(|s| all.contains(s)), "cut at {cut}");
            assert!(!unreadable.is_empty(), "cut at {cut}");
        } else {
            assert!(e.is_none(), "cut at {cut}: {e:?}");
            assert_eq!(got, all, "cut at {cut}");
            assert!(!unreadable.is_empty(), "cut at {cut}");
        }
    }
}

#[test]
fn sections_past_the_end_of_the_file() {
    let dir = TempDir::new("bad");
    let (b, l) = Synth::new().build();
    let all = read(&write(&dir, "whole.data", &b)).unwrap();
    let data_end = l.data + l.data_size;
    // attrs.offset, an ids section: the file cannot be read.
    for (at, v, what) in [
        (24, 1 << 40, "attrs section"),
        (l.attrs + 128, 1 << 40, "ids of attr 0"),
    ] {
        let mut c = b.clone();
        put_u64(&mut c, at, v);
        let e = bad(&dir, "past.data", &c);
        assert!(
            matches!(&e.kind, DataErrorKind::PastEnd { what: w, .. } if w == what),
            "{at}: {e}"
        );
        assert!(
            e.to_string().contains("runs past the end of the file"),
            "{e}"
        );
    }
    // data.size past the end (or overflowing): the samples there are, then
    // an error where the bytes after them (the features) stop making
    // records, or at the end of the file.
    for size in [1 << 40, u64::MAX - l.data + 1, u64::MAX] {
        let mut c = b.clone();
        put_u64(&mut c, 48, size);
        let (got, e, unreadable) = read_partly(&write(&dir, "past.data", &c));
        assert_eq!(got, all, "{size}");
        let e = data_error(Err(e.expect("an error")));
        assert!(e.offset >= data_end, "{size}: {e}");
        assert!(!unreadable.is_empty());
    }
    // A feature section's offset: that feature cannot be read, the rest is.
    let mut c = b.clone();
    put_u64(&mut c, l.table, 1 << 40);
    let (got, e, unreadable) = read_partly(&write(&dir, "past.data", &c));
    assert!(e.is_none(), "{e:?}");
    assert_eq!(got.len(), 4);
    assert_eq!(unreadable.len(), 1, "{unreadable:?}");
    assert_eq!(unreadable[0].0, feature::HOSTNAME);
    assert!(
        unreadable[0].1.contains("runs past the end of the file"),
        "{unreadable:?}"
    );
}

#[test]
fn overlapping_sections() {
    let dir = TempDir::new("bad");
    let (b, l) = Synth::new().build();
    // The attrs section moved onto the data.
    let mut c = b.clone();
    put_u64(&mut c, 24, l.data);
    let e = bad(&dir, "overlap.data", &c);
    assert!(matches!(e.kind, DataErrorKind::Overlap { .. }), "{e}");
    assert!(e.to_string().contains("overlaps"), "{e}");
    // A feature section inside the data section: that feature cannot be
    // read, the samples are.
    let mut c = b.clone();
    put_u64(&mut c, l.table, l.data + 8);
    let p = write(&dir, "overlap.data", &c);
    let (got, e, unreadable) = read_partly(&p);
    assert!(e.is_none(), "{e:?}");
    assert_eq!(got.len(), 4);
    assert_eq!(unreadable.len(), 1, "{unreadable:?}");
    let (bit, why) = &unreadable[0];
    assert_eq!(*bit, feature::HOSTNAME);
    assert!(
        why.contains("feature HOSTNAME")
            && why.contains("overlaps data section")
            && why.contains(&format!("(at file offset {:#x})", l.data + 8)),
        "{why}"
    );
    let s = Session::open(p.to_str().unwrap()).unwrap();
    assert_eq!(s.features().hostname, None);
    assert!(s.features().nr_cpus.is_some());
    // The ids inside the header.
    let mut c = b.clone();
    put_u64(&mut c, l.attrs + 128, 64);
    let e = bad(&dir, "overlap.data", &c);
    assert!(e.to_string().contains("overlaps file header"), "{e}");
}

#[test]
fn record_sizes_that_cannot_be() {
    let dir = TempDir::new("bad");
    let (b, l) = Synth::new().build();
    let second = l.data + synth::comm(42, "hello", 5).len() as u64;
    for (size, want) in [
        (0u16, "header.size 0: smaller than the 8-byte header"),
        (4, "header.size 4: smaller than the 8-byte header"),
    ] {
        let mut c = b.clone();
        c[second as usize + 6..second as usize + 8].copy_from_slice(&size.to_ne_bytes());
        let e = bad(&dir, "size.data", &c);
        assert!(
            matches!(
                e.kind,
                DataErrorKind::RecordSize {
                    record: "PERF_RECORD_SAMPLE",
                    ..
                }
            ),
            "{e}"
        );
        assert!(e.to_string().contains(want), "{e}");
        assert_eq!(e.offset, second);
    }
    // A record running past the end of the data section.
    let mut c = b.clone();
    c[second as usize + 6..second as usize + 8].copy_from_slice(&0xfff8u16.to_ne_bytes());
    let e = bad(&dir, "size.data", &c);
    assert!(
        e.to_string()
            .contains("truncated data section: the last record: needs 65528 bytes"),
        "{e}"
    );
    // A SAMPLE too short for its fields (the record parser's error, placed).
    let mut d = Synth::new();
    d.data = synth::record(9, 2, &[0; 16]);
    let e = bad(&dir, "short.data", &d.build().0);
    assert!(matches!(e.kind, DataErrorKind::Malformed { .. }), "{e}");
    assert!(
        e.to_string().contains("PERF_RECORD_SAMPLE") && e.offset == l.data,
        "{e}"
    );
    // The record is named once.
    assert_eq!(
        e.to_string().matches("PERF_RECORD_SAMPLE").count(),
        1,
        "{e}"
    );
}

#[test]
fn attr_sizes_that_fit_no_layout() {
    let dir = TempDir::new("bad");
    let (b, l) = Synth::new().build();
    for size in [100u32, 40, 8192] {
        let mut c = b.clone();
        c[l.attrs as usize + 4..l.attrs as usize + 8].copy_from_slice(&size.to_ne_bytes());
        let e = bad(&dir, "attr.data", &c);
        assert!(
            matches!(e.kind, DataErrorKind::AttrSize { size: s, .. } if s == u64::from(size)),
            "{e}"
        );
        assert!(
            e.to_string().contains("fits no perf_event_attr layout"),
            "{e}"
        );
    }
    // The header's attr_size.
    let mut c = b.clone();
    put_u64(&mut c, 16, 8);
    let e = bad(&dir, "attr.data", &c);
    assert!(
        matches!(e.kind, DataErrorKind::AttrSize { size: 8, .. }),
        "{e}"
    );
}

#[test]
fn zstd_garbage() {
    let dir = TempDir::new("bad");
    let mut s = Synth::new();
    s.data = synth::compressed(&s.data, 1);
    // Keep the frame header, spoil what follows.
    let rec_len = s.data.len();
    for b in &mut s.data[8 + 6..rec_len] {
        *b ^= 0x5a;
    }
    let (b, l) = s.build();
    let e = bad(&dir, "zstd.data", &b);
    assert!(matches!(e.kind, DataErrorKind::Zstd { .. }), "{e}");
    assert_eq!(e.offset, l.data);
    // Compressed data that ends inside a record.
    let mut s = Synth::new();
    let cut = s.data.len() - 3;
    s.data = synth::compressed(&s.data[..cut], 1);
    let e = bad(&dir, "zcut.data", &s.build().0);
    assert!(
        e.to_string()
            .contains("truncated compressed data: the last record"),
        "{e}"
    );
}

/// A compressed record that would expand to 1 GiB: refused at the bound,
/// with memory bounded. Runs in a child process so its peak RSS is its own.
#[test]
fn a_decompression_bomb_is_refused_with_bounded_memory() {
    if let Ok(p) = std::env::var("PERF_DATA_BOMB") {
        // The child: read the bomb.
        let e = data_error(read(Path::new(&p)));
        assert!(
            matches!(e.kind, DataErrorKind::DecompressionBound { .. }),
            "{e}"
        );
        // This process's own peak (VmHWM is per address space; the
        // rusage of a child spawned with vfork starts from the parent's).
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let hwm = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .unwrap();
        println!(
            "BOMB-ERROR {e}\nVmHWM {}",
            hwm.trim().trim_end_matches(" kB")
        );
        return;
    }
    let dir = TempDir::new("bad");
    // 1 GiB of zeros compresses to a few KiB: one record.
    let zeros = vec![0u8; 1 << 30];
    let mut s = Synth::new();
    s.data = synth::compressed_in(&zeros, 1, usize::MAX);
    drop(zeros);
    assert!(s.data.len() < 60 << 10, "{}", s.data.len());
    for (name, mmap_len) in [
        ("bomb.data", Some(528384u32)),
        ("bomb-nofeature.data", None),
    ] {
        let mut s2 = Synth {
            attr: s.attr,
            data: s.data.clone(),
            features: s.features.clone(),
        };
        if let Some(len) = mmap_len {
            s2.features.push((
                feature::COMPRESSED,
                [0u32, 1, 19, 1, len]
                    .iter()
                    .flat_map(|v| v.to_ne_bytes())
                    .collect(),
            ));
        }
        let p = write(&dir, name, &s2.build().0);
        let exe = std::env::current_exe().unwrap();
        let child = std::process::Command::new(exe)
            .args([
                "--exact",
                "a_decompression_bomb_is_refused_with_bounded_memory",
                "--nocapture",
                "--test-threads=1",
            ])
            .env("PERF_DATA_BOMB", &p)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let out = String::from_utf8_lossy(&out.stdout).into_owned()
            + if out.status.success() {
                ""
            } else {
                "(child failed)"
            };
        assert!(!out.contains("(child failed)"), "{out}");
        assert!(out.contains("BOMB-ERROR"), "{out}");
        let bound = mmap_len.map_or(perf_core::perf_data::MAX_EXPANSION, u64::from);
        assert!(
            out.contains(&format!("decompresses to more than {bound} bytes")),
            "{out}"
        );
        // The child's peak RSS (KiB): the test binary plus one bound, far
        // below the 1 GiB the record would expand to.
        let max_rss_kib: u64 = out
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM "))
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            max_rss_kib < (bound >> 10) + 64 * 1024,
            "{name}: peak RSS {max_rss_kib} KiB"
        );
        eprintln!("{name}: refused, child peak RSS {max_rss_kib} KiB");
    }
}

/// Random corruption of a valid file: a value or an error, never a panic
/// (the fuzz sweep does millions of these; see docs/reliability.md).
#[test]
fn corrupted_files_give_errors_not_panics() {
    let dir = TempDir::new("bad");
    let (b, _) = Synth::new().build();
    let mut z = Synth::new();
    z.data = synth::compressed(&z.data, 1);
    let (zb, _) = z.build();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut errors = 0;
    for i in 0..1000 {
        let mut c = if i % 2 == 0 { b.clone() } else { zb.clone() };
        for _ in 0..1 + next() % 4 {
            let at = (next() % c.len() as u64) as usize;
            c[at] = next() as u8;
        }
        let p = write(&dir, "corrupt.data", &c);
        if read(&p).is_err() {
            errors += 1;
        }
    }
    assert!(errors > 100, "{errors}");
}

#[test]
fn every_error_kind_maps_to_an_oserror_errno() {
    let e = |kind| DataError {
        path: "f".into(),
        offset: 0,
        kind,
    };
    assert_eq!(
        e(DataErrorKind::Io {
            op: "open",
            errno: libc::EACCES
        })
        .errno(),
        libc::EACCES
    );
    assert_eq!(
        e(DataErrorKind::DecompressionBound { bound: 1 }).errno(),
        libc::EFBIG
    );
    assert_eq!(
        e(DataErrorKind::Zstd {
            detail: String::new()
        })
        .errno(),
        libc::EINVAL
    );
    assert_eq!(
        Error::PerfData(Box::new(e(DataErrorKind::BadMagic {
            found: String::new()
        })))
        .errno(),
        Some(libc::EINVAL)
    );
    let _ = PERF_RECORD_COMPRESSED;
}
