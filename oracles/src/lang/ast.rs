//! The `.race` intermediate representation: one AST for the union of the papers' languages.
//!
//! The IR covers RacerDX's IL (spec/racerdx.md §1.1: paths as actuals, the global reentrant
//! lock, `*` control), BFJ (spec/bigfoot.md §2.1: classes, arrays with strided ranges,
//! per-object locks, `check`, renaming, do-while loops), SimpleJava and CapJava
//! (spec/escape_capsule.md §2, §7: `fork`, methods on objects, `capsule` classes), and leaves
//! room for L-DRF (`assume`/`assert`, spec/ldrf.md) and Naik-Aiken (allocation-site and loop
//! labels, `sync` blocks, `fork { .. }`, spec/naik_aiken.md §4.1).
//!
//! Invariants (established by the parser, relied on by the machine):
//! - a heap access appears only as a whole statement (`x = p` or `p = e`): expressions are
//!   access-free except call actuals, which may be RacerDX paths (evaluated without an access
//!   event, as `push(ē)` is no access in Def. 3.6);
//! - `Line` compares honestly (its `Eq`, `Hash` and `Ord` agree), so statements and
//!   programs at other lines differ; compare programs modulo positions with
//!   [`Program::without_lines`] (`parse(print(p)).without_lines() == p.without_lines()`).

use std::fmt;

/// The subset of `.race` one paper's theorem is about; see `lang::dialect` for the validators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// RacerDX's IL (seed 000, spec/racerdx.md).
    RacerDx,
    /// BigFoot's BFJ (seed 003 ch. 3, spec/bigfoot.md).
    Bfj,
    /// BFJ tier 2 (spec/bigfoot.md A2): BFJ with `fork` and `join`, whose happens-before
    /// edges (fork → child, child → join) every precise detector must honour. Outside
    /// BigFoot's Theorem 3.9.4, so only the detector and explorer oracles judge it.
    Bfj2,
    /// SimpleJava / EscapeJava (seed 003 ch. 4, spec/escape_capsule.md §2).
    SimpleJava,
    /// CapJava (seed 003 ch. 5, spec/escape_capsule.md §7).
    CapJava,
    /// Naik-Aiken's WHILE language with threads (seed 002, spec/naik_aiken.md §4.1).
    NaikAiken,
    /// The L-DRF paper's language: shared integers, named locks (seed 004, spec/ldrf.md §1.1).
    Ldrf,
}

impl Dialect {
    /// Every dialect, in the order they are documented.
    pub const ALL: [Dialect; 7] = [Dialect::RacerDx, Dialect::Bfj, Dialect::Bfj2, Dialect::SimpleJava, Dialect::CapJava, Dialect::NaikAiken, Dialect::Ldrf];

    /// The keyword used on a `dialect` line.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::RacerDx => "racerdx",
            Dialect::Bfj => "bfj",
            Dialect::Bfj2 => "bfj2",
            Dialect::SimpleJava => "simplejava",
            Dialect::CapJava => "capjava",
            Dialect::NaikAiken => "naikaiken",
            Dialect::Ldrf => "ldrf",
        }
    }

    /// Whether every program of `other` is a program of `self`: a dialect contains
    /// itself, and tier-2 BFJ (`bfj2`) contains BFJ, whose programs are `bfj2` programs
    /// without fork/join. An oracle of dialect `self` judges programs of every `other` it
    /// contains, so `bfj` regressions stay valid for the `bfj2` oracles.
    pub fn contains(self, other: Dialect) -> bool {
        self == other || (self == Dialect::Bfj2 && other == Dialect::Bfj)
    }

    /// Parses a dialect keyword.
    pub fn from_name(s: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.name() == s)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A source line (1-based; 0 for a statement built, not parsed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Line(pub u32);

/// A whole `.race` program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The dialect named on the `dialect` line.
    pub dialect: Dialect,
    /// Class declarations (BFJ, SimpleJava, CapJava).
    pub classes: Vec<Class>,
    /// Top-level methods (RacerDX methods; BFJ static helpers).
    pub methods: Vec<Method>,
    /// The `init` block that builds the initial heap; its locals become every thread's
    /// initial locals (BFJ's shared free variables, spec/bigfoot.md §2.3).
    pub init: Option<Block>,
    /// The threads started together after `init`.
    pub threads: Vec<Block>,
    /// `regions { x, y }` declarations (ldrf, spec/ldrf.md §3): each is one region of a
    /// partition of the shared variables; a variable in none is a region of its own.
    pub regions: Vec<Vec<String>>,
}

impl Program {
    /// Finds a top-level method by name.
    pub fn method(&self, name: &str) -> Option<&Method> {
        self.methods.iter().find(|m| m.name == name)
    }

    /// Finds a class by name.
    pub fn class(&self, name: &str) -> Option<&Class> {
        self.classes.iter().find(|c| c.name == name)
    }

    /// Every method with the class that declares it (`None` for top-level methods).
    pub fn all_methods(&self) -> impl Iterator<Item = (Option<&Class>, &Method)> {
        self.methods.iter().map(|m| (None, m)).chain(self.classes.iter().flat_map(|c| c.methods.iter().map(move |m| (Some(c), m))))
    }
}

/// `[capsule] class C { fields f, g; method m(..) {..} }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    /// Class name.
    pub name: String,
    /// CapJava's `capsule` annotation.
    pub capsule: bool,
    /// Field names.
    pub fields: Vec<String>,
    /// Methods; names are globally unique (BFJ A11), so lookup needs no dispatch.
    pub methods: Vec<Method>,
    /// Where the class starts.
    pub line: Line,
}

/// `method m(x1, .., xn) { body }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    /// Method name.
    pub name: String,
    /// Formal parameters.
    pub params: Vec<String>,
    /// The body.
    pub body: Block,
    /// Where the method starts.
    pub line: Line,
}

/// A sequence of statements.
pub type Block = Vec<Stmt>;

/// One statement with its source line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    /// What the statement does.
    pub kind: StmtKind,
    /// Source line; ignored by equality.
    pub line: Line,
}

/// Read or write, for accesses and checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum AccessKind {
    /// A read (`R`).
    #[serde(rename = "R")]
    Read,
    /// A write (`W`).
    #[serde(rename = "W")]
    Write,
}

impl AccessKind {
    /// `R` or `W`.
    pub fn letter(self) -> &'static str {
        match self {
            AccessKind::Read => "R",
            AccessKind::Write => "W",
        }
    }
}

/// The statements of the unified IR.
// Variant fields are named after the concrete syntax the variant's doc shows.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// `skip`
    Skip,
    /// `x = e` with an access-free expression.
    Assign { dst: String, src: Expr },
    /// `x <- y`: BFJ renaming (spec/bigfoot.md §4.6); dynamically a copy.
    Rename { dst: String, src: String },
    /// `x = new [C] [@site]`. Without a class: RacerDX's single class (or an empty object).
    New { dst: String, class: Option<String>, site: Option<String> },
    /// `x = new_array e`: an array whose length is the value of `e`.
    NewArray { dst: String, len: Expr },
    /// `x = p`: a read access.
    Load { dst: String, src: Place },
    /// `read p`: a read access whose value is dropped (Naik-Aiken, spec/naik_aiken.md §4.1).
    Read(Place),
    /// `x[+] = y`: appends `y` to the container `x` (Naik-Aiken's arrays, spec §4.1 [C]).
    Append { array: String, src: String },
    /// `x = y[*]`: any element stored in the container `y`.
    Pick { dst: String, array: String },
    /// `x = nondet{lo..hi}`: any integer from `lo` to `hi`, both included (L-DRF, spec/ldrf.md §1.1).
    Nondet { dst: String, lo: i64, hi: i64 },
    /// `p = e`: a write access; `e` is access-free.
    Store { dst: Place, src: Expr },
    /// `lock`: RacerDX's single global reentrant lock.
    Lock,
    /// `unlock`
    Unlock,
    /// `acq(x)`: acquire the lock of the object in `x`.
    Acq(String),
    /// `rel(x)`
    Rel(String),
    /// `sync(x) { body }`: lexically scoped acquire/release of `x`'s lock.
    Sync { lock: String, body: Block },
    /// `if c { .. } else { .. }`; `if e break` is `If { then: [Break] }`.
    If { cond: Cond, then_b: Block, else_b: Block },
    /// `while [@w] c { body }`
    While { label: Option<String>, cond: Cond, body: Block },
    /// `loop [@w] { body }`: exits only through `break`.
    Loop { label: Option<String>, body: Block },
    /// `break` out of the innermost loop.
    Break,
    /// `[x =] [y.]m(args)`.
    Call { dst: Option<String>, recv: Option<String>, method: String, args: Vec<Expr> },
    /// `return [e]`
    Return(Option<Expr>),
    /// `[h =] fork y.m(args)` / `fork m(args)` / `fork { .. }` (the child copies the locals).
    Fork { dst: Option<String>, target: ForkTarget },
    /// `join(h)`: wait for the thread whose handle is in `h`.
    Join(String),
    /// `check(R: p, ..; W: p, ..)`: explicit race checks (BFJ).
    Check(Vec<CheckItem>),
    /// `assume e`: executions where `e` is false are infeasible.
    Assume(Expr),
    /// `assert e`: a false `e` makes the thread stuck with an assertion failure.
    Assert(Expr),
}

/// What a `fork` runs.
// Variant fields are named after the concrete syntax the variant's doc shows.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForkTarget {
    /// A method call run by the new thread (`fork x` is `fork x.run()`).
    Call { recv: Option<String>, method: String, args: Vec<Expr> },
    /// `fork { .. }` or `fork(x) { .. }`: an inline block; the child starts with a copy of
    /// the parent's locals, and with `fork(x)` also `self`, the thread object `x` holds
    /// (Naik-Aiken, spec/naik_aiken.md §4.1).
    Block { this: Option<String>, body: Block },
}

/// A branch or loop condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cond {
    /// `*`: nondeterministic choice.
    Star,
    /// A boolean expression.
    Expr(Expr),
}

/// A heap location designator: `x.f1.….fn` (n ≥ 1) or `x[e]`.
// Variant fields are named after the concrete syntax the variant's doc shows.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    /// `base.f1.….fn`: prefixes are dereferenced without an access event (Def. 3.1/3.6).
    Field { base: String, fields: Vec<String> },
    /// `base[index]`
    Index { base: String, index: Expr },
}

/// Access-free expressions (plus paths as call actuals).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Expr {
    /// An integer literal.
    Int(i64),
    /// `true` / `false`
    Bool(bool),
    /// `null`
    Null,
    /// A variable.
    Var(String),
    /// A path, only as a call actual (RacerDX).
    Path(Box<Place>),
    /// `!e` / `-e`
    Unary(UnOp, Box<Expr>),
    /// `e op e`
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnOp {
    /// `!`
    Not,
    /// `-`
    Neg,
}

/// Binary operators, loosest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `%`
    Rem,
}

impl BinOp {
    /// Concrete syntax.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Or => "||",
            BinOp::And => "&&",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Rem => "%",
        }
    }

    /// Binding strength; larger binds tighter.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => 3,
            BinOp::Add | BinOp::Sub => 4,
            BinOp::Mul | BinOp::Rem => 5,
        }
    }
}

/// One path of a `check`, with its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckItem {
    /// `R` or `W`.
    pub kind: AccessKind,
    /// What is checked.
    pub target: CheckTarget,
}

/// Check paths (spec/bigfoot.md §2.1 \[C\]).
// Variant fields are named after the concrete syntax the variant's doc shows.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckTarget {
    /// `x.f` or the coalesced field path `x.f1/f2/…/fn` (same as checking each, A24).
    Fields { base: String, fields: Vec<String> },
    /// `x[lo]` (singleton), `x[lo..hi]` or `x[lo..hi:stride]`: `{lo + i·k | lo ≤ lo + i·k < hi}`.
    Range { base: String, lo: Expr, hi: Option<Expr>, stride: Option<i64> },
}

impl Expr {
    /// Calls `f` on every variable the expression reads.
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            Expr::Int(_) | Expr::Bool(_) | Expr::Null => {}
            Expr::Var(v) => f(v),
            Expr::Path(p) => p.for_each_var(f),
            Expr::Unary(_, e) => e.for_each_var(f),
            Expr::Binary(_, a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
        }
    }
}

impl CheckTarget {
    /// Calls `f` on every variable the check reads (its designator and bounds).
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            CheckTarget::Fields { base, .. } => f(base),
            CheckTarget::Range { base, lo, hi, .. } => {
                f(base);
                lo.for_each_var(f);
                if let Some(h) = hi {
                    h.for_each_var(f);
                }
            }
        }
    }
}

impl Place {
    /// The root variable.
    pub fn base(&self) -> &str {
        match self {
            Place::Field { base, .. } | Place::Index { base, .. } => base,
        }
    }

    /// Calls `f` on every variable the place reads (its root and index).
    pub fn for_each_var<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        f(self.base());
        if let Place::Index { index, .. } = self {
            index.for_each_var(f);
        }
    }
}

/// Calls `f` on every statement of `block`, nested ones included, in source order.
pub fn walk_block<'a>(block: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in block {
        f(s);
        for b in s.kind.sub_blocks() {
            walk_block(b, f);
        }
    }
}

/// The variables the statements of `block` mention, nested ones included: in conditions,
/// operands and as the assigned variable (not lock names, not heap paths).
pub fn mentioned_vars(block: &[Stmt]) -> std::collections::BTreeSet<&str> {
    let mut vs = std::collections::BTreeSet::new();
    walk_block(block, &mut |s| {
        match &s.kind {
            StmtKind::Assign { src: e, .. }
            | StmtKind::Assume(e)
            | StmtKind::Assert(e)
            | StmtKind::If { cond: Cond::Expr(e), .. }
            | StmtKind::While { cond: Cond::Expr(e), .. } => e.for_each_var(&mut |v| {
                vs.insert(v);
            }),
            _ => {}
        }
        vs.extend(s.kind.assigned());
    });
    vs
}

impl Program {
    /// The program's field table: every field name its classes declare, its field paths
    /// access or pass, and its checks name, once each, sorted. The machine interns field
    /// `i` of this table as `FieldId(i)`, so a system under test that needs field ids
    /// before running (DynamicBF's proxy groups) takes them from here.
    pub fn field_names(&self) -> Vec<String> {
        let mut fields: Vec<String> = vec![];
        let mut add = |f: &str| {
            if !fields.iter().any(|g| g == f) {
                fields.push(f.to_string());
            }
        };
        for c in &self.classes {
            c.fields.iter().for_each(|f| add(f));
        }
        let mut bodies: Vec<&Block> = self.all_methods().map(|(_, m)| &m.body).collect();
        bodies.extend(self.init.iter());
        bodies.extend(self.threads.iter());
        for b in bodies {
            walk_block(b, &mut |s| {
                let mut place = |p: &Place| {
                    if let Place::Field { fields, .. } = p {
                        fields.iter().for_each(|f| add(f));
                    }
                };
                match &s.kind {
                    StmtKind::Load { src, .. } | StmtKind::Read(src) => place(src),
                    StmtKind::Store { dst, .. } => place(dst),
                    StmtKind::Call { args, .. } | StmtKind::Fork { target: ForkTarget::Call { args, .. }, .. } => args.iter().for_each(|a| {
                        if let Expr::Path(p) = a {
                            place(p)
                        }
                    }),
                    StmtKind::Check(items) => items.iter().for_each(|i| {
                        if let CheckTarget::Fields { fields, .. } = &i.target {
                            fields.iter().for_each(|f| add(f));
                        }
                    }),
                    _ => {}
                }
            });
        }
        fields.sort();
        fields
    }

    /// Whether some step reads the heap without an event of its own: a path of two or more
    /// fields reads its prefix (`x.f` of `x.f.g`), and a path actual reads its whole path
    /// (Def. 3.1/3.6: neither is an access). Mazurkiewicz classes read off the events
    /// (`explore::classes`) cannot see these reads; DPOR does (`explore::dpor`).
    pub fn reads_silently(&self) -> bool {
        let multi = |p: &Place| matches!(p, Place::Field { fields, .. } if fields.len() > 1);
        let mut found = false;
        let mut bodies: Vec<&Block> = self.all_methods().map(|(_, m)| &m.body).collect();
        bodies.extend(self.init.iter());
        bodies.extend(self.threads.iter());
        for b in bodies {
            walk_block(b, &mut |s| {
                found |= match &s.kind {
                    StmtKind::Load { src: p, .. } | StmtKind::Store { dst: p, .. } | StmtKind::Read(p) => multi(p),
                    StmtKind::Call { args, .. } | StmtKind::Fork { target: ForkTarget::Call { args, .. }, .. } => args.iter().any(|a| matches!(a, Expr::Path(_))),
                    StmtKind::Check(items) => items.iter().any(|i| matches!(&i.target, CheckTarget::Fields { fields, .. } if fields.len() > 1)),
                    _ => false,
                };
            });
        }
        found
    }

    /// The same program without its `check` statements: what a check placer starts from
    /// (spec/bigfoot.md §4: placement infers every check).
    #[must_use]
    pub fn without_checks(&self) -> Program {
        fn block(b: &mut Block) {
            b.retain(|s| !matches!(s.kind, StmtKind::Check(_)));
            for s in b {
                for sub in s.kind.sub_blocks_mut() {
                    block(sub);
                }
            }
        }
        let mut p = self.clone();
        for m in p.methods.iter_mut().chain(p.classes.iter_mut().flat_map(|c| c.methods.iter_mut())) {
            block(&mut m.body);
        }
        p.init.iter_mut().chain(p.threads.iter_mut()).for_each(block);
        p
    }

    /// The same program with every line set to 0: compare two programs modulo source
    /// positions (the printer/parser round trip) with `a.without_lines() == b.without_lines()`.
    #[must_use]
    pub fn without_lines(&self) -> Program {
        fn block(b: &mut Block) {
            for s in b {
                s.line = Line(0);
                for sub in s.kind.sub_blocks_mut() {
                    block(sub);
                }
            }
        }
        let mut p = self.clone();
        for m in p.methods.iter_mut().chain(p.classes.iter_mut().flat_map(|c| c.methods.iter_mut())) {
            m.line = Line(0);
            block(&mut m.body);
        }
        for c in &mut p.classes {
            c.line = Line(0);
        }
        p.init.iter_mut().chain(p.threads.iter_mut()).for_each(block);
        p
    }
}

impl StmtKind {
    /// The variable the statement assigns, if any (`x` of `x = e`, `x <- y`, `x = new …`,
    /// `x = p`, `x = y.m(…)`).
    pub fn assigned(&self) -> Option<&str> {
        match self {
            StmtKind::Assign { dst, .. }
            | StmtKind::Rename { dst, .. }
            | StmtKind::New { dst, .. }
            | StmtKind::NewArray { dst, .. }
            | StmtKind::Load { dst, .. }
            | StmtKind::Pick { dst, .. }
            | StmtKind::Nondet { dst, .. } => Some(dst),
            StmtKind::Call { dst: Some(dst), .. } => Some(dst),
            _ => None,
        }
    }

    /// The nested blocks of a compound statement, mutably.
    pub fn sub_blocks_mut(&mut self) -> Vec<&mut Block> {
        match self {
            StmtKind::Sync { body, .. } | StmtKind::While { body, .. } | StmtKind::Loop { body, .. } => vec![body],
            StmtKind::If { then_b, else_b, .. } => vec![then_b, else_b],
            StmtKind::Fork { target: ForkTarget::Block { body, .. }, .. } => vec![body],
            _ => vec![],
        }
    }

    /// The nested blocks of a compound statement.
    pub fn sub_blocks(&self) -> Vec<&Block> {
        match self {
            StmtKind::Sync { body, .. } | StmtKind::While { body, .. } | StmtKind::Loop { body, .. } => vec![body],
            StmtKind::If { then_b, else_b, .. } => vec![then_b, else_b],
            StmtKind::Fork { target: ForkTarget::Block { body, .. }, .. } => vec![body],
            _ => vec![],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    #[test]
    fn lines_count_in_equality_and_without_lines_forgets_them() {
        let a = parse("dialect bfj\nclass C { fields f; method m() { skip } }\nthread { if * { skip } }\n").unwrap();
        let b = parse("dialect bfj\n\nclass C { fields f\n method m() {\n skip } }\nthread {\n if * {\n skip } }\n").unwrap();
        assert_ne!(a, b, "the same program at other lines");
        assert_ne!(a.threads[0][0], b.threads[0][0]);
        assert_eq!(a.without_lines(), b.without_lines());
        let bare = a.without_lines();
        let mut lines = vec![bare.classes[0].line, bare.classes[0].methods[0].line];
        walk_block(&bare.threads[0], &mut |s| lines.push(s.line));
        assert_eq!(lines, [Line(0); 4]);
        assert_ne!(a.without_lines(), parse("dialect bfj\nclass C { fields f; method m() { skip } }\nthread { if * { skip } else { skip } }\n").unwrap().without_lines());
    }
}
