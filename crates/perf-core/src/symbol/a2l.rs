// SPDX-License-Identifier: GPL-2.0-only
//! The first record `addr2line -e <file> -i -f <addr>` (binutils 2.40, the
//! one Debian's perf 6.1 runs) prints for an address, read with gimli.
//!
//! bfd's rules, kept here because perf's output depends on them:
//! * the line-table row holding the address (of rows at one address, the
//!   last), its file named by `concat_filename`: relative names under the
//!   unit's `DW_AT_comp_dir`, DWARF 5 indices used as they are;
//! * a DWARF 5 sequence starts with file entry 0 until a `DW_LNS_set_file`
//!   (bfd's decoder starts there, the standard says entry 1): rows before
//!   it name entry 0;
//! * without a row, the ELF function symbol at or before the address in
//!   its section (`_bfd_elf_find_function`, from `.symtab`, else
//!   `.dynsym`) makes a record with the preceding `STT_FILE` name (or
//!   `??`) and line 0; without one, `??:0`, which perf treats as not found.

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use flate2::read::ZlibDecoder;
use gimli::{EndianArcSlice, Reader as _, RunTimeEndian};
use object::elf;
use object::read::elf::{CompressionHeader, FileHeader, SectionHeader, Sym, SymbolTable};
use object::read::ReadRef;
use object::Endianness;

use super::elf::{self as elf_file, AnyElf, Elf};

type Reader = EndianArcSlice<RunTimeEndian>;

/// The most a DWARF section may inflate to (bounds memory on bad input).
const MAX_SECTION: u64 = 1 << 30;

/// What addr2line's first record says: a file (`??` when it names none)
/// and a line (0 for `?`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Record {
    pub(crate) file: String,
    pub(crate) line: u32,
}

/// One row of a sequence.
#[derive(Debug, Clone, Copy)]
struct Row {
    address: u64,
    /// Index into the unit's resolved file names.
    file: u32,
    line: u32,
    end_sequence: bool,
}

/// One unit's decoded line table.
#[derive(Debug, Default)]
struct LineTable {
    files: Vec<String>,
    /// Rows of each sequence, by address (of equal addresses, the last).
    sequences: Vec<Vec<Row>>,
}

struct Unit {
    offset: gimli::DebugInfoOffset,
    ranges: Vec<(u64, u64)>,
    lines: OnceLock<Option<LineTable>>,
}

/// A function symbol candidate of `_bfd_elf_find_function`.
#[derive(Debug, Clone)]
struct FuncSym {
    section: usize,
    value: u64,
    size: u64,
    file: Option<Arc<str>>,
}

/// An ELF file as addr2line sees it.
pub(crate) struct A2l {
    dwarf: Option<gimli::Dwarf<Reader>>,
    units: Vec<Unit>,
    /// Allocated sections as (index, address, size).
    sections: Vec<(usize, u64, u64)>,
    funcs: Vec<FuncSym>,
}

impl std::fmt::Debug for A2l {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("A2l")
            .field("units", &self.units.len())
            .finish_non_exhaustive()
    }
}

impl A2l {
    /// Reads `path` (its DWARF and symbols), `None` if it is not ELF.
    pub(crate) fn open(path: &Path) -> Option<Self> {
        let cache = elf_file::open(path).ok()?;
        match AnyElf::parse(&cache)? {
            AnyElf::E32(e) => Some(Self::from_elf(&e)),
            AnyElf::E64(e) => Some(Self::from_elf(&e)),
        }
    }

    fn from_elf<'d, H, R>(e: &Elf<'d, H, R>) -> Self
    where
        H: FileHeader<Endian = Endianness>,
        R: ReadRef<'d>,
    {
        let dwarf = load_dwarf(e);
        let units = dwarf.as_ref().map(index_units).unwrap_or_default();
        let sections = e
            .sections
            .enumerate()
            .filter(|(_, s)| s.sh_flags(e.endian).contains(elf::SHF_ALLOC))
            .map(|(i, s)| (i.0, s.sh_addr(e.endian).into(), s.sh_size(e.endian).into()))
            .collect();
        A2l {
            dwarf,
            units,
            sections,
            funcs: function_symbols(e),
        }
    }

    /// The first record for `addr`, `None` for `??:0`.
    pub(crate) fn lookup(&self, addr: u64) -> Option<Record> {
        // find_address_in_section: the allocated section holding addr.
        let &(section, _, _) = self
            .sections
            .iter()
            .find(|&&(_, start, size)| addr >= start && addr - start < size)?;
        if let Some(r) = self.line(addr) {
            return Some(r);
        }
        self.function_file(section, addr).map(|file| Record {
            file: file.map_or_else(|| "??".to_owned(), |f| f.to_string()),
            line: 0,
        })
    }

    fn line(&self, addr: u64) -> Option<Record> {
        let dwarf = self.dwarf.as_ref()?;
        for unit in &self.units {
            if !unit.ranges.iter().any(|&(b, e)| addr >= b && addr < e) {
                continue;
            }
            let table = unit.lines.get_or_init(|| decode_lines(dwarf, unit.offset));
            if let Some(r) = table.as_ref().and_then(|t| t.find(addr)) {
                return Some(r);
            }
        }
        None
    }

    /// `_bfd_elf_find_function`'s file name for `addr` (`Some(None)`: a
    /// function but no file symbol).
    fn function_file(&self, section: usize, addr: u64) -> Option<Option<Arc<str>>> {
        let mut best: Option<&FuncSym> = None;
        for f in self
            .funcs
            .iter()
            .filter(|f| f.section == section && f.value <= addr)
        {
            match best {
                Some(b) if !(f.value > b.value || (f.value == b.value && f.size > b.size)) => {}
                _ => best = Some(f),
            }
        }
        best.map(|f| f.file.clone())
    }
}

impl LineTable {
    /// `lookup_address_in_line_info_table`.
    fn find(&self, addr: u64) -> Option<Record> {
        for rows in &self.sequences {
            let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
                continue;
            };
            if addr < first.address || addr >= last.address {
                continue;
            }
            let i = rows.partition_point(|r| r.address <= addr).checked_sub(1)?;
            let row = rows.get(i)?;
            let next = rows.get(i + 1)?;
            if row.end_sequence || addr >= next.address {
                continue;
            }
            let file = self
                .files
                .get(row.file as usize)
                .cloned()
                .unwrap_or_else(|| "<unknown>".into());
            return Some(Record {
                file,
                line: row.line,
            });
        }
        None
    }
}

/// A section's bytes, inflated when `SHF_COMPRESSED` (zlib).
fn section_bytes<'d, H, R>(e: &Elf<'d, H, R>, name: &[u8]) -> Option<Cow<'d, [u8]>>
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'d>,
{
    let (_, s) = e.section_by_name(name)?;
    if s.sh_type(e.endian) == elf::SHT_NOBITS {
        return None;
    }
    match s.compression(e.endian, e.data).ok()? {
        None => s.data(e.endian, e.data).ok().map(Cow::Borrowed),
        Some((header, offset, size)) => {
            if header.ch_type(e.endian) != elf::ELFCOMPRESS_ZLIB {
                return None;
            }
            let want: u64 = header.ch_size(e.endian).into();
            if want > MAX_SECTION {
                return None;
            }
            let raw = e.data.read_bytes_at(offset, size).ok()?;
            let mut out = Vec::with_capacity(usize::try_from(want).ok()?);
            ZlibDecoder::new(raw)
                .take(want)
                .read_to_end(&mut out)
                .ok()?;
            Some(Cow::Owned(out))
        }
    }
}

fn load_dwarf<'d, H, R>(e: &Elf<'d, H, R>) -> Option<gimli::Dwarf<Reader>>
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'d>,
{
    let endian = if e.endian == Endianness::Little {
        RunTimeEndian::Little
    } else {
        RunTimeEndian::Big
    };
    section_bytes(e, b".debug_info")?;
    let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
        let bytes: Arc<[u8]> = match section_bytes(e, id.name().as_bytes()) {
            Some(b) => Arc::from(b.as_ref()),
            None => Arc::from(&[][..]),
        };
        Ok(EndianArcSlice::new(bytes, endian))
    };
    gimli::Dwarf::load(load).ok()
}

/// Every unit with its address ranges (`DW_AT_low_pc`/`high_pc`/`ranges`).
fn index_units(dwarf: &gimli::Dwarf<Reader>) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut headers = dwarf.units();
    while let Ok(Some(header)) = headers.next() {
        let Some(offset) = header.offset().as_debug_info_offset() else {
            continue;
        };
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let mut ranges = Vec::new();
        if let Ok(mut it) = dwarf.unit_ranges(&unit) {
            while let Ok(Some(r)) = it.next() {
                if r.begin < r.end {
                    ranges.push((r.begin, r.end));
                }
            }
        }
        out.push(Unit {
            offset,
            ranges,
            lines: OnceLock::new(),
        });
    }
    out
}

fn attr_string(
    dwarf: &gimli::Dwarf<Reader>,
    unit: &gimli::Unit<Reader>,
    v: gimli::AttributeValue<Reader>,
) -> Option<String> {
    let s = dwarf.attr_string(unit, v).ok()?;
    Some(String::from_utf8_lossy(&s.to_slice().ok()?).into_owned())
}

/// `decode_line_info` for one unit.
fn decode_lines(dwarf: &gimli::Dwarf<Reader>, offset: gimli::DebugInfoOffset) -> Option<LineTable> {
    let header = dwarf.debug_info.header_from_offset(offset).ok()?;
    let unit = dwarf.unit(header).ok()?;
    let mut program = unit.line_program.clone()?;
    let header = program.header().clone();
    let lh = &header;
    let v5 = lh.version() >= 5;
    let comp_dir = unit
        .comp_dir
        .as_ref()
        .and_then(|d| d.to_slice().ok())
        .map(|d| String::from_utf8_lossy(&d).into_owned());
    let dirs: Vec<Option<String>> = lh
        .include_directories()
        .iter()
        .map(|d| attr_string(dwarf, &unit, d.clone()))
        .collect();
    let files: Vec<String> = lh
        .file_names()
        .iter()
        .map(|f| {
            let name = attr_string(dwarf, &unit, f.path_name()).unwrap_or_default();
            concat_filename(&name, f.directory_index(), v5, &dirs, comp_dir.as_deref())
        })
        .collect();
    // bfd's file numbering: DWARF 5 indices as they are, older ones - 1
    // (0 is unknown); a DWARF 5 sequence starts at entry 0.
    let unknown = files.len() as u32;
    let index = |register: u64, set: bool| -> u32 {
        if v5 {
            if set {
                u32::try_from(register).unwrap_or(unknown)
            } else {
                0
            }
        } else {
            register
                .checked_sub(1)
                .and_then(|r| u32::try_from(r).ok())
                .unwrap_or(unknown)
        }
    };
    let mut sequences = Vec::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut row = gimli::LineRow::new(lh);
    let mut file_set = false;
    let mut instructions = lh.instructions();
    while let Ok(Some(insn)) = instructions.next_instruction(lh) {
        if matches!(insn, gimli::LineInstruction::SetFile(_)) {
            file_set = true;
        }
        let emits = row.execute(insn, &mut program).ok()?;
        if emits {
            let r = Row {
                address: row.address(),
                file: index(row.file_index(), file_set),
                line: row.line().map_or(0, |l| l.get() as u32),
                end_sequence: row.end_sequence(),
            };
            // add_line_info keeps only the last row at one address.
            match rows.last_mut() {
                Some(last) if last.address == r.address && last.end_sequence == r.end_sequence => {
                    *last = r
                }
                _ => rows.push(r),
            }
            if r.end_sequence {
                rows.sort_by_key(|x| x.address);
                sequences.push(std::mem::take(&mut rows));
                file_set = false;
            }
            row.reset(lh);
        }
    }
    let mut files = files;
    files.push("<unknown>".into());
    Some(LineTable { files, sequences })
}

/// bfd's `concat_filename`.
fn concat_filename(
    name: &str,
    dir: u64,
    v5: bool,
    dirs: &[Option<String>],
    comp_dir: Option<&str>,
) -> String {
    if name.starts_with('/') {
        return name.to_owned();
    }
    let dir = if v5 { Some(dir) } else { dir.checked_sub(1) };
    let subdir = dir
        .and_then(|d| dirs.get(usize::try_from(d).ok()?))
        .and_then(Option::as_deref);
    let mut dir_name = match subdir {
        Some(s) if s.starts_with('/') => None,
        _ => comp_dir,
    };
    let mut subdir = subdir;
    if dir_name.is_none() {
        dir_name = subdir.take();
    }
    match (dir_name, subdir) {
        (None, _) => name.to_owned(),
        (Some(d), Some(s)) => format!("{d}/{s}/{name}"),
        (Some(d), None) => format!("{d}/{name}"),
    }
}

/// The function candidates of `_bfd_elf_find_function` from `.symtab`
/// (else `.dynsym`), in symbol order, each with the file name bfd would
/// pair with it.
fn function_symbols<'d, H, R>(e: &Elf<'d, H, R>) -> Vec<FuncSym>
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'d>,
{
    let table = [
        (&b".symtab"[..], elf::SHT_SYMTAB),
        (b".dynsym", elf::SHT_DYNSYM),
    ]
    .into_iter()
    .filter_map(|(n, t)| e.symtab(n, t))
    .filter_map(|(i, s)| SymbolTable::parse(e.endian, e.data, &e.sections, i, s).ok())
    .find(|t| t.symbols().len() > 1);
    let Some(table) = table else {
        return Vec::new();
    };
    let en = e.endian;
    let mut out = Vec::new();
    let mut file: Option<Arc<str>> = None;
    #[derive(PartialEq)]
    enum State {
        Nothing,
        Symbol,
        FileAfterSymbol,
    }
    let mut state = State::Nothing;
    for sym in table.symbols().iter().skip(1) {
        let t = sym.st_type();
        if t == elf::STT_FILE {
            let name = table.symbol_name(en, sym).unwrap_or(b"");
            file = Some(Arc::from(String::from_utf8_lossy(name).as_ref()));
            if state == State::Symbol {
                state = State::FileAfterSymbol;
            }
            continue;
        }
        let shndx = sym.st_shndx(en);
        let in_section = !shndx.is_special();
        let excluded = t == elf::STT_SECTION
            || t == elf::STT_OBJECT
            || t == elf::STT_TLS
            || t == elf::STT_COMMON;
        let local = sym.st_bind() == elf::STB_LOCAL;
        let size: u64 = sym.st_size(en).into();
        let annobin =
            size == 0 && local && t == elf::STT_NOTYPE && sym.st_visibility() == elf::STV_HIDDEN;
        if in_section && !excluded && !annobin {
            out.push(FuncSym {
                section: usize::from(shndx.0),
                value: sym.st_value(en).into(),
                size: size.max(1),
                file: file
                    .clone()
                    .filter(|_| local || state != State::FileAfterSymbol),
            });
        }
        if state == State::Nothing {
            state = State::Symbol;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfd_file_names() {
        let dirs = vec![
            Some("/build".to_owned()),
            Some("../sysdeps/x86".to_owned()),
            Some("/usr/include".to_owned()),
        ];
        assert_eq!(
            concat_filename("a.c", 0, true, &dirs, Some("./csu")),
            "/build/a.c"
        );
        assert_eq!(
            concat_filename("libc-start.c", 1, true, &dirs, Some("./csu")),
            "./csu/../sysdeps/x86/libc-start.c"
        );
        assert_eq!(
            concat_filename("stdio.h", 2, true, &dirs, Some("./csu")),
            "/usr/include/stdio.h"
        );
        assert_eq!(
            concat_filename("/abs/x.c", 1, true, &dirs, None),
            "/abs/x.c"
        );
        // DWARF 4: directory 0 is the compilation directory.
        assert_eq!(
            concat_filename("x.c", 0, false, &dirs, Some("/cd")),
            "/cd/x.c"
        );
        assert_eq!(
            concat_filename("x.c", 2, false, &dirs, Some("/cd")),
            "/cd/../sysdeps/x86/x.c"
        );
        assert_eq!(concat_filename("x.c", 1, false, &dirs, None), "/build/x.c");
    }
}
