// SPDX-License-Identifier: GPL-2.0-only
//! Tracepoint events, `sys:name`: ids from tracefs, globs (`sched:sched_s*`,
//! `*:sched_switch`) expanded in sorted order, and perf's tracepoint attr
//! defaults (`evsel__newtp_idx()`).

use perf_event_open_sys::bindings as b;

use super::error::ParseError;
use super::evsel::{base_attr, ParsedEvsel};
use crate::error::Error;
use crate::tracefs::Tracefs;

/// perf's `sample_type` for a new tracepoint evsel.
pub const TRACEPOINT_SAMPLE_TYPE: u64 =
    (b::PERF_SAMPLE_RAW | b::PERF_SAMPLE_TIME | b::PERF_SAMPLE_CPU | b::PERF_SAMPLE_PERIOD) as u64;

/// Shell-style matching as perf's `strglobmatch()`: `*`, `?`, and
/// `[abc]` / `[a-z]` / `[!abc]` classes.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut pi, mut ti) = (0, 0);
    // Where to resume after the last '*': (pattern after it, text index).
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        let step = match p.get(pi) {
            Some(b'*') => {
                star = Some((pi + 1, ti));
                pi += 1;
                continue;
            }
            Some(b'?') => Some(pi + 1),
            Some(b'[') => class(p, pi, t.get(ti).copied().unwrap_or(0)),
            Some(&c) if Some(&c) == t.get(ti) => Some(pi + 1),
            _ => None,
        };
        match (step, star) {
            (Some(next), _) => {
                pi = next;
                ti += 1;
            }
            (None, Some((sp, st))) => {
                pi = sp;
                ti = st + 1;
                star = Some((sp, st + 1));
            }
            (None, None) => return false,
        }
    }
    p.get(pi..)
        .is_some_and(|rest| rest.iter().all(|&c| c == b'*'))
}

/// Matches `c` against the class starting at `p[start] == '['`: the index
/// after the class if it matches. An unterminated class matches `[` itself.
fn class(p: &[u8], start: usize, c: u8) -> Option<usize> {
    let mut i = start + 1;
    let negate = matches!(p.get(i), Some(b'!' | b'^'));
    if negate {
        i += 1;
    }
    let mut hit = false;
    let mut first = true;
    loop {
        match p.get(i) {
            None => return (c == b'[').then_some(start + 1),
            Some(b']') if !first => break,
            Some(&lo) => {
                if p.get(i + 1) == Some(&b'-') && p.get(i + 2).is_some_and(|&h| h != b']') {
                    let hi = p.get(i + 2).copied().unwrap_or(lo);
                    hit |= lo <= c && c <= hi;
                    i += 3;
                } else {
                    hit |= lo == c;
                    i += 1;
                }
            }
        }
        first = false;
    }
    (hit != negate).then_some(i + 1)
}

/// True if perf would expand `s` as a glob (`strpbrk(s, "*?")`).
pub fn is_glob(s: &str) -> bool {
    s.contains(['*', '?'])
}

/// perf's `tracepoint_error()` text for an errno, and the tracefs hint.
fn tracepoint_error(
    input: &str,
    pos: usize,
    errno: i32,
    tracefs: Option<&Tracefs>,
    sys: &str,
    name: &str,
) -> ParseError {
    let message = match errno {
        libc::EACCES => "can't access trace events",
        libc::ENOENT => "unknown tracepoint",
        _ => "failed to add tracepoint",
    };
    let root = tracefs.map_or_else(|| "tracefs".to_owned(), |t| t.root().display().to_string());
    let help = match errno {
        libc::ENOENT => format!(
            "Error:\tFile {root}/events/{sys}/{name} not found.\nHint:\tPerhaps this kernel misses some CONFIG_ setting to enable this feature?."
        ),
        libc::EACCES => format!("Error:\tNo permissions to read {root}/events/{sys}/{name}"),
        _ => format!("Error:\tcan't read {root}/events/{sys}/{name}: {}", crate::error::strerror(errno)),
    };
    ParseError::new(input, pos, message).with_help(help)
}

/// The evsel perf makes for tracepoint `sys:name` with id `id`.
fn evsel(sys: &str, name: &str, id: u64) -> ParsedEvsel {
    let mut attr = base_attr(b::PERF_TYPE_TRACEPOINT, id);
    attr.sample_type = TRACEPOINT_SAMPLE_TYPE;
    attr.sample_period = 1;
    ParsedEvsel::new(format!("{sys}:{name}"), attr)
}

/// The evsels for `sys:name` (either may be a glob), sorted by
/// `(sys, name)`. `tracefs` is `Err(errno)` when no tracefs could be found.
///
/// # Errors
/// `unknown tracepoint` (ENOENT) when nothing matches, `can't access trace
/// events` (EACCES) and `failed to add tracepoint` otherwise, all with
/// perf's hint below.
pub fn tracepoints(
    input: &str,
    pos: usize,
    tracefs: Result<&Tracefs, i32>,
    sys: &str,
    name: &str,
) -> Result<Vec<ParsedEvsel>, ParseError> {
    let tfs = tracefs.map_err(|errno| tracepoint_error(input, pos, errno, None, sys, name))?;
    let fail = |errno| tracepoint_error(input, pos, errno, Some(tfs), sys, name);
    if !is_glob(sys) && !is_glob(name) {
        // perf reads the format too: a directory without one is no tracepoint.
        let has_format = || {
            tfs.event_dir(sys, name)
                .is_ok_and(|d| d.join("format").is_file())
        };
        return match tfs.tracepoint_id(sys, name) {
            Ok(id) if has_format() => Ok(vec![evsel(sys, name, id)]),
            Ok(_) => Err(fail(libc::ENOENT)),
            Err(Error::Sys { errno, .. }) => Err(fail(errno)),
            Err(_) => Err(fail(libc::ENOENT)),
        };
    }
    let all = tfs
        .events()
        .map_err(|e| fail(e.errno().unwrap_or(libc::EIO)))?;
    let mut out = Vec::new();
    for (s, n) in all
        .iter()
        .filter(|(s, n)| glob_match(sys, s) && glob_match(name, n))
    {
        // A tracepoint whose id can't be read is skipped, not fatal.
        if let Ok(id) = tfs.tracepoint_id(s, n) {
            out.push(evsel(s, n, id));
        }
    }
    if out.is_empty() {
        return Err(fail(libc::ENOENT));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let yes = [
            ("sched_s*", "sched_switch"),
            ("*", ""),
            ("*", "anything"),
            ("sched_wak*", "sched_waking"),
            ("*switch", "sched_switch"),
            ("s?hed", "sched"),
            ("sched_[sw]*", "sched_switch"),
            ("sched_[a-t]witch", "sched_switch"),
            ("sched_[!w]*", "sched_switch"),
            ("a*b*c", "aXbYbc"),
            ("[", "["),
        ];
        for (p, t) in yes {
            assert!(glob_match(p, t), "{p} ~ {t}");
        }
        let no = [
            ("sched_s*", "sched_wakeup"),
            ("s?hed", "shed"),
            ("sched_[!s]*", "sched_switch"),
            ("a*b*c", "aXbYb"),
            ("", "x"),
            ("abc", "ab"),
        ];
        for (p, t) in no {
            assert!(!glob_match(p, t), "{p} !~ {t}");
        }
        assert!(is_glob("sched_*") && is_glob("s?") && !is_glob("sched_[sw]"));
    }

    #[test]
    fn pathological_globs_finish() {
        let p = "*a".repeat(50) + "b";
        let t = "a".repeat(200);
        assert!(!glob_match(&p, &t));
    }
}
