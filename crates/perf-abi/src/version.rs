// SPDX-License-Identifier: GPL-2.0-only
//! The numeric `X.Y.Z` part of a kernel release.
//!
//! `semver` cannot parse kernel releases (`6.8.0-31-generic` would become a
//! pre-release that sorts below `6.8.0`), so the numbers are taken here and only
//! the resulting `X.Y.Z` is handed to semver for comparisons and requirements.

use std::fmt;

use serde::{Serialize, Serializer};

/// A kernel version `X.Y.Z` (`Z` is 0 when the release has only `X.Y`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KernelVersion {
    /// Major (`6` in `6.8.0`).
    pub major: u32,
    /// Patch level (`8` in `6.8.0`).
    pub minor: u32,
    /// Sublevel (`0` in `6.8.0`).
    pub patch: u32,
}

impl KernelVersion {
    /// Builds a version from its three numbers.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        KernelVersion {
            major,
            minor,
            patch,
        }
    }

    /// Takes the leading `X.Y[.Z]` of a release string; `None` when the string
    /// does not start with at least `X.Y` (or a number does not fit in u32).
    pub fn from_release(release: &str) -> Option<Self> {
        let mut numbers = [0u32; 3];
        let mut count = 0;
        for part in release.split('.').take(3) {
            let digits: &str = match part.find(|c: char| !c.is_ascii_digit()) {
                Some(end) => &part[..end],
                None => part,
            };
            if digits.is_empty() {
                break;
            }
            numbers[count] = digits.parse().ok()?;
            count += 1;
            if digits.len() != part.len() {
                break;
            }
        }
        (count >= 2).then(|| KernelVersion::new(numbers[0], numbers[1], numbers[2]))
    }

    /// Parses `X.Y` or `X.Y.Z` exactly (used by the feature table).
    pub fn parse_exact(s: &str) -> Option<Self> {
        let parts: Vec<&str> = s.split('.').collect();
        if !(2..=3).contains(&parts.len()) {
            return None;
        }
        let mut n = [0u32; 3];
        for (slot, part) in n.iter_mut().zip(&parts) {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            *slot = part.parse().ok()?;
        }
        Some(KernelVersion::new(n[0], n[1], n[2]))
    }

    /// The same version as a `semver::Version`, for requirement matching.
    pub fn to_semver(self) -> semver::Version {
        semver::Version::new(self.major.into(), self.minor.into(), self.patch.into())
    }

    /// Shortest human form: `6.19` for 6.19.0, `2.6.31` otherwise.
    pub fn short(self) -> String {
        if self.patch == 0 {
            format!("{}.{}", self.major, self.minor)
        } else {
            self.to_string()
        }
    }
}

impl fmt::Display for KernelVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl Serialize for KernelVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_numerically() {
        let a = KernelVersion::from_release("6.9.0-rc7+").unwrap();
        let b = KernelVersion::from_release("6.10.1").unwrap();
        assert!(a < b);
        assert!(semver::VersionReq::parse(">=6.8").unwrap().matches(
            &KernelVersion::from_release("6.8.0-31-generic")
                .unwrap()
                .to_semver()
        ));
    }

    #[test]
    fn exact() {
        assert_eq!(
            KernelVersion::parse_exact("2.6.31"),
            Some(KernelVersion::new(2, 6, 31))
        );
        assert_eq!(
            KernelVersion::parse_exact("6.19"),
            Some(KernelVersion::new(6, 19, 0))
        );
        assert_eq!(KernelVersion::parse_exact("6"), None);
        assert_eq!(KernelVersion::parse_exact("6.x"), None);
        assert_eq!(KernelVersion::new(6, 19, 0).short(), "6.19");
        assert_eq!(KernelVersion::new(2, 6, 31).short(), "2.6.31");
    }
}
