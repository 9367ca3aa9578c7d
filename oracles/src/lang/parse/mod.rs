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
//!           | x = place.load(o) | place.store(e, o) | x = place.fetch_add(e, o)
//!           | x = place.xchg(e, o) | x = place.cas(e, e, o, o) | fence(o)   (place a field path)
//! cond     := "*" | e        place := x.f(.f)* | x[e]
//! o        := relaxed | consume | acquire | release | acq_rel | seq_cst   (docs/spec/atomics.md §1.1)
//! cpath    := x.f(/f)* | x[e] | x[e..e] | x[e..e:k]
//! ```

use std::fmt;

use super::ast::*;
use super::lexer::{lex, Tok, Token};

mod atomic;
mod expr;
mod item;
mod stmt;

/// A 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

/// What kind of syntax error a [`ParseError`] is. The message says the details (what was
/// expected, which name); the kind is what a program matches on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A character that starts no token.
    UnexpectedChar,
    /// An integer literal that does not fit in 64 bits.
    IntegerTooLarge,
    /// A token the grammar does not allow here (the message says what it expected).
    Unexpected,
    /// A `dialect` line naming no known dialect.
    UnknownDialect,
    /// A name declared twice in one scope (class, method, field, parameter), or a second
    /// `init` block.
    Duplicate,
    /// A keyword where a name is needed.
    Keyword,
    /// A form the language does not have: a heap access inside an expression (a statement
    /// makes at most one access), an index on a field path, `read` of an element.
    Form,
    /// `break` outside a loop.
    BreakOutsideLoop,
    /// A literal out of its range: a stride below 1, an empty `nondet` range.
    OutOfRange,
    /// Nesting deeper than [`MAX_NESTING`].
    TooDeep,
}

/// A syntax error: its kind, its message, where (the span: line and column of the first
/// character it is about), and the offending source line for the caret.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    kind: ParseErrorKind,
    message: String,
    pos: Pos,
    source_line: String,
}

impl ParseError {
    pub(crate) fn at(src: &str, pos: Pos, kind: ParseErrorKind, message: &str) -> ParseError {
        let source_line = src.lines().nth(pos.line.saturating_sub(1) as usize).unwrap_or("").to_string();
        ParseError { kind, message: message.to_string(), pos, source_line }
    }

    /// What kind of error it is.
    pub fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// What went wrong, without the position (the first line of [`ParseError::render`]
    /// after `error: `).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Where: the line and column (1-based) the caret points at.
    pub fn pos(&self) -> Pos {
        self.pos
    }

    /// The source line at [`ParseError::pos`].
    pub fn source_line(&self) -> &str {
        &self.source_line
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
    "regions",
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
    "read",
    "fence",
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
    /// Runs `f` one nesting level deeper; past [`MAX_NESTING`] levels, an error at the
    /// current token instead of a stack overflow.
    pub(super) fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.check_nesting(self.depth + 1, self.pos())?;
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// An error at `pos` if `level` is past [`MAX_NESTING`].
    pub(super) fn check_nesting(&self, level: u32, pos: Pos) -> PResult<()> {
        if level > MAX_NESTING {
            return Err(ParseError::at(
                self.src,
                pos,
                ParseErrorKind::TooDeep,
                &format!("nested deeper than {MAX_NESTING} levels (blocks, parentheses, `!` or `-`); racefuzz programs are small"),
            ));
        }
        Ok(())
    }

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

    pub(super) fn err<T>(&self, kind: ParseErrorKind, msg: &str) -> PResult<T> {
        Err(ParseError::at(self.src, self.pos(), kind, msg))
    }

    pub(super) fn expected<T>(&self, what: &str) -> PResult<T> {
        self.err(ParseErrorKind::Unexpected, &format!("expected {what}, found {}", self.peek().describe()))
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
            Tok::Ident(s) => self.err(ParseErrorKind::Keyword, &format!("`{s}` is a keyword and cannot be used as {what}")),
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::print;

    fn nesting_error(src: &str) -> Option<(u32, u32)> {
        let e = parse(src).err()?;
        assert_eq!(e.kind(), ParseErrorKind::TooDeep);
        assert_eq!(e.message(), "nested deeper than 256 levels (blocks, parentheses, `!` or `-`); racefuzz programs are small");
        Some((e.pos().line, e.pos().col))
    }

    /// Each kind, from an input that causes it; the message is what `racefuzz` prints after
    /// `error: `, and the position is where the caret points.
    #[test]
    fn each_error_has_its_kind() {
        use ParseErrorKind::*;
        let cases = [
            ("thread { x = 1 ~ }", UnexpectedChar, "unexpected character `~`", 16),
            ("thread { x = 99999999999999999999 }", IntegerTooLarge, "integer literal too large", 14),
            ("thread { x = }", Unexpected, "expected an expression, found `}`", 14),
            ("class C { fields f, f }", Duplicate, "field `f` is declared twice", 23),
            ("thread { new = 1 }", Keyword, "`new` is a keyword and cannot be assigned", 10),
            ("thread { x = y.f + 1 }", Form, ANF_MSG, 18),
            ("thread { x.f[1] = 2 }", Form, "an index must apply to a variable (`x[i]`); load the array into a local first", 13),
            ("thread { break }", BreakOutsideLoop, "`break` outside a loop", 10),
            ("thread { x = nondet{3..1} }", OutOfRange, "`nondet{3..1}` is empty", 27),
            ("thread { check(W: a[0..4:0]) }", OutOfRange, "a stride must be an integer literal ≥ 1 (spec/bigfoot.md A14)", 27),
        ];
        for (body, kind, message, col) in cases {
            let e = parse(&format!("dialect bfj\n{body}\n")).unwrap_err();
            assert_eq!((e.kind(), e.message(), e.pos(), e.source_line()), (kind, message, Pos { line: 2, col }, body), "{body}");
        }
        let e = parse("dialect nope\n").unwrap_err();
        assert_eq!((e.kind(), e.pos()), (UnknownDialect, Pos { line: 1, col: 9 }));
    }

    /// Runs on the normal test thread: the limit must hold before the stack runs out.
    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let blocks = |n: usize| format!("dialect bfj\nthread {{ {}skip {}}}\n", "if * { ".repeat(n), "} ".repeat(n));
        // The thread's block is level 1; the 256th `if`'s block would be level 257.
        assert_eq!(nesting_error(&blocks(255)), None);
        assert_eq!(nesting_error(&blocks(256)), Some((2, 15 + 7 * 255)));
        assert_eq!(nesting_error(&blocks(10_000)), Some((2, 15 + 7 * 255)));
        let parens = |n: usize| format!("dialect bfj\nthread {{ x = {}1{} }}\n", "(".repeat(n), ")".repeat(n));
        assert_eq!(nesting_error(&parens(255)), None);
        assert_eq!(nesting_error(&parens(100_000)), Some((2, 14 + 255)), "at the 256th `(`, level 257");
        let nots = format!("dialect bfj\nthread {{ x = {}true }}\n", "! ".repeat(100_000));
        assert_eq!(nesting_error(&nots), Some((2, 14 + 2 * 255)));
        let negs = format!("dialect bfj\nthread {{ x = {}y }}\n", "- ".repeat(100_000));
        assert_eq!(nesting_error(&negs), Some((2, 14 + 2 * 255)));
        let else_ifs = format!("dialect bfj\nthread {{ if * {{ skip }}{} }}\n", " else if * { skip }".repeat(10_000));
        assert!(nesting_error(&else_ifs).is_some());
        let forks = format!("dialect bfj\nthread {{ {}skip{} }}\n", "fork { ".repeat(10_000), " }".repeat(10_000));
        assert!(nesting_error(&forks).is_some());
    }

    #[test]
    fn long_operator_chains_are_deep_trees_and_count_as_nesting() {
        let chain = |n: usize| format!("dialect bfj\nthread {{ x = 1{} }}\n", " + 1".repeat(n));
        // `((1 + 1) + 1) + …` as printed: n operators nest n - 1 levels inside the thread's block.
        assert_eq!(nesting_error(&chain(256)), None);
        assert_eq!(nesting_error(&chain(257)), Some((2, 16 + 4 * 256)), "at the 257th `+`");
        assert_eq!(nesting_error(&chain(100_000)), Some((2, 16 + 4 * 256)));
        // `!!x` prints as `!(!x)`: each `!` after the first costs two levels.
        let nots = |n: usize| format!("dialect bfj\nthread {{ x = {}y }}\n", "!".repeat(n));
        assert_eq!(nesting_error(&nots(128)), None);
        assert_eq!(nesting_error(&nots(129)), Some((2, 15)), "the second `!`: it would print at level 257");
    }

    /// Whatever parses prints to text that parses to the same program, up to the limit.
    #[test]
    fn programs_at_the_nesting_limit_round_trip() {
        let deepest = [
            format!("dialect bfj\nthread {{ {}skip {}}}\n", "if * { ".repeat(255), "} ".repeat(255)),
            format!("dialect bfj\nthread {{ {}skip {}}}\n", "loop { ".repeat(254), "; if * break } ".repeat(254)),
            format!("dialect bfj\nthread {{ if * {{ skip }}{} }}\n", " else if * { skip }".repeat(254)),
            format!("dialect bfj\nthread {{ x = 1{} }}\n", " + 1".repeat(256)),
            format!("dialect bfj\nthread {{ x = {}y }}\n", "!".repeat(128)),
            format!("dialect bfj\nthread {{ x = {}1 }}\n", "- ".repeat(127)),
            format!("dialect bfj\nthread {{ x = {}1{} }}\n", "(-(".repeat(85), "))".repeat(85)),
        ];
        for src in deepest {
            let p = parse(&src).unwrap_or_else(|e| panic!("{e}"));
            let printed = print::print(&p);
            let q = parse(&printed).unwrap_or_else(|e| panic!("printed program does not parse: {e}"));
            assert_eq!(p.without_lines(), q.without_lines());
        }
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

    /// docs/spec/atomics.md §1.1: exactly that syntax, orders in full, `consume` read and
    /// printed as `acquire`; the canonical text prints back to itself.
    #[test]
    fn atomics_parse_and_print_in_the_specs_syntax() {
        let stmts = [
            "r = x.f.load(relaxed)",
            "x.f.store(v + 1, release)",
            "r = x.f.g.fetch_add(1, acq_rel)",
            "r = x.f.xchg(null, seq_cst)",
            "ok = x.f.cas(0, 1, acquire, relaxed)",
            "fence(seq_cst)",
        ];
        for st in stmts {
            let src = format!("dialect bfj\nthread {{ {st} }}\n");
            let p = parse(&src).unwrap_or_else(|e| panic!("{st}: {e}"));
            assert!(matches!(p.threads[0][0].kind, StmtKind::Atomic(_)), "{st}");
            assert_eq!(print::stmt_to_string(&p.threads[0][0]), st);
        }
        let p = parse("dialect bfj\nthread { r = x.f.load(consume); fence(consume) }\n").unwrap();
        let printed: Vec<String> = p.threads[0].iter().map(print::stmt_to_string).collect();
        assert_eq!(printed, ["r = x.f.load(acquire)", "fence(acquire)"]);
        // A field may be called like an operation; only `.op(` makes an atomic.
        let p = parse("dialect bfj\nthread { x.load = 1; r = x.store.load(relaxed) }\n").unwrap();
        assert!(matches!(p.threads[0][0].kind, StmtKind::Store { .. }) && matches!(p.threads[0][1].kind, StmtKind::Atomic(_)));
    }

    #[test]
    fn malformed_atomics_are_syntax_errors() {
        let msg = |st: &str| parse(&format!("dialect bfj\nthread {{ {st} }}\n")).map(|_| ()).unwrap_err().message;
        assert_eq!(msg("r = x.f.load(rlx)"), "expected a memory order (`relaxed`, `consume`, `acquire`, `release`, `acq_rel` or `seq_cst`), found `rlx`");
        assert!(msg("r = x.f.store(1, relaxed)").starts_with("`store` returns nothing"));
        assert!(msg("x.f.load(relaxed)").starts_with("`load` returns a value"));
        assert!(msg("r = x.f.swap(1, relaxed)").starts_with("`.swap(..)` on a field"));
        assert!(msg("r = x.f.cas(0, 1, relaxed)").starts_with("expected `,`"));
        assert!(msg("fence()").starts_with("expected a memory order"));
        assert!(msg("fence = 1").contains("keyword"));
    }
}
