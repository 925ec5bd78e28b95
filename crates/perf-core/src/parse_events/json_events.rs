// SPDX-License-Identifier: GPL-2.0-only
//! The JSON events of the CPU's pmu-events table that belong to a PMU, as
//! perf's `pmu_add_cpu_aliases()` adds them: the core PMU gets the events
//! without a PMU (`default_core`), another PMU those naming it, with or
//! without its `_N` suffix (`uncore_imc` on `uncore_imc_0`).

use super::event_info_format::{alias_name, format_g, terms_str};
use super::pmu_events::{PmuEventInfo, KERNEL_PMU_EVENT};
use super::sysfs::{Pmu, PmuAlias};
use crate::pmu_events::{cpu_table, PmuEvent};

/// Whether the table's `event` is one of `pmu`'s.
fn belongs_to(pmu: &Pmu, event: &PmuEvent) -> bool {
    match event.pmu.as_deref() {
        None | Some("default_core") => pmu.is_core,
        Some(name) => {
            pmu.name == name
                || pmu.name.strip_prefix(name).is_some_and(|rest| {
                    rest.strip_prefix('_')
                        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                })
        }
    }
}

/// A `ScaleUnit` split as perf's strtod splits it: (scale, unit).
fn split_scale_unit(text: &str) -> (&str, &str) {
    // strtod: the longest prefix that is a number.
    let split = (1..=text.len())
        .rev()
        .find(|&i| text.is_char_boundary(i) && text[..i].trim_start().parse::<f64>().is_ok())
        .unwrap_or(0);
    text.split_at(split)
}

/// perf's `%G%s` of a `ScaleUnit` (`64Bytes`: scale 64, unit `Bytes`), when
/// the unit is set or the scale is not 1.
fn scale_unit(text: &str) -> Option<String> {
    let (number, unit) = split_scale_unit(text);
    let scale = number.parse::<f64>().unwrap_or(1.0);
    #[allow(clippy::float_cmp)] // perf compares with 1.0 exactly
    let default_scale = scale == 1.0;
    (!unit.is_empty() || !default_scale).then(|| format!("{}{unit}", format_g(scale)))
}

fn info(pmu: &Pmu, e: &PmuEvent) -> PmuEventInfo {
    let terms = terms_str(&e.event);
    // An event without a description is listed as `pmu/name/`, as a sysfs
    // alias is (a core PMU: by its own name, `pmu/name/` in `alias`).
    let (name, alias) = match (&e.desc, pmu.is_core) {
        (Some(_), _) => (e.name.clone(), None),
        (None, true) => (
            e.name.clone(),
            Some(alias_name(&pmu.name, &e.name, &e.event)),
        ),
        (None, false) => (alias_name(&pmu.name, &e.name, &e.event), None),
    };
    PmuEventInfo {
        name,
        alias,
        scale_unit: e.unit.as_deref().and_then(scale_unit),
        desc: e.desc.clone(),
        long_desc: e.long_desc.clone().or_else(|| e.desc.clone()),
        encoding_desc: Some(format!("{}/{terms}/", pmu.name)),
        topic: Some(e.topic.clone()),
        event_type_desc: KERNEL_PMU_EVENT,
        str_: Some(terms),
        deprecated: e.deprecated,
    }
}

/// Adds the JSON events of `pmu` to `out` (its sysfs aliases): an event
/// named like an alias gives it its descriptions and topic, as perf updates
/// the alias, and is not listed again.
pub fn add_json_events(pmu: &Pmu, out: &mut Vec<PmuEventInfo>) {
    let Some(table) = cpu_table() else {
        return;
    };
    for e in table.events.iter().filter(|e| belongs_to(pmu, e)) {
        // The entry pmu_events.rs made for a sysfs alias of that name.
        let sysfs_name = pmu.alias(&e.name).map(|a| {
            if pmu.is_core {
                a.name.clone()
            } else {
                alias_name(&pmu.name, &a.name, &a.terms)
            }
        });
        match sysfs_name.and_then(|n| out.iter_mut().find(|i| i.name == n)) {
            Some(existing) => {
                existing.desc = e.desc.clone();
                existing.long_desc = e.long_desc.clone().or_else(|| e.desc.clone());
                existing.topic = Some(e.topic.clone());
            }
            None => out.push(info(pmu, e)),
        }
    }
}

/// Adds the JSON events of `pmu` to its aliases, where sysfs has none of
/// that name, so that the parser takes `inst_retired.any` and
/// `cpu/inst_retired.any/` as perf does (the alias's terms are the
/// encoding jevents.py built; `ScaleUnit` gives scale and unit).
pub fn add_json_aliases(pmu: &mut Pmu) {
    let Some(table) = cpu_table() else {
        return;
    };
    let json: Vec<PmuAlias> = table
        .events
        .iter()
        .filter(|e| belongs_to(pmu, e) && pmu.alias(&e.name).is_none())
        .map(|e| {
            let (scale, unit) = e.unit.as_deref().map_or(("", ""), split_scale_unit);
            PmuAlias {
                name: e.name.clone(),
                terms: e.event.clone(),
                scale: (!scale.is_empty()).then(|| scale.to_owned()),
                unit: (!unit.is_empty()).then(|| unit.to_owned()),
            }
        })
        .collect();
    pmu.aliases.extend(json);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_units() {
        assert_eq!(scale_unit("64Bytes").as_deref(), Some("64Bytes"));
        assert_eq!(scale_unit("1per_sec").as_deref(), Some("1per_sec"));
        assert_eq!(
            scale_unit("6.103515625e-5MiB").as_deref(),
            Some("6.10352E-05MiB")
        );
        assert_eq!(scale_unit("1").as_deref(), None);
        assert_eq!(scale_unit("100%").as_deref(), Some("100%"));
        assert_eq!(scale_unit("1events").as_deref(), Some("1events"));
        assert_eq!(scale_unit("MiB").as_deref(), Some("1MiB"));
    }
}
