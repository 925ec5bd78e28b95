// SPDX-License-Identifier: GPL-2.0-only
//! The feature table: which `perf_event_attr` field, flag bit, `sample_type` bit
//! and `read_format` bit each Linux release added, and the attr size by release.
//!
//! The data lives in `data/features.toml` (with its sources) and is parsed once.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::version::KernelVersion;

/// What part of `perf_event_attr` a feature is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FeatureKind {
    /// A bit (or `width` bits) of the flags word, bit 0 being `disabled`.
    Flag,
    /// A struct member at a byte offset.
    Field,
    /// A `PERF_SAMPLE_*` bit.
    SampleType,
    /// A `PERF_FORMAT_*` bit.
    ReadFormat,
}

/// One row of the table.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Feature {
    /// The uapi name (`sigtrap`, `config3`, `SAMPLE_CGROUP`, `FORMAT_LOST`).
    pub name: String,
    /// Where it lives.
    pub kind: FeatureKind,
    /// Bit position (flags, sample_type, read_format).
    #[serde(default)]
    pub bit: Option<u32>,
    /// Number of bits (only `precise_ip` has 2).
    #[serde(default)]
    pub width: Option<u32>,
    /// Byte offset (fields).
    #[serde(default)]
    pub offset: Option<u32>,
    /// Byte size (fields).
    #[serde(default)]
    pub size: Option<u32>,
    /// First release whose header has it, as `X.Y[.Z]`.
    pub since: String,
}

impl Feature {
    /// The release that added it (the table is checked at load time).
    pub fn since_version(&self) -> KernelVersion {
        KernelVersion::parse_exact(&self.since).unwrap_or(KernelVersion::new(0, 0, 0))
    }

    /// The mask of this feature within its 64-bit word (flags, sample_type,
    /// read_format); 0 for fields.
    pub fn mask(&self) -> u64 {
        match (self.kind, self.bit) {
            (FeatureKind::Field, _) | (_, None) => 0,
            (_, Some(bit)) => {
                let width = self.width.unwrap_or(1);
                let ones = if width >= 64 {
                    u64::MAX
                } else {
                    (1u64 << width) - 1
                };
                ones.checked_shl(bit).unwrap_or(0)
            }
        }
    }

    /// The attr size a struct must have to contain this field (0 for bits).
    pub fn end(&self) -> u32 {
        match (self.kind, self.offset, self.size) {
            (FeatureKind::Field, Some(o), Some(s)) => o + s,
            _ => 0,
        }
    }
}

/// One `sizeof(struct perf_event_attr)` step.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct AttrSizeStep {
    /// The size in bytes (PERF_ATTR_SIZE_VERn).
    pub size: u32,
    /// First release with that size.
    pub since: String,
}

/// The whole table.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct FeatureTable {
    /// Attr sizes, oldest first.
    pub attr_size: Vec<AttrSizeStep>,
    /// Features, in header order within each kind.
    pub feature: Vec<Feature>,
}

const FEATURES_TOML: &str = include_str!("../data/features.toml");

impl FeatureTable {
    /// The table shipped with this crate.
    pub fn builtin() -> &'static FeatureTable {
        static TABLE: OnceLock<FeatureTable> = OnceLock::new();
        TABLE.get_or_init(|| {
            // The data file is part of the crate and covered by the tests below;
            // an unparsable table is a build defect, so an empty one is the
            // least harmful fallback (everything then counts as "unknown").
            toml::from_str(FEATURES_TOML).unwrap_or(FeatureTable {
                attr_size: Vec::new(),
                feature: Vec::new(),
            })
        })
    }

    /// `sizeof(struct perf_event_attr)` for a kernel version (64 for anything
    /// older than the table).
    pub fn attr_size_for(&self, version: KernelVersion) -> u32 {
        self.attr_size
            .iter()
            .filter(|s| KernelVersion::parse_exact(&s.since).is_some_and(|v| v <= version))
            .map(|s| s.size)
            .max()
            .unwrap_or(64)
    }

    /// The features a kernel version has, in table order.
    pub fn features_for(&self, version: KernelVersion) -> impl Iterator<Item = &Feature> {
        self.feature
            .iter()
            .filter(move |f| f.since_version() <= version)
    }

    /// Looks a feature up by name.
    pub fn get(&self, name: &str) -> Option<&Feature> {
        self.feature.iter().find(|f| f.name == name)
    }

    /// The union of the masks of one kind that a version knows.
    pub fn known_mask(&self, kind: FeatureKind, version: KernelVersion) -> u64 {
        self.features_for(version)
            .filter(|f| f.kind == kind)
            .fold(0, |m, f| m | f.mask())
    }

    /// The features of `kind` whose bits are set in `value` and that `version`
    /// lacks, newest first.
    pub fn missing_bits(
        &self,
        kind: FeatureKind,
        value: u64,
        version: KernelVersion,
    ) -> Vec<&Feature> {
        let mut v: Vec<&Feature> = self
            .feature
            .iter()
            .filter(|f| f.kind == kind && f.mask() & value != 0 && f.since_version() > version)
            .collect();
        v.sort_by_key(|f| std::cmp::Reverse(f.since_version()));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_parses_and_every_row_is_well_formed() {
        let t: FeatureTable = toml::from_str(FEATURES_TOML).expect("features.toml parses");
        assert!(t.feature.len() > 80);
        for f in &t.feature {
            assert!(KernelVersion::parse_exact(&f.since).is_some(), "{}", f.name);
            match f.kind {
                FeatureKind::Field => assert!(f.offset.is_some() && f.size.is_some(), "{}", f.name),
                _ => assert!(f.bit.is_some_and(|b| b < 64), "{}", f.name),
            }
        }
        for s in &t.attr_size {
            assert!(KernelVersion::parse_exact(&s.since).is_some());
        }
    }

    #[test]
    fn bits_are_unique_within_a_kind() {
        let t = FeatureTable::builtin();
        for kind in [
            FeatureKind::Flag,
            FeatureKind::SampleType,
            FeatureKind::ReadFormat,
        ] {
            let mut seen = 0u64;
            for f in t.feature.iter().filter(|f| f.kind == kind) {
                assert_eq!(seen & f.mask(), 0, "{} overlaps", f.name);
                seen |= f.mask();
            }
        }
    }

    #[test]
    fn attr_sizes_by_release() {
        let t = FeatureTable::builtin();
        let at = |s: &str| t.attr_size_for(KernelVersion::parse_exact(s).unwrap());
        assert_eq!(at("2.6.31"), 64);
        assert_eq!(at("3.2"), 72);
        assert_eq!(at("4.19"), 112);
        assert_eq!(at("6.1"), 128);
        assert_eq!(at("6.18"), 136);
        assert_eq!(at("6.19"), 144);
        assert_eq!(at("7.3"), 144);
    }

    #[test]
    fn every_field_fits_the_size_of_its_release() {
        let t = FeatureTable::builtin();
        for f in t.feature.iter().filter(|f| f.kind == FeatureKind::Field) {
            assert!(f.end() <= t.attr_size_for(f.since_version()), "{}", f.name);
        }
    }

    #[test]
    fn missing_bits_newest_first() {
        let t = FeatureTable::builtin();
        let v618 = KernelVersion::new(6, 18, 0);
        let bits = t.get("defer_callchain").unwrap().mask() | t.get("sigtrap").unwrap().mask();
        let missing = t.missing_bits(FeatureKind::Flag, bits, v618);
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].name, "defer_callchain");
        let v510 = KernelVersion::new(5, 10, 0);
        let names: Vec<_> = t
            .missing_bits(FeatureKind::Flag, bits, v510)
            .iter()
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(names, ["defer_callchain", "sigtrap"]);
    }
}
