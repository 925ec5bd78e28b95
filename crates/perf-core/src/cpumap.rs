// SPDX-License-Identifier: GPL-2.0-only
//! `cpu_map`: a sorted list of CPU numbers, parsed the way libperf's
//! `perf_cpu_map__new()` parses a CPU list, without its NULL-on-error.
//!
//! * no list → the online CPUs (`<sysfs>/devices/system/cpu/online`, falling
//!   back to `0..sysconf(_SC_NPROCESSORS_ONLN)`);
//! * `""` → the "any CPU" map `[-1]`;
//! * `"0-3,5"`, `"0x1"`, `"010"` → numbers as C's `strtoul(s, &end, 0)` reads
//!   them, ranges inclusive, sorted; a duplicate, a reversed range, a value
//!   ≥ `INT_MAX` or a stray character is an error.

use std::path::Path;

use crate::error::{Error, Result};

/// The most CPUs one map may name. Linux's `NR_CPUS` is at most 8192 today; the
/// bound keeps `"0-2000000000"` from allocating gigabytes.
pub const MAX_CPUS: usize = 1 << 16;

/// A CPU number; `-1` means "any CPU".
pub type Cpu = i32;

/// An immutable, sorted, duplicate-free list of CPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuMap {
    cpus: Vec<Cpu>,
}

impl CpuMap {
    /// The "any CPU" map `[-1]` (per-thread events).
    pub fn any() -> Self {
        CpuMap { cpus: vec![-1] }
    }

    /// A map of the given CPUs (sorted and deduplicated here).
    pub fn from_cpus(mut cpus: Vec<Cpu>) -> Self {
        cpus.sort_unstable();
        cpus.dedup();
        CpuMap { cpus }
    }

    /// The online CPUs as the running system lists them.
    pub fn online() -> Result<Self> {
        Self::online_in(Path::new("/sys"))
    }

    /// The online CPUs read from `<sysfs>/devices/system/cpu/online`.
    pub fn online_in(sysfs: &Path) -> Result<Self> {
        let path = sysfs.join("devices/system/cpu/online");
        if let Ok(text) = std::fs::read_to_string(&path) {
            if let Ok(map) = Self::parse(text.trim_end_matches('\n')) {
                if !map.is_any() {
                    return Ok(map);
                }
            }
        }
        let n = crate::sys::nprocessors_onln();
        if n < 1 {
            return Err(Error::Sys {
                op: "sysconf(_SC_NPROCESSORS_ONLN)",
                errno: crate::error::last_errno(),
                hint: Some(format!("and {} is unreadable", path.display())),
            });
        }
        Ok(CpuMap {
            cpus: (0..n as Cpu).collect(),
        })
    }

    /// Parses a CPU list (`"0-3,5"`); `""` is the "any CPU" map.
    pub fn parse(list: &str) -> Result<Self> {
        let invalid = |reason: String| Error::InvalidCpuList {
            list: list.to_owned(),
            reason,
        };
        let bytes = list.as_bytes();
        let mut cpus: Vec<Cpu> = Vec::new();
        let mut pos = 0;
        if bytes.is_empty() {
            return Ok(Self::any());
        }
        if !bytes[0].is_ascii_digit() {
            return Err(invalid(format!("expected a CPU number at position {pos}")));
        }
        while pos < bytes.len() && bytes[pos].is_ascii_digit() {
            let (start, next) = strtoul(bytes, pos);
            pos = next;
            if start >= i32::MAX as u64 {
                return Err(invalid(format!("CPU number {start} is too large")));
            }
            let end = if bytes.get(pos) == Some(&b'-') {
                let (end, next) = strtoul(bytes, pos + 1);
                pos = next;
                if end >= i32::MAX as u64 {
                    return Err(invalid(format!("CPU number {end} is too large")));
                }
                if end < start {
                    return Err(invalid(format!("range {start}-{end} is reversed")));
                }
                end
            } else {
                start
            };
            match bytes.get(pos) {
                None | Some(b',') => {}
                Some(_) => {
                    return Err(invalid(format!("unexpected character at position {pos}")));
                }
            }
            if cpus.len() as u64 + (end - start) >= MAX_CPUS as u64 {
                return Err(invalid(format!("more than {MAX_CPUS} CPUs")));
            }
            for cpu in start..=end {
                let cpu = cpu as Cpu;
                if cpus.contains(&cpu) {
                    return Err(invalid(format!("CPU {cpu} is listed twice")));
                }
                cpus.push(cpu);
            }
            if pos < bytes.len() {
                pos += 1; // the comma
            }
        }
        if cpus.is_empty() {
            // libperf falls back to the online CPUs here with a warning; the
            // first character was a digit, so this cannot happen.
            return Err(invalid("no CPU numbers".to_owned()));
        }
        Ok(Self::from_cpus(cpus))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.cpus.len()
    }

    /// True for an empty map (never produced by the parsers).
    pub fn is_empty(&self) -> bool {
        self.cpus.is_empty()
    }

    /// The CPU at an index.
    pub fn get(&self, idx: usize) -> Option<Cpu> {
        self.cpus.get(idx).copied()
    }

    /// The index of a CPU number.
    pub fn index_of(&self, cpu: Cpu) -> Option<usize> {
        self.cpus.binary_search(&cpu).ok()
    }

    /// The CPUs, sorted.
    pub fn as_slice(&self) -> &[Cpu] {
        &self.cpus
    }

    /// True for the "any CPU" map `[-1]`.
    pub fn is_any(&self) -> bool {
        self.cpus == [-1]
    }

    /// The union of two maps.
    pub fn merge(&self, other: &CpuMap) -> CpuMap {
        let mut cpus = self.cpus.clone();
        cpus.extend_from_slice(&other.cpus);
        Self::from_cpus(cpus)
    }
}

/// C's `strtoul(s + pos, &end, 0)` for text that starts with a digit at `pos`
/// or (after a `-`) with anything: returns the value (wrapping like C for a
/// leading minus, saturating at `u64::MAX`) and the end position. When no
/// digits follow, the value is 0 and the end is `pos` (as C sets `end = s`).
fn strtoul(s: &[u8], pos: usize) -> (u64, usize) {
    let mut i = pos;
    while i < s.len() && (s[i] == b' ' || (b'\t'..=b'\r').contains(&s[i])) {
        i += 1;
    }
    let mut negative = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        negative = s[i] == b'-';
        i += 1;
    }
    let mut radix = 10;
    if s.get(i) == Some(&b'0') {
        if matches!(s.get(i + 1), Some(b'x' | b'X'))
            && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
        {
            radix = 16;
            i += 2;
        } else {
            radix = 8;
        }
    }
    let start = i;
    let mut value: u64 = 0;
    let mut overflow = false;
    while let Some(d) = s.get(i).and_then(|&c| (c as char).to_digit(radix)) {
        match value
            .checked_mul(radix.into())
            .and_then(|v| v.checked_add(d.into()))
        {
            Some(v) => value = v,
            None => overflow = true,
        }
        i += 1;
    }
    if i == start {
        return (0, pos);
    }
    if overflow {
        return (u64::MAX, i);
    }
    (
        if negative {
            value.wrapping_neg()
        } else {
            value
        },
        i,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_like_libperf() {
        let cases: &[(&str, &[Cpu])] = &[
            ("", &[-1]),
            ("0", &[0]),
            ("0-1", &[0, 1]),
            ("1,0", &[0, 1]),
            ("1,", &[1]),
            ("0-0", &[0]),
            ("0x1", &[1]),
            ("010", &[8]),
            ("0-1,5", &[0, 1, 5]),
            ("3,1-2", &[1, 2, 3]),
            ("0-", &[0]),
            ("1,x", &[1]),
        ];
        for (list, want) in cases {
            assert_eq!(CpuMap::parse(list).unwrap().as_slice(), *want, "{list:?}");
        }
    }

    #[test]
    fn refused_like_libperf() {
        for list in [
            "abc",
            " 1",
            "-1",
            "1x",
            "2-1",
            "0,0",
            "0-1,1",
            "2147483647",
            "1-2147483647",
            "1-",
            "0-99999999",
        ] {
            assert!(CpuMap::parse(list).is_err(), "{list:?}");
        }
    }

    #[test]
    fn online_from_a_fake_sysfs() {
        let dir = std::env::temp_dir().join(format!("perf-core-cpumap-{}", std::process::id()));
        let cpu = dir.join("devices/system/cpu");
        std::fs::create_dir_all(&cpu).unwrap();
        std::fs::write(cpu.join("online"), "0,2-3\n").unwrap();
        assert_eq!(CpuMap::online_in(&dir).unwrap().as_slice(), &[0, 2, 3]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn online_on_this_machine() {
        let m = CpuMap::online().unwrap();
        assert!(!m.is_empty() && !m.is_any());
    }
}
