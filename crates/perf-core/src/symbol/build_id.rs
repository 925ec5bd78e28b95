// SPDX-License-Identifier: GPL-2.0-only
//! Build ids (tools/perf/util/build-id.c): the value, the comparison perf
//! uses, the GNU note parser and the build-id cache's paths.

use std::fmt;
use std::path::{Path, PathBuf};

/// `BUILD_ID_SIZE`: perf keeps at most 20 bytes.
pub const BUILD_ID_SIZE: usize = 20;

/// `NT_GNU_BUILD_ID`.
const NT_GNU_BUILD_ID: u32 = 3;

/// A build id of up to 20 bytes (`struct build_id`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct BuildId {
    data: [u8; BUILD_ID_SIZE],
    size: u8,
}

impl BuildId {
    /// The first 20 bytes of `bytes` (perf truncates longer ids).
    pub fn new(bytes: &[u8]) -> Self {
        let n = bytes.len().min(BUILD_ID_SIZE);
        let mut data = [0u8; BUILD_ID_SIZE];
        data[..n].copy_from_slice(&bytes[..n]);
        BuildId {
            data,
            size: n as u8,
        }
    }

    /// Parses lowercase or uppercase hex (an even number of digits, at most
    /// 40).
    pub fn from_hex(hex: &str) -> Option<Self> {
        let s = hex.as_bytes();
        if s.len() % 2 != 0 || s.len() > 2 * BUILD_ID_SIZE {
            return None;
        }
        let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
        let mut bytes = Vec::with_capacity(s.len() / 2);
        for pair in s.chunks_exact(2) {
            bytes.push(digit(pair[0])? << 4 | digit(pair[1])?);
        }
        Some(BuildId::new(&bytes))
    }

    /// The meaningful bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.data[..usize::from(self.size)]
    }

    /// True when no byte is set (perf's `build_id__is_defined` is false).
    pub fn is_zero(&self) -> bool {
        self.as_bytes().iter().all(|&b| b == 0)
    }

    /// `dso__build_id_equal(self, other)`, where `self` is the DSO's id:
    /// a 20-byte id recorded by an older perf (zero padded) equals a
    /// shorter id followed by zeros.
    pub fn matches(&self, other: &BuildId) -> bool {
        let (mine, theirs) = (self.as_bytes(), other.as_bytes());
        if mine.len() > theirs.len() && mine.len() == BUILD_ID_SIZE {
            return mine.starts_with(theirs) && mine[theirs.len()..].iter().all(|&b| b == 0);
        }
        mine == theirs
    }

    /// Reads the GNU build-id note out of a note section or a file such as
    /// /sys/kernel/notes (`sysfs__read_build_id` and the note walk of
    /// `elf_read_build_id`). Native endianness.
    pub fn from_notes(notes: &[u8]) -> Option<Self> {
        let align = |n: u32| (n as usize).checked_add(3).map(|v| v & !3);
        let mut rest = notes;
        while rest.len() >= 12 {
            let word = |i: usize| -> u32 {
                let mut b = [0u8; 4];
                b.copy_from_slice(&rest[i..i + 4]);
                u32::from_ne_bytes(b)
            };
            let (namesz_raw, descsz_raw, kind) = (word(0), word(4), word(8));
            let namesz = align(namesz_raw)?;
            let descsz = align(descsz_raw)?;
            let body = &rest[12..];
            let name = body.get(..namesz)?;
            let desc_end = namesz.checked_add(descsz)?;
            if kind == NT_GNU_BUILD_ID && namesz_raw == 4 && name.starts_with(b"GNU\0") {
                let n = descsz.min(BUILD_ID_SIZE);
                return body.get(namesz..namesz + n).map(BuildId::new);
            }
            rest = body.get(desc_end..)?;
        }
        None
    }

    /// The build id of the running kernel (`/sys/kernel/notes`).
    pub fn running_kernel() -> Option<Self> {
        std::fs::read("/sys/kernel/notes")
            .ok()
            .and_then(|n| BuildId::from_notes(&n))
    }
}

impl fmt::Display for BuildId {
    /// `build_id__sprintf`: lowercase hex of the meaningful bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for BuildId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BuildId({self})")
    }
}

/// The build-id cache (`~/.debug` by default, `buildid_dir`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildIdCache {
    dir: PathBuf,
}

impl BuildIdCache {
    /// A cache rooted at `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        BuildIdCache { dir: dir.into() }
    }

    /// perf's default: `$HOME/.debug`, or `.debug` without a HOME
    /// (`set_buildid_dir`).
    pub fn default_dir() -> PathBuf {
        match std::env::var_os("HOME") {
            Some(home) => Path::new(&home).join(".debug"),
            None => PathBuf::from(".debug"),
        }
    }

    /// The cache's root.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `build_id_cache__linkname`: `<dir>/.build-id/<2 hex>/<rest>`.
    pub fn linkname(&self, bid: &BuildId) -> PathBuf {
        let hex = bid.to_string();
        let (head, tail) = hex.split_at(hex.len().min(2));
        self.dir.join(".build-id").join(head).join(tail)
    }

    /// `__dso__build_id_filename`: the link itself when it is a regular
    /// file (the old layout), else `<link>/elf`, `debug`, `vdso` or
    /// `kallsyms`.
    pub fn filename(&self, bid: &BuildId, kind: CachedFile) -> PathBuf {
        let link = self.linkname(bid);
        if link.metadata().is_ok_and(|m| m.is_file()) {
            return link;
        }
        link.join(kind.basename())
    }

    /// `build_id_cache__kallsyms_path`: `<dir>/[kernel.kallsyms]/<bid>/kallsyms`,
    /// or the old flat `<dir>/[kernel.kallsyms]/<bid>`, whichever exists.
    pub fn kallsyms_path(&self, bid: &BuildId) -> Option<PathBuf> {
        let base = self.dir.join("[kernel.kallsyms]").join(bid.to_string());
        let new = base.join("kallsyms");
        [new, base].into_iter().find(|p| p.exists())
    }
}

/// Which file of a build-id cache entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CachedFile {
    /// The object itself (`elf`).
    Elf,
    /// Its debug info (`debug`).
    Debug,
    /// A vDSO image (`vdso`).
    Vdso,
    /// A kernel's symbols (`kallsyms`).
    Kallsyms,
}

impl CachedFile {
    fn basename(self) -> &'static str {
        match self {
            CachedFile::Elf => "elf",
            CachedFile::Debug => "debug",
            CachedFile::Vdso => "vdso",
            CachedFile::Kallsyms => "kallsyms",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_and_padding() {
        let b = BuildId::from_hex("4a5a9b0affb66c437abcd455d2738af879985fa9").unwrap();
        assert_eq!(b.to_string(), "4a5a9b0affb66c437abcd455d2738af879985fa9");
        let short = BuildId::new(&[1, 2, 3, 4]);
        let padded = BuildId::new(&[1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert!(padded.matches(&short));
        assert!(!short.matches(&padded));
        assert!(!padded.matches(&BuildId::new(&[1, 2, 3, 5])));
        assert_eq!(BuildId::from_hex("abc"), None);
        assert_eq!(BuildId::from_hex("zz"), None);
    }

    #[test]
    fn notes() {
        // A Linux note, then the GNU build id.
        let mut n = Vec::new();
        for w in [6u32, 4, 0x101] {
            n.extend_from_slice(&w.to_ne_bytes());
        }
        n.extend_from_slice(b"Linux\0\0\0");
        n.extend_from_slice(&[9, 9, 9, 9]);
        for w in [4u32, 20, 3] {
            n.extend_from_slice(&w.to_ne_bytes());
        }
        n.extend_from_slice(b"GNU\0");
        n.extend((0..20).map(|i| i as u8));
        let b = BuildId::from_notes(&n).unwrap();
        assert_eq!(b.as_bytes(), (0..20).collect::<Vec<u8>>());
        // Truncated or garbage input gives None, not a panic.
        for cut in 0..n.len() - 1 {
            let _ = BuildId::from_notes(&n[..cut]);
        }
        assert_eq!(BuildId::from_notes(&[0xff; 64]), None);
    }
}
