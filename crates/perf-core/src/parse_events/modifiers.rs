// SPDX-License-Identifier: GPL-2.0-only
//! Event modifiers (`cycles:u`, `{a,b}:S`): checking the letters and
//! replaying them onto an evsel the way perf 6.1's `get_event_modifier()`
//! and `parse_events__modifier_event()` do.
//!
//! | letter | effect |
//! |--------|--------|
//! | `u` `k` `h` | count only user / kernel / hypervisor: the first of them sets all three `exclude_*`, each clears its own; `u` also sets `exclude_guest` unless `G`/`H` was given |
//! | `G` `H` | count only guest / host: the first sets `exclude_host` and `exclude_guest`, each clears its own |
//! | `p` (1–3×) | `precise_ip`; also `exclude_guest` unless `G`/`H` was given |
//! | `P` | maximum precision (`precise_max`, resolved when opening) |
//! | `I` | `exclude_idle` |
//! | `S` | sample read (`sample_read`; on a group, leader sampling) |
//! | `D` | `pinned` (group leaders only) |
//! | `e` | `exclusive` (group leaders only) |
//! | `W` | weak group |
//! | `b` | BPF counter |
//!
//! The one surprise, kept because it is what perf prints: a modifier on an
//! *event* starts from all-zero exclusions, so it drops the default
//! `exclude_guest` (`faults:k` has none, `faults` has it), while a modifier
//! on a *group* starts from each member's bits.

use super::cursor::Cursor;
use super::error::ParseError;
use super::evsel::ParsedEvsel;

/// perf's `check_modifier()` limit: `strlen("ukhGHpppPSDIWeb")`.
const MAX_LEN: usize = 15;

/// A checked modifier string and where it starts in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Modifiers {
    /// The letters, in the order given.
    pub letters: String,
    /// Byte offset of the first letter.
    pub pos: usize,
}

/// True for the letters perf knows.
fn is_modifier(b: u8) -> bool {
    b"ukhpPGHSDIWeb".contains(&b)
}

impl Modifiers {
    /// Reads the letters at the cursor (the `:` already taken; may be
    /// empty, as perf allows `faults:`), checking them as perf does.
    ///
    /// # Errors
    /// `parser error` for a letter that is no modifier; `Bad modifier` for
    /// more than 15 letters, a repeated letter other than `p`, or more
    /// than three `p`.
    pub fn parse(c: &mut Cursor<'_>) -> Result<Modifiers, ParseError> {
        let (letters, pos) = c.take_while(|b| b.is_ascii_alphanumeric());
        if let Some(i) = letters.bytes().position(|b| !is_modifier(b)) {
            let bad = letters
                .get(i..)
                .and_then(|s| s.chars().next())
                .unwrap_or('?');
            return Err(c.error(pos + i, format!("parser error: unknown modifier '{bad}'")));
        }
        let bytes = letters.as_bytes();
        let repeated = bytes
            .iter()
            .enumerate()
            .any(|(i, &b)| b != b'p' && bytes.get(i + 1..).is_some_and(|rest| rest.contains(&b)));
        let precise = bytes.iter().filter(|&&b| b == b'p').count();
        if letters.len() > MAX_LEN || repeated || precise > 3 {
            return Err(c.error(pos, "Bad modifier"));
        }
        Ok(Modifiers {
            letters: letters.to_owned(),
            pos,
        })
    }

    /// Replays the letters onto `ev`. `group` selects perf's group flavour
    /// (start from `ev`'s own exclusion bits, as `add` = true does);
    /// `leader` says whether `pinned`/`exclusive` may be written.
    ///
    /// No letters (`faults:`) change nothing. Returns false, leaving `ev` alone, when the precise level would pass
    /// 3 (`{cycles:pp}:pp`), which perf refuses as a bad modifier.
    #[must_use]
    pub fn apply(&self, ev: &mut ParsedEvsel, group: bool, leader: bool) -> bool {
        if self.letters.is_empty() {
            // `faults:` has a colon but no modifier: perf applies none.
            return true;
        }
        let attr = &ev.attr;
        let bit = |name: &str| group && attr.flag(name).unwrap_or(0) != 0;
        let mut eu = bit("exclude_user");
        let mut ek = bit("exclude_kernel");
        let mut eh = bit("exclude_hv");
        let mut e_host = bit("exclude_host");
        let mut e_guest = bit("exclude_guest");
        let mut e_idle = bit("exclude_idle");
        let mut precise = if group {
            attr.flag("precise_ip").unwrap_or(0)
        } else {
            0
        };
        let mut pinned = bit("pinned");
        let mut exclusive = bit("exclusive");
        let mut exclude = eu || ek || eh;
        let mut exclude_gh = group && ev.exclude_gh;
        let (mut precise_max, mut sample_read, mut weak, mut bpf) = (false, false, false, false);

        for b in self.letters.bytes() {
            match b {
                b'u' | b'k' | b'h' => {
                    if !exclude {
                        exclude = true;
                        (eu, ek, eh) = (true, true, true);
                    }
                    match b {
                        b'u' => {
                            if !exclude_gh {
                                e_guest = true;
                            }
                            eu = false;
                        }
                        b'k' => ek = false,
                        _ => eh = false,
                    }
                }
                b'G' | b'H' => {
                    if !exclude_gh {
                        exclude_gh = true;
                        (e_guest, e_host) = (true, true);
                    }
                    if b == b'G' {
                        e_guest = false;
                    } else {
                        e_host = false;
                    }
                }
                b'I' => e_idle = true,
                b'p' => {
                    precise += 1;
                    // Use of precise requires exclude_guest.
                    if !exclude_gh {
                        e_guest = true;
                    }
                }
                b'P' => precise_max = true,
                b'S' => sample_read = true,
                b'D' => pinned = true,
                b'e' => exclusive = true,
                b'W' => weak = true,
                b'b' => bpf = true,
                _ => {}
            }
        }
        if precise > 3 {
            return false;
        }

        let attr = &mut ev.attr;
        let mut set = |name: &str, on: bool| {
            let _ = attr.set_flag(name, u64::from(on));
        };
        set("exclude_user", eu);
        set("exclude_kernel", ek);
        set("exclude_hv", eh);
        set("exclude_host", e_host);
        set("exclude_guest", e_guest);
        set("exclude_idle", e_idle);
        if leader {
            set("pinned", pinned);
            set("exclusive", exclusive);
        }
        let _ = attr.set_flag("precise_ip", precise);
        ev.exclude_gh = exclude_gh;
        ev.precise_max = precise_max;
        ev.sample_read = sample_read;
        ev.weak_group = weak;
        ev.bpf_counter = bpf;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attr::Attr;

    fn parse(s: &str) -> Result<Modifiers, ParseError> {
        Modifiers::parse(&mut Cursor::new(s))
    }

    /// A fresh software evsel with perf's parse-time default
    /// `exclude_guest=1`.
    fn fresh() -> ParsedEvsel {
        let mut attr = Attr {
            type_: 1,
            config: 2,
            ..Attr::default()
        };
        let _ = attr.set_flag("exclude_guest", 1);
        ParsedEvsel::new("faults".into(), attr)
    }

    /// The set flags of an evsel after `mods`, as perf stat -vv lists them.
    fn after(mods: &str, group: bool, start: ParsedEvsel) -> Vec<&'static str> {
        let mut ev = start;
        let m = parse(mods).unwrap_or_else(|e| panic!("{mods}: {e}"));
        assert!(m.apply(&mut ev, group, true));
        let names = [
            "pinned",
            "exclusive",
            "exclude_user",
            "exclude_kernel",
            "exclude_hv",
            "exclude_idle",
            "exclude_host",
            "exclude_guest",
        ];
        let mut out: Vec<&'static str> = names
            .into_iter()
            .filter(|n| ev.attr.flag(n).unwrap_or(0) != 0)
            .collect();
        let precise = ev.attr.flag("precise_ip").unwrap_or(0) as usize;
        out.extend(std::iter::repeat_n("p", precise));
        out
    }

    #[test]
    fn event_modifiers_match_perf_stat_6_1() {
        // Each row: what `perf stat -vv -e faults:MODS` printed on this VM.
        let rows: &[(&str, &[&str])] = &[
            ("u", &["exclude_kernel", "exclude_hv", "exclude_guest"]),
            ("k", &["exclude_user", "exclude_hv"]),
            ("h", &["exclude_user", "exclude_kernel"]),
            ("uk", &["exclude_hv", "exclude_guest"]),
            ("ku", &["exclude_hv", "exclude_guest"]),
            ("kh", &["exclude_user"]),
            ("p", &["exclude_guest", "p"]),
            ("pp", &["exclude_guest", "p", "p"]),
            ("I", &["exclude_idle"]),
            ("G", &["exclude_host"]),
            ("H", &["exclude_guest"]),
            ("GH", &[]),
            ("HG", &[]),
            ("uG", &["exclude_kernel", "exclude_hv", "exclude_host"]),
            ("kG", &["exclude_user", "exclude_hv", "exclude_host"]),
            ("kH", &["exclude_user", "exclude_hv", "exclude_guest"]),
            ("Gk", &["exclude_user", "exclude_hv", "exclude_host"]),
            ("D", &["pinned"]),
            ("e", &["exclusive"]),
            ("W", &[]),
            ("S", &[]),
            ("P", &[]),
            ("b", &[]),
            ("kp", &["exclude_user", "exclude_hv", "exclude_guest", "p"]),
            (
                "upp",
                &["exclude_kernel", "exclude_hv", "exclude_guest", "p", "p"],
            ),
        ];
        for (mods, want) in rows {
            assert_eq!(after(mods, false, fresh()), want.to_vec(), "faults:{mods}");
        }
    }

    #[test]
    fn group_modifiers_start_from_the_members_bits() {
        // `{faults:k,cs}:u` → faults keeps exclude_hv only (+ guest).
        let mut faults = fresh();
        assert!(parse("k")
            .unwrap_or_else(|e| panic!("{e}"))
            .apply(&mut faults, false, true));
        assert_eq!(after("u", true, faults), ["exclude_hv", "exclude_guest"]);
        // `{faults:G,cs}:p` → G's exclude_GH stops p from setting guest.
        let mut faults = fresh();
        assert!(parse("G")
            .unwrap_or_else(|e| panic!("{e}"))
            .apply(&mut faults, false, true));
        assert_eq!(after("p", true, faults), ["exclude_host", "p"]);
        // `{faults,cs}:uG`
        assert_eq!(
            after("uG", true, fresh()),
            ["exclude_kernel", "exclude_hv", "exclude_host"]
        );
        // `g{faults,cs}:k` keeps the default guest bit.
        assert_eq!(
            after("k", true, fresh()),
            ["exclude_user", "exclude_hv", "exclude_guest"]
        );
    }

    #[test]
    fn pinned_and_exclusive_only_on_leaders_and_flags_recorded() {
        let mut ev = fresh();
        let m = parse("DePSWb").unwrap_or_else(|e| panic!("{e}"));
        assert!(m.apply(&mut ev, true, false));
        assert_eq!(ev.attr.flag("pinned"), Some(0));
        assert_eq!(ev.attr.flag("exclusive"), Some(0));
        assert!(ev.precise_max && ev.sample_read && ev.weak_group && ev.bpf_counter);
        // A later modifier without S clears sample_read, as in perf.
        assert!(parse("u")
            .unwrap_or_else(|e| panic!("{e}"))
            .apply(&mut ev, true, true));
        assert!(!ev.sample_read);
        // `{faults:pp}:pp` would be precise 4.
        let pp = parse("pp").unwrap_or_else(|e| panic!("{e}"));
        let mut ev = fresh();
        assert!(pp.apply(&mut ev, false, true));
        assert!(!pp.apply(&mut ev, true, true));
        assert_eq!(ev.attr.flag("precise_ip"), Some(2));
    }

    #[test]
    fn bad_modifiers() {
        assert_eq!(
            parse("uu").map_err(|e| (e.message, e.position)),
            Err(("Bad modifier".into(), 0))
        );
        assert!(parse("pppp").is_err());
        assert!(parse("ppp").is_ok());
        assert!(parse("ukhGHpppPSDIWeb").is_ok());
        assert_eq!(
            parse("ukhGHpppPSDIWebu").map_err(|e| e.message),
            Err("Bad modifier".into())
        );
        let e = parse("ux").err();
        assert_eq!(e.map(|e| e.position), Some(1));
        assert_eq!(parse("").map(|m| m.letters), Ok(String::new()));
    }
}
