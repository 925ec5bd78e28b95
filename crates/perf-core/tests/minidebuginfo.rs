// SPDX-License-Identifier: GPL-2.0-only
//! `.gnu_debugdata` (MiniDebugInfo): a stripped binary carrying an
//! xz-compressed `.symtab` of its functions, made the way Fedora makes
//! them (objcopy, xz). perf 6.1 does not read it (newer perf does): the
//! function names come back where perf 6.1 would have only `.dynsym`.

use std::path::Path;
use std::process::Command;

use perf_core::symbol::conf::SymbolConf;
use perf_core::symbol::map::{MapInfo, Maps};
use perf_core::symbol::resolve::CPUMODE_USER;
use perf_core::symbol::Dsos;

fn run(cmd: &mut Command) -> bool {
    cmd.status().is_ok_and(|s| s.success())
}

#[test]
fn function_names_from_gnu_debugdata() {
    let dir = std::env::temp_dir().join(format!("perfpy-minidebuginfo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/symbols/work.c");
    let exe = dir.join("work");
    let mini = dir.join("mini");
    let sh = format!(
        "set -e; cd {d}; gcc -O2 -g {src} -o work; \
         nm work --format=posix --defined-only | awk '$2 ~ /[Tt]/ {{print $1}}' | sort > funcs; \
         objcopy -S --remove-section .comment --keep-symbols=funcs work mini; \
         xz -f mini; strip --strip-all work; \
         objcopy --add-section .gnu_debugdata=mini.xz work",
        d = dir.display(),
        src = src.display()
    );
    if !run(Command::new("sh").args(["-c", &sh])) {
        eprintln!("skipped: gcc, objcopy or xz missing");
        return;
    }
    let _ = mini;
    let dsos = Dsos::new(SymbolConf {
        buildid_cache: perf_core::symbol::build_id::BuildIdCache::new(dir.join("no-cache")),
        ..SymbolConf::default()
    });
    let name = exe.to_string_lossy().into_owned();
    let map = dsos.map_new(&MapInfo {
        pid: 1,
        start: 0x400000,
        len: 0x10000,
        pgoff: 0,
        filename: name.as_bytes(),
        prot: 5,
        flags: 2,
        dso_id: None,
        build_id: None,
    });
    let loaded = dsos.load(map.dso());
    let names: Vec<&str> = loaded.symbols.iter().map(|s| s.name()).collect();
    for f in ["leaf_loop", "copy_work", "middle", "main"] {
        assert!(names.contains(&f), "{f} in {names:?}");
    }
    assert_eq!(
        loaded.symtab_type.map(|t| t.origin()),
        Some('n'),
        "the symbols came from .gnu_debugdata"
    );
    // And a lookup by address finds them.
    let mut maps = Maps::default();
    maps.insert(map);
    let leaf = loaded
        .symbols
        .iter()
        .find(|s| s.name() == "leaf_loop")
        .map(|s| s.start)
        .unwrap_or(0);
    let al = dsos.thread_find_symbol(&maps, CPUMODE_USER, 0x400000 + leaf + 1);
    assert_eq!(al.symbol_name(), Some("leaf_loop"));
    let _ = std::fs::remove_dir_all(&dir);
}
