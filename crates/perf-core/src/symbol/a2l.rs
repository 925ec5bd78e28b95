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

use std::io::Read;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use flate2::read::ZlibDecoder;
use gimli::{EndianSlice, Reader as _, RunTimeEndian};
use object::elf;
use object::read::elf::{CompressionHeader, FileHeader, SectionHeader, Sym, SymbolTable};
use object::read::ReadRef;
use object::Endianness;

use super::elf::{self as elf_file, AnyElf, Elf};

type Reader<'a> = EndianSlice<'a, RunTimeEndian>;

/// The most a DWARF section may inflate to (bounds memory and time on bad
/// input, a zlib bomb): an `SHF_COMPRESSED` section whose `ch_size` is
/// bigger is skipped before anything is inflated or allocated, and the
/// inflated bytes are read through a cap of `ch_size`, so a header that
/// lies gives no more than it says. libc's inflated `.debug_info` is
/// 5.6 MB.
pub(crate) const MAX_SECTION: u64 = 1 << 30;

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

/// What is kept of a unit after indexing: enough to find and decode its
/// line program.
struct Unit {
    ranges: Vec<(u64, u64)>,
    line_offset: gimli::DebugLineOffset,
    address_size: u8,
    comp_dir: Option<String>,
    lines: OnceLock<Option<LineTable>>,
}

/// The sections line programs need, owned (`.debug_info` and the rest are
/// read for the index, then dropped).
struct LineSections {
    endian: RunTimeEndian,
    line: Vec<u8>,
    line_str: Vec<u8>,
    str: Vec<u8>,
}

impl LineSections {
    fn line(&self) -> gimli::DebugLine<Reader<'_>> {
        gimli::DebugLine::new(&self.line, self.endian)
    }
}

/// A function symbol candidate of `_bfd_elf_find_function`.
#[derive(Debug, Clone)]
struct FuncSym {
    name: Arc<str>,
    section: usize,
    value: u64,
    size: u64,
    file: Option<Arc<str>>,
}

/// An ELF file as addr2line sees it.
pub(crate) struct A2l {
    lines: Option<LineSections>,
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
        let raw = crate::regular_file::open(path).ok()?;
        match AnyElf::parse(&cache)? {
            AnyElf::E32(e) => Some(Self::from_elf(&e, &raw)),
            AnyElf::E64(e) => Some(Self::from_elf(&e, &raw)),
        }
    }

    fn from_elf<'d, H, R>(e: &Elf<'d, H, R>, raw: &std::fs::File) -> Self
    where
        H: FileHeader<Endian = Endianness>,
        R: ReadRef<'d>,
    {
        let (lines, units) = match load_sections(e, raw) {
            Some((endian, mut bufs)) => {
                let units = section_reader(e, raw, b".debug_info")
                    .map(|(info, size)| index_units(info, size, &bufs, endian))
                    .unwrap_or_default();
                let mut take = |id| bufs.remove(&id).unwrap_or_default();
                let lines = LineSections {
                    endian,
                    line: take(gimli::SectionId::DebugLine),
                    line_str: take(gimli::SectionId::DebugLineStr),
                    str: take(gimli::SectionId::DebugStr),
                };
                (Some(lines), units)
            }
            None => (None, Vec::new()),
        };
        let sections = e
            .sections
            .enumerate()
            .filter(|(_, s)| s.sh_flags(e.endian).contains(elf::SHF_ALLOC))
            .map(|(i, s)| (i.0, s.sh_addr(e.endian).into(), s.sh_size(e.endian).into()))
            .collect();
        A2l {
            lines,
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
        let sections = self.lines.as_ref()?;
        for unit in &self.units {
            if !unit.ranges.iter().any(|&(b, e)| addr >= b && addr < e) {
                continue;
            }
            let table = unit.lines.get_or_init(|| decode_lines(sections, unit));
            if let Some(r) = table.as_ref().and_then(|t| t.find(addr)) {
                return Some(r);
            }
        }
        None
    }

    /// `_bfd_elf_find_function`'s file name for `addr` (`Some(None)`: a
    /// function but no file symbol).
    fn function_file(&self, section: usize, addr: u64) -> Option<Option<Arc<str>>> {
        self.function(section, addr).map(|f| f.file.clone())
    }

    /// Whether addr2line finds anything for `addr` (it prints `??:0`
    /// otherwise).
    pub(crate) fn finds(&self, addr: u64) -> bool {
        self.lookup(addr).is_some()
    }

    /// `_bfd_elf_find_function` for `addr`: the ELF function symbol
    /// addr2line names (the name as in the symbol table) and its value.
    pub(crate) fn elf_function(&self, addr: u64) -> Option<(Arc<str>, u64)> {
        let &(section, _, _) = self
            .sections
            .iter()
            .find(|&&(_, start, size)| addr >= start && addr - start < size)?;
        self.function(section, addr)
            .map(|f| (Arc::clone(&f.name), f.value))
    }

    /// `_bfd_elf_find_function`'s symbol for `addr` in `section`.
    fn function(&self, section: usize, addr: u64) -> Option<&FuncSym> {
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
        best
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

/// A byte range of a file, read with `pread`.
struct FileRange<'f> {
    file: &'f std::fs::File,
    pos: u64,
    end: u64,
}

impl Read for FileRange<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        use std::os::unix::fs::FileExt;
        let left = usize::try_from(self.end.saturating_sub(self.pos)).unwrap_or(usize::MAX);
        let n = buf.len().min(left);
        if n == 0 {
            return Ok(0);
        }
        let got = self.file.read_at(&mut buf[..n], self.pos)?;
        self.pos += got as u64;
        Ok(got)
    }
}

/// A reader of a section's bytes, inflated as they are read when the
/// section is `SHF_COMPRESSED` (zlib); and their size.
fn section_reader<'f, 'd, H, R>(
    e: &Elf<'d, H, R>,
    raw: &'f std::fs::File,
    name: &[u8],
) -> Option<(Box<dyn Read + 'f>, u64)>
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'d>,
{
    let (_, s) = e.section_by_name(name)?;
    if s.sh_type(e.endian) == elf::SHT_NOBITS {
        return None;
    }
    match s.compression(e.endian, e.data).ok()? {
        None => {
            let (pos, size) = s.file_range(e.endian)?;
            let end = pos.checked_add(size)?;
            Some((
                Box::new(FileRange {
                    file: raw,
                    pos,
                    end,
                }),
                size,
            ))
        }
        Some((header, pos, size)) => {
            if header.ch_type(e.endian) != elf::ELFCOMPRESS_ZLIB {
                return None;
            }
            let want: u64 = header.ch_size(e.endian).into();
            if want > MAX_SECTION {
                return None;
            }
            let end = pos.checked_add(size)?;
            let inflate = ZlibDecoder::new(std::io::BufReader::new(FileRange {
                file: raw,
                pos,
                end,
            }));
            Some((Box::new(inflate.take(want)), want))
        }
    }
}

/// A whole section's (inflated) bytes. Memory grows with what is really
/// read, never with what a header claims.
pub(super) fn section_bytes<'d, H, R>(
    e: &Elf<'d, H, R>,
    raw: &std::fs::File,
    name: &[u8],
) -> Option<Vec<u8>>
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'d>,
{
    let (r, size) = section_reader(e, raw, name)?;
    if size > MAX_SECTION {
        return None;
    }
    // Room for what the header says, taken fallibly (a failure skips the
    // section); the reader gives no more than that.
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(size).ok()?).ok()?;
    r.take(size).read_to_end(&mut out).ok()?;
    Some(out)
}

/// The sections the unit index and the line programs need besides
/// `.debug_info`, which is read one unit at a time (not location lists,
/// macros, frames…).
const NEEDED: [gimli::SectionId; 8] = [
    gimli::SectionId::DebugAbbrev,
    gimli::SectionId::DebugLine,
    gimli::SectionId::DebugLineStr,
    gimli::SectionId::DebugStr,
    gimli::SectionId::DebugStrOffsets,
    gimli::SectionId::DebugAddr,
    gimli::SectionId::DebugRanges,
    gimli::SectionId::DebugRngLists,
];

/// The inflated sections of [`NEEDED`].
type Sections = std::collections::HashMap<gimli::SectionId, Vec<u8>>;

fn load_sections<'d, H, R>(
    e: &Elf<'d, H, R>,
    raw: &std::fs::File,
) -> Option<(RunTimeEndian, Sections)>
where
    H: FileHeader<Endian = Endianness>,
    R: ReadRef<'d>,
{
    let endian = if e.endian == Endianness::Little {
        RunTimeEndian::Little
    } else {
        RunTimeEndian::Big
    };
    e.section_by_name(b".debug_info")?;
    let bufs = NEEDED
        .iter()
        .filter_map(|&id| Some((id, section_bytes(e, raw, id.name().as_bytes())?)))
        .collect();
    Some((endian, bufs))
}

/// Every unit with its address ranges (`DW_AT_low_pc`/`high_pc`/`ranges`).
/// Every unit with its address ranges, its line program's offset and its
/// compilation directory, reading `.debug_info` one unit at a time (an
/// inflated `.debug_info` is the largest section: libc's is 5.6 MB).
fn index_units(
    mut info: impl Read,
    size: u64,
    bufs: &Sections,
    endian: RunTimeEndian,
) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut left = size;
    loop {
        let mut unit = vec![0u8; 4];
        if info.read_exact(&mut unit).is_err() {
            break;
        }
        let len32 = match endian {
            RunTimeEndian::Little => u32::from_le_bytes([unit[0], unit[1], unit[2], unit[3]]),
            RunTimeEndian::Big => u32::from_be_bytes([unit[0], unit[1], unit[2], unit[3]]),
        };
        let len = if len32 == 0xffff_ffff {
            let mut l = [0u8; 8];
            if info.read_exact(&mut l).is_err() {
                break;
            }
            unit.extend_from_slice(&l);
            match endian {
                RunTimeEndian::Little => u64::from_le_bytes(l),
                RunTimeEndian::Big => u64::from_be_bytes(l),
            }
        } else {
            u64::from(len32)
        };
        // bfd's stash_comp_unit: after a zero length (a run of zeros, or
        // IRIX's 64-bit format, which bfd only reads on IRIX) nothing that
        // follows is trusted.
        if len == 0 {
            break;
        }
        // A unit cannot be longer than what is left of the section.
        left = left.saturating_sub(unit.len() as u64);
        if len > left || len > MAX_SECTION {
            break;
        }
        left -= len;
        let at = unit.len();
        unit.resize(at + len as usize, 0);
        if info.read_exact(&mut unit[at..]).is_err() {
            break;
        }
        let get = |id: gimli::SectionId| -> Result<Reader<'_>, gimli::Error> {
            let bytes = if id == gimli::SectionId::DebugInfo {
                &unit[..]
            } else {
                bufs.get(&id).map_or(&[][..], |v| &v[..])
            };
            Ok(EndianSlice::new(bytes, endian))
        };
        if let Ok(dwarf) = gimli::Dwarf::load(get) {
            index_unit(&dwarf, &mut out);
        }
    }
    out
}

fn index_unit(dwarf: &gimli::Dwarf<Reader<'_>>, out: &mut Vec<Unit>) {
    let mut headers = dwarf.units();
    while let Ok(Some(header)) = headers.next() {
        let Ok(unit) = dwarf.unit(header) else {
            continue;
        };
        let Some(program) = unit.line_program.as_ref() else {
            continue;
        };
        let line_offset = program.header().offset();
        let address_size = unit.header.address_size();
        let comp_dir = unit
            .comp_dir
            .as_ref()
            .and_then(|d| d.to_slice().ok())
            .map(|d| String::from_utf8_lossy(&d).into_owned());
        let mut ranges = Vec::new();
        if let Ok(mut it) = dwarf.unit_ranges(&unit) {
            while let Ok(Some(r)) = it.next() {
                if r.begin < r.end {
                    ranges.push((r.begin, r.end));
                }
            }
        }
        out.push(Unit {
            ranges,
            line_offset,
            address_size,
            comp_dir,
            lines: OnceLock::new(),
        });
    }
}

/// A line-program string (`DW_FORM_string`, `line_strp`, `strp`).
fn line_string(sections: &LineSections, v: gimli::AttributeValue<Reader<'_>>) -> Option<String> {
    let r = match v {
        gimli::AttributeValue::String(r) => r,
        gimli::AttributeValue::DebugLineStrRef(o) => {
            gimli::DebugLineStr::new(&sections.line_str, sections.endian)
                .get_str(o)
                .ok()?
        }
        gimli::AttributeValue::DebugStrRef(o) => {
            gimli::DebugStr::new(&sections.str, sections.endian)
                .get_str(o)
                .ok()?
        }
        _ => return None,
    };
    Some(String::from_utf8_lossy(r.slice()).into_owned())
}

/// `decode_line_info` for one unit.
fn decode_lines(sections: &LineSections, unit: &Unit) -> Option<LineTable> {
    let mut program = sections
        .line()
        .program(unit.line_offset, unit.address_size, None, None)
        .ok()?;
    let header = program.header().clone();
    let lh = &header;
    let v5 = lh.version() >= 5;
    let comp_dir = unit.comp_dir.as_deref();
    let dirs: Vec<Option<String>> = lh
        .include_directories()
        .iter()
        .map(|d| line_string(sections, *d))
        .collect();
    let files: Vec<String> = lh
        .file_names()
        .iter()
        .map(|f| {
            let name = line_string(sections, f.path_name()).unwrap_or_default();
            concat_filename(&name, f.directory_index(), v5, &dirs, comp_dir)
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
            let name = table.symbol_name(en, sym).unwrap_or(b"");
            out.push(FuncSym {
                name: Arc::from(String::from_utf8_lossy(name).as_ref()),
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
