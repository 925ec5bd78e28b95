// SPDX-License-Identifier: GPL-2.0-only
//! `evlist.read_columns()`: the columnar batch reader.
//!
//! One call drains every ring (or `max_events` records) and returns the
//! sample members as `array.array` columns, one machine word per sample,
//! without a Python object per event; the other records (lost, comm, mmap,
//! task, …) come back as the usual event objects in `others`, so nothing is
//! dropped. For consumers that aggregate (`sum`, `max`, numpy) this is the
//! fast way to read a busy ring; docs/performance.md has the figures.

use pyo3::exceptions::{PyKeyError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyCapsule, PyDict, PyList, PyString, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use perf_core::evlist::RecordRef;
use perf_core::record::{self, MemberSource, ParseInfo, SampleMembers, PERF_RECORD_SAMPLE};

use crate::memory_view;

/// The `array` type code of a member's type.
trait TypeCode {
    const CODE: &'static str;
}
impl TypeCode for u64 {
    const CODE: &'static str = "Q";
}
impl TypeCode for u32 {
    const CODE: &'static str = "I";
}
impl TypeCode for i32 {
    const CODE: &'static str = "i";
}

macro_rules! columns {
    ($(($field:ident, $attr:ident, $ty:ty, $doc:literal, $($layout:tt)*)),* $(,)?) => {
        /// The columns, with their `array` type codes: `type`, the sample
        /// members (in [`record::MEMBERS`] order), `evsel`.
        pub const COLUMNS: [(&str, &str); SampleMembers::COUNT + 2] = [
            ("type", "I"),
            $((stringify!($attr), <$ty as TypeCode>::CODE),)*
            ("evsel", "I"),
        ];
    };
}
perf_core::sample_member_list!(columns);

/// Column number of `type`; the members follow, then `evsel`.
const TYPE: usize = 0;
const EVSEL: usize = COLUMNS.len() - 1;
const _: () = assert!(COLUMNS.len() <= u16::BITS as usize, "a bit per column");

/// The columns asked for, as a bit per entry of [`COLUMNS`].
pub fn wanted(columns: Option<&Bound<'_, PyAny>>) -> PyResult<u16> {
    let all = (1 << COLUMNS.len()) - 1;
    Ok(wanted_among(columns, &[&COLUMNS])?.map_or(all, |m| m as u16))
}

/// The columns asked for among the lists `known` (numbered on from one
/// list to the next), a bit each; None: `columns` is None (all of them).
pub fn wanted_among(
    columns: Option<&Bound<'_, PyAny>>,
    known: &[&[(&str, &str)]],
) -> PyResult<Option<u64>> {
    let Some(columns) = columns else {
        return Ok(None);
    };
    if columns.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "columns must be a sequence of column names, not str",
        ));
    }
    let mut mask = 0u64;
    for name in columns.try_iter()? {
        let name = name?;
        let name = name
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err("column names must be str"))?
            .to_cow()?;
        let mut all = known.iter().flat_map(|list| list.iter());
        let Some(k) = all.position(|(c, _)| *c == name) else {
            let names: Vec<&str> = known.iter().flat_map(|l| l.iter().map(|c| c.0)).collect();
            return Err(PyValueError::new_err(format!(
                "unknown column '{name}'; the columns are {}",
                names.join(", ")
            )));
        };
        mask |= 1 << k;
    }
    Ok(Some(mask))
}

/// A new `array.array` of type `code` holding a copy of `values`.
pub fn array<'py, T: memory_view::Plain>(
    py: Python<'py>,
    code: &str,
    values: &mut Vec<T>,
) -> PyResult<Bound<'py, PyAny>> {
    static ARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let array = ARRAY.get_or_try_init(py, || {
        Ok::<_, PyErr>(py.import("array")?.getattr("array")?.unbind())
    })?;
    // One copy, straight into the array's own buffer.
    let column = array.bind(py).call1((code,))?;
    memory_view::lend(&column, "frombytes", values)?;
    Ok(column)
}

/// The columns being filled (each value widened to u64; narrowed to the
/// array's type at the end), with a plan per evsel of where the wanted
/// members are in its records.
pub struct Builder {
    /// The wanted columns, in [`COLUMNS`] order: `cols[i]` is column
    /// `names[i]`, its values in the array's machine format (8 bytes for
    /// `Q`, 4 for `I` and `i`), and every plan lists its sources in the
    /// same order.
    cols: Vec<Column>,
    names: Vec<usize>,
    plans: Vec<Plan>,
    len: usize,
}

/// How to read the wanted columns of one evsel's SAMPLEs.
// One per evsel, read in place: the size of `Direct` costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy)]
enum Plan {
    /// Not looked at yet.
    Unknown,
    /// Not a fixed layout: decode each record.
    Decode,
    /// Read the columns straight from the record.
    Direct(Direct),
}

#[derive(Clone, Copy)]
struct Direct {
    /// Where the value of each wanted column is (the first
    /// `Builder::cols.len()` entries).
    at: [MemberSource; COLUMNS.len()],
    need: usize,
    raw: Option<usize>,
}

impl Builder {
    /// Empty columns for the `mask` of [`wanted`], in `buffers` (empty
    /// buffers kept from an earlier call; more are made as needed).
    pub fn new(mask: u16, mut buffers: ColumnBuffers) -> Self {
        let names: Vec<usize> = (0..COLUMNS.len())
            .filter(|k| mask & (1 << k) != 0)
            .collect();
        let cols = names
            .iter()
            .map(|&k| {
                if COLUMNS.get(k).is_some_and(|(_, code)| *code == "Q") {
                    Column::Wide(buffers.wide.pop().unwrap_or_default())
                } else {
                    Column::Narrow(buffers.narrow.pop().unwrap_or_default())
                }
            })
            .collect();
        Builder {
            cols,
            names,
            plans: Vec::new(),
            len: 0,
        }
    }

    /// Makes the plan for the records of evsel number `evsel`.
    #[cold]
    fn make_plan(&mut self, evsel: usize, info: &ParseInfo) {
        if self.plans.len() <= evsel {
            self.plans.resize(evsel + 1, Plan::Unknown);
        }
        let plan = match record::member_sources(info) {
            None => Plan::Decode,
            Some(sources) => {
                let evsel_id = u64::try_from(evsel).unwrap_or(u64::MAX);
                let mut d = Direct {
                    at: [MemberSource::Const(0); COLUMNS.len()],
                    need: sources.need,
                    raw: sources.raw,
                };
                for (slot, &k) in d.at.iter_mut().zip(&self.names) {
                    *slot = match k {
                        TYPE => MemberSource::Const(u64::from(PERF_RECORD_SAMPLE)),
                        EVSEL => MemberSource::Const(evsel_id),
                        member => sources
                            .at
                            .get(member - 1)
                            .copied()
                            .unwrap_or(MemberSource::Const(0)),
                    };
                }
                Plan::Direct(d)
            }
        };
        if let Some(slot) = self.plans.get_mut(evsel) {
            *slot = plan;
        }
    }

    /// Appends the record if it is a SAMPLE whose wanted members can be read
    /// in place; false if it needs decoding (then [`push`](Self::push) it).
    #[inline(always)]
    pub fn push_direct(&mut self, rec: &RecordRef<'_>) -> bool {
        let bytes = rec.bytes;
        let is_sample = bytes
            .first_chunk::<4>()
            .is_some_and(|t| u32::from_ne_bytes(*t) == PERF_RECORD_SAMPLE);
        if !is_sample {
            return false;
        }
        if matches!(self.plans.get(rec.evsel_idx), None | Some(Plan::Unknown)) {
            self.make_plan(rec.evsel_idx, rec.info);
        }
        let Some(Plan::Direct(d)) = self.plans.get(rec.evsel_idx) else {
            return false;
        };
        if bytes.len() < d.need {
            return false;
        }
        if let Some(raw) = d.raw {
            let size = u32_at(bytes, raw) as usize;
            if raw + 4 + size > bytes.len() {
                return false; // the full parser names the error
            }
        }
        for (col, source) in self.cols.iter_mut().zip(&d.at) {
            col.push(match *source {
                MemberSource::U64(at) => u64_at(bytes, at),
                MemberSource::U32(at) => u64::from(u32_at(bytes, at)),
                MemberSource::Const(v) => v,
            });
        }
        self.len += 1;
        true
    }

    /// Appends one decoded sample of evsel number `evsel`.
    pub fn push(&mut self, evsel: usize, m: &SampleMembers) {
        let words = m.words();
        for (col, &k) in self.cols.iter_mut().zip(&self.names) {
            col.push(match k {
                TYPE => u64::from(PERF_RECORD_SAMPLE),
                EVSEL => u64::try_from(evsel).unwrap_or(u64::MAX),
                member => words.get(member - 1).copied().unwrap_or(0),
            });
        }
        self.len += 1;
    }

    /// The result object, with the non-sample records read meanwhile, and
    /// the buffers, for the next call.
    pub fn finish(
        mut self,
        py: Python<'_>,
        others: Vec<Py<PyAny>>,
    ) -> (PyResult<SampleColumns>, ColumnBuffers) {
        let result = self.arrays(py, others);
        let mut buffers = ColumnBuffers::default();
        for col in self.cols {
            match col {
                Column::Wide(v) => buffers.wide.push(v),
                Column::Narrow(v) => buffers.narrow.push(v),
            }
        }
        (result, buffers)
    }

    fn arrays(&mut self, py: Python<'_>, others: Vec<Py<PyAny>>) -> PyResult<SampleColumns> {
        let columns = PyDict::new(py);
        for (col, &k) in self.cols.iter_mut().zip(&self.names) {
            let Some(&(name, code)) = COLUMNS.get(k) else {
                continue;
            };
            let column = match col {
                Column::Wide(v) => array(py, code, v)?,
                Column::Narrow(v) => array(py, code, v)?,
            };
            columns.set_item(name, column)?;
        }
        Ok(SampleColumns {
            columns: columns.unbind(),
            others: PyList::new(py, others)?.unbind(),
            len: self.len,
            evsel_names: None,
            names: None,
            callchains: None,
        })
    }

    /// Samples appended so far.
    pub fn len(&self) -> usize {
        self.len
    }
}

/// One column's values, as the array stores them: 8-byte values (`Q`), or
/// the low 4 bytes (the bits of the u32, or of the i32, that was read).
/// Typed vectors, not bytes: appending a value's bytes to a `Vec<u8>` was
/// a call per value; typed, `session.read_columns` of three members takes
/// 11 % fewer instructions (callgrind, 100 000 tracepoint samples: 982 →
/// 870 a sample).
enum Column {
    Wide(Vec<u64>),
    Narrow(Vec<u32>),
}

impl Column {
    #[inline(always)]
    fn push(&mut self, v: u64) {
        match self {
            Column::Wide(c) => c.push(v),
            Column::Narrow(c) => c.push(v as u32),
        }
    }
}

/// The buffers of the columns, kept from one call to the next.
#[derive(Default)]
pub struct ColumnBuffers {
    /// Of `Q` columns.
    pub wide: Vec<Vec<u64>>,
    /// Of `I` and `i` columns.
    pub narrow: Vec<Vec<u32>>,
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..)
        .and_then(|b| b.first_chunk::<8>())
        .map_or(0, |b| u64::from_ne_bytes(*b))
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    bytes
        .get(at..)
        .and_then(|b| b.first_chunk::<4>())
        .map_or(0, |b| u32::from_ne_bytes(*b))
}

/// What `evlist.read_columns()` returns: the samples' members as
/// `array.array` columns (`cols["sample_time"]`), and the other records as
/// event objects (`cols.others`).
#[pyclass(module = "perf", name = "sample_columns", frozen)]
pub struct SampleColumns {
    columns: Py<PyDict>,
    others: Py<PyList>,
    len: usize,
    /// A file's batches: the names of the evsels, by `evsel` index.
    evsel_names: Option<Py<PyList>>,
    /// A file's batches: the session's table of the dictionary-encoded
    /// columns' names.
    names: Option<Py<PyList>>,
    /// A file's batches with `callchain`: the session's table of
    /// distinct call chains.
    callchains: Option<Py<PyList>>,
}

impl SampleColumns {
    /// What the Arrow capsules are made of.
    fn arrow_source<'a, 'py>(&'a self, py: Python<'py>) -> crate::arrow::Source<'a, 'py> {
        crate::arrow::Source {
            columns: self.columns.bind(py),
            len: self.len,
            names: self.names.as_ref().map(|n| n.bind(py)),
        }
    }

    /// Adds a column (a file's: call chains, resolved names).
    pub fn insert(&self, py: Python<'_>, name: &str, column: Bound<'_, PyAny>) -> PyResult<()> {
        self.columns.bind(py).set_item(name, column)
    }

    /// Sets what a file's batch carries besides its columns.
    pub fn with_names(
        mut self,
        evsel_names: Py<PyList>,
        names: Option<Py<PyList>>,
        callchains: Option<Py<PyList>>,
    ) -> Self {
        self.evsel_names = Some(evsel_names);
        self.names = names;
        self.callchains = callchains;
        self
    }
}

#[pymethods]
impl SampleColumns {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.columns)?;
        visit.call(&self.others)?;
        visit.call(&self.evsel_names)?;
        visit.call(&self.names)?;
        visit.call(&self.callchains)
    }

    /// Number of samples.
    fn __len__(&self) -> usize {
        self.len
    }

    fn __getitem__(&self, py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        match self.columns.bind(py).get_item(name)? {
            Some(c) => Ok(c.unbind()),
            None => Err(PyKeyError::new_err(name.clone().unbind())),
        }
    }

    fn __contains__(&self, py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.columns.bind(py).contains(name)
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(self.columns.bind(py).try_iter()?.into_any().unbind())
    }

    /// The names of the columns read.
    fn keys(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(self.columns.bind(py).keys().into_any().unbind())
    }

    /// The records that were not samples (lost, comm, mmap, task, …), as
    /// event objects, in the order they were read.
    #[getter]
    fn others(&self, py: Python<'_>) -> Py<PyList> {
        self.others.clone_ref(py)
    }

    /// A file's batches (`session.read_columns()`): the evsels' names, by
    /// the `evsel` column's index; None for a live batch (there
    /// `evlist[i]` is the evsel).
    #[getter]
    fn evsel_names(&self, py: Python<'_>) -> Option<Py<PyList>> {
        self.evsel_names.as_ref().map(|n| n.clone_ref(py))
    }

    /// The names the `dso`, `symbol`, `callchain_dso`,
    /// `callchain_symbol` and `comm` columns index (and the `callchains`'
    /// frames): one list per session, which later batches extend (index 0
    /// is `[unknown]`); None without those columns.
    #[getter]
    fn names(&self, py: Python<'_>) -> Option<Py<PyList>> {
        self.names.as_ref().map(|n| n.clone_ref(py))
    }

    /// The distinct call chains the `callchain` column indexes: one list
    /// per session, which later batches extend; each a `(dsos, symbols)`
    /// pair of `array('I')`s of `names` indexes, leaf first (index 0 is
    /// the empty chain); None without that column.
    #[getter]
    fn callchains(&self, py: Python<'_>) -> Option<Py<PyList>> {
        self.callchains.as_ref().map(|n| n.clone_ref(py))
    }

    /// The Arrow PyCapsule interface (arrow/mod.rs): the columns as one
    /// struct array.
    #[pyo3(signature = ())]
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        crate::arrow::schema_capsule(py, &self.arrow_source(py))
    }

    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema; // the columns' own types only
        crate::arrow::array_capsules(py, &self.arrow_source(py))
    }

    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        crate::arrow::stream_capsule(py, &self.arrow_source(py))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let names: Vec<String> = self
            .columns
            .bind(py)
            .keys()
            .iter()
            .map(|k| k.to_string())
            .collect();
        Ok(format!(
            "sample_columns({} samples, columns=[{}], others={})",
            self.len,
            names.join(", "),
            self.others.bind(py).len()
        ))
    }
}
