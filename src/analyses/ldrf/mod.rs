//! Sequential abstractions of the L-DRF paper ([Mukherjee et al. 2017]; docs/spec/ldrf.md §5): analyses that
//! run a sequential domain over the sync-CFG, the per-thread graphs plus an edge from every
//! post-release point of a lock to every acquire of it, with a mix at acquires. Oracle:
//! `ldrf-sound` (C8: sound at relevant points of race-free programs; C12 reported), and the
//! negative controls `ldrf-sound-naive`, `ldrf-sound-region-racy`, `ldrf-sound-everywhere`
//! (C9).
//!
//! One concept per module:
//! - [`fixpoint`]: the sync-CFG and its worklist fixpoint, generic over a domain (G full);
//! - [`blocks`]: the partitioned tuple-set domain: value-set (singletons), region-relational
//!   (the declared regions), naive fully relational (one block, union at acquires);
//! - [`interval`]: intervals mod K (a wrapping result goes to ⊤);
//! - [`rules`]: the §5 rule cases the analyses take (rule coverage);
//!
//! The analyses see only the graphs ([`Cfg`]); they never run E-STD or E-LDRF, which are the
//! oracle's ground truth. The suite ([`suite`]) lists them from least to most precise, the
//! order C12 compares them in, then the naive control.
//!
//! Deviations from the paper: values are mod K (A14: never a ℤ claim compared with mod-K
//! truth); no thread ids (Remark 11, A9); G is full (no Remark 9 refinement).

pub mod blocks;
pub mod fixpoint;
pub mod interval;
pub mod rules;

use std::collections::BTreeSet;

use race_oracles::ldrf::cfg::{Cfg, Cmd, Edge, Var};
use race_oracles::theorems::rules::fire;
use race_oracles::theorems::sync_cfg::{Facts, Mix, Notation, SyncCfgAnalysis};

use self::blocks::Blocks;
use self::fixpoint::{solve, Wiring};
use self::interval::Intervals;
use self::rules::SyncCfgRule;

use crate::seeded::{Predicted, Seeded};

/// Seeded bugs ([`SEEDED`] names them and says what each breaks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncCfgBug {
    /// `sync-acquire-ignores-buffers`: an acquire reads only its own source; the sync-CFG
    /// has no release → acquire edges (every domain).
    AcquireIgnoresBuffers,
    /// `sync-release-feeds-nothing`: a release edge does not feed its post-release point,
    /// so neither the thread's continuation nor any acquire sees it (every domain).
    ReleaseFeedsNothing,
    /// `sync-interval-saturates`: interval addition saturates at K-1 instead of going to ⊤
    /// when it would wrap (the interval domain).
    IntervalSaturates,
    /// `sync-value-set-loop-head-keeps-old`: the value-set join at a loop head keeps the
    /// head's old value and drops the back edge's (the value-set domain).
    ValueSetLoopHeadKeepsOld,
    /// `sync-interval-hull-of-corners`: `%` (an operator without an interval rule) takes the
    /// hull of its results at the corners of the operands' intervals (the interval domain).
    IntervalHullOfCorners,
}

/// Every sync-CFG mutant breaks C8; the negative controls make no prediction.
const SYNC_PREDICTED: Predicted = Predicted::breaks(&["ldrf-sound"]);

/// Its seeded bugs (`--mutant NAME`), with what the spec predicts under each oracle
/// (the seeded-bug catalogue lists them).
pub const SEEDED: &[Seeded<SyncCfgBug>] = &[
    Seeded {
        name: "sync-acquire-ignores-buffers",
        oracle: "ldrf-sound",
        description: "an acquire reads only its own source: the sync-CFG has no release → acquire edges (every domain)",
        predicted: SYNC_PREDICTED,
        spec: "spec/ldrf.md §5.1 (the sync-CFG), §8 R1",
        bug: SyncCfgBug::AcquireIgnoresBuffers,
    },
    Seeded {
        name: "sync-release-feeds-nothing",
        oracle: "ldrf-sound",
        description: "a release edge does not feed its post-release point: neither the thread's continuation nor any acquire sees it (every domain)",
        predicted: SYNC_PREDICTED,
        spec: "spec/ldrf.md §5.1 (release: a(n') ∪= a(n))",
        bug: SyncCfgBug::ReleaseFeedsNothing,
    },
    Seeded {
        name: "sync-interval-saturates",
        oracle: "ldrf-sound",
        description: "interval addition saturates at K-1 instead of going to ⊤ when it would wrap (interval domain)",
        predicted: SYNC_PREDICTED,
        spec: "spec/ldrf.md §6.2 (a), A14",
        bug: SyncCfgBug::IntervalSaturates,
    },
    Seeded {
        name: "sync-value-set-loop-head-keeps-old",
        oracle: "ldrf-sound",
        description: "the value-set join at a loop head keeps the head's old value and drops the back edge's (value-set domain)",
        predicted: SYNC_PREDICTED,
        spec: "spec/ldrf.md §5.2 (value-set, [9])",
        bug: SyncCfgBug::ValueSetLoopHeadKeepsOld,
    },
    Seeded {
        name: "sync-interval-hull-of-corners",
        oracle: "ldrf-sound",
        description: "`%` (no interval rule) takes the hull of its results at the corners of the operands' intervals, as if it were monotone (interval domain)",
        predicted: SYNC_PREDICTED,
        spec: "spec/ldrf.md §5.2 (A5: the hull of the concrete results)",
        bug: SyncCfgBug::IntervalHullOfCorners,
    },
];

/// The domains of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DomainKind {
    /// Intervals mod K (A5).
    Interval,
    /// Value sets ([De et al. 2011]).
    ValueSet,
    /// Region tuples over the declared partition (R-DRF's mix_R).
    Region,
    /// Whole environments, joined by union at acquires (the unsound control).
    Naive,
}

/// One sync-CFG analysis.
#[derive(Clone, Copy, Debug)]
pub struct SyncCfg {
    /// Its domain.
    pub domain: DomainKind,
    /// The seeded bug.
    pub bug: Option<SyncCfgBug>,
}

/// Every analysis with `bug` applied: interval, value-set, region, naive.
pub fn suite(bug: Option<SyncCfgBug>) -> Vec<Box<dyn SyncCfgAnalysis>> {
    [DomainKind::Interval, DomainKind::ValueSet, DomainKind::Region, DomainKind::Naive]
        .into_iter()
        .map(|domain| Box::new(SyncCfg { domain, bug }) as Box<dyn SyncCfgAnalysis>)
        .collect()
}

impl SyncCfg {
    fn wiring(&self) -> Wiring {
        Wiring { acquire_ignores_buffers: self.bug == Some(SyncCfgBug::AcquireIgnoresBuffers), release_feeds_nothing: self.bug == Some(SyncCfgBug::ReleaseFeedsNothing) }
    }

    fn blocks(&self, cfg: &Cfg, partition: Vec<Vec<Var>>, mix: Mix) -> Facts {
        let mut d = Blocks::new(cfg, self.domain, partition);
        d.keep_old_at_loop_heads = self.domain == DomainKind::ValueSet && self.bug == Some(SyncCfgBug::ValueSetLoopHeadKeepsOld);
        let sol = solve(cfg, &d, self.wiring());
        let proved = proved(cfg, |n, b| verdict(sol[n].as_ref().map(|a| d.proves(a, b, cfg))));
        Facts { domain: self.name(), mix, notation: Notation::Sets, at: sol.iter().map(|a| a.as_ref().map(|a| d.claim(a))).collect(), proved }
    }

    fn intervals(&self, cfg: &Cfg) -> Facts {
        let d = Intervals { saturate: self.bug == Some(SyncCfgBug::IntervalSaturates), corners: self.bug == Some(SyncCfgBug::IntervalHullOfCorners) };
        let sol = solve(cfg, &d, self.wiring());
        let proved = proved(cfg, |n, b| verdict(sol[n].as_ref().map(|a| d.proves(a, b, cfg))));
        Facts { domain: self.name(), mix: Mix::Var, notation: Notation::Intervals, at: sol.iter().map(|a| a.as_deref().map(Intervals::claim)).collect(), proved }
    }
}

/// Whether an assert counts as proved, given whether its location's fact implies it (`None`:
/// the location stays ⊥, so the assert is proved vacuously, §5.3).
fn verdict(implied: Option<bool>) -> bool {
    fire(match implied {
        None => SyncCfgRule::AssertVacuous,
        Some(true) => SyncCfgRule::AssertProved,
        Some(false) => SyncCfgRule::AssertUnproved,
    });
    implied.unwrap_or(true)
}

/// The asserts whose source location satisfies `proves` (an unreached one is proved
/// vacuously).
fn proved(cfg: &Cfg, proves: impl Fn(usize, &race_oracles::ldrf::cfg::BExpr) -> bool) -> BTreeSet<Edge> {
    cfg.edge_ids()
        .zip(&cfg.edges)
        .filter_map(|(i, e)| match &e.cmd {
            Cmd::Assert(b) if proves(e.src.index(), b) => Some(i),
            _ => None,
        })
        .collect()
}

impl SyncCfgAnalysis for SyncCfg {
    fn name(&self) -> String {
        match self.domain {
            DomainKind::Interval => "interval",
            DomainKind::ValueSet => "value-set",
            DomainKind::Region => "region",
            DomainKind::Naive => "naive",
        }
        .into()
    }

    fn analyze(&self, cfg: &Cfg) -> Facts {
        let all: Vec<Var> = (0..cfg.vars.len()).map(race_oracles::ldrf::cfg::Var::new).collect();
        match self.domain {
            DomainKind::Interval => self.intervals(cfg),
            DomainKind::ValueSet => self.blocks(cfg, all.iter().map(|&x| vec![x]).collect(), Mix::Var),
            DomainKind::Region => self.blocks(cfg, cfg.regions.clone(), Mix::Region(cfg.regions.clone())),
            DomainKind::Naive => self.blocks(cfg, vec![all], Mix::Naive),
        }
    }
}

#[cfg(test)]
mod tests;
