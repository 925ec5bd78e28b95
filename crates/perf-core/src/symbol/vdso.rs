// SPDX-License-Identifier: GPL-2.0-only
//! The running process's vDSO image. perf reads symbols for `[vdso]` maps
//! from the build-id cache's copy, else from a copy of its own vDSO (it
//! writes it to a temporary file, `vdso__dso_findnew`); the build-id check
//! then decides whether that image is the recorded one.

use std::io::{Read, Seek, SeekFrom};
use std::sync::OnceLock;

/// The `[vdso]` range of this process (`/proc/self/maps`).
fn vdso_range() -> Option<(u64, u64)> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|l| {
        if !l.ends_with("[vdso]") {
            return None;
        }
        let range = l.split_whitespace().next()?;
        let (a, b) = range.split_once('-')?;
        Some((
            u64::from_str_radix(a, 16).ok()?,
            u64::from_str_radix(b, 16).ok()?,
        ))
    })
}

fn read_image() -> Option<Vec<u8>> {
    let (start, end) = vdso_range()?;
    let len = usize::try_from(end.checked_sub(start)?).ok()?;
    if len > 1 << 20 {
        return None;
    }
    // /proc/self/mem reads our own memory through the kernel: no unsafe,
    // and a bad address is an error, not a fault.
    let mut mem = std::fs::File::open("/proc/self/mem").ok()?;
    mem.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = vec![0u8; len];
    mem.read_exact(&mut buf).ok()?;
    Some(buf)
}

/// A copy of this process's vDSO, read once.
pub(crate) fn running_image() -> Option<Vec<u8>> {
    static IMAGE: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    IMAGE.get_or_init(read_image).clone()
}
