// SPDX-License-Identifier: GPL-2.0-only
//! The file header (`struct perf_file_header`, or `struct
//! perf_pipe_file_header` in pipe mode), the byte order it reveals, and the
//! checks that the sections it points to lie inside the file and do not
//! overlap.
//!
//! ```text
//! struct perf_file_header {                struct perf_pipe_file_header {
//!     u64 magic;                               u64 magic;
//!     u64 size;                                u64 size;      /* 16 */
//!     u64 attr_size;                       };
//!     struct perf_file_section attrs;      /* { u64 offset, size } */
//!     struct perf_file_section data;
//!     struct perf_file_section event_types;
//!     DECLARE_BITMAP(adds_features, 256);
//! };
//! ```
//! The feature sections' table (`{ u64 offset, size }` per set bit, in bit
//! order) starts right after the data section.

use crate::endian::Endian;
use crate::error::{DataErrorKind, Result};

/// `PERFILE2` as a little-endian writer stores its magic u64.
pub const MAGIC_LE: [u8; 8] = *b"PERFILE2";
/// `PERFILE2` as a big-endian writer stores it.
pub const MAGIC_BE: [u8; 8] = *b"2ELIFREP";
/// `sizeof(struct perf_pipe_file_header)`.
pub const PIPE_HEADER_SIZE: u64 = 16;
/// `sizeof(struct perf_file_header)`.
pub const FILE_HEADER_SIZE: u64 = 104;
/// The header of the first PERFILE2 files, without the feature bitmap.
pub const FILE_HEADER_SIZE_NO_FEATURES: u64 = 72;
/// Bits of the feature bitmap.
pub const FEATURE_BITS: u32 = 256;

/// `struct perf_file_section`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Section {
    /// Where it starts in the file.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
}

impl Section {
    /// Reads a `perf_file_section` at `at` of `b`, in byte order `order`.
    pub fn read(b: &[u8], at: usize, order: Endian) -> Section {
        Section {
            offset: order.u64_at(b, at).unwrap_or(0),
            size: order.u64_at(b, at + 8).unwrap_or(0),
        }
    }

    /// One past its last byte (saturating: a section whose end overflows
    /// is past the end of any file).
    pub fn end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }
}

/// What the first bytes of an input say it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Header {
    /// A seekable perf.data file.
    File(FileHeader),
    /// Pipe mode (`perf record -o -`): records from offset 16 to the end,
    /// attrs and features among them.
    Pipe {
        /// The byte order of the writer.
        endian: Endian,
    },
}

/// `struct perf_file_header`, in native values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHeader {
    /// The byte order of the writer.
    pub endian: Endian,
    /// `size` (104, or 72 for files without a feature bitmap).
    pub size: u64,
    /// `attr_size`: bytes per entry of the attrs section (the attr and the
    /// `perf_file_section` of its ids).
    pub attr_size: u64,
    /// `attrs`.
    pub attrs: Section,
    /// `data`.
    pub data: Section,
    /// `event_types` (unused since 2012).
    pub event_types: Section,
    /// `adds_features`, bit `n` of word `n / 64` for feature `n`.
    pub features: [u64; 4],
}

impl FileHeader {
    /// True if feature bit `bit` is set.
    pub fn has_feature(&self, bit: u32) -> bool {
        let word = usize::try_from(bit / 64)
            .ok()
            .and_then(|w| self.features.get(w));
        word.is_some_and(|w| w & (1 << (bit % 64)) != 0)
    }

    /// The set feature bits, in order.
    pub fn feature_bits(&self) -> impl Iterator<Item = u32> + '_ {
        (0..FEATURE_BITS).filter(|&b| self.has_feature(b))
    }

    /// Where the feature sections' table starts: right after the data.
    pub fn feature_table(&self) -> Section {
        Section {
            offset: self.data.end(),
            size: 16 * self.feature_bits().count() as u64,
        }
    }
}

/// The byte order named by the first 8 bytes, if they are a perf magic.
pub fn magic_endian(magic: &[u8]) -> Option<Endian> {
    match magic.first_chunk::<8>()? {
        m if *m == MAGIC_LE => Some(Endian::Little),
        m if *m == MAGIC_BE => Some(Endian::Big),
        _ => None,
    }
}

/// Parses the header from the first bytes of an input (`bytes` holds up to
/// [`FILE_HEADER_SIZE`] of them; fewer if the input is shorter), as perf's
/// `perf_header__read_pipe` then `perf_file_header__read` do: a header
/// whose `size` is 16 is pipe mode.
///
/// # Errors
/// [`DataErrorKind::BadMagic`], [`DataErrorKind::Truncated`], or
/// [`DataErrorKind::Malformed`] for a header size perf does not write.
pub fn parse(bytes: &[u8], path: &str) -> Result<Header> {
    let truncated = |need: u64| {
        DataErrorKind::Truncated {
            what: "file header".into(),
            need,
            have: bytes.len() as u64,
        }
        .at(path, 0)
    };
    if bytes.len() < PIPE_HEADER_SIZE as usize {
        if bytes.len() >= 8 && magic_endian(bytes).is_none() {
            return Err(bad_magic(bytes, path));
        }
        return Err(truncated(PIPE_HEADER_SIZE));
    }
    let Some(endian) = magic_endian(bytes) else {
        return Err(bad_magic(bytes, path));
    };
    let u64_at = |at: usize| endian.u64_at(bytes, at).unwrap_or(0);
    let size = u64_at(8);
    if size == PIPE_HEADER_SIZE {
        return Ok(Header::Pipe { endian });
    }
    if size != FILE_HEADER_SIZE && size != FILE_HEADER_SIZE_NO_FEATURES {
        return Err(DataErrorKind::Malformed {
            what: "file header".into(),
            detail: format!(
                "header size {size}: perf writes {FILE_HEADER_SIZE} (or {PIPE_HEADER_SIZE} in pipe mode)"
            ),
        }
        .at(path, 8));
    }
    if (bytes.len() as u64) < size {
        return Err(truncated(size));
    }
    let features = if size == FILE_HEADER_SIZE {
        feature_bitmap(bytes, endian)
    } else {
        [0; 4]
    };
    Ok(Header::File(FileHeader {
        endian,
        size,
        attr_size: u64_at(16),
        attrs: Section::read(bytes, 24, endian),
        data: Section::read(bytes, 40, endian),
        event_types: Section::read(bytes, 56, endian),
        features,
    }))
}

/// The feature bitmap at offset 72: native u64 words. For a file of the
/// other byte order perf cannot know the writer's `unsigned long` size; it
/// tries 64-bit words, then 32-bit words, checking that `HEADER_HOSTNAME`
/// (always written since 2012) is set, and else keeps only `BUILD_ID`.
fn feature_bitmap(bytes: &[u8], endian: Endian) -> [u64; 4] {
    let native = |at: usize| Endian::NATIVE.u64_at(bytes, at).unwrap_or(0);
    let mut words = [native(72), native(80), native(88), native(96)];
    if endian.is_native() {
        return words;
    }
    let hostname = |w: &[u64; 4]| w[0] & (1 << super::abi::feature::HOSTNAME) != 0;
    let as_u64: [u64; 4] = words.map(u64::swap_bytes);
    if hostname(&as_u64) {
        return as_u64;
    }
    // 32-bit words: swap each half in place.
    for w in &mut words {
        let b = w.to_ne_bytes();
        let lo = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]).swap_bytes();
        let hi = u32::from_ne_bytes([b[4], b[5], b[6], b[7]]).swap_bytes();
        let mut out = [0u8; 8];
        out[..4].copy_from_slice(&lo.to_ne_bytes());
        out[4..].copy_from_slice(&hi.to_ne_bytes());
        *w = u64::from_ne_bytes(out);
    }
    if hostname(&words) {
        return words;
    }
    [1 << super::abi::feature::BUILD_ID, 0, 0, 0]
}

#[cold]
fn bad_magic(bytes: &[u8], path: &str) -> crate::Error {
    let found = bytes.get(..8).unwrap_or(bytes).escape_ascii().to_string();
    DataErrorKind::BadMagic { found }.at(path, 0)
}

/// A named byte range of the file, for the bounds and overlap checks.
#[derive(Debug, Clone)]
pub(crate) struct Region {
    pub(crate) what: String,
    pub(crate) start: u64,
    pub(crate) size: u64,
}

/// Checks that every region lies inside a file of `file_size` bytes and
/// that no two overlap (empty regions take no room).
///
/// # Errors
/// [`DataErrorKind::PastEnd`] or [`DataErrorKind::Overlap`], at the
/// offending region's start.
pub(crate) fn check_regions(regions: &mut [Region], file_size: u64, path: &str) -> Result<()> {
    for r in regions.iter().filter(|r| r.size > 0) {
        if r.start
            .checked_add(r.size)
            .is_none_or(|end| end > file_size)
        {
            return Err(DataErrorKind::PastEnd {
                what: r.what.clone(),
                start: r.start,
                size: r.size,
                file_size,
            }
            .at(path, r.start));
        }
    }
    regions.sort_by_key(|r| (r.start, r.size));
    let mut last: Option<&Region> = None;
    for r in regions.iter().filter(|r| r.size > 0) {
        if let Some(prev) = last {
            if r.start < prev.start + prev.size {
                let show =
                    |r: &Region| format!("{} [{:#x}, {:#x})", r.what, r.start, r.start + r.size);
                return Err(DataErrorKind::Overlap {
                    what: show(r),
                    other: show(prev),
                }
                .at(path, r.start));
            }
        }
        last = Some(r);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{DataError, Error};

    fn kind(e: Error) -> DataErrorKind {
        match e {
            Error::PerfData(d) => {
                let DataError { kind, .. } = *d;
                kind
            }
            e => panic!("not a DataError: {e}"),
        }
    }

    fn header(endian: Endian, size: u64) -> Vec<u8> {
        let mut b = match endian {
            Endian::Little => MAGIC_LE.to_vec(),
            Endian::Big => MAGIC_BE.to_vec(),
        };
        let put = |b: &mut Vec<u8>, v: u64| match endian {
            Endian::Little => b.extend_from_slice(&v.to_le_bytes()),
            Endian::Big => b.extend_from_slice(&v.to_be_bytes()),
        };
        put(&mut b, size);
        for v in [144, 120, 144, 264, 100, 0, 0] {
            put(&mut b, v);
        }
        // HOSTNAME and TRACING_DATA, as a 64-bit writer of that order.
        put(&mut b, (1 << 3) | (1 << 1));
        for _ in 0..3 {
            put(&mut b, 0);
        }
        b
    }

    #[test]
    fn both_byte_orders_and_pipe_mode() {
        for endian in [Endian::Little, Endian::Big] {
            let Header::File(h) = parse(&header(endian, 104), "f").unwrap() else {
                panic!("not a file header");
            };
            assert_eq!(h.endian, endian);
            assert_eq!(
                (h.attr_size, h.attrs, h.data.offset, h.data.size),
                (
                    144,
                    Section {
                        offset: 120,
                        size: 144
                    },
                    264,
                    100
                )
            );
            assert_eq!(h.feature_bits().collect::<Vec<_>>(), [1, 3]);
            assert_eq!(
                h.feature_table(),
                Section {
                    offset: 364,
                    size: 32
                }
            );
            let pipe = parse(&header(endian, 16)[..16], "-").unwrap();
            assert_eq!(pipe, Header::Pipe { endian });
        }
    }

    #[test]
    fn bad_input_is_named() {
        let e = kind(parse(b"PERFILE3\x10\0\0\0\0\0\0\0", "f").unwrap_err());
        assert_eq!(
            e,
            DataErrorKind::BadMagic {
                found: "PERFILE3".into()
            }
        );
        let e = kind(parse(b"PERFILE2\x10", "f").unwrap_err());
        assert!(
            matches!(
                e,
                DataErrorKind::Truncated {
                    need: 16,
                    have: 9,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = kind(parse(&header(Endian::Little, 104)[..80], "f").unwrap_err());
        assert!(
            matches!(
                e,
                DataErrorKind::Truncated {
                    need: 104,
                    have: 80,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = parse(&header(Endian::Little, 99), "f")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("header size 99") && e.contains("file offset 0x8"),
            "{e}"
        );
    }

    #[test]
    fn regions_inside_and_apart() {
        let r = |what: &str, start, size| Region {
            what: what.into(),
            start,
            size,
        };
        assert!(check_regions(
            &mut [r("a", 0, 10), r("b", 10, 5), r("empty", 3, 0)],
            15,
            "f"
        )
        .is_ok());
        let e = check_regions(&mut [r("a", 0, 10), r("b", 9, 5)], 100, "f")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("b [0x9, 0xe) overlaps a [0x0, 0xa)") && e.contains("offset 0x9"),
            "{e}"
        );
        let e = check_regions(&mut [r("data", 8, 10)], 17, "f")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("data (10 bytes at 0x8) runs past the end of the file (17 bytes)"),
            "{e}"
        );
        assert!(check_regions(&mut [r("x", u64::MAX, 2)], 17, "f").is_err());
    }
}
