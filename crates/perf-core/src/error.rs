// SPDX-License-Identifier: GPL-2.0-only
//! The one error type of the core. Syscall failures keep their raw errno (the
//! Python layer builds `OSError(errno, strerror)` from it); parse failures say
//! what was wrong with the input.

/// Everything that can go wrong in the core.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A system call failed.
    #[error("{op}: {}", strerror(*errno))]
    Sys {
        /// What was being done (`perf_event_open`, `mmap`, `ioctl(ENABLE)`…).
        op: &'static str,
        /// The raw errno.
        errno: i32,
        /// An explanation beyond strerror, if one is known.
        hint: Option<String>,
    },
    /// A CPU list string that libperf would refuse.
    #[error("invalid CPU list {list:?}: {reason}")]
    InvalidCpuList {
        /// The string given.
        list: String,
        /// Why it is invalid.
        reason: String,
    },
    /// `thread_map(pid)` for a process that does not exist.
    #[error("no such process: {pid}")]
    NoSuchProcess {
        /// The pid asked for.
        pid: i32,
    },
    /// A value that is out of range for what the kernel or the API accepts.
    #[error("{0}")]
    InvalidArgument(String),
    /// A CPU number the evlist has no ring for (not in its maps, or not
    /// mapped yet).
    #[error("Unknown CPU '{cpu}'")]
    UnknownCpu {
        /// The CPU number asked for.
        cpu: i32,
    },
    /// A CPU number the evsel was not opened on.
    #[error("CPU {cpu} is not part of evsel's CPUs")]
    CpuNotInMap {
        /// The CPU number asked for.
        cpu: i32,
    },
    /// A thread id the evsel was not opened on.
    #[error("Thread {thread} is not part of evsel's threads")]
    ThreadNotInMap {
        /// The thread id asked for.
        thread: i32,
    },
    /// A record in a ring buffer or a file could not be parsed.
    #[error("malformed {what}: {detail}")]
    Malformed {
        /// What was being parsed.
        what: &'static str,
        /// What was wrong.
        detail: String,
    },
    /// A perf.data file (or pipe, or `--threads` directory) that cannot be
    /// read: what is wrong, in which file, at which offset.
    #[error("{0}")]
    PerfData(Box<DataError>),
}

/// A problem with a perf.data input, at a place in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {kind} (at file offset {offset:#x})")]
pub struct DataError {
    /// The file: the path given, `-` for stdin, `pipe` for a pipe fd, or
    /// the `data.N` file of a directory.
    pub path: String,
    /// Where in that file (for a record that came out of a compressed
    /// record: the offset of the compressed record, as perf reports it).
    pub offset: u64,
    /// What is wrong.
    pub kind: DataErrorKind,
}

/// What is wrong with a perf.data input. Every kind but [`Io`](Self::Io)
/// is a problem of the file's contents.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataErrorKind {
    /// A system call on the file failed (open, read, stat…).
    #[error("{op}: {}", strerror(*errno))]
    Io {
        /// What was being done.
        op: &'static str,
        /// The raw errno.
        errno: i32,
    },
    /// The first 8 bytes are not `PERFILE2` in either byte order.
    #[error("bad magic {found:?}: not a perf.data file")]
    BadMagic {
        /// The bytes found, escaped.
        found: String,
    },
    /// A part of the file ends before its size says it should.
    #[error("truncated {what}: needs {need} bytes, has {have}")]
    Truncated {
        /// The part (`header`, `attrs section`, `feature HOSTNAME`, `data section`…).
        what: String,
        /// Bytes it needs.
        need: u64,
        /// Bytes there are.
        have: u64,
    },
    /// An offset and size that reach past the end of the file.
    #[error(
        "{what} ({size} bytes at {start:#x}) runs past the end of the file ({file_size} bytes)"
    )]
    PastEnd {
        /// The section.
        what: String,
        /// Its start.
        start: u64,
        /// Its size.
        size: u64,
        /// The file's size.
        file_size: u64,
    },
    /// Two sections of the file claim the same bytes.
    #[error("{what} overlaps {other}")]
    Overlap {
        /// One section, with its range.
        what: String,
        /// The other, with its range.
        other: String,
    },
    /// A record whose `header.size` cannot be: 0, smaller than its header
    /// or fixed fields, or running past the end of its container.
    #[error("{record} with header.size {size}: {detail}")]
    RecordSize {
        /// The record type's name.
        record: &'static str,
        /// `header.size`.
        size: u64,
        /// Why it cannot be.
        detail: String,
    },
    /// A `perf_event_attr` size that fits no layout perf writes.
    #[error("attr size {size} fits no perf_event_attr layout: {detail}")]
    AttrSize {
        /// The size found.
        size: u64,
        /// What was expected.
        detail: String,
    },
    /// The compressed data of a COMPRESSED record is not valid zstd.
    #[error("zstd: {detail}")]
    Zstd {
        /// libzstd's error text.
        detail: String,
    },
    /// A compressed record that would decompress to more than the bound
    /// (a decompression bomb, or a file perf itself could not read).
    #[error("a compressed record decompresses to more than {bound} bytes")]
    DecompressionBound {
        /// The bound, in bytes.
        bound: u64,
    },
    /// Contents that do not parse (a record, a feature section, the tracing
    /// data), with what is wrong.
    #[error("malformed {what}: {detail}")]
    Malformed {
        /// What was being parsed.
        what: String,
        /// What was wrong.
        detail: String,
    },
}

impl DataErrorKind {
    /// The error at `offset` of `path`.
    #[cold]
    pub fn at(self, path: &str, offset: u64) -> Error {
        Error::PerfData(Box::new(DataError {
            path: path.to_owned(),
            offset,
            kind: self,
        }))
    }
}

impl DataError {
    /// The errno the Python layer raises `OSError` with: the system call's
    /// for [`DataErrorKind::Io`], `EINVAL` for a file perf would call an
    /// "incompatible file format", `EFBIG` for a decompression bomb.
    pub fn errno(&self) -> i32 {
        match self.kind {
            DataErrorKind::Io { errno, .. } => errno,
            DataErrorKind::DecompressionBound { .. } => libc::EFBIG,
            _ => libc::EINVAL,
        }
    }
}

impl Error {
    /// A syscall failure from the current `errno`.
    pub fn last_os(op: &'static str) -> Self {
        Error::Sys {
            op,
            errno: last_errno(),
            hint: None,
        }
    }

    /// The errno, for syscall failures.
    pub fn errno(&self) -> Option<i32> {
        match self {
            Error::Sys { errno, .. } => Some(*errno),
            Error::NoSuchProcess { .. } => Some(libc::ESRCH),
            Error::PerfData(e) => Some(e.errno()),
            _ => None,
        }
    }
}

/// The calling thread's `errno`.
pub fn last_errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// glibc's text for an errno, as CPython's `os.strerror` gives it.
pub fn strerror(errno: i32) -> String {
    // std's Display for io::Error uses strerror_r and appends " (os error N)".
    let text = std::io::Error::from_raw_os_error(errno).to_string();
    match text.rfind(" (os error ") {
        Some(cut) => text[..cut].to_owned(),
        None => text,
    }
}

/// Shorthand for results of the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strerror_matches_glibc() {
        assert_eq!(strerror(libc::EACCES), "Permission denied");
        assert_eq!(strerror(libc::EOPNOTSUPP), "Operation not supported");
        assert_eq!(strerror(libc::EINVAL), "Invalid argument");
    }
}
