// SPDX-License-Identifier: GPL-2.0-only
//! Reading perf.data files: the file layer under [`session`](crate::session).
//!
//! | perf (tools/perf/util)                    | here                              |
//! |-------------------------------------------|-----------------------------------|
//! | `perf_data__open` (data.c)                | [`PerfData::open`]                |
//! | `perf_file_header__read`, pipe header     | [`header::parse`]                 |
//! | `read_attr`, attrs + ids                  | [`attrs`]                         |
//! | `perf_header__process_sections`, `perf_env` | [`Features`]                    |
//! | `trace_report` (trace-event-read.c)       | [`TracingData`]                   |
//! | `reader__read_event`, decomp events       | `reader::RecordReader`            |
//! | `perf_event__swap_ops`                    | [`swap::to_native`]               |
//! | the `perf_record_*` user records          | [`user`]                          |
//!
//! [`read_header`] opens the input's header: in file mode the header,
//! attrs, features and tracing data, checked to lie inside the file without
//! overlapping; in pipe mode only the 16-byte header (the rest comes as
//! records). Errors name what is wrong and the file offset
//! ([`DataError`](crate::error::DataError)).

pub mod abi;
pub mod attrs;
mod cursor;
mod decomp;
pub mod features;
pub mod fifo;
pub mod header;
mod input;
pub(crate) mod reader;
pub mod swap;
pub mod tracing_data;
pub mod user;

pub use attrs::FileAttr;
pub use decomp::MAX_EXPANSION;
pub use features::{BuildId, EventDesc, Features};
pub use header::{FileHeader, Section};
pub use input::{is_fifo, DataFile, DataKind, PerfData, StreamWait};
pub use tracing_data::TracingData;

use crate::endian::Endian;
use crate::error::{DataErrorKind, Result};
use header::{Header, Region};
use reader::{ByteReader, RecordReader};

/// The most bytes a feature section may have to be read into memory;
/// larger ones (never written by perf) are skipped.
const MAX_FEATURE: u64 = 256 << 20;

/// An input with its header read: what perf's `perf_session__read_header`
/// leaves in `session->header` and `session->evlist`.
#[derive(Debug)]
pub struct Input {
    /// The path given.
    pub path: String,
    /// The byte order of the writer.
    pub endian: Endian,
    /// Pipe mode: attrs, features and tracing data arrive as records.
    pub is_pipe: bool,
    /// The file header (not in pipe mode).
    pub file_header: Option<FileHeader>,
    /// The attrs with their ids (file mode; pipe mode fills nothing here).
    pub attrs: Vec<FileAttr>,
    /// The features (file mode).
    pub features: Features,
    /// The tracing data (file mode, when the file has tracepoints).
    pub tracing_data: Option<TracingData>,
    /// The record readers: the data section (or the stream), then the
    /// `data.N` files of a directory.
    pub(crate) readers: Vec<RecordReader>,
}

/// Reads the header of `data`.
///
/// # Errors
/// The [`DataErrorKind`]s of a file that cannot be read: bad magic,
/// truncation, sections past the end or overlapping, bad attr sizes,
/// malformed features or tracing data; I/O errors.
pub fn read_header(data: PerfData) -> Result<Input> {
    let path = data.path().to_owned();
    match data.into_kind() {
        DataKind::Single(file) => read_single(file, path),
        DataKind::Dir { header, files } => {
            let mut input = read_single(header, path)?;
            if input.is_pipe {
                return Err(DataErrorKind::Malformed {
                    what: "directory".into(),
                    detail: "its data file is in pipe format".into(),
                }
                .at(&input.path, 0));
            }
            let version = input.features.dir_format;
            if version != Some(1) {
                return Err(DataErrorKind::Malformed {
                    what: "directory".into(),
                    detail: format!("DIR_FORMAT version {version:?}, expected 1"),
                }
                .at(&input.path, 0));
            }
            let endian = input.endian;
            for f in files {
                let size = f.size;
                input
                    .readers
                    .push(RecordReader::new(ByteReader::new(f, 0, size, 0), endian));
            }
            Ok(input)
        }
    }
}

fn read_single(mut file: DataFile, path: String) -> Result<Input> {
    let mut first = [0u8; header::FILE_HEADER_SIZE as usize];
    let n = if file.is_stream() {
        // Only the pipe header: the stream must not be read further here.
        file.read_stream(&mut first[..header::PIPE_HEADER_SIZE as usize], 0)?
    } else {
        file.read_at(&mut first, 0)?
    };
    let h = header::parse(first.get(..n).unwrap_or_default(), &file.path);
    // A stream whose header is not pipe mode: perf cannot read it either.
    let h = match h {
        Err(e) if file.is_stream() && n == header::PIPE_HEADER_SIZE as usize => {
            return Err(match header::magic_endian(&first) {
                Some(_) => DataErrorKind::Malformed {
                    what: "pipe header".into(),
                    detail: "a stream must hold pipe-mode data (perf record -o -)".into(),
                }
                .at(&file.path, 8),
                None => e,
            });
        }
        h => h?,
    };
    match h {
        Header::Pipe { endian } => {
            // perf reports pipe-mode offsets from the end of the header.
            let bytes = ByteReader::new(file, header::PIPE_HEADER_SIZE, None, 0);
            Ok(Input {
                path,
                endian,
                is_pipe: true,
                file_header: None,
                attrs: Vec::new(),
                features: Features::default(),
                tracing_data: None,
                readers: vec![RecordReader::new(bytes, endian)],
            })
        }
        Header::File(h) if file.is_stream() => Err(DataErrorKind::Malformed {
            what: "pipe header".into(),
            detail: format!(
                "a stream must hold pipe-mode data (perf record -o -); header size is {}",
                h.size
            ),
        }
        .at(&file.path, 8)),
        Header::File(h) => read_file(file, path, h),
    }
}

fn read_file(file: DataFile, path: String, h: FileHeader) -> Result<Input> {
    let fpath = file.path.clone();
    let file_size = file.size.unwrap_or(0);
    if h.data.size == 0 {
        return Err(DataErrorKind::Truncated {
            what: "data section (its size is 0: was perf record killed before it finished?)".into(),
            need: 1,
            have: 0,
        }
        .at(&fpath, 40));
    }
    // The data section may be cut short: its records up to the cut are
    // read, and the reader reports the cut where it meets it.
    let data_there = Section {
        offset: h.data.offset,
        size: h.data.size.min(file_size.saturating_sub(h.data.offset)),
    };
    let mut regions = vec![
        Region {
            what: "file header".into(),
            start: 0,
            size: h.size,
        },
        region("attrs section", h.attrs),
        region("data section", data_there),
        region("event_types section", h.event_types),
    ];
    header::check_regions(&mut regions.clone(), file_size, &fpath)?;
    let read = |s: Section, what: &str| read_section(&file, s, what);
    let attr_bytes = read(h.attrs, "attrs section")?;
    let mut attrs = Vec::new();
    for (i, (attr, ids)) in attrs::parse_attrs(&attr_bytes, &h, &fpath)?
        .into_iter()
        .enumerate()
    {
        let what = format!("ids of attr {i}");
        header::check_regions(&mut [region(&what, ids)], file_size, &fpath)?;
        regions.push(region(&what, ids));
        let ids = attrs::parse_ids(&read(ids, &what)?, h.endian);
        attrs.push(FileAttr { attr, ids });
    }
    header::check_regions(&mut regions.clone(), file_size, &fpath)?;
    let (features, tracing_data) = read_features(&file, &h, regions, file_size);
    let endian = h.endian;
    let bytes = ByteReader::new(file, h.data.offset, Some(h.data.size), h.data.offset);
    Ok(Input {
        path,
        endian,
        is_pipe: false,
        file_header: Some(h),
        attrs,
        features,
        tracing_data,
        readers: vec![RecordReader::new(bytes, endian)],
    })
}

fn region(what: &str, s: Section) -> Region {
    Region {
        what: what.into(),
        start: s.offset,
        size: s.size,
    }
}

/// The feature sections, as perf's `perf_header__process_sections` reads
/// them: a section that cannot be read (its table entry or its bytes past
/// the end of the file, overlapping another part, malformed) is set aside
/// in [`Features::unreadable`] with the reason, and the others are read.
/// perf 6.1 stops at the first such section and reads the samples all
/// the same; we read the sections after it too.
fn read_features(
    file: &DataFile,
    h: &FileHeader,
    mut regions: Vec<Region>,
    file_size: u64,
) -> (Features, Option<TracingData>) {
    let mut features = Features::default();
    let mut tracing_data = None;
    let table = h.feature_table();
    // The entries of the table that are in the file.
    let there = file_size.saturating_sub(table.offset).min(table.size) / 16 * 16;
    let table_there = Section {
        offset: table.offset,
        size: there,
    };
    let what = "feature section table";
    let (table_bytes, table_why) =
        match check_one(&regions, region(what, table_there), file_size, &file.path)
            .and_then(|()| read_section(file, table_there, what))
        {
            Ok(b) => {
                regions.push(region(what, table_there));
                let why = format!(
                    "its entry of the feature section table ({} bytes at {:#x}) is past the end \
                     of the file ({file_size} bytes)",
                    table.size, table.offset
                );
                (b, why)
            }
            Err(e) => (Vec::new(), why(&e)),
        };
    for (i, bit) in h.feature_bits().enumerate() {
        let what = format!("feature {}", abi::feature::name(bit));
        let Some(s) = table_bytes
            .get(16 * i..16 * i + 16)
            .map(|_| Section::read(&table_bytes, 16 * i, h.endian))
        else {
            features.unreadable.push((bit, table_why.clone()));
            continue;
        };
        if s.size > MAX_FEATURE {
            features.present.push(bit);
            continue;
        }
        let outcome = check_one(&regions, region(&what, s), file_size, &file.path)
            .and_then(|()| read_section(file, s, &what))
            .and_then(|bytes| {
                if bit == abi::feature::TRACING_DATA {
                    features.present.push(bit);
                    tracing_data = Some(TracingData::parse(&bytes, &file.path, s.offset)?);
                    Ok(())
                } else {
                    features.parse_section(bit, &bytes, h.endian, &file.path, s.offset)
                }
            });
        match outcome {
            Ok(()) => regions.push(region(&what, s)),
            Err(e) => features.unreadable.push((bit, why(&e))),
        }
    }
    if let Some(c) = features.compressed.filter(|c| c.mmap_len == 0) {
        // perf cannot map a buffer of 0 bytes to decompress into. A file
        // that says it is not compressed (type 0: `perf stat record`
        // writes the section so) has nothing to decompress: no warning.
        features.compressed = None;
        if c.type_ == 0 {
            return (features, tracing_data);
        }
        features.unreadable.push((
            abi::feature::COMPRESSED,
            "its mmap_len is 0 (records are decompressed with the default bound)".into(),
        ));
    }
    (features, tracing_data)
}

/// What is wrong, without the path (the warning names it once).
fn why(e: &crate::Error) -> String {
    match e {
        crate::Error::PerfData(d) => format!("{} (at file offset {:#x})", d.kind, d.offset),
        e => e.to_string(),
    }
}

/// Checks that `r` lies inside the file and overlaps none of `regions`.
fn check_one(regions: &[Region], r: Region, file_size: u64, path: &str) -> Result<()> {
    let mut all = regions.to_vec();
    all.push(r);
    header::check_regions(&mut all, file_size, path)
}

/// The bytes of a section (already checked to lie inside the file).
fn read_section(file: &DataFile, s: Section, what: &str) -> Result<Vec<u8>> {
    let n = usize::try_from(s.size).unwrap_or(usize::MAX);
    let mut buf = vec![0; n];
    let got = file.read_at(&mut buf, s.offset)?;
    if got < n {
        // The file shrank since it was opened.
        return Err(DataErrorKind::Truncated {
            what: what.to_owned(),
            need: s.size,
            have: got as u64,
        }
        .at(&file.path, s.offset));
    }
    Ok(buf)
}
