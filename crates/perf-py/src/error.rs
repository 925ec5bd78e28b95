// SPDX-License-Identifier: GPL-2.0-only
//! The one place core errors become Python exceptions.
//!
//! Syscall failures become `OSError(errno, text)`, so CPython picks the
//! subclass (PermissionError, FileNotFoundError, ProcessLookupError…) and
//! `e.errno` is set, as `PyErr_SetFromErrno` does in the C module.

use perf_core::error::strerror;
use perf_core::Error;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::PyErr;

/// Result alias for the pyo3 layer.
pub type PerfResult<T> = Result<T, PerfError>;

/// A core error on its way to Python.
pub struct PerfError(pub Error);

impl From<Error> for PerfError {
    fn from(e: Error) -> Self {
        PerfError(e)
    }
}

impl From<PerfError> for PyErr {
    fn from(PerfError(e): PerfError) -> PyErr {
        match e {
            // Without an explanation the text is strerror alone, as
            // PyErr_SetFromErrno gives it; with one, it names the operation.
            Error::Sys { op, errno, hint } => match hint {
                None => oserror(errno, strerror(errno)),
                Some(hint) => oserror(errno, format!("{op}: {hint}")),
            },
            Error::NoSuchProcess { pid } => {
                oserror(libc::ESRCH, format!("{}: pid {pid}", strerror(libc::ESRCH)))
            }
            Error::InvalidCpuList { .. } | Error::InvalidArgument(_) => {
                PyValueError::new_err(e.to_string())
            }
            Error::Malformed { .. } => PyValueError::new_err(e.to_string()),
            // A perf.data file that cannot be read: an OSError, which
            // upstream's scripts catch, with the errno DataError suggests.
            Error::PerfData(d) => oserror(d.errno(), d.to_string()),
        }
    }
}

/// `OSError(errno, text)`: CPython's `OSError.__new__` maps errno to the subclass.
pub fn oserror(errno: i32, text: String) -> PyErr {
    PyOSError::new_err((errno, text))
}
