// SPDX-License-Identifier: GPL-2.0-only
//! `evlist.read_on_cpu` as a hand-made `METH_FASTCALL | METH_KEYWORDS`
//! method descriptor, installed on `perf.evlist` at import.
//!
//! Why not a `#[pymethods]` method: the classic loop calls `read_on_cpu` once
//! per event, and its bad calls must raise what the C module's
//! `PyArg_ParseTupleAndKeywords("i|i")` raises, worded with the method's name
//! (`read_on_cpu() missing required argument 'cpu' (pos 1)`; docs/api.md).
//! pyo3 lets a method word its own argument errors only through `**kwargs`,
//! and compiles such a method to `METH_VARARGS` (an argument tuple and dict
//! per call): 2330 instructions per event on the `read_on_cpu` loop of
//! `benchmarks/instructions.sh` against 1884 here (+24 %), and 3313 against
//! 2867 (+16 %) on the loop that reads `type` and three members, which would
//! leave it 1.27x the C module's. (A pyo3 `METH_FASTCALL` method with pyo3's
//! own argument handling: 2024, +7 %, but with pyo3's texts for unknown
//! and repeated keywords.) docs/performance.md has the figures.
//!
//! The arguments arrive as a C array (no tuple); [`Args`] parses any call
//! other than `read_on_cpu(cpu)`.
#![allow(unsafe_code)]

use std::ffi::CStr;

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use pyo3::{ffi, PyTypeInfo};

use crate::evlist::PyEvlist;

const NAME: &str = "read_on_cpu";
const DOC: &CStr = c"read_on_cpu($self, /, cpu, sample_id_all=1)\n--\n\nreads an event.";
const KEYWORDS: [&str; 2] = ["cpu", "sample_id_all"];

/// The method's `PyMethodDef`; CPython keeps a pointer to it in the
/// descriptor for the life of the process.
struct MethodDef(ffi::PyMethodDef);

// SAFETY: never written after its constant initialisation; CPython only
// reads it, with the GIL held.
unsafe impl Sync for MethodDef {}

static READ_ON_CPU: MethodDef = MethodDef(ffi::PyMethodDef {
    ml_name: c"read_on_cpu".as_ptr(),
    ml_meth: ffi::PyMethodDefPointer {
        PyCFunctionFastWithKeywords: read_on_cpu,
    },
    ml_flags: ffi::METH_FASTCALL | ffi::METH_KEYWORDS,
    ml_doc: DOC.as_ptr(),
});

/// Adds the method to `perf.evlist` (whose `#[pymethods]` do not define it).
pub fn install(py: Python<'_>) -> PyResult<()> {
    let ty = PyEvlist::type_object(py);
    // CPython takes a mutable pointer but does not write through it.
    let def = std::ptr::from_ref(&READ_ON_CPU.0).cast_mut();
    // SAFETY: `ty` is a live type object and `def` a 'static PyMethodDef;
    // PyDescr_NewMethod returns a new reference or NULL with an exception.
    let descr =
        unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyDescr_NewMethod(ty.as_type_ptr(), def))? };
    ty.setattr(NAME, descr)
}

/// The arguments as received, before parsing.
#[derive(Default)]
struct Args<'py> {
    cpu: Option<Bound<'py, PyAny>>,
    sample_id_all: Option<Bound<'py, PyAny>>,
}

impl<'py> Args<'py> {
    fn positional(&mut self, i: usize, value: Bound<'py, PyAny>, given: usize) -> PyResult<()> {
        match i {
            0 => self.cpu = Some(value),
            1 => self.sample_id_all = Some(value),
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "read_on_cpu() takes at most 2 arguments ({given} given)"
                )))
            }
        }
        Ok(())
    }

    fn keyword(&mut self, name: &Bound<'py, PyAny>, value: Bound<'py, PyAny>) -> PyResult<()> {
        let name = name.cast::<PyString>()?;
        let (slot, pos) = match &*name.to_cow()? {
            "cpu" => (&mut self.cpu, 1),
            "sample_id_all" => (&mut self.sample_id_all, 2),
            other => {
                return Err(PyTypeError::new_err(format!(
                    "'{other}' is an invalid keyword argument for read_on_cpu()"
                )))
            }
        };
        if slot.is_some() {
            return Err(PyTypeError::new_err(format!(
                "argument for read_on_cpu() given by name ('{}') and position ({pos})",
                KEYWORDS[pos - 1]
            )));
        }
        *slot = Some(value);
        Ok(())
    }

    /// `"i|i"`: cpu (required) and sample_id_all (parsed, then ignored as
    /// the C module does).
    fn parse(self) -> PyResult<i32> {
        let Some(cpu) = self.cpu else {
            return Err(PyTypeError::new_err(
                "read_on_cpu() missing required argument 'cpu' (pos 1)",
            ));
        };
        let cpu = c_int_arg(&cpu)?;
        if let Some(s) = self.sample_id_all {
            c_int_arg(&s)?;
        }
        Ok(cpu)
    }
}

/// The `i` format unit: a C int (any object with `__index__`), with its
/// OverflowError texts.
#[inline(always)]
fn c_int_arg(obj: &Bound<'_, PyAny>) -> PyResult<i32> {
    let v: std::ffi::c_long = obj.extract()?;
    i32::try_from(v).map_err(|_| {
        PyOverflowError::new_err(if v > 0 {
            "signed integer is greater than maximum"
        } else {
            "signed integer is less than minimum"
        })
    })
}

/// Runs `f` as the method's body (see c_entry.rs); None is Python's None.
///
/// # Safety
///
/// As [`crate::c_entry::call`]: only from the method's C entry points.
unsafe fn entry(f: impl FnOnce(Python<'_>) -> PyResult<Option<Py<PyAny>>>) -> *mut ffi::PyObject {
    // SAFETY: our callers are CPython's calls of the method (GIL held).
    unsafe { crate::c_entry::call(NAME, |py| Ok(f(py)?.unwrap_or_else(|| py.None()))) }
}

/// `evlist.read_on_cpu(cpu)` on the evlist `slf` points to.
///
/// # Safety
///
/// `slf` must be a borrowed reference to an instance of `perf.evlist` (or a
/// subclass): method descriptors check the type of self before calling.
unsafe fn call(py: Python<'_>, slf: *mut ffi::PyObject, cpu: i32) -> PyResult<Option<Py<PyAny>>> {
    // SAFETY: per this function's contract.
    let evlist = unsafe { Borrowed::from_ptr(py, slf).cast_unchecked::<PyEvlist>() };
    evlist.get().read_on_cpu(py, cpu)
}

/// The method's C entry point (`METH_FASTCALL | METH_KEYWORDS`).
unsafe extern "C" fn read_on_cpu(
    slf: *mut ffi::PyObject,
    args: *const *mut ffi::PyObject,
    nargs: ffi::Py_ssize_t,
    kwnames: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let body = |py: Python<'_>| {
        let nargs = usize::try_from(nargs).unwrap_or(0);
        // SAFETY: CPython passes nargs positional arguments followed by one
        // value per name in kwnames (a tuple, or NULL), all borrowed.
        let arg = |i: usize| unsafe { Borrowed::from_ptr(py, *args.add(i)) };
        let kwnames = (!kwnames.is_null())
            // SAFETY: non-null kwnames is a tuple of str, borrowed.
            .then(|| unsafe { Borrowed::from_ptr(py, kwnames).cast_unchecked::<PyTuple>() });
        let nkw = kwnames.as_ref().map_or(0, |k| k.len());
        if nargs == 1 && nkw == 0 {
            // The classic loop's call: read_on_cpu(cpu).
            let cpu = c_int_arg(&arg(0))?;
            // SAFETY: method descriptors check self's type before calling.
            return unsafe { call(py, slf, cpu) };
        }
        let mut parsed = Args::default();
        for i in 0..nargs {
            parsed.positional(i, arg(i).to_owned(), nargs + nkw)?;
        }
        if let Some(k) = &kwnames {
            for (j, name) in k.iter().enumerate() {
                parsed.keyword(&name, arg(nargs + j).to_owned())?;
            }
        }
        let cpu = parsed.parse()?;
        // SAFETY: method descriptors check self's type before calling.
        unsafe { call(py, slf, cpu) }
    };
    // SAFETY: CPython calls methods with the GIL held.
    unsafe { entry(body) }
}
