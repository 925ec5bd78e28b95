// SPDX-License-Identifier: GPL-2.0-only
//! What the parser hands back: one [`ParsedEvsel`] per event it made.

use super::terms::{apply_config_terms, ConfigTerm};
use crate::attr::Attr;

/// The group an evsel belongs to (`{a,b}` or `name{a,b}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupInfo {
    /// Which group of the string, counting from 0.
    pub index: usize,
    /// Index of the group leader in the returned list.
    pub leader: usize,
    /// True for the leader itself (the group's first evsel).
    pub is_leader: bool,
    /// Members in the group, leader included (perf's `nr_members`).
    pub nr_members: usize,
    /// The group name of `name{a,b}`.
    pub name: Option<String>,
}

/// One event selector made from the event string: perf's `struct evsel`
/// as `parse_events()` leaves it, before `evsel__config()`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedEvsel {
    /// perf's name for it (what `evsel__name()` returns): the `name=` term;
    /// `sys:name` for tracepoints; the cache name as written for cache
    /// events; otherwise the event's text as written, modifiers included
    /// (`cycles:u`, `software/config=1/`, `mem:0x1000:rw`).
    pub name: String,
    /// The attr: type, config*, exclusion bits, `precise_ip`, `pinned`,
    /// `exclusive`, perf's parse-time defaults (`exclude_guest`; for
    /// tracepoints and breakpoints `sample_period` 1, for tracepoints
    /// `sample_type` RAW|TIME|CPU|PERIOD), with [`Self::config_terms`]
    /// applied. `size` is left 0: the open path picks it.
    pub attr: Attr,
    /// The PMU the event came through (`software/…/`, an alias such as
    /// `msr`'s `tsc`); `None` for legacy symbols, raw events, tracepoints
    /// and breakpoints.
    pub pmu: Option<String>,
    /// Group membership, for events inside `{…}`.
    pub group: Option<GroupInfo>,
    /// `:S`: read the group (or the event) on every sample.
    pub sample_read: bool,
    /// `:P`: use the highest precise level the PMU supports.
    pub precise_max: bool,
    /// `:W`: weak group (split the group if it cannot be scheduled).
    pub weak_group: bool,
    /// `:b`: count with BPF.
    pub bpf_counter: bool,
    /// `:G`/`:H` was given (perf's `evsel->exclude_GH`), which keeps later
    /// `u`/`p` modifiers from setting `exclude_guest`.
    pub exclude_gh: bool,
    /// Per-event settings that perf applies in `evsel__config()` on top of
    /// the tool's defaults (`period=`, `freq=`, `call-graph=` …). They are
    /// already applied to [`Self::attr`]; re-apply them with
    /// [`Self::apply_config_terms`] after setting defaults of your own.
    pub config_terms: Vec<ConfigTerm>,
}

impl ParsedEvsel {
    /// An evsel with no group, PMU, modifiers or terms.
    pub fn new(name: String, attr: Attr) -> Self {
        ParsedEvsel {
            name,
            attr,
            pmu: None,
            group: None,
            sample_read: false,
            precise_max: false,
            weak_group: false,
            bpf_counter: false,
            exclude_gh: false,
            config_terms: Vec::new(),
        }
    }

    /// True for a group leader and for an evsel outside any group.
    pub fn is_group_leader(&self) -> bool {
        self.group.as_ref().is_none_or(|g| g.is_leader)
    }

    /// Applies this evsel's [`Self::config_terms`] to `attr`, as perf's
    /// `evsel__apply_config_terms()` does after `evsel__config()`.
    pub fn apply_config_terms(&self, attr: &mut Attr) {
        apply_config_terms(&self.config_terms, attr);
    }
}

/// A fresh attr of `type_`/`config` with perf's `event_attr_init()`
/// default: `exclude_guest` (perf is not in guest mode).
pub fn base_attr(type_: u32, config: u64) -> Attr {
    let mut attr = Attr {
        type_,
        config,
        ..Attr::default()
    };
    let _ = attr.set_flag("exclude_guest", 1);
    attr
}
