// SPDX-License-Identifier: GPL-2.0-only
//! perf's metric expression language (tools/perf/util/expr.l, expr.y,
//! expr.c), parsed once into an [`Expr`] and evaluated many times.
//!
//! | perf                    | here                              |
//! |-------------------------|-----------------------------------|
//! | `expr__parse()`         | [`Expr::parse`] + [`Expr::eval`]  |
//! | `expr__find_ids()`      | [`Expr::find_ids`]                |
//! | `expr__get_literal()`   | [`Context::literal`]              |
//! | `expr__has_event()`     | [`Context::has_event`] (find ids) |
//! | `expr__strcmp_cpuid_str()` | [`Context::cpuid`], `pmu_events::host_cpuid_matches` |
//!
//! Values follow perf: an unknown identifier is NaN, `x / 0` is NaN,
//! `d_ratio(x, 0)` is 0, `x % 0` fails the evaluation, `|` `&` `^` are
//! logical (0 or 1) with a constant side deciding alone, `a if c else b`
//! takes `b` only when `c` is exactly 0. perf resolves `#literals` while
//! scanning, here they are asked of the [`Context`] when evaluated; a
//! literal the context cannot give fails the evaluation, as it fails
//! perf's parse.

mod context;
mod eval;
mod lexer;
mod parser;
mod system;

pub use context::{Context, FixedContext};
pub use eval::IdValue;
pub use system::SystemContext;

/// A parse or evaluation failure, with the byte offset it was found at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExprError {
    /// The text is not an expression.
    #[error("syntax error at offset {at}: {what}")]
    Syntax {
        /// Byte offset in the expression.
        at: usize,
        /// What was found there.
        what: String,
    },
    /// `x % 0` (perf aborts the parse).
    #[error("modulo by zero at offset {at}")]
    ModuloByZero {
        /// Byte offset of the `%`.
        at: usize,
    },
    /// A `#literal` the context has no value for.
    #[error("unknown literal '#{name}'")]
    Literal {
        /// The literal, without `#`.
        name: String,
    },
}

/// One node of a parsed expression. Identifiers are indices into
/// [`Expr::ids`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    Number(f64),
    Id(usize),
    SourceCount(usize),
    AggrNr(usize),
    /// The id's index and the event name as written.
    HasEvent(usize, String),
    StrcmpCpuidStr(String),
    Literal(String),
    Neg(Box<Node>),
    /// `| ^ & < > + - * / %`, at the operator's offset.
    Binary(char, usize, Box<[Node; 2]>),
    Min(Box<[Node; 2]>),
    Max(Box<[Node; 2]>),
    DRatio(Box<[Node; 2]>),
    /// `[then, cond, else]`.
    If(Box<[Node; 3]>),
}

/// A parsed expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    src: String,
    root: Node,
    ids: Vec<String>,
}

impl Expr {
    /// Parses `src`; `?` in identifiers becomes `runtime` (perf's
    /// runtime parameter, 0 unless a metric asks otherwise).
    ///
    /// # Errors
    /// [`ExprError::Syntax`] naming the offset of the first token that does
    /// not fit.
    pub fn parse(src: &str, runtime: i32) -> Result<Expr, ExprError> {
        let toks = lexer::tokenize(src, runtime)?;
        let mut p = parser::Parser::new(&toks);
        let root = p.parse_all()?;
        Ok(Expr {
            src: src.to_owned(),
            root,
            ids: p.ids,
        })
    }

    /// The text it was parsed from.
    pub fn source(&self) -> &str {
        &self.src
    }

    /// Every identifier of the expression, in order of first use; the
    /// values given to [`Expr::eval`] follow this order.
    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    /// Index of `id` in [`Expr::ids`].
    pub fn id_index(&self, id: &str) -> Option<usize> {
        self.ids.iter().position(|x| x == id)
    }

    /// Evaluates with `values[i]` for `ids()[i]` (`None`: unknown, NaN).
    ///
    /// # Errors
    /// `%` by zero, or a literal the context lacks.
    pub fn eval(&self, ctx: &dyn Context, values: &[Option<IdValue>]) -> Result<f64, ExprError> {
        eval::eval(&self.root, ctx, values)
    }

    /// perf's `expr__find_ids()`: the identifiers whose values the result
    /// can depend on, leaving out those of a branch a constant condition
    /// rules out, of `0 & x`, `1 | x`, `x / 0` and `d_ratio(x, 0)`.
    ///
    /// # Errors
    /// As [`Expr::eval`].
    pub fn find_ids(&self, ctx: &dyn Context) -> Result<Vec<String>, ExprError> {
        let set = eval::find_ids(&self.root, ctx)?;
        Ok(self
            .ids
            .iter()
            .enumerate()
            .filter(|(i, _)| set.contains(i))
            .map(|(_, s)| s.clone())
            .collect())
    }
}

#[cfg(test)]
mod tests;
