// SPDX-License-Identifier: GPL-2.0-only
//! `session.read_columns(columns=None, max_events=65536)`: a perf.data
//! file's samples in batches of columns, in time order as
//! `process_events()` delivers them.
//!
//! The sample members are filled by the live reader's [`Builder`]
//! (columns.rs); the file's own columns (call chains, DSO and symbol
//! names) by perf-core's [`FileColumns`]. The session pauses after the
//! sample that fills the batch ([`Handler::pause`]), so each call reads one
//! batch and memory is one batch's, whatever the file's size. The batch is
//! read without the GIL (gil_free.rs); only its Python result is made with
//! it.

use perf_core::evlist::RecordRef;
use perf_core::record::SampleMembers;
use perf_core::session::columns::{Chains, FileColumns, Names, Wanted};
use perf_core::session::{Event, Evsel, Handler, ProcessError, Session};
use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::columns::{self, Builder, SampleColumns, COLUMNS};
use crate::gil_free::Signals;
use crate::recycler::Recycler;

/// The columns only a file has, after [`COLUMNS`]; `columns=None` reads
/// the first two (the resolved ones load symbol tables: named only; the
/// per-frame ones bring `callchain_offsets` along; `comm` is named only
/// too, as the other columns indexing `names`).
pub const FILE_COLUMNS: [(&str, &str); 8] = [
    ("callchain_offsets", "Q"),
    ("callchain_ips", "Q"),
    ("dso", "I"),
    ("symbol", "I"),
    ("callchain_dso", "I"),
    ("callchain_symbol", "I"),
    ("comm", "I"),
    ("callchain", "I"),
];
const UNNAMED: u64 = 0b11;

/// Samples per batch unless `max_events` says otherwise: 64 Ki samples of
/// every default column is about 6 MiB.
pub const DEFAULT_BATCH: usize = 1 << 16;

/// What the columnar reader keeps between calls.
#[derive(Default)]
pub struct ColumnsState {
    names: Names,
    /// The Python side of `names`, shared by every batch.
    names_list: Option<Py<PyList>>,
    chains: Chains,
    /// The Python side of `chains.table`, shared by every batch: a
    /// `(dsos, symbols)` pair of `array('I')`s per chain.
    callchains_list: Option<Py<PyList>>,
}

impl ColumnsState {
    /// The lists this state holds (GC support of the session).
    pub fn traverse(&self, visit: &pyo3::PyVisit<'_>) -> Result<(), pyo3::PyTraverseError> {
        visit.call(&self.names_list)?;
        visit.call(&self.callchains_list)
    }
}

/// `max_events`: a positive int (ValueError otherwise, TypeError for a
/// non-int).
fn batch_size(max_events: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    let Some(arg) = max_events.filter(|a| !a.is_none()) else {
        return Ok(DEFAULT_BATCH);
    };
    let n: i64 = arg.extract().map_err(|e: PyErr| {
        if e.is_instance_of::<PyOverflowError>(arg.py()) {
            PyValueError::new_err("max_events is too large")
        } else {
            e
        }
    })?;
    match usize::try_from(n) {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(PyValueError::new_err(format!(
            "max_events must be positive, not {n}"
        ))),
    }
}

/// The session's handler while reading columns: appends each sample and
/// pauses once the batch is full.
struct ColumnsHandler<'a> {
    signals: Signals,
    builder: &'a mut Builder,
    file: &'a mut FileColumns,
    names: &'a mut Names,
    chains: &'a mut Chains,
    max: usize,
}

impl Handler for ColumnsHandler<'_> {
    type Error = PyErr;

    #[inline]
    fn sample(&mut self, ev: &Event<'_>) -> PyResult<()> {
        let Some(evsel) = ev.evsel else {
            return Ok(());
        };
        // The parsed sample, not the record's bytes: a PERF_SAMPLE_READ
        // record gives one sample per counter, with its own id and period.
        self.builder
            .push(evsel.idx, &SampleMembers::of(&ev.record.sample));
        self.file.push(ev, self.names, self.chains);
        Ok(())
    }

    /// Read in place when the batch wants only sample members (the
    /// builder's plan, as for the live rings; it declines what the parser
    /// would refuse, and layouts it does not cover).
    #[inline]
    fn sample_bytes(&mut self, evsel: &Evsel, bytes: &[u8]) -> bool {
        self.file.wanted == Wanted::default()
            && self.builder.push_direct(&RecordRef {
                evsel_idx: evsel.idx,
                bytes,
                info: &evsel.info,
                format: None,
                machine: None,
            })
    }

    #[inline]
    fn pause(&mut self) -> bool {
        self.builder.len() >= self.max
    }

    #[inline]
    fn check(&mut self) -> PyResult<()> {
        self.signals.check()
    }
}

/// [`read_columns`] of a session: the next batch, empty at the end.
pub fn read_columns(
    py: Python<'_>,
    session: &mut Session,
    state: &mut ColumnsState,
    cache: &mut Recycler,
    columns: Option<&Bound<'_, PyAny>>,
    max_events: Option<&Bound<'_, PyAny>>,
    error: impl FnOnce(perf_core::Error) -> PyErr,
) -> PyResult<SampleColumns> {
    let wanted = columns::wanted_among(columns, &[&COLUMNS, &FILE_COLUMNS])?;
    let max = batch_size(max_events)?;
    let all = (1u64 << COLUMNS.len()) - 1;
    let members = wanted.unwrap_or(all) & all;
    let file_mask = wanted.map_or(UNNAMED, |w| w >> COLUMNS.len());
    let want = |k: usize| file_mask & (1 << k) != 0;
    let mut file = FileColumns::new(Wanted {
        callchain: want(0) || want(1),
        resolved: want(2) || want(3),
        resolved_callchain: want(4) || want(5),
        comm: want(6),
        distinct_callchain: want(7),
    });
    let mut builder = Builder::new(members as u16, cache.take_columns());
    let mut handler = ColumnsHandler {
        signals: Signals::new(py)?,
        builder: &mut builder,
        file: &mut file,
        names: &mut state.names,
        chains: &mut state.chains,
        max,
    };
    let read = py.detach(|| session.process_events(&mut handler));
    let failed = match read {
        Ok(()) => None,
        Err(ProcessError::Handler(e)) => Some(e),
        Err(ProcessError::Data(e)) => Some(error(e)),
    };
    let (result, buffers) = builder.finish(py, Vec::new());
    cache.keep_columns(buffers);
    let mut result = result?;
    let f = &mut file;
    let lists: [(usize, &mut Vec<u64>); 2] =
        [(0, &mut f.callchain_offsets), (1, &mut f.callchain_ips)];
    // The per-frame columns bring their offsets along.
    let offsets = want(0) || want(4) || want(5);
    for (k, values) in lists {
        if want(k) || (k == 0 && offsets) {
            result.insert(py, FILE_COLUMNS[k].0, columns::array(py, "Q", values)?)?;
        }
    }
    let names: [(usize, &mut Vec<u32>); 6] = [
        (2, &mut f.dso),
        (3, &mut f.symbol),
        (4, &mut f.callchain_dso),
        (5, &mut f.callchain_symbol),
        (6, &mut f.comm),
        (7, &mut f.callchain),
    ];
    for (k, values) in names {
        if want(k) {
            result.insert(py, FILE_COLUMNS[k].0, columns::array(py, "I", values)?)?;
        }
    }
    let names_list = if file_mask & !UNNAMED != 0 {
        let list = state
            .names_list
            .get_or_insert_with(|| PyList::empty(py).unbind())
            .bind(py);
        for name in state.names.list().iter().skip(list.len()) {
            list.append(name)?;
        }
        Some(list.clone().unbind())
    } else {
        None
    };
    let callchains_list = if want(7) {
        Some(callchains_list(py, state)?)
    } else {
        None
    };
    let evsel_names = session
        .evlist()
        .evsels()
        .iter()
        .map(crate::session::evsel_name);
    result = result.with_names(
        PyList::new(py, evsel_names)?.unbind(),
        names_list,
        callchains_list,
    );
    match failed {
        None => Ok(result),
        Some(e) => {
            e.value(py).setattr("columns", Py::new(py, result)?)?;
            Err(e)
        }
    }
}

/// The session's list of call chains, extended with those this batch met
/// first.
fn callchains_list(py: Python<'_>, state: &mut ColumnsState) -> PyResult<Py<PyList>> {
    let list = state
        .callchains_list
        .get_or_insert_with(|| PyList::empty(py).unbind())
        .bind(py);
    for chain in state.chains.table.list().iter().skip(list.len()) {
        let (mut dsos, mut symbols): (Vec<u32>, Vec<u32>) = chain.iter().copied().unzip();
        let pair = (
            columns::array(py, "I", &mut dsos)?,
            columns::array(py, "I", &mut symbols)?,
        );
        list.append(pair)?;
    }
    Ok(list.clone().unbind())
}
