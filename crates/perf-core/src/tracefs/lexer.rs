// SPDX-License-Identifier: GPL-2.0-only
//! The tokenizer of libtraceevent (`event-parse.c`: `get_type`,
//! `__read_token`, `read_token`, `read_token_item`), as far as a `format`
//! file's header and field lines need it.
//!
//! Field declarations are split into tokens exactly the way libtraceevent
//! splits them, because the field's type text (and from it the
//! `TEP_FIELD_IS_*` flags) is rebuilt from those tokens.

/// A token class, libtraceevent's `enum tep_event_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// End of input or a byte that is neither printable nor space.
    None,
    /// `\n`.
    Newline,
    /// A run of `[A-Za-z0-9_]`.
    Item,
    /// `'…'` (quotes dropped).
    Squote,
    /// `"…"` (quotes dropped).
    Dquote,
    /// `(`, `)` or `,`.
    Delim,
    /// Any other printable character (and the two-character operators).
    Op,
}

/// One token: its class and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    pub(crate) kind: Kind,
    pub(crate) text: &'a str,
}

impl Token<'_> {
    /// True for a token of class `kind` whose text is `text`.
    pub(crate) fn is(&self, kind: Kind, text: &str) -> bool {
        self.kind == kind && self.text == text
    }
}

/// A cursor over a `format` file.
pub(crate) struct Lexer<'a> {
    text: &'a str,
    pos: usize,
}

/// C `isspace()` in the "C" locale.
pub(crate) fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C `isprint()` in the "C" locale.
pub(crate) fn is_c_print(b: u8) -> bool {
    (0x20..=0x7e).contains(&b)
}

/// libtraceevent's `get_type()`: the class a token starting with `b` has.
/// `Space` is folded into `None` here and handled by the caller.
fn class_of(b: u8) -> Option<Kind> {
    if b == b'\n' {
        return Some(Kind::Newline);
    }
    if is_c_space(b) {
        return None; // TEP_EVENT_SPACE
    }
    if b.is_ascii_alphanumeric() || b == b'_' {
        return Some(Kind::Item);
    }
    if b == b'\'' {
        return Some(Kind::Squote);
    }
    if b == b'"' {
        return Some(Kind::Dquote);
    }
    if !is_c_print(b) {
        return Some(Kind::None);
    }
    if matches!(b, b'(' | b')' | b',') {
        return Some(Kind::Delim);
    }
    Some(Kind::Op)
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        Lexer { text, pos: 0 }
    }

    /// The 1-based line the cursor is on, for error messages.
    pub(crate) fn line(&self) -> usize {
        let done = self.text.as_bytes().get(..self.pos).unwrap_or_default();
        1 + done.iter().filter(|&&b| b == b'\n').count()
    }

    /// True when everything has been read.
    pub(crate) fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn token(&self, kind: Kind, start: usize) -> Token<'a> {
        Token {
            kind,
            text: self.text.get(start..self.pos).unwrap_or_default(),
        }
    }

    /// The rest of the current line (without its `\n`), consuming it and the `\n`.
    pub(crate) fn rest_of_line(&mut self) -> &'a str {
        let rest = self.text.get(self.pos..).unwrap_or_default();
        let (line, used) = match rest.find('\n') {
            Some(nl) => (rest.get(..nl).unwrap_or_default(), nl + 1),
            None => (rest, rest.len()),
        };
        self.pos += used;
        line
    }

    /// Everything not yet read, consuming it.
    pub(crate) fn rest(&mut self) -> &'a str {
        let rest = self.text.get(self.pos..).unwrap_or_default();
        self.pos = self.text.len();
        rest
    }

    /// `__read_token()` minus `TEP_EVENT_SPACE` tokens, which `read_token()`
    /// drops anyway: returns the next token, skipping spaces but not newlines.
    pub(crate) fn read_token(&mut self) -> Token<'a> {
        while self.peek().is_some_and(|b| b != b'\n' && is_c_space(b)) {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(b) = self.peek() else {
            return self.token(Kind::None, start);
        };
        let Some(kind) = class_of(b) else {
            return self.token(Kind::None, start); // unreachable: spaces skipped
        };
        if kind == Kind::None {
            return self.token(Kind::None, start);
        }
        self.pos += 1;
        match kind {
            Kind::Newline | Kind::Delim => {}
            Kind::Op => self.finish_op(b),
            Kind::Squote | Kind::Dquote => return self.finish_quote(kind, b),
            Kind::Item => {
                while self.peek().and_then(class_of) == Some(Kind::Item) {
                    self.pos += 1;
                }
            }
            Kind::None => {}
        }
        self.token(kind, start)
    }

    /// `read_token_item()`: like [`Lexer::read_token`] but skips newlines too.
    pub(crate) fn read_token_item(&mut self) -> Token<'a> {
        loop {
            let tok = self.read_token();
            if tok.kind != Kind::Newline {
                return tok;
            }
        }
    }

    /// The two-character operators of `__read_token()` (`->`, `++`, `<<=`, `!=`…).
    fn finish_op(&mut self, first: u8) {
        let test_equal = match first {
            b'-' if self.peek() == Some(b'>') => {
                self.pos += 1;
                false
            }
            b'-' | b'+' | b'|' | b'&' | b'>' | b'<' => {
                if self.peek() == Some(first) {
                    self.pos += 1;
                    matches!(first, b'>' | b'<')
                } else {
                    true
                }
            }
            b'!' | b'=' => true,
            _ => false,
        };
        if test_equal && self.peek() == Some(b'=') {
            self.pos += 1;
        }
    }

    /// A quoted token; the quotes are not part of its text. A backslash
    /// escapes the quote character. An unterminated quote yields `None`.
    fn finish_quote(&mut self, kind: Kind, quote: u8) -> Token<'a> {
        let start = self.pos;
        let mut last = 0u8;
        while let Some(b) = self.peek() {
            self.pos += 1;
            if b == quote && last != b'\\' {
                let text = self.text.get(start..self.pos - 1).unwrap_or_default();
                return Token { kind, text };
            }
            last = if b == b'\\' && last == b'\\' { 0 } else { b };
        }
        self.token(Kind::None, start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Vec<(Kind, String)> {
        let mut lx = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            let t = lx.read_token();
            if t.kind == Kind::None {
                return out;
            }
            out.push((t.kind, t.text.to_owned()));
        }
    }

    #[test]
    fn splits_a_field_line_like_libtraceevent() {
        let toks = all("\tfield:__data_loc char[] name;\toffset:8;\n");
        let texts: Vec<&str> = toks.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            [
                "field",
                ":",
                "__data_loc",
                "char",
                "[",
                "]",
                "name",
                ";",
                "offset",
                ":",
                "8",
                ";",
                "\n"
            ]
        );
        assert_eq!(toks[0].0, Kind::Item);
        assert_eq!(toks[4].0, Kind::Op);
        assert_eq!(toks[12].0, Kind::Newline);
    }

    #[test]
    fn operators_and_delims() {
        let toks = all("a->b != c <<= (d, e) ** x");
        let texts: Vec<&str> = toks.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            ["a", "->", "b", "!=", "c", "<<=", "(", "d", ",", "e", ")", "*", "*", "x"]
        );
        assert_eq!(toks[6].0, Kind::Delim);
    }

    #[test]
    fn quotes_and_stops() {
        assert_eq!(
            all(r#""a\"b" 'c'"#),
            [
                (Kind::Dquote, r#"a\"b"#.to_owned()),
                (Kind::Squote, "c".to_owned())
            ]
        );
        assert_eq!(all("\"open"), []);
        assert_eq!(all("a\u{1}b"), [(Kind::Item, "a".to_owned())]);
    }

    #[test]
    fn item_skips_newlines_and_lines_count() {
        let mut lx = Lexer::new("\n\n  ID: 5\n");
        assert_eq!(lx.read_token_item().text, "ID");
        assert_eq!(lx.line(), 3);
        assert_eq!(lx.read_token().text, ":");
        assert_eq!(lx.rest_of_line(), " 5");
        assert_eq!(lx.rest(), "");
    }
}
