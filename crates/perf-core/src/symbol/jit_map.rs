// SPDX-License-Identifier: GPL-2.0-only
//! JIT symbol files, `/tmp/perf-<pid>.map` (`dso__load_perf_map`): one
//! `START SIZE name` line per symbol, hex numbers, absolute addresses.

use super::symbols::{Symbol, Symbols, STB_GLOBAL, STT_FUNC};

/// The biggest JIT map read (a regular file; a FIFO or a device is not
/// read, where perf's `fopen` would wait or read forever). A line is about
/// 50 bytes: millions of symbols.
pub(crate) const MAX_FILE: u64 = 256 << 20;

/// `strtoull(s, &end, 16)`: the value and how many bytes it used (0 when
/// there is no number).
fn strtoull_hex(s: &[u8]) -> (u64, usize) {
    let mut i = s
        .iter()
        .take_while(|b| b" \t\n\r\x0b\x0c".contains(b))
        .count();
    let neg = match s.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let prefixed = matches!(s.get(i..i + 2), Some([b'0', b'x' | b'X']))
        && s.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
    if prefixed {
        i += 2;
    }
    let digits = s[i.min(s.len())..]
        .iter()
        .take_while(|b| b.is_ascii_hexdigit())
        .count();
    if digits == 0 {
        return (0, 0);
    }
    let mut v: u64 = 0;
    let mut overflow = false;
    for &b in &s[i..i + digits] {
        let d = u64::from((b as char).to_digit(16).unwrap_or(0));
        match v.checked_mul(16).and_then(|x| x.checked_add(d)) {
            Some(n) => v = n,
            None => overflow = true,
        }
    }
    let v = if overflow {
        u64::MAX
    } else if neg {
        v.wrapping_neg()
    } else {
        v
    };
    (v, i + digits)
}

/// Parses a perf map file's text. Symbols are inserted as they come, with
/// no end or duplicate fix-ups (perf does none for these files).
pub(crate) fn parse(text: &[u8]) -> Symbols {
    let mut syms = Symbols::new();
    let mut rest = text;
    while !rest.is_empty() {
        // getline() keeps the '\n'; perf then drops the last byte.
        let n = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |p| p + 1);
        let (raw, tail) = rest.split_at(n);
        rest = tail;
        let line = &raw[..raw.len() - 1];
        let line_len = line.len();
        let (start, mut len) = strtoull_hex(line);
        len += 1;
        if len + 2 >= line_len {
            continue;
        }
        let (size, used) = strtoull_hex(&line[len..]);
        len += used + 1;
        if len + 2 >= line_len {
            continue;
        }
        let name = String::from_utf8_lossy(&line[len..]);
        syms.insert(Symbol::new(start, size, STB_GLOBAL, STT_FUNC, &name));
    }
    syms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perf_map_lines() {
        let t = parse(
            b"7f00001000 40 jit_one\n\
0x7f00002000 0x10 LazyCompile:~f /app.js:1\n\
bad\n\
7f00003000 8 ab\n\
7f00004000 8 last",
        );
        let names: Vec<(u64, u64, &str)> = t.iter().map(|s| (s.start, s.end, s.name())).collect();
        // "ab" is too short for perf's length check; the unterminated last
        // line loses its last byte.
        assert_eq!(
            names,
            [
                (0x7f00001000, 0x7f00001040, "jit_one"),
                (0x7f00002000, 0x7f00002010, "LazyCompile:~f /app.js:1"),
                (0x7f00004000, 0x7f00004008, "las"),
            ]
        );
        assert_eq!(strtoull_hex(b"  ff x"), (0xff, 4));
        assert_eq!(strtoull_hex(b"xyz"), (0, 0));
    }
}
