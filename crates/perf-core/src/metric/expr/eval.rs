// SPDX-License-Identifier: GPL-2.0-only
//! Evaluation and id finding: the actions of perf's expr.y, once with
//! values (`compute_ids` false) and once over "constant or any value"
//! (`compute_ids` true, NaN standing for "any value").

use std::collections::BTreeSet;

use super::context::Context;
use super::{ExprError, Node};

/// What an identifier stands for when evaluating: perf's `expr_id_data`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdValue {
    /// The value (a counter's count, a referenced metric's value).
    pub val: f64,
    /// How many counters were aggregated into it (`source_count(ID)`).
    pub source_count: f64,
    /// How many aggregation units it covers (`aggr_nr(ID)`).
    pub aggr_nr: f64,
}

impl IdValue {
    /// A value from one counter.
    pub fn new(val: f64) -> Self {
        IdValue {
            val,
            source_count: 1.0,
            aggr_nr: 1.0,
        }
    }
}

fn is_const(v: f64) -> bool {
    v.is_finite()
}

fn bool_val(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// `(long)a % (long)b` without C's undefined cases (NaN and out of range
/// saturate, a zero or overflowing division gives NaN).
fn long_rem(a: f64, b: f64) -> f64 {
    #[allow(clippy::cast_possible_truncation)]
    let (a, b) = (a as i64, b as i64);
    #[allow(clippy::cast_precision_loss)]
    a.checked_rem(b).map_or(f64::NAN, |r| r as f64)
}

fn literal(ctx: &dyn Context, name: &str) -> Result<f64, ExprError> {
    match ctx.literal(name) {
        Some(v) if !v.is_nan() => Ok(v),
        _ => Err(ExprError::Literal {
            name: name.to_owned(),
        }),
    }
}

fn cpuid_value(ctx: &dyn Context, id: &str) -> f64 {
    ctx.cpuid().map_or(f64::NAN, |c| {
        bool_val(crate::pmu_events::host_cpuid_matches(id, &c))
    })
}

/// The logical operators, shared by both modes: a constant side may
/// decide alone; two unknowns give "any value".
fn logic(op: char, l: f64, r: f64) -> Option<f64> {
    let (lc, rc) = (is_const(l), is_const(r));
    match op {
        '|' => match (lc, rc) {
            (true, true) => Some(bool_val(l != 0.0 || r != 0.0)),
            (true, false) => (l != 0.0).then_some(1.0),
            (false, true) => (r != 0.0).then_some(1.0),
            (false, false) => None,
        },
        '&' => match (lc, rc) {
            (true, true) => Some(bool_val(l != 0.0 && r != 0.0)),
            (true, false) => (l == 0.0).then_some(0.0),
            (false, true) => (r == 0.0).then_some(0.0),
            (false, false) => None,
        },
        _ => (lc && rc).then(|| bool_val((l == 0.0) != (r == 0.0))),
    }
}

fn arith(op: char, l: f64, r: f64) -> f64 {
    if l.is_nan() || r.is_nan() {
        return f64::NAN;
    }
    match op {
        '<' => bool_val(l < r),
        '>' => bool_val(l > r),
        '+' => l + r,
        '-' => l - r,
        _ => l * r,
    }
}

pub(super) fn eval(n: &Node, ctx: &dyn Context, v: &[Option<IdValue>]) -> Result<f64, ExprError> {
    let get = |i: &usize| v.get(*i).copied().flatten();
    Ok(match n {
        Node::Number(x) => *x,
        Node::Id(i) => get(i).map_or(f64::NAN, |d| d.val),
        Node::SourceCount(i) => get(i).map_or(f64::NAN, |d| d.source_count),
        Node::AggrNr(i) => get(i).map_or(f64::NAN, |d| d.aggr_nr),
        // Evaluating, perf asks only its table of ids: an event no part
        // of the metric counted is absent.
        Node::HasEvent(i, _) => bool_val(get(i).is_some()),
        Node::StrcmpCpuidStr(id) => cpuid_value(ctx, id),
        Node::Literal(name) => literal(ctx, name)?,
        Node::Neg(a) => -eval(a, ctx, v)?,
        Node::Binary(op, at, ab) => {
            let l = eval(&ab[0], ctx, v)?;
            let r = eval(&ab[1], ctx, v)?;
            match op {
                '|' | '&' | '^' => match logic(*op, l, r) {
                    Some(x) => x,
                    None if *op != '^' && is_const(l) => r,
                    None if *op != '^' && is_const(r) => l,
                    None => f64::NAN,
                },
                '/' if r == 0.0 => f64::NAN,
                '/' => l / r,
                '%' if r == 0.0 => return Err(ExprError::ModuloByZero { at: *at }),
                '%' => long_rem(l, r),
                op => arith(*op, l, r),
            }
        }
        Node::Min(ab) => {
            let (l, r) = (eval(&ab[0], ctx, v)?, eval(&ab[1], ctx, v)?);
            if l < r {
                l
            } else {
                r
            }
        }
        Node::Max(ab) => {
            let (l, r) = (eval(&ab[0], ctx, v)?, eval(&ab[1], ctx, v)?);
            if l > r {
                l
            } else {
                r
            }
        }
        Node::DRatio(ab) => {
            let (l, r) = (eval(&ab[0], ctx, v)?, eval(&ab[1], ctx, v)?);
            if r == 0.0 {
                0.0
            } else {
                l / r
            }
        }
        Node::If(tce) => {
            // perf evaluates every part, then picks.
            let t = eval(&tce[0], ctx, v)?;
            let c = eval(&tce[1], ctx, v)?;
            let e = eval(&tce[2], ctx, v)?;
            if c == 0.0 {
                e
            } else {
                t
            }
        }
    })
}

/// A value while finding ids: a constant, or NaN ("any value") with the
/// ids it depends on.
struct Abs {
    val: f64,
    ids: BTreeSet<usize>,
}

impl Abs {
    fn constant(val: f64) -> Abs {
        Abs {
            val,
            ids: BTreeSet::new(),
        }
    }

    fn union(mut self, other: Abs) -> Abs {
        self.ids.extend(other.ids);
        self.val = f64::NAN;
        self
    }
}

fn find(n: &Node, ctx: &dyn Context) -> Result<Abs, ExprError> {
    let one_id = |i: usize| Abs {
        val: f64::NAN,
        ids: BTreeSet::from([i]),
    };
    Ok(match n {
        Node::Number(x) => Abs::constant(*x),
        Node::Id(i) | Node::SourceCount(i) | Node::AggrNr(i) => one_id(*i),
        Node::HasEvent(_, id) => Abs::constant(bool_val(ctx.has_event(&id.replace('@', "/")))),
        Node::StrcmpCpuidStr(id) => Abs::constant(cpuid_value(ctx, id)),
        Node::Literal(name) => Abs::constant(literal(ctx, name)?),
        Node::Neg(a) => {
            let mut a = find(a, ctx)?;
            a.val = -a.val;
            a
        }
        Node::Binary(op, at, ab) => {
            let [l, r] = &**ab;
            let (l, r) = (find(l, ctx)?, find(r, ctx)?);
            let both = is_const(l.val) && is_const(r.val);
            match op {
                '|' | '&' | '^' => match logic(*op, l.val, r.val) {
                    Some(x) => Abs::constant(x),
                    // A constant side that does not decide leaves the
                    // other side as it is.
                    None if *op != '^' && is_const(l.val) => r,
                    None if *op != '^' && is_const(r.val) => l,
                    None => l.union(r),
                },
                '/' if r.val == 0.0 => Abs::constant(f64::NAN),
                '%' if r.val == 0.0 => return Err(ExprError::ModuloByZero { at: *at }),
                '/' if both => Abs::constant(l.val / r.val),
                '%' if both => Abs::constant(long_rem(l.val, r.val)),
                '/' | '%' => l.union(r),
                op if both => Abs::constant(arith(*op, l.val, r.val)),
                _ => l.union(r),
            }
        }
        Node::Min(ab) | Node::Max(ab) => {
            let [l, r] = &**ab;
            find(l, ctx)?.union(find(r, ctx)?)
        }
        Node::DRatio(ab) => {
            let [l, r] = &**ab;
            let (l, r) = (find(l, ctx)?, find(r, ctx)?);
            if r.val == 0.0 {
                Abs::constant(0.0)
            } else if is_const(l.val) && is_const(r.val) {
                Abs::constant(l.val / r.val)
            } else {
                l.union(r)
            }
        }
        Node::If(tce) => {
            let [t, c, e] = &**tce;
            let (t, c, e) = (find(t, ctx)?, find(c, ctx)?, find(e, ctx)?);
            if c.val == 0.0 {
                e
            } else if is_const(c.val) {
                t
            } else if t.val == e.val {
                Abs::constant(t.val)
            } else {
                t.union(c.union(e))
            }
        }
    })
}

pub(super) fn find_ids(n: &Node, ctx: &dyn Context) -> Result<BTreeSet<usize>, ExprError> {
    Ok(find(n, ctx)?.ids)
}
