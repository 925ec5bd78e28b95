// SPDX-License-Identifier: GPL-2.0-only
//! The tokens of perf's expression language (tools/perf/util/expr.l):
//! numbers, identifiers with perf's escapes, `#literals`, keywords and
//! operators; any other character is skipped, as perf's scanner does.

use super::ExprError;

/// One token and the byte offset it starts at.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    pub kind: Tok,
    pub at: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Number(f64),
    /// An identifier, escapes resolved (`\-` → `-`, `?` → the runtime
    /// parameter); `@` stays as written (a metric id, not yet an event).
    Id(String),
    /// `#name` (without the `#`).
    Literal(String),
    Min,
    Max,
    If,
    Else,
    DRatio,
    SourceCount,
    AggrNr,
    HasEvent,
    StrcmpCpuidStr,
    /// One of `| ^ & < > - + * / % ( ) ,`.
    Punct(char),
    End,
}

fn is_sym(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'@' | b'?')
}

fn is_literal_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-')
}

/// Length of the longest `{symbol}` match at the start of `s`:
/// `(\\[-,=]|[0-9a-zA-Z_.:@?])+`.
fn symbol_len(s: &[u8]) -> usize {
    let mut i = 0;
    loop {
        match s.get(i) {
            Some(b'\\') if matches!(s.get(i + 1), Some(b'-' | b',' | b'=')) => i += 2,
            Some(&c) if is_sym(c) => i += 1,
            _ => return i,
        }
    }
}

fn digits(s: &[u8], from: usize) -> usize {
    s[from..].iter().take_while(|c| c.is_ascii_digit()).count()
}

/// Length of the longest `{number}` match:
/// `([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)?`.
fn number_len(s: &[u8]) -> usize {
    let int = digits(s, 0);
    let mut len = int;
    if s.get(len) == Some(&b'.') {
        let frac = digits(s, len + 1);
        if int > 0 || frac > 0 {
            len += 1 + frac;
        }
    }
    if len == 0 {
        return 0;
    }
    if s.get(len) == Some(&b'e') {
        let sign = usize::from(s.get(len + 1) == Some(&b'-'));
        let exp = digits(s, len + 1 + sign);
        if exp > 0 {
            len += 1 + sign + exp;
        }
    }
    len
}

/// perf's `normalize()`: `\X` → `X`, `?` → the runtime parameter.
fn normalize(s: &str, runtime: i32) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(n) => out.push(n),
                None => break,
            },
            '?' => out.push_str(&runtime.to_string()),
            c => out.push(c),
        }
    }
    out
}

const KEYWORDS: &[(&str, Tok)] = &[
    ("d_ratio", Tok::DRatio),
    ("max", Tok::Max),
    ("min", Tok::Min),
    ("if", Tok::If),
    ("else", Tok::Else),
    ("source_count", Tok::SourceCount),
    ("aggr_nr", Tok::AggrNr),
    ("has_event", Tok::HasEvent),
    ("strcmp_cpuid_str", Tok::StrcmpCpuidStr),
];

/// Splits `src` into tokens, ending with [`Tok::End`].
pub(super) fn tokenize(src: &str, runtime: i32) -> Result<Vec<Token>, ExprError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let rest = &b[i..];
        let at = i;
        if rest[0] == b'#' {
            let n = rest[1..]
                .iter()
                .take_while(|&&c| is_literal_char(c))
                .count();
            if n > 0 {
                out.push(Token {
                    kind: Tok::Literal(src[i + 1..i + 1 + n].to_owned()),
                    at,
                });
                i += 1 + n;
                continue;
            }
        }
        // Flex takes the longest match; at equal length the earlier rule
        // (keywords, then NaN, numbers, symbols).
        let sym = symbol_len(rest);
        let num = number_len(rest);
        if sym > 0 || num > 0 {
            let word = &src[i..i + sym];
            if sym >= num {
                if let Some((_, tok)) = KEYWORDS.iter().find(|(k, _)| *k == word) {
                    out.push(Token {
                        kind: tok.clone(),
                        at,
                    });
                    i += sym;
                    continue;
                }
                if word == "NaN" {
                    out.push(Token {
                        kind: Tok::Number(f64::NAN),
                        at,
                    });
                    i += sym;
                    continue;
                }
            }
            if num >= sym {
                let text = &src[i..i + num];
                let v: f64 = text.parse().map_err(|_| ExprError::Syntax {
                    at,
                    what: format!("bad number '{text}'"),
                })?;
                out.push(Token {
                    kind: Tok::Number(v),
                    at,
                });
                i += num;
            } else {
                let once = normalize(word, runtime);
                out.push(Token {
                    kind: Tok::Id(normalize(&once, runtime)),
                    at,
                });
                i += sym;
            }
            continue;
        }
        let c = rest[0];
        if b"|^&<>-+*/%(),".contains(&c) {
            out.push(Token {
                kind: Tok::Punct(char::from(c)),
                at,
            });
        }
        // Anything else (blanks, stray characters) is skipped, as perf's
        // `.` rule does; a multi-byte character is skipped whole.
        i += src[i..].chars().next().map_or(1, char::len_utf8);
    }
    out.push(Token {
        kind: Tok::End,
        at: b.len(),
    });
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        tokenize(s, 0)
            .unwrap()
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn numbers_symbols_and_keywords_take_the_longest_match() {
        assert_eq!(kinds("1.1e-2")[0], Tok::Number(0.011));
        assert_eq!(kinds("0x0")[0], Tok::Id("0x0".into()));
        assert_eq!(kinds("maxx")[0], Tok::Id("maxx".into()));
        assert_eq!(kinds("max")[0], Tok::Max);
        assert_eq!(kinds(".1")[0], Tok::Number(0.1));
        assert_eq!(kinds("2.")[0], Tok::Number(2.0));
        assert_eq!(kinds(r"a\-b\,c\=d")[0], Tok::Id("a-b,c=d".into()));
        assert_eq!(kinds("a@b@")[0], Tok::Id("a@b@".into()));
        assert_eq!(kinds("#smt_on")[0], Tok::Literal("smt_on".into()));
        assert!(matches!(kinds("NaN")[0], Tok::Number(v) if v.is_nan()));
    }
}
