// SPDX-License-Identifier: GPL-2.0-only
//! One JSON object of a pmu-events file turned into the strings perf's
//! jevents.py stores (`JsonEvent.__init__`), in the rules of the source's
//! own jevents.py: `Old` up to 6.1, `New` from the release where a JSON
//! event without a Unit is on `default_core`.

use std::collections::HashMap;

use serde_json::{Map, Value};

/// Which jevents.py's rules apply.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Old,
    New,
}

/// The attributes jevents.py keeps, by its names (`None`: absent).
#[derive(Clone, Default)]
pub struct JsonEvent {
    pub fields: HashMap<&'static str, String>,
}

impl JsonEvent {
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }
    fn set(&mut self, key: &'static str, value: Option<String>) {
        match value {
            Some(v) if !v.is_empty() => {
                self.fields.insert(key, v);
            }
            _ => {
                self.fields.remove(key);
            }
        }
    }
    pub fn is_metric(&self) -> bool {
        self.get("metric_name").is_some()
    }
}

fn str_of(jd: &Map<String, Value>, key: &str) -> Option<String> {
    match jd.get(key)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(if *b { "1" } else { "0" }.to_owned()),
        _ => None,
    }
}

/// Python's `int(s, 0)`, for the numbers the tables hold.
fn int0(s: &str) -> i64 {
    let s = s.trim();
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        i64::from_str_radix(h, 16)
    } else {
        s.parse()
    }
    .unwrap_or_else(|_| panic!("not a number: {s:?}"));
    if neg {
        -v
    } else {
        v
    }
}

fn fixdesc(s: Option<String>) -> Option<String> {
    let mut s = s?;
    for suffix in [".  ", ". ", "."] {
        if let Some(stripped) = s.strip_suffix(suffix) {
            s = stripped.to_owned();
        }
    }
    Some(s)
}

fn llx(style: Style, x: i64) -> String {
    match style {
        Style::Old if x == 0 => "0".to_owned(),
        Style::New if (0..10).contains(&x) => x.to_string(),
        _ => format!("{x:#x}"),
    }
}

fn unit_to_pmu(style: Style, unit: Option<&str>) -> Option<String> {
    let Some(unit) = unit.filter(|u| !u.is_empty()) else {
        return (style == Style::New).then(|| "default_core".to_owned());
    };
    let table: &[(&str, &str)] = &[
        ("CBO", "uncore_cbox"),
        ("QPI LL", "uncore_qpi"),
        ("SBO", "uncore_sbox"),
        ("iMPH-U", "uncore_arb"),
        ("CPU-M-CF", "cpum_cf"),
        ("CPU-M-SF", "cpum_sf"),
        ("PAI-CRYPTO", "pai_crypto"),
        ("PAI-EXT", "pai_ext"),
        ("UPI LL", "uncore_upi"),
        ("hisi_sicl,cpa", "hisi_sicl,cpa"),
        ("hisi_sccl,ddrc", "hisi_sccl,ddrc"),
        ("hisi_sccl,hha", "hisi_sccl,hha"),
        ("hisi_sccl,l3c", "hisi_sccl,l3c"),
        ("imx8_ddr", "imx8_ddr"),
        ("imx9_ddr", "imx9_ddr"),
        ("L3PMC", "amd_l3"),
        ("DFPMC", "amd_df"),
        ("UMCPMC", "amd_umc"),
        ("cpu_core", "cpu_core"),
        ("cpu_atom", "cpu_atom"),
        ("ali_drw", "ali_drw"),
        ("arm_cmn", "arm_cmn"),
    ];
    Some(table.iter().find(|(u, _)| *u == unit).map_or_else(
        || format!("uncore_{}", unit.to_lowercase()),
        |(_, p)| (*p).to_owned(),
    ))
}

fn lookup_msr(num: Option<&str>) -> Option<&'static str> {
    let first = int0(num?.split(',').next()?);
    Some(match first {
        0x3F6 => "ldlat=",
        0x1A6 | 0x1A7 => "offcore_rsp=",
        0x3F7 => "frontend=",
        _ => panic!("unknown MSRIndex {first:#x}"),
    })
}

fn real_event(name: Option<&str>, event: String) -> Option<String> {
    let fixed = [
        ("inst_retired.any", "event=0xc0,period=2000003"),
        ("inst_retired.any_p", "event=0xc0,period=2000003"),
        (
            "cpu_clk_unhalted.ref",
            "event=0x0,umask=0x03,period=2000003",
        ),
        ("cpu_clk_unhalted.thread", "event=0x3c,period=2000003"),
        ("cpu_clk_unhalted.core", "event=0x3c,period=2000003"),
        (
            "cpu_clk_unhalted.thread_any",
            "event=0x3c,any=1,period=2000003",
        ),
    ];
    let name = name?.to_lowercase();
    Some(
        fixed
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(event, |(_, e)| (*e).to_owned()),
    )
}

/// The event-encoding fields of the JSON (key, term) for a style.
fn event_fields(style: Style) -> &'static [(&'static str, &'static str)] {
    const OLD: &[(&str, &str)] = &[
        ("AnyThread", "any="),
        ("PortMask", "ch_mask="),
        ("CounterMask", "cmask="),
        ("EdgeDetect", "edge="),
        ("FCMask", "fc_mask="),
        ("Invert", "inv="),
        ("SampleAfterValue", "period="),
        ("UMask", "umask="),
    ];
    const NEW: &[(&str, &str)] = &[
        ("AnyThread", "any="),
        ("PortMask", "ch_mask="),
        ("CounterMask", "cmask="),
        ("EdgeDetect", "edge="),
        ("FCMask", "fc_mask="),
        ("Invert", "inv="),
        ("SampleAfterValue", "period="),
        ("UMask", "umask="),
        ("NodeType", "type="),
        ("RdWrMask", "rdwrmask="),
        ("EnAllCores", "enallcores="),
        ("EnAllSlices", "enallslices="),
        ("SliceId", "sliceid="),
        ("ThreadMask", "threadmask="),
    ];
    match style {
        Style::Old => OLD,
        Style::New => NEW,
    }
}

/// `canonicalize_value` of the newer jevents.py.
fn canonical(style: Style, v: &str) -> String {
    match style {
        Style::Old => v.to_owned(),
        Style::New => match v.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16).map_or_else(|_| v.to_owned(), |x| llx(style, x)),
            None => v
                .parse::<i64>()
                .map_or_else(|_| v.to_owned(), |x| x.to_string()),
        },
    }
}

fn is_zero(style: Style, v: &str) -> bool {
    match style {
        Style::Old => v == "0",
        Style::New => match v.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16) == Ok(0),
            None => v.parse::<i64>() == Ok(0),
        },
    }
}

/// `JsonEvent(jd)`, with `std` the architecture's standard events
/// (`ArchStdEvent`), lower-case names as keys.
pub fn convert(
    style: Style,
    jd: &Map<String, Value>,
    std: &HashMap<String, JsonEvent>,
) -> JsonEvent {
    let s = |k: &str| str_of(jd, k);
    let mut e = JsonEvent::default();
    let mut eventcode = s("EventCode").map_or(0, |c| int0(c.split(',').next().unwrap_or("0")));
    if let Some(ext) = s("ExtSel") {
        eventcode |= int0(&ext) << 8;
    }
    let configcode = s("ConfigCode").map(|c| int0(&c));
    let eventidcode = s("EventidCode")
        .map(|c| int0(&c))
        .filter(|_| style == Style::New);
    let name = s("EventName").map(|n| n.to_lowercase());
    e.set("name", name.clone());
    e.set("compat", s("Compat"));
    let mut desc = fixdesc(s("BriefDescription"));
    let mut long_desc = fixdesc(s("PublicDescription"));
    let precise = s("PEBS");
    let msr = lookup_msr(s("MSRIndex").as_deref());
    let msrval = s("MSRValue").unwrap_or_default();
    let mut extra = String::new();
    if jd.contains_key("Data_LA") {
        extra.push_str("  Supports address when precise");
        if jd.contains_key("Errata") {
            extra.push('.');
        }
    }
    if let Some(errata) = s("Errata") {
        extra.push_str("  Spec update: ");
        extra.push_str(&errata);
    }
    let pmu = unit_to_pmu(style, s("Unit").as_deref());
    e.set("unit", s("ScaleUnit"));
    e.set("perpkg", s("PerPkg"));
    e.set(
        "aggr_mode",
        s("AggregationMode").map(|m| match m.as_str() {
            "PerChip" => "1".to_owned(),
            "PerCore" => "2".to_owned(),
            other => panic!("unknown AggregationMode {other}"),
        }),
    );
    e.set("deprecated", s("Deprecated"));
    e.set("metric_name", s("MetricName"));
    e.set("metric_group", s("MetricGroup"));
    e.set("metricgroup_no_group", s("MetricgroupNoGroup"));
    e.set("default_metricgroup_name", s("DefaultMetricgroupName"));
    e.set("metric_constraint", s("MetricConstraint"));
    e.set("metric_expr", s("MetricExpr"));
    e.set("metric_threshold", s("MetricThreshold"));
    if let Some(p) = precise.filter(|_| {
        desc.as_deref()
            .is_some_and(|d| !d.contains("(Precise Event)"))
    }) {
        extra.push_str(if p == "2" {
            " (Must be precise)"
        } else {
            " (Precise event)"
        });
    }
    let mut event = match (configcode, eventidcode) {
        (Some(c), _) => format!("config={}", llx(style, c)),
        (None, Some(id)) => format!("eventid={}", llx(style, id)),
        (None, None) => format!("event={}", llx(style, eventcode)),
    };
    for (key, term) in event_fields(style) {
        if let Some(v) = s(key).filter(|v| !is_zero(style, v)) {
            event.push(',');
            event.push_str(term);
            event.push_str(&canonical(style, &v));
        }
    }
    if let Some(filter) = s("Filter").filter(|f| !f.is_empty()) {
        event.push(',');
        event.push_str(&filter);
    }
    if let Some(msr) = msr {
        event.push(',');
        event.push_str(msr);
        event.push_str(&msrval);
    }
    if !extra.is_empty() {
        if let Some(d) = desc.as_mut() {
            d.push_str(&extra);
        }
        if let Some(d) = long_desc.as_mut() {
            d.push_str(&extra);
        }
    }
    if style == Style::Old {
        if let Some(p) = &pmu {
            let mut d = desc.unwrap_or_default();
            if !d.is_empty() && !d.ends_with(". ") {
                d.push_str(". ");
            }
            d.push_str("Unit: ");
            d.push_str(p);
            d.push(' ');
            desc = Some(d);
        }
    }
    e.set("desc", desc);
    e.set("long_desc", long_desc);
    e.set("pmu", pmu);
    if let Some(arch_std) = s("ArchStdEvent") {
        match std.get(&arch_std.to_lowercase()) {
            Some(base) => {
                if let Some(ev) = base.get("event") {
                    event = ev.to_owned();
                }
                for (k, v) in &base.fields {
                    if *k != "event" && e.get(k).is_none() {
                        e.fields.insert(k, v.clone());
                    }
                }
            }
            None if style == Style::New => panic!("Cannot find arch std event: {arch_std}"),
            None => {}
        }
    }
    let name = e.get("name").map(str::to_owned);
    e.set("event", real_event(name.as_deref(), event));
    e
}
