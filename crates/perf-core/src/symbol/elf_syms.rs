// SPDX-License-Identifier: GPL-2.0-only
//! A user-space object's symbols from its ELF symbol tables, as perf 6.1's
//! `dso__load_sym` / `dso__load_sym_internal` and
//! `dso__synthesize_plt_symbols` build them.
//!
//! perf reads symbols from `syms` (the first candidate file with a
//! `.symtab`, often a separate debug file) and takes section and segment
//! layout from `runtime` (the first candidate with a `.dynsym`, the real
//! binary): `.symtab` first, then `.dynsym` of the same file, with
//! `symbols__fixup_end` and `symbols__fixup_duplicate` after each; then
//! one `<name>@plt` symbol per `.rela.plt` entry.
//!
//! Addresses are moved into file-offset space (`st_value - (p_vaddr -
//! p_offset)` of the `PT_LOAD` segment that holds them, else `sh_addr -
//! sh_offset` of their section), so that `map_ip` (which gives a file
//! offset) finds them whatever the load address.

use object::elf;
use object::read::elf::{FileHeader, Rel, Rela, SectionHeader, Sym, SymbolTable};
use object::read::ReadRef;
use object::{Endianness, SectionIndex};

use super::demangle::demangle_sym;
use super::elf::Elf;
use super::symbols::{Symbol, Symbols, STB_GLOBAL, STT_FUNC};

/// How to name symbols.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Naming {
    /// Demangle (`symbol_conf.demangle`, or `demangle_kernel` for kernel
    /// objects).
    pub(crate) demangle: bool,
}

impl Naming {
    /// The symbol for one ELF entry, demangled lazily when perf would.
    fn symbol(self, start: u64, len: u64, binding: u8, kind: u8, raw: &[u8]) -> Symbol {
        let s = String::from_utf8_lossy(raw);
        if self.demangle {
            Symbol::mangled(start, len, binding, kind, &s)
        } else {
            Symbol::new(start, len, binding, kind, &s)
        }
    }

    fn name(self, raw: &[u8]) -> String {
        let s = String::from_utf8_lossy(raw);
        if self.demangle {
            if let Some(d) = demangle_sym(&s, false) {
                return d;
            }
        }
        s.into_owned()
    }
}

/// The loading of one table failed the way perf's does (a symbol in a
/// section that does not exist aborts `dso__load_sym_internal`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BadTable;

/// `dso__load_sym`: `.symtab` (if `syms` has one) then `.dynsym` (if
/// `syms` has one) into `out`. Returns how many symbols were read.
pub(crate) fn load_sym<'a, 'b, H, R1, R2>(
    syms: &Elf<'a, H, R1>,
    runtime: &Elf<'b, H, R2>,
    naming: Naming,
    out: &mut Symbols,
) -> Result<usize, BadTable>
where
    H: FileHeader<Endian = Endianness>,
    R1: ReadRef<'a>,
    R2: ReadRef<'b>,
{
    let mut nr = 0;
    if let Some(t) = syms.symtab(b".symtab", elf::SHT_SYMTAB) {
        nr += load_table(syms, runtime, t, naming, true, out)?;
    }
    if let Some(t) = syms.symtab(b".dynsym", elf::SHT_DYNSYM) {
        nr += load_table(syms, runtime, t, naming, true, out)?;
    }
    Ok(nr)
}

/// A vmlinux's `.symtab` at link addresses (the kernel map then
/// translates by the identity, see `kmaps.rs`).
pub(crate) fn load_kernel_symtab<'a, H, R>(e: &Elf<'a, H, R>, naming: Naming, out: &mut Symbols)
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'a>,
{
    if let Some(t) = e.symtab(b".symtab", elf::SHT_SYMTAB) {
        let _ = load_table(e, e, t, naming, false, out);
    }
}

fn is_label<H: FileHeader>(s: &H::Sym, e: H::Endian) -> bool {
    let shndx = s.st_shndx(e);
    s.st_type() == elf::STT_NOTYPE
        && s.st_name(e) != 0
        && shndx != elf::SHN_UNDEF
        && shndx != elf::SHN_ABS
        && s.st_visibility() != elf::STV_HIDDEN
        && s.st_visibility() != elf::STV_INTERNAL
}

fn is_function_or_object<H: FileHeader>(s: &H::Sym, e: H::Endian) -> bool {
    let t = s.st_type();
    (t == elf::STT_FUNC || t == elf::STT_GNU_IFUNC || t == elf::STT_OBJECT)
        && s.st_name(e) != 0
        && s.st_shndx(e) != elf::SHN_UNDEF
}

fn is_arm_mapping_symbol(name: &[u8]) -> bool {
    matches!(
        name,
        [b'$', b'a' | b'd' | b't' | b'x'] | [b'$', b'a' | b'd' | b't' | b'x', b'.', ..]
    )
}

// dso__load_sym_internal for a user-space object.
fn load_table<'a, 'b, H, R1, R2>(
    syms: &Elf<'a, H, R1>,
    runtime: &Elf<'b, H, R2>,
    (index, section): (SectionIndex, &'a H::SectionHeader),
    naming: Naming,
    adjust: bool,
    out: &mut Symbols,
) -> Result<usize, BadTable>
where
    H: FileHeader<Endian = Endianness>,
    R1: ReadRef<'a>,
    R2: ReadRef<'b>,
{
    let e = syms.endian;
    let table =
        SymbolTable::parse(e, syms.data, &syms.sections, index, section).map_err(|_| BadTable)?;
    let machine = syms.header.e_machine(e);
    let arm = machine == elf::EM_ARM || machine == elf::EM_AARCH64;
    let mut nr = 0;
    for sym in table.iter() {
        let label = is_label::<H>(sym, e);
        if !label && !is_function_or_object::<H>(sym, e) {
            continue;
        }
        let raw_name = table.symbol_name(e, sym).unwrap_or(b"");
        if arm && is_arm_mapping_symbol(raw_name) {
            continue;
        }
        let shndx = sym.st_shndx(e);
        if shndx == elf::SHN_ABS {
            continue;
        }
        let idx = SectionIndex(usize::from(shndx.0));
        let shdr = syms.sections.section(idx).map_err(|_| BadTable)?;
        if !shdr.sh_flags(e).contains(elf::SHF_ALLOC) {
            continue;
        }
        // A NOBITS section in a debug file has no valid offset: take the
        // runtime object's section of the same index.
        let mut sec_name = syms.section_name(shdr);
        let (addr, offset): (u64, u64);
        if shdr.sh_type(e) == elf::SHT_NOBITS {
            let rs = runtime.sections.section(idx).map_err(|_| BadTable)?;
            sec_name = runtime.section_name(rs);
            addr = rs.sh_addr(runtime.endian).into();
            offset = rs.sh_offset(runtime.endian).into();
        } else {
            addr = shdr.sh_addr(e).into();
            offset = shdr.sh_offset(e).into();
        }
        if label && !contains(sec_name, b"text") && !contains(sec_name, b"data") {
            continue;
        }
        let mut value: u64 = sym.st_value(e).into();
        if machine == elf::EM_ARM && sym.st_type() == elf::STT_FUNC && value & 1 != 0 {
            value -= 1;
        }
        if adjust {
            value = match runtime.load_segment(value) {
                Some((p_vaddr, p_offset)) => value.wrapping_sub(p_vaddr.wrapping_sub(p_offset)),
                None => value.wrapping_sub(addr.wrapping_sub(offset)),
            };
        }
        let size: u64 = sym.st_size(e).into();
        out.insert(naming.symbol(value, size, sym.st_bind().0, sym.st_type().0, raw_name));
        nr += 1;
    }
    if nr > 0 {
        out.fixup_end(false);
        out.fixup_duplicate();
    }
    Ok(nr)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// `dso__synthesize_plt_symbols`: one `<name>@plt` symbol per PLT
/// relocation of `runtime`, at `.plt`'s file offset plus the header, each
/// as large as an entry. Returns how many were added.
pub(crate) fn synthesize_plt<'b, H, R>(
    runtime: &Elf<'b, H, R>,
    naming: Naming,
    out: &mut Symbols,
) -> usize
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'b>,
{
    let e = runtime.endian;
    let Some((dyn_idx, dynshdr)) = runtime.symtab(b".dynsym", elf::SHT_DYNSYM) else {
        return 0;
    };
    let Some((_, rel_plt)) = runtime
        .section_by_name(b".rela.plt")
        .or_else(|| runtime.section_by_name(b".rel.plt"))
    else {
        return 0;
    };
    if rel_plt.sh_link(e) as usize != dyn_idx.0 {
        return 0;
    }
    let Some((_, plt)) = runtime.section_by_name(b".plt") else {
        return 0;
    };
    let Ok(dynsyms) = SymbolTable::parse(e, runtime.data, &runtime.sections, dyn_idx, dynshdr)
    else {
        return 0;
    };
    let strsz = runtime
        .sections
        .section(SectionIndex(dynshdr.sh_link(e) as usize))
        .map_or(0, |s| s.sh_size(e).into());
    if strsz == 0 {
        return 0;
    }
    let entsize: u64 = plt.sh_entsize(e).into();
    let (header, entry) = match runtime.header.e_machine(e) {
        elf::EM_ARM => (20, 12),
        elf::EM_AARCH64 => (32, 16),
        elf::EM_SPARC => (48, 12),
        elf::EM_SPARCV9 => (128, 32),
        _ => (entsize, entsize),
    };
    let mut offset = Into::<u64>::into(plt.sh_offset(e)).wrapping_add(header);
    // gelf_getsym leaves the previous symbol in place for a bad index.
    let mut last: Option<&H::Sym> = None;
    let mut add = |symidx: u32, out: &mut Symbols| {
        if let Some(s) = dynsyms.symbols().get(symidx as usize) {
            last = Some(s);
        }
        let raw = last
            .and_then(|s| dynsyms.symbol_name(e, s).ok())
            .unwrap_or(b"");
        let mut name = naming.name(raw);
        name.push_str("@plt");
        truncate_c(&mut name, 1023);
        out.insert(Symbol::new(offset, entry, STB_GLOBAL, STT_FUNC, &name));
        offset = offset.wrapping_add(entry);
    };
    let mut nr = 0;
    match rel_plt.sh_type(e) {
        elf::SHT_RELA => {
            if let Ok(relas) = rel_plt.data_as_array::<H::Rela, R>(e, runtime.data) {
                for r in relas {
                    add(r.r_sym(e, false), out);
                    nr += 1;
                }
            }
        }
        elf::SHT_REL => {
            if let Ok(rels) = rel_plt.data_as_array::<H::Rel, R>(e, runtime.data) {
                for r in rels {
                    add(r.r_sym(e), out);
                    nr += 1;
                }
            }
        }
        _ => {}
    }
    nr
}

/// `snprintf` into a `char[n + 1]`: at most `n` bytes, on a character
/// boundary.
fn truncate_c(s: &mut String, n: usize) {
    if s.len() > n {
        let mut cut = n;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
}
