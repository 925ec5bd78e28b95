// SPDX-License-Identifier: GPL-2.0-only
//! An owned perf event fd that is safe to drop even if the user closed it.
//!
//! Consumers such as tuned close the module's fds themselves
//! (`os.close(fd.name)` on `get_pollfd()` files), because the C module never
//! did. Closing such an fd number again on drop could close an unrelated file
//! that reused the number. So the kernel's event id (`PERF_EVENT_IOC_ID`) is
//! recorded at open, and on drop the fd is closed only if it still refers to
//! that same event.

use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd, RawFd};

/// A perf event fd with its kernel event id.
#[derive(Debug)]
pub struct EventFd {
    raw: RawFd,
    id: u64,
}

impl EventFd {
    /// Takes ownership of a freshly opened perf fd.
    pub fn new(fd: OwnedFd) -> Self {
        // An fd from perf_event_open always answers IOC_ID (Linux ≥ 3.12); on
        // older kernels the id stays 0 and drop falls back to checking that the
        // fd is still a perf event fd at all.
        let id = super::event_id(fd.as_raw_fd()).unwrap_or(0);
        EventFd {
            raw: fd.into_raw_fd(),
            id,
        }
    }

    /// The fd number.
    pub fn raw(&self) -> RawFd {
        self.raw
    }

    /// The kernel's id of the event (what `PERF_SAMPLE_ID` carries).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// True while the fd number still refers to this event.
    pub fn is_ours(&self) -> bool {
        match super::event_id(self.raw) {
            Ok(id) => id == self.id,
            Err(_) => false,
        }
    }
}

impl Drop for EventFd {
    fn drop(&mut self) {
        if self.is_ours() {
            super::close(self.raw);
        }
    }
}
