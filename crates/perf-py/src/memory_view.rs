// SPDX-License-Identifier: GPL-2.0-only
//! A read-only `memoryview` of Rust bytes, lent to a Python method that
//! copies them (`array.frombytes`), so that `read_columns()` fills each
//! column's array with one copy and no `bytes` object in between. pyo3 makes
//! memoryviews only of objects that export a buffer.
//!
//! Measured against a `bytes` per column: 214 instructions per event
//! against 227 (+6 %, `benchmarks/instructions.sh`), but the count misses
//! what matters here: a column of a busy ring is larger than glibc's mmap
//! threshold, so each call's `bytes` is fresh mapped memory, faulted in page
//! by page (46 page faults more per call of 20 000 samples) — in events/s
//! (`benchmarks/read_on_cpu.py`, columns mode, 5 alternated runs) 9.5–15.9 M
//! with the memoryview against 5.6–9.7 M without, medians 11.6 M and 7.0 M
//! (docs/performance.md).
#![allow(unsafe_code)]

use std::ffi::c_char;

use pyo3::prelude::*;
use pyo3::{ffi, intern};

/// `PyBUF_READ` of CPython's `pybuffer.h` (the same value since 3.3);
/// pyo3-ffi exports it only when building for 3.11 or later.
const PYBUF_READ: std::ffi::c_int = 0x100;

/// The element types whose `Vec`s can be lent: plain integers, every byte
/// of them initialised, no padding.
pub trait Plain: Copy {}
impl Plain for u8 {}
impl Plain for u32 {}
impl Plain for u64 {}

/// Calls `target.method(view)` with a read-only memoryview of the bytes of
/// `values` (in machine format), and releases the view before returning.
/// `method` must copy what it needs (`array.frombytes` does). Should the
/// view not release (a method that kept an export of it), `values` is
/// leaked rather than left to be freed or reused under the view.
pub fn lend<T: Plain>(target: &Bound<'_, PyAny>, method: &str, bytes: &mut Vec<T>) -> PyResult<()> {
    let py = target.py();
    let len = isize::try_from(std::mem::size_of_val(bytes.as_slice()))?;
    // SAFETY: the view points at the `len` bytes of `bytes`' elements, all
    // initialised (`Plain`: integers without padding), which this function
    // borrows mutably, so nothing else changes or frees them
    // while the view is out. PyBUF_READ makes the view read-only. The view is
    // released below, before the borrow ends; a released memoryview raises
    // ValueError on every access, so Python code that kept the object cannot
    // reach the memory afterwards. A null return becomes the raised error.
    let view = unsafe {
        Bound::from_owned_ptr_or_err(
            py,
            ffi::PyMemoryView_FromMemory(bytes.as_mut_ptr().cast::<c_char>(), len, PYBUF_READ),
        )?
    };
    let called = target.call_method1(method, (&view,));
    if let Err(e) = view.call_method0(intern!(py, "release")) {
        std::mem::forget(std::mem::take(bytes));
        return Err(e);
    }
    called.map(drop)
}
