// SPDX-License-Identifier: GPL-2.0-only
//! A PMU's events as perf's `perf_pmu__for_each_event()` describes them
//! (`struct pmu_event_info`): sysfs aliases, the built-in software and tool
//! events, the JSON events of the CPU's pmu-events table (json_events.rs),
//! and one entry per tracefs event for the tracepoint PMU.

use perf_event_open_sys::bindings as b;

use super::builtin_pmus::{BuiltinEvent, SOFTWARE_EVENTS, TOOL_EVENTS};
use super::event_info_format::{alias_name, format_g, terms_str};
use super::symbols::symbol;
use super::sysfs::{Pmu, PmuAlias};
use crate::error::Result;
use crate::tool_evsel::TOOL_PMU_TYPE;
use crate::tracefs::Tracefs;

/// perf's `struct pmu_event_info`; `None` where perf leaves the pointer
/// NULL.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PmuEventInfo {
    /// The event's name (`cpu-clock`, `msr/tsc/`, `sched:sched_switch`).
    pub name: String,
    /// A core PMU's `pmu/alias/` for a sysfs alias listed by its own name.
    pub alias: Option<String>,
    /// `%G` of the scale followed by the unit, when either is not the default.
    pub scale_unit: Option<String>,
    /// Short description (built-in events).
    pub desc: Option<String>,
    /// Long description (built-in events: the short one; tracepoints: the
    /// format file, tabs made spaces).
    pub long_desc: Option<String>,
    /// `pmu/terms/`, or `tracepoint/config=0x<id>/`.
    pub encoding_desc: Option<String>,
    /// The JSON topic (`software`, `tool`).
    pub topic: Option<String>,
    /// `Kernel PMU event` or `Tracepoint event`.
    pub event_type_desc: &'static str,
    /// The terms, as perf prints them.
    pub str_: Option<String>,
    /// A deprecated JSON event (none of the built-in ones is).
    pub deprecated: bool,
}

pub(super) const KERNEL_PMU_EVENT: &str = "Kernel PMU event";

/// The events of `pmu`, sorted by name (perf: hash or `readdir` order).
/// `tracefs` is used for the tracepoint PMU only.
///
/// # Errors
/// For the tracepoint PMU, [`Tracefs::events`]' errors.
pub fn pmu_events(pmu: &Pmu, tracefs: Option<&Tracefs>) -> Result<Vec<PmuEventInfo>> {
    let mut out: Vec<PmuEventInfo> = match pmu.type_ {
        b::PERF_TYPE_TRACEPOINT => match tracefs {
            Some(t) => tracepoint_events(t)?,
            None => Vec::new(),
        },
        TOOL_PMU_TYPE => builtin(
            pmu,
            TOOL_EVENTS.iter().map(|(ev, e)| (*ev as u64, e)),
            "tool",
        ),
        b::PERF_TYPE_SOFTWARE => builtin(
            pmu,
            SOFTWARE_EVENTS
                .iter()
                .filter_map(|e| symbol(e.0).map(|(_, config)| (config, e))),
            "software",
        ),
        _ => Vec::new(),
    };
    if pmu.type_ != b::PERF_TYPE_TRACEPOINT {
        out.extend(pmu.aliases.iter().map(|a| sysfs_alias(pmu, a)));
        super::json_events::add_json_events(pmu, &mut out);
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// A JSON event: listed by name, with its description as the long one too.
fn builtin<'a>(
    pmu: &Pmu,
    events: impl Iterator<Item = (u64, &'a BuiltinEvent)>,
    topic: &str,
) -> Vec<PmuEventInfo> {
    events
        .map(|(config, &(name, desc, scale_unit))| {
            let terms = terms_str(&format!("config={config}"));
            PmuEventInfo {
                name: name.to_owned(),
                scale_unit: scale_unit.map(str::to_owned),
                desc: Some(desc.to_owned()),
                long_desc: Some(desc.to_owned()),
                encoding_desc: Some(format!("{}/{terms}/", pmu.name)),
                topic: Some(topic.to_owned()),
                event_type_desc: KERNEL_PMU_EVENT,
                str_: Some(terms),
                ..PmuEventInfo::default()
            }
        })
        .collect()
}

/// A sysfs alias: `pmu/alias/` (a core PMU: the alias's own name, with
/// `pmu/alias/` as `alias`).
fn sysfs_alias(pmu: &Pmu, a: &PmuAlias) -> PmuEventInfo {
    let formatted = alias_name(&pmu.name, &a.name, &a.terms);
    let (name, alias) = if pmu.is_core {
        (a.name.clone(), Some(formatted))
    } else {
        (formatted, None)
    };
    let terms = terms_str(&a.terms);
    PmuEventInfo {
        name,
        alias,
        scale_unit: scale_unit(a),
        encoding_desc: Some(format!("{}/{terms}/", pmu.name)),
        event_type_desc: KERNEL_PMU_EVENT,
        str_: Some(terms),
        ..PmuEventInfo::default()
    }
}

/// perf's `"%G%s"` of scale and unit, when the unit is set or the scale is
/// not 1 (a scale file that is no number counts as 0, as `strtod`).
fn scale_unit(a: &PmuAlias) -> Option<String> {
    let unit = a.unit.as_deref().unwrap_or("");
    let scale = a
        .scale
        .as_deref()
        .map_or(1.0, |s| s.parse::<f64>().unwrap_or(0.0));
    #[allow(clippy::float_cmp)] // perf compares with 1.0 exactly
    let default_scale = scale == 1.0;
    (!unit.is_empty() || !default_scale).then(|| format!("{}{unit}", format_g(scale)))
}

/// One entry per tracefs event (`tp_pmu__for_each_event()`).
fn tracepoint_events(t: &Tracefs) -> Result<Vec<PmuEventInfo>> {
    Ok(t.events()?
        .into_iter()
        .map(|(sys, name)| {
            let dir = t.event_dir(&sys, &name).ok();
            let id = t.tracepoint_id(&sys, &name).ok();
            let format = dir
                .and_then(|d| std::fs::read_to_string(d.join("format")).ok())
                .map(|f| f.replace('\t', " "));
            PmuEventInfo {
                name: format!("{sys}:{name}"),
                long_desc: format,
                encoding_desc: id.map(|id| format!("tracepoint/config={id:#x}/")),
                event_type_desc: "Tracepoint event",
                ..PmuEventInfo::default()
            }
        })
        .collect())
}
