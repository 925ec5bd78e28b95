// SPDX-License-Identifier: GPL-2.0-only
//! The only place the core talks to the kernel directly: `perf_event_open`,
//! the perf ioctls, `read`, `close`, `poll` and `mmap` (through libc), and
//! `sysconf` (through nix). Every function returns the raw errno on failure;
//! nothing here interprets it.
#![allow(unsafe_code)]

use std::os::fd::{FromRawFd, OwnedFd, RawFd};

mod event_fd;
mod mapping;

pub use event_fd::EventFd;
pub use mapping::Mapping;

use nix::unistd::{sysconf, SysconfVar};
use perf_event_open_sys::bindings;

use crate::attr::AttrBytes;
use crate::error::{last_errno, Error, Result};

/// `PERF_FLAG_FD_CLOEXEC`: every fd we open is close-on-exec.
pub const PERF_FLAG_FD_CLOEXEC: u64 = bindings::PERF_FLAG_FD_CLOEXEC as u64;

/// Online CPUs per `sysconf(_SC_NPROCESSORS_ONLN)` (-1 if unknown).
pub fn nprocessors_onln() -> i64 {
    match sysconf(SysconfVar::_NPROCESSORS_ONLN) {
        Ok(Some(n)) => n,
        _ => -1,
    }
}

/// The page size.
pub fn page_size() -> usize {
    match sysconf(SysconfVar::PAGE_SIZE) {
        Ok(Some(n)) if n > 0 => n as usize,
        _ => 4096,
    }
}

/// Result of one `perf_event_open` call.
pub enum OpenOutcome {
    /// The event was created.
    Fd(OwnedFd),
    /// The call failed; `size` is what the kernel wrote back into `attr.size`
    /// (its own struct size on E2BIG).
    Failed {
        /// The errno.
        errno: i32,
        /// `attr.size` after the call.
        size: u32,
    },
}

/// `perf_event_open(attr, pid, cpu, group_fd, flags)` on a raw attr image.
pub fn perf_event_open(
    attr: &mut AttrBytes,
    pid: i32,
    cpu: i32,
    group_fd: RawFd,
    flags: u64,
) -> OpenOutcome {
    let ptr = attr.as_mut_ptr().cast::<bindings::perf_event_attr>();
    // SAFETY: `AttrBytes` is a u64-aligned buffer of `AttrBytes::CAPACITY` bytes,
    // at least `sizeof(perf_event_attr)` of the bindings, and its `size` field
    // never exceeds the buffer. The kernel reads `size` bytes and may write the
    // `size` field back, both inside the buffer.
    let fd = unsafe {
        perf_event_open_sys::perf_event_open(ptr, pid, cpu, group_fd, flags as libc::c_ulong)
    };
    if fd < 0 {
        let errno = last_errno();
        return OpenOutcome::Failed {
            errno,
            size: attr.size_field(),
        };
    }
    // SAFETY: the kernel returned a new fd that nothing else owns.
    OpenOutcome::Fd(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The perf ioctls the core uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ioctl {
    /// `PERF_EVENT_IOC_ENABLE`
    Enable,
    /// `PERF_EVENT_IOC_DISABLE`
    Disable,
    /// `PERF_EVENT_IOC_RESET`
    Reset,
}

impl Ioctl {
    fn name(self) -> &'static str {
        match self {
            Ioctl::Enable => "ioctl(PERF_EVENT_IOC_ENABLE)",
            Ioctl::Disable => "ioctl(PERF_EVENT_IOC_DISABLE)",
            Ioctl::Reset => "ioctl(PERF_EVENT_IOC_RESET)",
        }
    }
}

/// Runs an argument-less perf ioctl on an fd.
pub fn ioctl(fd: RawFd, which: Ioctl) -> Result<()> {
    use perf_event_open_sys::ioctls;
    // SAFETY: these ioctls take an integer argument (0 = this event only) and
    // touch no user memory; a stale fd gives EBADF/ENOTTY, not UB.
    let rc = unsafe {
        match which {
            Ioctl::Enable => ioctls::ENABLE(fd, 0),
            Ioctl::Disable => ioctls::DISABLE(fd, 0),
            Ioctl::Reset => ioctls::RESET(fd, 0),
        }
    };
    if rc < 0 {
        return Err(Error::last_os(which.name()));
    }
    Ok(())
}

/// `PERF_EVENT_IOC_ID`: the kernel's unique id of the event behind `fd`.
pub fn event_id(fd: RawFd) -> Result<u64> {
    let mut id: u64 = 0;
    // SAFETY: PERF_EVENT_IOC_ID writes one u64 through the pointer, which points
    // at a live local.
    let rc = unsafe { perf_event_open_sys::ioctls::ID(fd, &mut id) };
    if rc < 0 {
        return Err(Error::last_os("ioctl(PERF_EVENT_IOC_ID)"));
    }
    Ok(id)
}

/// `PERF_EVENT_IOC_SET_OUTPUT`: send `fd`'s records to `target`'s ring.
pub fn set_output(fd: RawFd, target: RawFd) -> Result<()> {
    // SAFETY: SET_OUTPUT takes an fd number as its integer argument.
    let rc = unsafe { perf_event_open_sys::ioctls::SET_OUTPUT(fd, target) };
    if rc < 0 {
        return Err(Error::last_os("ioctl(PERF_EVENT_IOC_SET_OUTPUT)"));
    }
    Ok(())
}

/// `read(2)` into a buffer; returns the byte count.
pub fn read(fd: RawFd, buf: &mut [u8]) -> Result<usize> {
    // SAFETY: the pointer and length describe a live, writable buffer.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        return Err(Error::last_os("read"));
    }
    Ok(n as usize)
}

/// A duplicate of `fd` (close-on-exec) if it is a pipe (a FIFO); `None`
/// if it is something else or not an open fd (upstream's `perf.data(fd=…)`
/// takes only pipes and says so for both).
pub fn dup_fifo(fd: RawFd) -> Result<Option<OwnedFd>> {
    // SAFETY: an all-zero stat is a valid value of the plain C struct, and
    // fstat only writes into it.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a live, writable stat; a bad fd fails with EBADF.
    if unsafe { libc::fstat(fd, &mut st) } < 0 || st.st_mode & libc::S_IFMT != libc::S_IFIFO {
        return Ok(None);
    }
    // SAFETY: F_DUPFD_CLOEXEC takes an int argument and creates a new fd.
    let new = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 0) };
    if new < 0 {
        return Err(Error::last_os("dup"));
    }
    // SAFETY: `new` was just created by fcntl and nothing else owns it.
    Ok(Some(unsafe { OwnedFd::from_raw_fd(new) }))
}

/// `close(2)`, ignoring the result (used only on fds we own).
fn close(fd: RawFd) {
    // SAFETY: called only by EventFd::drop after checking the fd still refers
    // to the event this process opened.
    unsafe {
        libc::close(fd);
    }
}

/// `poll(2)` on perf fds for `POLLIN`; returns the number of ready fds, and
/// for each fd its `revents`.
pub fn poll(fds: &[RawFd], timeout_ms: i32) -> Result<(usize, Vec<i16>)> {
    let mut pfds: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    // SAFETY: the pointer and count describe a live Vec of pollfd structs.
    let n = unsafe { libc::poll(pfds.as_mut_ptr(), pfds.len() as libc::nfds_t, timeout_ms) };
    if n < 0 {
        return Err(Error::last_os("poll"));
    }
    Ok((n as usize, pfds.iter().map(|p| p.revents).collect()))
}
