// SPDX-License-Identifier: GPL-2.0-only
//! `ParseError`: what was wrong with an event string, and where.
//!
//! Its `Display` is perf's `parse_events_error__print()` layout (80 columns,
//! perf's width when stderr is not a terminal): the input quoted after
//! `event syntax error: `, cut from the left with `..` when the offending
//! byte is far in, and a `\___` caret line under that byte:
//!
//! ```text
//! event syntax error: 'faults:uu'
//!                             \___ Bad modifier
//! ```

use std::fmt;

/// perf's `"event syntax error: "` prefix.
const PREFIX: &str = "event syntax error: ";
/// The terminal width perf assumes when it cannot ask (`get_term_width()`).
const TERM_WIDTH: usize = 80;
/// perf's `max_err_idx`: beyond this column the input is cut from the left.
const MAX_ERR_IDX: usize = 13;

/// A refused event string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What was wrong (`"Bad modifier"`, `"unknown tracepoint"` …).
    pub message: String,
    /// The byte offset into `input` the message is about (may be
    /// `input.len()` for "ended too early").
    pub position: usize,
    /// The whole event string given to the parser.
    pub input: String,
    /// perf's extra lines (`"valid terms: …"`, the tracefs hint …).
    pub help: Option<String>,
}

impl ParseError {
    /// An error about byte `position` of `input`.
    pub fn new(input: &str, position: usize, message: impl Into<String>) -> Self {
        ParseError {
            message: message.into(),
            position,
            input: input.to_owned(),
            help: None,
        }
    }

    /// The same error with perf's help text below the caret.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The errno perf's `parse_events()` fails with for this error
    /// (`EINVAL` for everything the parser refuses).
    pub fn errno(&self) -> i32 {
        libc::EINVAL
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let event = self.input.as_bytes();
        let max_len = TERM_WIDTH - 2 - PREFIX.len();
        let idx = self.position.min(event.len());
        let cut = idx.saturating_sub(MAX_ERR_IDX).min(event.len());
        let mut buf: Vec<u8> = event.get(cut..).unwrap_or_default().to_vec();
        buf.truncate(max_len);
        if cut > 0 {
            for b in buf.iter_mut().take(2) {
                *b = b'.';
            }
        }
        if event.len() - cut > max_len {
            for b in buf.iter_mut().skip(max_len - 2) {
                *b = b'.';
            }
        }
        let column = PREFIX.len() + idx - cut;
        writeln!(f, "{PREFIX}'{}'", String::from_utf8_lossy(&buf))?;
        write!(f, "{:width$}\\___ {}", "", self.message, width = column + 1)?;
        if let Some(help) = &self.help {
            write!(f, "\n\n{help}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}

impl From<ParseError> for crate::error::Error {
    fn from(e: ParseError) -> Self {
        crate::error::Error::InvalidArgument(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_under_the_offending_byte_as_perf_prints_it() {
        // perf 6.1: `perf stat -e faults:uu`
        let e = ParseError::new("faults:uu", 7, "Bad modifier");
        assert_eq!(
            e.to_string(),
            "event syntax error: 'faults:uu'\n                            \\___ Bad modifier"
        );
        let e = ParseError::new("xyz", 0, "parser error");
        assert_eq!(
            e.to_string(),
            "event syntax error: 'xyz'\n                     \\___ parser error"
        );
    }

    #[test]
    fn long_prefixes_are_cut_like_perf() {
        // perf 6.1: `perf stat -e software/config=abc/` points at `abc` (16).
        let e = ParseError::new("software/config=abc/", 16, "expected numeric value");
        assert_eq!(
            e.to_string(),
            "event syntax error: '..are/config=abc/'\n                                  \\___ expected numeric value"
        );
        let e = ParseError::new("msr/foo/", 4, "unknown term 'foo' for pmu 'msr'")
            .with_help("valid terms: event,config");
        assert!(e
            .to_string()
            .ends_with("'msr'\n\nvalid terms: event,config"));
    }

    #[test]
    fn long_inputs_are_cut_on_the_right_and_odd_positions_do_not_panic() {
        let long = "x".repeat(200);
        let e = ParseError::new(&long, 150, "m");
        let first = e.to_string().lines().next().unwrap_or_default().to_owned();
        assert_eq!(first.len(), PREFIX.len() + 2 + 58);
        assert!(first.ends_with("..'"));
        for pos in [0, 1, 199, 200, 500] {
            let _ = ParseError::new(&long, pos, "m").to_string();
            let _ = ParseError::new("é→ü", pos, "m").to_string();
        }
    }
}
