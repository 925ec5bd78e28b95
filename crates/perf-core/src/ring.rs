// SPDX-License-Identifier: GPL-2.0-only
//! One mmapped perf ring buffer, read the way libperf reads it in
//! non-overwrite mode.
//!
//! Layout: one control page (`struct perf_event_mmap_page`) followed by a data
//! area of `pages` pages (a power of two). The kernel writes records at
//! `data_head`; we read from our own position `prev` and hand space back by
//! writing `data_tail`. Two readers:
//!
//! ```text
//! ring.with_next_record(&mut scratch, |record| ...)?  // one record
//! ring.drain_with(&mut scratch, |record| ...)?        // every record in the ring
//! ```
//!
//! The callback gets each whole record as one slice: a view straight into the
//! mapped ring, or, for a record that wraps around the end of the data area,
//! a copy in `scratch`. The space goes back to the kernel (`data_tail`) only
//! after the callback has returned, and the slice cannot outlive the call, so
//! nothing ever points into space the kernel may overwrite: what the caller
//! keeps (the Python event objects) it copies.
#![allow(unsafe_code)]

use std::ops::ControlFlow;
use std::os::fd::RawFd;
use std::sync::atomic::{AtomicU64, Ordering};

use perf_event_open_sys::bindings::perf_event_mmap_page;

use crate::error::{Error, Result};
use crate::sys::Mapping;

const HEAD: usize = std::mem::offset_of!(perf_event_mmap_page, data_head);
const TAIL: usize = std::mem::offset_of!(perf_event_mmap_page, data_tail);
const DATA_OFFSET: usize = std::mem::offset_of!(perf_event_mmap_page, data_offset);
const DATA_SIZE: usize = std::mem::offset_of!(perf_event_mmap_page, data_size);

/// Size of `struct perf_event_header`.
pub const HEADER_SIZE: usize = 8;

/// A mapped ring buffer.
#[derive(Debug)]
pub struct Ring {
    map: Mapping,
    data_offset: usize,
    data_size: usize,
    prev: u64,
    /// Times the writer was found more than a whole ring ahead (records lost
    /// without a LOST record; only possible if the tail was not kept up).
    pub lapped: u64,
}

/// The EINVAL for a ring size that is not a power of two, naming the value
/// as the caller gave it.
fn pages_error(pages: impl std::fmt::Display) -> Error {
    Error::Sys {
        op: "mmap",
        errno: libc::EINVAL,
        hint: Some(format!("pages must be a power of two, got {pages}")),
    }
}

/// A caller's signed page count (`evlist.mmap(pages=-1)`) as the count
/// [`Ring::new`] takes; a negative one is the same EINVAL, with the value
/// given.
pub fn data_pages(pages: i64) -> Result<usize> {
    usize::try_from(pages).map_err(|_| pages_error(pages))
}

impl Ring {
    /// Maps the ring of `fd` with `pages` data pages (a power of two, as the
    /// kernel requires; anything else is EINVAL like `mmap(2)` gives).
    pub fn new(fd: RawFd, pages: usize, page_size: usize) -> Result<Self> {
        let einval = || pages_error(pages);
        if pages == 0 || !pages.is_power_of_two() {
            return Err(einval());
        }
        let len = pages
            .checked_add(1)
            .and_then(|n| n.checked_mul(page_size))
            .ok_or_else(einval)?;
        let map = Mapping::new(fd, len)?;
        let mut ring = Ring {
            map,
            data_offset: page_size,
            data_size: pages * page_size,
            prev: 0,
            lapped: 0,
        };
        // Linux ≥ 4.1 says where the data area is; older kernels leave 0.
        let (off, size) = (
            ring.load(DATA_OFFSET) as usize,
            ring.load(DATA_SIZE) as usize,
        );
        if off != 0 && size != 0 && size.is_power_of_two() && off.checked_add(size) == Some(len) {
            ring.data_offset = off;
            ring.data_size = size;
        }
        ring.prev = ring.head();
        Ok(ring)
    }

    /// Bytes of the data area.
    pub fn data_size(&self) -> usize {
        self.data_size
    }

    fn control_word(&self, offset: usize) -> &AtomicU64 {
        // SAFETY: offset is one of the u64 fields of perf_event_mmap_page, which
        // lies in the first page of the mapping (len ≥ 2 pages); the field is
        // 8-byte aligned (the mapping is page aligned, offsets are multiples of
        // 8) and lives as long as &self. The kernel updates it concurrently, so
        // it is only accessed atomically.
        unsafe { &*self.map.base().as_ptr().add(offset).cast::<AtomicU64>() }
    }

    fn load(&self, offset: usize) -> u64 {
        self.control_word(offset).load(Ordering::Relaxed)
    }

    /// `data_head`, with acquire ordering: record bytes before it are visible
    /// after this load (the kernel's smp_wmb/smp_store_release pairs with it).
    pub fn head(&self) -> u64 {
        // ATOMICS: Acquire pairs with the kernel's release of data_head.
        self.control_word(HEAD).load(Ordering::Acquire)
    }

    /// `header.size` of the record at data-area offset `start` (< data_size).
    #[inline(always)]
    fn header_size(&self, start: usize) -> u16 {
        // header.size is bytes 6..8 of the record. The kernel keeps records
        // 8-byte aligned, so those two bytes never wrap, but a bad size can
        // leave the read position anywhere: then they may.
        let at = (start + 6) & (self.data_size - 1);
        if at + 2 > self.data_size {
            let mut size = [0u8; 2];
            self.copy_out((start + 6) as u64, &mut size);
            return u16::from_ne_bytes(size);
        }
        // SAFETY: at + 2 ≤ data_size, so [data_offset + at, + 2) is inside
        // the data area of the mapping; read_unaligned needs no alignment.
        // The bytes lie between data_tail and data_head, which the kernel
        // does not write in non-overwrite mode; head was loaded with Acquire
        // before this call.
        unsafe {
            self.map
                .base()
                .as_ptr()
                .add(self.data_offset + at)
                .cast::<u16>()
                .read_unaligned()
        }
    }

    /// Copies `out.len()` bytes starting at ring position `pos` (which may
    /// wrap around the end of the data area).
    fn copy_out(&self, pos: u64, out: &mut [u8]) {
        let mask = self.data_size - 1;
        let start = (pos as usize) & mask;
        let first = out.len().min(self.data_size - start);
        let data = self.map.base().as_ptr();
        // SAFETY: start < data_size and first ≤ data_size - start, so
        // [data_offset + start, + first) is inside the mapping; the rest
        // (out.len() - first ≤ data_size) starts at the data area's beginning.
        // The bytes between prev and head are not written by the kernel until
        // we move data_tail past them (non-overwrite mode), and head was loaded
        // with Acquire before this call. `out` is a distinct Rust buffer.
        unsafe {
            std::ptr::copy_nonoverlapping(
                data.add(self.data_offset + start),
                out.as_mut_ptr(),
                first,
            );
            std::ptr::copy_nonoverlapping(
                data.add(self.data_offset),
                out.as_mut_ptr().add(first),
                out.len() - first,
            );
        }
    }

    /// Hands the next whole record to `f` as one contiguous slice — a view
    /// straight into the ring, or, for a record that wraps around the end of
    /// the data area, a copy in `scratch` — then advances the read position
    /// and gives the space back to the kernel. `Ok(None)` when no complete
    /// record is available. A header with an impossible size is an error; the
    /// reader then skips to `data_head` so one bad record cannot wedge the ring.
    pub fn with_next_record<R>(
        &mut self,
        scratch: &mut Vec<u8>,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<Option<R>> {
        let head = self.head();
        if self.lapped_by(head) {
            return Ok(None);
        }
        let out = self.take(head, scratch, f)?;
        if out.is_some() {
            self.consume();
        }
        Ok(out)
    }

    /// Hands every whole record now in the ring to `f`, as
    /// [`with_next_record`](Self::with_next_record) does one, until the ring
    /// is empty or `f` answers `Break` (the record it was given is consumed);
    /// `data_head` is read once and the space given back once, at the end.
    pub fn drain_with(
        &mut self,
        scratch: &mut Vec<u8>,
        mut f: impl FnMut(&[u8]) -> ControlFlow<()>,
    ) -> Result<()> {
        let head = self.head();
        if self.lapped_by(head) {
            return Ok(());
        }
        let out = loop {
            match self.take(head, scratch, &mut f) {
                Ok(Some(ControlFlow::Continue(()))) => {}
                Ok(_) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        self.consume();
        out
    }

    /// True (and the read position moved to `head`) if the writer lapped us
    /// (perf: "failed to keep up with mmap data").
    #[inline(always)]
    fn lapped_by(&mut self, head: u64) -> bool {
        if head.wrapping_sub(self.prev) <= self.data_size as u64 {
            return false;
        }
        self.lapped += 1;
        self.prev = head;
        self.consume();
        true
    }

    /// The record at the read position, if a whole one lies before `head`:
    /// handed to `f`, and the read position moved past it (the space is not
    /// given back here). An impossible size moves the position to `head`.
    #[inline(always)]
    fn take<R>(
        &mut self,
        head: u64,
        scratch: &mut Vec<u8>,
        f: impl FnOnce(&[u8]) -> R,
    ) -> Result<Option<R>> {
        let avail = head.wrapping_sub(self.prev);
        if avail < HEADER_SIZE as u64 {
            return Ok(None);
        }
        let start = (self.prev as usize) & (self.data_size - 1);
        let size = usize::from(self.header_size(start));
        if size < HEADER_SIZE || size > self.data_size {
            self.prev = head;
            self.consume();
            return Err(Error::Malformed {
                what: "ring buffer record",
                detail: format!("header size {size}"),
            });
        }
        if avail < size as u64 {
            return Ok(None);
        }
        // One call of `f` for both cases, so that it can be inlined into
        // the caller's loop.
        let record: &[u8] = if start + size <= self.data_size {
            // SAFETY: [data_offset + start, + size) lies inside the data area
            // (start + size ≤ data_size). The kernel does not write bytes
            // between data_tail and data_head (non-overwrite mode), and
            // data_tail is only moved by `consume`, which the callers run
            // after `f` has returned and the slice is gone; head was loaded
            // with Acquire.
            unsafe {
                std::slice::from_raw_parts(
                    self.map.base().as_ptr().add(self.data_offset + start),
                    size,
                )
            }
        } else {
            scratch.clear();
            scratch.resize(size, 0);
            self.copy_out(self.prev, scratch);
            scratch
        };
        let result = f(record);
        self.prev = self.prev.wrapping_add(size as u64);
        Ok(Some(result))
    }

    /// Hands everything read so far back to the kernel (`data_tail = prev`).
    pub fn consume(&self) {
        // ATOMICS: Release orders our earlier reads of the record bytes before
        // the kernel can observe the new tail and overwrite them.
        self.control_word(TAIL).store(self.prev, Ordering::Release);
    }
}
