// SPDX-License-Identifier: GPL-2.0-only
//! The layout of one model's table, shared by build.rs (which writes it) and
//! the reader: a little-endian u32 count of events, one of metrics, then per
//! event [`EVENT_FIELDS`] strings and per metric [`METRIC_FIELDS`] strings,
//! each ended by a NUL (an empty string is an absent field), as jevents.py's
//! big C string holds them.

/// The fields of an event, in order (jevents.py's attribute names).
pub const EVENT_FIELDS: &[&str] = &[
    "name",
    "event",
    "desc",
    "long_desc",
    "topic",
    "pmu",
    "unit",
    "perpkg",
    "aggr_mode",
    "deprecated",
    "compat",
];

/// The fields of a metric, in order.
pub const METRIC_FIELDS: &[&str] = &[
    "metric_name",
    "metric_group",
    "metric_expr",
    "metric_threshold",
    "unit",
    "pmu",
    "compat",
    "desc",
    "long_desc",
    "metric_constraint",
    "metricgroup_no_group",
    "default_metricgroup_name",
];

/// Bytes before the strings: the two counts.
pub const HEADER_LEN: usize = 8;
