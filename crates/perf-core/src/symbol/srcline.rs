// SPDX-License-Identifier: GPL-2.0-only
//! Source lines (tools/perf/util/srcline.c), read in-process.
//!
//! Debian's perf 6.1 has no libbfd: it starts `addr2line -e <file> -i -f`
//! per DSO and reads the first record it prints for an address, which is
//! the line-table row of that address (the innermost inlined location).
//! `a2l.rs` reads the same record from the same file
//! (`dso->symsrc_filename`, the file the symbols came from, else the object
//! itself) at the same address (`map__rip_2objdump`).
//!
//! perf's per-DSO give-up rule is kept: a DSO whose first 123 lookups all
//! fail gets no more source lines (`A2L_FAIL_LIMIT`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use super::a2l::A2l;
use super::dso::{Dso, DsoKind};
use super::dsos::Dsos;
use super::map::Map;

/// `A2L_FAIL_LIMIT`.
const A2L_FAIL_LIMIT: u32 = 123;

/// A source file and line (`get_srcline_split`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrcLine {
    /// The file as addr2line prints it (the compilation directory joined
    /// with the line table's directory and file name).
    pub file: String,
    /// The line, 0 when the line table says 0.
    pub line: u32,
}

impl SrcLine {
    /// `srcline_from_fileline`: `basename:line`, what perf script prints.
    pub fn short(&self) -> String {
        let base = self.file.rsplit('/').next().unwrap_or(&self.file);
        format!("{base}:{}", self.line)
    }
}

/// perf's per-DSO `has_srcline` / `a2l_fails`.
#[derive(Debug)]
pub(crate) struct SrclineState {
    a2l_fails: AtomicU32,
    has_srcline: AtomicBool,
}

impl Default for SrclineState {
    fn default() -> Self {
        SrclineState {
            a2l_fails: AtomicU32::new(1),
            has_srcline: AtomicBool::new(true),
        }
    }
}

/// `dso__name` in srcline.c: the file addr2line reads, or `None` for
/// objects perf gives no source lines (`[…]` names, JIT maps).
pub(super) fn a2l_file(dso: &Dso, symsrc: Option<&PathBuf>) -> Option<PathBuf> {
    let path = symsrc.cloned().unwrap_or_else(|| dso.path().to_path_buf());
    let s = path.to_string_lossy();
    if s.starts_with('[') || s.starts_with("/tmp/perf-") || dso.kind() == DsoKind::Anon {
        return None;
    }
    Some(path)
}

impl Dsos {
    /// `get_srcline_split`: the source file and line of `addr`, an objdump
    /// address in the DSO (`map.rip_2objdump(map_ip(ip))`). `None` when perf
    /// finds none; perf's give-up rule after 123 failures applies.
    pub fn srcline(&self, dso: &Arc<Dso>, addr: u64) -> Option<SrcLine> {
        let state = dso.srcline.get_or_init(SrclineState::default);
        if !state.has_srcline.load(Ordering::Relaxed) {
            return None;
        }
        let loaded = self.load(dso);
        let found = a2l_file(dso, loaded.symsrc_filename.as_ref()).and_then(|file| {
            let a2l = loaded.dwarf.get_or_init(|| A2l::open(&file).map(Arc::new));
            a2l.as_ref().and_then(|a| a.lookup(addr)).map(|r| SrcLine {
                file: r.file,
                line: r.line,
            })
        });
        match found {
            Some(s) => {
                state.a2l_fails.store(0, Ordering::Relaxed);
                Some(s)
            }
            None => {
                let fails = state.a2l_fails.load(Ordering::Relaxed);
                if fails != 0 {
                    state.a2l_fails.store(fails + 1, Ordering::Relaxed);
                    if fails + 1 > A2L_FAIL_LIMIT {
                        state.has_srcline.store(false, Ordering::Relaxed);
                    }
                }
                None
            }
        }
    }

    /// What perf script prints as the source line of a map-relative
    /// address (`map__fprintf_srcline`): `file:line`, or perf's fallback
    /// `<short name>[<objdump address>]` when there is none, or nothing
    /// (`None`) for `??:0` and unmapped addresses.
    pub fn srcline_text(&self, map: Option<&Map>, addr: u64) -> Option<String> {
        let map = map?;
        let objdump = map.rip_2objdump(addr);
        let text = match self.srcline(map.dso(), objdump) {
            Some(s) => s.short(),
            None => format!("{}[{:x}]", map.dso().short_name(), objdump),
        };
        (text != "??:0").then_some(text)
    }
}

/// What the Python `srccode()` returns: the source file and line of an
/// address, and that line's text when the file can be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SrcCode {
    /// The file as addr2line names it.
    pub file: String,
    /// The line (0 for none).
    pub line: u32,
    /// The line's text, without its newline.
    pub text: Option<String>,
}

impl Dsos {
    /// `srccode()`: the file, line and text of a resolved address
    /// (`get_srcline_split` + `find_sourceline`), `None` without a map or
    /// a source line.
    pub fn srccode(&self, al: &super::resolve::AddrLocation) -> Option<SrcCode> {
        let map = al.map.as_ref()?;
        let s = self.srcline(map.dso(), map.rip_2objdump(al.addr))?;
        let text = self.sources().line(&s.file, s.line);
        Some(SrcCode {
            file: s.file,
            line: s.line,
            text,
        })
    }
}

/// Source files read for [`SourceCache::line`] (perf's srccode.c keeps up
/// to 64 files or 32 MiB).
#[derive(Debug, Default)]
pub struct SourceCache {
    files: Mutex<HashMap<String, Option<Arc<SourceFile>>>>,
}

#[derive(Debug)]
struct SourceFile {
    text: Vec<u8>,
    /// Offsets of line starts.
    lines: Vec<usize>,
}

/// perf's `MAXSRCFILES` and `MAXSRCCACHE`.
const MAX_SRC_FILES: usize = 64;
const MAX_SRC_BYTES: usize = 32 << 20;

impl SourceCache {
    /// `find_sourceline`: line `line` (1-based) of `file`, without its
    /// newline.
    pub fn line(&self, file: &str, line: u32) -> Option<String> {
        let src = {
            let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
            if !files.contains_key(file) {
                let total: usize = files.values().flatten().map(|f| f.text.len()).sum();
                if files.len() >= MAX_SRC_FILES || total > MAX_SRC_BYTES {
                    files.clear();
                }
                // A regular file of at most the whole cache's size (a FIFO
                // or a device gives no text: perf's open would block).
                let loaded = crate::regular_file::read_capped(
                    std::path::Path::new(file),
                    MAX_SRC_BYTES as u64,
                )
                .ok()
                .map(|text| {
                    let mut lines = vec![0];
                    lines.extend(
                        text.iter()
                            .enumerate()
                            .filter(|(_, &b)| b == b'\n')
                            .map(|(i, _)| i + 1),
                    );
                    if lines.last() == Some(&text.len()) {
                        lines.pop();
                    }
                    if text.is_empty() {
                        lines.clear();
                    }
                    Arc::new(SourceFile { text, lines })
                });
                files.insert(file.to_owned(), loaded);
            }
            files.get(file).cloned().flatten()?
        };
        let idx = usize::try_from(line).ok()?.checked_sub(1)?;
        let start = *src.lines.get(idx)?;
        let rest = src.text.get(start..)?;
        let end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        Some(String::from_utf8_lossy(&rest[..end]).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_lines() {
        let dir = std::env::temp_dir().join(format!("perfpy-srccode-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let f = dir.join("a.c");
        std::fs::write(&f, "int a;\nint main(void)\n{ return 0; }").expect("write");
        let c = SourceCache::default();
        let name = f.to_string_lossy();
        assert_eq!(c.line(&name, 2).as_deref(), Some("int main(void)"));
        assert_eq!(c.line(&name, 3).as_deref(), Some("{ return 0; }"));
        assert_eq!(c.line(&name, 4), None);
        assert_eq!(c.line(&name, 0), None);
        assert_eq!(c.line("/nonexistent/x.c", 1), None);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(
            SrcLine {
                file: "/usr/src/x/a.c".into(),
                line: 7
            }
            .short(),
            "a.c:7"
        );
    }
}
