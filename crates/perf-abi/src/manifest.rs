// SPDX-License-Identifier: GPL-2.0-only
//! The build manifest: a TOML file installed beside each per-ABI `perf.abi3.so`,
//! saying which kernel it targets. The loader and the packaging read it instead
//! of re-deriving ABI names.

use serde::{Deserialize, Serialize};

use crate::features::FeatureTable;
use crate::release::KernelRelease;

/// File name of the manifest, beside the extension.
pub const MANIFEST_FILE: &str = "perf-python.toml";

/// What one build targets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuildManifest {
    /// The kernel release the build was made for (`6.8.0-31-generic`).
    pub kernel_release: String,
    /// Its ABI (`6.8.0-31`).
    pub abi: String,
    /// Its flavour, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flavour: Option<String>,
    /// The `X.Y.Z` the feature set was taken from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_version: Option<String>,
    /// `sizeof(struct perf_event_attr)` of the target.
    pub attr_size: u32,
    /// Names of the attr features the target has.
    pub features: Vec<String>,
    /// This project's version.
    pub build_version: String,
    /// The Python ABI tag of the extension (`abi3`).
    pub python_abi: String,
    /// The kernel source perf's pmu-events tables were built from
    /// ([`crate::choose_source`]); absent when the build has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmu_events_source: Option<String>,
}

impl BuildManifest {
    /// The manifest for a target release. A release without a version (odd
    /// strings) targets the newest ABI the table knows.
    pub fn for_release(release: &KernelRelease, build_version: &str) -> Self {
        let table = FeatureTable::builtin();
        let version = release
            .version
            .unwrap_or(crate::version::KernelVersion::new(u32::MAX, 0, 0));
        BuildManifest {
            kernel_release: release.release.clone(),
            abi: release.abi.clone(),
            flavour: release.flavour.clone(),
            kernel_version: release.version.map(|v| v.to_string()),
            attr_size: table.attr_size_for(version),
            features: table
                .features_for(version)
                .map(|f| f.name.clone())
                .collect(),
            build_version: build_version.to_owned(),
            python_abi: "abi3".to_owned(),
            pmu_events_source: None,
        }
    }

    /// Serialises to TOML.
    pub fn to_toml(&self) -> String {
        // A plain struct of strings and numbers always serialises.
        toml::to_string(self).unwrap_or_default()
    }

    /// Parses a manifest file's text.
    pub fn from_toml(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let r = KernelRelease::parse("6.8.0-31-generic");
        let m = BuildManifest::for_release(&r, "0.1.0");
        assert_eq!(m.abi, "6.8.0-31");
        assert_eq!(m.attr_size, 136);
        assert!(m.features.iter().any(|f| f == "sigtrap"));
        assert!(!m.features.iter().any(|f| f == "defer_callchain"));
        let text = m.to_toml();
        assert_eq!(BuildManifest::from_toml(&text).unwrap(), m);
    }

    #[test]
    fn old_kernel_has_old_size() {
        let m = BuildManifest::for_release(&KernelRelease::parse("4.19.0-26-amd64"), "x");
        assert_eq!(m.attr_size, 112);
        assert!(!m.features.iter().any(|f| f == "cgroup"));
    }
}
