// SPDX-License-Identifier: GPL-2.0-only
//! Per-evlist state that makes building events cheap: a parsed-record
//! scratch and the last two sample objects of each class handed out.
//!
//! The classic loop (`ev = evlist.read_on_cpu(cpu)`) drops the event from two
//! calls ago, so when nothing else holds it (refcount 1: only this cache) it
//! is refilled instead of allocating a new object, like CPython's own free
//! lists. Measured (`benchmarks/instructions.sh`): 2024 instructions per
//! event on the `read_on_cpu` loop, 3262 (+61 %) allocating each event.

use std::sync::Arc;

use perf_core::record::{ParseInfo, Record};
use perf_core::tracefs::Format;
use pyo3::prelude::*;
use pyo3::types::PyType;
use pyo3::{PyClass, PyTraverseError, PyVisit};

use crate::columns::ColumnBuffers;
use crate::events::SampleEvent;
use crate::tracepoint_sample::{self, TracepointSampleEvent};

/// The largest column buffer kept between `read_columns()` calls (a ring of
/// 8 MiB holds at most ~175 000 samples of 48 bytes: 1.4 MiB a column).
pub const KEPT_COLUMN_BYTES: usize = 8 << 20;

/// See the module documentation.
pub struct Recycler {
    record: Option<Record>,
    samples: Pool<SampleEvent>,
    tracepoints: Vec<TracepointPool>,
    /// Index in `tracepoints` of the last format used (the usual next one).
    last: usize,
    /// `read_columns()`'s column buffers, kept from one call to the next.
    columns: ColumnBuffers,
}

/// The class of one tracepoint format's samples and its cached objects.
struct TracepointPool {
    format: Arc<Format>,
    class: Py<PyType>,
    pool: Pool<TracepointSampleEvent>,
}

impl Recycler {
    /// An empty cache.
    pub fn new() -> Self {
        Recycler {
            record: None,
            samples: Pool::default(),
            tracepoints: Vec::new(),
            last: 0,
            columns: ColumnBuffers::default(),
        }
    }

    /// The column buffers kept from the last `read_columns()` (empty).
    pub fn take_columns(&mut self) -> ColumnBuffers {
        std::mem::take(&mut self.columns)
    }

    /// Keeps `columns` for the next `read_columns()`, emptied; a buffer
    /// larger than [`KEPT_COLUMN_BYTES`] is freed instead.
    pub fn keep_columns(&mut self, mut columns: ColumnBuffers) {
        columns
            .wide
            .retain(|c| c.capacity() * 8 <= KEPT_COLUMN_BYTES);
        columns
            .narrow
            .retain(|c| c.capacity() * 4 <= KEPT_COLUMN_BYTES);
        columns.wide.iter_mut().for_each(Vec::clear);
        columns.narrow.iter_mut().for_each(Vec::clear);
        self.columns = columns;
    }

    /// The parse buffer (made for `info` on first use; `parse_into`
    /// overwrites all of it).
    pub fn record(&mut self, info: &ParseInfo) -> &mut Record {
        self.record.get_or_insert_with(|| Record::new(info))
    }

    /// The cached plain `sample_event`s.
    pub fn samples(&mut self) -> &mut Pool<SampleEvent> {
        &mut self.samples
    }

    /// The class and cached objects for samples of `format`.
    #[inline(always)]
    pub fn tracepoint(
        &mut self,
        py: Python<'_>,
        format: &Arc<Format>,
    ) -> PyResult<(&Py<PyType>, &mut Pool<TracepointSampleEvent>)> {
        let same = |t: &TracepointPool| Arc::ptr_eq(&t.format, format);
        let i = if self.tracepoints.get(self.last).is_some_and(same) {
            self.last
        } else if let Some(i) = self.tracepoints.iter().position(same) {
            i
        } else {
            self.tracepoints.push(TracepointPool {
                format: format.clone(),
                class: tracepoint_sample::class_for(py, format)?,
                pool: Pool::default(),
            });
            self.tracepoints.len() - 1
        };
        self.last = i;
        let t = &mut self.tracepoints[i];
        Ok((&t.class, &mut t.pool))
    }

    /// Visits the cached objects (GC support of the owning evlist).
    pub fn traverse(&self, visit: &PyVisit<'_>) -> Result<(), PyTraverseError> {
        for e in self.samples.samples.iter().flatten() {
            visit.call(e)?;
        }
        for t in &self.tracepoints {
            visit.call(&t.class)?;
            for e in t.pool.samples.iter().flatten() {
                visit.call(e)?;
            }
        }
        Ok(())
    }
}

/// The last two objects of one class handed out.
pub struct Pool<T: PyClass> {
    samples: [Option<Py<T>>; 2],
    next: usize,
}

impl<T: PyClass> Default for Pool<T> {
    fn default() -> Self {
        Pool {
            samples: [None, None],
            next: 0,
        }
    }
}

impl<T: PyClass> Pool<T> {
    /// An object nobody else holds, if the cache has one.
    pub fn reusable(&mut self, py: Python<'_>) -> Option<Py<T>> {
        self.samples
            .iter()
            .flatten()
            // The GIL is held and these objects are never shared with other
            // interpreters, so the count is exact here.
            .find(|e| {
                #[allow(deprecated)]
                let n = e.get_refcnt(py);
                n == 1
            })
            .map(|e| e.clone_ref(py))
    }

    /// Keeps `e` as one of the two cached objects.
    pub fn remember(&mut self, py: Python<'_>, e: &Py<T>) {
        if self.samples.iter().flatten().any(|c| c.is(e)) {
            return;
        }
        self.samples[self.next] = Some(e.clone_ref(py));
        self.next = (self.next + 1) % self.samples.len();
    }
}
