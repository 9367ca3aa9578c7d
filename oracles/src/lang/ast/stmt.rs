//! The statements of the `.race` IR (the union of the papers' commands: docs/spec/racerdx.md
//! §1.1, docs/spec/bigfoot.md §2.1, docs/spec/escape_capsule.md §2 and §7, docs/spec/naik_aiken.md §4.1,
//! docs/spec/ldrf.md §1.1), their conditions and BFJ's `check` paths.
//!
//! Invariant (established by the parser, relied on by the machine): a heap access appears
//! only as a whole statement (`x = p` or `p = e`).

use super::{Atomic, Expr, Line, Place};

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
    /// `x <- y`: BFJ renaming (docs/spec/bigfoot.md §4.6); dynamically a copy.
    Rename { dst: String, src: String },
    /// `x = new [C] [@site]`. Without a class: RacerDX's single class (or an empty object).
    New { dst: String, class: Option<String>, site: Option<String> },
    /// `x = new_array e`: an array whose length is the value of `e`.
    NewArray { dst: String, len: Expr },
    /// `x = p`: a read access.
    Load { dst: String, src: Place },
    /// `read p`: a read access whose value is dropped (Naik-Aiken, docs/spec/naik_aiken.md §4.1).
    Read(Place),
    /// `x[+] = y`: appends `y` to the container `x` (Naik-Aiken's arrays, spec §4.1 \[C\]).
    Append { array: String, src: String },
    /// `x = y[*]`: any element stored in the container `y`.
    Pick { dst: String, array: String },
    /// `x = nondet{lo..hi}`: any integer from `lo` to `hi`, both included (L-DRF, docs/spec/ldrf.md §1.1).
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
    /// An atomic operation or a fence (docs/spec/atomics.md §1.1): `r = x.f.load(o)`,
    /// `x.f.store(v, o)`, `r = x.f.fetch_add(v, o)`, `r = x.f.xchg(v, o)`,
    /// `ok = x.f.cas(e, v, os, of)`, `fence(o)`.
    Atomic(Atomic),
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
    /// (Naik-Aiken, docs/spec/naik_aiken.md §4.1).
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

/// One path of a `check`, with its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckItem {
    /// `R` or `W`.
    pub kind: AccessKind,
    /// What is checked.
    pub target: CheckTarget,
}

/// Check paths (docs/spec/bigfoot.md §2.1 \[C\]).
// Variant fields are named after the concrete syntax the variant's doc shows.
#[allow(missing_docs)]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckTarget {
    /// `x.f` or the coalesced field path `x.f1/f2/…/fn` (same as checking each, A24).
    Fields { base: String, fields: Vec<String> },
    /// `x[lo]` (singleton), `x[lo..hi]` or `x[lo..hi:stride]`: `{lo + i·k | lo ≤ lo + i·k < hi}`.
    Range { base: String, lo: Expr, hi: Option<Expr>, stride: Option<i64> },
}

impl StmtKind {
    /// The variable the statement assigns, if any (`x` of `x = e`, `x <- y`, `x = new …`,
    /// `x = p`, `x = y.m(…)`, `x = p.load(o)` and the other atomics that return a value).
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
            StmtKind::Atomic(a) => a.assigned(),
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
