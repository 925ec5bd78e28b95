// SPDX-License-Identifier: GPL-2.0-only
//! The `events/<sys>/<name>/format` file of a tracepoint, parsed by
//! libtraceevent's rules (`parse_format`, `event_read_format`,
//! `event_read_fields`):
//!
//! ```text
//! name: sched_switch
//! ID: 372
//! format:
//!     field:unsigned short common_type;    offset:0;    size:2;    signed:0;
//!     …                                   (common fields, then a blank line)
//!     field:char prev_comm[16];    offset:8;    size:16;    signed:0;
//!     …                                   (event fields, then a blank line)
//!
//! print fmt: "prev_comm=%s …", REC->prev_comm, …
//! ```
//!
//! (Tabs shown as spaces.) The print format is kept as text; nothing here
//! evaluates it.

use super::field::{flags_from_type, Field, TEP_FIELD_IS_DYNAMIC, TEP_FIELD_IS_STRING};
use super::lexer::{Kind, Lexer, Token};
use crate::error::{Error, Result};

/// A parsed tracepoint format: libtraceevent's `struct tep_event` minus
/// the print arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Format {
    /// The subsystem (the `events/` directory it came from), e.g. `sched`.
    pub system: String,
    /// The `name:` line, e.g. `sched_switch`.
    pub name: String,
    /// The `ID:` line: the value for `attr.config` with `PERF_TYPE_TRACEPOINT`.
    pub id: u64,
    /// `common_type`, `common_flags`, `common_preempt_count`, `common_pid`…
    pub common_fields: Vec<Field>,
    /// The event's own fields, in file order.
    pub fields: Vec<Field>,
    /// The text after `print fmt: `, if the file has one.
    pub print_fmt: Option<String>,
}

impl Format {
    /// Parses the text of a `format` file of subsystem `system`.
    ///
    /// # Errors
    /// [`Error::Malformed`] naming the line and what was expected there.
    pub fn parse(system: &str, text: &str) -> Result<Format> {
        Parser {
            lx: Lexer::new(text),
            ftrace: system == "ftrace",
        }
        .format(system)
    }

    /// `tep_find_any_field()`: the common field called `name`, else the
    /// event field called `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.common_fields
            .iter()
            .chain(&self.fields)
            .find(|f| f.name == name)
    }
}

struct Parser<'a> {
    lx: Lexer<'a>,
    /// libtraceevent's `TEP_EVENT_FL_ISFTRACE` (system `ftrace`): accepts
    /// the `special` keyword and `.` inside declarations.
    ftrace: bool,
}

/// C `strtoul(s, NULL, 0)` on a whole token: decimal, `0x` hex or `0` octal.
fn parse_ulong(s: &str) -> Option<u64> {
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()
    } else if s.len() > 1 && s.starts_with('0') {
        u64::from_str_radix(s.get(1..)?, 8).ok()
    } else {
        s.parse().ok()
    }
}

/// C `strtoul(s, NULL, 0)` as libtraceevent uses it for `[N]`: the leading
/// number, 0 when there is none.
fn leading_ulong(s: &str) -> u32 {
    let end = s
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(s.len());
    let digits = s.get(..end).unwrap_or_default();
    (1..=digits.len())
        .rev()
        .find_map(|n| digits.get(..n).and_then(parse_ulong))
        .and_then(|v| u32::try_from(v).ok())
        .unwrap_or(0)
}

impl<'a> Parser<'a> {
    fn err(&self, what: &str, got: &Token<'_>) -> Error {
        Error::Malformed {
            what: "tracepoint format",
            detail: format!(
                "line {}: expected {what}, found {:?}",
                self.lx.line(),
                got.text
            ),
        }
    }

    /// The `TEP_EVENT_NONE` token read at the end of the text.
    fn is_eof(&self, tok: &Token<'_>) -> bool {
        tok.kind == Kind::None && self.lx.at_end()
    }

    fn expect(&mut self, kind: Kind, text: &str) -> Result<()> {
        let tok = self.lx.read_token();
        if tok.is(kind, text) {
            Ok(())
        } else {
            Err(self.err(&format!("{text:?}"), &tok))
        }
    }

    fn expect_item_skipping_newlines(&mut self, text: &str) -> Result<()> {
        let tok = self.lx.read_token_item();
        if tok.is(Kind::Item, text) {
            Ok(())
        } else {
            Err(self.err(&format!("{text:?}"), &tok))
        }
    }

    fn number(&mut self, what: &str) -> Result<u64> {
        let tok = self.lx.read_token();
        match tok.kind {
            Kind::Item => parse_ulong(tok.text).ok_or_else(|| self.err(what, &tok)),
            _ => Err(self.err(what, &tok)),
        }
    }

    fn number_u32(&mut self, what: &str) -> Result<u32> {
        let n = self.number(what)?;
        u32::try_from(n).map_err(|_| Error::Malformed {
            what: "tracepoint format",
            detail: format!("line {}: {what} {n} out of range", self.lx.line()),
        })
    }

    fn format(mut self, system: &str) -> Result<Format> {
        // event_read_name(); the rest of the line, so that odd names survive.
        self.expect(Kind::Item, "name")?;
        self.expect(Kind::Op, ":")?;
        let name = self.lx.rest_of_line().trim().to_owned();
        // event_read_id()
        self.expect_item_skipping_newlines("ID")?;
        self.expect(Kind::Op, ":")?;
        let id = self.number("an event id")?;
        // event_read_format()
        self.expect_item_skipping_newlines("format")?;
        self.expect(Kind::Op, ":")?;
        let tok = self.lx.read_token();
        if tok.kind != Kind::Newline {
            return Err(self.err("end of line", &tok));
        }
        let common_fields = self.fields()?;
        let fields = self.fields()?;
        Ok(Format {
            system: system.to_owned(),
            name,
            id,
            common_fields,
            fields,
            print_fmt: self.print_fmt(),
        })
    }

    /// `print fmt: …` to the end of the file, if present.
    fn print_fmt(&mut self) -> Option<String> {
        if !self.lx.read_token_item().is(Kind::Item, "print") {
            return None;
        }
        if !self.lx.read_token().is(Kind::Item, "fmt") || !self.lx.read_token().is(Kind::Op, ":") {
            return None;
        }
        Some(self.lx.rest().trim().to_owned())
    }

    /// `event_read_fields()`: field lines up to a blank line (or the end).
    fn fields(&mut self) -> Result<Vec<Field>> {
        let mut out = Vec::new();
        loop {
            let tok = self.lx.read_token();
            match tok.kind {
                Kind::Newline => return Ok(out),
                // A file cut after the last field: libtraceevent fails on
                // it, but every field line was complete, so keep them.
                _ if self.is_eof(&tok) => return Ok(out),
                _ if tok.is(Kind::Item, "field") => out.push(self.field()?),
                _ => return Err(self.err("\"field\"", &tok)),
            }
        }
    }

    /// One `field:<decl>;\toffset:N;\tsize:N;\tsigned:N;` line, `field` already read.
    fn field(&mut self) -> Result<Field> {
        let mut tok = self.lx.read_token();
        if self.ftrace && tok.is(Kind::Item, "special") {
            tok = self.lx.read_token();
        }
        if !tok.is(Kind::Op, ":") {
            return Err(self.err("\":\"", &tok));
        }
        let decl = self.declaration()?;
        self.expect(Kind::Item, "offset")?;
        self.expect(Kind::Op, ":")?;
        let offset = self.number_u32("an offset")?;
        self.expect(Kind::Op, ";")?;
        self.expect(Kind::Item, "size")?;
        self.expect(Kind::Op, ":")?;
        let size = self.number_u32("a size")?;
        self.expect(Kind::Op, ";")?;
        let mut flags = decl.flags;
        // Old kernels: dynamic strings with a 2-byte offset and no length.
        if flags & TEP_FIELD_IS_DYNAMIC != 0 && size == 2 {
            flags |= TEP_FIELD_IS_STRING;
        }
        let tok = self.lx.read_token();
        if tok.kind != Kind::Newline {
            // Newer kernels have "signed:N;". (A file cut after "size:N;"
            // is an error, as in libtraceevent: it can't be told from an
            // old-style line.)
            if !tok.is(Kind::Item, "signed") {
                return Err(self.err("\"signed\"", &tok));
            }
            self.expect(Kind::Op, ":")?;
            if self.number("0 or 1")? != 0 {
                flags |= super::field::TEP_FIELD_IS_SIGNED;
            }
            self.expect(Kind::Op, ";")?;
            let tok = self.lx.read_token();
            if tok.kind != Kind::Newline && !self.is_eof(&tok) {
                return Err(self.err("end of line", &tok));
            }
        }
        Ok(Field::new(
            decl.name,
            decl.type_name,
            offset,
            size,
            decl.arraylen,
            flags,
        ))
    }

    /// The `<decl>;` part: type tokens, then the name, then `[…]`; consumes the `;`.
    fn declaration(&mut self) -> Result<Decl> {
        let first = self.lx.read_token();
        if first.kind != Kind::Item {
            return Err(self.err("a type", &first));
        }
        let mut type_name = String::new();
        let mut last = first.text.to_owned();
        let mut pointer = false;
        let mut delim = " ";
        let mut tok;
        loop {
            tok = self.lx.read_token();
            let takes = tok.kind == Kind::Item
                || tok.is(Kind::Op, "*")
                || (self.ftrace && tok.is(Kind::Op, "."));
            if takes {
                pointer |= tok.text == "*";
                push(&mut type_name, delim, &last);
                last = tok.text.to_owned();
                delim = " ";
                continue;
            }
            if tok.is(Kind::Delim, "(") && last == "__attribute__" {
                // `__attribute__((user))`: copied into the type, as libtraceevent does.
                push(&mut type_name, " ", &last);
                type_name.push('(');
                delim = self.attribute(&mut type_name, &mut last)?;
                continue;
            }
            break;
        }
        if type_name.is_empty() {
            return Err(self.err("a type before the field name", &tok));
        }
        let mut name = last;
        let mut array = false;
        let mut arraylen = 0;
        if tok.is(Kind::Op, "[") {
            array = true;
            let (brackets, len) = self.brackets()?;
            arraylen = len;
            tok = self.lx.read_token();
            if tok.kind == Kind::Item {
                // `type [] item;` (`__data_loc char[] name`)
                push(&mut type_name, " ", &name);
                type_name.push_str(&brackets);
                name = tok.text.to_owned();
                tok = self.lx.read_token();
            } else {
                type_name.push_str(&brackets);
            }
        }
        if !tok.is(Kind::Op, ";") {
            return Err(self.err("\";\" after the field name", &tok));
        }
        let flags = flags_from_type(&type_name, array, pointer);
        Ok(Decl {
            name,
            type_name,
            arraylen,
            flags,
        })
    }

    /// The rest of `__attribute__((…))` after its first `(`, appended to
    /// `type_name` the way libtraceevent appends it. Returns the next delimiter.
    fn attribute(&mut self, type_name: &mut String, last: &mut String) -> Result<&'static str> {
        let mut depth = 1;
        let mut delim = " ";
        loop {
            let tok = self.lx.read_token();
            match tok.kind {
                Kind::None | Kind::Newline => return Err(self.err("\")\"", &tok)),
                Kind::Delim => {
                    match tok.text {
                        "(" => depth += 1,
                        ")" => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        return Ok(delim);
                    }
                    type_name.push_str(tok.text);
                    delim = "";
                }
                _ => {
                    push(type_name, delim, tok.text);
                    delim = " ";
                }
            }
            tok.text.clone_into(last);
        }
    }

    /// `[…]` after the `[`: the bracket text as libtraceevent rebuilds it,
    /// and the array length (`strtoul` of the last token inside).
    fn brackets(&mut self) -> Result<(String, u32)> {
        let mut text = String::from("[");
        let mut arraylen = 0;
        let mut last_kind = Kind::Op;
        loop {
            let tok = self.lx.read_token();
            match tok.kind {
                Kind::None | Kind::Newline => return Err(self.err("\"]\"", &tok)),
                _ if tok.is(Kind::Op, "]") => break,
                kind => {
                    if last_kind == Kind::Item && kind == Kind::Item {
                        text.push(' ');
                    }
                    text.push_str(tok.text);
                    arraylen = if kind == Kind::Item {
                        leading_ulong(tok.text)
                    } else {
                        0
                    };
                    last_kind = kind;
                }
            }
        }
        text.push(']');
        Ok((text, arraylen))
    }
}

/// libtraceevent's `append()` for the first word being a plain assignment.
fn push(type_name: &mut String, delim: &str, word: &str) {
    if !type_name.is_empty() {
        type_name.push_str(delim);
    }
    type_name.push_str(word);
}

/// What a declaration yields before `offset:`/`size:` are known.
struct Decl {
    name: String,
    type_name: String,
    arraylen: u32,
    flags: u32,
}

#[cfg(test)]
#[path = "format_tests.rs"]
mod tests;
