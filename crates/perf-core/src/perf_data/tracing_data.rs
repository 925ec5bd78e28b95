// SPDX-License-Identifier: GPL-2.0-only
//! The tracing data perf stores with tracepoint events (`HEADER_TRACING_DATA`
//! in a file, `PERF_RECORD_HEADER_TRACING_DATA` in a pipe): the tracepoint
//! `format` files of the recording machine, so that fields are decoded by
//! the formats the data was written with, not the reading system's.
//!
//! The layout, as perf's `trace_report` (trace-event-read.c) reads it:
//!
//! ```text
//! u8  magic[3] = { 23, 8, 68 }; char tag[7] = "tracing";
//! char version[] (NUL-terminated, e.g. "0.6");
//! u8  file_bigendian; u8 long_size; u32 page_size;
//! "header_page\0"  u64 size; char text[size];
//! "header_event\0" u64 size; char text[size];
//! u32 count; { u64 size; char format[size]; }[count]            ftrace formats
//! u32 systems; { char system[] (NUL); u32 count;
//!                { u64 size; char format[size]; }[count] }[systems]
//! u32 size; char kallsyms[size];
//! u32 size; char printk_formats[size];
//! u64 size; char saved_cmdlines[size];                          version >= 0.6
//! ```
//! Numbers are in the byte order `file_bigendian` names.

use std::collections::HashMap;
use std::sync::Arc;

use super::cursor::SectionCursor;
use crate::endian::Endian;
use crate::error::Result;
use crate::tracefs::Format;

/// perf's limit on the strings of the tracing data (`BUFSIZ - 1`).
const MAX_STRING: usize = 8191;

/// The parsed tracing data.
#[derive(Debug, Clone, Default)]
pub struct TracingData {
    /// The version string (`0.6` for every perf since 2013).
    pub version: String,
    /// The byte order of the numbers in the tracing data and in the
    /// tracepoint payloads (`file_bigendian`).
    pub endian: Option<Endian>,
    /// `sizeof(long)` of the recording kernel: the size of `header_page`'s
    /// `commit` field, else the `long_size` byte (as perf sets it).
    pub long_size: u8,
    /// The recording machine's page size.
    pub page_size: u32,
    /// The `header_page` format text.
    pub header_page: String,
    /// The `header_event` text.
    pub header_event: String,
    /// The ftrace formats (system `ftrace`).
    pub ftrace: Vec<Arc<Format>>,
    /// The event formats, in file order.
    pub events: Vec<Arc<Format>>,
    /// Formats that did not parse: (system, error).
    pub unparsed: Vec<(String, String)>,
    /// Bytes of `/proc/kallsyms` stored (perf no longer stores any).
    pub kallsyms_size: u32,
    /// The printk formats text.
    pub printk: String,
    /// The saved cmdlines text (`pid comm` lines).
    pub saved_cmdlines: String,
    /// Bytes the tracing data took (perf's `trace_report` return value).
    pub size: u64,
    by_id: HashMap<u64, Arc<Format>>,
}

impl TracingData {
    /// The format of tracepoint `id` (the attr's `config`).
    pub fn format(&self, id: u64) -> Option<&Arc<Format>> {
        self.by_id.get(&id)
    }

    /// Parses tracing data from the front of `b` (which may hold more, e.g.
    /// padding), `base` being its file offset for errors.
    ///
    /// # Errors
    /// [`DataErrorKind::Truncated`](crate::error::DataErrorKind::Truncated) when a part runs past `b`,
    /// [`DataErrorKind::Malformed`](crate::error::DataErrorKind::Malformed) for a bad magic, tag or string.
    pub fn parse(b: &[u8], path: &str, base: u64) -> Result<TracingData> {
        let mut c = SectionCursor::new(b, Endian::NATIVE, "tracing data".into(), path, base);
        let magic = c.take(3, "magic")?;
        if magic != [23, 8, 68] {
            return Err(c.malformed("magic", format!("{magic:?}, expected [23, 8, 68]")));
        }
        if c.take(7, "tag")? != b"tracing" {
            return Err(c.malformed("tag", "expected \"tracing\"".into()));
        }
        let version = c.cstring("version", MAX_STRING)?;
        let big = c.take(1, "file_bigendian")?.first().copied().unwrap_or(0);
        c.order = if big != 0 {
            Endian::Big
        } else {
            Endian::Little
        };
        let mut long_size = c.take(1, "long_size")?.first().copied().unwrap_or(0);
        let page_size = c.u32("page_size")?;
        if page_size == 0 {
            return Err(c.malformed("page_size", "0".into()));
        }
        if c.take(12, "header_page tag")? != b"header_page\0" {
            return Err(c.malformed("header_page tag", "expected \"header_page\"".into()));
        }
        let header_page = c.text64("header_page")?;
        if let Some(commit) = commit_size(&header_page) {
            long_size = commit;
        }
        if c.take(13, "header_event tag")? != b"header_event\0" {
            return Err(c.malformed("header_event tag", "expected \"header_event\"".into()));
        }
        let header_event = c.text64("header_event")?;
        let mut t = TracingData {
            version,
            endian: Some(c.order),
            long_size,
            page_size,
            header_page,
            header_event,
            ..TracingData::default()
        };
        let count = c.u32("ftrace count")?;
        for _ in 0..count {
            let text = c.text64("ftrace format")?;
            t.add("ftrace", &text, true);
        }
        let systems = c.u32("systems")?;
        for _ in 0..systems {
            let system = c.cstring("system", MAX_STRING)?;
            let count = c.u32("event count")?;
            for _ in 0..count {
                let text = c.text64("event format")?;
                t.add(&system, &text, false);
            }
        }
        t.kallsyms_size = c.u32("kallsyms size")?;
        c.take(u64::from(t.kallsyms_size), "kallsyms")?;
        let n = c.u32("printk size")?;
        t.printk = String::from_utf8_lossy(c.take(u64::from(n), "printk formats")?).into_owned();
        if version_at_least(&t.version, 0.6) {
            t.saved_cmdlines = c.text64("saved cmdlines")?;
        }
        t.size = c.pos() as u64;
        Ok(t)
    }

    fn add(&mut self, system: &str, text: &str, ftrace: bool) {
        match Format::parse(system, text) {
            Ok(f) => {
                let f = Arc::new(f);
                self.by_id.insert(f.id, Arc::clone(&f));
                if ftrace {
                    self.ftrace.push(f);
                } else {
                    self.events.push(f);
                }
            }
            Err(e) => self.unparsed.push((system.to_owned(), e.to_string())),
        }
    }
}

/// `atof(version) >= v`, as perf compares it.
fn version_at_least(version: &str, v: f64) -> bool {
    let num: String = version
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    num.parse::<f64>().is_ok_and(|x| x >= v)
}

/// The size of the `commit` field of the `header_page` format, which perf
/// takes as the kernel's long size.
fn commit_size(header_page: &str) -> Option<u8> {
    let line = header_page.lines().find(|l| l.contains(" commit;"))?;
    let size = line
        .split(';')
        .find_map(|part| part.trim().strip_prefix("size:"))?;
    size.trim().parse().ok()
}

#[cfg(test)]
#[path = "tracing_data_tests.rs"]
mod tests;
