//! The plug-in seam for Naik-Aiken's conditional must-not-alias analysis ([Naik-Aiken 2007];
//! docs/spec/naik_aiken.md §2): the vocabulary of its results (abstract loop vectors, types,
//! effects, disjoint-reachability facts, the pairs it prunes) and the trait an implementation
//! provides. It knows no implementation; the oracles that judge it are in
//! [`super::naik_aiken_sound`].
//!
//! Conventions shared with the judge:
//! - Π is λw.1 (spec A2 \[C\]), so a type's loop vector is all the analysis chooses;
//! - loop vectors are indexed by [`Labels::loops`], statements by [`Labels::points`] and
//!   accesses by [`AccessLabel`]s ([`crate::lang::labels`]);
//! - an environment maps a variable to its type, a variable it leaves out being ⊥.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::lang::labels::{AccessLabel, Labels, PointId};
use crate::lang::Program;

/// î ∈ {0, 1, ⊤} (spec §2.1): allocated outside the loop, in the current (correlated)
/// iteration, or unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Corr {
    /// `0`: allocated while the loop was not running.
    Zero,
    /// `1`: allocated inside the loop, in the iteration that is current.
    One,
    /// `⊤`: nothing known.
    Top,
}

/// ĥ ::= h | ⊤.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum AbsSite {
    /// One allocation site.
    Site(String),
    /// Any site.
    Top,
}

/// A non-null type τ̄ = ⟨Π, ĥ⟩ (spec §2.1).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct AbsType {
    /// One entry per loop of the program, in [`Labels::loops`] order.
    pub pi: Vec<Corr>,
    /// The site.
    pub site: AbsSite,
}

impl fmt::Display for AbsType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pi: Vec<&str> = self
            .pi
            .iter()
            .map(|c| match c {
                Corr::Zero => "0",
                Corr::One => "1",
                Corr::Top => "T",
            })
            .collect();
        let site = match &self.site {
            AbsSite::Site(h) => h.as_str(),
            AbsSite::Top => "T",
        };
        write!(f, "<({}),{site}>", pi.join(","))
    }
}

/// An abstract effect τ̄1 |>= τ̄2: some field of a τ̄1 object was assigned a τ̄2 object.
pub type AbsEffect = (AbsType, AbsType);

/// Γ: a variable's type; a variable left out is ⊥ (null).
pub type AbsEnv = BTreeMap<String, AbsType>;

/// The phase-2 stage that pruned a pair (spec §2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// The same once-allocated lock is held at both accesses (T6).
    GlobalLock,
    /// Locks held at both accesses are prefixes of the accessed bases, and the bases'
    /// sites are disjointly reachable from the locks' (T5).
    LocalLock,
    /// The same argument with the two threads' `self` objects in place of the locks (T7).
    LocalThread,
}

impl Stage {
    /// Every stage, in the order Chord runs them.
    pub const ALL: [Stage; 3] = [Stage::GlobalLock, Stage::LocalLock, Stage::LocalThread];

    /// Its name (`local-lock`).
    pub fn name(self) -> &'static str {
        match self {
            Stage::GlobalLock => "global-lock",
            Stage::LocalLock => "local-lock",
            Stage::LocalThread => "local-thread",
        }
    }
}

/// A pair the analysis does not report, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Pruned {
    /// The two accesses, the smaller label first.
    pub pair: (AccessLabel, AccessLabel),
    /// The stage that pruned it.
    pub stage: Stage,
    /// The facts it used, one line (`locks x, x; h3 ∈ DR_K({h2})`).
    pub why: String,
}

/// What the analysis concluded about one program.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Typing {
    /// Γ before each statement, by [`PointId`] (for a `while`, the loop invariant: the
    /// environment at its head).
    pub envs: Vec<AbsEnv>,
    /// K: the effects of the whole program, the forked bodies' included.
    pub effects: BTreeSet<AbsEffect>,
    /// K⁺ (Def. 4.2).
    pub closure: BTreeSet<AbsEffect>,
    /// The facts h ∈ DR_K(H) it established, for every site h and every set H of one or
    /// two sites (Fig. 9 eq. 2).
    pub disjoint: BTreeSet<(String, BTreeSet<String>)>,
    /// The conflicting pairs it does not report; every other pair of
    /// [`Labels::conflicting_pairs`] is reported.
    pub pruned: Vec<Pruned>,
    /// The pairs PLDI'06's "unlikely" filter would set aside (t1 = t2, or both accesses
    /// under locks whose points-to sets are one equal singleton; spec §5, T9): a negative
    /// control, never a soundness claim.
    pub unlikely: Vec<(AccessLabel, AccessLabel)>,
}

impl Typing {
    /// Γ before point `p` (empty, that is all ⊥, if the analysis gave none).
    pub fn env(&self, p: PointId) -> Option<&AbsEnv> {
        self.envs.get(p.0 as usize)
    }
}

/// Re-exported: the analysis declares the semantics it assumes, and the instrumented
/// semantics (below this module) defines it.
pub use crate::instrumented::Counters;

/// Naik-Aiken's analysis as a system under test.
pub trait MustNotAliasAnalysis: Sync {
    /// Its name in reports (`Naik-Aiken` or `Naik-Aiken[mutant]`).
    fn name(&self) -> String;

    /// Types `p` (a `naikaiken` program that passed its validator) and prunes its pairs.
    ///
    /// # Errors
    /// [`TypingError`]: why the analysis declines the program (the oracle's verdict is then
    /// inconclusive).
    fn analyze(&self, p: &Program, labels: &Labels<'_>) -> Result<Typing, TypingError>;

    /// The loop-counter semantics the analysis's soundness argument assumes; the judge runs
    /// the program under it.
    fn counters(&self) -> Counters {
        Counters::PerThread
    }
}

/// Why a must-not-alias analysis declines a program. Each message is one line; `racefuzz
/// analyze` prints it after the file name (exit 2).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TypingError {
    /// The program has no main thread to type.
    #[error("a naikaiken program has one main thread")]
    NoMainThread,
    /// A statement the labels do not number (labels of another program).
    #[error("line {line}: a statement the labels do not number")]
    StatementNotNumbered {
        /// The statement's line.
        line: u32,
    },
    /// A loop the labels do not number (labels of another program).
    #[error("line {line}: loop @{label} is not numbered")]
    LoopNotNumbered {
        /// The loop's line.
        line: u32,
        /// The loop's label, without `@`.
        label: String,
    },
    /// A statement outside the language the analysis has rules for (spec §4.1).
    #[error("line {line}: not a naikaiken statement (spec §4.1): {stmt}")]
    Unsupported {
        /// The statement's line.
        line: u32,
        /// The statement, printed.
        stmt: String,
    },
    /// A loop whose invariant did not reach a fixpoint within the analysis's pass limit.
    #[error("line {line}: loop @{label}'s invariant did not stabilize in {passes} passes")]
    NoFixpoint {
        /// The loop's line.
        line: u32,
        /// The loop's label, without `@`.
        label: String,
        /// The pass limit.
        passes: usize,
    },
}
