// SPDX-License-Identifier: GPL-2.0-only
//! A tracefs instance: tracepoint ids (`events/<sys>/<name>/id`), parsed
//! formats (`events/<sys>/<name>/format`) and the caches in front of them.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::format::Format;
use crate::error::{Error, Result};

/// A tracefs directory (the one holding `events/`) and its format caches.
///
/// The process-wide instance is [`super::tracefs()`]; tests make their own
/// with [`Tracefs::at`] on a fake tree.
#[derive(Debug)]
pub struct Tracefs {
    root: PathBuf,
    cache: Mutex<Cache>,
}

#[derive(Debug, Default)]
struct Cache {
    /// Formats loaded so far, by tracepoint id.
    by_id: HashMap<u64, Arc<Format>>,
    /// The same formats, by `(sys, name)`.
    by_name: HashMap<(String, String), Arc<Format>>,
    /// id → `(sys, name)` from one scan of `events/*/*/id`, made on the
    /// first lookup of an id that is not loaded yet.
    index: Option<HashMap<u64, (String, String)>>,
}

/// Refuses a subsystem or event name that could leave `events/`: empty,
/// `.`, `..`, or containing `/` or NUL.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the bad component.
pub fn check_component(what: &str, s: &str) -> Result<()> {
    if s.is_empty() || s == "." || s == ".." || s.contains(['/', '\0']) {
        return Err(Error::InvalidArgument(format!(
            "invalid tracepoint {what} {s:?}"
        )));
    }
    Ok(())
}

/// Reads a whole file; failures keep their errno.
fn read_text(path: &Path, op: &'static str) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::Sys {
        op,
        errno: e.raw_os_error().unwrap_or(libc::EIO),
        hint: Some(path.display().to_string()),
    })
}

/// The number in an `id` file (`"372\n"`).
fn parse_id(text: &str, path: &Path) -> Result<u64> {
    text.trim().parse().map_err(|_| Error::Malformed {
        what: "tracepoint id file",
        detail: format!("{}: {:?}", path.display(), text.trim()),
    })
}

impl Tracefs {
    /// The tracefs mounted at `root` (the directory that has `events/`).
    pub fn at(root: impl Into<PathBuf>) -> Tracefs {
        Tracefs {
            root: root.into(),
            cache: Mutex::new(Cache::default()),
        }
    }

    /// The directory this instance reads.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn cache(&self) -> MutexGuard<'_, Cache> {
        // The cache holds no invariant a panicking holder could break.
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `<root>/events/<sys>/<name>`, after [`check_component`] on both.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a name that could escape `events/`.
    pub fn event_dir(&self, sys: &str, name: &str) -> Result<PathBuf> {
        check_component("system", sys)?;
        check_component("name", name)?;
        Ok(self.root.join("events").join(sys).join(name))
    }

    /// The id of tracepoint `sys:name`, from `events/<sys>/<name>/id` (what
    /// `perf.tracepoint()` returns and `attr.config` takes).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a bad name, [`Error::Sys`] (`ENOENT`
    /// for an unknown tracepoint) if the file can't be read,
    /// [`Error::Malformed`] if it holds no number.
    pub fn tracepoint_id(&self, sys: &str, name: &str) -> Result<u64> {
        let path = self.event_dir(sys, name)?.join("id");
        parse_id(&read_text(&path, "read tracepoint id")?, &path)
    }

    /// Reads and parses `events/<sys>/<name>/format`, bypassing the cache.
    ///
    /// # Errors
    /// As [`Tracefs::tracepoint_id`], and the parse errors of [`Format::parse`].
    pub fn read_format(&self, sys: &str, name: &str) -> Result<Format> {
        let path = self.event_dir(sys, name)?.join("format");
        Format::parse(sys, &read_text(&path, "read tracepoint format")?)
    }

    /// The format of `sys:name`, parsed once and then shared. Loading it
    /// also makes it known to [`Tracefs::cached_format`] under its id.
    ///
    /// # Errors
    /// As [`Tracefs::read_format`].
    pub fn format(&self, sys: &str, name: &str) -> Result<Arc<Format>> {
        let key = (sys.to_owned(), name.to_owned());
        if let Some(f) = self.cache().by_name.get(&key) {
            return Ok(Arc::clone(f));
        }
        let parsed = Arc::new(self.read_format(sys, name)?);
        let mut cache = self.cache();
        // Another thread may have won the race: keep the first copy, so
        // that every holder shares one string flag per field.
        let kept = Arc::clone(cache.by_name.entry(key).or_insert(parsed));
        cache
            .by_id
            .entry(kept.id)
            .or_insert_with(|| Arc::clone(&kept));
        Ok(kept)
    }

    /// A format already loaded by [`Tracefs::format`] or
    /// [`Tracefs::format_by_id`]; never touches the file system. (perf ≤ 6.12
    /// only finds formats that a `perf.tracepoint()` call has parsed.)
    pub fn cached_format(&self, id: u64) -> Option<Arc<Format>> {
        self.cache().by_id.get(&id).cloned()
    }

    /// The format of the tracepoint with id `id` (perf ≥ 6.15's
    /// `evsel__tp_format()`): from the cache, else found through one scan of
    /// `events/*/*/id`; an id the scan does not know triggers a rescan, for
    /// tracepoints created since.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] if no tracepoint has that id;
    /// [`Error::Sys`] if `events/` can't be listed; the errors of
    /// [`Tracefs::format`].
    pub fn format_by_id(&self, id: u64) -> Result<Arc<Format>> {
        if let Some(f) = self.cached_format(id) {
            return Ok(f);
        }
        let known = {
            let cache = self.cache();
            cache.index.as_ref().and_then(|ix| ix.get(&id).cloned())
        };
        let (sys, name) = match known {
            Some(found) => found,
            None => {
                let index = self.scan_ids()?;
                let found = index.get(&id).cloned();
                self.cache().index = Some(index);
                found.ok_or_else(|| Error::InvalidArgument(format!("no tracepoint has id {id}")))?
            }
        };
        self.format(&sys, &name)
    }

    /// Every tracepoint under `events/` as `(sys, name)`, sorted: the
    /// directories `events/<sys>/<name>` that have a `format` file.
    ///
    /// # Errors
    /// [`Error::Sys`] if `events/` can't be listed.
    pub fn events(&self) -> Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        for sys in list_dirs(&self.root.join("events"))? {
            let sys_dir = self.root.join("events").join(&sys);
            for name in list_dirs(&sys_dir).unwrap_or_default() {
                if sys_dir.join(&name).join("format").is_file() {
                    out.push((sys.clone(), name));
                }
            }
        }
        out.sort();
        Ok(out)
    }

    /// id → `(sys, name)` for every readable `events/*/*/id`.
    fn scan_ids(&self) -> Result<HashMap<u64, (String, String)>> {
        let mut index = HashMap::new();
        for sys in list_dirs(&self.root.join("events"))? {
            let sys_dir = self.root.join("events").join(&sys);
            for name in list_dirs(&sys_dir).unwrap_or_default() {
                let path = sys_dir.join(&name).join("id");
                let Ok(text) = std::fs::read_to_string(&path) else {
                    continue;
                };
                if let Ok(id) = parse_id(&text, &path) {
                    index.insert(id, (sys.clone(), name));
                }
            }
        }
        Ok(index)
    }
}

/// The names of the subdirectories of `dir` that are valid UTF-8.
fn list_dirs(dir: &Path) -> Result<Vec<String>> {
    let entries = std::fs::read_dir(dir).map_err(|e| Error::Sys {
        op: "list tracefs events",
        errno: e.raw_os_error().unwrap_or(libc::EIO),
        hint: Some(dir.display().to_string()),
    })?;
    Ok(entries
        .filter_map(|e| {
            let e = e.ok()?;
            if !e.file_type().ok()?.is_dir() {
                return None;
            }
            e.file_name().into_string().ok()
        })
        .collect())
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
