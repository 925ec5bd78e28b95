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
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use pyo3::{PyTraverseError, PyVisit};

use perf_core::record::SampleMembers;

/// The columns, with their `array` type codes.
pub const COLUMNS: [(&str, &str); 11] = [
    ("type", "I"),
    ("sample_ip", "Q"),
    ("sample_pid", "i"),
    ("sample_tid", "i"),
    ("sample_time", "Q"),
    ("sample_addr", "Q"),
    ("sample_id", "Q"),
    ("sample_stream_id", "Q"),
    ("sample_cpu", "I"),
    ("sample_period", "Q"),
    ("evsel", "I"),
];

/// The columns asked for, as a bit per entry of [`COLUMNS`].
pub fn wanted(columns: Option<&Bound<'_, PyAny>>) -> PyResult<u16> {
    let Some(columns) = columns else {
        return Ok((1 << COLUMNS.len()) - 1);
    };
    if columns.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "columns must be a sequence of column names, not str",
        ));
    }
    let mut mask = 0u16;
    for name in columns.try_iter()? {
        let name = name?;
        let name = name
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err("column names must be str"))?
            .to_cow()?;
        let Some(k) = COLUMNS.iter().position(|(c, _)| *c == name) else {
            let known: Vec<&str> = COLUMNS.iter().map(|(c, _)| *c).collect();
            return Err(PyValueError::new_err(format!(
                "unknown column '{name}'; the columns are {}",
                known.join(", ")
            )));
        };
        mask |= 1 << k;
    }
    Ok(mask)
}

/// The columns being filled, typed as their arrays.
pub struct Builder {
    mask: u16,
    types: Vec<u32>,
    ips: Vec<u64>,
    pids: Vec<i32>,
    tids: Vec<i32>,
    times: Vec<u64>,
    addrs: Vec<u64>,
    ids: Vec<u64>,
    stream_ids: Vec<u64>,
    cpus: Vec<u32>,
    periods: Vec<u64>,
    evsels: Vec<u32>,
    len: usize,
}

/// `array(code, values)`, the values written once into a bytes object.
fn to_array<const N: usize, T: Copy>(
    py: Python<'_>,
    array: &Py<PyAny>,
    code: &str,
    values: &[T],
    to_bytes: impl Fn(T) -> [u8; N],
) -> PyResult<Py<PyAny>> {
    let bytes = PyBytes::new_with(py, values.len() * N, |buf| {
        for (chunk, v) in buf.chunks_exact_mut(N).zip(values) {
            chunk.copy_from_slice(&to_bytes(*v));
        }
        Ok(())
    })?;
    array.call1(py, (code, bytes))
}

impl Builder {
    /// Empty columns for the `mask` of [`wanted`].
    pub fn new(mask: u16) -> Self {
        Builder {
            mask,
            types: Vec::new(),
            ips: Vec::new(),
            pids: Vec::new(),
            tids: Vec::new(),
            times: Vec::new(),
            addrs: Vec::new(),
            ids: Vec::new(),
            stream_ids: Vec::new(),
            cpus: Vec::new(),
            periods: Vec::new(),
            evsels: Vec::new(),
            len: 0,
        }
    }

    /// Appends one sample of evsel number `evsel`.
    #[inline(always)]
    pub fn push(&mut self, evsel: usize, m: &SampleMembers) {
        let on = |k: usize| self.mask & (1 << k) != 0;
        let (types, ips, pids, tids, times) = (on(0), on(1), on(2), on(3), on(4));
        let (addrs, ids, stream_ids, cpus, periods, evsels) =
            (on(5), on(6), on(7), on(8), on(9), on(10));
        if types {
            self.types.push(perf_core::record::PERF_RECORD_SAMPLE);
        }
        if ips {
            self.ips.push(m.ip);
        }
        if pids {
            self.pids.push(m.pid);
        }
        if tids {
            self.tids.push(m.tid);
        }
        if times {
            self.times.push(m.time);
        }
        if addrs {
            self.addrs.push(m.addr);
        }
        if ids {
            self.ids.push(m.id);
        }
        if stream_ids {
            self.stream_ids.push(m.stream_id);
        }
        if cpus {
            self.cpus.push(m.cpu);
        }
        if periods {
            self.periods.push(m.period);
        }
        if evsels {
            self.evsels.push(u32::try_from(evsel).unwrap_or(u32::MAX));
        }
        self.len += 1;
    }

    /// The result object, with the non-sample records read meanwhile.
    pub fn finish(self, py: Python<'_>, others: Vec<Py<PyAny>>) -> PyResult<SampleColumns> {
        static ARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let array = ARRAY.get_or_try_init(py, || {
            Ok::<_, PyErr>(py.import("array")?.getattr("array")?.unbind())
        })?;
        let columns = PyDict::new(py);
        let add = |k: usize, make: &dyn Fn(&str) -> PyResult<Py<PyAny>>| -> PyResult<()> {
            if self.mask & (1 << k) != 0 {
                let (name, code) = COLUMNS[k];
                columns.set_item(name, make(code)?)?;
            }
            Ok(())
        };
        add(0, &|c| {
            to_array(py, array, c, &self.types, u32::to_ne_bytes)
        })?;
        add(1, &|c| to_array(py, array, c, &self.ips, u64::to_ne_bytes))?;
        add(2, &|c| to_array(py, array, c, &self.pids, i32::to_ne_bytes))?;
        add(3, &|c| to_array(py, array, c, &self.tids, i32::to_ne_bytes))?;
        add(4, &|c| {
            to_array(py, array, c, &self.times, u64::to_ne_bytes)
        })?;
        add(5, &|c| {
            to_array(py, array, c, &self.addrs, u64::to_ne_bytes)
        })?;
        add(6, &|c| to_array(py, array, c, &self.ids, u64::to_ne_bytes))?;
        add(7, &|c| {
            to_array(py, array, c, &self.stream_ids, u64::to_ne_bytes)
        })?;
        add(8, &|c| to_array(py, array, c, &self.cpus, u32::to_ne_bytes))?;
        add(9, &|c| {
            to_array(py, array, c, &self.periods, u64::to_ne_bytes)
        })?;
        add(10, &|c| {
            to_array(py, array, c, &self.evsels, u32::to_ne_bytes)
        })?;
        Ok(SampleColumns {
            columns: columns.unbind(),
            others: PyList::new(py, others)?.unbind(),
            len: self.len,
        })
    }
}

/// What `evlist.read_columns()` returns: the samples' members as
/// `array.array` columns (`cols["sample_time"]`), and the other records as
/// event objects (`cols.others`).
#[pyclass(module = "perf", name = "sample_columns", frozen)]
pub struct SampleColumns {
    columns: Py<PyDict>,
    others: Py<PyList>,
    len: usize,
}

#[pymethods]
impl SampleColumns {
    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.columns)?;
        visit.call(&self.others)
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
