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

#[path = "parse_expr.rs"]
mod expr;
#[path = "parse_stmt.rs"]
mod stmt;

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

pub(super) const KEYWORDS: &[&str] = &[
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

pub(super) const ANF_MSG: &str = "a heap access inside an expression; load it into a local first (`t = x.f`), so that each statement makes at most one access";

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

pub(super) struct Parser<'s> {
    pub(super) src: &'s str,
    pub(super) toks: Vec<Token>,
    pub(super) i: usize,
    pub(super) loop_depth: u32,
    /// Current nesting of blocks and of unary and parenthesized expressions; at most
    /// [`MAX_NESTING`].
    pub(super) depth: u32,
}

pub(super) type PResult<T> = Result<T, ParseError>;

impl Parser<'_> {
    // ===== token helpers =====

    pub(super) fn peek(&self) -> &Tok {
        &self.toks[self.i.min(self.toks.len() - 1)].tok
    }

    pub(super) fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].tok
    }

    pub(super) fn pos(&self) -> Pos {
        self.toks[self.i.min(self.toks.len() - 1)].pos
    }

    pub(super) fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
        t
    }

    pub(super) fn err<T>(&self, msg: &str) -> PResult<T> {
        Err(ParseError::at(self.src, self.pos(), msg))
    }

    pub(super) fn expected<T>(&self, what: &str) -> PResult<T> {
        self.err(&format!("expected {what}, found {}", self.peek().describe()))
    }

    pub(super) fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }

    pub(super) fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == k)
    }

    pub(super) fn eat_punct(&mut self, p: &str) -> bool {
        let yes = self.is_punct(p);
        if yes {
            self.bump();
        }
        yes
    }

    pub(super) fn eat_kw(&mut self, k: &str) -> bool {
        let yes = self.is_kw(k);
        if yes {
            self.bump();
        }
        yes
    }

    pub(super) fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.expected(&format!("`{p}`"))
        }
    }

    pub(super) fn skip_newlines(&mut self) {
        while *self.peek() == Tok::Newline {
            self.bump();
        }
    }

    pub(super) fn name(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(s) if !KEYWORDS.contains(&s.as_str()) => {
                self.bump();
                Ok(s)
            }
            Tok::Ident(s) => self.err(&format!("`{s}` is a keyword and cannot be used as {what}")),
            _ => self.expected(what),
        }
    }

    pub(super) fn paren_name(&mut self, what: &str) -> PResult<String> {
        self.expect_punct("(")?;
        let n = self.name(what)?;
        self.expect_punct(")")?;
        Ok(n)
    }

    pub(super) fn label(&mut self) -> PResult<Option<String>> {
        if self.eat_punct("@") {
            Ok(Some(self.name("a label")?))
        } else {
            Ok(None)
        }
    }

    // ===== items =====

    pub(super) fn program(&mut self) -> PResult<Program> {
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

    pub(super) fn class(&mut self) -> PResult<Class> {
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

    pub(super) fn method(&mut self) -> PResult<Method> {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    pub(super) fn deep_nesting_is_an_error_not_a_crash() {
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
    pub(super) fn design_sketches_parse() {
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
    pub(super) fn errors_have_positions() {
        let e = parse("dialect racerdx\nmethod m(a) { t = a.f + 1 }").unwrap_err();
        assert_eq!((e.pos.line, e.pos.col), (2, 23));
        assert!(e.message.contains("heap access inside an expression"));
        let e = parse("dialect nope").unwrap_err();
        assert!(e.message.contains("unknown dialect"));
        let e = parse("dialect bfj\nthread { break }").unwrap_err();
        assert!(e.message.contains("outside a loop"));
    }
}
