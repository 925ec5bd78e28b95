// SPDX-License-Identifier: GPL-2.0-only
//! `evlist.read_on_cpu` as a hand-made method descriptor.
//!
//! The classic loop calls `read_on_cpu` once per event, so its calling
//! convention is a large part of the per-event cost. pyo3 has to use
//! `METH_VARARGS` under the Python 3.9 stable ABI (an argument tuple per call,
//! then its generic argument extraction). `METH_FASTCALL` joined the stable
//! ABI in Python 3.10, so this module chooses at import time: on 3.10 and
//! later the method is `METH_FASTCALL | METH_KEYWORDS` (arguments arrive as a
//! C array, no tuple), on 3.9 `METH_VARARGS | METH_KEYWORDS`. Both entry points
//! collect the arguments into [`Args`] and share the parsing and the call.
//!
//! Argument errors use CPython's own texts for `PyArg_ParseTupleAndKeywords`
//! with the function named, e.g. `read_on_cpu() missing required argument
//! 'cpu' (pos 1)`.
#![allow(unsafe_code)]

use std::cell::UnsafeCell;
use std::ffi::{c_int, CStr};

use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use pyo3::{ffi, PyTypeInfo};

use crate::evlist::PyEvlist;

/// `METH_FASTCALL` (stable ABI since 3.10; pyo3-ffi hides it for abi3-py39).
const METH_FASTCALL: c_int = 0x0080;

/// The C signature of a `METH_FASTCALL | METH_KEYWORDS` function.
type FastCallKeywords = unsafe extern "C" fn(
    *mut ffi::PyObject,
    *const *mut ffi::PyObject,
    ffi::Py_ssize_t,
    *mut ffi::PyObject,
) -> *mut ffi::PyObject;

const NAME: &CStr = c"read_on_cpu";
const DOC: &CStr = c"read_on_cpu($self, /, cpu, sample_id_all=1)\n--\n\nreads an event.";
const KEYWORDS: [&str; 2] = ["cpu", "sample_id_all"];

/// The method's `PyMethodDef`; CPython keeps a pointer to it in the
/// descriptor for the life of the process.
struct MethodDef(UnsafeCell<ffi::PyMethodDef>);

// SAFETY: written once in `install`, with the GIL held and before the
// descriptor that points to it exists; CPython only reads it afterwards, also
// with the GIL held.
unsafe impl Sync for MethodDef {}

static READ_ON_CPU: MethodDef = MethodDef(UnsafeCell::new(ffi::PyMethodDef {
    ml_name: NAME.as_ptr(),
    ml_meth: ffi::PyMethodDefPointer {
        PyCFunctionWithKeywords: read_on_cpu_varargs,
    },
    ml_flags: ffi::METH_VARARGS | ffi::METH_KEYWORDS,
    ml_doc: DOC.as_ptr(),
}));

/// Replaces the pyo3-generated placeholder `evlist.read_on_cpu` with the
/// hand-made descriptor, choosing the calling convention for this Python.
pub fn install(py: Python<'_>) -> PyResult<()> {
    let fastcall = py.version_info() >= (3, 10);
    let def = READ_ON_CPU.0.get();
    if fastcall {
        // SAFETY: a METH_FASTCALL | METH_KEYWORDS function is called through
        // a pointer of this type; CPython casts ml_meth to the type ml_flags
        // names, so storing it through the union's other fn-pointer field is
        // how C extensions do it. `def` is only written here, under the GIL,
        // before any descriptor refers to it (see MethodDef).
        unsafe {
            (*def).ml_meth = ffi::PyMethodDefPointer {
                PyCFunctionWithKeywords: std::mem::transmute::<
                    FastCallKeywords,
                    ffi::PyCFunctionWithKeywords,
                >(read_on_cpu_fastcall),
            };
            (*def).ml_flags = METH_FASTCALL | ffi::METH_KEYWORDS;
        }
    }
    let ty = PyEvlist::type_object(py);
    // SAFETY: `ty` is a live type object and `def` a 'static PyMethodDef;
    // PyDescr_NewMethod returns a new reference or NULL with an exception.
    let descr =
        unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyDescr_NewMethod(ty.as_type_ptr(), def))? };
    ty.setattr(NAME.to_str().unwrap_or("read_on_cpu"), descr)
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
    // SAFETY: `obj` is a live object; PyLong_AsLong takes any object and
    // returns -1 with an exception set when it cannot convert it.
    let v = unsafe { ffi::PyLong_AsLong(obj.as_ptr()) };
    if v == -1 {
        if let Some(e) = PyErr::take(obj.py()) {
            return Err(e);
        }
    }
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
    unsafe { crate::c_entry::call("read_on_cpu", |py| Ok(f(py)?.unwrap_or_else(|| py.None()))) }
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

/// `METH_FASTCALL | METH_KEYWORDS` entry (Python ≥ 3.10).
unsafe extern "C" fn read_on_cpu_fastcall(
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

/// `METH_VARARGS | METH_KEYWORDS` entry (Python 3.9).
unsafe extern "C" fn read_on_cpu_varargs(
    slf: *mut ffi::PyObject,
    args: *mut ffi::PyObject,
    kwargs: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    let body = |py: Python<'_>| {
        // SAFETY: CPython passes a tuple of positional arguments and a dict of
        // keyword arguments or NULL, both borrowed.
        let args = unsafe { Borrowed::from_ptr(py, args).cast_unchecked::<PyTuple>() };
        let kwargs = (!kwargs.is_null())
            // SAFETY: see above.
            .then(|| unsafe { Borrowed::from_ptr(py, kwargs).cast_unchecked::<PyDict>() });
        let given = args.len() + kwargs.as_ref().map_or(0, |k| k.len());
        let mut parsed = Args::default();
        for (i, a) in args.iter().enumerate() {
            parsed.positional(i, a, given)?;
        }
        if let Some(k) = &kwargs {
            for (name, value) in k.iter() {
                parsed.keyword(&name, value)?;
            }
        }
        let cpu = parsed.parse()?;
        // SAFETY: method descriptors check self's type before calling.
        unsafe { call(py, slf, cpu) }
    };
    // SAFETY: CPython calls methods with the GIL held.
    unsafe { entry(body) }
}
