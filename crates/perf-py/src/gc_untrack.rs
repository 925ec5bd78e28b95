// SPDX-License-Identifier: GPL-2.0-only
//! Takes objects that cannot be part of a reference cycle out of the
//! cyclic garbage collector's lists, as CPython does for its own tuples and
//! dicts of atomic values. Every pyo3 class is a GC type (its instances
//! must visit their heap type), so each `perf.callchain_node` kept in the
//! session's memo of call chains was traversed at every collection of its
//! generation, each through pyo3's `call_super_traverse`: 5.5 % of the
//! stack collapser's instructions went to the collector
//! (benchmarks/perf_data_symbols.py, callgrind; docs/performance.md).
#![allow(unsafe_code)]

use pyo3::prelude::*;
use pyo3::{ffi, PyClass};

/// Marker for pyo3 classes whose instances refer only to objects that
/// cannot refer back to them (strings, ints, tuples of such classes), and
/// never will (frozen, no setters).
pub trait Acyclic: PyClass<Frozen = pyo3::pyclass::boolean_struct::True> {}

/// Untracks `obj` (see the module's documentation).
pub fn untrack<T: Acyclic>(obj: &Bound<'_, T>) {
    // SAFETY: `obj` is a live object of a GC type (every pyo3 class is one),
    // owned by the caller, with the GIL held (`Bound`); untracking an
    // object that is not tracked does nothing. `Acyclic` promises it can
    // hold no cycle, so the collector never needs to see it; its type is
    // kept alive by the object's own reference to it, as for any object.
    unsafe { ffi::PyObject_GC_UnTrack(obj.as_ptr().cast()) }
}
