// SPDX-License-Identifier: GPL-2.0-only
//! `perf.data("fifo")`: a FIFO is a pipe-mode input, and waiting for its
//! writer is allowed, but Ctrl-C must end the wait. The FIFO is opened
//! without blocking, then polled for a writer 100 ms at a time with the
//! GIL released, the signal handlers run between polls (a
//! `KeyboardInterrupt` ends the wait, closing the FIFO).

use perf_core::perf_data::{fifo, PerfData};
use pyo3::prelude::*;

use crate::error::PerfError;

/// How long one poll for the writer lasts.
const POLL_MS: i32 = 100;

/// The input for `path` if it is a FIFO, once its writer has come;
/// `None` for anything else.
pub fn open(py: Python<'_>, path: &str) -> PyResult<Option<PerfData>> {
    let Some(file) = fifo::open_fifo(path).map_err(PerfError::from)? else {
        return Ok(None);
    };
    loop {
        let ready = py
            .detach(|| fifo::wait_for_writer(&file, POLL_MS, path))
            .map_err(PerfError::from)?;
        if ready {
            break;
        }
        py.check_signals()?;
    }
    fifo::set_blocking(&file, path).map_err(PerfError::from)?;
    let data = PerfData::from_fd(file.into(), path).map_err(PerfError::from)?;
    Ok(Some(data))
}
