// SPDX-License-Identifier: GPL-2.0-only
//! A FIFO named as a perf.data input (`perf record -o fifo`, then
//! `perf.data("fifo")`): perf's `perf_data__open` reads it as a pipe. A
//! plain `open(2)` of a FIFO waits, unkillable by Ctrl-C, until a writer
//! opens it; here it is opened with `O_NONBLOCK` (at once), and the caller
//! waits for the writer in short polls ([`wait_for_writer`]), free to run
//! signal handlers between them, then makes the reads block again
//! ([`set_blocking`]).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};

use super::input::io_error;
use crate::error::Result;

/// Opens `path` read-only without waiting if it is a FIFO; `None` (and
/// nothing left open) for anything else, and for `-` (stdin, which
/// [`PerfData::open`](super::PerfData::open) takes as it is).
///
/// # Errors
/// [`DataErrorKind::Io`](crate::error::DataErrorKind::Io) with the errno of
/// `open` or `fstat`, naming the path.
pub fn open_fifo(path: &str) -> Result<Option<File>> {
    if path == "-" {
        return Ok(None);
    }
    let meta = std::fs::metadata(path).map_err(|e| io_error("stat", &e, path))?;
    if !meta.file_type().is_fifo() {
        return Ok(None);
    }
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| io_error("open", &e, path))?;
    let meta = file.metadata().map_err(|e| io_error("fstat", &e, path))?;
    Ok(meta.file_type().is_fifo().then_some(file))
}

/// Waits at most `timeout_ms` for a writer: true once the FIFO has data,
/// or had a writer that has gone (its end of file). A signal ends the
/// wait early, as a timeout does (false).
///
/// # Errors
/// `poll`'s errno other than `EINTR`.
pub fn wait_for_writer(fifo: &File, timeout_ms: i32, path: &str) -> Result<bool> {
    match crate::sys::poll(&[fifo.as_raw_fd()], timeout_ms) {
        Ok((n, _)) => Ok(n > 0),
        Err(e) if e.errno() == Some(libc::EINTR) => Ok(false),
        Err(e) => Err(io_error(
            "poll",
            &std::io::Error::from_raw_os_error(e.errno().unwrap_or(libc::EIO)),
            path,
        )),
    }
}

/// Clears `O_NONBLOCK`: reads wait for data again (the session's reads
/// of a stream wait with signals handled, see `StreamWait`).
///
/// # Errors
/// `fcntl`'s errno.
pub fn set_blocking(fifo: &File, path: &str) -> Result<()> {
    use nix::fcntl::{fcntl, FcntlArg, OFlag};
    let to_io = |e: nix::Error| io_error("fcntl", &std::io::Error::from(e), path);
    let flags = OFlag::from_bits_retain(fcntl(fifo, FcntlArg::F_GETFL).map_err(to_io)?);
    fcntl(fifo, FcntlArg::F_SETFL(flags.difference(OFlag::O_NONBLOCK))).map_err(to_io)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn a_fifo_opens_at_once_and_waits_for_its_writer() {
        let dir = std::env::temp_dir().join(format!("perf-data-fifo-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("fifo");
        let _ = std::fs::remove_file(&path);
        nix::unistd::mkfifo(&path, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        let p = path.to_str().unwrap();
        let fifo = open_fifo(p).unwrap().expect("a FIFO");
        // No writer yet: nothing to read, no end of file.
        assert!(!wait_for_writer(&fifo, 10, p).unwrap());
        let mut w = File::options().write(true).open(&path).unwrap();
        w.write_all(b"PERFILE2").unwrap();
        drop(w);
        assert!(wait_for_writer(&fifo, 1000, p).unwrap());
        set_blocking(&fifo, p).unwrap();
        let mut got = Vec::new();
        (&fifo).read_to_end(&mut got).unwrap();
        assert_eq!(got, b"PERFILE2");
        // Not FIFOs.
        assert!(open_fifo("/dev/null").unwrap().is_none());
        assert!(open_fifo(dir.to_str().unwrap()).unwrap().is_none());
        assert!(open_fifo("/nonexistent/fifo").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
