// SPDX-License-Identifier: GPL-2.0-only
//! A shared read-write mapping of a perf fd (the ring buffer), unmapped on drop.

use std::os::fd::RawFd;
use std::ptr::NonNull;

use crate::error::{Error, Result};

/// An `mmap(PROT_READ|PROT_WRITE, MAP_SHARED)` region.
#[derive(Debug)]
pub struct Mapping {
    base: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain shared memory owned by this value; all access
// goes through `ring`, which synchronises with the kernel by atomics and is
// itself used behind a Mutex.
unsafe impl Send for Mapping {}
// SAFETY: as above; &Mapping only hands out the base pointer.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps `len` bytes of `fd` at offset 0.
    pub fn new(fd: RawFd, len: usize) -> Result<Self> {
        // SAFETY: a fresh mapping chosen by the kernel (addr NULL); no existing
        // memory is affected. The result is checked against MAP_FAILED.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                fd,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(Error::last_os("mmap"));
        }
        match NonNull::new(p.cast::<u8>()) {
            Some(base) => Ok(Mapping { base, len }),
            None => Err(Error::Sys {
                op: "mmap",
                errno: libc::ENOMEM,
                hint: None,
            }),
        }
    }

    /// Start of the mapping.
    pub fn base(&self) -> NonNull<u8> {
        self.base
    }

    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Never true: an empty mapping cannot be created.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: base/len are exactly what mmap returned; nothing borrows the
        // region beyond this value's lifetime (Ring holds the Mapping).
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.len);
        }
    }
}
