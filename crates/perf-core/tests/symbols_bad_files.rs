// SPDX-License-Identifier: GPL-2.0-only
//! Symbol loading never panics on bad files: a small ELF with symbols and
//! DWARF (built at test time), truncated at many lengths and with bytes
//! overwritten, goes through every reader (symbols, PLT, build id, source
//! lines, instruction bytes, JIT map, kallsyms).

use std::path::Path;
use std::process::Command;

use perf_core::symbol::conf::SymbolConf;
use perf_core::symbol::map::{MapInfo, Maps};
use perf_core::symbol::resolve::{CPUMODE_KERNEL, CPUMODE_USER};
use perf_core::symbol::Dsos;

fn lcg(seed: &mut u64) -> u64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *seed >> 33
}

fn exercise(dir: &Path, path: &Path, n: usize) {
    let conf = SymbolConf {
        buildid_cache: perf_core::symbol::build_id::BuildIdCache::new(dir.join("no-cache")),
        kallsyms: Some(path.to_path_buf()),
        ..SymbolConf::default()
    };
    let dsos = Dsos::new(conf);
    let name = path.to_string_lossy().into_owned();
    let mut maps = Maps::default();
    maps.insert(dsos.map_new(&MapInfo {
        pid: 1,
        start: 0x400000,
        len: 0x100000,
        pgoff: 0,
        filename: name.as_bytes(),
        prot: 5,
        flags: 2,
        dso_id: None,
        build_id: None,
    }));
    for addr in (0x400000..0x404000u64).step_by(0x3f) {
        let al = dsos.thread_find_symbol(&maps, CPUMODE_USER, addr);
        if let Some(m) = &al.map {
            let _ = dsos.srcline(m.dso(), m.rip_2objdump(al.addr));
            let _ = dsos.fetch_insn(&al);
            let _ = al.symoff();
        }
    }
    // The same bytes as a kallsyms file and a JIT map.
    dsos.process_kernel_mmap(&MapInfo {
        pid: -1,
        start: 0xffffffff81000000,
        len: 0x1000000,
        pgoff: 0xffffffff81000000,
        filename: b"[kernel.kallsyms]_text",
        prot: 5,
        flags: 0,
        dso_id: None,
        build_id: None,
    });
    let _ = dsos.thread_find_symbol(&(), CPUMODE_KERNEL, 0xffffffff81000100);
    // Any object under /tmp/perf- is read as a JIT map.
    let jit = std::path::PathBuf::from(format!(
        "/tmp/perf-perfpy-badelf-{}-{n}.map",
        std::process::id()
    ));
    if std::fs::copy(path, &jit).is_ok() {
        let name = jit.to_string_lossy().into_owned();
        let mut m = Maps::default();
        m.insert(dsos.map_new(&MapInfo {
            filename: name.as_bytes(),
            ..MapInfo {
                pid: 1,
                start: 0,
                len: u64::MAX / 2,
                pgoff: 0,
                filename: b"",
                prot: 5,
                flags: 2,
                dso_id: None,
                build_id: None,
            }
        }));
        for addr in [0u64, 0x400000, 0x7f0000000000] {
            let _ = dsos.thread_find_symbol(&m, CPUMODE_USER, addr);
        }
        let _ = std::fs::remove_file(&jit);
    }
}

#[test]
fn bad_elf_files_do_not_panic() {
    let dir = std::env::temp_dir().join(format!("perfpy-badelf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/symbols/work.c");
    let good = dir.join("good");
    let built = Command::new("gcc")
        .args(["-O2", "-g"])
        .arg(&src)
        .arg("-o")
        .arg(&good)
        .status();
    if !built.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no gcc");
        return;
    }
    let bytes = std::fs::read(&good).expect("read");
    let bad = dir.join("bad");
    let mut seed = 42;
    for i in 0..160 {
        let mut b = bytes.clone();
        if i % 2 == 0 {
            b.truncate((lcg(&mut seed) as usize) % bytes.len());
        } else {
            for _ in 0..(1 + lcg(&mut seed) % 64) {
                let at = (lcg(&mut seed) as usize) % b.len();
                b[at] = lcg(&mut seed) as u8;
            }
        }
        std::fs::write(&bad, &b).expect("write");
        exercise(&dir, &bad, i);
    }
    exercise(&dir, &good, 999);
    let _ = std::fs::remove_dir_all(&dir);
}
