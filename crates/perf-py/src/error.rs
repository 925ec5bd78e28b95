// SPDX-License-Identifier: GPL-2.0-only
//! The one place Rust errors become Python exceptions.
//!
//! Every error of perf-core reaches Python as a [`PerfError`]: a method
//! returns [`PerfResult`] (or `PyResult`, converting with `?` or
//! `PerfError::from`), and `From<PerfError> for PyErr` below picks the
//! exception. A new core error variant is one more arm there; the match is
//! exhaustive, so the compiler asks for it.
//!
//! * Syscall failures become `OSError(errno, text)`, so CPython picks the
//!   subclass (PermissionError, FileNotFoundError, ProcessLookupError…) and
//!   `e.errno` is set, as `PyErr_SetFromErrno` does in the C module.
//! * Bad values (a CPU list, an argument the kernel or the API refuses, a
//!   malformed file or field, an event string) become `ValueError`.
//! * A CPU or thread outside an evsel's or evlist's maps becomes `TypeError`,
//!   as in the C module.
//! * A perf.data input that cannot be read becomes `OSError(errno, text,
//!   path)`: the errno of the failed call, `EINVAL` for contents perf calls
//!   an "incompatible file format", `EFBIG` for a decompression bomb; the
//!   text says what is wrong and at which file offset.
//! * A record read from a ring that cannot be parsed becomes
//!   `OSError(EFAULT, "perf: can't parse sample: …")`, the C module's
//!   "can't parse sample".
//! * A metric string `parse_metrics()` cannot turn into events (an unknown
//!   metric or group, a malformed expression, an event this machine lacks)
//!   becomes `OSError(EINVAL, text)`, the C module's `OSError(-ret)`, with
//!   the text naming the metric, the event or the offset.
//! * An `itrace=` string perf's grammar refuses becomes
//!   `ValueError("Failed to parse itrace options")`, as in the C module.
//!
//! Errors of the Python layer itself (argument types, unknown column
//! names) are raised where they are found.

use perf_core::error::{strerror, DataErrorKind};
use perf_core::metric::metricgroup::MetricError;
use perf_core::parse_events::ParseError;
use perf_core::session::itrace::ItraceError;
use perf_core::Error;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::PyErr;

/// Result alias for the pyo3 layer.
pub type PerfResult<T> = Result<T, PerfError>;

/// A Rust error on its way to Python.
#[derive(Debug)]
pub enum PerfError {
    /// An error of the core.
    Core(Error),
    /// A record read from a ring that the record parser rejects.
    Record(Error),
    /// An event string `parse_events()` refuses.
    ParseEvents(ParseError),
    /// An `itrace=` string perf's option grammar refuses.
    Itrace(ItraceError),
    /// A metric string `parse_metrics()` refuses.
    Metric(MetricError),
}

impl From<MetricError> for PerfError {
    fn from(e: MetricError) -> Self {
        PerfError::Metric(e)
    }
}

impl From<Error> for PerfError {
    fn from(e: Error) -> Self {
        PerfError::Core(e)
    }
}

impl From<ItraceError> for PerfError {
    fn from(e: ItraceError) -> Self {
        PerfError::Itrace(e)
    }
}

impl From<ParseError> for PerfError {
    fn from(e: ParseError) -> Self {
        PerfError::ParseEvents(e)
    }
}

impl From<PerfError> for PyErr {
    fn from(e: PerfError) -> PyErr {
        match e {
            PerfError::Core(e) => core(e),
            PerfError::Record(e) => oserror(libc::EFAULT, format!("perf: can't parse sample: {e}")),
            PerfError::ParseEvents(e) => PyValueError::new_err(e.to_string()),
            // python.c's text, whatever the string.
            PerfError::Itrace(_) => PyValueError::new_err("Failed to parse itrace options"),
            PerfError::Metric(e) => oserror(libc::EINVAL, e.to_string()),
        }
    }
}

fn core(e: Error) -> PyErr {
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
        Error::InvalidCpuList { .. } | Error::InvalidArgument(_) | Error::Malformed { .. } => {
            PyValueError::new_err(e.to_string())
        }
        // A perf.data file that cannot be read: an OSError, which
        // upstream's scripts catch, with the errno DataError suggests, the
        // file as its filename and the offset in the text (not for a
        // failed open or stat: offset 0 says nothing there).
        Error::PerfData(d) => {
            let text = match (&d.kind, d.offset) {
                (DataErrorKind::Io { .. }, 0) => d.kind.to_string(),
                (kind, offset) => format!("{kind} (at file offset {offset:#x})"),
            };
            PyOSError::new_err((d.errno(), text, d.path.clone()))
        }
        Error::UnknownCpu { .. } | Error::CpuNotInMap { .. } | Error::ThreadNotInMap { .. } => {
            PyTypeError::new_err(e.to_string())
        }
    }
}

/// `OSError(errno, text)`: CPython's `OSError.__new__` maps errno to the subclass.
fn oserror(errno: i32, text: String) -> PyErr {
    PyOSError::new_err((errno, text))
}
