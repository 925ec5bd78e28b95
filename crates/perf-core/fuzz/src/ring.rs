// SPDX-License-Identifier: GPL-2.0-only
//! `perf_core::ring::Ring` on a ring buffer that lives in a memfd instead of
//! a perf fd, written by a model kernel.
//!
//! The honest kernel writes whole records only into space the reader has
//! given back (`data_tail`), wrapping at the end of the data area, and moves
//! `data_head` forward; every record the reader returns must then be
//! exactly the next one written, wrapped or not. The adversarial kernel
//! writes garbage and moves `data_head` anywhere (behind the tail, past a
//! whole ring, by 2^63): the reader must return records no bigger than the
//! ring, or errors, and never panic or read outside the mapping.
#![allow(unsafe_code)]

use std::fs::File;
use std::ops::ControlFlow;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::FileExt;

use perf_core::record::{self, ParseInfo, Record};
use perf_core::ring::Ring;

use crate::check::{self, Tally};
use crate::generate;
use crate::layout::Layout;
use crate::rng::Rng;

const PAGE: usize = 4096;
// Offsets in struct perf_event_mmap_page (uapi).
const HEAD: u64 = 1024;
const TAIL: u64 = 1032;
const DATA_OFFSET: u64 = 1040;
const DATA_SIZE: u64 = 1048;

/// A memfd standing in for a perf fd's ring.
pub struct FakeRing {
    file: File,
    data_size: u64,
    head: u64,
}

impl FakeRing {
    /// A memfd of one control page plus `pages` data pages, with data_head
    /// (and data_tail) at `start`.
    pub fn new(pages: usize, start: u64, sane_offsets: bool) -> std::io::Result<Self> {
        // SAFETY: memfd_create with a valid NUL-terminated name; the result is
        // checked and, when valid, owned by the File below.
        let fd = unsafe { libc::memfd_create(c"perf-fuzz-ring".as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: fd is a fresh descriptor nothing else owns.
        let file = unsafe { File::from_raw_fd(fd) };
        let len = ((pages + 1) * PAGE) as u64;
        file.set_len(len)?;
        let ring = FakeRing {
            file,
            data_size: (pages * PAGE) as u64,
            head: start,
        };
        ring.put(HEAD, start)?;
        ring.put(TAIL, start)?;
        if sane_offsets {
            ring.put(DATA_OFFSET, PAGE as u64)?;
            ring.put(DATA_SIZE, ring.data_size)?;
        }
        Ok(ring)
    }

    fn put(&self, off: u64, v: u64) -> std::io::Result<()> {
        self.file.write_all_at(&v.to_ne_bytes(), off)
    }

    fn get(&self, off: u64) -> std::io::Result<u64> {
        let mut b = [0u8; 8];
        self.file.read_exact_at(&mut b, off)?;
        Ok(u64::from_ne_bytes(b))
    }

    /// The reader's `data_tail`.
    pub fn tail(&self) -> std::io::Result<u64> {
        self.get(TAIL)
    }

    /// Writes bytes at ring position `pos` (wrapping), without moving head.
    pub fn write_at(&self, pos: u64, bytes: &[u8]) -> std::io::Result<()> {
        let mut done = 0;
        while done < bytes.len() {
            let p = pos.wrapping_add(done as u64) % self.data_size;
            let n = (bytes.len() - done).min((self.data_size - p) as usize);
            self.file
                .write_all_at(&bytes[done..done + n], PAGE as u64 + p)?;
            done += n;
        }
        Ok(())
    }

    /// Moves data_head (the kernel's release store).
    pub fn set_head(&mut self, head: u64) -> std::io::Result<()> {
        self.head = head;
        self.put(HEAD, head)
    }

    /// Overwrites the control page's data_offset/data_size.
    pub fn set_offsets(&self, off: u64, size: u64) -> std::io::Result<()> {
        self.put(DATA_OFFSET, off)?;
        self.put(DATA_SIZE, size)
    }

    /// The fd to map.
    pub fn fd(&self) -> i32 {
        self.file.as_raw_fd()
    }
}

/// Ring figures.
#[derive(Debug, Default, Clone, Copy)]
pub struct RingTally {
    /// Rings built.
    pub rings: u64,
    /// Records the reader returned.
    pub records: u64,
    /// Records that wrapped around the end of the data area.
    pub wrapped: u64,
    /// Times the data area was gone around.
    pub laps: u64,
    /// Errors the reader returned.
    pub errors: u64,
    /// Parser checks.
    pub parse: Tally,
}

impl RingTally {
    /// Adds another tally.
    pub fn add(&mut self, o: RingTally) {
        self.rings += o.rings;
        self.records += o.records;
        self.wrapped += o.wrapped;
        self.laps += o.laps;
        self.errors += o.errors;
        self.parse.add(o.parse);
    }
}

/// An honest kernel: valid records of a random layout, written into free
/// space only; the reader interleaves, and must return them in order, byte
/// for byte, each parsing to what was written.
pub fn honest(rng: &mut Rng, reused: &mut Record) -> RingTally {
    let mut t = RingTally {
        rings: 1,
        ..RingTally::default()
    };
    let pages = 1usize << rng.below(2);
    // Start anywhere, near the u64 wrap-around sometimes.
    let start = if rng.one_in(4) {
        u64::MAX - rng.below(1 << 14)
    } else {
        rng.u64() & !7
    };
    let Ok(mut fake) = FakeRing::new(pages, start, true) else {
        return t;
    };
    let Ok(mut ring) = Ring::new(fake.fd(), pages, PAGE) else {
        panic!("Ring::new refused a well-formed ring");
    };
    let size = fake.data_size;
    let layout = Layout::random(rng);
    let info = ParseInfo::new(&layout.attr);
    let mut pending: std::collections::VecDeque<(Vec<u8>, generate::Expect)> = Default::default();
    let mut scratch = Vec::new();
    let mut written = 0u64;
    for _ in 0..rng.below(200) + 20 {
        // Write a few records while there is room.
        for _ in 0..rng.below(6) {
            let made = if rng.one_in(3) {
                let ty = generate::SIDE_BAND[rng.below(generate::SIDE_BAND.len() as u64) as usize];
                generate::side_band(&layout, ty, rng)
            } else {
                generate::sample(&layout, rng)
            };
            let Some((rec, e)) = made else { continue };
            let tail = fake.tail().unwrap_or(fake.head);
            let used = fake.head.wrapping_sub(tail);
            if rec.len() as u64 > size - used {
                break; // the kernel would count it lost
            }
            let head = fake.head;
            if fake.write_at(head, &rec).is_err()
                || fake.set_head(head.wrapping_add(rec.len() as u64)).is_err()
            {
                return t;
            }
            if head % size + rec.len() as u64 > size {
                t.wrapped += 1;
            }
            written += rec.len() as u64;
            pending.push_back((rec, e));
        }
        // Read some: a drain (up to a budget, 0 = all), or record by record.
        if rng.one_in(3) {
            let budget = rng.below(8) as usize;
            let mut got = Vec::new();
            let drained = ring.drain_with(&mut scratch, |r| {
                got.push(r.to_vec());
                if budget != 0 && got.len() >= budget {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            if let Err(e) = drained {
                panic!("honest ring: drain error {e}");
            }
            let stopped = budget != 0 && got.len() >= budget;
            for out in got {
                t.records += 1;
                let Some((rec, e)) = pending.pop_front() else {
                    panic!("the drain returned a record that was never written");
                };
                assert_eq!(out, rec, "the drain returned other bytes than were written");
                check::valid(&out, &e, &layout, reused, &mut t.parse);
            }
            // Everything drained is given back at the end of the drain.
            let unread: u64 = pending.iter().map(|(r, _)| r.len() as u64).sum();
            assert_eq!(fake.tail().ok(), Some(fake.head.wrapping_sub(unread)));
            assert!(
                stopped || pending.is_empty(),
                "a drain left complete records"
            );
            continue;
        }
        for _ in 0..rng.below(8) {
            match ring.with_next_record(&mut scratch, |r| r.to_vec()) {
                Ok(Some(out)) => {
                    t.records += 1;
                    let Some((rec, e)) = pending.pop_front() else {
                        panic!("the reader returned a record that was never written");
                    };
                    assert_eq!(
                        out, rec,
                        "the reader returned other bytes than were written"
                    );
                    check::valid(&out, &e, &layout, reused, &mut t.parse);
                    let _ = record::event_id(&out, &info);
                    // The space is given back as soon as the record is read.
                    let unread: u64 = pending.iter().map(|(r, _)| r.len() as u64).sum();
                    assert_eq!(fake.tail().ok(), Some(fake.head.wrapping_sub(unread)));
                }
                Ok(None) => {
                    assert!(pending.is_empty(), "a complete record was not returned");
                    break;
                }
                Err(e) => panic!("honest ring: reader error {e}"),
            }
        }
    }
    assert_eq!(ring.lapped, 0);
    t.laps = written / size;
    t
}

/// An adversarial kernel: random bytes, random head moves, broken control
/// page. Anything but a panic (or a fault) is fine; every record returned
/// must fit the ring and carry its own size.
pub fn adversarial(rng: &mut Rng, reused: &mut Record) -> RingTally {
    let mut t = RingTally {
        rings: 1,
        ..RingTally::default()
    };
    let pages = 1usize << rng.below(2);
    let start = rng.interesting();
    let Ok(mut fake) = FakeRing::new(pages, start, !rng.one_in(4)) else {
        return t;
    };
    if rng.one_in(4) {
        let _ = fake.set_offsets(rng.interesting(), rng.interesting());
    }
    let Ok(mut ring) = Ring::new(fake.fd(), pages, PAGE) else {
        return t;
    };
    let size = ring.data_size() as u64;
    assert!(size.is_power_of_two() && size <= fake.data_size);
    let layout = Layout::random(rng);
    let info = ParseInfo::new(&layout.attr);
    let mut scratch = Vec::new();
    for _ in 0..rng.below(64) + 1 {
        let n = rng.below(512) as usize;
        let garbage = if rng.one_in(2) {
            rng.bytes(n)
        } else {
            generate::sample(&layout, rng)
                .map(|(r, _)| r)
                .unwrap_or_default()
        };
        let head = fake.head;
        let _ = fake.write_at(rng.u64(), &garbage);
        let step = match rng.below(5) {
            0 => rng.interesting(),
            1 => size + rng.below(size),
            2 => 0u64.wrapping_sub(rng.below(64)),
            _ => garbage.len() as u64,
        };
        let _ = fake.set_head(head.wrapping_add(step));
        if rng.one_in(3) {
            let mut n = 0;
            let drained = ring.drain_with(&mut scratch, |out| {
                n += 1;
                assert!(
                    out.len() >= 8 && out.len() as u64 <= size,
                    "{} bytes",
                    out.len()
                );
                let h = record::header(out).ok().map(|h| usize::from(h.size));
                assert_eq!(h, Some(out.len()));
                check::any(out, &info, reused, &mut t.parse);
                ControlFlow::Continue(())
            });
            t.records += n;
            if drained.is_err() {
                t.errors += 1;
            }
            continue;
        }
        for _ in 0..rng.below(16) + 1 {
            match ring.with_next_record(&mut scratch, |r| r.to_vec()) {
                Ok(Some(out)) => {
                    t.records += 1;
                    assert!(
                        out.len() >= 8 && out.len() as u64 <= size,
                        "{} bytes",
                        out.len()
                    );
                    let h = record::header(&out).ok().map(|h| usize::from(h.size));
                    assert_eq!(h, Some(out.len()));
                    check::any(&out, &info, reused, &mut t.parse);
                }
                Ok(None) => break,
                Err(_) => t.errors += 1,
            }
        }
    }
    t
}
