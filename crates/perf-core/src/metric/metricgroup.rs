// SPDX-License-Identifier: GPL-2.0-only
//! perf's metricgroup.c: from metric and group names to the events the
//! metrics need, grouped as perf groups them, and the metrics' values
//! from those events' counts.
//!
//! * names are matched as `metricgroup__parse_groups()` matches them:
//!   comma-separated, each a metric name or a group name (case-insensitive),
//!   `all` for every metric; the PMU filter `all` takes every metric;
//! * each metric's ids come from [`Expr::find_ids`]; an id naming another
//!   metric is a reference, expanded recursively (a cycle is an error);
//! * events are laid out as perf 6.1's `parse_groups()` lays them out:
//!   the metrics in reverse order of the request (each added at the head
//!   of perf's list), sorted stably by their number of counted ids, most
//!   first; the ids of the metrics with `NO_GROUP_EVENTS`
//!   (`NO_GROUP_EVENTS_NMI` while the NMI watchdog runs,
//!   `NO_GROUP_EVENTS_SMT` while SMT is on) share one ungrouped evlist,
//!   first; each other metric reuses the evlist of an earlier one holding
//!   all its ids, or gets its own: its counted events in one group
//!   (`{a,b}`), its tool events after it, ungrouped.

use std::collections::BTreeSet;

use super::event_source::EventSource;
use super::expr::{Context, Expr, ExprError, IdValue};
use super::MetricDef;
use crate::parse_events::{GroupInfo, ParsedEvsel};

/// Why a metric string cannot be turned into events.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricError {
    /// No metric or group has this name (perf's message).
    #[error("Cannot find metric or group `{0}'")]
    NotFound(String),
    /// A metric's expression does not parse or evaluate.
    #[error("metric '{metric}': {source}")]
    Expr {
        /// The metric.
        metric: String,
        /// Where and why.
        source: ExprError,
    },
    /// A metric refers to itself through its references.
    #[error("recursion detected for metric {0}")]
    Recursion(String),
    /// A metric needs an event this machine does not have.
    #[error("metric '{metric}' needs event '{event}': {reason}")]
    Event {
        /// The metric.
        metric: String,
        /// The event, as perf's parser takes it.
        event: String,
        /// The parser's error.
        reason: String,
    },
}

/// Where an identifier of an expression gets its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// From event `events[i]`.
    Event(usize),
    /// From the compiled expression `exprs[i]` (a referenced metric).
    Ref(usize),
    /// Not needed (ruled out by find_ids): NaN, as perf leaves it.
    Unused,
}

#[derive(Debug, Clone)]
struct Compiled {
    name: String,
    expr: Expr,
    slots: Vec<Slot>,
}

/// One event the metrics need.
#[derive(Debug, Clone)]
pub struct MetricEvent {
    /// The metric id (the identifier as the expressions write it).
    pub id: String,
    /// The evsel made from it.
    pub evsel: ParsedEvsel,
}

/// One requested metric.
#[derive(Debug, Clone)]
pub struct Metric {
    /// Its definition.
    pub def: MetricDef,
    /// Its events, as indices into [`MetricGroups::events`], referenced
    /// metrics' events included; the first is perf's `metric_events[0]`.
    pub events: Vec<usize>,
    expr: usize,
}

/// Metrics and the evsels that count for them.
#[derive(Debug, Clone)]
pub struct MetricGroups {
    /// The requested metrics, in the order perf lists them.
    pub metrics: Vec<Metric>,
    /// The evsels, in order, grouped as perf groups them.
    pub events: Vec<MetricEvent>,
    exprs: Vec<Compiled>,
}

/// The metric definitions this build knows on this CPU: its pmu-events
/// table's, then the common software metrics (as `perf.metrics()` lists
/// them).
pub fn known_metrics() -> Vec<MetricDef> {
    crate::pmu_events::cpu_metrics()
}

fn matches(def: &MetricDef, name: &str) -> bool {
    name.eq_ignore_ascii_case("all")
        || def.name.eq_ignore_ascii_case(name)
        || def.groups.iter().any(|g| g.eq_ignore_ascii_case(name))
}

/// A metric's PMU against the one asked for: a metric without one is
/// `cpu`'s (perf's `pm->pmu ?: "cpu"`), `default_core` is the core PMU's.
fn pmu_matches(def: &MetricDef, pmu: &str) -> bool {
    match def.pmu.as_deref().unwrap_or("cpu") {
        _ if pmu == "all" => true,
        "default_core" => pmu == "default_core" || pmu == "cpu" || pmu.starts_with("cpu_"),
        p => p == pmu,
    }
}

/// perf's `metricgroup__has_constraint()` and its callers: a metric's
/// events are not grouped with `NO_GROUP_EVENTS`, with
/// `NO_GROUP_EVENTS_NMI` while the NMI watchdog holds a counter, with
/// `NO_GROUP_EVENTS_SMT` while SMT is on.
fn is_ungrouped(def: &MetricDef, ctx: &dyn Context) -> bool {
    def.constraint.as_deref().is_some_and(|c| {
        c.split(',').any(|c| match c.trim() {
            "NO_GROUP_EVENTS" => true,
            "NO_GROUP_EVENTS_NMI" => ctx.nmi_watchdog(),
            "NO_GROUP_EVENTS_SMT" => ctx.literal("smt_on") == Some(1.0),
            _ => false,
        })
    })
}

/// The name perf's event parser takes for a metric id (`@` stands for `/`).
pub fn event_spec(id: &str) -> String {
    id.replace('@', "/")
}

struct Builder<'a> {
    table: &'a [MetricDef],
    ctx: &'a dyn Context,
    source: EventSource<'a>,
    exprs: Vec<Compiled>,
    events: Vec<MetricEvent>,
    /// The number of groups made so far.
    groups: usize,
}

impl Builder<'_> {
    fn find_def(&self, name: &str) -> Option<&MetricDef> {
        self.table
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(name))
    }

    /// Compiles `def` and what it refers to; returns its index in `exprs`
    /// and the ids of the events it needs.
    fn compile(
        &mut self,
        def: &MetricDef,
        stack: &mut Vec<String>,
    ) -> Result<(usize, Vec<String>), MetricError> {
        if stack.iter().any(|s| s.eq_ignore_ascii_case(&def.name)) {
            return Err(MetricError::Recursion(def.name.clone()));
        }
        let err = |source| MetricError::Expr {
            metric: def.name.clone(),
            source,
        };
        let expr = Expr::parse(&def.expr, 0).map_err(err)?;
        let needed = expr.find_ids(self.ctx).map_err(err)?;
        stack.push(def.name.clone());
        let mut event_ids = Vec::new();
        let mut slots = vec![Slot::Unused; expr.ids().len()];
        let mut refs = Vec::new();
        for id in &needed {
            if let Some(r) = self.find_def(id).cloned() {
                let (idx, ids) = self.compile(&r, stack)?;
                refs.push((id.clone(), idx));
                for i in ids {
                    if !event_ids.contains(&i) {
                        event_ids.push(i);
                    }
                }
            } else if !event_ids.contains(id) {
                event_ids.push(id.clone());
            }
        }
        stack.pop();
        for (id, idx) in refs {
            if let Some(i) = expr.id_index(&id) {
                slots[i] = Slot::Ref(idx);
            }
        }
        self.exprs.push(Compiled {
            name: def.name.clone(),
            expr,
            slots,
        });
        Ok((self.exprs.len() - 1, event_ids))
    }

    /// A new evsel for `id`, which must name exactly one event here.
    fn push_event(&mut self, metric: &str, id: &str) -> Result<usize, MetricError> {
        let spec = event_spec(id);
        let fail = |reason: String| MetricError::Event {
            metric: metric.to_owned(),
            event: spec.clone(),
            reason,
        };
        let mut parsed = self.source.parse(&spec).map_err(|e| fail(e.to_string()))?;
        if parsed.len() != 1 {
            return Err(fail(format!("makes {} events, not one", parsed.len())));
        }
        let mut evsel = parsed.remove(0);
        evsel.group = None;
        self.events.push(MetricEvent {
            id: id.to_owned(),
            evsel,
        });
        Ok(self.events.len() - 1)
    }

    /// perf's `parse_ids()`: the evsels of `ids`, the counted ones in one
    /// group (`{a,b}:W`) when `grouped` and there are two or more, the tool
    /// events after them, ungrouped, in perf's order of tool events;
    /// `duration_time` when there are no ids at all.
    fn evlist(
        &mut self,
        metric: &str,
        ids: &[String],
        grouped: bool,
    ) -> Result<Vec<usize>, MetricError> {
        let mut members = Vec::new();
        for id in ids.iter().filter(|id| !is_tool_event(id)) {
            members.push(self.push_event(metric, id)?);
        }
        let n = members.len();
        if grouped && n > 1 {
            let leader = members[0];
            let index = self.groups;
            self.groups += 1;
            for (k, &m) in members.iter().enumerate() {
                self.events[m].evsel.group = Some(GroupInfo {
                    index,
                    leader,
                    is_leader: k == 0,
                    nr_members: n,
                    name: None,
                });
            }
        }
        let mut tools: Vec<&str> = TOOL_EVENTS
            .iter()
            .copied()
            .filter(|t| ids.iter().any(|id| is_tool(id, t)))
            .collect();
        if ids.is_empty() {
            tools.push(TOOL_EVENTS[0]);
        }
        for t in tools {
            let id = ids
                .iter()
                .find(|id| is_tool(id, t))
                .map_or(t, String::as_str);
            members.push(self.push_event(metric, id)?);
        }
        Ok(members)
    }
}

/// perf's tool events, in its order (`perf_tool_event__for_each_event`).
const TOOL_EVENTS: [&str; 3] = ["duration_time", "user_time", "system_time"];

fn is_tool(id: &str, tool: &str) -> bool {
    id == tool || id.strip_prefix("tool@").and_then(|t| t.strip_suffix('@')) == Some(tool)
}

fn is_tool_event(id: &str) -> bool {
    TOOL_EVENTS.iter().any(|t| is_tool(id, t))
}

impl MetricGroups {
    /// perf's `metricgroup__parse_groups()` over `table`: the metrics and
    /// groups named in `input` (comma-separated), of PMU `pmu` (`all`:
    /// any), with ids found under `ctx`, events from the running system.
    ///
    /// # Errors
    /// An unknown name, a malformed expression (naming the metric and the
    /// offset), a reference cycle, or an event this machine lacks.
    pub fn parse(
        input: &str,
        pmu: &str,
        table: &[MetricDef],
        ctx: &dyn Context,
    ) -> Result<MetricGroups, MetricError> {
        Self::parse_with(input, pmu, table, ctx, EventSource::system())
    }

    /// [`Self::parse`] with events from `source`.
    ///
    /// # Errors
    /// As [`Self::parse`].
    pub fn parse_with(
        input: &str,
        pmu: &str,
        table: &[MetricDef],
        ctx: &dyn Context,
        source: EventSource<'_>,
    ) -> Result<MetricGroups, MetricError> {
        let mut b = Builder {
            table,
            ctx,
            source,
            exprs: Vec::new(),
            events: Vec::new(),
            groups: 0,
        };
        // (definition, expression, event ids) per metric, in the order
        // asked for.
        let mut asked: Vec<(MetricDef, usize, Vec<String>)> = Vec::new();
        for name in input.split(',') {
            let defs: Vec<&MetricDef> = table
                .iter()
                .filter(|d| matches(d, name) && pmu_matches(d, pmu))
                .collect();
            if defs.is_empty() {
                return Err(MetricError::NotFound(name.to_owned()));
            }
            for def in defs {
                if asked
                    .iter()
                    .any(|(d, _, _)| d.name == def.name && d.pmu == def.pmu)
                {
                    continue;
                }
                let (expr, ids) = b.compile(def, &mut Vec::new())?;
                asked.push((def.clone(), expr, ids));
            }
        }
        // perf 6.1 adds each metric at the head of its list, then sorts it
        // (stably) by the number of counted ids, most first.
        let mut order: Vec<usize> = (0..asked.len()).rev().collect();
        order.sort_by_key(|&i| {
            std::cmp::Reverse(asked[i].2.iter().filter(|id| !is_tool_event(id)).count())
        });
        let ungrouped: Vec<bool> = asked.iter().map(|(d, _, _)| is_ungrouped(d, ctx)).collect();
        // The ungrouped metrics' ids share one evlist, first (perf lists
        // them in its hash table's order; here in the order asked for).
        let mut combined_ids: Vec<String> = Vec::new();
        for (_, _, ids) in asked
            .iter()
            .zip(&ungrouped)
            .filter(|(_, &u)| u)
            .map(|(a, _)| a)
        {
            for id in ids {
                if !combined_ids.contains(id) {
                    combined_ids.push(id.clone());
                }
            }
        }
        let combined = if combined_ids.is_empty() {
            None
        } else {
            let first = order
                .iter()
                .find(|&&i| ungrouped[i])
                .map_or("", |&i| &asked[i].0.name);
            Some(b.evlist(first, &combined_ids, false)?)
        };
        // Each other metric: the evlist of an earlier one (in the sorted
        // order) holding all its ids, or its own.
        let mut evlists: Vec<Option<Vec<usize>>> = vec![None; asked.len()];
        let mut events_of: Vec<Vec<usize>> = vec![Vec::new(); asked.len()];
        for (k, &i) in order.iter().enumerate() {
            let (def, _, ids) = &asked[i];
            let shared = match &combined {
                Some(c) if ungrouped[i] => Some(c.clone()),
                _ => order[..k].iter().find_map(|&n| {
                    let theirs = evlists[n].as_ref()?;
                    let their_ids = &asked[n].2;
                    ids.iter()
                        .all(|id| their_ids.contains(id))
                        .then(|| theirs.clone())
                }),
            };
            let list = match shared {
                Some(l) => l,
                None => {
                    let l = b.evlist(&def.name, ids, !ungrouped[i])?;
                    evlists[i] = Some(l.clone());
                    l
                }
            };
            events_of[i] = ids
                .iter()
                .filter_map(|id| list.iter().copied().find(|&e| b.events[e].id == *id))
                .collect();
        }
        let metrics: Vec<Metric> = asked
            .into_iter()
            .zip(events_of)
            .map(|((def, expr, _), events)| Metric { def, events, expr })
            .collect();
        let mut out = MetricGroups {
            metrics,
            events: b.events,
            exprs: b.exprs,
        };
        out.bind_slots();
        Ok(out)
    }

    /// Points each metric's event ids at the evsels chosen for it.
    fn bind_slots(&mut self) {
        let metrics = self.metrics.clone();
        for m in &metrics {
            let mut stack = vec![m.expr];
            let mut seen = BTreeSet::new();
            while let Some(e) = stack.pop() {
                if !seen.insert(e) {
                    continue;
                }
                let c = &mut self.exprs[e];
                for (i, id) in c.expr.ids().iter().enumerate() {
                    match c.slots[i] {
                        Slot::Ref(r) => stack.push(r),
                        Slot::Unused | Slot::Event(_) => {
                            if let Some(&ev) =
                                m.events.iter().find(|&&ev| self.events[ev].id == *id)
                            {
                                c.slots[i] = Slot::Event(ev);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The value of metric `metric` (an index into [`Self::metrics`]),
    /// each of its events' values asked of `read` once (by index into
    /// [`Self::events`]). An expression that fails to evaluate gives 0.0,
    /// as perf's `compute_metric`.
    ///
    /// # Errors
    /// What `read` returns.
    pub fn compute<E>(
        &self,
        metric: usize,
        ctx: &dyn Context,
        read: &mut dyn FnMut(usize) -> Result<f64, E>,
    ) -> Result<f64, E> {
        let Some(m) = self.metrics.get(metric) else {
            return Ok(0.0);
        };
        let mut cache: Vec<Option<f64>> = vec![None; self.events.len()];
        Ok(self.eval(m.expr, ctx, read, &mut cache, 0)?.unwrap_or(0.0))
    }

    fn eval<E>(
        &self,
        e: usize,
        ctx: &dyn Context,
        read: &mut dyn FnMut(usize) -> Result<f64, E>,
        cache: &mut [Option<f64>],
        depth: usize,
    ) -> Result<Option<f64>, E> {
        let c = &self.exprs[e];
        let mut values = Vec::with_capacity(c.slots.len());
        for slot in &c.slots {
            values.push(match *slot {
                Slot::Event(ev) => {
                    let v = match cache[ev] {
                        Some(v) => v,
                        None => {
                            let v = read(ev)?;
                            cache[ev] = Some(v);
                            v
                        }
                    };
                    Some(IdValue::new(v))
                }
                // References are acyclic (checked when parsed).
                Slot::Ref(r) if depth < self.exprs.len() => {
                    self.eval(r, ctx, read, cache, depth + 1)?.map(IdValue::new)
                }
                Slot::Ref(_) | Slot::Unused => None,
            });
        }
        Ok(c.expr.eval(ctx, &values).ok())
    }

    /// The name of metric `metric`.
    pub fn metric_name(&self, metric: usize) -> Option<&str> {
        self.metrics
            .get(metric)
            .map(|m| self.exprs[m.expr].name.as_str())
    }
}

#[cfg(test)]
mod tests;
