// SPDX-License-Identifier: GPL-2.0-only
//! Kernel symbols from a kallsyms file (`kallsyms__parse`,
//! `dso__load_all_kallsyms`, `maps__split_kallsyms` in perf 6.1).

use super::symbols::{Symbol, Symbols, STB_GLOBAL, STB_LOCAL, STB_WEAK, STT_FUNC, STT_OBJECT};

/// `KSYM_NAME_LEN + 1`: longer names are cut (the rest of the line is
/// then skipped as a malformed line, as perf's reader does).
const NAME_MAX: usize = 513;

/// `ENTRY_TRAMPOLINE_NAME`: x86-64 PTI entry trampoline symbols, dropped.
pub(crate) const ENTRY_TRAMPOLINE: &str = "__entry_SYSCALL_64_trampoline";

/// One line of kallsyms that perf keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct KallsymsEntry {
    pub(crate) start: u64,
    pub(crate) kind: u8,
    /// The name; for a module symbol, `name\t[module]`.
    pub(crate) name: String,
}

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

/// `kallsyms__parse` + the filter of `map__process_kallsym_symbol`.
pub(crate) fn parse(text: &[u8]) -> Vec<KallsymsEntry> {
    let mut out = Vec::new();
    for line in text.split(|&b| b == b'\n') {
        let Some(sp) = line.iter().position(|&b| b == b' ') else {
            continue;
        };
        let hex = &line[..sp];
        // io__get_hex: hex digits then the separator; none is not a number.
        if hex.is_empty() || !hex.iter().all(u8::is_ascii_hexdigit) {
            continue;
        }
        let Ok(start) = u64::from_str_radix(&String::from_utf8_lossy(hex), 16) else {
            continue;
        };
        let rest = &line[sp + 1..];
        let (Some(&kind), Some(&b' ')) = (rest.first(), rest.get(1)) else {
            continue;
        };
        let raw = &rest[2..];
        let name = &raw[..raw.len().min(NAME_MAX)];
        if !wanted(kind) || name.first() == Some(&b'$') {
            continue;
        }
        out.push(KallsymsEntry {
            start,
            kind,
            name: String::from_utf8_lossy(name).into_owned(),
        });
    }
    out
}

/// The kernel's and the modules' symbols after `symbols__fixup_end`
/// (kallsyms rules) and `symbols__fixup_duplicate`, before the split.
pub(crate) fn load(entries: Vec<KallsymsEntry>) -> Vec<Symbol> {
    let mut t = Symbols::new();
    for e in entries {
        t.insert(Symbol::new(
            e.start,
            0,
            binding(e.kind),
            elf_type(e.kind),
            &e.name,
        ));
    }
    t.fixup_end(true);
    t.fixup_duplicate();
    t.into_sorted()
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
        let e = parse(text);
        let names: Vec<&str> = e.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "_text",
                "_stext",
                "foo",
                "bar",
                "ftrace_trampoline\t[__builtin__ftrace]",
                "modfn\t[ext4]"
            ]
        );
        let syms = load(e);
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
