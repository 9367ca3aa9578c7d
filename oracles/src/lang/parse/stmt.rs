//! Parsing statements and blocks (the `stmt` rule of the grammar in `lang::parse`). Every
//! block, and every `else if` (an `if` nested in the `else` block), is one nesting level
//! ([`MAX_NESTING`]).

use super::*;
use crate::lang::lexer::Tok;

impl Parser<'_> {
    pub(super) fn block(&mut self) -> PResult<Block> {
        self.nested(Self::block_inner)
    }

    pub(super) fn block_inner(&mut self) -> PResult<Block> {
        self.skip_newlines();
        self.expect_punct("{")?;
        let mut out = vec![];
        loop {
            while *self.peek() == Tok::Newline || self.is_punct(";") {
                self.bump();
            }
            if self.eat_punct("}") {
                return Ok(out);
            }
            if *self.peek() == Tok::Eof {
                return self.expected("`}`");
            }
            out.push(self.stmt()?);
            if !(self.is_punct(";") || self.is_punct("}") || *self.peek() == Tok::Newline) {
                return self.expected("`;`, a new line or `}` after a statement");
            }
        }
    }

    pub(super) fn stmt(&mut self) -> PResult<Stmt> {
        let line = Line(self.pos().line);
        let kind = self.stmt_kind()?;
        Ok(Stmt { kind, line })
    }

    /// A statement: a small dispatcher, so that the frames on the recursion path of nested
    /// blocks stay small (an unoptimized build runs [`MAX_NESTING`] levels in well under the
    /// 2 MiB of a test thread).
    pub(super) fn stmt_kind(&mut self) -> PResult<StmtKind> {
        let Tok::Ident(word) = self.peek() else {
            return self.expected("a statement");
        };
        let Some(kw) = KEYWORDS.iter().copied().find(|k| *k == word.as_str()) else {
            return self.simple();
        };
        if matches!(self.peek_at(1), Tok::Punct("=") | Tok::Punct("<-")) {
            return self.err(ParseErrorKind::Keyword, &format!("`{kw}` is a keyword and cannot be assigned"));
        }
        match kw {
            "if" => self.if_stmt(),
            "while" | "loop" => self.loop_stmt(kw == "while"),
            "sync" => self.sync_stmt(),
            "fork" => {
                self.bump();
                Ok(StmtKind::Fork { dst: None, target: self.fork_target()? })
            }
            _ => self.leaf_stmt(kw),
        }
    }

    /// Statements that start with a keyword and contain no block.
    fn leaf_stmt(&mut self, kw: &str) -> PResult<StmtKind> {
        match kw {
            "skip" => {
                self.bump();
                Ok(StmtKind::Skip)
            }
            "lock" | "unlock" => {
                self.bump();
                if self.eat_punct("(") {
                    self.expect_punct(")")?;
                }
                Ok(if kw == "lock" { StmtKind::Lock } else { StmtKind::Unlock })
            }
            "acq" => {
                self.bump();
                Ok(StmtKind::Acq(self.paren_name("a lock variable")?))
            }
            "rel" => {
                self.bump();
                Ok(StmtKind::Rel(self.paren_name("a lock variable")?))
            }
            "join" => {
                self.bump();
                Ok(StmtKind::Join(self.paren_name("a thread handle")?))
            }
            "break" => {
                if self.loop_depth == 0 {
                    return self.err(ParseErrorKind::BreakOutsideLoop, "`break` outside a loop");
                }
                self.bump();
                Ok(StmtKind::Break)
            }
            "return" => {
                self.bump();
                if matches!(self.peek(), Tok::Newline | Tok::Eof) || self.is_punct(";") || self.is_punct("}") {
                    Ok(StmtKind::Return(None))
                } else {
                    Ok(StmtKind::Return(Some(self.expr()?)))
                }
            }
            "check" => self.check(),
            "assume" => {
                self.bump();
                Ok(StmtKind::Assume(self.expr()?))
            }
            "assert" => {
                self.bump();
                Ok(StmtKind::Assert(self.expr()?))
            }
            "fence" => {
                self.bump();
                self.expect_punct("(")?;
                let order = self.order()?;
                self.expect_punct(")")?;
                Ok(StmtKind::Atomic(Atomic::Fence(order)))
            }
            "read" => {
                self.bump();
                match self.place()? {
                    p @ Place::Field { .. } => Ok(StmtKind::Read(p)),
                    Place::Index { .. } => self.err(ParseErrorKind::Form, "`read` takes a field path (`read x.f.g`)"),
                }
            }
            // Other keywords cannot start a statement; `simple` says so.
            _ => self.simple(),
        }
    }

    /// `sync(x) { .. }`.
    fn sync_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let lock = self.paren_name("a lock variable")?;
        Ok(StmtKind::Sync { lock, body: self.block()? })
    }

    /// `while [@w] cond { .. }` or `loop [@w] { .. }`.
    fn loop_stmt(&mut self, is_while: bool) -> PResult<StmtKind> {
        self.bump();
        let label = self.label()?;
        if !is_while {
            return Ok(StmtKind::Loop { label, body: self.loop_body()? });
        }
        let cond = self.cond()?;
        Ok(StmtKind::While { label, cond, body: self.loop_body()? })
    }

    pub(super) fn loop_body(&mut self) -> PResult<Block> {
        self.loop_depth += 1;
        let b = self.block();
        self.loop_depth -= 1;
        b
    }

    pub(super) fn if_stmt(&mut self) -> PResult<StmtKind> {
        self.bump(); // `if`
        let cond = self.cond()?;
        if self.is_kw("break") {
            return self.if_break(cond);
        }
        let then_b = self.block()?;
        let else_b = self.else_branch()?;
        Ok(StmtKind::If { cond, then_b, else_b })
    }

    /// `if c break`, printed as `if c { break }`: a block, so one level like any other.
    fn if_break(&mut self, cond: Cond) -> PResult<StmtKind> {
        let line = Line(self.pos().line);
        let brk = self.nested(Self::stmt)?;
        debug_assert_eq!(brk.kind, StmtKind::Break);
        Ok(StmtKind::If { cond, then_b: vec![Stmt { kind: StmtKind::Break, line }], else_b: vec![] })
    }

    /// The `else` block (or `else if`), if any; `else` may follow on the next line.
    fn else_branch(&mut self) -> PResult<Block> {
        let save = self.i;
        self.skip_newlines();
        if !self.eat_kw("else") {
            self.i = save;
            return Ok(vec![]);
        }
        if self.is_kw("if") {
            let line = Line(self.pos().line);
            let nested = self.nested(Self::if_stmt)?;
            return Ok(vec![Stmt { kind: nested, line }]);
        }
        self.block()
    }

    pub(super) fn cond(&mut self) -> PResult<Cond> {
        if self.eat_punct("*") {
            Ok(Cond::Star)
        } else {
            Ok(Cond::Expr(self.expr()?))
        }
    }

    pub(super) fn fork_target(&mut self) -> PResult<ForkTarget> {
        if self.is_punct("{") {
            return Ok(ForkTarget::Block { this: None, body: self.block()? });
        }
        if self.is_punct("(") {
            let this = self.paren_name("a thread object")?;
            if !self.is_punct("{") {
                return self.expected("`{` after `fork(x)`");
            }
            return Ok(ForkTarget::Block { this: Some(this), body: self.block()? });
        }
        self.fork_call()
    }

    /// `fork y.m(args)`, `fork m(args)` or `fork y` (`y.run()`).
    fn fork_call(&mut self) -> PResult<ForkTarget> {
        let first = self.name("a thread object, a method or `{`")?;
        if self.eat_punct(".") {
            let method = self.name("a method name")?;
            let args = self.args()?;
            Ok(ForkTarget::Call { recv: Some(first), method, args })
        } else if self.is_punct("(") {
            let args = self.args()?;
            Ok(ForkTarget::Call { recv: None, method: first, args })
        } else {
            Ok(ForkTarget::Call { recv: Some(first), method: "run".into(), args: vec![] })
        }
    }

    pub(super) fn args(&mut self) -> PResult<Vec<Expr>> {
        self.expect_punct("(")?;
        let mut args = vec![];
        if self.eat_punct(")") {
            return Ok(args);
        }
        loop {
            args.push(self.arg()?);
            if self.eat_punct(")") {
                return Ok(args);
            }
            self.expect_punct(",")?;
        }
    }

    /// A call actual: an expression, or a path (RacerDX passes access paths).
    pub(super) fn arg(&mut self) -> PResult<Expr> {
        if matches!(self.peek(), Tok::Ident(_)) && matches!(self.peek_at(1), Tok::Punct(".") | Tok::Punct("[")) {
            return Ok(Expr::Path(Box::new(self.place()?)));
        }
        self.expr()
    }

    pub(super) fn check(&mut self) -> PResult<StmtKind> {
        self.bump(); // `check`
        self.expect_punct("(")?;
        let mut items = vec![];
        let mut kind: Option<AccessKind> = None;
        loop {
            if let (Tok::Ident(k), Tok::Punct(":")) = (self.peek().clone(), self.peek_at(1).clone()) {
                kind = match k.as_str() {
                    "R" => Some(AccessKind::Read),
                    "W" => Some(AccessKind::Write),
                    _ => return self.err(ParseErrorKind::Unexpected, &format!("check kind must be `R` or `W`, found `{k}`")),
                };
                self.bump();
                self.bump();
            }
            let Some(k) = kind else {
                return self.expected("`R:` or `W:` before the first checked path");
            };
            items.push(CheckItem { kind: k, target: self.check_target()? });
            if self.eat_punct(")") {
                return Ok(StmtKind::Check(items));
            }
            if !(self.eat_punct(",") || self.eat_punct(";")) {
                return self.expected("`,`, `;` or `)` in a check");
            }
        }
    }

    pub(super) fn check_target(&mut self) -> PResult<CheckTarget> {
        let base = self.name("a checked variable")?;
        if self.eat_punct(".") {
            let mut fields = vec![self.name("a field name")?];
            while self.eat_punct("/") {
                fields.push(self.name("a field name")?);
            }
            Ok(CheckTarget::Fields { base, fields })
        } else if self.eat_punct("[") {
            let lo = self.expr()?;
            let (hi, stride) = if self.eat_punct("..") {
                let hi = self.expr()?;
                let stride = if self.eat_punct(":") {
                    match self.bump() {
                        Tok::Int(k) if k >= 1 => Some(k),
                        _ => return self.err(ParseErrorKind::OutOfRange, "a stride must be an integer literal ≥ 1 (spec/bigfoot.md A14)"),
                    }
                } else {
                    None
                };
                (Some(hi), stride)
            } else {
                (None, None)
            };
            self.expect_punct("]")?;
            Ok(CheckTarget::Range { base, lo, hi, stride })
        } else {
            self.expected("`.field` or `[range]` after the checked variable")
        }
    }

    /// Statements that start with a variable: assignments, loads, stores, renames, calls.
    pub(super) fn simple(&mut self) -> PResult<StmtKind> {
        let start = self.i;
        let first = self.name("a statement")?;
        if self.eat_punct("=") {
            return self.rhs(first);
        }
        self.simple_no_rhs(start, first)
    }

    /// Calls, renames and stores: [`Parser::simple`] without `x = ..`.
    fn simple_no_rhs(&mut self, start: usize, first: String) -> PResult<StmtKind> {
        if self.is_punct("(") {
            let args = self.args()?;
            return Ok(StmtKind::Call { dst: None, recv: None, method: first, args });
        }
        if self.eat_punct("<-") {
            let src = self.name("a variable")?;
            return Ok(StmtKind::Rename { dst: first, src });
        }
        if self.is_punct(".") && matches!(self.peek_at(1), Tok::Ident(_)) && matches!(self.peek_at(2), Tok::Punct("(")) {
            self.bump();
            let method = self.name("a method name")?;
            let args = self.args()?;
            return Ok(StmtKind::Call { dst: None, recv: Some(first), method, args });
        }
        if self.is_punct("[") && matches!(self.peek_at(1), Tok::Punct("+")) && matches!(self.peek_at(2), Tok::Punct("]")) {
            (0..3).for_each(|_| {
                self.bump();
            });
            self.expect_punct("=")?;
            let src = self.name("a variable (`x[+] = y` appends a variable's value)")?;
            return Ok(StmtKind::Append { array: first, src });
        }
        if self.is_punct(".") || self.is_punct("[") {
            self.i = start;
            let dst = self.place()?;
            if self.is_punct("(") {
                return self.atomic(None, dst);
            }
            self.expect_punct("=")?;
            let src = self.expr()?;
            return Ok(StmtKind::Store { dst, src });
        }
        self.expected("`=`, `<-`, `(`, `.` or `[` after a variable")
    }

    /// The right-hand side of `dst = ..`.
    fn rhs(&mut self, dst: String) -> PResult<StmtKind> {
        if self.eat_kw("fork") {
            return Ok(StmtKind::Fork { dst: Some(dst), target: self.fork_target()? });
        }
        self.rhs_value(dst)
    }

    /// `new`, `new_array`, a call, a load or an expression.
    fn rhs_value(&mut self, dst: String) -> PResult<StmtKind> {
        if matches!(self.peek(), Tok::Ident(n) if n == "nondet") && matches!(self.peek_at(1), Tok::Punct("{")) {
            self.bump();
            self.bump();
            let lo = self.int_literal()?;
            self.expect_punct("..")?;
            let hi = self.int_literal()?;
            self.expect_punct("}")?;
            if lo > hi {
                return self.err(ParseErrorKind::OutOfRange, &format!("`nondet{{{lo}..{hi}}}` is empty"));
            }
            return Ok(StmtKind::Nondet { dst, lo, hi });
        }
        if self.eat_kw("new") {
            if self.eat_punct("(") {
                self.expect_punct(")")?;
            }
            let class = match self.peek() {
                Tok::Ident(_) => Some(self.name("a class name")?),
                _ => None,
            };
            let site = self.label()?;
            return Ok(StmtKind::New { dst, class, site });
        }
        if self.eat_kw("new_array") {
            return Ok(StmtKind::NewArray { dst, len: self.expr()? });
        }
        if let Tok::Ident(_) = self.peek() {
            match self.peek_at(1) {
                Tok::Punct("(") => {
                    let method = self.name("a method name")?;
                    let args = self.args()?;
                    return Ok(StmtKind::Call { dst: Some(dst), recv: None, method, args });
                }
                Tok::Punct(".") if matches!(self.peek_at(3), Tok::Punct("(")) => {
                    let recv = self.name("a receiver")?;
                    self.bump();
                    let method = self.name("a method name")?;
                    let args = self.args()?;
                    return Ok(StmtKind::Call { dst: Some(dst), recv: Some(recv), method, args });
                }
                Tok::Punct("[") if matches!(self.peek_at(2), Tok::Punct("*")) && matches!(self.peek_at(3), Tok::Punct("]")) => {
                    let array = self.name("a container")?;
                    (0..3).for_each(|_| {
                        self.bump();
                    });
                    return Ok(StmtKind::Pick { dst, array });
                }
                Tok::Punct(".") | Tok::Punct("[") => {
                    let src = self.place()?;
                    if self.is_punct("(") {
                        return self.atomic(Some(dst), src);
                    }
                    if self.binop().is_some() {
                        return self.err(ParseErrorKind::Form, ANF_MSG);
                    }
                    return Ok(StmtKind::Load { dst, src });
                }
                _ => {}
            }
        }
        Ok(StmtKind::Assign { dst, src: self.expr()? })
    }

    /// An integer literal, possibly negative.
    fn int_literal(&mut self) -> PResult<i64> {
        let neg = self.eat_punct("-");
        match self.bump() {
            Tok::Int(k) => Ok(if neg { -k } else { k }),
            _ => self.err(ParseErrorKind::Unexpected, "an integer literal"),
        }
    }

    pub(super) fn place(&mut self) -> PResult<Place> {
        let base = self.name("a variable")?;
        if self.eat_punct("[") {
            let index = self.expr()?;
            self.expect_punct("]")?;
            return Ok(Place::Index { base, index });
        }
        let mut fields = vec![];
        while self.eat_punct(".") {
            fields.push(self.name("a field name")?);
        }
        if fields.is_empty() {
            return self.expected("`.field` or `[index]`");
        }
        if self.is_punct("[") {
            return self.err(ParseErrorKind::Form, "an index must apply to a variable (`x[i]`); load the array into a local first");
        }
        Ok(Place::Field { base, fields })
    }
}
