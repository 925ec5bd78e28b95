// SPDX-License-Identifier: GPL-2.0-only
//! The emulated kernel's copy of an attr: the bytes it read, zero-extended to
//! its own struct size, read by the feature table's names and offsets.

use perf_abi::{FeatureKind, FeatureTable};

/// The kernel's `struct perf_event_attr` (at most VER9 plus headroom).
pub(super) struct View {
    bytes: [u8; 256],
}

impl View {
    /// The first `n` bytes of `raw`, the rest zero.
    pub(super) fn new(raw: &[u8], n: usize) -> Self {
        let mut bytes = [0u8; 256];
        let n = n.min(raw.len()).min(bytes.len());
        if let (Some(dst), Some(src)) = (bytes.get_mut(..n), raw.get(..n)) {
            dst.copy_from_slice(src);
        }
        View { bytes }
    }

    /// The whole image.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// A little-endian-or-native integer of `size` bytes at `offset` (native
    /// order, as the struct is).
    pub(super) fn int(&self, offset: u32, size: u32) -> u64 {
        let start = offset as usize;
        let Some(b) = self.bytes.get(start..start + size as usize) else {
            return 0;
        };
        let mut buf = [0u8; 8];
        if cfg!(target_endian = "little") {
            if let Some(dst) = buf.get_mut(..b.len()) {
                dst.copy_from_slice(b);
            }
        } else if let Some(dst) = buf.get_mut(8 - b.len()..) {
            dst.copy_from_slice(b);
        }
        u64::from_ne_bytes(buf)
    }

    /// `type`.
    pub(super) fn type_(&self) -> u32 {
        self.int(0, 4) as u32
    }

    /// `config`.
    pub(super) fn config(&self) -> u64 {
        self.int(8, 8)
    }

    /// `sample_period` / `sample_freq`.
    pub(super) fn sample_period(&self) -> u64 {
        self.int(16, 8)
    }

    /// The word of a bit kind.
    pub(super) fn word(&self, kind: FeatureKind) -> u64 {
        match kind {
            FeatureKind::SampleType => self.int(24, 8),
            FeatureKind::ReadFormat => self.int(32, 8),
            FeatureKind::Flag => self.int(40, 8),
            FeatureKind::BranchSampleType => self.int(72, 8),
            FeatureKind::AuxAction => self.int(116, 4),
            FeatureKind::OpenFlag | FeatureKind::Field => 0,
        }
    }

    /// A field row's value by name (0 for unknown names).
    pub(super) fn field(&self, name: &str) -> u64 {
        match FeatureTable::builtin().get(name) {
            Some(f) => match (f.offset, f.size) {
                (Some(o), Some(s)) => self.int(o, s),
                _ => 0,
            },
            None => 0,
        }
    }

    /// True when a bit row (flag, sample_type, …) is set.
    pub(super) fn has(&self, name: &str) -> bool {
        FeatureTable::builtin()
            .get(name)
            .is_some_and(|f| self.word(f.kind) & f.mask() != 0)
    }
}
