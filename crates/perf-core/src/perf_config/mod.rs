// SPDX-License-Identifier: GPL-2.0-only
//! perf's configuration (tools/perf/util/config.c): `perf.config_get()`.
//!
//! Which files, as perf's `perf_config_set__init()`:
//!
//! * `$PERF_CONFIG`, if set, alone (so `PERF_CONFIG=/dev/null` reads
//!   nothing). perf's main() reads this variable; 7.3's Python module,
//!   which has no main(), ignores it. This module honours it, so that it
//!   agrees with `perf config` run in the same environment.
//! * otherwise `/etc/perfconfig` (unless `PERF_CONFIG_NOSYSTEM` is true, or
//!   the file is not readable), then `$HOME/.perfconfig` (unless
//!   `PERF_CONFIG_NOGLOBAL` is true, `HOME` is unset or empty, the file is
//!   missing or empty, or owned by someone other than root and the caller).
//!   A bad line in the system file ends the reading there: the user's file
//!   is then not read (perf's `goto out`).
//!
//! A key set in both files takes the user's value. Keys are compared exactly
//! (perf's `strcmp`). The files are read on each call (perf reads them once
//! per process), only if they are regular files of at most [`MAX_FILE`]
//! bytes (perf's `fopen` would wait for a FIFO's writer and read
//! `/dev/zero` until its first bad line), and a bad line is not reported
//! (perf prints `bad config file line N in FILE` and goes on likewise).

mod parse;

use std::collections::HashMap;
use std::io::BufReader;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

pub use parse::{parse_file, BadLine};

/// The most of a config file read: a regular file bigger than this is not
/// read (as one that cannot be opened), and nothing else is read at all (a
/// FIFO, `/dev/zero`). Real files are a few KiB.
pub const MAX_FILE: u64 = 16 << 20;

/// The system-wide file (perf built with prefix `/usr`, as distributions do).
pub const SYSTEM_FILE: &str = "/etc/perfconfig";

/// The files to read, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Sources {
    /// `$PERF_CONFIG`: read alone when set.
    pub exclusive: Option<PathBuf>,
    /// `/etc/perfconfig`, when it is to be read.
    pub system: Option<PathBuf>,
    /// `$HOME/.perfconfig`, when it is to be read.
    pub user: Option<PathBuf>,
}

impl Sources {
    /// The files perf would read in this process's environment.
    pub fn from_env() -> Sources {
        if let Some(exclusive) = std::env::var_os("PERF_CONFIG") {
            return Sources {
                exclusive: Some(exclusive.into()),
                ..Sources::default()
            };
        }
        let system = Some(PathBuf::from(SYSTEM_FILE))
            .filter(|_| !env_bool("PERF_CONFIG_NOSYSTEM"))
            .filter(|p| nix::unistd::access(p.as_path(), nix::unistd::AccessFlags::R_OK).is_ok());
        let user = std::env::var_os("HOME")
            .filter(|home| !home.is_empty() && !env_bool("PERF_CONFIG_NOGLOBAL"))
            .map(|home| Path::new(&home).join(".perfconfig"))
            .filter(|p| user_file_is_usable(p));
        Sources {
            exclusive: None,
            system,
            user,
        }
    }
}

/// perf's `home_perfconfig()` checks: the file exists, is not empty, and is
/// owned by root or the effective user.
fn user_file_is_usable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| {
        (m.uid() == 0 || m.uid() == nix::unistd::geteuid().as_raw()) && m.size() != 0
    })
}

/// perf's `perf_env_bool()` with default false: whether variable `name` is
/// set to a true value.
fn env_bool(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| config_bool(v.as_encoded_bytes()))
}

/// perf's `perf_config_bool()`: empty, `false`, `no`, `off` and integers that
/// are 0 as a C `int` are false; `true`, `yes`, `on`, other integers and
/// anything unparsable (which perf warns about) are true.
pub fn config_bool(value: &[u8]) -> bool {
    if value.is_empty() {
        return false;
    }
    for word in [&b"true"[..], b"yes", b"on"] {
        if value.eq_ignore_ascii_case(word) {
            return true;
        }
    }
    for word in [&b"false"[..], b"no", b"off"] {
        if value.eq_ignore_ascii_case(word) {
            return false;
        }
    }
    // perf_config_int(): a long with an optional k/m/g factor, stored in an
    // int (truncated), or -1 when it does not parse.
    let (number, rest) = strtol(value);
    let factor: i64 = match rest.to_ascii_lowercase().as_slice() {
        b"" => 1,
        b"k" => 1 << 10,
        b"m" => 1 << 20,
        b"g" => 1 << 30,
        _ => return true,
    };
    number.wrapping_mul(factor) as i32 != 0
}

/// C's `strtol(s, &end, 0)` in the C locale: the value (clamped on
/// overflow) and what follows the number (all of `s` if there is none).
fn strtol(s: &[u8]) -> (i64, &[u8]) {
    let start = s.iter().position(|&c| !matches!(c, b'\t'..=b'\r' | b' '));
    let mut rest = &s[start.unwrap_or(s.len())..];
    let negative = rest.first() == Some(&b'-');
    if matches!(rest.first(), Some(b'-' | b'+')) {
        rest = &rest[1..];
    }
    let mut base = 10;
    if rest.first() == Some(&b'0') {
        base = 8;
        if matches!(rest.get(1), Some(b'x' | b'X'))
            && rest.get(2).is_some_and(u8::is_ascii_hexdigit)
        {
            base = 16;
            rest = &rest[2..];
        }
    }
    let digits = rest
        .iter()
        .take_while(|c| char::from(**c).is_digit(base))
        .count();
    if digits == 0 {
        return (0, s);
    }
    let mut value: i64 = 0;
    let mut overflow = false;
    for &c in &rest[..digits] {
        let d = i64::from(char::from(c).to_digit(base).unwrap_or(0));
        let next = value.checked_mul(i64::from(base)).and_then(|v| {
            if negative {
                v.checked_sub(d)
            } else {
                v.checked_add(d)
            }
        });
        match next {
            Some(v) => value = v,
            None => overflow = true,
        }
    }
    if overflow {
        value = if negative { i64::MIN } else { i64::MAX };
    }
    (value, &rest[digits..])
}

/// The `section.key = value` items read, in perf's `perf_config_set` order:
/// sections and their keys in order of first appearance, each key with the
/// value it was given last. Sections and keys are found by hash, so reading
/// and looking up are linear in the size of the files (perf's lists make
/// both quadratic).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ConfigSet {
    sections: Vec<(Vec<u8>, Items)>,
    /// Where each section is in `sections`.
    by_name: HashMap<Vec<u8>, usize>,
}

/// A section's (key, value) items, in order, and where each key is.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Items {
    items: Vec<(Vec<u8>, Vec<u8>)>,
    by_key: HashMap<Vec<u8>, usize>,
}

impl Items {
    /// Sets `name` to `value`, a new key going last.
    fn set(&mut self, name: &[u8], value: &[u8]) {
        match self.by_key.get(name).and_then(|&i| self.items.get_mut(i)) {
            Some((_, old)) => *old = value.to_vec(),
            None => {
                self.by_key.insert(name.to_vec(), self.items.len());
                self.items.push((name.to_vec(), value.to_vec()));
            }
        }
    }

    fn get(&self, name: &[u8]) -> Option<&[u8]> {
        let &i = self.by_key.get(name)?;
        self.items.get(i).map(|(_, v)| v.as_slice())
    }
}

impl ConfigSet {
    /// Reads the files of `sources`.
    pub fn load(sources: &Sources) -> ConfigSet {
        let mut set = ConfigSet::default();
        if let Some(exclusive) = &sources.exclusive {
            let _ = set.read_file(exclusive);
            return set;
        }
        if let Some(system) = &sources.system {
            if set.read_file(system).is_err() {
                return set;
            }
        }
        if let Some(user) = &sources.user {
            let _ = set.read_file(user);
        }
        set
    }

    /// Adds the items of one file (perf's `perf_config_from_file`): an error
    /// if it cannot be opened or has a bad line (the items before it stay).
    pub fn read_file(&mut self, path: &Path) -> Result<(), BadLine> {
        // A directory reads as empty, as perf's fopen and fgetc see it.
        if std::fs::metadata(path).is_ok_and(|m| m.is_dir()) {
            return Ok(());
        }
        let file = crate::regular_file::open_capped(path, MAX_FILE).map_err(|_| BadLine)?;
        self.read(BufReader::new(file))
    }

    /// Adds the items of one file's text.
    pub fn read(&mut self, input: impl std::io::BufRead) -> Result<(), BadLine> {
        parse_file(input, |var, value| self.collect(var, value))
    }

    /// perf's `collect_config()`: `section.rest` (split at the first dot)
    /// with a value; anything else is refused.
    fn collect(&mut self, var: &[u8], value: Option<&[u8]>) -> Result<(), BadLine> {
        let dot = var.iter().position(|&c| c == b'.').ok_or(BadLine)?;
        let value = value.ok_or(BadLine)?;
        let (section, name) = (&var[..dot], &var[dot + 1..]);
        let i = match self.by_name.get(section) {
            Some(&i) => i,
            None => {
                self.by_name.insert(section.to_vec(), self.sections.len());
                self.sections.push((section.to_vec(), Items::default()));
                self.sections.len() - 1
            }
        };
        self.sections.get_mut(i).ok_or(BadLine)?.1.set(name, value);
        Ok(())
    }

    /// Every `(section.key, value)`, as `perf config -l` lists them.
    pub fn entries(&self) -> impl Iterator<Item = (Vec<u8>, &[u8])> {
        self.sections.iter().flat_map(|(section, items)| {
            items.items.iter().map(move |(name, value)| {
                let mut key = section.clone();
                key.push(b'.');
                key.extend_from_slice(name);
                (key, value.as_slice())
            })
        })
    }

    /// The value of `section.key` (perf's `perf_config_get`). A section
    /// name has no dot (items are split at their first one), so the key's
    /// first dot splits it the same way.
    pub fn get(&self, key: &[u8]) -> Option<&[u8]> {
        let dot = key.iter().position(|&c| c == b'.')?;
        let &i = self.by_name.get(&key[..dot])?;
        self.sections.get(i)?.1.get(&key[dot + 1..])
    }
}

/// The value of `key` in perf's config files, read now
/// (`perf.config_get()`).
pub fn get(key: &[u8]) -> Option<Vec<u8>> {
    ConfigSet::load(&Sources::from_env())
        .get(key)
        .map(<[u8]>::to_vec)
}

#[cfg(test)]
mod tests;
