// SPDX-License-Identifier: GPL-2.0-only
//! mapfile.csv: which model directory a CPU identifier selects, compared as
//! each architecture's `strcmp_cpuid_str()` compares: x86 by regular
//! expression with the stepping optional, arm64 by MIDR with variant and
//! revision as a minimum, others by a regular expression matching the whole
//! identifier.

use regex::Regex;

/// A row of an architecture's mapfile.csv.
#[derive(Debug)]
pub struct MapEntry {
    /// perf's arch directory (`x86`, `arm64`).
    pub arch: &'static str,
    /// The CPUID pattern (`GenuineIntel-6-(97|9A|B7|BA|BE|BF)`).
    pub cpuid: &'static str,
    /// The table's version (`v1.15`).
    pub version: &'static str,
    /// Index of the model's table.
    pub model: usize,
}

impl MapEntry {
    /// Whether `id` selects this row.
    pub fn matches(&self, id: &str) -> bool {
        match self.arch {
            "x86" => x86_matches(self.cpuid, id),
            "arm64" => midr_matches(self.cpuid, id),
            _ => full_match(self.cpuid, id),
        }
    }
}

/// perf's `strcmp_cpuid_str()` of this host's architecture (what a
/// metric's `strcmp_cpuid_str(ID)` asks): whether CPU id pattern `pattern`
/// selects CPU id `id`.
pub fn host_cpuid_matches(pattern: &str, id: &str) -> bool {
    if cfg!(any(target_arch = "x86_64", target_arch = "x86")) {
        x86_matches(pattern, id)
    } else if cfg!(target_arch = "aarch64") {
        midr_matches(pattern, id)
    } else {
        full_match(pattern, id)
    }
}

/// POSIX extended regular expression, anchored on both ends.
fn full_match(pattern: &str, id: &str) -> bool {
    Regex::new(&format!("^(?:{pattern})$")).is_ok_and(|re| re.is_match(id))
}

/// `vendor-family-model-stepping`: three dashes.
fn is_full_cpuid(id: &str) -> bool {
    id.matches('-').count() == 3
}

/// x86's `strcmp_cpuid_str`: a pattern with a stepping needs an identifier
/// with one; one without ignores the identifier's stepping.
fn x86_matches(pattern: &str, id: &str) -> bool {
    let (full_pattern, full_id) = (is_full_cpuid(pattern), is_full_cpuid(id));
    if full_pattern && !full_id {
        return false;
    }
    let id = match id.rfind('-') {
        Some(dash) if !full_pattern && full_id => &id[..dash],
        _ => id,
    };
    full_match(pattern, id)
}

const MIDR_REVISION_MASK: u64 = 0xf;
const MIDR_VARIANT_MASK: u64 = 0xf << 20;

/// `strtoull(s, NULL, 16)`: leading hex digits, `0x` allowed.
fn hex(s: &str) -> u64 {
    let s = s.trim();
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    let end = s.find(|c: char| !c.is_ascii_hexdigit()).unwrap_or(s.len());
    u64::from_str_radix(&s[..end], 16).unwrap_or(0)
}

/// arm64's `strcmp_cpuid_str`: the same MIDR apart from variant and
/// revision, and a variant.revision at least the row's.
fn midr_matches(pattern: &str, id: &str) -> bool {
    let (map, id) = (hex(pattern), hex(id));
    let fields = !(MIDR_VARIANT_MASK | MIDR_REVISION_MASK);
    if map & fields != id & fields {
        return false;
    }
    let version = |v: u64| ((v & MIDR_VARIANT_MASK) >> 20, v & MIDR_REVISION_MASK);
    version(id) >= version(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(arch: &'static str, cpuid: &'static str) -> MapEntry {
        MapEntry {
            arch,
            cpuid,
            version: "v1",
            model: 0,
        }
    }

    #[test]
    fn x86_rules() {
        let adl = entry("x86", "GenuineIntel-6-(97|9A|B7|BA|BE|BF)");
        assert!(adl.matches("GenuineIntel-6-97-2"));
        assert!(adl.matches("GenuineIntel-6-9A"));
        assert!(!adl.matches("GenuineIntel-6-9"));
        assert!(!adl.matches("GenuineIntel-6-971-2"));
        let skx = entry("x86", "GenuineIntel-6-55-[01234]");
        assert!(skx.matches("GenuineIntel-6-55-4"));
        assert!(!skx.matches("GenuineIntel-6-55-5"));
        assert!(!skx.matches("GenuineIntel-6-55"));
        let zen = entry("x86", "AuthenticAMD-23-([12][0-9A-F]|[0-9A-F])");
        assert!(zen.matches("AuthenticAMD-23-1-1"));
        assert!(!zen.matches("AuthenticAMD-25-1-1"));
    }

    #[test]
    fn arm64_rules() {
        let a76 = entry("arm64", "0x00000000410fd0b0");
        assert!(a76.matches("0x00000000410fd0b0"));
        assert!(a76.matches("0x00000000411fd0b1"));
        assert!(!a76.matches("0x00000000410fd0c0"));
        let r1 = entry("arm64", "0x00000000411fd0b1");
        assert!(!r1.matches("0x00000000410fd0b3"));
        assert!(!r1.matches("0x00000000411fd0b0"));
        assert!(r1.matches("0x00000000412fd0b0"));
    }

    #[test]
    fn generic_rules() {
        let p9 = entry("powerpc", "0x004e[[:xdigit:]]{4}");
        assert!(p9.matches("0x004e1202"));
        assert!(!p9.matches("0x004e12021"));
    }
}
