// SPDX-License-Identifier: GPL-2.0-only
//! An Arrow buffer over the memory of an `array.array`, without a copy.
//!
//! The buffer holds a `memoryview` of the array: while that export is
//! alive the array cannot be resized (CPython raises `BufferError`), so
//! its memory stays where `buffer_info()` said it is. The view is dropped
//! when the Arrow consumer releases the last buffer (from any thread:
//! pyo3 defers the reference count to the next holder of the GIL).
#![allow(unsafe_code)]

use std::panic::AssertUnwindSafe;
use std::ptr::NonNull;
use std::sync::Arc;

use arrow_buffer::{Buffer, MutableBuffer};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyMemoryView;

/// The Arrow buffer of `column` (an `array.array` whose items are
/// `item_size` bytes), sharing its memory.
pub fn buffer(column: &Bound<'_, PyAny>, item_size: usize) -> PyResult<Buffer> {
    let view = PyMemoryView::from(column)?;
    let size: usize = column.getattr("itemsize")?.extract()?;
    if size != item_size {
        return Err(PyValueError::new_err(format!(
            "a column of {size}-byte items where {item_size}-byte ones were expected"
        )));
    }
    let (address, items): (usize, usize) = column.call_method0("buffer_info")?.extract()?;
    let len = items
        .checked_mul(item_size)
        .ok_or_else(|| PyValueError::new_err("column too large"))?;
    let Some(ptr) = NonNull::new(address as *mut u8).filter(|_| len > 0) else {
        return Ok(MutableBuffer::new(0).into()); // aligned for every type
    };
    let owner = Arc::new(AssertUnwindSafe(view.into_any().unbind()));
    // SAFETY: `ptr` and `len` are the address and byte size of the array's
    // items (`buffer_info()` times `itemsize`), initialised integers. The
    // memoryview in `owner` is an export of the array, which forbids
    // resizing (and so moving or freeing) that memory while it lives; the
    // buffer keeps `owner` until it is dropped.
    Ok(unsafe { Buffer::from_custom_allocation(ptr, len, owner) })
}
