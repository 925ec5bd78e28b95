// SPDX-License-Identifier: GPL-2.0-only
//! Opening a perf.data input (perf's `perf_data__open` for reading): a
//! file, `-` for stdin, a pipe fd, or the directory `perf record --threads`
//! writes (`data` with the header, `data.N` with the per-thread records).

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::{FileExt, FileTypeExt};

use crate::error::{DataErrorKind, Result};

/// One opened file of an input.
#[derive(Debug)]
pub struct DataFile {
    /// The name used in errors and in [`Event::path`](crate::session::Event::path):
    /// the path given (`-` for stdin, `pipe` for a pipe fd; `<dir>/data.N`
    /// for the files of a directory).
    pub path: String,
    pub(crate) file: File,
    /// Its size when opened, for a seekable file; `None` for a stream.
    pub size: Option<u64>,
}

impl DataFile {
    /// Opens `path` read-only.
    ///
    /// # Errors
    /// [`DataErrorKind::Io`] with the errno of `open` or `fstat`.
    pub fn open(path: &str) -> Result<DataFile> {
        let file = File::open(path).map_err(|e| io_error("open", &e, path))?;
        DataFile::from_file(file, path)
    }

    /// Wraps an open file; a regular file is read by offset, anything else
    /// (a pipe, a socket, a terminal) as a stream.
    ///
    /// # Errors
    /// [`DataErrorKind::Io`] with the errno of `fstat`.
    pub fn from_file(file: File, path: &str) -> Result<DataFile> {
        let meta = file.metadata().map_err(|e| io_error("fstat", &e, path))?;
        let size = meta.file_type().is_file().then_some(meta.len());
        Ok(DataFile {
            path: path.to_owned(),
            file,
            size,
        })
    }

    /// True when the file is read as a stream (pipe mode).
    pub fn is_stream(&self) -> bool {
        self.size.is_none()
    }

    /// Up to `buf.len()` bytes from `offset` of a seekable file; fewer only
    /// at the end of the file.
    ///
    /// # Errors
    /// [`DataErrorKind::Io`] with the errno of `pread`.
    pub(crate) fn read_at(&self, buf: &mut [u8], offset: u64) -> Result<usize> {
        let mut done = 0;
        while let Some(rest) = buf.get_mut(done..).filter(|r| !r.is_empty()) {
            let at = offset.saturating_add(done as u64);
            match self.file.read_at(rest, at) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_error("pread", &e, &self.path).at_offset(at)),
            }
        }
        Ok(done)
    }

    /// Up to `buf.len()` bytes from a stream; fewer only at its end.
    ///
    /// # Errors
    /// [`DataErrorKind::Io`] with the errno of `read`.
    pub(crate) fn read_stream(&mut self, buf: &mut [u8], offset: u64) -> Result<usize> {
        let mut done = 0;
        while let Some(rest) = buf.get_mut(done..).filter(|r| !r.is_empty()) {
            match self.file.read(rest) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(io_error("read", &e, &self.path).at_offset(offset)),
            }
        }
        Ok(done)
    }
}

/// What was opened.
#[derive(Debug)]
pub enum DataKind {
    /// One file or stream (a file may hold pipe-mode data; the header
    /// tells).
    Single(DataFile),
    /// A `perf record --threads` directory: `data` (header, attrs,
    /// features and the main data section) and its `data.N` files in
    /// directory order (perf reads them in that order too).
    Dir {
        /// `<dir>/data`.
        header: DataFile,
        /// `<dir>/data.N`, non-empty ones only.
        files: Vec<DataFile>,
    },
}

/// An opened perf.data input: perf's `struct perf_data` in read mode.
#[derive(Debug)]
pub struct PerfData {
    path: String,
    kind: DataKind,
}

impl PerfData {
    /// Opens `path`: `-` is stdin (a duplicate of fd 0; a regular file
    /// redirected there is read as a file), a directory is the
    /// `--threads` format, anything else a file (seekable or not; pipe-mode
    /// data in a file is recognised by its header).
    ///
    /// # Errors
    /// [`DataErrorKind::Io`] with the errno of the failing call (`ENOENT`,
    /// `EACCES`, …), naming the path.
    pub fn open(path: &str) -> Result<PerfData> {
        if path == "-" {
            let fd = std::io::stdin()
                .as_fd()
                .try_clone_to_owned()
                .map_err(|e| io_error("dup", &e, path))?;
            return PerfData::from_fd(fd, path);
        }
        let meta = std::fs::metadata(path).map_err(|e| io_error("stat", &e, path))?;
        if meta.is_dir() {
            return PerfData::open_dir(path);
        }
        Ok(PerfData {
            path: path.to_owned(),
            kind: DataKind::Single(DataFile::open(path)?),
        })
    }

    /// An input read from `fd` (which this takes over), e.g. the read end
    /// of a pipe: perf's `perf.data(fd=...)`; `path` names it in errors.
    ///
    /// # Errors
    /// [`DataErrorKind::Io`] from `fstat`.
    pub fn from_fd(fd: OwnedFd, path: &str) -> Result<PerfData> {
        Ok(PerfData {
            path: path.to_owned(),
            kind: DataKind::Single(DataFile::from_file(File::from(fd), path)?),
        })
    }

    fn open_dir(dir: &str) -> Result<PerfData> {
        let header = DataFile::open(&format!("{dir}/data"))?;
        let entries = std::fs::read_dir(dir).map_err(|e| io_error("opendir", &e, dir))?;
        let mut files = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| io_error("readdir", &e, dir))?;
            let name = entry.file_name();
            let Some(name) = name.to_str().filter(|n| n.starts_with("data.")) else {
                continue;
            };
            let path = format!("{dir}/{name}");
            // perf: stat() failures and non-regular files are skipped.
            if !std::fs::metadata(&path).is_ok_and(|m| m.file_type().is_file()) {
                continue;
            }
            let f = DataFile::open(&path)?;
            if f.size.is_some_and(|s| s > 0) {
                files.push(f);
            }
        }
        Ok(PerfData {
            path: dir.to_owned(),
            kind: DataKind::Dir { header, files },
        })
    }

    /// The path given (`str(perf.data)`).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was opened.
    pub fn kind(&self) -> &DataKind {
        &self.kind
    }

    pub(crate) fn into_kind(self) -> DataKind {
        self.kind
    }

    /// True for a directory.
    pub fn is_dir(&self) -> bool {
        matches!(self.kind, DataKind::Dir { .. })
    }

    /// True for a stream (pipe or stdin that is not a regular file).
    pub fn is_stream(&self) -> bool {
        matches!(&self.kind, DataKind::Single(f) if f.is_stream())
    }
}

/// True if `fd` is a pipe (upstream's `perf.data(fd=…)` takes only pipes:
/// `ValueError("fd argument is only supported for pipes")` otherwise).
///
/// # Errors
/// [`DataErrorKind::Io`] from `fstat` (`EBADF` for a closed fd).
pub fn is_fifo(fd: BorrowedFd<'_>) -> Result<bool> {
    let f = File::from(
        fd.try_clone_to_owned()
            .map_err(|e| io_error("dup", &e, "fd"))?,
    );
    let meta = f.metadata().map_err(|e| io_error("fstat", &e, "fd"))?;
    Ok(meta.file_type().is_fifo())
}

/// An I/O error of `op` on `path`, keeping its errno.
#[cold]
pub(crate) fn io_error(op: &'static str, e: &std::io::Error, path: &str) -> crate::Error {
    DataErrorKind::Io {
        op,
        errno: e.raw_os_error().unwrap_or(libc::EIO),
    }
    .at(path, 0)
}

trait AtOffset {
    fn at_offset(self, offset: u64) -> Self;
}

impl AtOffset for crate::Error {
    fn at_offset(mut self, offset: u64) -> Self {
        if let crate::Error::PerfData(d) = &mut self {
            d.offset = offset;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn io_errno(e: Error) -> i32 {
        match e {
            Error::PerfData(d) => match d.kind {
                DataErrorKind::Io { errno, .. } => errno,
                k => panic!("not an I/O error: {k}"),
            },
            e => panic!("not a DataError: {e}"),
        }
    }

    #[test]
    fn missing_and_unreadable_paths_keep_their_errno() {
        let e = PerfData::open("/nonexistent/perf.data").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/perf.data: stat: No such file"),
            "{e}"
        );
        assert_eq!(io_errno(e), libc::ENOENT);
        assert_eq!(e_errno_of_dir_without_header(), libc::ENOENT);
    }

    fn e_errno_of_dir_without_header() -> i32 {
        let dir = std::env::temp_dir().join(format!("perf-data-empty-dir-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = PerfData::open(dir.to_str().unwrap()).unwrap_err();
        std::fs::remove_dir(&dir).unwrap();
        io_errno(e)
    }

    #[test]
    fn files_and_streams() {
        let f = DataFile::open("/proc/self/exe").unwrap();
        assert!(!f.is_stream());
        let mut buf = [0u8; 4];
        assert_eq!(f.read_at(&mut buf, 0).unwrap(), 4);
        assert_eq!(&buf, b"\x7fELF");
        let (r, _w) = nix::unistd::pipe().unwrap();
        assert!(is_fifo(r.as_fd()).unwrap());
        assert!(!is_fifo(f.file.as_fd()).unwrap());
        let p = PerfData::from_fd(r, "pipe").unwrap();
        assert!(p.is_stream());
        assert_eq!(p.path(), "pipe");
    }
}
