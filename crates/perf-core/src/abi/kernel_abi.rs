// SPDX-License-Identifier: GPL-2.0-only
//! What a kernel (or a build's target kernel) knows of `perf_event_attr`: its
//! struct size and, per checked word, the mask of bits it accepts.

use std::collections::BTreeSet;
use std::fmt;

use perf_abi::{BuildManifest, FeatureKind, FeatureTable, KernelVersion};

use crate::attr::Attr;

/// One mask per word the kernel checks bit by bit (flags, sample_type,
/// read_format, branch_sample_type, aux_action, the open flags). Used both for
/// "bits a kernel knows" and "bits the module set by default".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AttrBits {
    /// The bitfield word (`disabled` = bit 0 …).
    pub flags: u64,
    /// `PERF_SAMPLE_*`.
    pub sample_type: u64,
    /// `PERF_FORMAT_*`.
    pub read_format: u64,
    /// `PERF_SAMPLE_BRANCH_*`.
    pub branch_sample_type: u64,
    /// The `aux_action` bits.
    pub aux_action: u64,
    /// `PERF_FLAG_*` of the syscall's `flags` argument.
    pub open_flags: u64,
}

impl AttrBits {
    /// No bits.
    pub const NONE: AttrBits = AttrBits {
        flags: 0,
        sample_type: 0,
        read_format: 0,
        branch_sample_type: 0,
        aux_action: 0,
        open_flags: 0,
    };

    /// The word of one kind (0 for [`FeatureKind::Field`]).
    pub fn get(&self, kind: FeatureKind) -> u64 {
        match kind {
            FeatureKind::Flag => self.flags,
            FeatureKind::SampleType => self.sample_type,
            FeatureKind::ReadFormat => self.read_format,
            FeatureKind::BranchSampleType => self.branch_sample_type,
            FeatureKind::AuxAction => self.aux_action,
            FeatureKind::OpenFlag => self.open_flags,
            FeatureKind::Field => 0,
        }
    }

    /// The word of one kind, writable (`None` for fields).
    pub fn get_mut(&mut self, kind: FeatureKind) -> Option<&mut u64> {
        match kind {
            FeatureKind::Flag => Some(&mut self.flags),
            FeatureKind::SampleType => Some(&mut self.sample_type),
            FeatureKind::ReadFormat => Some(&mut self.read_format),
            FeatureKind::BranchSampleType => Some(&mut self.branch_sample_type),
            FeatureKind::AuxAction => Some(&mut self.aux_action),
            FeatureKind::OpenFlag => Some(&mut self.open_flags),
            FeatureKind::Field => None,
        }
    }

    /// The bits of either.
    pub fn union(&self, other: &AttrBits) -> AttrBits {
        AttrBits {
            flags: self.flags | other.flags,
            sample_type: self.sample_type | other.sample_type,
            read_format: self.read_format | other.read_format,
            branch_sample_type: self.branch_sample_type | other.branch_sample_type,
            aux_action: self.aux_action | other.aux_action,
            open_flags: self.open_flags | other.open_flags,
        }
    }

    /// The bits an attr (and its open flags) sets.
    pub fn of_attr(attr: &Attr, open_flags: u64) -> Self {
        AttrBits {
            flags: attr.flags,
            sample_type: attr.sample_type,
            read_format: attr.read_format,
            branch_sample_type: attr.branch_sample_type,
            aux_action: u64::from(attr.aux_action),
            open_flags,
        }
    }

    /// The bits of named table rows (`["sample_id_all", "mmap2",
    /// "FORMAT_LOST", "FLAG_FD_CLOEXEC"]`); `Err(name)` for a name that is not a
    /// bit row of the feature table.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let table = FeatureTable::builtin();
        let mut bits = AttrBits::NONE;
        for name in names {
            let f = table.get(name).ok_or_else(|| name.to_owned())?;
            let word = bits.get_mut(f.kind).ok_or_else(|| name.to_owned())?;
            *word |= f.mask();
        }
        Ok(bits)
    }

    /// The bits the table's rows for `version` have.
    pub fn for_version(version: KernelVersion) -> Self {
        let table = FeatureTable::builtin();
        let mut bits = AttrBits::NONE;
        for kind in FeatureKind::BITS {
            if let Some(word) = bits.get_mut(kind) {
                *word = table.known_mask(kind, version);
            }
        }
        bits
    }
}

/// How a [`KernelAbi`] was learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbiSource {
    /// The E2BIG size probe and one throw-away event per feature.
    Probed,
    /// The size probe worked but a plain software event could not be opened
    /// (permissions, seccomp): the bits come from the table for the version.
    SizeProbed,
    /// Nothing could be probed: everything comes from the table for the
    /// version `uname` reports.
    Table,
}

/// A kernel's `perf_event_attr` ABI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelAbi {
    /// `uname -r` (informational).
    pub release: String,
    /// The `X.Y.Z` of the release, if it has one (informational: backports
    /// make the probed bits the truth).
    pub version: Option<KernelVersion>,
    /// `sizeof(struct perf_event_attr)` in the kernel: the E2BIG probe's answer.
    pub attr_size: u32,
    /// The bits the kernel accepts, per word.
    pub known: AttrBits,
    /// How this was learned.
    pub source: AbiSource,
}

impl KernelAbi {
    /// What the feature table says a release has.
    pub fn from_table(release: &str, version: KernelVersion) -> Self {
        KernelAbi {
            release: release.to_owned(),
            version: Some(version),
            attr_size: FeatureTable::builtin().attr_size_for(version),
            known: AttrBits::for_version(version),
            source: AbiSource::Table,
        }
    }

    /// True when the kernel knows a feature row: its bits are in the known
    /// mask, or (fields) the field lies inside the kernel's struct.
    pub fn knows(&self, f: &perf_abi::Feature) -> bool {
        match f.kind {
            FeatureKind::Field => f.end() <= self.attr_size,
            kind => self.known.get(kind) & f.mask() == f.mask(),
        }
    }

    /// How the error messages name this kernel: `6.18.44`, or the release
    /// string when it has no version.
    pub fn describe(&self) -> String {
        match self.version {
            Some(v) => v.to_string(),
            None => self.release.clone(),
        }
    }

    /// Every difference in size or known features from `other`, one line each
    /// (empty when the two ABIs agree), for tests and diagnostics.
    pub fn differences(&self, other: &KernelAbi) -> Vec<String> {
        let mut out = Vec::new();
        if self.attr_size != other.attr_size {
            out.push(format!(
                "attr_size {} vs {}",
                self.attr_size, other.attr_size
            ));
        }
        for f in &FeatureTable::builtin().feature {
            if f.kind == FeatureKind::Field {
                continue;
            }
            let (a, b) = (self.knows(f), other.knows(f));
            if a != b {
                out.push(format!("{} '{}': {a} vs {b}", f.kind.word(), f.name));
            }
        }
        for kind in FeatureKind::BITS {
            let unnamed = !FeatureTable::builtin().all_mask(kind);
            let (a, b) = (
                self.known.get(kind) & unnamed,
                other.known.get(kind) & unnamed,
            );
            if a != b {
                out.push(format!("{} unnamed bits {a:#x} vs {b:#x}", kind.word()));
            }
        }
        out
    }
}

/// The kernel a per-ABI build targets, from its build manifest: the build
/// refuses, before any syscall, fields and bits its target lacks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildTarget {
    /// The release the build was made for.
    pub kernel_release: String,
    /// Its ABI (`6.8.0-31`).
    pub abi: String,
    /// Its version.
    pub version: Option<KernelVersion>,
    /// `sizeof(struct perf_event_attr)` of the target.
    pub attr_size: u32,
    /// The feature rows the target has, by name.
    pub features: BTreeSet<String>,
}

impl BuildTarget {
    /// The target of a build manifest.
    pub fn from_manifest(m: &BuildManifest) -> Self {
        BuildTarget {
            kernel_release: m.kernel_release.clone(),
            abi: m.abi.clone(),
            version: m
                .kernel_version
                .as_deref()
                .and_then(KernelVersion::from_release),
            attr_size: m.attr_size,
            features: m.features.iter().cloned().collect(),
        }
    }

    /// The target of a build for `release` (what the build manifest of that
    /// release says).
    pub fn for_release(release: &str) -> Self {
        let r = perf_abi::KernelRelease::parse(release);
        Self::from_manifest(&BuildManifest::for_release(&r, "target"))
    }

    /// True when the target has a feature row.
    pub fn has(&self, name: &str) -> bool {
        self.features.contains(name)
    }

    /// The bits the target knows, per word.
    pub fn known(&self) -> AttrBits {
        let table = FeatureTable::builtin();
        let mut bits = AttrBits::NONE;
        for f in table.feature.iter().filter(|f| self.has(&f.name)) {
            if let Some(word) = bits.get_mut(f.kind) {
                *word |= f.mask();
            }
        }
        bits
    }
}

impl fmt::Display for BuildTarget {
    /// `Linux 6.8 (ABI 6.8.0-31)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.version {
            Some(v) => write!(f, "Linux {} (ABI {})", v.short(), self.abi),
            None => write!(f, "Linux {} (ABI {})", self.kernel_release, self.abi),
        }
    }
}
