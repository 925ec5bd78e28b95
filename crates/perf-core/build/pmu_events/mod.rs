// SPDX-License-Identifier: GPL-2.0-only
//! perf's pmu-events tables (tools/perf/pmu-events/jevents.py's work): the
//! JSON files of the architectures this build carries, per model directory
//! of mapfile.csv, turned into the strings jevents.py keeps, each model
//! zstd-compressed into one blob (`pmu-events.bin`) and indexed by
//! `pmu_events.rs`. A build without a kernel source gets empty tables.

mod json;
#[path = "../../src/pmu_events/layout.rs"]
mod layout;
mod source;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use json::{JsonEvent, Style};

/// The architectures carried: $PERF_PMU_EVENTS_ARCH (`all` or one of
/// perf's arch directory names), else the target's, as perf's build.
fn arches(pmu_events: &Path) -> Vec<String> {
    println!("cargo:rerun-if-env-changed=PERF_PMU_EVENTS_ARCH");
    let wanted = std::env::var("PERF_PMU_EVENTS_ARCH")
        .ok()
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| {
            match std::env::var("CARGO_CFG_TARGET_ARCH")
                .unwrap_or_default()
                .as_str()
            {
                "x86_64" | "x86" => "x86",
                "aarch64" => "arm64",
                "powerpc64" | "powerpc" => "powerpc",
                "s390x" => "s390",
                "riscv64" => "riscv",
                other => other,
            }
            .to_owned()
        });
    let mut all: Vec<String> = std::fs::read_dir(pmu_events.join("arch"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|a| {
                    a != "test"
                        && pmu_events
                            .join("arch")
                            .join(a)
                            .join("mapfile.csv")
                            .is_file()
                })
                .collect()
        })
        .unwrap_or_default();
    all.sort();
    all.retain(|a| wanted == "all" || *a == wanted);
    all
}

fn read_json(path: &Path) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let value: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match value {
        serde_json::Value::Array(items) => items
            .into_iter()
            .filter_map(|v| match v {
                serde_json::Value::Object(m) => Some(m),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn json_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
                .filter(|p| p.file_name().is_some_and(|n| n != "metricgroups.json"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// jevents.py's `get_topic`.
fn topic(file: &Path) -> String {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if name.ends_with("metrics.json") {
        return "metrics".to_owned();
    }
    name.strip_suffix(".json")
        .unwrap_or(&name)
        .replace('-', " ")
}

/// One model directory encoded as layout.rs says.
fn encode_model(style: Style, dir: &Path, std: &HashMap<String, JsonEvent>) -> Vec<u8> {
    let (mut events, mut metrics) = (Vec::new(), Vec::new());
    for file in json_files(dir) {
        println!("cargo:rerun-if-changed={}", file.display());
        let topic = topic(&file);
        for jd in read_json(&file) {
            let mut e = json::convert(style, &jd, std);
            e.fields.insert("topic", topic.clone());
            // An object with both names is in both tables, as jevents.py
            // (from 6.3) splits them.
            if e.is_metric() {
                metrics.push(e.clone());
            }
            if e.get("name").is_some() {
                events.push(e);
            }
        }
    }
    let mut out = Vec::new();
    out.extend_from_slice(
        &u32::try_from(events.len())
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    out.extend_from_slice(
        &u32::try_from(metrics.len())
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    assert_eq!(out.len(), layout::HEADER_LEN);
    for (list, fields) in [
        (&events, layout::EVENT_FIELDS),
        (&metrics, layout::METRIC_FIELDS),
    ] {
        for e in list {
            for f in fields {
                let v = e.get(f).unwrap_or("");
                assert!(!v.contains('\0'), "NUL in {f} of {}", dir.display());
                out.extend_from_slice(v.as_bytes());
                out.push(0);
            }
        }
    }
    out
}

fn compress(raw: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; zstd_safe::compress_bound(raw.len())];
    let n = zstd_safe::compress(&mut out[..], raw, 19)
        .unwrap_or_else(|e| panic!("zstd: {}", zstd_safe::get_error_name(e)));
    out.truncate(n);
    out
}

/// Writes pmu_events.rs and pmu-events.bin into `out_dir`.
pub fn generate(workspace: &Path, out_dir: &Path) {
    let source = source::chosen();
    let mut rs =
        String::from("// Generated by build.rs from perf's pmu-events JSON; do not edit.\n");
    let mut blob: Vec<u8> = Vec::new();
    let (mut maps, mut models) = (String::new(), String::new());
    if let Some(source) = &source {
        let dir = source::pmu_events_dir(source, workspace, out_dir);
        let style = match std::fs::read_to_string(dir.join("jevents.py")) {
            Ok(text) if !text.contains("default_core") => Style::Old,
            _ => Style::New,
        };
        let mut model_index: HashMap<String, usize> = HashMap::new();
        for arch in arches(&dir) {
            let archdir = dir.join("arch").join(&arch);
            let mut std: HashMap<String, JsonEvent> = HashMap::new();
            for file in json_files(&archdir) {
                for jd in read_json(&file) {
                    let e = json::convert(style, &jd, &HashMap::new());
                    for key in ["name", "metric_name"] {
                        if let Some(name) = e.get(key) {
                            std.insert(name.to_lowercase(), e.clone());
                        }
                    }
                }
            }
            let mapfile = std::fs::read_to_string(archdir.join("mapfile.csv")).unwrap_or_default();
            for line in mapfile.lines().skip_while(|l| l.starts_with('#')).skip(1) {
                let row: Vec<&str> = line.split(',').collect();
                if row.len() < 3 || row[0].starts_with('#') || row[0].is_empty() {
                    continue;
                }
                let model_dir = archdir.join(row[2]);
                if !model_dir.is_dir() {
                    continue;
                }
                let key = format!("{arch}/{}", row[2]);
                let index = match model_index.get(&key) {
                    Some(i) => *i,
                    None => {
                        let raw = encode_model(style, &model_dir, &std);
                        let packed = compress(&raw);
                        let i = model_index.len();
                        let _ = writeln!(
                            models,
                            "    Model {{ name: {:?}, offset: {}, len: {}, raw_len: {} }},",
                            row[2],
                            blob.len(),
                            packed.len(),
                            raw.len()
                        );
                        blob.extend_from_slice(&packed);
                        model_index.insert(key, i);
                        i
                    }
                };
                let _ = writeln!(
                    maps,
                    "    MapEntry {{ arch: {arch:?}, cpuid: {:?}, version: {:?}, model: {index} }},",
                    row[0],
                    row.get(1).copied().unwrap_or("")
                );
            }
        }
    }
    let _ = writeln!(rs, "/// The kernel source the tables were built from.");
    let _ = writeln!(rs, "pub(super) const SOURCE: Option<&str> = {source:?};");
    let _ = writeln!(rs, "pub(super) static MAPFILE: &[MapEntry] = &[\n{maps}];");
    let _ = writeln!(rs, "pub(super) static MODELS: &[Model] = &[\n{models}];");
    let _ = writeln!(
        rs,
        "pub(super) static BLOB: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/pmu-events.bin\"));"
    );
    for (name, data) in [("pmu_events.rs", rs.into_bytes()), ("pmu-events.bin", blob)] {
        let path = out_dir.join(name);
        std::fs::write(&path, data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}
