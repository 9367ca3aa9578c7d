//! The `.race` parser: text to [`Program`], with errors that carry line:col and a caret.
//!
//! Grammar (informal; `;` and newlines separate statements; `//` comments):
//! ```text
//! program  := "dialect" NAME item*
//! item     := ["capsule"] "class" NAME "{" ("fields" NAME ("," NAME)* | method)* "}"
//!           | method | "init" block | "thread" block
//! method   := "method" NAME "(" [NAME ("," NAME)*] ")" block
//! stmt     := skip | lock | unlock | acq(x) | rel(x) | sync(x) block | break | join(h)
//!           | if cond block [else block] | if cond break | while [@w] cond block | loop [@w] block
//!           | x = e | x <- y | x = new [C] [@h] | x = new_array e | x = place | place = e
//!           | [x =] [y.]m(args) | [h =] fork (y.m(args) | m(args) | y | block) | return [e]
//!           | check(K: cpath, ..) | assume e | assert e
//! cond     := "*" | e        place := x.f(.f)* | x[e]
//! cpath    := x.f(/f)* | x[e] | x[e..e] | x[e..e:k]
//! ```

use std::fmt;

use super::ast::*;
use super::lexer::{lex, Tok, Token};

/// A 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

/// A syntax error: a message, where, and the offending source line for the caret.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// What went wrong.
    pub message: String,
    /// Where.
    pub pos: Pos,
    /// The source line at `pos`.
    pub source_line: String,
}

impl ParseError {
    pub(crate) fn at(src: &str, pos: Pos, message: &str) -> ParseError {
        let source_line = src.lines().nth(pos.line.saturating_sub(1) as usize).unwrap_or("").to_string();
        ParseError { message: message.to_string(), pos, source_line }
    }

    /// Renders the error with a file name, rustc-style. A long source line is cut to a
    /// window of [`EXCERPT`] characters around the column, marked with `…`.
    pub fn render(&self, file: &str) -> String {
        let ln = self.pos.line.to_string();
        let pad = " ".repeat(ln.len());
        let chars: Vec<char> = self.source_line.chars().collect();
        let col = (self.pos.col.saturating_sub(1) as usize).min(chars.len());
        let start = col.saturating_sub(EXCERPT / 2);
        let end = (start + EXCERPT).min(chars.len());
        let mut excerpt: String = chars[start..end].iter().collect();
        let mut caret = " ".repeat(col - start);
        if start > 0 {
            excerpt.insert(0, '…');
            caret.insert(0, ' ');
        }
        if end < chars.len() {
            excerpt.push('…');
        }
        format!("error: {}\n{pad}--> {file}:{}:{}\n{pad} |\n{ln} | {excerpt}\n{pad} | {caret}^", self.message, self.pos.line, self.pos.col)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.render("<input>"))
    }
}

const KEYWORDS: &[&str] = &[
    "dialect",
    "class",
    "capsule",
    "fields",
    "method",
    "init",
    "thread",
    "skip",
    "lock",
    "unlock",
    "acq",
    "rel",
    "sync",
    "if",
    "else",
    "while",
    "loop",
    "break",
    "return",
    "fork",
    "join",
    "check",
    "assume",
    "assert",
    "new",
    "new_array",
    "true",
    "false",
    "null",
];

const ANF_MSG: &str = "a heap access inside an expression; load it into a local first (`t = x.f`), so that each statement makes at most one access";

/// The most characters of a source line an error shows.
pub const EXCERPT: usize = 100;

/// The deepest nesting the parser accepts (blocks inside blocks, parentheses, chains of `!`
/// and `-`). Deeper input is a [`ParseError`], not a stack overflow: everything downstream
/// (validators, printer, machine) recurses over the same structure.
pub const MAX_NESTING: u32 = 256;

/// Parses a whole program.
///
/// # Errors
/// A [`ParseError`] naming the first problem, with its line and column.
pub fn parse(src: &str) -> Result<Program, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser { src, toks, i: 0, loop_depth: 0, depth: 0 };
    p.program()
}

struct Parser<'s> {
    src: &'s str,
    toks: Vec<Token>,
    i: usize,
    loop_depth: u32,
    /// Current nesting of blocks and of unary and parenthesized expressions; at most
    /// [`MAX_NESTING`].
    depth: u32,
}

type PResult<T> = Result<T, ParseError>;

impl Parser<'_> {
    // ===== token helpers =====

    fn peek(&self) -> &Tok {
        &self.toks[self.i.min(self.toks.len() - 1)].tok
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].tok
    }

    fn pos(&self) -> Pos {
        self.toks[self.i.min(self.toks.len() - 1)].pos
    }

    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
        t
    }

    fn err<T>(&self, msg: &str) -> PResult<T> {
        Err(ParseError::at(self.src, self.pos(), msg))
    }

    fn expected<T>(&self, what: &str) -> PResult<T> {
        self.err(&format!("expected {what}, found {}", self.peek().describe()))
    }

    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == k)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.bump();
        }
        yes
    }

    fn eat_kw(&mut self, k: &str) -> bool {
        let yes = self.is_kw(k);
        if yes {
            self.bump();
        }
        yes
    }

    fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.expected(&format!("`{p}`"))
        }
    }

    fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.bump();
        }
    }

    fn name(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                self.bump();
                Ok(s)
            }
            Tok::Ident(s) => self.err(&format!("`{s}` is a keyword and cannot be used as {what}")),
            _ => self.expected(what),
        }
    }

    fn paren_name(&mut self, what: &str) -> PResult<String> {
        self.expect_punct("(")?;
        let n = self.name(what)?;
        self.expect_punct(")")?;
        Ok(n)
    }

    fn label(&mut self) -> PResult<Option<String>> {
        if self.eat_punct("@") {
            Ok(Some(self.name("a label")?))
        } else {
            Ok(None)
        }
    }

    // ===== items =====

    fn program(&mut self) -> PResult<Program> {
        self.skip_newlines();
        if !self.eat_kw("dialect") {
            return self.expected("`dialect NAME` as the first line");
        }
        let dialect = match self.peek().clone() {
            Tok::Ident(s) => match Dialect::from_name(&s) {
                Some(d) => {
                    self.bump();
                    d
                }
                None => return self.err(&format!("unknown dialect `{s}` (known: racerdx, bfj, simplejava, capjava)")),
            },
            _ => return self.expected("a dialect name"),
        };
        let mut prog = Program { dialect, classes: vec![], methods: vec![], init: None, threads: vec![] };
        loop {
            self.skip_newlines();
            let line = Line(self.pos().line);
            if *self.peek() == Tok::Eof {
                break;
            } else if self.is_kw("class") || self.is_kw("capsule") {
                let c = self.class()?;
                if prog.classes.iter().any(|d| d.name == c.name) {
                    return Err(ParseError::at(self.src, Pos { line: c.line.0, col: 1 }, &format!("class `{}` is declared twice", c.name)));
                }
                prog.classes.push(c);
            } else if self.is_kw("method") {
                prog.methods.push(self.method()?);
            } else if self.eat_kw("init") {
                if prog.init.is_some() {
                    return Err(ParseError::at(self.src, Pos { line: line.0, col: 1 }, "a program has at most one `init` block"));
                }
                prog.init = Some(self.block()?);
            } else if self.eat_kw("thread") {
                prog.threads.push(self.block()?);
            } else {
                return self.expected("`class`, `method`, `init` or `thread`");
            }
        }
        let scopes = std::iter::once(&prog.methods).chain(prog.classes.iter().map(|c| &c.methods));
        for methods in scopes {
            for (i, m) in methods.iter().enumerate() {
                if methods[..i].iter().any(|n| n.name == m.name) {
                    let pos = Pos { line: m.line.0, col: 1 };
                    return Err(ParseError::at(self.src, pos, &format!("method `{}` is declared twice in the same scope", m.name)));
                }
            }
        }
        Ok(prog)
    }

    fn class(&mut self) -> PResult<Class> {
        let line = Line(self.pos().line);
        let capsule = self.eat_kw("capsule");
        if !self.eat_kw("class") {
            return self.expected("`class`");
        }
        let name = self.name("a class name")?;
        self.skip_newlines();
        self.expect_punct("{")?;
        let mut class = Class { name, capsule, fields: vec![], methods: vec![], line };
        loop {
            self.skip_newlines();
            while self.eat_punct(";") {
                self.skip_newlines();
            }
            if self.eat_punct("}") {
                return Ok(class);
            } else if self.eat_kw("fields") {
                loop {
                    let f = self.name("a field name")?;
                    if class.fields.contains(&f) {
                        return self.err(&format!("field `{f}` is declared twice"));
                    }
                    class.fields.push(f);
                    if !self.eat_punct(",") {
                        break;
                    }
                }
            } else if self.is_kw("method") {
                class.methods.push(self.method()?);
            } else {
                return self.expected("`fields`, `method` or `}`");
            }
        }
    }

    fn method(&mut self) -> PResult<Method> {
        let line = Line(self.pos().line);
        self.bump(); // `method`
        let name = self.name("a method name")?;
        self.expect_punct("(")?;
        let mut params = vec![];
        if !self.eat_punct(")") {
            loop {
                let p = self.name("a parameter name")?;
                if params.contains(&p) {
                    return self.err(&format!("parameter `{p}` is declared twice"));
                }
                params.push(p);
                if self.eat_punct(")") {
                    break;
                }
                self.expect_punct(",")?;
            }
        }
        self.skip_newlines();
        let body = self.block()?;
        Ok(Method { name, params, body, line })
    }

    // ===== statements =====

    /// Runs `f` one nesting level deeper; past [`MAX_NESTING`] levels, an error at the
    /// current token instead of a stack overflow.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_NESTING {
            return self.err(&format!("nested deeper than {MAX_NESTING} levels (blocks, parentheses, `!` or `-`); racefuzz programs are small"));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn block(&mut self) -> PResult<Block> {
        self.nested(Self::block_inner)
    }

    fn block_inner(&mut self) -> PResult<Block> {
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

    fn stmt(&mut self) -> PResult<Stmt> {
        let line = Line(self.pos().line);
        let kind = self.stmt_kind()?;
        Ok(Stmt { kind, line })
    }

    fn stmt_kind(&mut self) -> PResult<StmtKind> {
        let Tok::Ident(word) = self.peek().clone() else {
            return self.expected("a statement");
        };
        if KEYWORDS.contains(&word.as_str()) && matches!(self.peek_at(1), Tok::Punct("=") | Tok::Punct("<-")) {
            return self.err(&format!("`{word}` is a keyword and cannot be assigned"));
        }
        match word.as_str() {
            "skip" => {
                self.bump();
                Ok(StmtKind::Skip)
            }
            "lock" | "unlock" => {
                self.bump();
                if self.eat_punct("(") {
                    self.expect_punct(")")?;
                }
                Ok(if word == "lock" { StmtKind::Lock } else { StmtKind::Unlock })
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
            "sync" => {
                self.bump();
                let lock = self.paren_name("a lock variable")?;
                Ok(StmtKind::Sync { lock, body: self.block()? })
            }
            "break" => {
                if self.loop_depth == 0 {
                    return self.err("`break` outside a loop");
                }
                self.bump();
                Ok(StmtKind::Break)
            }
            "if" => self.if_stmt(),
            "while" => {
                self.bump();
                let label = self.label()?;
                let cond = self.cond()?;
                Ok(StmtKind::While { label, cond, body: self.loop_body()? })
            }
            "loop" => {
                self.bump();
                let label = self.label()?;
                Ok(StmtKind::Loop { label, body: self.loop_body()? })
            }
            "return" => {
                self.bump();
                if matches!(self.peek(), Tok::Newline | Tok::Eof) || self.is_punct(";") || self.is_punct("}") {
                    Ok(StmtKind::Return(None))
                } else {
                    Ok(StmtKind::Return(Some(self.expr()?)))
                }
            }
            "fork" => {
                self.bump();
                Ok(StmtKind::Fork { dst: None, target: self.fork_target()? })
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
            _ => self.simple(),
        }
    }

    fn loop_body(&mut self) -> PResult<Block> {
        self.loop_depth += 1;
        let b = self.block();
        self.loop_depth -= 1;
        b
    }

    fn if_stmt(&mut self) -> PResult<StmtKind> {
        self.bump(); // `if`
        let cond = self.cond()?;
        if self.is_kw("break") {
            let line = Line(self.pos().line);
            let brk = self.stmt()?;
            debug_assert_eq!(brk.kind, StmtKind::Break);
            return Ok(StmtKind::If { cond, then_b: vec![Stmt { kind: StmtKind::Break, line }], else_b: vec![] });
        }
        let then_b = self.block()?;
        // `else` may follow on the next line.
        let save = self.i;
        self.skip_newlines();
        let else_b = if self.eat_kw("else") {
            if self.is_kw("if") {
                let line = Line(self.pos().line);
                let nested = self.if_stmt()?;
                vec![Stmt { kind: nested, line }]
            } else {
                self.block()?
            }
        } else {
            self.i = save;
            vec![]
        };
        Ok(StmtKind::If { cond, then_b, else_b })
    }

    fn cond(&mut self) -> PResult<Cond> {
        if self.eat_punct("*") {
            Ok(Cond::Star)
        } else {
            Ok(Cond::Expr(self.expr()?))
        }
    }

    fn fork_target(&mut self) -> PResult<ForkTarget> {
        if self.is_punct("{") {
            return Ok(ForkTarget::Block(self.block()?));
        }
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

    fn args(&mut self) -> PResult<Vec<Expr>> {
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
    fn arg(&mut self) -> PResult<Expr> {
        if matches!(self.peek(), Tok::Ident(_)) && matches!(self.peek_at(1), Tok::Punct(".") | Tok::Punct("[")) {
            return Ok(Expr::Path(Box::new(self.place()?)));
        }
        self.expr()
    }

    fn check(&mut self) -> PResult<StmtKind> {
        self.bump(); // `check`
        self.expect_punct("(")?;
        let mut items = vec![];
        let mut kind: Option<AccessKind> = None;
        loop {
            if let (Tok::Ident(k), Tok::Punct(":")) = (self.peek().clone(), self.peek_at(1).clone()) {
                kind = match k.as_str() {
                    "R" => Some(AccessKind::Read),
                    "W" => Some(AccessKind::Write),
                    _ => return self.err(&format!("check kind must be `R` or `W`, found `{k}`")),
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

    fn check_target(&mut self) -> PResult<CheckTarget> {
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
                        _ => return self.err("a stride must be an integer literal ≥ 1 (spec/bigfoot.md A14)"),
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
    fn simple(&mut self) -> PResult<StmtKind> {
        let start = self.i;
        let first = self.name("a statement")?;
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
        if self.is_punct(".") || self.is_punct("[") {
            self.i = start;
            let dst = self.place()?;
            self.expect_punct("=")?;
            let src = self.expr()?;
            return Ok(StmtKind::Store { dst, src });
        }
        if !self.eat_punct("=") {
            return self.expected("`=`, `<-`, `(`, `.` or `[` after a variable");
        }
        self.rhs(first)
    }

    fn rhs(&mut self, dst: String) -> PResult<StmtKind> {
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
        if self.eat_kw("fork") {
            return Ok(StmtKind::Fork { dst: Some(dst), target: self.fork_target()? });
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
                Tok::Punct(".") | Tok::Punct("[") => {
                    let src = self.place()?;
                    if self.binop().is_some() {
                        return self.err(ANF_MSG);
                    }
                    return Ok(StmtKind::Load { dst, src });
                }
                _ => {}
            }
        }
        Ok(StmtKind::Assign { dst, src: self.expr()? })
    }

    fn place(&mut self) -> PResult<Place> {
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
            return self.err("an index must apply to a variable (`x[i]`); load the array into a local first");
        }
        Ok(Place::Field { base, fields })
    }

    // ===== expressions (access-free) =====

    fn expr(&mut self) -> PResult<Expr> {
        self.binary(1)
    }

    fn binop(&self) -> Option<BinOp> {
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

    fn binary(&mut self, min_prec: u8) -> PResult<Expr> {
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

    fn unary(&mut self) -> PResult<Expr> {
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

    fn atom(&mut self) -> PResult<Expr> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep_blocks = format!("dialect bfj\nthread {{ {} skip {} }}\n", "if * { ".repeat(10_000), "} ".repeat(10_000));
        let deep_parens = format!("dialect bfj\nthread {{ x = {}1 }}\n", "(".repeat(100_000));
        let deep_nots = format!("dialect bfj\nthread {{ x = {}true }}\n", "! ".repeat(100_000));
        for src in [deep_blocks, deep_parens, deep_nots] {
            let e = parse(&src).unwrap_err();
            assert!(e.to_string().contains("nested deeper than 256 levels"), "{e}");
        }
        // Up to the limit is fine.
        let ok = format!("dialect bfj\nthread {{ {} skip {} }}\n", "if * { ".repeat(200), "} ".repeat(200));
        assert!(parse(&ok).is_ok());
    }

    #[test]
    fn design_sketches_parse() {
        let a = "// Dodo\ndialect racerdx\nmethod zap(arg1) { lock; t = arg1.dee; unlock }\nmethod zup(arg1) { y = new; arg1.dee = y }\n";
        let p = parse(a).unwrap();
        assert_eq!(p.methods.len(), 2);
        let b = "dialect racerdx\nmethod helper(arg1, arg2) { v = new; arg1.f = v; t = arg2.g.h }\nmethod caller(arg1) {\n  if * { lock; helper(arg1, arg1.g); unlock } else { skip }\n  while * { x = arg1.g; arg1.h = x }\n}\n";
        let p = parse(b).unwrap();
        assert_eq!(p.methods[1].body.len(), 2);
        let c = "dialect bfj\nclass Cell { fields f, g }\ninit { b = new Cell; m = new Cell; a = new_array 4 }\nthread { acq(m); t = b.f; rel(m); b.f = t; i = 0; loop { a[i] = t; i = i + 1; if i >= 4 break } }\nthread { acq(m); b.f = m; rel(m) }\n";
        let p = parse(c).unwrap();
        assert_eq!(p.threads.len(), 2);
    }

    #[test]
    fn errors_have_positions() {
        let e = parse("dialect racerdx\nmethod m(a) { t = a.f + 1 }").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (2, 23));
        assert!(e.message.contains("heap access inside an expression"));
        let e = parse("dialect nope").unwrap_err();
        assert!(e.message.contains("unknown dialect"));
        let e = parse("dialect bfj\nthread { break }").unwrap_err();
        assert!(e.message.contains("outside a loop"));
    }
}
