// SPDX-License-Identifier: GPL-2.0-only
//! Event terms, the `/…/` part of `pmu/config=1,name=x/`: reading them,
//! the terms perf hard-codes (`config`, `name`, `period`, `call-graph` …),
//! and applying the per-event settings the way perf's
//! `evsel__apply_config_terms()` does.
//!
//! Terms that are not hard-coded are PMU format fields and event aliases
//! (see [`super::sysfs`]).

use perf_event_open_sys::bindings as b;

use super::cursor::{parse_number, Cursor};
use super::error::ParseError;
use crate::attr::Attr;

/// `PERF_SAMPLE_*` bits the terms touch.
mod sample {
    use super::b;
    pub const ADDR: u64 = b::PERF_SAMPLE_ADDR as u64;
    pub const CALLCHAIN: u64 = b::PERF_SAMPLE_CALLCHAIN as u64;
    pub const TIME: u64 = b::PERF_SAMPLE_TIME as u64;
    pub const PERIOD: u64 = b::PERF_SAMPLE_PERIOD as u64;
    pub const BRANCH_STACK: u64 = b::PERF_SAMPLE_BRANCH_STACK as u64;
    pub const REGS_USER: u64 = b::PERF_SAMPLE_REGS_USER as u64;
    pub const STACK_USER: u64 = b::PERF_SAMPLE_STACK_USER as u64;
    pub const DATA_SRC: u64 = b::PERF_SAMPLE_DATA_SRC as u64;
}

/// perf's default user stack dump for `call-graph=dwarf` (bytes).
pub const DEFAULT_DWARF_DUMP_SIZE: u64 = 8192;

/// The registers perf samples for DWARF unwinding (`arch__user_reg_mask()`,
/// i.e. `PERF_REGS_MASK` of the architecture perf was built for).
#[cfg(target_arch = "x86_64")]
pub const USER_REGS_MASK: u64 = 0xff0fff;
/// The registers perf samples for DWARF unwinding (`arch__user_reg_mask()`).
#[cfg(target_arch = "aarch64")]
pub const USER_REGS_MASK: u64 = (1 << 33) - 1;
/// The registers perf samples for DWARF unwinding (not known for this
/// architecture here).
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub const USER_REGS_MASK: u64 = 0;

/// A term's value as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermValue {
    /// `term=123`, `term=0x7b`.
    Num(u64),
    /// `term=text`, `term='quoted text'`.
    Str(String),
    /// Bare `term`: a flag (perf gives it the value 1).
    Bare,
}

/// One `name[=value]` term and where it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The term's name.
    pub name: String,
    /// Byte offset of the name.
    pub name_pos: usize,
    /// The value.
    pub value: TermValue,
    /// Byte offset of the value (just past the name for a bare term).
    pub value_pos: usize,
}

impl Term {
    /// The number perf uses: the value, or 1 for a bare term.
    pub fn num(&self) -> Option<u64> {
        match self.value {
            TermValue::Num(n) => Some(n),
            TermValue::Bare => Some(1),
            TermValue::Str(_) => None,
        }
    }
}

/// Bytes a term name is made of (`call-graph`, `config1`, `umask`).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Bytes of an unquoted string value (perf's `name_minus`).
fn is_str_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'*' | b'?')
}

/// Reads `term[=value]{,term[=value]}` (possibly nothing) up to, not
/// including, the closing `/` or the end.
///
/// # Errors
/// A parser error for a missing name, an empty item (`a,,b`, `a,`), a
/// number that is not one, or an unterminated quote.
pub fn parse_terms(c: &mut Cursor<'_>) -> Result<Vec<Term>, ParseError> {
    let mut terms = Vec::new();
    c.skip_ws();
    if c.at_end() || c.peek() == Some(b'/') {
        return Ok(terms);
    }
    loop {
        c.skip_ws();
        terms.push(parse_term(c)?);
        c.skip_ws();
        if !c.eat(b',') {
            return Ok(terms);
        }
    }
}

/// One `name[=value]`.
fn parse_term(c: &mut Cursor<'_>) -> Result<Term, ParseError> {
    if !c
        .peek()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
    {
        return Err(c.unexpected("a term name"));
    }
    let (name, name_pos) = c.take_while(is_name_byte);
    c.skip_ws();
    if !c.eat(b'=') {
        return Ok(Term {
            name: name.to_owned(),
            name_pos,
            value: TermValue::Bare,
            value_pos: name_pos + name.len(),
        });
    }
    c.skip_ws();
    let value_pos = c.pos();
    let value = match c.peek() {
        Some(b'0'..=b'9') => {
            let (text, pos) = c.take_while(|b| b.is_ascii_alphanumeric());
            TermValue::Num(
                parse_number(text)
                    .ok_or_else(|| c.error(pos, format!("parser error: bad number '{text}'")))?,
            )
        }
        Some(b'\'') => {
            c.eat(b'\'');
            let (text, _) = c.take_while(|b| b != b'\'');
            if !c.eat(b'\'') {
                return Err(c.error(value_pos, "parser error: unterminated quote"));
            }
            TermValue::Str(text.to_owned())
        }
        Some(b) if b.is_ascii_alphabetic() || matches!(b, b'_' | b'*' | b'?') => {
            TermValue::Str(c.take_while(is_str_byte).0.to_owned())
        }
        _ => return Err(c.unexpected("a term value")),
    };
    Ok(Term {
        name: name.to_owned(),
        name_pos,
        value,
        value_pos,
    })
}

/// `call-graph=` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallGraph {
    /// `no`: no call chains for this event.
    No,
    /// `fp`: frame pointers.
    Fp,
    /// `dwarf`: user stack and registers, unwound later.
    Dwarf,
    /// `lbr`: the last-branch-record call stack.
    Lbr,
}

/// A per-event setting perf applies in `evsel__config()`, after the tool's
/// defaults (perf's `struct evsel_config_term`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigTerm {
    /// `period=N`: sample every N events (`freq` off).
    Period(u64),
    /// `freq=N`: sample N times a second (`freq` on).
    Freq(u64),
    /// `time=0|1`: `PERF_SAMPLE_TIME` off or on.
    Time(bool),
    /// `call-graph=MODE`.
    CallGraph(CallGraph),
    /// `stack-size=N`: user stack bytes for `call-graph=dwarf`.
    StackSize(u64),
    /// `max-stack=N`: `sample_max_stack`.
    MaxStack(u16),
    /// `inherit[=N]` / `no-inherit`: the `inherit` bit.
    Inherit(bool),
    /// `branch_type=TYPE`: `branch_sample_type`; 0 for `no`.
    BranchType(u64),
}

/// Branch filter names of perf's `parse_branch_str()` (`branch_modes[]`).
const BRANCH_MODES: &[(&str, u32)] = &[
    ("u", b::PERF_SAMPLE_BRANCH_USER),
    ("k", b::PERF_SAMPLE_BRANCH_KERNEL),
    ("hv", b::PERF_SAMPLE_BRANCH_HV),
    ("any", b::PERF_SAMPLE_BRANCH_ANY),
    ("any_call", b::PERF_SAMPLE_BRANCH_ANY_CALL),
    ("any_ret", b::PERF_SAMPLE_BRANCH_ANY_RETURN),
    ("ind_call", b::PERF_SAMPLE_BRANCH_IND_CALL),
    ("abort_tx", b::PERF_SAMPLE_BRANCH_ABORT_TX),
    ("in_tx", b::PERF_SAMPLE_BRANCH_IN_TX),
    ("no_tx", b::PERF_SAMPLE_BRANCH_NO_TX),
    ("cond", b::PERF_SAMPLE_BRANCH_COND),
    ("ind_jmp", b::PERF_SAMPLE_BRANCH_IND_JUMP),
    ("call", b::PERF_SAMPLE_BRANCH_CALL),
    ("save_type", b::PERF_SAMPLE_BRANCH_TYPE_SAVE),
    ("stack", b::PERF_SAMPLE_BRANCH_CALL_STACK),
    ("priv", b::PERF_SAMPLE_BRANCH_PRIV_SAVE),
];

/// `branch_sample_type` of one branch filter name: its bit, plus `any`
/// when the name is only a privilege level (`u` → `USER|ANY`, as perf).
pub fn branch_type(name: &str) -> Option<u64> {
    let plm = (b::PERF_SAMPLE_BRANCH_USER | b::PERF_SAMPLE_BRANCH_KERNEL | b::PERF_SAMPLE_BRANCH_HV)
        as u64;
    let (_, bit) = BRANCH_MODES.iter().find(|(n, _)| *n == name)?;
    let mut mode = u64::from(*bit);
    if mode & !plm == 0 {
        mode |= u64::from(b::PERF_SAMPLE_BRANCH_ANY);
    }
    Some(mode)
}

/// The terms perf knows by name; everything else is a PMU format field or
/// event alias.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// `config`
    Config,
    /// `config1`
    Config1,
    /// `config2`
    Config2,
    /// `config3`
    Config3,
    /// `name`
    Name,
    /// `period`
    Period,
    /// `freq`
    Freq,
    /// `branch_type`
    BranchType,
    /// `time`
    Time,
    /// `call-graph`
    CallGraph,
    /// `stack-size`
    StackSize,
    /// `max-stack`
    MaxStack,
    /// `inherit`
    Inherit,
    /// `no-inherit`
    NoInherit,
}

/// Every hard-coded term, in perf's `config_term_names` order.
pub const KNOWN: &[(&str, Known)] = &[
    ("config", Known::Config),
    ("config1", Known::Config1),
    ("config2", Known::Config2),
    ("config3", Known::Config3),
    ("name", Known::Name),
    ("period", Known::Period),
    ("freq", Known::Freq),
    ("branch_type", Known::BranchType),
    ("time", Known::Time),
    ("call-graph", Known::CallGraph),
    ("stack-size", Known::StackSize),
    ("no-inherit", Known::NoInherit),
    ("inherit", Known::Inherit),
    ("max-stack", Known::MaxStack),
];

/// The hard-coded term called `name`.
pub fn known(name: &str) -> Option<Known> {
    KNOWN.iter().find(|(n, _)| *n == name).map(|&(_, k)| k)
}

/// perf's "valid terms: …" help listing `extra` (format fields) first.
pub fn valid_terms_help(extra: &[&str]) -> String {
    let names: Vec<&str> = extra
        .iter()
        .copied()
        .chain(KNOWN.iter().map(|(n, _)| *n))
        .collect();
    format!("valid terms: {}", names.join(","))
}

/// What a hard-coded term did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It set a `config*` field of the attr.
    Set,
    /// It names the event.
    Name(String),
    /// A setting for [`apply_config_terms`].
    Config(ConfigTerm),
}

/// Applies hard-coded term `t` of kind `k` (perf's `config_term_common()`).
///
/// # Errors
/// `expected numeric value` / `expected string value` for a value of the
/// wrong kind, `expected 0 or 1` for `time`, and errors for an unknown
/// branch type or call-graph mode and for out-of-range sizes.
pub fn apply_known(
    k: Known,
    t: &Term,
    attr: &mut Attr,
    input: &str,
) -> Result<Outcome, ParseError> {
    let err = |msg: &str| ParseError::new(input, t.value_pos, msg);
    let num = || t.num().ok_or_else(|| err("expected numeric value"));
    let text = || match &t.value {
        TermValue::Str(s) => Ok(s.as_str()),
        _ => Err(err("expected string value")),
    };
    let outcome = match k {
        Known::Config => {
            attr.config = num()?;
            Outcome::Set
        }
        Known::Config1 => {
            attr.config1 = num()?;
            Outcome::Set
        }
        Known::Config2 => {
            attr.config2 = num()?;
            Outcome::Set
        }
        Known::Config3 => {
            attr.config3 = num()?;
            Outcome::Set
        }
        Known::Name => Outcome::Name(text()?.to_owned()),
        Known::Period => Outcome::Config(ConfigTerm::Period(num()?)),
        Known::Freq => Outcome::Config(ConfigTerm::Freq(num()?)),
        Known::Time => match num()? {
            v @ (0 | 1) => Outcome::Config(ConfigTerm::Time(v == 1)),
            _ => return Err(err("expected 0 or 1")),
        },
        Known::Inherit => Outcome::Config(ConfigTerm::Inherit(num()? != 0)),
        Known::NoInherit => Outcome::Config(ConfigTerm::Inherit(num()? == 0)),
        Known::StackSize => {
            let v = num()?;
            if v > u64::from(u32::MAX) - 7 {
                return Err(err("too big"));
            }
            Outcome::Config(ConfigTerm::StackSize(v))
        }
        Known::MaxStack => {
            let v = u16::try_from(num()?).map_err(|_| err("too big"))?;
            Outcome::Config(ConfigTerm::MaxStack(v))
        }
        Known::CallGraph => {
            let mode = match text()? {
                "no" => CallGraph::No,
                "fp" => CallGraph::Fp,
                "dwarf" => CallGraph::Dwarf,
                "lbr" => CallGraph::Lbr,
                _ => return Err(err("invalid call-graph mode (fp, dwarf, lbr or no)")),
            };
            Outcome::Config(ConfigTerm::CallGraph(mode))
        }
        Known::BranchType => {
            let s = text()?;
            let mode = if s == "no" {
                0
            } else {
                branch_type(s).ok_or_else(|| err("invalid branch sample type"))?
            };
            Outcome::Config(ConfigTerm::BranchType(mode))
        }
    };
    Ok(outcome)
}

/// Applies per-event settings to `attr` in order, then the call-graph
/// ones together, as perf's `evsel__apply_config_terms()` does: `period`
/// turns `freq` and `PERF_SAMPLE_PERIOD` off, `freq` turns them on, the last
/// of the two wins; `max-stack` without `call-graph` means frame pointers;
/// `stack-size` matters only with `call-graph=dwarf` (rounded up to 8).
pub fn apply_config_terms(terms: &[ConfigTerm], attr: &mut Attr) {
    let mut call_graph = None;
    let mut dump_size = 0;
    let mut max_stack = 0;
    for term in terms {
        match *term {
            ConfigTerm::Period(p) => {
                attr.sample_period = p;
                let _ = attr.set_flag("freq", 0);
                attr.sample_type &= !sample::PERIOD;
            }
            ConfigTerm::Freq(f) => {
                attr.sample_period = f;
                let _ = attr.set_flag("freq", 1);
                attr.sample_type |= sample::PERIOD;
            }
            ConfigTerm::Time(on) => {
                if on {
                    attr.sample_type |= sample::TIME;
                } else {
                    attr.sample_type &= !sample::TIME;
                }
            }
            ConfigTerm::CallGraph(mode) => call_graph = Some(mode),
            ConfigTerm::StackSize(s) => dump_size = s,
            ConfigTerm::MaxStack(m) => max_stack = m,
            ConfigTerm::Inherit(on) => {
                let _ = attr.set_flag("inherit", u64::from(on));
            }
            ConfigTerm::BranchType(0) => {
                attr.branch_sample_type = 0;
                attr.sample_type &= !sample::BRANCH_STACK;
            }
            ConfigTerm::BranchType(mode) => {
                attr.branch_sample_type = mode;
                attr.sample_type |= sample::BRANCH_STACK;
            }
        }
    }
    if call_graph.is_none() && max_stack == 0 {
        return;
    }
    match call_graph.unwrap_or(CallGraph::Fp) {
        CallGraph::No => attr.sample_type &= !sample::CALLCHAIN,
        mode => {
            attr.sample_type |= sample::CALLCHAIN;
            attr.sample_max_stack = max_stack;
            if mode == CallGraph::Lbr {
                attr.sample_type |= sample::BRANCH_STACK;
                attr.branch_sample_type = u64::from(
                    b::PERF_SAMPLE_BRANCH_USER
                        | b::PERF_SAMPLE_BRANCH_CALL_STACK
                        | b::PERF_SAMPLE_BRANCH_NO_CYCLES
                        | b::PERF_SAMPLE_BRANCH_NO_FLAGS
                        | b::PERF_SAMPLE_BRANCH_HW_INDEX,
                );
            }
            if mode == CallGraph::Dwarf {
                let dump = if dump_size > 0 {
                    dump_size.div_ceil(8) * 8
                } else {
                    DEFAULT_DWARF_DUMP_SIZE
                };
                attr.sample_type |=
                    sample::REGS_USER | sample::STACK_USER | sample::ADDR | sample::DATA_SRC;
                attr.sample_regs_user |= USER_REGS_MASK;
                attr.sample_stack_user = u32::try_from(dump).unwrap_or(u32::MAX);
                let _ = attr.set_flag("exclude_callchain_user", 1);
                let _ = attr.set_flag("mmap_data", 1);
            }
        }
    }
}

#[cfg(test)]
#[path = "terms_tests.rs"]
mod tests;
