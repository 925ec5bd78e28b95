// SPDX-License-Identifier: GPL-2.0-only
//! An object's unwind tables, as perf 6.1's libunwind glue finds them
//! (`read_unwind_spec_eh_frame`, `read_unwind_spec_debug_frame`):
//! `.eh_frame` through its `.eh_frame_hdr` search table, else
//! `.debug_frame`. Read once per DSO from the file perf reads object data
//! from; parsed and evaluated by gimli.

use std::ops::Range;
use std::sync::Arc;

use gimli::{
    BaseAddresses, CieOrFde, DebugFrame, DebugFrameOffset, EhFrame, EhFrameHdr, EndianSlice,
    FrameDescriptionEntry, LittleEndian, ParsedEhFrameHdr, UnwindContext, UnwindSection,
    UnwindTableRow,
};
use object::elf;
use object::read::elf::{FileHeader, ProgramHeader, SectionHeader};
use object::ReadRef;

use super::elf::{AnyElf, Elf};

/// Section bytes as gimli reads them.
pub(crate) type Slice<'a> = EndianSlice<'a, LittleEndian>;

/// Where an object's CFI is.
enum Tables {
    /// `.eh_frame` and its `.eh_frame_hdr` (the search table libunwind
    /// needs: perf gives it no `.eh_frame` without one).
    EhFrame { eh_frame: Arc<[u8]>, hdr: Arc<[u8]> },
    /// `.debug_frame`, with the FDEs' ranges sorted: (start, end, offset).
    DebugFrame {
        data: Arc<[u8]>,
        index: Vec<(u64, u64, usize)>,
    },
}

/// An object's unwind tables and where its `PT_LOAD` segments sit in the
/// file.
pub(crate) struct UnwindInfo {
    tables: Tables,
    bases: BaseAddresses,
    /// `(p_offset, p_filesz, p_vaddr)` of each `PT_LOAD` segment.
    segments: Vec<(u64, u64, u64)>,
}

impl std::fmt::Debug for UnwindInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnwindInfo")
            .field("segments", &self.segments)
            .finish_non_exhaustive()
    }
}

/// The unwind row for an address, and what its CIE says.
pub(crate) struct Row<'a> {
    /// The rules at the address.
    pub row: UnwindTableRow<usize>,
    /// The CIE's encoding (for expressions).
    pub encoding: gimli::Encoding,
    /// The CIE marks a signal trampoline (augmentation `S`).
    pub signal_frame: bool,
    /// The section the rules' expressions are in.
    pub section: Section<'a>,
}

/// The section a row came from.
#[derive(Clone, Copy)]
pub(crate) enum Section<'a> {
    /// `.eh_frame`.
    EhFrame(EhFrame<Slice<'a>>),
    /// `.debug_frame`.
    DebugFrame(DebugFrame<Slice<'a>>),
}

impl Section<'_> {
    /// The bytes of an expression of a rule of a row of this section.
    pub(crate) fn expression(
        &self,
        e: &gimli::UnwindExpression<usize>,
    ) -> gimli::Result<gimli::Expression<Slice<'_>>> {
        match self {
            Section::EhFrame(s) => e.get(s),
            Section::DebugFrame(s) => e.get(s),
        }
    }
}

impl UnwindInfo {
    /// The unwind tables of a 64-bit object; `None` without any perf
    /// would use.
    pub(crate) fn read<'d, R: ReadRef<'d>>(any: &AnyElf<'d, R>) -> Option<UnwindInfo> {
        let AnyElf::E64(e) = any else {
            return None;
        };
        let data = |name: &[u8]| -> Option<Arc<[u8]>> {
            let (_, s) = e.section_by_name(name)?;
            if s.sh_type(e.endian) == elf::SHT_NOBITS {
                return None;
            }
            s.data(e.endian, e.data).ok().map(Arc::from)
        };
        let start = |name: &[u8]| section_range(e, name).map(|r| r.start);
        let mut bases = BaseAddresses::default();
        if let Some(a) = start(b".text") {
            bases = bases.set_text(a);
        }
        if let Some(a) = start(b".got") {
            bases = bases.set_got(a);
        }
        let tables = match (data(b".eh_frame"), data(b".eh_frame_hdr")) {
            (Some(eh_frame), Some(hdr)) => {
                bases = bases
                    .set_eh_frame(start(b".eh_frame")?)
                    .set_eh_frame_hdr(start(b".eh_frame_hdr")?);
                Tables::EhFrame { eh_frame, hdr }
            }
            _ => {
                let data = data(b".debug_frame")?;
                let index = debug_frame_index(&data, &bases);
                Tables::DebugFrame { data, index }
            }
        };
        let phdrs = e.header.program_headers(e.endian, e.data).ok()?;
        let segments = phdrs
            .iter()
            .filter(|p| p.p_type(e.endian) == elf::PT_LOAD)
            .map(|p| {
                (
                    p.p_offset(e.endian),
                    p.p_filesz(e.endian),
                    p.p_vaddr(e.endian),
                )
            })
            .collect();
        Some(UnwindInfo {
            tables,
            bases,
            segments,
        })
    }

    /// The address the object states for a file offset (through the
    /// `PT_LOAD` segment holding it).
    pub(crate) fn svma_of_offset(&self, offset: u64) -> Option<u64> {
        let &(off, _, vaddr) = self
            .segments
            .iter()
            .find(|&&(off, size, _)| offset >= off && offset - off < size.max(1))?;
        vaddr.checked_add(offset - off)
    }

    /// The unwind row covering `svma`: `None` when no FDE covers it
    /// (libunwind's `-UNW_ENOINFO`), `Some(Err)` when its CFI is bad.
    pub(crate) fn row(
        &self,
        ctx: &mut UnwindContext<usize>,
        svma: u64,
    ) -> Option<Result<Row<'_>, gimli::Error>> {
        match &self.tables {
            Tables::EhFrame { eh_frame, hdr } => {
                let eh_frame = EhFrame::new(eh_frame, LittleEndian);
                let hdr: ParsedEhFrameHdr<Slice<'_>> = EhFrameHdr::new(hdr, LittleEndian)
                    .parse(&self.bases, 8)
                    .ok()?;
                let fde = hdr
                    .table()?
                    .fde_for_address(&eh_frame, &self.bases, svma, EhFrame::cie_from_offset)
                    .ok()?;
                Some(self.row_of(Section::EhFrame(eh_frame), &fde, ctx, svma))
            }
            Tables::DebugFrame { data, index } => {
                let mut section = DebugFrame::new(data, LittleEndian);
                section.set_address_size(8);
                let i = index.partition_point(|&(start, _, _)| start <= svma);
                let &(start, end, offset) = index.get(i.checked_sub(1)?)?;
                if !(start..end).contains(&svma) {
                    return None;
                }
                let fde = section
                    .fde_from_offset(
                        &self.bases,
                        DebugFrameOffset(offset),
                        DebugFrame::cie_from_offset,
                    )
                    .ok()?;
                Some(self.row_of(Section::DebugFrame(section), &fde, ctx, svma))
            }
        }
    }

    fn row_of<'a>(
        &self,
        section: Section<'a>,
        fde: &FrameDescriptionEntry<Slice<'a>>,
        ctx: &mut UnwindContext<usize>,
        svma: u64,
    ) -> Result<Row<'a>, gimli::Error> {
        let row = match &section {
            Section::EhFrame(s) => fde.unwind_info_for_address(s, &self.bases, ctx, svma)?,
            Section::DebugFrame(s) => fde.unwind_info_for_address(s, &self.bases, ctx, svma)?,
        };
        Ok(Row {
            row: row.clone(),
            encoding: fde.cie().encoding(),
            signal_frame: fde.is_signal_trampoline(),
            section,
        })
    }
}

/// The FDEs of a `.debug_frame`, by start address.
fn debug_frame_index(data: &[u8], bases: &BaseAddresses) -> Vec<(u64, u64, usize)> {
    let mut section = DebugFrame::new(data, LittleEndian);
    section.set_address_size(8);
    let mut index = Vec::new();
    let mut entries = section.entries(bases);
    while let Ok(Some(entry)) = entries.next() {
        if let CieOrFde::Fde(partial) = entry {
            if let Ok(fde) = partial.parse(DebugFrame::cie_from_offset) {
                let start = fde.initial_address();
                index.push((start, start.saturating_add(fde.len()), fde.offset()));
            }
        }
    }
    index.sort_unstable();
    index
}

/// A section's address range, as the object states it.
fn section_range<'d, H, R>(e: &Elf<'d, H, R>, name: &[u8]) -> Option<Range<u64>>
where
    H: FileHeader<Endian = object::Endianness>,
    R: ReadRef<'d>,
{
    let (_, s) = e.section_by_name(name)?;
    let addr: u64 = s.sh_addr(e.endian).into();
    let size: u64 = s.sh_size(e.endian).into();
    Some(addr..addr.checked_add(size)?)
}
