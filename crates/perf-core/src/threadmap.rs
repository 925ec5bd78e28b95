// SPDX-License-Identifier: GPL-2.0-only
//! `thread_map`: the threads an event is opened for, as perf's
//! `thread_map__new(pid, tid, uid)` builds it:
//!
//! * `pid != -1` → every thread in `/proc/<pid>/task` (sorted);
//! * `tid == -1` and a uid given → every thread of every process that uid owns;
//! * otherwise → exactly `[tid]` (`[-1]` = "any thread", for CPU-wide events).

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::error::{Error, Result};

/// A pid or tid; `-1` means "any thread".
pub type Pid = i32;

/// A list of thread ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadMap {
    tids: Vec<Pid>,
}

impl ThreadMap {
    /// The "any thread" map `[-1]`.
    pub fn any() -> Self {
        ThreadMap { tids: vec![-1] }
    }

    /// A map of exactly these tids, in this order.
    pub fn from_tids(tids: Vec<Pid>) -> Self {
        ThreadMap { tids }
    }

    /// perf's `thread_map__new(pid, tid, uid)`; `uid = None` is C's `UINT_MAX`.
    pub fn new(pid: Pid, tid: Pid, uid: Option<u32>) -> Result<Self> {
        Self::new_in(Path::new("/proc"), pid, tid, uid)
    }

    /// The same, reading an alternative procfs root.
    pub fn new_in(proc: &Path, pid: Pid, tid: Pid, uid: Option<u32>) -> Result<Self> {
        if pid != -1 {
            return Self::by_pid(proc, pid);
        }
        if let (-1, Some(uid)) = (tid, uid) {
            return Self::by_uid(proc, uid);
        }
        Ok(ThreadMap { tids: vec![tid] })
    }

    fn by_pid(proc: &Path, pid: Pid) -> Result<Self> {
        let tids = if pid < 0 {
            None
        } else {
            list_tasks(&proc.join(pid.to_string()).join("task"))
        };
        match tids {
            Some(tids) if !tids.is_empty() => Ok(ThreadMap { tids }),
            _ => Err(Error::NoSuchProcess { pid }),
        }
    }

    fn by_uid(proc: &Path, uid: u32) -> Result<Self> {
        let entries = std::fs::read_dir(proc).map_err(|e| Error::Sys {
            op: "opendir(/proc)",
            errno: e.raw_os_error().unwrap_or(libc::EIO),
            hint: None,
        })?;
        let mut pids: Vec<Pid> = entries
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str()?.parse::<Pid>().ok())
            .collect();
        pids.sort_unstable();
        let mut tids = Vec::new();
        for pid in pids {
            let dir = proc.join(pid.to_string());
            // Processes come and go while we walk /proc: skip the vanished.
            let owned = std::fs::metadata(&dir).is_ok_and(|m| m.uid() == uid);
            if owned {
                tids.extend(list_tasks(&dir.join("task")).unwrap_or_default());
            }
        }
        Ok(ThreadMap { tids })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.tids.len()
    }

    /// True when there are no threads (a uid that owns no process).
    pub fn is_empty(&self) -> bool {
        self.tids.is_empty()
    }

    /// The tid at an index.
    pub fn get(&self, idx: usize) -> Option<Pid> {
        self.tids.get(idx).copied()
    }

    /// The index of a tid.
    pub fn index_of(&self, tid: Pid) -> Option<usize> {
        self.tids.iter().position(|&t| t == tid)
    }

    /// The tids.
    pub fn as_slice(&self) -> &[Pid] {
        &self.tids
    }

    /// True for `[-1]`.
    pub fn is_any(&self) -> bool {
        self.tids == [-1]
    }
}

/// The numeric entries of a `/proc/<pid>/task` directory, sorted; `None` if the
/// directory cannot be read (no such process).
fn list_tasks(dir: &Path) -> Option<Vec<Pid>> {
    let mut tids: Vec<Pid> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<Pid>().ok())
        .collect();
    tids.sort_unstable();
    Some(tids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_and_tid() {
        assert_eq!(ThreadMap::new(-1, -1, None).unwrap().as_slice(), &[-1]);
        assert_eq!(
            ThreadMap::new(-1, 1234567, None).unwrap().as_slice(),
            &[1234567]
        );
    }

    #[test]
    fn own_process() {
        let me = std::process::id() as Pid;
        let m = ThreadMap::new(me, -1, None).unwrap();
        assert!(m.as_slice().contains(&me));
    }

    #[test]
    fn vanished_pid_is_an_error() {
        assert_eq!(
            ThreadMap::new(0x7fff_fff0, -1, None),
            Err(Error::NoSuchProcess { pid: 0x7fff_fff0 })
        );
        assert!(ThreadMap::new(-5, -1, None).is_err());
    }

    #[test]
    fn by_uid_lists_our_threads() {
        // SAFETY-free: getuid via std
        let uid = std::fs::metadata("/proc/self").unwrap().uid();
        let m = ThreadMap::new(-1, -1, Some(uid)).unwrap();
        assert!(m.as_slice().contains(&(std::process::id() as Pid)));
    }
}
