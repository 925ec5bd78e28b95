// SPDX-License-Identifier: GPL-2.0-only
//! One JSON event of a pmu-events table (perf's `struct pmu_event`).

/// An event as jevents.py stores it: the strings of its JSON object after
/// jevents.py's rewriting (names lower-cased, the encoding built from
/// `EventCode`, `UMask`, …, descriptions without their final period).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PmuEvent {
    /// `EventName`, lower case.
    pub name: String,
    /// The encoding as terms of the PMU's format (`event=0xc0,period=2000003`).
    pub event: String,
    /// `BriefDescription`.
    pub desc: Option<String>,
    /// `PublicDescription`.
    pub long_desc: Option<String>,
    /// The file the event is in (`cache`, `pipeline`, `uncore memory`).
    pub topic: String,
    /// The PMU from `Unit` (`uncore_imc`, `cpu_core`); `default_core` or
    /// `None` (tables up to 6.1) for the core PMU.
    pub pmu: Option<String>,
    /// `ScaleUnit` (`64Bytes`).
    pub unit: Option<String>,
    /// `PerPkg`.
    pub perpkg: bool,
    /// `AggregationMode` (1 per chip, 2 per core).
    pub aggr_mode: Option<u8>,
    /// `Deprecated`.
    pub deprecated: bool,
    /// `Compat`.
    pub compat: Option<String>,
}
