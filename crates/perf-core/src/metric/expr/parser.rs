// SPDX-License-Identifier: GPL-2.0-only
//! perf's expression grammar (tools/perf/util/expr.y) as recursive descent
//! with bison's precedences, lowest first: `if`/`else`, `|`, `^`, `&`,
//! `< >`, `+ -`, `* / %`, unary minus. `a if c else b` is right-nested and
//! appears at the top or inside parentheses; `min`, `max` and `d_ratio`
//! take plain expressions.

use super::lexer::{Tok, Token};
use super::{ExprError, Node};

pub(super) struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    /// The identifiers in order of first use; nodes refer to them by index.
    pub ids: Vec<String>,
    depth: usize,
}

/// Nesting (parentheses, unary minus) deeper than this is refused rather
/// than risk the stack.
const MAX_DEPTH: usize = 64;

/// The deepest tree made (evaluation and drop recurse over it): far
/// beyond any metric's, far within a thread's stack.
const MAX_TREE_DEPTH: usize = 1000;

/// A node and its depth.
type Parsed = Result<(Node, usize), ExprError>;

const LEVELS: &[&[char]] = &[
    &['|'],
    &['^'],
    &['&'],
    &['<', '>'],
    &['+', '-'],
    &['*', '/', '%'],
];

impl<'a> Parser<'a> {
    pub fn new(toks: &'a [Token]) -> Self {
        Parser {
            toks,
            pos: 0,
            ids: Vec::new(),
            depth: 0,
        }
    }

    fn peek(&self) -> &Tok {
        self.toks.get(self.pos).map_or(&Tok::End, |t| &t.kind)
    }

    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(0, |t| t.at)
    }

    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn unexpected(&self) -> ExprError {
        let what = match self.peek() {
            Tok::End => "unexpected end of expression".to_owned(),
            t => format!("unexpected {}", describe(t)),
        };
        ExprError::Syntax {
            at: self.at(),
            what,
        }
    }

    fn expect(&mut self, c: char) -> Result<(), ExprError> {
        if *self.peek() == Tok::Punct(c) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn intern(&mut self, id: String) -> usize {
        if let Some(i) = self.ids.iter().position(|x| *x == id) {
            return i;
        }
        self.ids.push(id);
        self.ids.len() - 1
    }

    /// `start: if_expr`, then the end of the input.
    pub fn parse_all(&mut self) -> Result<Node, ExprError> {
        let (n, _) = self.if_expr()?;
        if *self.peek() != Tok::End {
            return Err(self.unexpected());
        }
        Ok(n)
    }

    /// A node of `depth` levels, unless that is too deep.
    fn node(&self, n: Node, depth: usize) -> Parsed {
        if depth > MAX_TREE_DEPTH {
            return Err(ExprError::Syntax {
                at: self.at(),
                what: format!("more than {MAX_TREE_DEPTH} operations deep"),
            });
        }
        Ok((n, depth))
    }

    fn if_expr(&mut self) -> Parsed {
        let (then, dt) = self.binary(0)?;
        if *self.peek() != Tok::If {
            return Ok((then, dt));
        }
        self.pos += 1;
        let (cond, dc) = self.binary(0)?;
        if *self.peek() != Tok::Else {
            return Err(self.unexpected());
        }
        self.pos += 1;
        let (other, de) = self.if_expr()?;
        self.node(
            Node::If(Box::new([then, cond, other])),
            1 + dt.max(dc).max(de),
        )
    }

    fn binary(&mut self, level: usize) -> Parsed {
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        let (mut lhs, mut dl) = self.binary(level + 1)?;
        while let Tok::Punct(c) = *self.peek() {
            if !ops.contains(&c) {
                break;
            }
            let at = self.at();
            self.pos += 1;
            let (rhs, dr) = self.binary(level + 1)?;
            (lhs, dl) = self.node(Node::Binary(c, at, Box::new([lhs, rhs])), 1 + dl.max(dr))?;
        }
        Ok((lhs, dl))
    }

    fn unary(&mut self) -> Parsed {
        if self.depth >= MAX_DEPTH {
            return Err(ExprError::Syntax {
                at: self.at(),
                what: format!("nested more than {MAX_DEPTH} deep"),
            });
        }
        self.depth += 1;
        let n = if *self.peek() == Tok::Punct('-') {
            self.pos += 1;
            self.unary()
                .and_then(|(n, d)| self.node(Node::Neg(Box::new(n)), d + 1))
        } else {
            self.primary()
        };
        self.depth -= 1;
        n
    }

    fn id_arg(&mut self) -> Result<String, ExprError> {
        self.expect('(')?;
        let Tok::Id(id) = self.peek().clone() else {
            return Err(self.unexpected());
        };
        self.pos += 1;
        self.expect(')')?;
        Ok(id)
    }

    fn two_args(&mut self, f: fn(Box<[Node; 2]>) -> Node) -> Parsed {
        self.expect('(')?;
        let (a, da) = self.binary(0)?;
        self.expect(',')?;
        let (b, db) = self.binary(0)?;
        self.expect(')')?;
        self.node(f(Box::new([a, b])), 1 + da.max(db))
    }

    fn primary(&mut self) -> Parsed {
        let at = self.at();
        let leaf = match self.next() {
            Tok::Number(v) => Node::Number(v),
            Tok::Id(id) => Node::Id(self.intern(id)),
            Tok::Literal(name) => Node::Literal(name),
            Tok::SourceCount => {
                let id = self.id_arg()?;
                Node::SourceCount(self.intern(id))
            }
            Tok::AggrNr => {
                let id = self.id_arg()?;
                Node::AggrNr(self.intern(id))
            }
            Tok::HasEvent => {
                let id = self.id_arg()?;
                Node::HasEvent(self.intern(id.clone()), id)
            }
            Tok::StrcmpCpuidStr => Node::StrcmpCpuidStr(self.id_arg()?),
            Tok::Min => return self.two_args(Node::Min),
            Tok::Max => return self.two_args(Node::Max),
            Tok::DRatio => return self.two_args(Node::DRatio),
            Tok::Punct('(') => {
                let n = self.if_expr()?;
                self.expect(')')?;
                return Ok(n);
            }
            _ => {
                self.pos = self.pos.saturating_sub(1);
                debug_assert_eq!(self.at(), at);
                return Err(self.unexpected());
            }
        };
        Ok((leaf, 1))
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Number(v) => format!("number {v}"),
        Tok::Id(s) => format!("identifier '{s}'"),
        Tok::Literal(s) => format!("literal '#{s}'"),
        Tok::Punct(c) => format!("'{c}'"),
        Tok::Min => "'min'".into(),
        Tok::Max => "'max'".into(),
        Tok::If => "'if'".into(),
        Tok::Else => "'else'".into(),
        Tok::DRatio => "'d_ratio'".into(),
        Tok::SourceCount => "'source_count'".into(),
        Tok::AggrNr => "'aggr_nr'".into(),
        Tok::HasEvent => "'has_event'".into(),
        Tok::StrcmpCpuidStr => "'strcmp_cpuid_str'".into(),
        Tok::End => "end".into(),
    }
}
