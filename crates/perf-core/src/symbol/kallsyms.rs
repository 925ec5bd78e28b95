// SPDX-License-Identifier: GPL-2.0-only
//! Kernel symbols from a kallsyms file (`kallsyms__parse`,
//! `dso__load_all_kallsyms`, `maps__split_kallsyms` in perf 6.1).

use std::io::BufRead;

use super::symbols::{Symbol, STB_GLOBAL, STB_LOCAL, STB_WEAK, STT_FUNC, STT_OBJECT};

/// `KSYM_NAME_LEN + 1`: longer names are cut (the rest of the line is
/// then skipped as a malformed line, as perf's reader does).
const NAME_MAX: usize = 513;

/// The most of a kallsyms file read (`/proc/kallsyms` is 5 MiB on a
/// distribution kernel with its modules loaded): a bigger file is refused,
/// and a `/proc` file, whose size is not known, ends there.
pub(crate) const MAX_FILE: u64 = 64 << 20;

/// `ENTRY_TRAMPOLINE_NAME`: x86-64 PTI entry trampoline symbols, dropped.
pub(crate) const ENTRY_TRAMPOLINE: &str = "__entry_SYSCALL_64_trampoline";

/// `symbol_type__filter`: text, weak, data and bss symbols.
fn wanted(kind: u8) -> bool {
    matches!(kind.to_ascii_uppercase(), b'T' | b'W' | b'D' | b'B')
}

/// `kallsyms2elf_binding`.
fn binding(kind: u8) -> u8 {
    if kind == b'W' {
        STB_WEAK
    } else if kind.is_ascii_uppercase() {
        STB_GLOBAL
    } else {
        STB_LOCAL
    }
}

/// `kallsyms2elf_type`.
fn elf_type(kind: u8) -> u8 {
    match kind.to_ascii_lowercase() {
        b't' | b'w' => STT_FUNC,
        _ => STT_OBJECT,
    }
}

/// One kallsyms line, if perf keeps it (`kallsyms__parse` + the filter of
/// `map__process_kallsym_symbol`).
fn parse_line(line: &[u8]) -> Option<Symbol> {
    let sp = line.iter().position(|&b| b == b' ')?;
    let hex = &line[..sp];
    // io__get_hex: hex digits then the separator; none is not a number.
    if hex.is_empty() || !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let start = u64::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()?;
    let rest = &line[sp + 1..];
    let (&kind, &b' ') = (rest.first()?, rest.get(1)?) else {
        return None;
    };
    let raw = &rest[2..];
    let name = &raw[..raw.len().min(NAME_MAX)];
    if !wanted(kind) || name.first() == Some(&b'$') {
        return None;
    }
    Some(Symbol::new(
        start,
        0,
        binding(kind),
        elf_type(kind),
        &String::from_utf8_lossy(name),
    ))
}

/// Reads a kallsyms file into the kernel's and the modules' symbols,
/// sorted by address, after `symbols__fixup_end` (kallsyms rules) and
/// `symbols__fixup_duplicate`: perf's table before the split by module.
pub(crate) fn load(reader: impl BufRead) -> Vec<Symbol> {
    let mut syms: Vec<Symbol> = reader
        .split(b'\n')
        .map_while(Result::ok)
        .filter_map(|l| parse_line(&l))
        .collect();
    // perf inserts in file order into a tree where equal starts go right:
    // a stable sort gives its in-order walk.
    syms.sort_by_key(|s| s.start);
    let order: Vec<u32> = (0..syms.len() as u32).collect();
    super::symbols::fixup_end(&mut syms, &order, true);
    let losers = super::symbols::duplicate_losers(&syms, &order);
    let mut keep = vec![true; syms.len()];
    for l in losers {
        if let Some(k) = keep.get_mut(l as usize) {
            *k = false;
        }
    }
    let mut i = 0;
    syms.retain(|_| {
        i += 1;
        keep.get(i - 1).copied().unwrap_or(false)
    });
    syms
}

/// Splits a kallsyms symbol name into the name and its module, if any.
pub(crate) fn split_module(name: &str) -> (&str, Option<&str>) {
    match name.split_once('\t') {
        Some((n, m)) => {
            let m = m.trim_start_matches('[').trim_end_matches(']');
            (n, Some(m))
        }
        None => (name, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_fixups() {
        let text = b"ffffffff81000000 T _text\n\
ffffffff81000000 T _stext\n\
ffffffff81000100 t foo\n\
ffffffff81000180 W bar\n\
ffffffff81000200 r rodata_thing\n\
ffffffff81000300 A abs\n\
zzzz t bad\n\
ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n\
ffffffffc0300000 t modfn\t[ext4]\n";
        let syms = load(&text[..]);
        let names: Vec<&str> = syms.iter().map(|x| x.name()).collect();
        assert_eq!(
            names,
            [
                "_stext",
                "foo",
                "bar",
                "ftrace_trampoline\t[__builtin__ftrace]",
                "modfn\t[ext4]"
            ]
        );
        // _text and _stext share a start: fixup_end leaves the first one
        // zero-sized, so the second one, which has a size, is kept.
        assert_eq!(syms[0].name(), "_stext");
        assert_eq!(syms[0].end, 0xffffffff81000100);
        // The last kernel symbol before a module symbol ends at the next
        // page boundary past its start, not at the module.
        let bar = syms.iter().find(|s| s.name() == "bar").unwrap();
        assert_eq!(bar.end, 0xffffffff81002000);
        assert_eq!(bar.binding, STB_WEAK);
        assert_eq!(split_module("modfn\t[ext4]"), ("modfn", Some("ext4")));
    }
}
