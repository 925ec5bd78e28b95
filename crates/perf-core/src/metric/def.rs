// SPDX-License-Identifier: GPL-2.0-only
//! One metric as perf's pmu-events tables hold it: the fields jevents.py
//! reads from a metric's JSON object (`MetricName`, `MetricExpr`, …).

/// A metric definition. `expr` and `threshold` are in perf's expression
/// language as the table has them (escapes such as `\-` and `@` intact).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MetricDef {
    /// `MetricName`.
    pub name: String,
    /// `MetricGroup`, split on `;` (empty when the table has none).
    pub groups: Vec<String>,
    /// `MetricExpr`.
    pub expr: String,
    /// `MetricThreshold`.
    pub threshold: Option<String>,
    /// `ScaleUnit`, e.g. `"100%"` or `"1per_sec"`.
    pub scale_unit: Option<String>,
    /// `Unit` in the JSON: the PMU the metric's events are on (`"cpu"` by
    /// default in perf's tables, `"cpu_core"`/`"cpu_atom"` on hybrid parts).
    pub pmu: Option<String>,
    /// `Compat`.
    pub compat: Option<String>,
    /// `BriefDescription`.
    pub brief: Option<String>,
    /// `PublicDescription`.
    pub public: Option<String>,
    /// `MetricConstraint` (`NO_GROUP_EVENTS`, `NO_GROUP_EVENTS_NMI`,
    /// `NO_GROUP_EVENTS_SMT`, `NO_THRESHOLD_AND_NMI`).
    pub constraint: Option<String>,
    /// `MetricgroupNoGroup`: groups whose events are not to be grouped.
    pub no_group: Option<String>,
    /// `DefaultMetricgroupName`.
    pub default_group: Option<String>,
}
