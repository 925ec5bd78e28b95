// SPDX-License-Identifier: GPL-2.0-only
//! Demangling against libiberty's `cplus_demangle(name, DMGL_NO_OPTS)`,
//! the function Debian's perf 6.1 calls, over every C++ and Rust symbol of
//! the machine's shared libraries and of rustc's own libraries. Rust names
//! must all agree; C++ names agree but for the cases docs/symbols.md
//! lists, counted here.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use perf_core::symbol::demangle::cplus_demangle;

/// The C++ and Rust names `files` define: each file's symbol table, or,
/// where it gave none, its dynamic symbols. nm reads many files a run: a
/// run per file, each loading binutils' plugins (libLLVM among them), took
/// two thirds of the test's time.
fn names_of(files: &[PathBuf], out: &mut BTreeSet<String>) {
    let mut pending: Vec<&PathBuf> = files.iter().collect();
    for args in [&["--defined-only"][..], &["-D", "--defined-only"][..]] {
        let mut named = BTreeSet::new();
        for chunk in pending.chunks(256) {
            let Ok(o) = Command::new("nm")
                .arg("--print-file-name")
                .args(args)
                .args(chunk)
                .stderr(Stdio::null())
                .output()
            else {
                return;
            };
            // "<file>:<address> <type> <name>"
            for l in String::from_utf8_lossy(&o.stdout).lines() {
                let mut fields = l.split_whitespace();
                let (Some(first), Some(name)) = (fields.next(), fields.nth(1)) else {
                    continue;
                };
                let name = name.split('@').next().unwrap_or(name);
                if name.starts_with("_Z") || name.starts_with("_R") {
                    if let Some((file, _)) = first.rsplit_once(':') {
                        named.insert(file.to_owned());
                    }
                    out.insert(name.to_owned());
                }
            }
        }
        pending.retain(|f| !named.contains(&*f.to_string_lossy()));
    }
}

fn oracle(names: &[String]) -> Option<Vec<Option<String>>> {
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join("libiberty_demangle");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/symbols/libiberty_demangle.c");
    let ok = Command::new("gcc")
        .args(["-O2"])
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg("-liberty")
        .status()
        .ok()?
        .success();
    if !ok {
        return None;
    }
    let mut child = Command::new(&exe)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input: String = names.iter().map(|n| format!("{n}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    Some(
        text.lines()
            .map(|l| (l != "\u{1}").then(|| l.to_owned()))
            .collect(),
    )
}

/// A legacy Rust symbol: `_ZN…17h<16 hex>E`, maybe with a `.suffix`.
fn legacy_rust(n: &str) -> bool {
    let Some(rest) = n.strip_prefix("_ZN") else {
        return false;
    };
    let Some(end) = rest.rfind('E') else {
        return false;
    };
    let path = &rest[..end];
    path.len() > 19
        && path[path.len() - 19..].starts_with("17h")
        && path[path.len() - 16..]
            .bytes()
            .all(|b| b.is_ascii_hexdigit())
}

/// The categories docs/symbols.md explains.
fn category(name: &str, libiberty: &str, ours: &str) -> &'static str {
    let squash = |s: &str| s.chars().filter(|c| *c != ' ').collect::<String>();
    if libiberty.contains("&(") && !ours.contains("&(") {
        "address of a function in a template argument"
    } else if squash(libiberty) == squash(ours) {
        "space in a function type after a template"
    } else if name.starts_with("_ZT") || name.starts_with("_ZG") {
        "special name"
    } else {
        "other"
    }
}

#[test]
fn demangling_equals_libiberty() {
    let mut names = BTreeSet::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir("/usr/lib/x86_64-linux-gnu")
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().contains(".so"))
                .collect()
        })
        .unwrap_or_default();
    if let Ok(o) = Command::new("rustc").arg("--print").arg("sysroot").output() {
        let lib = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()).join("lib");
        if let Ok(d) = std::fs::read_dir(lib) {
            files.extend(d.filter_map(|e| e.ok().map(|e| e.path())));
        }
    }
    // A library's symlinks (libfoo.so, libfoo.so.1) name one file.
    let files: BTreeSet<PathBuf> = files.iter().filter_map(|f| f.canonicalize().ok()).collect();
    names_of(&files.into_iter().collect::<Vec<_>>(), &mut names);
    // Every Rust name, and an even sample of about 25 000 C++ names (the
    // whole corpus takes minutes in a debug build).
    let is_rust = |n: &str| n.starts_with("_R") || legacy_rust(n);
    let cxx_total = names.iter().filter(|n| !is_rust(n)).count();
    let stride = (cxx_total / 25_000).max(1);
    let names: Vec<String> = names
        .into_iter()
        .enumerate()
        .filter(|(i, n)| is_rust(n) || i % stride == 0)
        .map(|(_, n)| n)
        .collect();
    let Some(want) = oracle(&names) else {
        panic!("cannot build the libiberty oracle: install libiberty-dev (scripts/setup.sh)");
    };
    assert_eq!(want.len(), names.len());
    let (mut cxx, mut rust) = (0usize, 0usize);
    let mut diffs: BTreeMap<&str, Vec<(String, String, String)>> = BTreeMap::new();
    for (name, want) in names.iter().zip(&want) {
        let ours = cplus_demangle(name);
        let is_rust = is_rust(name);
        if is_rust {
            rust += 1;
        } else {
            cxx += 1;
        }
        if ours == *want {
            continue;
        }
        let (w, o) = (
            want.clone().unwrap_or_default(),
            ours.clone().unwrap_or_default(),
        );
        // libiberty 20230104 misprints 128-bit constants of v0 symbols
        // (`-0x0000…_`); rustc-demangle prints them right.
        let cat = if is_rust && w.contains("_>") && w.contains("0x") {
            "rust: 128-bit constant"
        } else if is_rust {
            "rust"
        } else {
            category(name, &w, &o)
        };
        diffs.entry(cat).or_default().push((name.clone(), w, o));
    }
    let total: usize = diffs.values().map(Vec::len).sum();
    eprintln!(
        "{} names ({cxx} C++ of {cxx_total}, {rust} Rust), {total} demangled differently:",
        names.len()
    );
    for (cat, v) in &diffs {
        eprintln!("  {cat}: {}", v.len());
        for (n, w, o) in v.iter().take(3) {
            eprintln!("    {n}\n      libiberty: {w}\n      ours:      {o}");
        }
    }
    assert!(!diffs.contains_key("rust"), "Rust names differ");
    assert!(names.len() > 1000, "a corpus of {} names", names.len());
    // cpp_demangle's own mistakes ("other", "special name"; see
    // docs/symbols.md) stay under 1 % of C++ names; more is a regression.
    let other =
        diffs.get("other").map_or(0, Vec::len) + diffs.get("special name").map_or(0, Vec::len);
    assert!(other * 100 <= cxx, "{other} C++ differences of {cxx}");
}
