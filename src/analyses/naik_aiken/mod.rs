//! Naik & Aiken, "Conditional Must Not Aliasing for Static Race Detection" (POPL'07, seed
//! 002), as docs/spec/naik_aiken.md reconstructs it, over the `naikaiken` dialect (§4.1). Oracle:
//! `naik-aiken-sound` (T1–T7 of §4.3: C ⪯ K, the environment abstraction, C⁺ ⪯ K⁺, the DR
//! facts, and no race on a pruned pair); negative control `naik-aiken-unlikely` (T9).
//!
//! The pipeline, one module per concept:
//! - [`types`]: the lattice of §2.1 (join, loopback Γ^{w+}, compatibility);
//! - [`rules`]: the rules of Fig. 8 with Π = λw.1 (A2) and Sub + Kleene iteration for loops
//!   (A1), extended to forks, syncs, containers and data writes (§4.1);
//! - [`closure`]: K⁺ (Def. 4.2);
//! - [`disjoint`]: DR_K (Fig. 9 eq. 2, read as A3 says), for every site and every H of one
//!   or two sites;
//! - [`points_to`]: P(e), flow-insensitive field-sensitive Andersen (§4.3 \[C\]);
//! - [`pruning`]: global-lock, local-lock, local-thread (§2.5, A4, A5, A11) and PLDI'06's
//!   "unlikely" filter.
//!
//! Choices taken from spec §7: baseline rule 14 without the §5.2 field must-alias extension
//! (A6); per-thread frozen loop counters (A7); phase 1 skipped, every conflicting pair is a
//! candidate (A13); pairs are label pairs, (a, a) included (A16).

pub mod closure;
pub mod disjoint;
pub mod points_to;
pub mod pruning;
pub mod rules;
pub mod types;

use race_oracles::lang::labels::Labels;
use race_oracles::lang::Program;
use race_oracles::rule_cases;
use race_oracles::theorems::must_not_alias::TypingError;
use race_oracles::theorems::must_not_alias::{Counters, MustNotAliasAnalysis, Typing};

use self::points_to::PointsTo;
use self::pruning::Pruner;
use self::rules::Typer;
use self::types::Lattice;

use crate::seeded::{Predicted, Seeded};

rule_cases! {
    /// The cases of Naik-Aiken's rules (docs/spec/naik_aiken.md §2.2–2.5, the inference whose
    /// soundness §3's Lemma 3.3, Lemma 4.3 and Thm 4.4 state, and §2.5's race stages): each
    /// typing rule of Fig. 8 and the lattice steps it takes, the closure's correlation rule,
    /// each condition by which a DR_K fact holds or fails, and each stage's verdict on a pair.
    pub enum NaikAikenRule in NAIK_AIKEN_RULES = "Naik-Aiken", "naik_aiken.md §2–3" {
        /// (11) `x = null`: Γ[x ↦ ⊥].
        Null => "(11) x = null", "§2.2 rule 11";
        /// (12) `new h` under a loop: 1 at the enclosing loops.
        NewInLoop => "(12) new inside a loop (1 at w)", "§2.2 rule 12";
        /// (12) `new h` outside every loop: all 0 (one object).
        NewOutsideLoops => "(12) new outside loops (all 0)", "§2.2 rule 12";
        /// (13) `x = y`: Γ[x ↦ Γ(y)].
        Copy => "(13) x = y", "§2.2 rule 13";
        /// (14) `x = y.f` (and `y[*]`): ⟨λw.⊤, ⊤⟩, the heap is never trusted.
        HeapRead => "(14) heap read gives ⊤", "§2.2 rule 14";
        /// (15) `x.f = y` (and `x[+] = y`) with both non-⊥: an effect.
        Effect => "(15) store makes an effect", "§2.2 rule 15";
        /// (15) with an end ⊥: no effect.
        EffectBottom => "(15) store of ⊥ (x.f = null, or y ⊥): no effect", "§2.2 rule 15";
        /// (17) `if`: Γ1 ⊔ Γ2.
        IfJoin => "(17) if joins its branches", "§2.2 rule 17";
        /// Def. 3.1: unequal entries or sites join to ⊤ (correlation lost).
        JoinTop => "Def. 3.1 join to ⊤ (0 ⊔ 1, h1 ⊔ h2)", "§2.1 join";
        /// Def. 3.2: Γ^{w+} demotes a 1 at w to ⊤.
        Loopback => "Def. 3.2 loopback demotes 1 to ⊤", "§2.1 loopback";
        /// (18) + Sub: the loop invariant grows past Γ_entry (more than one Kleene pass).
        LoopWidens => "(18)+Sub loop invariant above Γ_entry", "§2.2 rule 18, A1 Sub";
        /// §4.1 extension: a `fork(x)` body typed with `self ↦ Γ(x)`.
        ForkSelf => "fork(x) body typed with self ↦ Γ(x)", "§4.1 [C] fork";
        /// §4.1 extension: a `sync` body typed in place.
        Sync => "sync body typed as its statements", "§4.1 [C] sync";
        /// Def. 4.2: an effect chained onto another (Kⁿ⁺¹).
        Chain => "Def. 4.2 closure chains two effects", "§2.3 K⁺";
        /// Def. 4.2: a 1–1 correlation survives a 1–1 middle link.
        ChainKeepsOne => "Def. 4.2 chain keeps a 1–1 correlation", "§2.3 τ̄5.Π(w) = τ̄4.Π(w)";
        /// Def. 4.2: a 1–1 correlation dies through a middle link not 1–1.
        ChainDropsOne => "Def. 4.2 chain drops a correlation to ⊤", "§2.3 τ̄5.Π(w) = ⊤";
        /// DR_K: h ∈ DR_K(H) with effects into h, all conditions met.
        DrHolds => "DR_K fact holds (effects into h)", "§2.4 eq. 2";
        /// DR_K: no effect may reach h: holds vacuously.
        DrVacuous => "DR_K fact holds vacuously (no effect into h)", "§2.4 eq. 2";
        /// DR_K condition 1: a source with site ⊤.
        DrFailsTopSource => "DR_K fails: a ⊤ source (cond. 1)", "§2.4 cond. 1";
        /// DR_K condition 2(a): two H-sources of different types.
        DrFailsTypes => "DR_K fails: H-sources differ (cond. 2a)", "§2.4 cond. 2a";
        /// DR_K condition 2(b): an H-source not < ⊤.
        DrFailsImprecise => "DR_K fails: H-source not < ⊤ (cond. 2b)", "§2.4 cond. 2b", rare "an H-source with a site but a ⊤ loop entry is a store base carried over from an earlier iteration of its own site's loop; generated stores dereference only surely non-null variables (the dialect has no null test), so at the loop's entry that variable holds another site's object and the join makes the site ⊤ too (condition 1 instead)";
        /// DR_K condition 2(c): a 1 of the source not passed on to the targets.
        DrFailsCorrelation => "DR_K fails: correlation not inherited (cond. 2c)", "§2.4 cond. 2c";
        /// global-lock prunes: one once-allocated lock on both sides.
        GlobalLock => "global-lock prunes", "§2.5 global-lock, A11";
        /// local-lock prunes with the locks as the bases (depth 0).
        LocalLockDepth0 => "local-lock prunes at depth 0 (lock = base)", "§2.5 local-lock, A4";
        /// local-lock prunes with P(e1) ∩ P(e2) ⊆ DR_K(P(e3) ∪ P(e4)).
        LocalLockDr => "local-lock prunes by DR_K", "§2.5 local-lock";
        /// local-thread prunes with `self` as the bases (depth 0).
        LocalThreadDepth0 => "local-thread prunes at depth 0 (self = base)", "§2.5 local-thread";
        /// local-thread prunes by DR_K over the thread objects.
        LocalThreadDr => "local-thread prunes by DR_K", "§2.5 local-thread";
        /// Paths rooted at the locks (or `self`), depth ≥ 1, but the DR_K fact fails.
        RootedDrFails => "rooted paths, DR_K fact fails: not pruned", "§2.5 local-lock/local-thread";
        /// Paths rooted at the locks (or `self`) at mixed depths: never pruned (A4).
        MixedDepth => "rooted paths at mixed depth: not pruned", "§2.5, A4";
        /// No stage proves the pair: reported as a possible race.
        Reported => "pair reported (no stage proves it)", "§2.5 phase 2";
    }
}

/// Seeded bugs ([`SEEDED`] names them), each breaking one ingredient of the soundness argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NaikAikenBug {
    /// `na-shared-counter`: the analysis claims soundness under one shared π (R10,
    /// ingredient (ii)); the typing itself is unchanged.
    SharedCounter,
    /// `na-loopback-keeps-one`: Γ^{w+} does not demote 1 to ⊤ (Def. 3.2).
    LoopbackKeepsOne,
    /// `na-join-keeps-one`: 1 ⊔ 0 = 1 instead of ⊤ (Def. 3.1).
    JoinKeepsOne,
    /// `na-dr-over-k`: DR_K is computed over K instead of K⁺ (Fig. 9 eq. 2).
    DrOverK,
    /// `na-local-lock-no-prefix`: local-lock prunes under any held locks whose DR fact
    /// covers the bases' sites, without checking that the lock is a prefix of the path (§2.5).
    LocalLockNoPrefix,
    /// `na-reassigned-lock-held`: a `sync(x)` whose body assigns x still counts as holding
    /// x's lock for the accesses after the assignment (A5, ingredient (iii)).
    ReassignedLockHeld,
    /// `na-chain-half-link`: K⁺ keeps a 1–1 correlation through a middle link that is 1 on
    /// one side only (Def. 4.2 asks both τ̄2 and τ̄3 to be 1 at w).
    ChainHalfLink,
}

/// Every Naik-Aiken mutant breaks the soundness claim; the "unlikely" control makes no
/// prediction.
const NA_PREDICTED: Predicted = Predicted::breaks(&["naik-aiken-sound"]);

/// Its seeded bugs (`--mutant NAME`), with what the spec predicts under each oracle
/// (the seeded-bug catalogue lists them).
pub const SEEDED: &[Seeded<NaikAikenBug>] = &[
    Seeded {
        name: "na-shared-counter",
        oracle: "naik-aiken-sound",
        description: "the analysis is judged under one shared loop vector π (every thread increments it), not frozen per-thread copies",
        predicted: NA_PREDICTED,
        spec: "spec/naik_aiken.md §6 R10, A7, §3 ingredient (ii)",
        bug: NaikAikenBug::SharedCounter,
    },
    Seeded {
        name: "na-loopback-keeps-one",
        oracle: "naik-aiken-sound",
        description: "the loopback Γ^{w+} does not demote 1 to ⊤ at w: values from an earlier iteration stay correlated",
        predicted: NA_PREDICTED,
        spec: "spec/naik_aiken.md §2.1 (Def. 3.2), R2",
        bug: NaikAikenBug::LoopbackKeepsOne,
    },
    Seeded {
        name: "na-join-keeps-one",
        oracle: "naik-aiken-sound",
        description: "join(1, 0) = 1 instead of ⊤",
        predicted: NA_PREDICTED,
        spec: "spec/naik_aiken.md §2.1 (Def. 3.1)",
        bug: NaikAikenBug::JoinKeepsOne,
    },
    Seeded {
        name: "na-dr-over-k",
        oracle: "naik-aiken-sound",
        description: "DR_K is computed over K instead of K⁺ (multi-step reachability is ignored)",
        predicted: NA_PREDICTED,
        spec: "spec/naik_aiken.md §2.4 (Fig. 9 eq. 2), R7",
        bug: NaikAikenBug::DrOverK,
    },
    Seeded {
        name: "na-local-lock-no-prefix",
        oracle: "naik-aiken-sound",
        description: "local-lock prunes under any held locks whose DR fact covers the accessed bases' sites, without checking that the lock is a prefix of the path",
        predicted: NA_PREDICTED,
        spec: "spec/naik_aiken.md §2.5 local-lock, R9",
        bug: NaikAikenBug::LocalLockNoPrefix,
    },
    Seeded {
        name: "na-reassigned-lock-held",
        oracle: "naik-aiken-sound",
        description: "a sync(x) whose body assigns x still counts as holding x's lock after the assignment (programs outside A5 are generated)",
        predicted: NA_PREDICTED,
        spec: "spec/naik_aiken.md A5, §3 ingredient (iii)",
        bug: NaikAikenBug::ReassignedLockHeld,
    },
    Seeded {
        name: "na-chain-half-link",
        oracle: "naik-aiken-sound",
        description: "K⁺ keeps a 1–1 correlation through a middle link that is 1 on one side only (Def. 4.2 needs τ̄2 and τ̄3 both 1)",
        predicted: NA_PREDICTED,
        spec: "spec/naik_aiken.md §2.3 (Def. 4.2)",
        bug: NaikAikenBug::ChainHalfLink,
    },
];

/// The analysis (a seeded bug or none).
#[derive(Clone, Copy, Debug, Default)]
pub struct NaikAiken {
    /// The seeded bug.
    pub bug: Option<NaikAikenBug>,
}

impl MustNotAliasAnalysis for NaikAiken {
    fn name(&self) -> String {
        "Naik-Aiken".into()
    }

    fn analyze(&self, p: &Program, labels: &Labels<'_>) -> Result<Typing, TypingError> {
        let main = p.threads.first().ok_or(TypingError::NoMainThread)?;
        let mut typer = Typer::new(labels, Lattice { bug: self.bug });
        typer.block(main, &[], Default::default())?;
        let closure = closure::closure(&typer.effects, self.bug == Some(NaikAikenBug::ChainHalfLink));
        let dr_effects = if self.bug == Some(NaikAikenBug::DrOverK) { &typer.effects } else { &closure };
        let disjoint = disjoint::facts(dr_effects, &labels.sites);
        let pt = PointsTo::of(p);
        let (pruned, unlikely) = Pruner::new(labels, &pt, dr_effects, self.bug).run();
        Ok(Typing { envs: typer.envs.into_iter().map(Option::unwrap_or_default).collect(), effects: typer.effects, closure, disjoint, pruned, unlikely })
    }

    fn counters(&self) -> Counters {
        if self.bug == Some(NaikAikenBug::SharedCounter) {
            Counters::Shared
        } else {
            Counters::PerThread
        }
    }
}

#[cfg(test)]
mod tests;
