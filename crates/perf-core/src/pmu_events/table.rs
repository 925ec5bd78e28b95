// SPDX-License-Identifier: GPL-2.0-only
//! The tables built into this library (build.rs), decompressed per model on
//! first use and kept for the life of the process.

use std::sync::OnceLock;

use super::event::PmuEvent;
use super::layout::{EVENT_FIELDS, HEADER_LEN, METRIC_FIELDS};
use super::mapfile::MapEntry;
use crate::metric::MetricDef;

/// One model directory's table in [`BLOB`].
pub(super) struct Model {
    /// The mapfile's directory (`sapphirerapids`, `arm/cortex-a76-n1`).
    pub name: &'static str,
    offset: usize,
    len: usize,
    raw_len: usize,
}

include!(concat!(env!("OUT_DIR"), "/pmu_events.rs"));

/// The events and metrics of one CPU model.
#[derive(Debug, Default)]
pub struct PmuEventsTable {
    /// The model's directory in perf's `arch/<arch>/`.
    pub name: &'static str,
    /// The events, in the files' order.
    pub events: Vec<PmuEvent>,
    /// The metrics, in the files' order.
    pub metrics: Vec<MetricDef>,
}

/// The model rows of the mapfiles this build carries.
pub fn mapfile() -> &'static [MapEntry] {
    MAPFILE
}

/// The kernel source the tables come from (`None`: a build without one).
pub fn source() -> Option<&'static str> {
    SOURCE
}

/// The table of model `index` (`MapEntry::model`); `None` for a bad index
/// or a damaged blob.
pub fn model_table(index: usize) -> Option<&'static PmuEventsTable> {
    static CACHE: OnceLock<Vec<OnceLock<Option<PmuEventsTable>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| MODELS.iter().map(|_| OnceLock::new()).collect());
    cache
        .get(index)?
        .get_or_init(|| decode(MODELS.get(index)?))
        .as_ref()
}

fn decode(model: &Model) -> Option<PmuEventsTable> {
    let packed = BLOB.get(model.offset..model.offset.checked_add(model.len)?)?;
    let mut raw = vec![0u8; model.raw_len];
    let n = zstd_safe::decompress(&mut raw[..], packed).ok()?;
    raw.truncate(n);
    let counts = raw.get(..HEADER_LEN)?;
    let nr_events = u32::from_le_bytes(counts[..4].try_into().ok()?) as usize;
    let nr_metrics = u32::from_le_bytes(counts[4..].try_into().ok()?) as usize;
    let text = std::str::from_utf8(raw.get(HEADER_LEN..)?).ok()?;
    let mut strings = text.split('\0');
    let mut record = |n: usize| -> Option<Vec<&str>> { (0..n).map(|_| strings.next()).collect() };
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    let mut events = Vec::with_capacity(nr_events);
    for _ in 0..nr_events {
        let f = record(EVENT_FIELDS.len())?;
        events.push(PmuEvent {
            name: f[0].to_owned(),
            event: f[1].to_owned(),
            desc: opt(f[2]),
            long_desc: opt(f[3]),
            topic: f[4].to_owned(),
            pmu: opt(f[5]),
            unit: opt(f[6]),
            perpkg: f[7] == "1",
            aggr_mode: f[8].parse().ok(),
            deprecated: f[9] == "1",
            compat: opt(f[10]),
        });
    }
    let mut metrics = Vec::with_capacity(nr_metrics);
    for _ in 0..nr_metrics {
        let f = record(METRIC_FIELDS.len())?;
        metrics.push(MetricDef {
            name: f[0].to_owned(),
            groups: f[1]
                .split(';')
                .filter(|g| !g.is_empty())
                .map(str::to_owned)
                .collect(),
            expr: f[2].to_owned(),
            threshold: opt(f[3]),
            scale_unit: opt(f[4]),
            pmu: opt(f[5]),
            compat: opt(f[6]),
            brief: opt(f[7]),
            public: opt(f[8]),
            constraint: opt(f[9]),
            no_group: opt(f[10]),
            default_group: opt(f[11]),
        });
    }
    Some(PmuEventsTable {
        name: model.name,
        events,
        metrics,
    })
}
