//! Parsing access-free expressions: precedence climbing over binary operators, unary `!`
//! and `-`, atoms; a heap access inside an expression is an error (ANF).
//!
//! Nesting ([`MAX_NESTING`]) is bounded twice. Each `!`, `-` and parenthesis is one level of
//! recursion here ([`Parser::nested`]). And each expression's *printed depth*, how deep its
//! innermost atom sits in parentheses and unary operators as `print::expr` writes it, is
//! checked as the tree is built: a chain `1 + 1 + …` recurses in no parser function, but its
//! tree is as deep as it is long, and the printer writes it as `((1 + 1) + 1) + …`. So
//! whatever parses prints to text that parses again, and no tree is deeper than the limit.

use super::*;
use crate::lang::lexer::Tok;
use crate::lang::print::{operand_parens, unary_operand_parens};

/// An expression and its printed depth.
type Depth<T> = PResult<(T, u32)>;

impl Parser<'_> {
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        Ok(self.binary(1)?.0)
    }

    pub(super) fn binop(&self) -> Option<BinOp> {
        let Tok::Punct(p) = self.peek() else { return None };
        Some(match *p {
            "||" => BinOp::Or,
            "&&" => BinOp::And,
            "==" => BinOp::Eq,
            "!=" => BinOp::Ne,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "*" => BinOp::Mul,
            "%" => BinOp::Rem,
            _ => return None,
        })
    }

    fn binary(&mut self, min_prec: u8) -> Depth<Expr> {
        let (mut lhs, mut depth) = self.unary()?;
        while let Some(op) = self.binop() {
            if op.precedence() < min_prec {
                break;
            }
            let pos = self.pos();
            self.bump();
            let (rhs, rhs_depth) = self.binary(op.precedence() + 1)?;
            depth = (depth + u32::from(operand_parens(&lhs))).max(rhs_depth + u32::from(operand_parens(&rhs)));
            self.check_nesting(self.depth + depth, pos)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok((lhs, depth))
    }

    fn unary(&mut self) -> Depth<Expr> {
        // The nesting check comes before the operator is consumed, so that an error points
        // at the operator that is one level too deep.
        let op = if self.is_punct("!") {
            UnOp::Not
        } else if self.is_punct("-") {
            // `-5` is a literal; `-(5)` and `-x` are negations.
            if let Tok::Int(v) = *self.peek_at(1) {
                self.bump();
                self.bump();
                return Ok((Expr::Int(-v), 0));
            }
            UnOp::Neg
        } else {
            return self.atom();
        };
        let pos = self.pos();
        let (a, a_depth) = self.nested(|p| {
            p.bump();
            p.unary()
        })?;
        let depth = 1 + a_depth + u32::from(unary_operand_parens(op, &a));
        self.check_nesting(self.depth + depth, pos)?;
        Ok((Expr::Unary(op, Box::new(a)), depth))
    }

    /// A literal, a variable or a parenthesized expression (parentheses add no printed depth).
    fn atom(&mut self) -> Depth<Expr> {
        let e = match self.peek().clone() {
            Tok::Int(v) => {
                self.bump();
                Expr::Int(v)
            }
            Tok::Punct("(") => {
                return self.nested(|p| {
                    p.bump();
                    let e = p.binary(1)?;
                    p.expect_punct(")")?;
                    Ok(e)
                })
            }
            Tok::Ident(s) if s == "true" || s == "false" => {
                self.bump();
                Expr::Bool(s == "true")
            }
            Tok::Ident(s) if s == "null" => {
                self.bump();
                Expr::Null
            }
            Tok::Ident(_) => {
                let v = self.name("a variable")?;
                if self.is_punct(".") || self.is_punct("[") {
                    return self.err(ParseErrorKind::Form, ANF_MSG);
                }
                Expr::Var(v)
            }
            _ => return self.expected("an expression"),
        };
        Ok((e, 0))
    }
}
