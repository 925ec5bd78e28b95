// SPDX-License-Identifier: GPL-2.0-only
//! Inlined frames of an address, as perf 6.1 adds them to call chains when
//! `symbol_conf.inline_name` is set (`append_inlines` in util/machine.c,
//! `dso__parse_addr_inlines` in util/srcline.c).
//!
//! Debian's perf 6.1 has no libbfd: it asks `addr2line -e <file> -i -f`
//! (binutils 2.40) about the objdump address and makes one frame of each
//! record it prints, innermost first, out to the function holding the
//! address. Each record's function name is demangled (`dso__demangle_sym`)
//! and, by `new_inline_sym`, is the frame's own symbol when the names are
//! equal, else a symbol of that name marked inlined (perf script prints
//! `(inlined)` after it). A first record of `??:0` (nothing found) leaves
//! the frame as it is.
//!
//! The records come from gimli through the `addr2line` crate: the
//! innermost inlined subroutine holding the address, then its callers out
//! to the subprogram, each named by `DW_AT_linkage_name`, else
//! `DW_AT_name` (following `DW_AT_abstract_origin` and
//! `DW_AT_specification`), as bfd names them. Where no DWARF function
//! holds the address, addr2line names the ELF function symbol bfd's
//! `_bfd_elf_find_function` picks (`A2l::elf_function`). The answers
//! are kept per DSO and address (perf's `inlines__tree`), and never asked
//! again, as perf asks its one addr2line process per DSO once per address.
//!
//! bfd's rule for a function named by `DW_AT_name` alone in a unit whose
//! language mangles names (C++, Rust; not C, Fortran, Ada…: bfd's
//! `non_mangled`), kept because perf prints its result: the first time
//! such a function is the innermost one of an address, addr2line prints
//! the ELF function symbol holding the address instead (a C++ lambda's
//! `operator()` inlined into `std::_Function_handler<…>::_M_invoke` is
//! printed as the latter, mangled; perf demangles it and finds its own
//! symbol), and renames the function to it for good when the symbol starts
//! where the function does; any later time it prints the function's
//! (possibly new) name, innermost or as a caller. So a name depends on
//! which addresses were asked about before, in the order call chains are
//! first resolved, as in perf.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use gimli::{EndianArcSlice, RunTimeEndian};
use object::read::elf::FileHeader;
use object::read::ReadRef;
use object::Endianness;

use super::a2l::{section_bytes, A2l};
use super::callchain::CallchainNode;
use super::demangle::demangle_sym;
use super::dsos::Dsos;
use super::elf::{self as elf_file, AnyElf, Elf};
use super::srcline::a2l_file;

type Reader = EndianArcSlice<RunTimeEndian>;

/// perf's `MAX_INLINE_NEST`: records after the first kept per address.
const MAX_INLINE_NEST: usize = 1024;

/// One object's DWARF, read for inlined frames on first use.
pub(crate) struct Inliner {
    context: Option<Mutex<addr2line::Context<Reader>>>,
    /// What addr2line's process would remember.
    memo: Mutex<Memo>,
}

/// The answers given, and bfd's state behind them.
#[derive(Default)]
struct Memo {
    /// The function names of each address asked about, demangled,
    /// innermost first (empty: the frame stays as it is).
    names: HashMap<u64, Arc<[Arc<str>]>>,
    /// The name of each function bfd has settled (`is_linkage` set by
    /// its ELF symbol rule), by (unit, DIE) offset in `.debug_info`.
    settled: HashMap<(usize, usize), Arc<str>>,
}

/// A DWARF function holding an address, as bfd's `funcinfo` has it.
struct Function {
    key: (usize, usize),
    name: Arc<str>,
    /// bfd's `is_linkage`: named by `DW_AT_linkage_name`, or by
    /// `DW_AT_name` in a unit of a language that does not mangle names.
    linkage: bool,
    /// bfd's `arange.low`: the first address range's start.
    low: Option<u64>,
}

impl std::fmt::Debug for Inliner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inliner")
            .field("dwarf", &self.context.is_some())
            .finish_non_exhaustive()
    }
}

impl Inliner {
    /// Reads the DWARF sections of `path` (each through the caps of
    /// `a2l::section_bytes`); an object without `.debug_info` has none.
    pub(crate) fn open(path: &Path) -> Self {
        Inliner {
            context: Self::context(path).map(Mutex::new),
            memo: Mutex::new(Memo::default()),
        }
    }

    fn context(path: &Path) -> Option<addr2line::Context<Reader>> {
        let cache = elf_file::open(path).ok()?;
        let raw = crate::regular_file::open(path).ok()?;
        match AnyElf::parse(&cache)? {
            AnyElf::E32(e) => dwarf_context(&e, &raw),
            AnyElf::E64(e) => dwarf_context(&e, &raw),
        }
    }

    /// The names of the records addr2line prints for `addr`, innermost
    /// first; empty when it finds nothing.
    fn names(&self, addr: u64, a2l: Option<&A2l>) -> Arc<[Arc<str>]> {
        let mut memo = self.memo.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = memo.names.get(&addr) {
            return Arc::clone(n);
        }
        let functions = self.functions(addr);
        let elf = || a2l.and_then(|a| a.elf_function(addr));
        let mut names: Vec<Arc<str>> = Vec::new();
        if functions.is_empty() {
            names.extend(
                a2l.filter(|a| a.finds(addr))
                    .map(|_| elf().map_or_else(|| Arc::from("??"), |(n, _)| n)),
            );
        }
        for (i, f) in functions.iter().enumerate().take(MAX_INLINE_NEST + 1) {
            let name = if let Some(n) = memo.settled.get(&f.key) {
                Arc::clone(n)
            } else if i == 0 && !f.linkage {
                // _bfd_dwarf2_find_nearest_line's is_linkage rule.
                let (shown, settled) = match elf() {
                    None => (Arc::clone(&f.name), Arc::clone(&f.name)),
                    Some((n, value)) if Some(value) == f.low => (Arc::clone(&n), n),
                    Some((n, _)) => (n, Arc::clone(&f.name)),
                };
                memo.settled.insert(f.key, settled);
                shown
            } else {
                Arc::clone(&f.name)
            };
            names.push(name);
        }
        let names: Arc<[Arc<str>]> = names
            .into_iter()
            .map(|n| demangle_sym(&n, false).map_or(n, Arc::from))
            .collect();
        memo.names.insert(addr, Arc::clone(&names));
        names
    }

    /// The DWARF functions holding `addr`, innermost first; empty without
    /// one (or when a location holds it but no function does).
    fn functions(&self, addr: u64) -> Vec<Function> {
        let Some(context) = &self.context else {
            return Vec::new();
        };
        let context = context.lock().unwrap_or_else(|e| e.into_inner());
        let Some(unit) = context.find_dwarf_and_unit(addr).skip_all_loads() else {
            return Vec::new();
        };
        let Ok(mut frames) = context.find_frames(addr).skip_all_loads() else {
            return Vec::new();
        };
        let unit_offset = unit
            .header
            .offset()
            .as_debug_info_offset()
            .map_or(usize::MAX, |o| o.0);
        let mangles = mangles_names(&unit);
        let mut out = Vec::new();
        while let Ok(Some(frame)) = frames.next() {
            let (Some(function), Some(die)) = (frame.function, frame.dw_die_offset) else {
                return Vec::new();
            };
            let name: Arc<str> = match function.raw_name() {
                Ok(n) if !n.is_empty() => Arc::from(n.as_ref()),
                _ => Arc::from("??"),
            };
            let entry = unit.entry(die).ok();
            // A mangled name is a linkage name (the addr2line crate prefers
            // them too), found where has_linkage_name does not look: an
            // abstract origin in another unit.
            let linkage = !mangles
                || name.starts_with("_Z")
                || name.starts_with("_R")
                || entry.as_ref().is_some_and(|e| has_linkage_name(&unit, e));
            let low = entry.as_ref().and_then(|e| {
                let mut ranges = unit.die_ranges(e).ok()?;
                ranges.next().ok().flatten().map(|r| r.begin)
            });
            out.push(Function {
                key: (unit_offset, die.0),
                name,
                linkage,
                low,
            });
        }
        out
    }
}

/// Whether the unit's language mangles names (not bfd's `non_mangled`).
fn mangles_names(unit: &gimli::UnitRef<'_, Reader>) -> bool {
    let mut entries = unit.entries();
    let Ok(Some((_, root))) = entries.next_dfs() else {
        return true;
    };
    let Ok(Some(gimli::AttributeValue::Language(lang))) = root.attr_value(gimli::DW_AT_language)
    else {
        return true;
    };
    !matches!(
        lang,
        gimli::DW_LANG_C89
            | gimli::DW_LANG_C
            | gimli::DW_LANG_Ada83
            | gimli::DW_LANG_Cobol74
            | gimli::DW_LANG_Cobol85
            | gimli::DW_LANG_Fortran77
            | gimli::DW_LANG_Pascal83
            | gimli::DW_LANG_C99
            | gimli::DW_LANG_Ada95
            | gimli::DW_LANG_PLI
            | gimli::DW_LANG_UPC
            | gimli::DW_LANG_C11
            | gimli::DW_LANG_Mips_Assembler
    )
}

/// Whether a function DIE, or the DIEs its `DW_AT_abstract_origin` and
/// `DW_AT_specification` lead to in its unit, has a linkage name (the
/// name bfd's `find_abstract_instance` prefers).
fn has_linkage_name(
    unit: &gimli::UnitRef<'_, Reader>,
    entry: &gimli::DebuggingInformationEntry<'_, '_, Reader>,
) -> bool {
    let linkage = |e: &gimli::DebuggingInformationEntry<'_, '_, Reader>| {
        [gimli::DW_AT_linkage_name, gimli::DW_AT_MIPS_linkage_name]
            .iter()
            .any(|&at| matches!(e.attr_value(at), Ok(Some(_))))
    };
    let next = |e: &gimli::DebuggingInformationEntry<'_, '_, Reader>| {
        [gimli::DW_AT_abstract_origin, gimli::DW_AT_specification]
            .iter()
            .find_map(|&at| match e.attr_value(at) {
                Ok(Some(gimli::AttributeValue::UnitRef(o))) => Some(o),
                _ => None,
            })
    };
    if linkage(entry) {
        return true;
    }
    let mut at = next(entry);
    // As deep as bfd follows them (a chain of references is short).
    for _ in 0..16 {
        let Some(offset) = at else {
            return false;
        };
        let Ok(e) = unit.entry(offset) else {
            return false;
        };
        if linkage(&e) {
            return true;
        }
        at = next(&e);
    }
    false
}

fn dwarf_context<'d, H, R>(
    e: &Elf<'d, H, R>,
    raw: &std::fs::File,
) -> Option<addr2line::Context<Reader>>
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'d>,
{
    e.section_by_name(b".debug_info")?;
    let endian = if e.endian == Endianness::Little {
        RunTimeEndian::Little
    } else {
        RunTimeEndian::Big
    };
    // Not location lists or macros: functions and lines need neither.
    let unused = [
        gimli::SectionId::DebugLoc,
        gimli::SectionId::DebugLocLists,
        gimli::SectionId::DebugMacinfo,
        gimli::SectionId::DebugMacro,
    ];
    let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
        let bytes = if unused.contains(&id) {
            Vec::new()
        } else {
            section_bytes(e, raw, id.name().as_bytes()).unwrap_or_default()
        };
        Ok(EndianArcSlice::new(Arc::from(bytes), endian))
    };
    let dwarf = gimli::Dwarf::load(load).ok()?;
    nesting_within(&dwarf, MAX_DIE_DEPTH).then_some(())?;
    addr2line::Context::from_dwarf(dwarf).ok()
}

/// The deepest DIE nesting used: the addr2line crate recurses once per
/// nested `DW_TAG_inlined_subroutine`, so a file nesting them deeper could
/// exhaust the stack. Compilers' output nests far less (libc's debug file
/// 17 levels, a Rust binary's 29).
const MAX_DIE_DEPTH: isize = 256;

/// Whether no DIE of any unit is nested deeper than `limit` (read up to
/// the first malformed entry of each unit, where the addr2line crate's
/// own reading stops too).
fn nesting_within(dwarf: &gimli::Dwarf<Reader>, limit: isize) -> bool {
    let mut units = dwarf.units();
    while let Ok(Some(header)) = units.next() {
        let Ok(abbrevs) = dwarf.abbreviations(&header) else {
            continue;
        };
        let Ok(mut entries) = header.entries_raw(&abbrevs, None) else {
            continue;
        };
        while !entries.is_empty() {
            if entries.next_depth() > limit {
                return false;
            }
            match entries.read_abbreviation() {
                Ok(Some(abbrev)) => {
                    if entries.skip_attributes(abbrev.attributes()).is_err() {
                        break;
                    }
                }
                Ok(None) => {}
                Err(_) => break,
            }
        }
    }
    true
}

impl Dsos {
    /// perf's `append_inlines` for one resolved frame: the frames perf
    /// puts in its place when `inline_name` is set, innermost first, each
    /// with the frame's ip and map; the frame alone when the address has
    /// no record (no map, no symbol, no object addr2line reads).
    pub(crate) fn append_inlines(&self, node: CallchainNode, out: &mut Vec<CallchainNode>) {
        let names = self.inline_names(&node);
        if names.is_empty() {
            out.push(node);
            return;
        }
        let own = node.location.symbol_name().map(str::to_owned);
        for name in names.iter() {
            let mut frame = node.clone();
            if own.as_deref() != Some(&**name) {
                frame.inline = Some(Arc::clone(name));
            }
            out.push(frame);
        }
    }

    fn inline_names(&self, node: &CallchainNode) -> Arc<[Arc<str>]> {
        let al = &node.location;
        let (Some(map), Some(_)) = (al.map.as_ref(), al.sym.as_ref()) else {
            return Arc::from([]);
        };
        let dso = map.dso();
        let loaded = self.load(dso);
        let Some(file) = a2l_file(dso, loaded.symsrc_filename.as_ref()) else {
            return Arc::from([]);
        };
        let inliner = loaded.inlines.get_or_init(|| Inliner::open(&file));
        let a2l = loaded.dwarf.get_or_init(|| A2l::open(&file).map(Arc::new));
        inliner.names(map.rip_2objdump(al.addr), a2l.as_deref())
    }
}

/// The function names `addr2line -i -f -e <path>` prints for each of
/// `addrs` in turn, as perf reads them (nothing for an address whose first
/// record is `??:0`), demangled as perf does: what [`Dsos`] gives call
/// chain frames with `inline_name`, for an object read directly.
pub fn addr2line_names(path: &Path, addrs: impl IntoIterator<Item = u64>) -> Vec<Vec<String>> {
    let inliner = Inliner::open(path);
    let a2l = A2l::open(path);
    addrs
        .into_iter()
        .map(|addr| {
            inliner
                .names(addr, a2l.as_ref())
                .iter()
                .map(|n| n.to_string())
                .collect()
        })
        .collect()
}
