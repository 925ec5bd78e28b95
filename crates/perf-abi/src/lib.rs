// SPDX-License-Identifier: GPL-2.0-only
//! Kernel-release and `perf_event_attr` ABI identity.
//!
//! Pure data and parsing: no I/O, no unsafe. The running kernel's release and
//! probe results come in from callers.
//!
//! * [`KernelRelease`]: `uname -r` → ABI and flavour (never fails).
//! * [`KernelVersion`]: the numeric `X.Y.Z`.
//! * [`FeatureTable`]: which attr field or bit each release added, and the attr
//!   size by release (`data/features.toml`).
//! * [`BuildManifest`]: the TOML stamped beside each per-ABI build.
//! * [`choose_source`]: the kernel source a build takes perf's pmu-events
//!   tables from.
//! * [`markdown`]: the table as Markdown for docs/abi.md.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod features;
mod manifest;
pub mod markdown;
mod pmu_events_source;
mod release;
mod version;

pub use features::{AttrSizeStep, Feature, FeatureKind, FeatureTable, Reserved};
pub use manifest::{BuildManifest, MANIFEST_FILE};
pub use pmu_events_source::{
    choose_source, source_series, PMU_EVENTS_SOURCE_DIR, PMU_EVENTS_SOURCE_ENV,
};
pub use release::KernelRelease;
pub use version::KernelVersion;
