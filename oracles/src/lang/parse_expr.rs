//! Parsing access-free expressions: precedence climbing over binary operators, unary `!`
//! and `-`, atoms; a heap access inside an expression is an error (ANF).

use super::*;
use crate::lang::lexer::Tok;

impl Parser<'_> {
    // ===== expressions (access-free) =====

    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.binary(1)
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

    pub(super) fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.binop() {
            if op.precedence() < min_prec {
                break;
            }
            self.bump();
            let rhs = self.binary(op.precedence() + 1)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    pub(super) fn unary(&mut self) -> PResult<Expr> {
        if self.eat_punct("!") {
            return Ok(Expr::Unary(UnOp::Not, Box::new(self.nested(Self::unary)?)));
        }
        if self.eat_punct("-") {
            // `-5` is a literal; `-(5)` and `-x` are negations.
            if let Tok::Int(v) = *self.peek() {
                self.bump();
                return Ok(Expr::Int(-v));
            }
            return Ok(Expr::Unary(UnOp::Neg, Box::new(self.nested(Self::unary)?)));
        }
        self.atom()
    }

    pub(super) fn atom(&mut self) -> PResult<Expr> {
        match self.peek().clone() {
            Tok::Int(v) => {
                self.bump();
                Ok(Expr::Int(v))
            }
            Tok::Punct("(") => {
                self.bump();
                let e = self.nested(Self::expr)?;
                self.expect_punct(")")?;
                Ok(e)
            }
            Tok::Ident(s) if s == "true" || s == "false" => {
                self.bump();
                Ok(Expr::Bool(s == "true"))
            }
            Tok::Ident(s) if s == "null" => {
                self.bump();
                Ok(Expr::Null)
            }
            Tok::Ident(_) => {
                let v = self.name("a variable")?;
                if self.is_punct(".") || self.is_punct("[") {
                    return self.err(ANF_MSG);
                }
                Ok(Expr::Var(v))
            }
            _ => self.expected("an expression"),
        }
    }
}
