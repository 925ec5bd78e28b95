// SPDX-License-Identifier: GPL-2.0-only
//! Reading ELF objects the way perf's symbol-elf.c looks at them: sections
//! found by name (`elf_section_by_name`), the build-id note, the
//! `.gnu_debuglink` name, the `.text` offset and the program headers.
//!
//! Files are read through `object::ReadCache`: only the parts asked for
//! (headers, the symbol and string tables, some sections) are read into
//! memory, and nothing is mapped.

use std::fs::File;
use std::path::Path;

use object::elf::{self, FileHeader32, FileHeader64};
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, SectionTable};
use object::read::{ReadCache, ReadRef};
use object::{Endian, Endianness, SectionIndex};

use super::build_id::BuildId;

/// A file opened for reading on demand.
pub(crate) type FileCache = ReadCache<File>;

/// Opens `path` for [`AnyElf::parse`], if it is a regular file (perf's
/// `is_regular_file()` check: a FIFO or a device is skipped, not read).
pub(crate) fn open(path: &Path) -> std::io::Result<FileCache> {
    crate::regular_file::open(path).map(ReadCache::new)
}

/// An ELF object of either class.
pub(crate) enum AnyElf<'d, R: ReadRef<'d>> {
    /// ELFCLASS32.
    E32(Elf<'d, FileHeader32<Endianness>, R>),
    /// ELFCLASS64.
    E64(Elf<'d, FileHeader64<Endianness>, R>),
}

/// Calls `$body` with `$e` bound to the class-specific view.
macro_rules! with_elf {
    ($any:expr, $e:ident => $body:expr) => {
        match $any {
            AnyElf::E32($e) => $body,
            AnyElf::E64($e) => $body,
        }
    };
}
pub(crate) use with_elf;

impl<'d, R: ReadRef<'d>> AnyElf<'d, R> {
    /// Parses the ELF header and section table; `None` when `data` is not
    /// an ELF object perf could read.
    pub(crate) fn parse(data: R) -> Option<Self> {
        let ident = data.read_bytes_at(0, 16).ok()?;
        if ident.get(..4) != Some(&elf::ELFMAG[..]) {
            return None;
        }
        // e_ident[EI_CLASS]
        match ident.get(4).copied() {
            Some(c) if c == elf::ELFCLASS32.0 => Elf::parse(data).map(AnyElf::E32),
            Some(c) if c == elf::ELFCLASS64.0 => Elf::parse(data).map(AnyElf::E64),
            _ => None,
        }
    }

    /// `elf_read_build_id`.
    pub(crate) fn build_id(&self) -> Option<BuildId> {
        with_elf!(self, e => e.build_id())
    }

    /// `filename__read_debuglink`: the file name in `.gnu_debuglink`.
    pub(crate) fn debuglink(&self) -> Option<Vec<u8>> {
        with_elf!(self, e => e.debuglink())
    }

    /// True if a section named `.symtab` has type `SHT_SYMTAB`
    /// (`symsrc__has_symtab`).
    pub(crate) fn has_symtab(&self) -> bool {
        with_elf!(self, e => e.symtab(b".symtab", elf::SHT_SYMTAB).is_some())
    }

    /// True if a section named `.dynsym` has type `SHT_DYNSYM`
    /// (`symsrc__possibly_runtime`; ppc64's `.opd` is not handled).
    pub(crate) fn has_dynsym(&self) -> bool {
        with_elf!(self, e => e.symtab(b".dynsym", elf::SHT_DYNSYM).is_some())
    }

    /// `e_type == ET_REL`.
    pub(crate) fn is_rel(&self) -> bool {
        with_elf!(self, e => e.header.e_type(e.endian) == elf::ET_REL)
    }

    /// The raw bytes of the first section named `name`, when it has data
    /// in the file.
    pub(crate) fn section_data(&self, name: &[u8]) -> Option<&'d [u8]> {
        with_elf!(self, e => e.section_by_name(name).and_then(|(_, s)| s.data(e.endian, e.data).ok()))
    }
}

/// One class-specific ELF view.
pub(crate) struct Elf<'d, H: FileHeader<Endian = Endianness>, R: ReadRef<'d>> {
    pub(crate) data: R,
    pub(crate) header: &'d H,
    pub(crate) endian: Endianness,
    pub(crate) sections: SectionTable<'d, H, R>,
}

impl<'d, H: FileHeader<Endian = Endianness>, R: ReadRef<'d>> Elf<'d, H, R> {
    fn parse(data: R) -> Option<Self> {
        let header = H::parse(data).ok()?;
        let endian = header.endian().ok()?;
        let sections = header.sections(endian, data).ok()?;
        Some(Elf {
            data,
            header,
            endian,
            sections,
        })
    }

    /// `elf_section_by_name`: the first section (from index 1) so named.
    pub(crate) fn section_by_name(
        &self,
        name: &[u8],
    ) -> Option<(SectionIndex, &'d H::SectionHeader)> {
        self.sections
            .enumerate()
            .skip(1)
            .find(|(_, s)| self.sections.section_name(self.endian, s).ok() == Some(name))
    }

    /// The name of a section header, empty when unreadable.
    pub(crate) fn section_name(&self, s: &H::SectionHeader) -> &'d [u8] {
        self.sections.section_name(self.endian, s).unwrap_or(b"")
    }

    /// The section named `name` when it has type `kind`.
    pub(crate) fn symtab(
        &self,
        name: &[u8],
        kind: elf::SectionType,
    ) -> Option<(SectionIndex, &'d H::SectionHeader)> {
        self.section_by_name(name)
            .filter(|(_, s)| s.sh_type(self.endian) == kind)
    }

    fn build_id(&self) -> Option<BuildId> {
        let sec = [&b".note.gnu.build-id"[..], b".notes", b".note"]
            .iter()
            .find_map(|n| self.section_by_name(n))?;
        let data = sec.1.data(self.endian, self.data).ok()?;
        if self.endian.is_little_endian() == cfg!(target_endian = "little") {
            BuildId::from_notes(data)
        } else {
            None
        }
    }

    fn debuglink(&self) -> Option<Vec<u8>> {
        let (_, s) = self.section_by_name(b".gnu_debuglink")?;
        let data = s.data(self.endian, self.data).ok()?;
        let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
        Some(data[..end].to_vec())
    }

    /// `.text`'s `sh_addr - sh_offset` (perf's `dso->text_offset`).
    pub(crate) fn text_offset(&self) -> Option<u64> {
        let (_, s) = self.section_by_name(b".text")?;
        let (addr, off): (u64, u64) = (
            s.sh_addr(self.endian).into(),
            s.sh_offset(self.endian).into(),
        );
        Some(addr.wrapping_sub(off))
    }

    /// `elf_read_program_header`: the `PT_LOAD` segment holding `vaddr`,
    /// as `(p_vaddr, p_offset)`.
    pub(crate) fn load_segment(&self, vaddr: u64) -> Option<(u64, u64)> {
        let phdrs = self.header.program_headers(self.endian, self.data).ok()?;
        phdrs.iter().find_map(|p| {
            if p.p_type(self.endian) != elf::PT_LOAD {
                return None;
            }
            let start: u64 = p.p_vaddr(self.endian).into();
            let memsz: u64 = p.p_memsz(self.endian).into();
            let filesz: u64 = p.p_filesz(self.endian).into();
            let size = memsz.max(filesz);
            (size != 0 && vaddr >= start && vaddr - start < size)
                .then(|| (start, p.p_offset(self.endian).into()))
        })
    }
}
