// SPDX-License-Identifier: GPL-2.0-only
//! Kernel release strings (`uname -r`) and the ABI they belong to.
//!
//! Debian and Ubuntu name their kernels `X.Y.Z-N-flavour` (`6.8.0-31-generic`,
//! `6.1.0-18-amd64`, `6.8.0-1009-aws`, `6.8.0-31-generic-64k`): every flavour of
//! one upload shares the ABI `X.Y.Z-N`, which is what `linux-tools-<abi>` packages
//! are named after. Debian's backports add their suite to the ABI number
//! (`4.19.0-0.bpo.6-amd64`, `6.1.0-0.deb11.17-amd64`), and from the 6.12
//! uploads on Debian names the ABI `X.Y.Z+debN` (`6.12.111+deb12-amd64`,
//! `6.12.38+deb13-cloud-amd64`; briefly `6.12.9+bpo-amd64`), as its
//! `linux-headers-<abi>-common` packages are named. Any other shape
//! (`6.18.44-fc-v595`, `5.14.0-362.el9.x86_64`, `6.12.0+`) is its own ABI with
//! no flavour.
//!
//! Parsing never fails: an odd string is still a release, it just has no flavour
//! and perhaps no version.

use serde::Serialize;

use crate::version::KernelVersion;

/// A parsed `uname -r` string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KernelRelease {
    /// The release exactly as given.
    pub release: String,
    /// The ABI the release belongs to (`6.8.0-31` for `6.8.0-31-generic`).
    pub abi: String,
    /// The flavour (`generic`, `generic-64k`, `amd64`), if the release has the
    /// Debian/Ubuntu shape.
    pub flavour: Option<String>,
    /// The leading `X.Y[.Z]` numbers, if there are any.
    pub version: Option<KernelVersion>,
}

impl KernelRelease {
    /// Parses a release string. Never fails and never panics.
    pub fn parse(release: &str) -> Self {
        let release = release.trim();
        let version = KernelVersion::from_release(release);
        let (abi, flavour) = match split_debian_style(release) {
            Some((abi, flavour)) => (abi.to_owned(), Some(flavour.to_owned())),
            None => (release.to_owned(), None),
        };
        KernelRelease {
            release: release.to_owned(),
            abi,
            flavour,
            version,
        }
    }
}

/// `X.Y.Z-N-flavour` → (`X.Y.Z-N`, `flavour`), where X, Y, Z and N are decimal
/// numbers (N may be a backport's `0.bpo.K` or `0.debV.K`) and the flavour is
/// non-empty; `X.Y.Z+debV-flavour` (or `+bpo`) → (`X.Y.Z+debV`, `flavour`).
fn split_debian_style(release: &str) -> Option<(&str, &str)> {
    let upstream_len = release.find(['-', '+'])?;
    let (upstream, rest) = release.split_at(upstream_len);
    let numbers: Vec<&str> = upstream.split('.').collect();
    if numbers.len() != 3 || !numbers.iter().all(|n| decimal(n)) {
        return None;
    }
    let (abiname, flavour) = rest.get(1..)?.split_once('-')?;
    let known = if rest.starts_with('+') {
        debian_suite(abiname)
    } else {
        decimal(abiname) || backport_abiname(abiname)
    };
    if !known || flavour.is_empty() {
        return None;
    }
    Some((&release[..upstream_len + 1 + abiname.len()], flavour))
}

fn decimal(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// `bpo` or `debV`: the suite tag of Debian's backports and `+debV` ABIs.
fn debian_suite(s: &str) -> bool {
    s == "bpo" || s.strip_prefix("deb").is_some_and(decimal)
}

/// `0.bpo.K` or `0.debV.K`: the ABI number of a Debian backport.
fn backport_abiname(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    matches!(parts.as_slice(), [n, suite, k] if decimal(n) && debian_suite(suite) && decimal(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (release, abi, flavour, version)
    const CASES: &[(&str, &str, Option<&str>, Option<&str>)] = &[
        (
            "6.8.0-31-generic",
            "6.8.0-31",
            Some("generic"),
            Some("6.8.0"),
        ),
        (
            "6.8.0-31-generic-64k",
            "6.8.0-31",
            Some("generic-64k"),
            Some("6.8.0"),
        ),
        ("6.8.0-1009-aws", "6.8.0-1009", Some("aws"), Some("6.8.0")),
        ("6.1.0-18-amd64", "6.1.0-18", Some("amd64"), Some("6.1.0")),
        (
            "6.1.0-18-rt-amd64",
            "6.1.0-18",
            Some("rt-amd64"),
            Some("6.1.0"),
        ),
        (
            "5.15.0-105-lowlatency",
            "5.15.0-105",
            Some("lowlatency"),
            Some("5.15.0"),
        ),
        ("6.18.44-fc-v595", "6.18.44-fc-v595", None, Some("6.18.44")),
        ("6.18.44-fc-v657", "6.18.44-fc-v657", None, Some("6.18.44")),
        (
            "5.14.0-362.el9.x86_64",
            "5.14.0-362.el9.x86_64",
            None,
            Some("5.14.0"),
        ),
        (
            "3.10.0-1160.el7.x86_64",
            "3.10.0-1160.el7.x86_64",
            None,
            Some("3.10.0"),
        ),
        ("6.12.0+", "6.12.0+", None, Some("6.12.0")),
        ("6.9.0-rc7+", "6.9.0-rc7+", None, Some("6.9.0")),
        ("7.3-rc1", "7.3-rc1", None, Some("7.3.0")),
        ("6.8.0-31", "6.8.0-31", None, Some("6.8.0")),
        ("6.8.0-31-", "6.8.0-31-", None, Some("6.8.0")),
        (
            "4.19.0-0.bpo.6-amd64",
            "4.19.0-0.bpo.6",
            Some("amd64"),
            Some("4.19.0"),
        ),
        (
            "6.1.0-0.deb11.17-amd64",
            "6.1.0-0.deb11.17",
            Some("amd64"),
            Some("6.1.0"),
        ),
        (
            "6.12.111+deb12-amd64",
            "6.12.111+deb12",
            Some("amd64"),
            Some("6.12.111"),
        ),
        (
            "6.12.107+deb12-amd64",
            "6.12.107+deb12",
            Some("amd64"),
            Some("6.12.107"),
        ),
        (
            "6.12.38+deb13-cloud-amd64",
            "6.12.38+deb13",
            Some("cloud-amd64"),
            Some("6.12.38"),
        ),
        (
            "6.12.38+deb13-rt-amd64",
            "6.12.38+deb13",
            Some("rt-amd64"),
            Some("6.12.38"),
        ),
        (
            "6.12.9+bpo-amd64",
            "6.12.9+bpo",
            Some("amd64"),
            Some("6.12.9"),
        ),
        ("6.12.38+deb13", "6.12.38+deb13", None, Some("6.12.38")),
        ("6.12.38+deb13-", "6.12.38+deb13-", None, Some("6.12.38")),
        (
            "6.12.38+deb-amd64",
            "6.12.38+deb-amd64",
            None,
            Some("6.12.38"),
        ),
        (
            "6.12.0+custom-amd64",
            "6.12.0+custom-amd64",
            None,
            Some("6.12.0"),
        ),
        (
            "6.1.0-0.deb11-amd64",
            "6.1.0-0.deb11-amd64",
            None,
            Some("6.1.0"),
        ),
        ("6.12+deb13-amd64", "6.12+deb13-amd64", None, Some("6.12.0")),
        ("6", "6", None, None),
        ("", "", None, None),
        ("-", "-", None, None),
        ("--", "--", None, None),
        ("abc-def-ghi", "abc-def-ghi", None, None),
        ("6.8.x-31-generic", "6.8.x-31-generic", None, Some("6.8.0")),
        (
            "99999999999999999999.1.2-3-big",
            "99999999999999999999.1.2-3",
            Some("big"),
            None,
        ),
        ("6.1.0-18-amd64\n", "6.1.0-18", Some("amd64"), Some("6.1.0")),
        ("é-ü-ß", "é-ü-ß", None, None),
    ];

    #[test]
    fn table() {
        for &(release, abi, flavour, version) in CASES {
            let r = KernelRelease::parse(release);
            assert_eq!(r.abi, abi, "abi of {release:?}");
            assert_eq!(r.flavour.as_deref(), flavour, "flavour of {release:?}");
            assert_eq!(
                r.version.map(|v| v.to_string()),
                version.map(str::to_owned),
                "version of {release:?}"
            );
        }
    }

    #[test]
    fn abi_is_a_prefix_of_the_release() {
        for &(release, ..) in CASES {
            let r = KernelRelease::parse(release);
            assert!(r.release.starts_with(&r.abi), "{release:?}");
        }
    }
}
