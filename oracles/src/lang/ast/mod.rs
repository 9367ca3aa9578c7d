//! The `.race` intermediate representation: one AST for the union of the papers' languages.
//!
//! The IR covers RacerDX's IL (docs/spec/racerdx.md §1.1: paths as actuals, the global reentrant
//! lock, `*` control), BFJ (docs/spec/bigfoot.md §2.1: classes, arrays with strided ranges,
//! per-object locks, `check`, renaming, do-while loops), SimpleJava and CapJava
//! (docs/spec/escape_capsule.md §2, §7: `fork`, methods on objects, `capsule` classes), and leaves
//! room for L-DRF (`assume`/`assert`, docs/spec/ldrf.md) and Naik-Aiken (allocation-site and loop
//! labels, `sync` blocks, `fork { .. }`, docs/spec/naik_aiken.md §4.1).
//!
//! Invariants (established by the parser, relied on by the machine):
//! - a heap access appears only as a whole statement (`x = p` or `p = e`): expressions are
//!   access-free except call actuals, which may be RacerDX paths (evaluated without an access
//!   event, as `push(ē)` is no access in Def. 3.6);
//! - `Line` compares honestly (its `Eq`, `Hash` and `Ord` agree), so statements and
//!   programs at other lines differ; compare programs modulo positions with
//!   [`Program::without_lines`] (`parse(print(p)).without_lines() == p.without_lines()`).
//!
//! The parts, one concept each: this module (dialects, programs, classes, methods),
//! `stmt` (statements, their conditions and checks), `expr` (expressions and heap places)
//! and `walk` (traversals, and the views of a program derived from them).

mod atomic;
mod expr;
mod stmt;
mod walk;

pub use atomic::{Atomic, Order, OrderRule, RmwOp, ATOMIC_METHODS};
pub use expr::{BinOp, Expr, Place, UnOp};
pub use stmt::{AccessKind, Block, CheckItem, CheckTarget, Cond, ForkTarget, Stmt, StmtKind};
pub use walk::{mentioned_vars, walk_block};

use std::fmt;

/// The subset of `.race` one paper's theorem is about; see `lang::dialect` for the validators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// RacerDX's IL ([Gorogiannis et al. 2019], docs/spec/racerdx.md).
    RacerDx,
    /// BigFoot's BFJ ([Rhodes 2019] ch. 3, docs/spec/bigfoot.md).
    Bfj,
    /// BFJ tier 2 (docs/spec/bigfoot.md A2): BFJ with `fork` and `join`, whose happens-before
    /// edges (fork → child, child → join) every precise detector must honour. Outside
    /// BigFoot's Theorem 3.9.4, so only the detector and explorer oracles judge it.
    Bfj2,
    /// SimpleJava / EscapeJava ([Rhodes 2019] ch. 4, docs/spec/escape_capsule.md §2).
    SimpleJava,
    /// CapJava ([Rhodes 2019] ch. 5, docs/spec/escape_capsule.md §7).
    CapJava,
    /// Naik-Aiken's WHILE language with threads ([Naik-Aiken 2007], docs/spec/naik_aiken.md §4.1).
    NaikAiken,
    /// The L-DRF paper's language: shared integers, named locks ([Mukherjee et al. 2017], docs/spec/ldrf.md §1.1).
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
    /// initial locals (BFJ's shared free variables, docs/spec/bigfoot.md §2.3).
    pub init: Option<Block>,
    /// The threads started together after `init`.
    pub threads: Vec<Block>,
    /// `regions { x, y }` declarations (ldrf, docs/spec/ldrf.md §3): each is one region of a
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

/// The index `i` of a formal name `arg<i>` (docs/spec/racerdx.md §1.1: formals are `arg1, arg2,
/// …`): decimal digits, no leading zero, `i ≥ 1`. The one definition of "is a formal" that
/// the dialect check, the generator, the ground truth's `fml` and the SUT share (three
/// copies had disagreed on `arg0`, `arg01` and `arg+1`).
pub fn formal_index(v: &str) -> Option<usize> {
    let n = v.strip_prefix("arg")?;
    if n.is_empty() || n.starts_with('0') || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

/// Whether `v` is a formal name `arg<i>` ([`formal_index`]).
pub fn is_formal(v: &str) -> bool {
    formal_index(v).is_some()
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

#[cfg(test)]
mod tests {
    use super::formal_index;

    #[test]
    fn formals_are_arg_and_a_positive_decimal() {
        assert_eq!(formal_index("arg1"), Some(1));
        assert_eq!(formal_index("arg12"), Some(12));
        for v in ["arg", "arg0", "arg01", "arg+1", "arg-1", "argx", "x1", "Arg1"] {
            assert_eq!(formal_index(v), None, "{v}");
        }
    }
}
