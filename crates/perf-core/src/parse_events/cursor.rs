// SPDX-License-Identifier: GPL-2.0-only
//! A byte cursor over the event string: the lexer half of the parser.
//!
//! Every delimiter of the grammar is ASCII, so every position the cursor
//! stops at is a `char` boundary; slices still go through `get` so that a
//! mistake is an error, never a panic.

use super::error::ParseError;

/// Bytes of a name: event, PMU, tracepoint, alias or modifier (letters,
/// digits, `_ . - !` and the glob characters `* ? [ ]`).
pub fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'!' | b'*' | b'?' | b'[' | b']')
}

/// A number as perf's lexer takes one: decimal digits, or `0x` and hex
/// digits (lower-case `x` only); `None` if `text` is anything else or does
/// not fit in a u64.
pub fn parse_number(text: &str) -> Option<u64> {
    if let Some(hex) = text.strip_prefix("0x") {
        if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        return u64::from_str_radix(hex, 16).ok();
    }
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The scanning state: the input and a byte position in it.
pub struct Cursor<'a> {
    input: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    /// A cursor at the start of `input`.
    pub fn new(input: &'a str) -> Self {
        Cursor { input, pos: 0 }
    }

    /// The whole input.
    pub fn input(&self) -> &'a str {
        self.input
    }

    /// The current byte offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to `pos` (a position this cursor reported earlier).
    pub fn set_pos(&mut self, pos: usize) {
        self.pos = pos.min(self.input.len());
    }

    /// True at the end of the input.
    pub fn at_end(&self) -> bool {
        self.pos >= self.input.len()
    }

    /// The byte at the cursor.
    pub fn peek(&self) -> Option<u8> {
        self.input.as_bytes().get(self.pos).copied()
    }

    /// The byte `n` past the cursor.
    pub fn peek_at(&self, n: usize) -> Option<u8> {
        self.input.as_bytes().get(self.pos + n).copied()
    }

    /// Steps over `b` if it is next.
    pub fn eat(&mut self, b: u8) -> bool {
        if self.peek() == Some(b) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// Skips ASCII white space (perf's lexer ignores it between tokens).
    pub fn skip_ws(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// `input[start..end]`, or `""` if that is not a valid slice.
    pub fn slice(&self, start: usize, end: usize) -> &'a str {
        self.input.get(start..end).unwrap_or_default()
    }

    /// The longest run of bytes satisfying `keep` from the cursor on, and
    /// where it starts; the cursor moves past it.
    pub fn take_while(&mut self, keep: impl Fn(u8) -> bool) -> (&'a str, usize) {
        let start = self.pos;
        while self.peek().is_some_and(&keep) {
            self.pos += 1;
        }
        (self.slice(start, self.pos), start)
    }

    /// A name ([`is_word_byte`] run), possibly empty.
    pub fn word(&mut self) -> (&'a str, usize) {
        self.take_while(is_word_byte)
    }

    /// An error about byte `pos`.
    pub fn error(&self, pos: usize, message: impl Into<String>) -> ParseError {
        ParseError::new(self.input, pos, message)
    }

    /// "expected X" at the cursor, naming what is there instead.
    pub fn unexpected(&self, expected: &str) -> ParseError {
        let found = match self.input.get(self.pos..).and_then(|s| s.chars().next()) {
            Some(c) => format!("'{c}'"),
            None => "the end".to_owned(),
        };
        self.error(
            self.pos,
            format!("parser error: expected {expected}, found {found}"),
        )
    }
}

/// The text perf 6.1 names an event after when nothing else names it: its
/// lexer's `PE_EVENT_NAME`, the longest of `[^,{}/]+` and
/// `[^,{}/]+/[^/]*/[^,{}/]*` at the event's start (so `faults:u`,
/// `software/config=1/u`, `mem:0x1000` for `mem:0x1000/8`), white space
/// included.
pub fn event_text(input: &str, start: usize) -> &str {
    let bytes = input.as_bytes();
    let stop = |b: u8| matches!(b, b',' | b'{' | b'}' | b'/');
    let run = |from: usize| {
        let mut i = from;
        while bytes.get(i).is_some_and(|&b| !stop(b)) {
            i += 1;
        }
        i
    };
    let plain = run(start);
    let mut end = plain;
    if plain > start && bytes.get(plain) == Some(&b'/') {
        let mut i = plain + 1;
        while bytes.get(i).is_some_and(|&b| b != b'/') {
            i += 1;
        }
        if bytes.get(i) == Some(&b'/') {
            end = run(i + 1);
        }
    }
    input.get(start..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_like_perfs_lexer() {
        assert_eq!(parse_number("0"), Some(0));
        assert_eq!(parse_number("01"), Some(1));
        assert_eq!(parse_number("0x1a2"), Some(0x1a2));
        assert_eq!(parse_number("0xFFffFFffFFffFFff"), Some(u64::MAX));
        assert_eq!(parse_number("18446744073709551615"), Some(u64::MAX));
        for bad in [
            "",
            "0x",
            "0X10",
            "18446744073709551616",
            "0x10000000000000000",
            "1a",
            "-1",
            " 1",
        ] {
            assert_eq!(parse_number(bad), None, "{bad}");
        }
    }

    #[test]
    fn event_text_is_perfs_event_name_token() {
        assert_eq!(event_text("faults:u,cs", 0), "faults:u");
        assert_eq!(event_text("faults:u,cs", 9), "cs");
        assert_eq!(
            event_text("software/config=1,name=x/u,cs", 0),
            "software/config=1,name=x/u"
        );
        assert_eq!(event_text("mem:0x1000/8:u", 0), "mem:0x1000");
        assert_eq!(event_text("{faults,cs}:S", 1), "faults");
        assert_eq!(event_text("{faults,cs}:S", 8), "cs");
        assert_eq!(event_text(" faults", 0), " faults");
        assert_eq!(event_text("cpu-clock//u", 0), "cpu-clock//u");
        assert_eq!(event_text("x", 7), "");
    }

    #[test]
    fn cursor_basics() {
        let mut c = Cursor::new("  ab-c*:x");
        c.skip_ws();
        assert_eq!(c.word(), ("ab-c*", 2));
        assert!(c.eat(b':'));
        assert!(!c.eat(b':'));
        assert_eq!(c.peek(), Some(b'x'));
        c.set_pos(100);
        assert!(c.at_end());
        assert_eq!(c.word(), ("", 9));
        assert!(c.unexpected("','").message.ends_with("found the end"));
    }
}
