// SPDX-License-Identifier: GPL-2.0-only
//! The recursive-descent parser. The grammar (perf's, as the 6.1 lexer and
//! grammar accept it, written out):
//!
//! ```text
//! list      := item { ',' item }
//! item      := [NAME] '{' event { ',' event } '}' [ ':' MODS ]
//!            | event
//! event     := 'mem:' ADDR [ '/' LEN ] [ ':' RWX ] [ ':' MODS ]
//!            | NUM ':' NUM [ '/' terms '/' MODS? ] [ ':' MODS ]
//!            | WORD '/' terms '/' [MODS]          WORD: symbol, cache, rHEX or PMU
//!            | SYS ':' NAME [ '/' terms '/' [MODS] ] [ ':' MODS ]
//!            | WORD [ ':' MODS ]                  WORD: symbol, cache, rHEX or alias
//! terms     := [ term { ',' term } ]
//! term      := NAME [ '=' ( NUM | STRING | "'" TEXT "'" ) ]
//! ```
//!
//! Which of the `WORD` forms a name is decides by what it is: a word
//! followed by `:` is a tracepoint system unless it is an event name
//! itself (`faults:u` has modifiers, `sched:sched_switch` is a tracepoint).

use perf_event_open_sys::bindings as b;

use super::builtin_pmus::tool_attr;
use super::cursor::{event_text, parse_number, Cursor};
use super::env::Env;
use super::error::ParseError;
use super::evsel::{base_attr, GroupInfo, ParsedEvsel};
use super::modifiers::Modifiers;
use super::symbols::{cache_config, symbol, CacheError};
use super::sysfs::Pmu;
use super::terms::{
    apply_config_terms, apply_known, known, parse_terms, valid_terms_help, ConfigTerm, Known,
    Outcome, Term, TermValue,
};
use super::tracepoint::tracepoints;
use crate::attr::Attr;
use crate::tool_evsel::ToolEvent;

/// `r` and hex digits: a raw event's config.
fn raw_config(word: &str) -> Option<Result<u64, ()>> {
    let hex = word.strip_prefix('r')?;
    if hex.is_empty() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Some(u64::from_str_radix(hex, 16).map_err(|_| ()))
}

/// The parser state.
pub struct Parser<'a> {
    c: Cursor<'a>,
    env: &'a Env<'a>,
    out: Vec<ParsedEvsel>,
    groups: usize,
}

/// An evsel being built, and whether its kind already named it.
struct Built {
    ev: ParsedEvsel,
    named: bool,
}

impl Built {
    fn unnamed(attr: Attr) -> Built {
        Built {
            ev: ParsedEvsel::new(String::new(), attr),
            named: false,
        }
    }
}

impl<'a> Parser<'a> {
    /// A parser of `input`.
    pub fn new(input: &'a str, env: &'a Env<'a>) -> Self {
        Parser {
            c: Cursor::new(input),
            env,
            out: Vec::new(),
            groups: 0,
        }
    }

    fn input(&self) -> &'a str {
        self.c.input()
    }

    /// Parses the whole string.
    ///
    /// # Errors
    /// The first problem found, with its position.
    pub fn parse(mut self) -> Result<Vec<ParsedEvsel>, ParseError> {
        loop {
            self.item()?;
            self.c.skip_ws();
            if self.c.at_end() {
                return Ok(self.out);
            }
            if !self.c.eat(b',') {
                return Err(self.c.unexpected("',' or the end"));
            }
        }
    }

    /// A group or an event.
    fn item(&mut self) -> Result<(), ParseError> {
        let start = self.c.pos();
        self.c.skip_ws();
        let save = self.c.pos();
        let (word, _) = self.c.word();
        self.c.skip_ws();
        if self.c.peek() == Some(b'{') {
            // perf's lexer turns event names into their own tokens, so
            // `faults{cs}` is no group called "faults".
            if self.is_legacy_name(word) {
                return Err(self.c.unexpected("',' or the end"));
            }
            let name = (!word.is_empty()).then(|| word.to_owned());
            return self.group(name);
        }
        self.c.set_pos(save);
        let evs = self.event(start)?;
        self.out.extend(evs);
        Ok(())
    }

    /// `[name]{a,b,…}[:mods]`, the cursor at `{`.
    fn group(&mut self, name: Option<String>) -> Result<(), ParseError> {
        self.c.eat(b'{');
        let first = self.out.len();
        loop {
            let start = self.c.pos();
            let evs = self.event(start)?;
            self.out.extend(evs);
            self.c.skip_ws();
            if self.c.eat(b'}') {
                break;
            }
            if !self.c.eat(b',') {
                return Err(self.c.unexpected("',' or '}'"));
            }
        }
        let nr_members = self.out.len() - first;
        for (i, ev) in self.out.iter_mut().enumerate().skip(first) {
            ev.group = Some(GroupInfo {
                index: self.groups,
                leader: first,
                is_leader: i == first,
                nr_members,
                name: name.clone(),
            });
        }
        self.groups += 1;
        self.c.skip_ws();
        if self.c.eat(b':') {
            let m = Modifiers::parse(&mut self.c)?;
            for (i, ev) in self.out.iter_mut().enumerate().skip(first) {
                if !m.apply(ev, true, i == first) {
                    return Err(self.c.error(m.pos, "Bad modifier"));
                }
            }
        }
        Ok(())
    }

    /// One event (possibly several evsels: globs, aliases in several
    /// PMUs), with its modifiers, named.
    fn event(&mut self, start: usize) -> Result<Vec<ParsedEvsel>, ParseError> {
        let text = event_text(self.input(), start);
        self.c.skip_ws();
        if self.c.peek() == Some(b'{') {
            return Err(self
                .c
                .error(self.c.pos(), "parser error: groups do not nest"));
        }
        let (word, pos) = self.c.word();
        if word.is_empty() {
            return Err(self.c.unexpected("an event"));
        }
        self.c.skip_ws();
        let (built, mods_without_colon) = if word == "mem" && self.c.peek() == Some(b':') {
            (vec![self.breakpoint()?], false)
        } else if let (Some(type_), Some(b':')) = (parse_number(word), self.c.peek()) {
            self.numeric(type_, pos)?
        } else if self.c.peek() == Some(b'/') {
            (self.with_terms(word, pos)?, true)
        } else if self.c.peek() == Some(b':') && !self.is_event_name(word) {
            self.tracepoint(word, pos)?
        } else {
            (self.plain(word, pos)?, false)
        };
        // After `/terms/` modifiers follow directly (`pmu/config=1/u`);
        // perf refuses a colon there.
        let mods = if mods_without_colon {
            if self.c.peek().is_some_and(|b| b.is_ascii_alphanumeric()) {
                Some(Modifiers::parse(&mut self.c)?)
            } else {
                None
            }
        } else {
            self.c.skip_ws();
            if self.c.eat(b':') {
                Some(Modifiers::parse(&mut self.c)?)
            } else {
                None
            }
        };
        let mut out = Vec::with_capacity(built.len());
        for Built { mut ev, named } in built {
            if let Some(m) = &mods {
                if !m.apply(&mut ev, false, true) {
                    return Err(self.c.error(m.pos, "Bad modifier"));
                }
            }
            if !named {
                ev.name = text.to_owned();
            }
            out.push(ev);
        }
        Ok(out)
    }

    /// True for a symbol, cache or raw event name.
    fn is_legacy_name(&self, word: &str) -> bool {
        symbol(word).is_some()
            || ToolEvent::from_name(word).is_some()
            || cache_config(word) != Err(CacheError::NotCache)
            || raw_config(word).is_some()
    }

    /// True if `word` names an event by itself (so `word:` starts
    /// modifiers, not a tracepoint name).
    fn is_event_name(&self, word: &str) -> bool {
        self.is_legacy_name(word) || !self.env.alias_pmus(word).is_empty()
    }

    /// A symbol, cache or raw event: the attr and whether it is named.
    fn legacy(&self, word: &str, pos: usize) -> Result<Option<Built>, ParseError> {
        if let Some((type_, config)) = symbol(word) {
            return Ok(Some(Built::unnamed(base_attr(type_, config))));
        }
        if let Some(ev) = ToolEvent::from_name(word) {
            return Ok(Some(Built::unnamed(tool_attr(ev))));
        }
        match cache_config(word) {
            Ok(config) => {
                let mut b = Built::unnamed(base_attr(b::PERF_TYPE_HW_CACHE, config));
                b.ev.name = word.to_owned();
                b.named = true;
                return Ok(Some(b));
            }
            Err(CacheError::InvalidOp) => {
                return Err(self.c.error(
                    pos,
                    format!("invalid cache event '{word}': that cache has no such operation"),
                ))
            }
            Err(CacheError::NotCache) => {}
        }
        match raw_config(word) {
            Some(Ok(config)) => Ok(Some(Built::unnamed(base_attr(b::PERF_TYPE_RAW, config)))),
            Some(Err(())) => Err(self.c.error(pos, "parser error: raw event value too large")),
            None => Ok(None),
        }
    }

    /// `WORD` alone: a legacy event or a PMU alias.
    fn plain(&self, word: &str, pos: usize) -> Result<Vec<Built>, ParseError> {
        if let Some(b) = self.legacy(word, pos)? {
            return Ok(vec![b]);
        }
        let pmus = self.env.alias_pmus(word);
        if pmus.is_empty() {
            return Err(self.c.error(pos, format!("unknown event '{word}'")));
        }
        let alias = Term {
            name: word.to_owned(),
            name_pos: pos,
            value: TermValue::Bare,
            value_pos: pos + word.len(),
        };
        pmus.into_iter()
            .map(|p| self.pmu_event(p, std::slice::from_ref(&alias)))
            .collect()
    }

    /// `WORD/terms/`, the cursor at the first `/`.
    fn with_terms(&mut self, word: &str, pos: usize) -> Result<Vec<Built>, ParseError> {
        let terms = self.slashed_terms()?;
        if let Some(mut b) = self.legacy(word, pos)? {
            self.common_terms(&mut b, &terms, &[])?;
            return Ok(vec![b]);
        }
        if word == "tool" {
            return Ok(vec![self.tool_terms(&terms, pos)?]);
        }
        let pmus = self.env.pmus_named(word);
        if pmus.is_empty() {
            return Err(self.c.error(
                pos,
                format!("Cannot find PMU `{word}'. Missing kernel support?"),
            ));
        }
        pmus.into_iter()
            .map(|p| self.pmu_event(p, &terms))
            .collect()
    }

    /// `tool/NAME/`: one term, the name of a tool event (`tool_pmu.c`'s
    /// `tool_pmu__config_terms`).
    fn tool_terms(&self, terms: &[Term], pos: usize) -> Result<Built, ParseError> {
        let ev = match terms {
            [t] if matches!(t.value, TermValue::Bare) => ToolEvent::from_name(&t.name),
            _ => None,
        };
        let Some(ev) = ev else {
            let at = terms.first().map_or(pos, |t| t.name_pos);
            return Err(self.c.error(at, "unexpected tool event term"));
        };
        Ok(Built::unnamed(tool_attr(ev)))
    }

    /// `/terms/` at the cursor.
    fn slashed_terms(&mut self) -> Result<Vec<Term>, ParseError> {
        self.c.eat(b'/');
        let terms = parse_terms(&mut self.c)?;
        if !self.c.eat(b'/') {
            return Err(self.c.unexpected("',' or '/'"));
        }
        Ok(terms)
    }

    /// Applies terms to a non-PMU event: hard-coded terms only, and of
    /// those only `allowed` if it is not empty.
    fn common_terms(
        &self,
        b: &mut Built,
        terms: &[Term],
        allowed: &[Known],
    ) -> Result<(), ParseError> {
        let mut config = Vec::new();
        for t in terms {
            let k = known(&t.name).filter(|k| allowed.is_empty() || allowed.contains(k));
            let Some(k) = k else {
                let help = if allowed.is_empty() {
                    valid_terms_help(&[])
                } else {
                    let names: Vec<&str> = super::terms::KNOWN
                        .iter()
                        .filter(|(_, k)| allowed.contains(k))
                        .map(|(n, _)| *n)
                        .collect();
                    format!("valid terms: {}", names.join(","))
                };
                return Err(self
                    .c
                    .error(t.name_pos, format!("unknown term '{}'", t.name))
                    .with_help(help));
            };
            match apply_known(k, t, &mut b.ev.attr, self.input())? {
                Outcome::Set => {}
                Outcome::Name(n) => {
                    b.ev.name = n;
                    b.named = true;
                }
                Outcome::Config(c) => config.push(c),
            }
        }
        finish_config(b, config);
        Ok(())
    }

    /// An event of `pmu` with `terms`: aliases expanded in place, then the
    /// hard-coded terms in order, then the format fields ORed in (perf's
    /// `parse_events_add_pmu()`).
    fn pmu_event(&self, pmu: &Pmu, terms: &[Term]) -> Result<Built, ParseError> {
        let input = self.input();
        let mut expanded: Vec<Term> = Vec::with_capacity(terms.len());
        for t in terms {
            match self.alias_of(pmu, t) {
                Some(alias_terms) => expanded.extend(alias_terms?),
                None => expanded.push(t.clone()),
            }
        }
        let mut b = Built::unnamed(base_attr(pmu.type_, 0));
        b.ev.pmu = Some(pmu.name.clone());
        let mut config = Vec::new();
        for t in &expanded {
            let Some(k) = known(&t.name) else { continue };
            match apply_known(k, t, &mut b.ev.attr, input)? {
                Outcome::Set => {}
                Outcome::Name(n) => {
                    b.ev.name = n;
                    b.named = true;
                }
                Outcome::Config(c) => config.push(c),
            }
        }
        for t in expanded.iter().filter(|t| known(&t.name).is_none()) {
            let Some(f) = pmu.format(&t.name) else {
                let formats: Vec<&str> = pmu.formats.iter().map(|f| f.name.as_str()).collect();
                return Err(ParseError::new(
                    input,
                    t.name_pos,
                    format!("unknown term '{}' for pmu '{}'", t.name, pmu.name),
                )
                .with_help(valid_terms_help(&formats)));
            };
            let value = match t.value {
                TermValue::Num(n) => n,
                TermValue::Bare if f.mask.count_ones() > 1 => {
                    return Err(ParseError::new(
                        input,
                        t.value_pos,
                        "no value assigned for term",
                    ));
                }
                TermValue::Bare => 1,
                TermValue::Str(_) => {
                    return Err(ParseError::new(
                        input,
                        t.value_pos,
                        "expected numeric value",
                    ))
                }
            };
            if value > f.max_value() {
                return Err(ParseError::new(
                    input,
                    t.value_pos,
                    format!("value too big for format, maximum is {}", f.max_value()),
                ));
            }
            f.encode(value, f.field.word_mut(&mut b.ev.attr));
        }
        finish_config(&mut b, config);
        Ok(b)
    }

    /// The terms alias `t` stands for in `pmu` (perf's `pmu_find_alias()`):
    /// a bare term that is no format field, or `event=NAME`. `None` if `t`
    /// is no alias; `Some(Err)` if the alias file does not parse.
    fn alias_of(&self, pmu: &Pmu, t: &Term) -> Option<Result<Vec<Term>, ParseError>> {
        if known(&t.name).is_some() {
            return None;
        }
        let alias = match &t.value {
            TermValue::Bare if pmu.format(&t.name).is_none() => pmu.alias(&t.name)?,
            TermValue::Str(s) if t.name.eq_ignore_ascii_case("event") => pmu.alias(s)?,
            _ => return None,
        };
        let mut c = Cursor::new(&alias.terms);
        let parsed = parse_terms(&mut c).ok().filter(|_| c.at_end());
        Some(match parsed {
            Some(terms) => Ok(terms
                .into_iter()
                .map(|a| Term {
                    name_pos: t.name_pos,
                    value_pos: t.name_pos,
                    ..a
                })
                .collect()),
            None => Err(self.c.error(
                t.name_pos,
                format!(
                    "bad sysfs alias {}/events/{}: {:?}",
                    pmu.name, alias.name, alias.terms
                ),
            )),
        })
    }

    /// `TYPE:CONFIG`, the cursor at the `:`.
    fn numeric(&mut self, type_: u64, pos: usize) -> Result<(Vec<Built>, bool), ParseError> {
        self.c.eat(b':');
        let (word, cpos) = self.c.take_while(|b| b.is_ascii_alphanumeric());
        let config = parse_number(word).ok_or_else(|| {
            self.c
                .error(cpos, "parser error: expected a config number after 'TYPE:'")
        })?;
        let type_ = u32::try_from(type_)
            .map_err(|_| self.c.error(pos, "parser error: event type too large"))?;
        let mut b = Built::unnamed(base_attr(type_, config));
        self.c.skip_ws();
        if self.c.peek() == Some(b'/') {
            let terms = self.slashed_terms()?;
            self.common_terms(&mut b, &terms, &[])?;
            return Ok((vec![b], true));
        }
        Ok((vec![b], false))
    }

    /// `SYS:NAME[/terms/]`, the cursor at the `:`.
    fn tracepoint(&mut self, sys: &str, pos: usize) -> Result<(Vec<Built>, bool), ParseError> {
        self.c.eat(b':');
        let (name, npos) = self.c.word();
        if name.is_empty() {
            return Err(self.c.error(
                npos,
                "parser error: expected a tracepoint name after 'SYS:'",
            ));
        }
        let evs = tracepoints(self.input(), pos, self.env.tracefs(), sys, name)?;
        let mut built: Vec<Built> = evs
            .into_iter()
            .map(|ev| Built { ev, named: true })
            .collect();
        self.c.skip_ws();
        if self.c.peek() != Some(b'/') {
            return Ok((built, false));
        }
        let terms = self.slashed_terms()?;
        let allowed = [
            Known::CallGraph,
            Known::StackSize,
            Known::MaxStack,
            Known::Inherit,
            Known::NoInherit,
        ];
        for b in &mut built {
            self.common_terms(b, &terms, &allowed)?;
        }
        Ok((built, true))
    }

    /// `mem:ADDR[/LEN][:rwx]`, the cursor at the `:` after `mem`.
    fn breakpoint(&mut self) -> Result<Built, ParseError> {
        const R: u32 = 1; // HW_BREAKPOINT_R
        const W: u32 = 2; // HW_BREAKPOINT_W
        const X: u32 = 4; // HW_BREAKPOINT_X
        self.c.eat(b':');
        let (addr, apos) = self.c.take_while(|b| b.is_ascii_alphanumeric());
        let addr = parse_number(addr).ok_or_else(|| {
            self.c
                .error(apos, "parser error: expected a breakpoint address")
        })?;
        let mut len = 0;
        if self.c.eat(b'/') {
            let (l, lpos) = self.c.take_while(|b| b.is_ascii_alphanumeric());
            len = parse_number(l).ok_or_else(|| {
                self.c
                    .error(lpos, "parser error: expected a breakpoint length")
            })?;
        }
        let mut bp_type = 0;
        if self.c.peek() == Some(b':') {
            let save = self.c.pos();
            self.c.eat(b':');
            let (letters, tpos) = self.c.take_while(|b| b.is_ascii_alphanumeric());
            if !letters.is_empty() && letters.bytes().all(|b| matches!(b, b'r' | b'w' | b'x')) {
                for l in letters.bytes() {
                    let bit = match l {
                        b'r' => R,
                        b'w' => W,
                        _ => X,
                    };
                    if bp_type & bit != 0 || letters.len() > 3 {
                        return Err(self.c.error(tpos, "invalid breakpoint type"));
                    }
                    bp_type |= bit;
                }
            } else {
                // Event modifiers, not an access type.
                self.c.set_pos(save);
            }
        }
        if bp_type == 0 {
            bp_type = R | W;
        }
        if len == 0 {
            len = if bp_type == X {
                std::mem::size_of::<libc::c_long>() as u64
            } else {
                4
            };
        }
        let mut attr = base_attr(b::PERF_TYPE_BREAKPOINT, 0);
        attr.bp_type = bp_type;
        attr.config1 = addr;
        attr.config2 = len;
        attr.sample_period = 1;
        Ok(Built::unnamed(attr))
    }
}

/// Records and applies per-event settings.
fn finish_config(b: &mut Built, config: Vec<ConfigTerm>) {
    apply_config_terms(&config, &mut b.ev.attr);
    b.ev.config_terms = config;
}
