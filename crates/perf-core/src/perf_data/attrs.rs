// SPDX-License-Identifier: GPL-2.0-only
//! The attrs section (`struct perf_file_attr { struct perf_event_attr attr;
//! struct perf_file_section ids; }` per event) with each event's sample ids,
//! and the attr sizes perf's `read_attr` accepts.

use super::header::{FileHeader, Section};
use crate::attr::{Attr, ATTR_SIZE_LATEST};
use crate::endian::Endian;
use crate::error::{DataErrorKind, Result};

/// `PERF_ATTR_SIZE_VER0`: the smallest attr there is.
pub const ATTR_SIZE_VER0: u64 = 64;
/// The largest attr accepted: newer perf may write fields beyond the ones
/// known here ([`ATTR_SIZE_LATEST`]); they are ignored.
pub const ATTR_SIZE_MAX: u64 = 4096;

/// One event of a perf.data file: its attr and the sample ids of its fds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileAttr {
    /// The attr (native values).
    pub attr: Attr,
    /// The ids of the event's fds (`PERF_SAMPLE_ID`/`IDENTIFIER` values).
    pub ids: Vec<u64>,
}

/// The on-file attr size of an attr image, by perf's `read_attr` rules
/// (`size == 0` is `PERF_ATTR_SIZE_VER0`), checked to fit a layout: at
/// least VER0, a multiple of 8, at most [`ATTR_SIZE_MAX`].
///
/// # Errors
/// [`DataErrorKind::AttrSize`].
pub fn attr_size(image: &[u8], order: Endian, path: &str, offset: u64) -> Result<u64> {
    let size = order.u32_at(image, 4).map_or(0, u64::from);
    check_attr_size(if size == 0 { ATTR_SIZE_VER0 } else { size }, path, offset)
}

/// Checks an attr size: at least VER0, a multiple of 8, at most
/// [`ATTR_SIZE_MAX`].
///
/// # Errors
/// [`DataErrorKind::AttrSize`].
pub fn check_attr_size(size: u64, path: &str, offset: u64) -> Result<u64> {
    let detail = if size < ATTR_SIZE_VER0 {
        format!("smaller than PERF_ATTR_SIZE_VER0 ({ATTR_SIZE_VER0})")
    } else if size % 8 != 0 {
        "not a multiple of 8".to_owned()
    } else if size > ATTR_SIZE_MAX {
        format!("larger than {ATTR_SIZE_MAX} (the newest perf writes {ATTR_SIZE_LATEST})")
    } else {
        return Ok(size);
    };
    Err(DataErrorKind::AttrSize { size, detail }.at(path, offset))
}

/// Reads the attrs section (`bytes`, read from `header.attrs`), returning
/// each attr with the section of its ids (read separately).
///
/// # Errors
/// [`DataErrorKind::AttrSize`] for an `attr_size` or attr `size` that fits
/// no layout or that disagree, [`DataErrorKind::Malformed`] for a section
/// that is not a whole number of entries.
pub fn parse_attrs(bytes: &[u8], header: &FileHeader, path: &str) -> Result<Vec<(Attr, Section)>> {
    let order = header.endian;
    let base = header.attrs.offset;
    let entry = header.attr_size;
    if !(ATTR_SIZE_VER0 + 16..=ATTR_SIZE_MAX + 16).contains(&entry) {
        let detail = format!(
            "the header's attr_size must be the attr size + 16, between {} and {}",
            ATTR_SIZE_VER0 + 16,
            ATTR_SIZE_MAX + 16
        );
        return Err(DataErrorKind::AttrSize {
            size: entry,
            detail,
        }
        .at(path, 16));
    }
    if header.attrs.size % entry != 0 {
        return Err(DataErrorKind::Malformed {
            what: "attrs section".into(),
            detail: format!(
                "{} bytes is not a whole number of {entry}-byte entries",
                header.attrs.size
            ),
        }
        .at(path, base));
    }
    let step = usize::try_from(entry).unwrap_or(usize::MAX);
    let mut out = Vec::new();
    for (i, e) in bytes.chunks_exact(step).enumerate() {
        let at = base + i as u64 * entry;
        let size = attr_size(e, order, path, at)?;
        if size + 16 != entry {
            let given = order.u32_at(e, 4).map_or(0, u64::from);
            let read_as = if given == 0 {
                format!("perf reads a size of 0 as PERF_ATTR_SIZE_VER0 ({ATTR_SIZE_VER0}), and ")
            } else {
                String::new()
            };
            let detail =
                format!("{read_as}the attrs section's entries are {entry} bytes (attr size + 16)");
            return Err(DataErrorKind::AttrSize {
                size: given,
                detail,
            }
            .at(path, at + 4));
        }
        let n = usize::try_from(size).unwrap_or(usize::MAX);
        let image = e.get(..n).unwrap_or_default();
        out.push((Attr::from_image(image, order), Section::read(e, n, order)));
    }
    Ok(out)
}

/// Reads `ids`, the u64 array of an attr's ids section.
pub fn parse_ids(bytes: &[u8], order: Endian) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|w| order.u64_at(w, 0).unwrap_or(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn kind(e: Error) -> DataErrorKind {
        match e {
            Error::PerfData(d) => d.kind,
            e => panic!("{e}"),
        }
    }

    fn header(attr_size: u64, attrs: Section) -> FileHeader {
        FileHeader {
            endian: Endian::NATIVE,
            size: 104,
            attr_size,
            attrs,
            data: Section::default(),
            event_types: Section::default(),
            features: [0; 4],
        }
    }

    fn entry(attr: &Attr, size: u32, ids: Section) -> Vec<u8> {
        let mut e = attr.to_bytes(size).bytes()[..size as usize].to_vec();
        e.extend_from_slice(&ids.offset.to_ne_bytes());
        e.extend_from_slice(&ids.size.to_ne_bytes());
        e
    }

    #[test]
    fn entries_and_their_id_sections() {
        let a = Attr {
            type_: 1,
            config: 9,
            sample_type: 0x107,
            ..Attr::default()
        };
        let b = Attr {
            type_: 2,
            config: 300,
            ..Attr::default()
        };
        let mut bytes = entry(
            &a,
            128,
            Section {
                offset: 104,
                size: 16,
            },
        );
        bytes.extend(entry(
            &b,
            128,
            Section {
                offset: 120,
                size: 8,
            },
        ));
        let h = header(
            144,
            Section {
                offset: 200,
                size: 288,
            },
        );
        let got = parse_attrs(&bytes, &h, "f").unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].0.config, got[0].0.sample_type, got[0].1),
            (
                9,
                0x107,
                Section {
                    offset: 104,
                    size: 16
                }
            )
        );
        assert_eq!(
            (got[1].0.type_, got[1].0.config, got[1].1.size),
            (2, 300, 8)
        );
        assert_eq!(
            parse_ids(
                &[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 9],
                Endian::Little
            ),
            [1, 2]
        );
    }

    #[test]
    fn sizes_that_fit_no_layout() {
        let a = Attr::default();
        // attr.size 0 is VER0 (64), so the entry must be 80.
        let e = entry(&a, 0, Section::default());
        assert_eq!(e.len(), 16);
        let mut v0 = a.to_bytes(64).bytes()[..64].to_vec();
        v0[4..8].copy_from_slice(&0u32.to_ne_bytes());
        v0.extend_from_slice(&[0; 16]);
        assert!(parse_attrs(
            &v0,
            &header(
                80,
                Section {
                    offset: 0,
                    size: 80
                }
            ),
            "f"
        )
        .is_ok());
        // attr.size 0 in entries of another size: the message says 0.
        let mut v0_128 = v0[..64].to_vec();
        v0_128.extend_from_slice(&[0; 64 + 16]);
        let e = parse_attrs(
            &v0_128,
            &header(
                144,
                Section {
                    offset: 0,
                    size: 144,
                },
            ),
            "f",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("attr size 0 ")
                && e.contains("perf reads a size of 0 as PERF_ATTR_SIZE_VER0 (64)")
                && e.contains("entries are 144 bytes"),
            "{e}"
        );
        // A section that is not a whole number of entries.
        let e = entry(&a, 120, Section::default());
        let k = kind(
            parse_attrs(
                &e,
                &header(
                    144,
                    Section {
                        offset: 0,
                        size: 136,
                    },
                ),
                "f",
            )
            .unwrap_err(),
        );
        assert!(matches!(k, DataErrorKind::Malformed { .. }), "{k:?}");
        // attr.size disagrees with the entry size.
        let mut e = entry(&a, 120, Section::default());
        e.extend_from_slice(&[0; 8]);
        let err = parse_attrs(
            &e,
            &header(
                144,
                Section {
                    offset: 0x68,
                    size: 144,
                },
            ),
            "f",
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("attr size 120") && err.to_string().contains("0x6c"),
            "{err}"
        );
        // Not a multiple of 8, too small, too large, an absurd attr_size.
        for bad in [100u32, 40, 8192] {
            let mut img = a.to_bytes(64).bytes()[..64].to_vec();
            img[4..8].copy_from_slice(&bad.to_ne_bytes());
            let e = attr_size(&img, Endian::NATIVE, "f", 0x68).unwrap_err();
            assert!(
                e.to_string()
                    .contains(&format!("attr size {bad} fits no perf_event_attr layout")),
                "{e}"
            );
            assert!(e.to_string().contains("offset 0x68"), "{e}");
        }
        let k = kind(parse_attrs(&[], &header(8, Section::default()), "f").unwrap_err());
        assert!(
            matches!(k, DataErrorKind::AttrSize { size: 8, .. }),
            "{k:?}"
        );
    }
}
