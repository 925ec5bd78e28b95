// SPDX-License-Identifier: GPL-2.0-only
//! What the parser reads besides the string: the PMUs of a sysfs tree (read
//! once per parse) and a tracefs.

use std::cell::OnceCell;

use super::sysfs::{Pmu, Sysfs};
use crate::tracefs::Tracefs;

/// Where tracepoint ids come from.
pub enum TracefsSource<'a> {
    /// The system's tracefs, found on first use ([`crate::tracefs::tracefs`]).
    System,
    /// A given tracefs (tests use a fake tree).
    Given(&'a Tracefs),
    /// None: tracepoints are unknown.
    Missing,
}

/// What the parser reads besides the string: sysfs PMUs, tracefs.
pub struct Env<'a> {
    sysfs: &'a Sysfs,
    tracefs: TracefsSource<'a>,
    pmus: OnceCell<Vec<Pmu>>,
}

impl<'a> Env<'a> {
    /// An environment over `sysfs` and `tracefs`.
    pub fn new(sysfs: &'a Sysfs, tracefs: TracefsSource<'a>) -> Self {
        Env {
            sysfs,
            tracefs,
            pmus: OnceCell::new(),
        }
    }

    /// Every readable PMU, read once, with the JSON events of the CPU's
    /// pmu-events table among its aliases.
    pub fn pmus(&self) -> &[Pmu] {
        self.pmus.get_or_init(|| {
            let mut pmus = self.sysfs.pmus().unwrap_or_default();
            pmus.iter_mut()
                .for_each(super::json_events::add_json_aliases);
            pmus
        })
    }

    /// The tracefs, or the errno saying why there is none.
    pub fn tracefs(&self) -> Result<&Tracefs, i32> {
        match self.tracefs {
            TracefsSource::System => {
                crate::tracefs::tracefs().map_err(|e| e.errno().unwrap_or(libc::ENOENT))
            }
            TracefsSource::Given(t) => Ok(t),
            TracefsSource::Missing => Err(libc::ENOENT),
        }
    }

    /// The PMUs `name` selects: the one so called, else perf's uncore
    /// shorthand (`imc` or `uncore_imc` for `uncore_imc_0`, `uncore_imc_1`).
    pub fn pmus_named(&self, name: &str) -> Vec<&Pmu> {
        let all = self.pmus();
        if let Some(p) = all.iter().find(|p| p.name == name) {
            return vec![p];
        }
        let numbered = |full: &str| {
            let stem = full
                .strip_prefix("uncore_")
                .filter(|_| !name.starts_with("uncore_"))
                .unwrap_or(full);
            stem.strip_prefix(name)
                .and_then(|rest| rest.strip_prefix('_'))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        };
        all.iter().filter(|p| numbered(&p.name)).collect()
    }

    /// The PMUs with an alias called `name`.
    pub fn alias_pmus(&self, name: &str) -> Vec<&Pmu> {
        self.pmus()
            .iter()
            .filter(|p| p.alias(name).is_some())
            .collect()
    }
}
