// SPDX-License-Identifier: GPL-2.0-only
//! Reading a perf.data file without the GIL (`session.read_columns()`, and
//! `process_events()` with no callback), so that Python threads reading
//! different sessions run at once.
//!
//! The one thing the GIL-free part still asks of Python is the signal
//! check (`PyErr_CheckSignals`, so that Ctrl-C stops a long read). CPython
//! runs signal handlers only in the main thread, so only there is the GIL
//! taken for it, and not at every [`Handler::check`] of the session (every
//! 64 records): taking it waits for whichever thread holds it.
//!
//! [`Handler::check`]: perf_core::session::Handler::check

use perf_core::session::{Event, Handler};
use pyo3::prelude::*;

/// [`Handler::check`](perf_core::session::Handler::check) calls between two
/// signal checks: 64 × 256 records, a millisecond or two of reading.
const CHECK_EVERY: u32 = 256;

/// The signal check of a GIL-free read.
pub struct Signals {
    /// The calling thread is Python's main thread.
    main: bool,
    calls: u32,
}

impl Signals {
    /// For the calling thread, which holds the GIL. Without `threading`
    /// imported, the thread is taken for the main one (importing it costs
    /// a few milliseconds; a thread started through `_thread` alone would
    /// only take the GIL for a check that does nothing there).
    pub fn new(py: Python<'_>) -> PyResult<Signals> {
        let modules = py.import("sys")?.getattr("modules")?;
        let threading = modules.call_method1("get", ("threading",))?;
        if threading.is_none() {
            return Ok(Signals {
                main: true,
                calls: 0,
            });
        }
        let main = threading.call_method0("main_thread")?.getattr("ident")?;
        let current = threading.call_method0("get_ident")?;
        Ok(Signals {
            main: main.eq(current)?,
            calls: 0,
        })
    }

    /// Called without the GIL: runs the signal handlers now and then (in
    /// the main thread), their exception stopping the read.
    pub fn check(&mut self) -> PyResult<()> {
        self.calls = self.calls.wrapping_add(1);
        if !self.main || self.calls % CHECK_EVERY != 1 {
            return Ok(());
        }
        Python::attach(|py| py.check_signals())
    }
}

/// The handler of a `process_events()` with no callback: nothing calls
/// Python, so the whole read runs without the GIL (the session's threads
/// are built as with callbacks).
pub struct Quiet {
    signals: Signals,
}

impl Quiet {
    /// For the calling thread, which holds the GIL.
    pub fn new(py: Python<'_>) -> PyResult<Quiet> {
        Ok(Quiet {
            signals: Signals::new(py)?,
        })
    }
}

impl Handler for Quiet {
    type Error = PyErr;

    fn sample(&mut self, _: &Event<'_>) -> PyResult<()> {
        Ok(())
    }

    fn check(&mut self) -> PyResult<()> {
        self.signals.check()
    }
}
