//! Naik & Aiken, "Conditional Must Not Aliasing for Static Race Detection" (POPL'07, seed
//! 002), as spec/naik_aiken.md reconstructs it, over the `naikaiken` dialect (§4.1). Oracle:
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
use race_oracles::theorems::must_not_alias::{Counters, MustNotAliasAnalysis, Typing};

use self::points_to::PointsTo;
use self::pruning::Pruner;
use self::rules::Typer;
use self::types::Lattice;

/// Seeded bugs (`crate::mutants`), each breaking one ingredient of the soundness argument.
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
}

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

    fn analyze(&self, p: &Program, labels: &Labels<'_>) -> Result<Typing, String> {
        let main = p.threads.first().ok_or("a naikaiken program has one main thread")?;
        let mut typer = Typer::new(labels, Lattice { bug: self.bug });
        typer.block(main, &[], Default::default())?;
        let closure = closure::closure(&typer.effects);
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
