// SPDX-License-Identifier: GPL-2.0-only
//! The `--itrace` option grammar (perf's `itrace_do_parse_synth_opts`,
//! `util/auxtrace.c`): what instruction-trace (AUX area) decoding would
//! synthesize. Only the grammar matters here: no AUX data is decoded, so
//! the options change nothing.
//!
//! Letters `i y b x w p o I e d c r g G l L s f m t a M q A Z T`, separated
//! by nothing, spaces or commas; `i`/`y` take a period (`i100ns`, `y1000i`,
//! `i10t`, units `i t ns us ms`), `g`/`G` a call chain size (1..=16384),
//! `l`/`L` a branch count (1..=1024), `s` a number of events to skip
//! (strtoul's: spaces and a sign allowed), `e`/`d` flags (`+x`, `-x`,
//! x a lower-case letter).

/// An `--itrace` string perf refuses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Bad Instruction Tracing options '{0}'")]
pub struct ItraceError(pub String);

/// perf's `PERF_ITRACE_MAX_CALLCHAIN_SZ`.
const MAX_CALLCHAIN_SZ: u64 = 16384;
/// perf's `PERF_ITRACE_MAX_LAST_BRANCH_SZ`.
const MAX_LAST_BRANCH_SZ: u64 = 1024;

/// What a valid string asks for (the subset perf's decoders read first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItraceOpts {
    /// `i`: instructions events.
    pub instructions: bool,
    /// `y`: cycles events.
    pub cycles: bool,
    /// `b` (and `c`, `r`): branch events.
    pub branches: bool,
    /// `c`: calls.
    pub calls: bool,
    /// `r`: returns.
    pub returns: bool,
    /// `e`: errors.
    pub errors: bool,
    /// `g`, `G`: the call chain size.
    pub callchain_sz: Option<u32>,
    /// `l`, `L`: the branch context size.
    pub last_branch_sz: Option<u32>,
    /// The `i`/`y` period as written (its unit applied to ns periods).
    pub period: Option<u64>,
    /// `s`: events to skip.
    pub initial_skip: u64,
}

struct Cursor<'a> {
    s: &'a [u8],
    p: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> u8 {
        self.s.get(self.p).copied().unwrap_or(0)
    }

    fn bump(&mut self) -> u8 {
        let c = self.peek();
        self.p += 1;
        c
    }

    fn skip_separators(&mut self) {
        while matches!(self.peek(), b' ' | b',') {
            self.p += 1;
        }
    }

    /// strtoull's digits (saturating, as it does), or None with none.
    fn digits(&mut self) -> Option<u64> {
        let start = self.p;
        let mut v: u64 = 0;
        while self.peek().is_ascii_digit() {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(self.peek() - b'0')))
                .unwrap_or(u64::MAX);
            self.p += 1;
        }
        (self.p > start).then_some(v)
    }

    /// strtoul: leading white space, a sign, digits (none: not a number,
    /// the cursor stays).
    fn strtoul(&mut self) -> Option<u64> {
        let start = self.p;
        while matches!(self.peek(), b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
            self.p += 1;
        }
        let neg = match self.peek() {
            b'-' => {
                self.p += 1;
                true
            }
            b'+' => {
                self.p += 1;
                false
            }
            _ => false,
        };
        match self.digits() {
            Some(v) => Some(if neg { v.wrapping_neg() } else { v }),
            None => {
                self.p = start;
                None
            }
        }
    }

    /// perf's `get_flags`: `+x`/`-x` flags and spaces.
    fn flags(&mut self) -> bool {
        loop {
            match self.peek() {
                b'+' | b'-' => {
                    self.p += 1;
                    while self.peek() == b' ' {
                        self.p += 1;
                    }
                    if !self.peek().is_ascii_lowercase() {
                        return false;
                    }
                    self.p += 1;
                }
                b' ' => self.p += 1,
                _ => return true,
            }
        }
    }

    /// A size after `g`/`l`: optional, 1..=max (strtoul's value as an
    /// unsigned int).
    fn size(&mut self, max: u64) -> Option<Option<u32>> {
        self.skip_separators();
        let Some(v) = self.digits() else {
            return Some(None);
        };
        let v = v as u32;
        (v != 0 && u64::from(v) <= max).then_some(Some(v))
    }
}

/// Parses an `--itrace` string as perf does.
pub fn parse(text: &str) -> Result<ItraceOpts, ItraceError> {
    let err = || ItraceError(text.to_owned());
    let mut o = ItraceOpts::default();
    let mut c = Cursor {
        s: text.as_bytes(),
        p: 0,
    };
    let mut iy = false;
    while c.peek() != 0 {
        match c.bump() {
            l @ (b'i' | b'y') => {
                iy = true;
                if l == b'y' {
                    o.cycles = true;
                } else {
                    o.instructions = true;
                }
                c.skip_separators();
                if let Some(mut period) = c.digits() {
                    c.skip_separators();
                    match c.bump() {
                        b'i' | b't' => {}
                        u @ (b'm' | b'u' | b'n') => {
                            if u == b'm' {
                                period = period.wrapping_mul(1000);
                            }
                            if u != b'n' {
                                period = period.wrapping_mul(1000);
                            }
                            if c.bump() != b's' {
                                return Err(err());
                            }
                        }
                        0 => {
                            o.period = Some(period);
                            return Ok(o);
                        }
                        _ => return Err(err()),
                    }
                    o.period = Some(period);
                }
            }
            b'b' => o.branches = true,
            b'x' | b'w' | b'p' | b'o' | b'I' | b'f' | b'm' | b't' | b'a' | b'M' | b'q' | b'A'
            | b'Z' | b'T' => {}
            b'e' => {
                o.errors = true;
                if !c.flags() {
                    return Err(err());
                }
            }
            b'd' => {
                if !c.flags() {
                    return Err(err());
                }
            }
            b'c' => {
                o.branches = true;
                o.calls = true;
            }
            b'r' => {
                o.branches = true;
                o.returns = true;
            }
            b'g' | b'G' => {
                o.callchain_sz = Some(c.size(MAX_CALLCHAIN_SZ).ok_or_else(err)?.unwrap_or(16));
            }
            b'l' | b'L' => {
                o.last_branch_sz = Some(c.size(MAX_LAST_BRANCH_SZ).ok_or_else(err)?.unwrap_or(64));
            }
            b's' => o.initial_skip = c.strtoul().ok_or_else(err)?,
            b' ' | b',' => {}
            _ => return Err(err()),
        }
    }
    if iy && o.period.is_none() {
        o.period = Some(100_000);
    }
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn accepts_what_perf_accepts() {
        for s in [
            "",
            "i",
            "y",
            "b",
            "cr",
            "ibxwpe",
            "iybxwpe",
            "ce",
            "i100ns",
            "i10us",
            "i1ms",
            "i 100 , i",
            "y1000t",
            "i100",
            "g",
            "g32",
            "G16384",
            "l",
            "L1024",
            "s5",
            "s -3",
            "e+o-l",
            "d+a+e",
            "qqAZT",
            "fmtaMIo",
            "i1i,b",
            " , ",
        ] {
            assert!(parse(s).is_ok(), "{s:?}");
        }
    }

    #[test]
    fn refuses_what_perf_refuses() {
        for s in [
            "z", "i100b", "i100,b", "i10n", "i10us-", "g0", "g16385", "l1025", "l0", "s", "sx",
            "e+", "e+A", "d-1", "h", "iq!", "E",
        ] {
            assert!(parse(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn periods() {
        assert_eq!(parse("i").map(|o| o.period), Ok(Some(100_000)));
        assert_eq!(parse("i2ms").map(|o| o.period), Ok(Some(2_000_000)));
        assert_eq!(parse("y7").map(|o| o.period), Ok(Some(7)));
        assert_eq!(parse("g8").map(|o| o.callchain_sz), Ok(Some(8)));
        assert_eq!(parse("s12").map(|o| o.initial_skip), Ok(12));
    }
}
