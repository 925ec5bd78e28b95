// SPDX-License-Identifier: GPL-2.0-only
//! Opening a perf.data input (perf's `perf_data__open` for reading): a
//! file, `-` for stdin, a pipe fd, or the directory `perf record --threads`
//! writes (`data` with the header, `data.N` with the per-thread records).

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::fs::{FileExt, FileTypeExt};
use std::sync::Arc;

use crate::error::{DataErrorKind, Result};

/// What a stream's reads run around each `read(2)` that may block (a
/// pipe, stdin): a Python layer releases the GIL for the read and, when a
/// signal interrupts it, runs the signal handlers, which may stop reading
/// (Ctrl-C).
pub trait StreamWait: Send + Sync {
    /// Runs `read`, one `read(2)` that may block.
    ///
    /// # Errors
    /// The read's.
    fn blocking(
        &self,
        read: &mut (dyn FnMut() -> std::io::Result<usize> + Send),
    ) -> std::io::Result<usize>;

    /// Called when a read failed with `EINTR`: `true` reads again, `false`
    /// stops (the read fails with `EINTR`).
    fn interrupted(&self) -> bool;
}

/// A [`StreamWait`] as a file keeps it.
#[derive(Clone)]
pub(crate) struct Wait(pub(crate) Arc<dyn StreamWait>);

impl std::fmt::Debug for Wait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Wait")
    }
}

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
    /// What a stream's reads run around `read(2)`.
    wait: Option<Wait>,
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
            wait: None,
        })
    }

    /// A second handle on the same file (a `dup`), for a seekable file;
    /// `None` for a stream, whose data can be read once.
    ///
    /// # Errors
    /// [`DataErrorKind::Io`] with the errno of `dup`.
    pub fn try_clone(&self) -> Result<Option<DataFile>> {
        if self.is_stream() {
            return Ok(None);
        }
        let file = self
            .file
            .try_clone()
            .map_err(|e| io_error("dup", &e, &self.path))?;
        Ok(Some(DataFile {
            path: self.path.clone(),
            file,
            size: self.size,
            wait: None,
        }))
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
            match self.read_some(rest, offset)? {
                0 => break,
                n => done += n,
            }
        }
        Ok(done)
    }

    /// What one `read(2)` of a stream gives (0 at its end), waiting for
    /// data as long as the stream is open: what has arrived is handed on
    /// at once, so a pipe's records are read as `perf record` writes them.
    /// `EINTR` reads again, unless the [`StreamWait`] stops it.
    ///
    /// # Errors
    /// [`DataErrorKind::Io`] with the errno of `read`.
    pub(crate) fn read_some(&mut self, buf: &mut [u8], offset: u64) -> Result<usize> {
        loop {
            let file = &mut self.file;
            let mut read = || file.read(buf);
            let got = match &self.wait {
                Some(w) => w.0.blocking(&mut read),
                None => read(),
            };
            match got {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {
                    if self.wait.as_ref().is_some_and(|w| !w.0.interrupted()) {
                        return Err(io_error("read", &e, &self.path).at_offset(offset));
                    }
                }
                Err(e) => return Err(io_error("read", &e, &self.path).at_offset(offset)),
            }
        }
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

    /// A second handle on the same input (its files `dup`ed): a new
    /// session can read it from the start. `None` for a stream, whose data
    /// can be read once.
    ///
    /// # Errors
    /// [`DataErrorKind::Io`] with the errno of `dup`.
    pub fn try_clone(&self) -> Result<Option<PerfData>> {
        let kind = match &self.kind {
            DataKind::Single(f) => match f.try_clone()? {
                Some(f) => DataKind::Single(f),
                None => return Ok(None),
            },
            DataKind::Dir { header, files } => {
                let Some(header) = header.try_clone()? else {
                    return Ok(None);
                };
                let mut copies = Vec::with_capacity(files.len());
                for f in files {
                    let Some(f) = f.try_clone()? else {
                        return Ok(None);
                    };
                    copies.push(f);
                }
                DataKind::Dir {
                    header,
                    files: copies,
                }
            }
        };
        Ok(Some(PerfData {
            path: self.path.clone(),
            kind,
        }))
    }

    /// Sets what the reads of a stream run around `read(2)` (see
    /// [`StreamWait`]); seekable files do not block and ignore it.
    pub fn set_wait(&mut self, wait: Arc<dyn StreamWait>) {
        if let DataKind::Single(f) = &mut self.kind {
            if f.is_stream() {
                f.wait = Some(Wait(wait));
            }
        }
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
        assert!(p.try_clone().unwrap().is_none(), "a stream is read once");
        let copy = PerfData::open("/proc/self/exe")
            .unwrap()
            .try_clone()
            .unwrap()
            .unwrap();
        assert!(!copy.is_stream());
    }

    /// A stream's data is handed on as it arrives (a pipe from `perf
    /// record` is read record by record, not once a window is full), each
    /// read through the stream's wait.
    #[test]
    fn streams_hand_on_what_arrived() {
        use std::io::Write;
        use std::sync::atomic::{AtomicUsize, Ordering};

        #[derive(Default)]
        struct Count(AtomicUsize);
        impl StreamWait for Count {
            fn blocking(
                &self,
                read: &mut (dyn FnMut() -> std::io::Result<usize> + Send),
            ) -> std::io::Result<usize> {
                self.0.fetch_add(1, Ordering::Relaxed);
                read()
            }
            fn interrupted(&self) -> bool {
                true
            }
        }
        let (r, w) = nix::unistd::pipe().unwrap();
        let mut w = File::from(w);
        w.write_all(b"0123456789").unwrap();
        let mut p = PerfData::from_fd(r, "pipe").unwrap();
        let count = Arc::new(Count::default());
        p.set_wait(count.clone());
        let DataKind::Single(mut f) = p.into_kind() else {
            panic!("one file")
        };
        let mut buf = vec![0u8; 1 << 20];
        // The writer is still open: a read that waited for more would hang.
        assert_eq!(f.read_some(&mut buf, 0).unwrap(), 10);
        assert_eq!(&buf[..10], b"0123456789");
        drop(w);
        assert_eq!(f.read_some(&mut buf, 10).unwrap(), 0);
        assert_eq!(count.0.load(Ordering::Relaxed), 2);
    }
}
