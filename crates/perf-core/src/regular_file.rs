// SPDX-License-Identifier: GPL-2.0-only
//! Opening the files symbols, source lines and settings come from (ELF
//! and debug files, build-id cache entries, JIT maps, kallsyms, source
//! files, perf config files): only regular files are read, and only up to
//! a size cap.
//!
//! The open itself cannot block: it is made with `O_NONBLOCK`, so a FIFO
//! with no writer opens at once (a plain open would wait for a writer
//! forever), and `fstat` then refuses it, a device (`/dev/zero`,
//! `/dev/urandom`: endless reads), a directory or a socket. perf 6.1 checks
//! `is_regular_file()` before it opens a symbol file; it opens kallsyms,
//! JIT maps and config files as they are and hangs on such files.
//! `O_NONBLOCK` changes nothing for the reads of a regular file.
//!
//! Files under `/proc` (kallsyms) are regular files whose size `fstat`
//! reports as 0: their reads are bounded by the cap, not by the size.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The error for a file that is not a regular file.
fn not_regular() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "not a regular file")
}

/// The error for a file bigger than `cap`.
fn too_large(cap: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("larger than {} MiB", cap >> 20),
    )
}

/// Opens `path` read-only, without blocking whatever it is, if it is a
/// regular file: the file and its size (one `fstat`).
fn open_regular(path: &Path) -> io::Result<(File, u64)> {
    let file = File::options()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(not_regular());
    }
    Ok((file, meta.len()))
}

/// [`open_regular`], refusing a file whose size is above `cap`.
fn open_sized(path: &Path, cap: u64) -> io::Result<(File, u64)> {
    let (file, size) = open_regular(path)?;
    if size > cap {
        return Err(too_large(cap));
    }
    Ok((file, size))
}

/// Opens `path` read-only if it is a regular file; without blocking,
/// whatever it is.
///
/// # Errors
/// `open`'s or `fstat`'s errno; `InvalidInput` ("not a regular file")
/// for a FIFO, a device, a directory or a socket.
pub fn open(path: &Path) -> io::Result<File> {
    open_regular(path).map(|(file, _)| file)
}

/// Opens the regular file `path` for reading at most `cap` bytes: a file
/// whose size is above `cap` is refused before anything is read, and a
/// file that grows, or reports no size (`/proc`), ends at `cap`.
///
/// # Errors
/// [`open`]'s; `InvalidData` for a file whose size is above `cap`.
pub fn open_capped(path: &Path, cap: u64) -> io::Result<io::Take<File>> {
    open_sized(path, cap).map(|(file, _)| file.take(cap))
}

/// The whole of the regular file `path`, at most `cap` bytes.
///
/// # Errors
/// [`open`]'s and `read`'s; `InvalidData` when the file is bigger than
/// `cap` (before reading, or when its reads go past `cap`).
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let (file, size) = open_sized(path, cap)?;
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(size).unwrap_or(usize::MAX))
        .map_err(|_| too_large(cap))?;
    // One byte past the cap tells a file that grew past it.
    file.take(cap.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > cap {
        return Err(too_large(cap));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn devices_fifos_and_directories_are_refused_at_once() {
        for p in ["/dev/zero", "/dev/urandom", "/dev/null", "/"] {
            let e = open(Path::new(p)).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{p}");
        }
        let dir = std::env::temp_dir().join(format!("regular-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let _ = std::fs::remove_file(&fifo);
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
        // No writer: a blocking open would never return.
        let e = read_capped(&fifo, 1 << 20).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_cap_is_checked_before_and_while_reading() {
        let mut f = tempfile_in_tmp("cap");
        f.1.write_all(&[b'x'; 100]).unwrap();
        assert_eq!(read_capped(&f.0, 100).unwrap().len(), 100);
        let e = read_capped(&f.0, 99).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert!(open_capped(&f.0, 99).is_err());
        let mut rest = Vec::new();
        open_capped(&f.0, 100)
            .unwrap()
            .read_to_end(&mut rest)
            .unwrap();
        assert_eq!(rest.len(), 100);
        std::fs::remove_file(&f.0).unwrap();
        // /proc files report size 0: their reads stop at the cap.
        let mut head = Vec::new();
        open_capped(Path::new("/proc/self/maps"), 10)
            .unwrap()
            .read_to_end(&mut head)
            .unwrap();
        assert_eq!(head.len(), 10);
    }

    fn tempfile_in_tmp(name: &str) -> (std::path::PathBuf, File) {
        let p = std::env::temp_dir().join(format!("regular-file-{name}-{}", std::process::id()));
        let f = File::create(&p).unwrap();
        (p, f)
    }
}
