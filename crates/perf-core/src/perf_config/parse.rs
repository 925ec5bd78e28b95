// SPDX-License-Identifier: GPL-2.0-only
//! perf's config file syntax, as tools/perf/util/config.c reads it
//! (`perf_parse_file`, a copy of an early git's config parser):
//!
//! * `[section]` (letters, digits, `-`, `_`, `.`; lower-cased) or
//!   `[section "subsection"]` (any characters, `\` escaping the next one;
//!   case kept), giving keys `section.key` and `section.subsection.key`;
//! * `key = value` lines: the key starts with a letter, which is lower-cased,
//!   and goes on with letters, digits, `-` and `_`, whose case is kept (git
//!   lower-cases it all; perf does not); a key with no `=` stops the file,
//!   as perf's collector refuses it;
//! * values: leading and trailing blanks dropped, inner runs of blanks made
//!   one space, `"` quoting (blanks, `#`, `;` kept), escapes `\\ \" \n \t
//!   \b` and `\` at the end of a line joining the next one; another escape,
//!   an unterminated quote or 1023 bytes make the line bad;
//! * comments from `#` or `;` to the end of the line; CRLF read as LF; a
//!   UTF-8 byte order mark skipped.
//!
//! Character classes are the kernel's (tools/lib/ctype.c, Latin-1 aware: byte
//! 0xA0 is a blank, 0xC0-0xDE upper case), as perf includes <linux/ctype.h>.
//! The first bad line ends the file; what was read before it is kept.

use std::io::BufRead;

/// perf's `MAXNAME`: the longest `section.key`, and half of it for the
/// section part.
const MAXNAME: usize = 256;
/// perf's value buffer: a value is at most 1022 bytes.
const VALUE_MAX: usize = 1023;

fn is_space(c: u8) -> bool {
    matches!(c, b'\t'..=b'\r' | b' ' | 0xa0)
}

fn is_upper(c: u8) -> bool {
    matches!(c, b'A'..=b'Z' | 0xc0..=0xd6 | 0xd8..=0xde)
}

fn is_alpha(c: u8) -> bool {
    is_upper(c) || matches!(c, b'a'..=b'z' | 0xdf..=0xf6 | 0xf8..=0xff)
}

fn is_keychar(c: u8) -> bool {
    is_alpha(c) || c.is_ascii_digit() || c == b'-' || c == b'_'
}

fn to_lower(c: u8) -> u8 {
    if is_upper(c) {
        c + 32
    } else {
        c
    }
}

/// A bad line: perf stops reading the file there.
#[derive(Debug, PartialEq, Eq)]
pub struct BadLine;

/// perf's `get_next_char()` over a byte stream: CRLF as LF, the end of the
/// stream (or a read error, as `fgetc`) as an endless run of LFs.
struct Chars<R> {
    input: R,
    pushed_back: Option<u8>,
    eof: bool,
}

impl<R: BufRead> Chars<R> {
    fn getc(&mut self) -> Option<u8> {
        if let Some(c) = self.pushed_back.take() {
            return Some(c);
        }
        let c = *self.input.fill_buf().ok()?.first()?;
        self.input.consume(1);
        Some(c)
    }

    fn next(&mut self) -> u8 {
        match self.getc() {
            None => {
                self.eof = true;
                b'\n'
            }
            Some(b'\r') => match self.getc() {
                Some(b'\n') => b'\n',
                other => {
                    self.pushed_back = other;
                    b'\r'
                }
            },
            Some(c) => c,
        }
    }

    /// perf's `parse_value()`: the rest of a `key = value` line.
    fn value(&mut self) -> Result<Vec<u8>, BadLine> {
        let (mut quote, mut comment, mut space) = (false, false, false);
        let mut value = Vec::new();
        loop {
            if value.len() >= VALUE_MAX {
                return Err(BadLine);
            }
            let mut c = self.next();
            if c == b'\n' {
                return if quote { Err(BadLine) } else { Ok(value) };
            }
            if comment {
                continue;
            }
            if is_space(c) && !quote {
                space = true;
                continue;
            }
            if !quote && (c == b';' || c == b'#') {
                comment = true;
                continue;
            }
            if space {
                if !value.is_empty() {
                    value.push(b' ');
                }
                space = false;
            }
            if c == b'\\' {
                c = match self.next() {
                    b'\n' => continue,
                    b't' => b'\t',
                    b'b' => 0x08,
                    b'n' => b'\n',
                    c @ (b'\\' | b'"') => c,
                    _ => return Err(BadLine),
                };
                value.push(c);
                continue;
            }
            if c == b'"' {
                quote = !quote;
                continue;
            }
            value.push(c);
        }
    }

    /// perf's `get_value()`: `var` holds `section.` and the key's first
    /// letter; reads the rest of the key and the value, if any.
    fn key_value(&mut self, var: &mut Vec<u8>) -> Result<Option<Vec<u8>>, BadLine> {
        let mut c;
        loop {
            c = self.next();
            if self.eof || !is_keychar(c) {
                break;
            }
            var.push(c);
            if var.len() >= MAXNAME {
                return Err(BadLine);
            }
        }
        while c == b' ' || c == b'\t' {
            c = self.next();
        }
        if c == b'\n' {
            return Ok(None);
        }
        if c != b'=' {
            return Err(BadLine);
        }
        self.value().map(Some)
    }

    /// perf's `get_base_var()`: the section name after `[`, into `var`.
    fn section(&mut self, var: &mut Vec<u8>) -> Result<(), BadLine> {
        loop {
            let c = self.next();
            if self.eof {
                return Err(BadLine);
            }
            if c == b']' {
                return if var.is_empty() { Err(BadLine) } else { Ok(()) };
            }
            if is_space(c) {
                return self.subsection(var, c);
            }
            if (!is_keychar(c) && c != b'.') || var.len() > MAXNAME / 2 {
                return Err(BadLine);
            }
            var.push(to_lower(c));
        }
    }

    /// perf's `get_extended_base_var()`: `"subsection"]` after the blank `c`.
    fn subsection(&mut self, var: &mut Vec<u8>, mut c: u8) -> Result<(), BadLine> {
        loop {
            if c == b'\n' {
                return Err(BadLine);
            }
            c = self.next();
            if !is_space(c) {
                break;
            }
        }
        if c != b'"' {
            return Err(BadLine);
        }
        var.push(b'.');
        loop {
            let mut c = self.next();
            match c {
                b'\n' => return Err(BadLine),
                b'"' => break,
                b'\\' => {
                    c = self.next();
                    if c == b'\n' {
                        return Err(BadLine);
                    }
                }
                _ => {}
            }
            var.push(c);
            if var.len() > MAXNAME / 2 {
                return Err(BadLine);
            }
        }
        if self.next() == b']' {
            Ok(())
        } else {
            Err(BadLine)
        }
    }
}

/// Reads one config file, calling `collect(var, value)` for each
/// `section.key` line (`value` is `None` for a key without `=`); a bad line,
/// or `collect` refusing one, ends the file with `Err(BadLine)`.
pub fn parse_file<R: BufRead>(
    input: R,
    mut collect: impl FnMut(&[u8], Option<&[u8]>) -> Result<(), BadLine>,
) -> Result<(), BadLine> {
    const BOM: &[u8] = b"\xef\xbb\xbf";
    let mut chars = Chars {
        input,
        pushed_back: None,
        eof: false,
    };
    let mut bom = Some(0);
    let mut comment = false;
    let mut section: Vec<u8> = Vec::new();
    loop {
        let c = chars.next();
        if let Some(matched) = bom {
            if BOM.get(matched) == Some(&c) {
                bom = Some(matched + 1).filter(|&n| n < BOM.len());
                continue;
            }
            if matched != 0 {
                return Err(BadLine);
            }
            bom = None;
        }
        if c == b'\n' {
            if chars.eof {
                return Ok(());
            }
            comment = false;
            continue;
        }
        if comment || is_space(c) {
            continue;
        }
        if c == b'#' || c == b';' {
            comment = true;
            continue;
        }
        if c == b'[' {
            section.clear();
            chars.section(&mut section)?;
            section.push(b'.');
            continue;
        }
        if !is_alpha(c) {
            return Err(BadLine);
        }
        let mut var = section.clone();
        var.push(to_lower(c));
        let value = chars.key_value(&mut var)?;
        collect(&var, value.as_deref())?;
    }
}
