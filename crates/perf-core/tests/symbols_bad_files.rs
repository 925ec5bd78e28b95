// SPDX-License-Identifier: GPL-2.0-only
//! Symbol loading never panics on bad files: a small ELF with symbols and
//! DWARF (built at test time), truncated at many lengths and with bytes
//! overwritten, goes through every reader (symbols, PLT, build id, source
//! lines, inlined frames, instruction bytes, JIT map, kallsyms); DWARF
//! nested too deep for the inlined-frame reader is not used.

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
    let _ = perf_core::symbol::inline::addr2line_names(path, (0..0x4000).step_by(0x3f));
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

/// An object whose function `f` (64 bytes at 0) holds `depth` nested
/// `DW_TAG_inlined_subroutine`s named `g`, each covering all of it.
fn nested_dwarf(dir: &Path, depth: usize) -> Option<std::path::PathBuf> {
    let asm = format!(
        "\t.text\n\t.globl f\n\t.type f, @function\nf:\n\t.fill 64, 1, 0x90\n\t.size f, 64\n\
         \t.section .debug_abbrev,\"\",@progbits\n\
         \t.byte 1, 0x11, 1, 0x13, 0x0b, 0x11, 0x01, 0x12, 0x07, 0, 0\n\
         \t.byte 2, 0x2e, 1, 0x03, 0x08, 0x11, 0x01, 0x12, 0x07, 0, 0\n\
         \t.byte 3, 0x1d, 1, 0x03, 0x08, 0x11, 0x01, 0x12, 0x07, 0, 0\n\
         \t.byte 0\n\
         \t.section .debug_info,\"\",@progbits\n\
         \t.long .Lend - .Lstart\n.Lstart:\n\t.value 4\n\t.long 0\n\t.byte 8\n\
         \t.byte 1, 0x0c\n\t.quad f\n\t.quad 64\n\
         \t.byte 2\n\t.string \"f\"\n\t.quad f\n\t.quad 64\n\
         \t.rept {depth}\n\t.byte 3\n\t.string \"g\"\n\t.quad f\n\t.quad 64\n\t.endr\n\
         \t.fill {depth}, 1, 0\n\t.byte 0, 0\n.Lend:\n"
    );
    let src = dir.join(format!("nested{depth}.s"));
    let obj = dir.join(format!("nested{depth}.o"));
    std::fs::write(&src, asm).ok()?;
    let built = Command::new("gcc")
        .arg("-c")
        .arg(&src)
        .arg("-o")
        .arg(&obj)
        .status();
    built.is_ok_and(|s| s.success()).then_some(obj)
}

#[test]
fn deeply_nested_dwarf_is_not_used() {
    let dir = std::env::temp_dir().join(format!("perfpy-nested-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let (Some(shallow), Some(deep)) = (nested_dwarf(&dir, 3), nested_dwarf(&dir, 200_000)) else {
        eprintln!("skipped: no gcc");
        return;
    };
    use perf_core::symbol::inline::addr2line_names;
    // Three inlined levels: read, innermost first.
    assert_eq!(addr2line_names(&shallow, [0x10]), [["g", "g", "g", "f"]]);
    // 200 000 levels (recursing through them would overflow the stack):
    // not read; the function comes from the symbol table.
    assert_eq!(addr2line_names(&deep, [0x10]), [["f"]]);
    let _ = std::fs::remove_dir_all(&dir);
}
