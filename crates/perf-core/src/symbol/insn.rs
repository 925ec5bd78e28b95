// SPDX-License-Identifier: GPL-2.0-only
//! The bytes of the instruction at a sample's ip (`perf_sample__fetch_insn`
//! on x86: `thread__memcpy` reads up to 16 bytes of the object at the
//! address's file offset, perf's decoder says how long the instruction is).

use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use iced_x86::{Decoder, DecoderOptions};

use super::build_id::{BuildId, CachedFile};
use super::dso::{Dso, DsoKind};
use super::dsos::Dsos;
use super::elf::{self, AnyElf};
use super::resolve::AddrLocation;
use super::unwind::DataImage;

/// `MAX_INSN`.
const MAX_INSN: usize = 16;

impl Dsos {
    /// Where perf reads an object's bytes from (`dso__data_get_fd`): the
    /// build-id cache's copy, else the file at its path; for the vDSO,
    /// else this process's own vDSO image. Unlike perf, an image whose
    /// build id is not the recorded one is refused.
    pub(crate) fn data_image(&self, dso: &Dso) -> Option<DataImage> {
        let bid = dso.build_id();
        let kind = if dso.kind() == DsoKind::Vdso {
            CachedFile::Vdso
        } else {
            CachedFile::Elf
        };
        // An ELF image (its build id read) that is the recorded object.
        let recorded = |image: Option<Option<BuildId>>| match (bid, image) {
            (_, None) => false,
            (Some(want), Some(Some(have))) => want.matches(&have),
            (Some(_), Some(None)) => false,
            (None, Some(_)) => true,
        };
        let file = bid
            .map(|b| self.conf().buildid_cache.filename(&b, kind))
            .into_iter()
            .chain(
                matches!(dso.kind(), DsoKind::User | DsoKind::KernelModule)
                    .then(|| self.conf().join_symfs(dso.path())),
            )
            .find(|p| {
                elf::open(p)
                    .is_ok_and(|cache| recorded(AnyElf::parse(&cache).map(|e| e.build_id())))
            });
        if let Some(path) = file {
            return Some(DataImage::File(path));
        }
        if dso.kind() != DsoKind::Vdso {
            return None;
        }
        let image = super::vdso::running_image()?;
        recorded(AnyElf::parse(&image[..]).map(|e| e.build_id()))
            .then_some(DataImage::Memory(image))
    }

    /// The file perf reads an address's bytes from (see
    /// [`Dsos::data_image`]).
    fn data_file(&self, al: &AddrLocation) -> Option<PathBuf> {
        match self.data_image(al.map.as_ref()?.dso())? {
            DataImage::File(path) => Some(path),
            DataImage::Memory(_) => None,
        }
    }

    /// Up to `len` bytes of the object at a map-relative address (a file
    /// offset for file mappings).
    pub fn read_bytes(&self, al: &AddrLocation, len: usize) -> Option<Vec<u8>> {
        let map = al.map.as_ref()?;
        if map.is_identity() {
            return None;
        }
        let file = crate::regular_file::open(&self.data_file(al)?).ok()?;
        let mut buf = vec![0u8; len];
        let mut got = 0;
        while got < len {
            match file.read_at(&mut buf[got..], al.addr + got as u64) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        buf.truncate(got);
        (!buf.is_empty()).then_some(buf)
    }

    /// The instruction at a sample's ip, as the Python `insn()` gives it:
    /// `None` when the bytes cannot be read or do not decode.
    pub fn fetch_insn(&self, al: &AddrLocation) -> Option<Vec<u8>> {
        let mut bytes = self.read_bytes(al, MAX_INSN)?;
        let is64 = self.is_64_bit(al).unwrap_or(true);
        let mut decoder =
            Decoder::with_ip(if is64 { 64 } else { 32 }, &bytes, 0, DecoderOptions::NONE);
        let insn = decoder.decode();
        if insn.is_invalid() {
            return None;
        }
        bytes.truncate(insn.len());
        Some(bytes)
    }

    /// `dso->is_64_bit`: the class of the object's ELF file.
    fn is_64_bit(&self, al: &AddrLocation) -> Option<bool> {
        let cache = elf::open(&self.data_file(al)?).ok()?;
        Some(matches!(AnyElf::parse(&cache)?, AnyElf::E64(_)))
    }
}
