// SPDX-License-Identifier: GPL-2.0-only
//! Symbol resolution against the real perf 6.1: each test builds a
//! workload, records it with `perf record -g`, reads the file with this
//! crate's session (its machine, maps and DSOs), resolves every sample and
//! call chain and compares every frame with what `perf script` prints for
//! the same file. Differences allowed are in docs/symbols.md.

#[path = "../common/mod.rs"]
mod common;
mod perf;
mod script;

use perf::{build, Recording, TempDir};

/// Our `perf script -F ip,sym,symoff,dso` for the recording and perf's,
/// and the names we demangled.
fn both(rec: &Recording) -> (String, String, script::Demangled) {
    both_with(rec, rec.conf(), &[])
}

/// The same with symbol sources `conf` for us and `perf_args` for perf.
fn both_with(
    rec: &Recording,
    conf: perf_core::symbol::conf::SymbolConf,
    perf_args: &[&str],
) -> (String, String, script::Demangled) {
    let (ours, demangled) = script::ip_sym_dso(&rec.data, conf);
    let mut args = vec!["-F", "ip,sym,symoff,dso"];
    args.extend_from_slice(perf_args);
    let theirs = rec.script(&args);
    (ours, theirs, demangled)
}

/// Our `perf script -F ip,srcline` for the recording and perf's.
fn both_srclines(rec: &Recording) -> (String, String) {
    let ours = script::ip_srcline(&rec.data, rec.conf());
    let theirs = rec.script(&["-F", "ip,srcline"]);
    (ours, theirs)
}

/// Asserts equal outputs, showing the first differing lines. A frame may
/// differ only where our demangler and libiberty (the demangler perf
/// calls) disagree on the same symbol-table name: with libiberty's name in
/// place of ours, the line must be perf's (docs/symbols.md lists these).
fn assert_same(what: &str, ours: &str, theirs: &str, demangled: &script::Demangled) {
    let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
    let mut demangling = 0;
    let diffs: Vec<String> = a
        .iter()
        .zip(b.iter())
        .enumerate()
        .filter(|(_, (x, y))| x != y)
        .filter(|(i, (x, y))| {
            let allowed = demangled.get(i).is_some_and(|(shown, raw)| {
                perf::libiberty_demangle(raw)
                    .is_some_and(|theirs| x.replacen(shown.as_str(), &theirs, 1) == **y)
            });
            demangling += usize::from(allowed);
            !allowed
        })
        .take(20)
        .map(|(i, (x, y))| format!("line {i}:\n  ours: {x}\n  perf: {y}"))
        .collect();
    assert!(
        diffs.is_empty() && a.len() == b.len(),
        "{what}: {} lines ours, {} perf's; differences:\n{}",
        a.len(),
        b.len(),
        diffs.join("\n")
    );
    let frames = a.iter().filter(|l| l.starts_with('\t')).count();
    eprintln!("{what}: {frames} frames equal to perf's ({demangling} differ only in demangling, as libiberty shows)");
    // cpp_demangle's rare disagreements with libiberty (under 1 % of names,
    // see the corpus test), not a demangler that went wrong.
    assert!(
        demangling <= (frames / 50).max(3),
        "{what}: {demangling} demangling differences"
    );
}

macro_rules! skip_unless_perf {
    () => {
        if let Some(why) = crate::perf::unavailable() {
            eprintln!("skipped: {why}");
            return;
        }
    };
}

mod brstack;

#[test]
fn c_o0() {
    skip_unless_perf!();
    let dir = TempDir::new("c-o0");
    let exe = build(
        &dir.0,
        "gcc",
        "work.c",
        &["-O0", "-g", "-fno-omit-frame-pointer"],
        "work",
    );
    let rec = Recording::record(dir, &[], &[exe.to_str().unwrap_or_default(), "20"]);
    let (ours, theirs, demangled) = both(&rec);
    assert_same("C -O0", &ours, &theirs, &demangled);
    let (ours, theirs) = both_srclines(&rec);
    assert!(theirs.contains("work.c:"));
    assert_same("C -O0 srclines", &ours, &theirs, &Default::default());
}

#[test]
fn c_o2_inlined() {
    skip_unless_perf!();
    let dir = TempDir::new("c-o2");
    let exe = build(
        &dir.0,
        "gcc",
        "work.c",
        &["-O2", "-g", "-fno-omit-frame-pointer"],
        "work",
    );
    let rec = Recording::record(dir, &[], &[exe.to_str().unwrap_or_default(), "20"]);
    let (ours, theirs, demangled) = both(&rec);
    assert_same("C -O2", &ours, &theirs, &demangled);
    let (ours, theirs) = both_srclines(&rec);
    assert_same("C -O2 srclines", &ours, &theirs, &Default::default());
}

/// `--call-graph dwarf`: the user stack of each sample unwound from its
/// registers and stack dump, against perf 6.1 (libunwind) without inline
/// frames (the Python session's `inline_name = false`), then with them
/// (`inline_name`, perf script's default), where the recording must have
/// some.
fn dwarf(tag: &str, dir: TempDir, cmd: &[&str]) -> String {
    let rec = Recording::record(dir, &["--call-graph", "dwarf"], cmd);
    let (ours, theirs, demangled) = both_with(&rec, rec.conf(), &["--no-inline"]);
    assert_same(tag, &ours, &theirs, &demangled);
    let mut inline = rec.conf();
    inline.inline_name = true;
    let (ours, with_inline, demangled) = both_with(&rec, inline, &[]);
    assert_same(&format!("{tag} inline"), &ours, &with_inline, &demangled);
    let inlined = with_inline.matches(" (inlined)\n").count();
    eprintln!("{tag} inline: {inlined} inlined frames");
    assert!(inlined > 0, "{tag}: no inlined frame");
    let frames = |text: &str| text.lines().filter(|l| l.starts_with('\t')).count();
    let samples = theirs
        .split("\n\n")
        .filter(|s| !s.trim().is_empty())
        .count();
    assert!(
        frames(&theirs) > 3 * samples,
        "{tag}: perf unwound {} frames in {samples} samples",
        frames(&theirs)
    );
    theirs
}

/// [`dwarf`] of a workload built from `src`, run with `args`.
fn dwarf_built(tag: &str, compiler: &str, src: &str, flags: &[&str], args: &[&str]) -> String {
    let dir = TempDir::new(tag);
    let exe = build(&dir.0, compiler, src, flags, "work");
    let mut cmd = vec![exe.to_str().unwrap_or_default()];
    cmd.extend_from_slice(args);
    dwarf(tag, dir, &cmd)
}

#[test]
fn c_dwarf_without_frame_pointers() {
    skip_unless_perf!();
    for (tag, opt) in [("c-dwarf-o0", "-O0"), ("c-dwarf-o2", "-O2")] {
        dwarf_built(
            tag,
            "gcc",
            "work.c",
            &[opt, "-g", "-fomit-frame-pointer"],
            &["10"],
        );
    }
}

#[test]
fn dwarf_code_without_cfi_unwinds_through_rbp() {
    skip_unless_perf!();
    let flags = ["-O2", "-g", "-fomit-frame-pointer"];
    let theirs = dwarf_built("nocfi-dwarf", "gcc", "nocfi.c", &flags, &["20"]);
    // libunwind's rbp fallback, taken by both: from the function no FDE
    // covers to its caller.
    let through = theirs
        .lines()
        .zip(theirs.lines().skip(1))
        .filter(|(a, b)| a.contains(" spin_nocfi+") && b.contains(" caller+"))
        .count();
    assert!(
        through > 20,
        "{through} chains from spin_nocfi to its caller"
    );
}

#[test]
fn cxx_dwarf() {
    skip_unless_perf!();
    let flags = ["-O1", "-g", "-fomit-frame-pointer"];
    dwarf_built("cxx-dwarf", "g++", "work.cpp", &flags, &[]);
}

#[test]
fn rust_dwarf() {
    skip_unless_perf!();
    let flags = ["-O", "-g", "-C", "force-frame-pointers=no"];
    dwarf_built("rust-dwarf", "rustc", "work.rs", &flags, &[]);
}

#[test]
fn python_dwarf() {
    skip_unless_perf!();
    let code = "import json\nd=[{'k': i, 'v': str(i)*3} for i in range(30000)]\nfor _ in range(4): json.loads(json.dumps(d))";
    dwarf(
        "python-dwarf",
        TempDir::new("python-dwarf"),
        &["/usr/bin/python3", "-c", code],
    );
}

#[test]
fn cxx_demangled() {
    skip_unless_perf!();
    let dir = TempDir::new("cxx");
    let exe = build(
        &dir.0,
        "g++",
        "work.cpp",
        &["-O1", "-g", "-fno-omit-frame-pointer"],
        "work",
    );
    let rec = Recording::record(dir, &[], &[exe.to_str().unwrap_or_default()]);
    let (ours, theirs, demangled) = both(&rec);
    assert!(
        theirs.contains("work::Square::area"),
        "perf demangles C++ here"
    );
    assert_same("C++", &ours, &theirs, &demangled);
    let (ours, theirs) = both_srclines(&rec);
    assert_same("C++ srclines", &ours, &theirs, &Default::default());
}

#[test]
fn rust_legacy_and_v0_mangling() {
    skip_unless_perf!();
    for (tag, mangling) in [("rust-legacy", "legacy"), ("rust-v0", "v0")] {
        let dir = TempDir::new(tag);
        let flag = format!("symbol-mangling-version={mangling}");
        let mut flags = vec![
            "-O",
            "-g",
            "-C",
            "force-frame-pointers=yes",
            "-C",
            flag.as_str(),
        ];
        if mangling == "legacy" {
            flags.truncate(4);
        }
        let exe = build(&dir.0, "rustc", "work.rs", &flags, "work");
        let rec = Recording::record(dir, &[], &[exe.to_str().unwrap_or_default()]);
        let (ours, theirs, demangled) = both(&rec);
        assert!(
            theirs.contains("work::table"),
            "perf demangles Rust ({mangling})"
        );
        assert_same(tag, &ours, &theirs, &demangled);
        let (ours, theirs) = both_srclines(&rec);
        assert_same(
            &format!("{tag} srclines"),
            &ours,
            &theirs,
            &Default::default(),
        );
    }
}

#[test]
fn python_interpreter() {
    skip_unless_perf!();
    let dir = TempDir::new("python");
    let code = "import json\nd=[{'k': i, 'v': str(i)*3} for i in range(30000)]\nfor _ in range(8): json.loads(json.dumps(d))";
    let rec = Recording::record(dir, &[], &["/usr/bin/python3", "-c", code]);
    let (ours, theirs, demangled) = both(&rec);
    assert_same("python3", &ours, &theirs, &demangled);
    let (ours, theirs) = both_srclines(&rec);
    assert_same("python3 srclines", &ours, &theirs, &Default::default());
}

/// A debug file installed under /usr/lib/debug/.build-id for the test's
/// duration.
struct InstalledDebug(std::path::PathBuf);

impl Drop for InstalledDebug {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

#[test]
fn stripped_binary_with_debug_file_in_usr_lib_debug() {
    skip_unless_perf!();
    let dir = TempDir::new("stripped");
    let exe = build(
        &dir.0,
        "gcc",
        "work.c",
        &["-O2", "-g", "-fno-omit-frame-pointer"],
        "work",
    );
    let exe_s = exe.to_str().unwrap_or_default();
    let debug = dir.0.join("work.debug");
    perf::run(
        std::process::Command::new("objcopy")
            .args(["--only-keep-debug", exe_s])
            .arg(&debug),
    );
    perf::run(std::process::Command::new("strip").args(["--strip-all", exe_s]));
    let bid = perf_core::symbol::build_id::BuildId::from_hex(
        perf::run(std::process::Command::new("sh").args([
            "-c",
            &format!("readelf -n {exe_s} | sed -n 's/.*Build ID: //p'"),
        ]))
        .trim(),
    )
    .expect("build id");
    let hex = bid.to_string();
    let target = std::path::Path::new("/usr/lib/debug/.build-id")
        .join(&hex[..2])
        .join(format!("{}.debug", &hex[2..]));
    std::fs::create_dir_all(target.parent().expect("dir")).expect("mkdir");
    std::fs::copy(&debug, &target).expect("install debug file");
    let _installed = InstalledDebug(target);
    // -N: no build-id cache, so the symbols must come from /usr/lib/debug.
    let rec = Recording::record(dir, &["-N"], &[exe_s, "20"]);
    let (ours, theirs, demangled) = both(&rec);
    assert!(theirs.contains("leaf_loop"), "perf finds the debug file");
    assert_same("stripped + /usr/lib/debug", &ours, &theirs, &demangled);
    let (ours, theirs) = both_srclines(&rec);
    assert!(
        theirs.contains("work.c:"),
        "source lines from the debug file"
    );
    assert_same(
        "stripped + /usr/lib/debug srclines",
        &ours,
        &theirs,
        &Default::default(),
    );
}

#[test]
fn system_wide_with_kernel() {
    skip_unless_perf!();
    let dir = TempDir::new("system");
    let rec = Recording::record(
        dir,
        &["-a"],
        &["sh", "-c", "dd if=/dev/zero bs=64k count=4000 2>/dev/null | md5sum >/dev/null; ls -R /usr/share/doc >/dev/null"],
    );
    let (ours, theirs, demangled) = both(&rec);
    assert!(theirs.contains("([kernel.kallsyms])"), "kernel frames");
    assert_same("system-wide", &ours, &theirs, &demangled);
    // perf 6.1 may die of SIGPIPE here (an addr2line it started for a
    // deleted object exits): compare what it printed before.
    let ours = script::ip_srcline(&rec.data, rec.conf());
    let (theirs, died) = rec.script_until_sigpipe(&["-F", "ip,srcline"]);
    let ours = if died {
        let n = theirs.lines().count();
        eprintln!("perf script -F ip,srcline died of SIGPIPE after {n} lines");
        ours.lines().take(n).map(|l| format!("{l}\n")).collect()
    } else {
        ours
    };
    assert!(
        theirs.lines().count() > 100,
        "enough of perf's output to compare"
    );
    assert_same("system-wide srclines", &ours, &theirs, &Default::default());
}

#[test]
fn rebuilt_binary_gives_no_wrong_names() {
    skip_unless_perf!();
    let dir = TempDir::new("rebuilt");
    let flags = ["-O2", "-g", "-fno-omit-frame-pointer"];
    let exe = build(&dir.0, "gcc", "work.c", &flags, "work");
    let exe_s = exe.to_str().unwrap_or_default().to_owned();
    let rec = Recording::record(dir, &[], &[&exe_s, "10"]);
    // Rebuild at the same path: other code, another build id.
    let mut rebuilt = flags.to_vec();
    rebuilt.push("-DREBUILT");
    build(&rec.dir.0, "gcc", "work.c", &rebuilt, "work");
    // perf record kept the old binary in the build-id cache: perf and we
    // both read it from there.
    let (ours, theirs, demangled) = both(&rec);
    assert!(theirs.contains("leaf_loop"));
    assert_same(
        "rebuilt, from the build-id cache",
        &ours,
        &theirs,
        &demangled,
    );
    // Without the cache the recorded build id matches no file: perf shows
    // [unknown], and so do we, with a warning, never the new binary's names.
    std::fs::remove_dir_all(rec.home().join(".debug")).expect("rm cache");
    let (ours, theirs, demangled) = both(&rec);
    assert!(!theirs.contains("leaf_loop") && !theirs.contains("padding"));
    assert_same("rebuilt, no cache", &ours, &theirs, &demangled);
    let (ours, theirs) = both_srclines(&rec);
    assert_same(
        "rebuilt, no cache, srclines",
        &ours,
        &theirs,
        &Default::default(),
    );
    let machine = script::each_sample(&rec.data, rec.conf(), |_| {});
    let dsos = std::sync::Arc::clone(machine.lock().dsos());
    let map = dsos.map_new(&perf_core::symbol::map::MapInfo {
        pid: 1,
        start: 0x1000,
        len: 0x1000,
        pgoff: 0,
        filename: exe_s.as_bytes(),
        prot: 5,
        flags: 2,
        dso_id: None,
        build_id: None,
    });
    let loaded = dsos.load(map.dso());
    assert!(loaded.symbols.is_empty());
    let warning = loaded.warning.clone().unwrap_or_default();
    assert!(warning.contains("build id mismatch"), "{warning}");
}

/// librustc_driver (BOLT-processed) has a `.dynsym` entry with a section
/// index past the section table: perf's load stops there, keeps the
/// `.symtab` symbols already read, and its first lookup in the object
/// finds nothing.
#[test]
fn partly_bad_symbol_table() {
    skip_unless_perf!();
    let rustc = std::path::PathBuf::from(
        perf::run(std::process::Command::new("rustup").args(["which", "rustc"])).trim(),
    );
    let dir = TempDir::new("rustc");
    let out = dir.0.join("empty");
    let src = dir.0.join("empty.rs");
    std::fs::write(&src, "fn main() {}\n").expect("write");
    // 999 samples a second, not 2999: perf's addr2line takes about 10 ms a
    // source line in librustc_driver, and at 2999 this test took 54 s.
    let rec = Recording::record(
        dir,
        &["-F", "999"],
        &[
            rustc.to_str().unwrap_or_default(),
            src.to_str().unwrap_or_default(),
            "-o",
            out.to_str().unwrap_or_default(),
        ],
    );
    let (ours, theirs, demangled) = both(&rec);
    if !theirs.contains("librustc_driver") {
        eprintln!("skipped: no sample in librustc_driver");
        return;
    }
    assert_same("rustc", &ours, &theirs, &demangled);
    let (ours, theirs) = both_srclines(&rec);
    assert_same("rustc srclines", &ours, &theirs, &Default::default());
}

/// `srccode()` gives the full file name addr2line prints: for every frame
/// of the C++ workload (inlined library code included), the file and line
/// equal the first record of `addr2line -a -i -f -e <file>` (the command
/// perf 6.1 runs).
#[test]
fn full_source_paths_equal_addr2line() {
    skip_unless_perf!();
    use std::collections::BTreeMap;
    let dir = TempDir::new("a2l");
    let exe = build(
        &dir.0,
        "g++",
        "work.cpp",
        &["-O2", "-g", "-fno-omit-frame-pointer"],
        "work",
    );
    let rec = Recording::record(dir, &[], &[exe.to_str().unwrap_or_default()]);
    let mut texts = 0;
    // file -> objdump address -> our answer
    let mut asked: BTreeMap<std::path::PathBuf, BTreeMap<u64, Option<(String, u32)>>> =
        BTreeMap::new();
    script::each_sample(&rec.data, rec.conf(), |ev| {
        let dsos = std::sync::Arc::clone(ev.machine.lock().dsos());
        for node in ev.callchain() {
            let Some(map) = node.location.map.as_ref() else {
                continue;
            };
            if map.is_kernel() {
                continue;
            }
            let loaded = dsos.load(map.dso());
            let file = loaded
                .symsrc_filename
                .clone()
                .unwrap_or_else(|| map.dso().path().to_path_buf());
            let objdump = map.rip_2objdump(node.location.addr);
            let ours = dsos.srcline(map.dso(), objdump).map(|s| (s.file, s.line));
            // srccode()'s text is that line of the file.
            if let Some(code) = dsos.srccode(&node.location) {
                if let (Ok(text), true) = (std::fs::read_to_string(&code.file), code.line > 0) {
                    let want = text.lines().nth(code.line as usize - 1).map(str::to_owned);
                    assert_eq!(code.text, want, "{}:{}", code.file, code.line);
                    texts += 1;
                }
            }
            asked.entry(file).or_default().insert(objdump, ours);
        }
    });
    let mut compared = 0;
    for (file, addrs) in &asked {
        let mut c = std::process::Command::new("addr2line");
        c.args(["-a", "-i", "-f", "-e"]).arg(file);
        for a in addrs.keys() {
            c.arg(format!("{a:x}"));
        }
        let out = perf::run(&mut c);
        // Groups: "0x<addr>", then (function, file:line) records.
        let mut theirs: BTreeMap<u64, Option<(String, u32)>> = BTreeMap::new();
        let lines: Vec<&str> = out.lines().collect();
        let mut i = 0;
        while i < lines.len() {
            let Some(a) = lines[i]
                .strip_prefix("0x")
                .and_then(|h| u64::from_str_radix(h, 16).ok())
            else {
                i += 1;
                continue;
            };
            let rec = lines.get(i + 2).copied().unwrap_or("??:0");
            let first = if rec == "??:0" {
                None
            } else {
                let (f, l) = rec.split_once(':').unwrap_or((rec, "0"));
                let line = l
                    .split_whitespace()
                    .next()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0);
                Some((f.to_owned(), line))
            };
            theirs.insert(a, first);
            i += 3;
        }
        for (a, ours) in addrs {
            assert_eq!(
                ours,
                theirs.get(a).unwrap_or(&None),
                "{} at {a:#x}",
                file.display()
            );
            compared += 1;
        }
    }
    assert!(compared > 10, "{compared} addresses");
    assert!(texts > 10, "{texts} source lines read");
    eprintln!(
        "{compared} addresses: file and line equal to addr2line's; {texts} source texts checked"
    );
}

/// The instruction bytes at each sample's ip equal perf script's `insn`
/// field (`-F ip,insn,insnlen`), user and kernel samples alike.
#[test]
fn instruction_bytes() {
    skip_unless_perf!();
    let dir = TempDir::new("insn");
    let exe = build(
        &dir.0,
        "gcc",
        "work.c",
        &["-O2", "-g", "-fno-omit-frame-pointer"],
        "work",
    );
    let rec = Recording::record(dir, &[], &[exe.to_str().unwrap_or_default(), "10"]);
    let ours = script::insn_lines(&rec.data, rec.conf());
    let theirs: Vec<String> = rec
        .script(&["-F", "ip,insn,insnlen"])
        .lines()
        .filter(|l| l.starts_with(" ilen:"))
        .map(str::to_owned)
        .collect();
    assert_eq!(ours.len(), theirs.len());
    let decoded = theirs.iter().filter(|l| l.contains("insn:")).count();
    assert!(decoded > 10, "{decoded} samples with bytes");
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "sample {i}");
    }
    eprintln!(
        "{} samples, {decoded} with instruction bytes, equal to perf's",
        ours.len()
    );
}

/// JIT maps: code in anonymous executable memory named in
/// /tmp/perf-<pid>.map.
#[test]
fn jit_map() {
    skip_unless_perf!();
    let dir = TempDir::new("jit");
    let exe = build(
        &dir.0,
        "gcc",
        "jit.c",
        &["-O1", "-g", "-fno-omit-frame-pointer"],
        "jit",
    );
    let rec = Recording::record(dir, &[], &[exe.to_str().unwrap_or_default()]);
    // The workload leaves its map file in /tmp: remove it with the test.
    struct MapFiles(Vec<std::path::PathBuf>);
    impl Drop for MapFiles {
        fn drop(&mut self) {
            for f in &self.0 {
                let _ = std::fs::remove_file(f);
            }
        }
    }
    let mut pids = std::collections::BTreeSet::new();
    script::each_sample(&rec.data, rec.conf(), |ev| {
        pids.insert(ev.record.sample.pid);
    });
    let _cleanup = MapFiles(
        pids.iter()
            .map(|p| std::path::PathBuf::from(format!("/tmp/perf-{p}.map")))
            .collect(),
    );
    let (ours, theirs, demangled) = both(&rec);
    assert!(theirs.contains("jit_spin_one"), "perf reads the JIT map");
    assert_same("JIT map", &ours, &theirs, &demangled);
}

/// `kallsyms=`: kernel symbols from a given kallsyms file only (a copy of
/// /proc/kallsyms with one symbol renamed, so the file is seen to be used).
#[test]
fn kallsyms_override() {
    skip_unless_perf!();
    let dir = TempDir::new("kallsyms");
    let copy = dir.0.join("kallsyms");
    let text = std::fs::read_to_string("/proc/kallsyms").expect("kallsyms");
    std::fs::write(
        &copy,
        text.replace(" do_syscall_64\n", " do_syscall_64_from_the_copy\n"),
    )
    .expect("write");
    let rec = Recording::record(
        dir,
        &[],
        &[
            "dd",
            "if=/dev/zero",
            "of=/dev/null",
            "bs=64k",
            "count=20000",
        ],
    );
    let mut conf = rec.conf();
    conf.kallsyms = Some(copy.clone());
    let arg = format!("--kallsyms={}", copy.display());
    let (ours, theirs, demangled) = both_with(&rec, conf, &[&arg]);
    assert!(
        theirs.contains("do_syscall_64_from_the_copy"),
        "perf uses the copy"
    );
    assert_same("kallsyms=", &ours, &theirs, &demangled);
}

/// `symfs=`: every object looked up under a directory (here holding only
/// the workload's binary); the kernel then has no symbols, as in perf.
#[test]
fn symfs_override() {
    skip_unless_perf!();
    let dir = TempDir::new("symfs");
    let exe = build(
        &dir.0,
        "gcc",
        "work.c",
        &["-O2", "-g", "-fno-omit-frame-pointer"],
        "work",
    );
    let symfs = dir.0.join("symfs");
    let inside = symfs.join(exe.strip_prefix("/").expect("absolute"));
    std::fs::create_dir_all(inside.parent().expect("dir")).expect("mkdir");
    std::fs::copy(&exe, &inside).expect("copy");
    let rec = Recording::record(dir, &["-N"], &[exe.to_str().unwrap_or_default(), "10"]);
    let mut conf = rec.conf();
    conf.set_symfs(&symfs);
    let arg = format!("--symfs={}", symfs.display());
    let (ours, theirs, demangled) = both_with(&rec, conf, &[&arg]);
    assert!(theirs.contains("leaf_loop"));
    assert_same("symfs=", &ours, &theirs, &demangled);
}

/// Many short-lived processes of one binary, under three paths (copies, so
/// three DSOs with one build id): every sample equal to perf's, and the
/// binary's symbols read once for all of them.
#[test]
fn many_processes_of_one_binary_load_it_once() {
    skip_unless_perf!();
    let dir = TempDir::new("many");
    let exe = build(
        &dir.0,
        "gcc",
        "work.c",
        &["-O2", "-g", "-fno-omit-frame-pointer"],
        "work",
    );
    let copies: Vec<std::path::PathBuf> = ["a", "b", "c"]
        .iter()
        .map(|n| {
            let p = dir.0.join(n);
            std::fs::copy(&exe, &p).expect("copy");
            p
        })
        .collect();
    let names: Vec<String> = copies.iter().map(|p| p.display().to_string()).collect();
    let script = format!(
        "for i in $(seq 40); do {} 1; {} 1; {} 1; done >/dev/null",
        names[0], names[1], names[2]
    );
    let rec = Recording::record(dir, &[], &["sh", "-c", &script]);
    let (ours, theirs, demangled) = both(&rec);
    assert!(theirs.contains("leaf_loop"));
    assert_same("many processes", &ours, &theirs, &demangled);
    let mut pids = std::collections::HashSet::new();
    let mut tables = Vec::new();
    let mut objects = std::collections::HashSet::new();
    let machine = script::each_sample(&rec.data, rec.conf(), |ev| {
        for node in ev.callchain() {
            if let Some(m) = node.location.map.as_ref().filter(|m| !m.is_kernel()) {
                let d = m.dso();
                objects.insert(
                    d.build_id()
                        .map_or_else(|| d.name().to_owned(), |b| b.to_string()),
                );
            }
        }
        let al = ev.resolve();
        let Some(map) = al.map.as_ref() else {
            return;
        };
        if names.iter().any(|n| n == map.dso().name()) {
            pids.insert(ev.record.sample.pid);
            if let Some(t) = map.dso().loaded() {
                if !tables.iter().any(|x| std::sync::Arc::ptr_eq(x, t)) {
                    tables.push(std::sync::Arc::clone(t));
                }
            }
        }
    });
    assert!(pids.len() >= 100, "{} processes sampled", pids.len());
    assert_eq!(tables.len(), 1, "one symbol table for the three copies");
    // Every user object was read once: as many loads as distinct objects
    // (by build id) in the call chains.
    let dsos = std::sync::Arc::clone(machine.lock().dsos());
    eprintln!(
        "{} processes of the binary, {} objects, {} symbol tables read",
        pids.len(),
        objects.len(),
        dsos.nr_loads()
    );
    assert_eq!(dsos.nr_loads(), objects.len() as u64, "{objects:?}");
}

/// What perf reads from `addr2line -i -f -e <file>` (binutils, asked one
/// address at a time, each followed by perf's `,` sentinel): the function
/// names of each address, nothing where the first record is `??:0`.
fn addr2line_as_perf(file: &std::path::Path, addrs: &[u64]) -> Vec<Vec<String>> {
    use std::io::Write;
    let mut child = std::process::Command::new("addr2line")
        .args(["-i", "-f", "-e"])
        .arg(file)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("addr2line");
    let mut stdin = child.stdin.take().expect("stdin");
    let input: String = addrs.iter().map(|a| format!("{a:016x}\n,\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("addr2line output");
    writer.join().expect("writer").expect("write");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines();
    let mut record = || Some((lines.next()?.trim().to_owned(), lines.next()?.to_owned()));
    addrs
        .iter()
        .map(|_| {
            let mut names = Vec::new();
            // read_addr2line_record: "??:0" ends the records (the sentinel).
            while let Some((function, file)) = record() {
                if file == "??:0" {
                    if names.is_empty() {
                        record(); // the first was invalid: the sentinel follows
                    }
                    break;
                }
                let name = perf_core::symbol::demangle::demangle_sym(&function, false);
                names.push(name.unwrap_or(function));
            }
            names
        })
        .collect()
}

/// The inlined frames' names come from the DWARF as binutils' addr2line
/// (what perf 6.1 runs) prints them, bfd's naming rules included: every
/// address of each workload's `.text`, asked in the same order.
#[test]
fn inline_names_equal_addr2line() {
    skip_unless_perf!();
    let dir = TempDir::new("inline-a2l");
    let builds = [
        ("gcc", "work.c", &["-O2", "-g"][..], "c"),
        ("gcc", "work.c", &["-O0", "-g"][..], "c-o0"),
        ("g++", "work.cpp", &["-O1", "-g"][..], "cxx"),
        ("rustc", "work.rs", &["-O", "-g"][..], "rust"),
    ];
    for (compiler, src, flags, out) in builds {
        let exe = build(&dir.0, compiler, src, flags, out);
        let text = perf::run(
            std::process::Command::new("readelf")
                .args(["-WS"])
                .arg(&exe),
        );
        let (start, size) = text
            .lines()
            .find(|l| l.contains(" .text "))
            .and_then(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let i = f.iter().position(|w| *w == ".text")?;
                let hex = |s: &str| u64::from_str_radix(s, 16).ok();
                Some((hex(f.get(i + 2)?)?, hex(f.get(i + 4)?)?))
            })
            .expect(".text");
        // Every address of the small workloads; Rust's std makes a large
        // .text, of which every 7th.
        let step = if size > 0x10000 { 7 } else { 1 };
        let addrs: Vec<u64> = (start..start + size).step_by(step).collect();
        let theirs = addr2line_as_perf(&exe, &addrs);
        let ours = perf_core::symbol::inline::addr2line_names(&exe, addrs.iter().copied());
        let inlined = theirs.iter().filter(|n| n.len() > 1).count();
        let differ: Vec<String> = addrs
            .iter()
            .zip(ours.iter().zip(&theirs))
            .filter(|(_, (a, b))| a != b)
            .take(10)
            .map(|(x, (a, b))| format!("{x:#x}:\n  ours: {a:?}\n  addr2line: {b:?}"))
            .collect();
        assert!(
            differ.is_empty(),
            "{out}: names differ from addr2line:\n{}",
            differ.join("\n")
        );
        eprintln!(
            "{out}: {} addresses, {inlined} in inlined code, names equal to addr2line's",
            addrs.len()
        );
        assert!(inlined > 0 || out == "c-o0", "{out}: no inlined code");
    }
}
