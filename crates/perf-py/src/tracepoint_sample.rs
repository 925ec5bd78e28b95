// SPDX-License-Identifier: GPL-2.0-only
//! Samples of tracepoint evsels, whose tracepoint fields read as attributes
//! (`ev.prev_pid`).
//!
//! Each tracepoint format gets its own class, a subclass of
//! `perf.tracepoint_sample_event` (itself a `sample_event`) whose fields are
//! getset descriptors, so a field is an ordinary attribute: one cached type
//! lookup and a getter, with no `__getattribute__` hook slowing down the
//! members (`ev.sample_time`) or anything else. A field named like a member
//! (`type`) shadows it, as in the C module, because the subclass comes first
//! in the MRO. The classes are named `perf.sample_event` (the C module's
//! `tp_name`: it prints and words its AttributeErrors the same way) and are
//! made once per format for the life of the process.
//!
//! The classes also answer the numeric members (`ev.type`, `ev.sample_time`)
//! before the generic lookup, by comparing the (interned) attribute name with
//! the members' names — what a consumer reads most. Formats with a field
//! named like a member keep the generic lookup, so that the field shadows the
//! member. Measured (`benchmarks/instructions.sh`): the `read_on_cpu` loop
//! reading `type` and three members costs 3006 instructions per event with
//! this `tp_getattro`, 3413 (+14 %) with the generic lookup and pyo3's
//! getters.
//!
//! pyo3 makes classes at compile time only, hence `PyType_FromSpecWithBases`
//! here, with the getters' C entry points.
#![allow(unsafe_code)]

use std::ffi::{c_void, CString};
use std::sync::{Arc, Mutex};

use perf_core::record::SampleMembers;
use perf_core::tracefs::{Field, Format};
use pyo3::exceptions::PyAttributeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyInt, PyString, PyTuple, PyType};
use pyo3::{ffi, PyClassInitializer, PyTypeInfo};

use crate::events::SampleEvent;

/// A sample of a tracepoint evsel; samples are instances of its per-format
/// subclasses (see the module documentation).
// Named `sample_event` like its base, so it prints as the C module's class;
// `perf.tracepoint_sample_event` names it for isinstance checks.
#[pyclass(module = "perf", name = "sample_event", extends = SampleEvent, subclass)]
pub struct TracepointSampleEvent {}

#[pymethods]
impl TracepointSampleEvent {
    #[new]
    fn new() -> PyClassInitializer<Self> {
        PyClassInitializer::from(SampleEvent::new_sample()).add_subclass(TracepointSampleEvent {})
    }
}

/// What one getter reads: field `index` of `format` (common fields first).
struct FieldRef {
    format: Arc<Format>,
    index: usize,
}

impl FieldRef {
    fn field(&self) -> Option<&Field> {
        let common = &self.format.common_fields;
        match self.index.checked_sub(common.len()) {
            None => common.get(self.index),
            Some(i) => self.format.fields.get(i),
        }
    }

    fn get(&self, obj: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let sample = obj.cast::<SampleEvent>()?.borrow();
        match (self.field(), sample.raw.as_deref()) {
            (Some(field), Some(payload)) => {
                crate::tracepoint::value(obj.py(), field, payload, sample.raw_order())
            }
            // A tracepoint evsel sampled without PERF_SAMPLE_RAW.
            _ => Err(PyAttributeError::new_err(format!(
                "'perf.sample_event' object has no attribute '{}'",
                self.field().map_or("?", |f| f.name.as_str())
            ))),
        }
    }
}

/// The getter of every field descriptor.
unsafe extern "C" fn get_field(
    obj: *mut ffi::PyObject,
    closure: *mut c_void,
) -> *mut ffi::PyObject {
    // SAFETY: CPython calls getters with the GIL held, `obj` a borrowed
    // instance of the class (the descriptor checks its type and answers class
    // access itself), and `closure` the pointer stored in the PyGetSetDef:
    // a FieldRef leaked in `make_class`, never freed.
    unsafe {
        crate::c_entry::call("a tracepoint field getter", |py| {
            let field = &*closure.cast::<FieldRef>();
            field.get(&Borrowed::from_ptr(py, obj))
        })
    }
}

/// What [`getattro`] answers itself: `type`, then the sample members.
const ANSWERED: usize = 1 + SampleMembers::COUNT;

macro_rules! answered_members {
    ($(($field:ident, $attr:ident, $ty:ty, $doc:literal, $($layout:tt)*)),* $(,)?) => {
        /// The names of the attributes [`getattro`] answers itself.
        const MEMBERS: [&str; ANSWERED] = ["type", $(stringify!($attr)),*];

        /// Their values, in [`MEMBERS`]' order.
        const GETTERS: [fn(Python<'_>, &SampleEvent) -> PyResult<Py<PyAny>>; ANSWERED] = [
            |py, s| int(py, s.r#type),
            $(|py, s| int(py, s.$attr)),*
        ];
    };
}
perf_core::sample_member_list!(answered_members);

/// A member's value as a Python int.
#[inline(always)]
fn int<'py, T>(py: Python<'py>, v: T) -> PyResult<Py<PyAny>>
where
    T: IntoPyObject<'py, Target = PyInt, Output = Bound<'py, PyInt>>,
    PyErr: From<T::Error>,
{
    Ok(v.into_pyobject(py)?.into_any().unbind())
}

/// The members' names, interned: the names in Python code are the same
/// objects, so a pointer comparison finds them.
fn member_names(py: Python<'_>) -> &[Py<PyString>; ANSWERED] {
    static NAMES: PyOnceLock<[Py<PyString>; ANSWERED]> = PyOnceLock::new();
    NAMES.get_or_init(py, || MEMBERS.map(|m| PyString::intern(py, m).unbind()))
}

/// `tp_getattro` of the classes without a field named like a member: the
/// members first (by name identity), then `object.__getattribute__`.
unsafe extern "C" fn getattro(
    obj: *mut ffi::PyObject,
    name: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    // SAFETY: CPython calls tp_getattro with the GIL held and borrowed `obj`
    // (an instance of a class made by `make_class`, whose layout is
    // sample_event's: the classes are final and add no storage) and `name`.
    // PyObject_GenericGetAttr returns a new reference or NULL with an
    // exception set.
    unsafe {
        crate::c_entry::call("sample_event attribute lookup", |py| {
            if let Some(k) = member_names(py).iter().position(|n| n.as_ptr() == name) {
                let sample = Borrowed::from_ptr(py, obj).cast_unchecked::<SampleEvent>();
                if let Some(get) = GETTERS.get(k) {
                    return get(py, &sample.borrow());
                }
            }
            Bound::from_owned_ptr_or_err(py, ffi::PyObject_GenericGetAttr(obj, name))
                .map(Bound::unbind)
        })
    }
}

/// The classes made so far, one per distinct format: the live formats are
/// cached per tracepoint id for the life of the process, and a perf.data
/// file's formats get the class of an equal format made before, so this
/// grows only with the formats of different kernels (or corrupted files).
static CLASSES: Mutex<Vec<(Arc<Format>, Py<PyType>)>> = Mutex::new(Vec::new());

/// The class of samples of `format`, made on first use.
pub fn class_for(py: Python<'_>, format: &Arc<Format>) -> PyResult<Py<PyType>> {
    let known = |classes: &Vec<(Arc<Format>, Py<PyType>)>| {
        classes
            .iter()
            .find(|(f, _)| Arc::ptr_eq(f, format) || **f == **format)
            .map(|(_, c)| c.clone_ref(py))
    };
    if let Some(c) = known(&CLASSES.lock().unwrap_or_else(|p| p.into_inner())) {
        return Ok(c);
    }
    // Made without holding the lock (making a type runs Python code); a
    // class another thread made meanwhile wins, so there is one per format.
    let made = make_class(py, format)?;
    let mut classes = CLASSES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(c) = known(&classes) {
        return Ok(c);
    }
    classes.push((format.clone(), made.clone_ref(py)));
    Ok(made)
}

/// `PyType_FromSpecWithBases("perf.sample_event", (tracepoint_sample_event,))`
/// with one getset per field.
fn make_class(py: Python<'_>, format: &Arc<Format>) -> PyResult<Py<PyType>> {
    let common = format.common_fields.len();
    // The event's own fields first: where a name repeats, the first
    // definition is the one the class gets.
    let order = (common..common + format.fields.len()).chain(0..common);
    let mut getsets: Vec<ffi::PyGetSetDef> = Vec::new();
    for index in order {
        let field = FieldRef {
            format: format.clone(),
            index,
        };
        let Some(name) = field.field().map(|f| f.name.as_str()) else {
            continue;
        };
        // Special names (`__x__`) would replace the class's own machinery;
        // `__syscall_nr` and the like are ordinary fields.
        if name.len() > 4 && name.starts_with("__") && name.ends_with("__") {
            continue;
        }
        let Ok(name) = CString::new(name) else {
            continue;
        };
        getsets.push(ffi::PyGetSetDef {
            // Leaked, like the FieldRef: the class keeps pointers to both
            // and lives as long as the process (see CLASSES).
            name: name.into_raw(),
            get: Some(get_field),
            set: None,
            doc: std::ptr::null(),
            closure: Box::into_raw(Box::new(field)).cast(),
        });
    }
    getsets.push(ffi::PyGetSetDef {
        name: std::ptr::null(),
        get: None,
        set: None,
        doc: std::ptr::null(),
        closure: std::ptr::null_mut(),
    });
    let shadows_a_member = format
        .common_fields
        .iter()
        .chain(&format.fields)
        .any(|f| MEMBERS.contains(&f.name.as_str()));
    let getsets: &'static mut [ffi::PyGetSetDef] = getsets.leak();
    let mut slots = vec![ffi::PyType_Slot {
        slot: ffi::Py_tp_getset,
        pfunc: getsets.as_mut_ptr().cast(),
    }];
    if !shadows_a_member {
        slots.push(ffi::PyType_Slot {
            slot: ffi::Py_tp_getattro,
            pfunc: getattro as *mut c_void,
        });
    }
    slots.push(ffi::PyType_Slot {
        slot: 0,
        pfunc: std::ptr::null_mut(),
    });
    let mut spec = ffi::PyType_Spec {
        // 'static: CPython 3.11 and older keep this pointer as tp_name.
        name: c"perf.sample_event".as_ptr(),
        basicsize: 0, // the base's layout: no new members
        itemsize: 0,
        flags: ffi::Py_TPFLAGS_DEFAULT as std::ffi::c_uint,
        slots: slots.as_mut_ptr(),
    };
    let bases = PyTuple::new(py, [TracepointSampleEvent::type_object(py)])?;
    // SAFETY: `spec` and `slots` are valid for the call (CPython copies
    // what it keeps of them, except the name, which is 'static); the getset
    // array and everything it points to are leaked, so they outlive the
    // class. Returns a new reference or NULL with an exception set.
    let class = unsafe {
        Bound::from_owned_ptr_or_err(py, ffi::PyType_FromSpecWithBases(&mut spec, bases.as_ptr()))?
    };
    Ok(class.cast_into::<PyType>()?.unbind())
}
