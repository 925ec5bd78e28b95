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
