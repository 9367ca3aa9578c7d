//! Phase 2 of Chord (§5.1, docs/spec/naik_aiken.md §2.5), over the labels of our language (A16:
//! six-tuples reduce to label pairs): every conflicting pair is pruned by the first stage
//! that proves it race-free, in Chord's order, or reported.
//!
//! Per access: its *thread context* is the innermost enclosing fork point (main: none); its
//! *held locks* are the variables of the enclosing `sync`s of its own thread's code
//! ([`Point::syncs`](race_oracles::lang::labels::Point::syncs)); its *base* is the path up to the accessed field.
//! - **global-lock** (A11 \[C\]): both sides hold locks l1, l2 with P(l1) = P(l2) = {h},
//!   where h's `new` is enclosed by no loop (counting the loops around a fork whose body
//!   holds it), so one object. No DR.
//! - **local-lock**: locks l1, l2 held at both sides are prefixes of the accessed paths: the
//!   path's root is the lock variable. Depth ≥ 1 on both sides needs
//!   P(base1) ∩ P(base2) ⊆ DR_K(P(l1) ∪ P(l2)); depth 0 on both sides (the lock *is* the
//!   base) is trivially safe; mixed depth is never pruned (A4 \[C\]: DR is non-reflexive).
//! - **local-thread**: both accesses run directly in `fork(x)` bodies (the innermost fork
//!   has a thread object) and are rooted at `self`, which plays the lock (two threads have
//!   distinct thread objects), with the same depth rule and P(self) = P(x).
//!
//! A `sync(x)` whose body assigns `x` (only with `Relax::sync_reassign`, A5) is ignored
//! entirely: after the assignment the path no longer starts at the held object. The
//! seeded bug `na-reassigned-lock-held` keeps it; `na-local-lock-no-prefix` prunes under
//! any held locks whose DR fact covers the bases' sites, whatever the path's root.
//!
//! PLDI'06's "unlikely" filter (§5, T9), a negative control: t1 = t2 (the same innermost
//! fork, or both main), or held locks whose points-to sets are one equal singleton.

use std::collections::{BTreeMap, BTreeSet};

use race_oracles::lang::labels::{AccessLabel, Labels, PointId, StaticAccess};
use race_oracles::lang::{walk_block, ForkTarget, StmtKind};
use race_oracles::theorems::must_not_alias::{AbsEffect, Pruned, Stage};
use race_oracles::theorems::rules::fire;

use super::disjoint::disjointly_reachable;
use super::points_to::PointsTo;
use super::{NaikAikenBug, NaikAikenRule};

/// What the stages read: the labels, P, the effect set DR is computed over, the bug.
pub struct Pruner<'a, 'p> {
    labels: &'a Labels<'p>,
    pt: &'a PointsTo,
    dr_effects: &'a BTreeSet<AbsEffect>,
    bug: Option<NaikAikenBug>,
    /// Sites whose allocation runs at most once (no enclosing loop).
    once: BTreeSet<String>,
}

/// One side of a pair.
struct Side<'a> {
    access: &'a StaticAccess,
    /// The innermost enclosing fork (None: main).
    thread: Option<PointId>,
    /// The variable of the innermost fork if it is a `fork(x)` (its `self` is P(x)).
    thread_object: Option<String>,
    /// The held locks' variables.
    locks: Vec<String>,
}

impl<'a, 'p> Pruner<'a, 'p> {
    /// A pruner for `labels`' program.
    pub fn new(labels: &'a Labels<'p>, pt: &'a PointsTo, dr_effects: &'a BTreeSet<AbsEffect>, bug: Option<NaikAikenBug>) -> Self {
        let once = labels
            .points
            .iter()
            .filter_map(|pt| match &pt.stmt.kind {
                StmtKind::New { site: Some(h), .. } if pt.loops.is_empty() => Some(h.clone()),
                _ => None,
            })
            .collect();
        Pruner { labels, pt, dr_effects, bug, once }
    }

    /// The pruned pairs (first stage that proves each) and the "unlikely" pairs.
    pub fn run(&self) -> (Vec<Pruned>, Vec<(AccessLabel, AccessLabel)>) {
        let sides: BTreeMap<AccessLabel, Side<'_>> = self.labels.accesses.iter().map(|a| (a.label, self.side(a))).collect();
        let mut pruned = vec![];
        let mut unlikely = vec![];
        for (a, b) in self.labels.conflicting_pairs() {
            let (Some(s1), Some(s2)) = (sides.get(&a), sides.get(&b)) else { continue };
            let proof = Stage::ALL.into_iter().find_map(|stage| self.stage(stage, s1, s2).map(|why| (stage, why)));
            match proof {
                Some((stage, why)) => {
                    if stage == Stage::GlobalLock {
                        fire(NaikAikenRule::GlobalLock);
                    }
                    pruned.push(Pruned { pair: (a, b), stage, why });
                }
                None => fire(NaikAikenRule::Reported),
            }
            if self.unlikely(s1, s2) {
                unlikely.push((a, b));
            }
        }
        (pruned, unlikely)
    }

    fn side<'s>(&self, a: &'s StaticAccess) -> Side<'s> {
        let point = self.labels.point(a.label.point);
        let thread = point.forks.last().copied();
        let thread_object = thread.and_then(|f| match &self.labels.point(f).stmt.kind {
            StmtKind::Fork { target: ForkTarget::Block { this: Some(x), .. }, .. } => Some(x.clone()),
            _ => None,
        });
        let locks = point.syncs.iter().filter_map(|s| self.held(*s)).collect();
        Side { access: a, thread, thread_object, locks }
    }

    /// The variable of the `sync` at `s`, unless its body assigns it (A5; kept under
    /// `na-reassigned-lock-held`).
    fn held(&self, s: PointId) -> Option<String> {
        let StmtKind::Sync { lock, body } = &self.labels.point(s).stmt.kind else { return None };
        let mut reassigned = false;
        walk_block(body, &mut |t| reassigned |= t.kind.assigned() == Some(lock.as_str()));
        (!reassigned || self.bug == Some(NaikAikenBug::ReassignedLockHeld)).then(|| lock.clone())
    }

    fn stage(&self, stage: Stage, s1: &Side<'_>, s2: &Side<'_>) -> Option<String> {
        match stage {
            Stage::GlobalLock => self.global_lock(s1, s2),
            Stage::LocalLock => self.local_lock(s1, s2),
            Stage::LocalThread => self.local_thread(s1, s2),
        }
    }

    /// P of a variable at an access: `self` is what the innermost `fork(x)`'s x points to.
    fn var(&self, side: &Side<'_>, x: &str) -> BTreeSet<String> {
        match (&side.thread_object, x) {
            (Some(t), "self") => self.pt.var(t),
            _ => self.pt.var(x),
        }
    }

    /// P(base) of an access.
    fn base(&self, side: &Side<'_>) -> BTreeSet<String> {
        self.pt.walk(self.var(side, &side.access.base), &side.access.prefix)
    }

    /// global-lock: the same once-allocated lock held on both sides.
    fn global_lock(&self, s1: &Side<'_>, s2: &Side<'_>) -> Option<String> {
        for l1 in &s1.locks {
            for l2 in &s2.locks {
                let (p1, p2) = (self.var(s1, l1), self.var(s2, l2));
                if p1 == p2 && p1.len() == 1 && p1.iter().all(|h| self.once.contains(h)) {
                    return Some(format!("locks {l1}, {l2}; P = {} (allocated once)", sites(&p1)));
                }
            }
        }
        None
    }

    /// local-lock: held locks that are prefixes of both paths, with disjoint reachability.
    fn local_lock(&self, s1: &Side<'_>, s2: &Side<'_>) -> Option<String> {
        for l1 in &s1.locks {
            for l2 in &s2.locks {
                if let Some(why) = self.rooted(Stage::LocalLock, s1, l1, s2, l2) {
                    return Some(format!("locks {l1}, {l2}; {why}"));
                }
                if self.bug == Some(NaikAikenBug::LocalLockNoPrefix) {
                    if let Some(why) = self.disjoint(s1, l1, s2, l2) {
                        return Some(format!("locks {l1}, {l2}; {why}"));
                    }
                }
            }
        }
        None
    }

    /// local-thread: both in `fork(x)` bodies, paths rooted at `self`.
    fn local_thread(&self, s1: &Side<'_>, s2: &Side<'_>) -> Option<String> {
        let (Some(x1), Some(x2)) = (&s1.thread_object, &s2.thread_object) else { return None };
        self.rooted(Stage::LocalThread, s1, "self", s2, "self").map(|why| format!("threads fork({x1}), fork({x2}); {why}"))
    }

    /// The prefix test with `l1`, `l2` as the roots: depth 0 on both sides, or depth ≥ 1 on
    /// both with the DR fact; mixed depth fails (A4).
    /// `stage` (local-lock or local-thread) only names the rule case that fires.
    fn rooted(&self, stage: Stage, s1: &Side<'_>, l1: &str, s2: &Side<'_>, l2: &str) -> Option<String> {
        let (a1, a2) = (s1.access, s2.access);
        if a1.base != l1 || a2.base != l2 {
            return None;
        }
        let thread = stage == Stage::LocalThread;
        match (a1.prefix.is_empty(), a2.prefix.is_empty()) {
            (true, true) => {
                fire(if thread { NaikAikenRule::LocalThreadDepth0 } else { NaikAikenRule::LocalLockDepth0 });
                Some("the locks are the bases (depth 0)".into())
            }
            (false, false) => {
                let proof = self.disjoint(s1, l1, s2, l2);
                fire(match (&proof, thread) {
                    (None, _) => NaikAikenRule::RootedDrFails,
                    (Some(_), false) => NaikAikenRule::LocalLockDr,
                    (Some(_), true) => NaikAikenRule::LocalThreadDr,
                });
                proof
            }
            _ => {
                fire(NaikAikenRule::MixedDepth);
                None
            }
        }
    }

    /// P(base1) ∩ P(base2) ⊆ DR_K(P(l1) ∪ P(l2)).
    fn disjoint(&self, s1: &Side<'_>, l1: &str, s2: &Side<'_>, l2: &str) -> Option<String> {
        let shared: BTreeSet<String> = self.base(s1).intersection(&self.base(s2)).cloned().collect();
        let big_h: BTreeSet<String> = self.var(s1, l1).union(&self.var(s2, l2)).cloned().collect();
        shared
            .iter()
            .all(|h| disjointly_reachable(self.dr_effects, h, &big_h))
            .then(|| format!("P({}) ∩ P({}) = {} ⊆ DR_K({})", base_path(s1.access), base_path(s2.access), sites(&shared), sites(&big_h)))
    }

    /// PLDI'06's "unlikely": t1 = t2, or equal singleton lock sets.
    fn unlikely(&self, s1: &Side<'_>, s2: &Side<'_>) -> bool {
        s1.thread == s2.thread
            || s1.locks.iter().any(|l1| {
                let p1 = self.var(s1, l1);
                p1.len() == 1 && s2.locks.iter().any(|l2| self.var(s2, l2) == p1)
            })
    }
}

/// An access's base path, `x.f`.
fn base_path(a: &StaticAccess) -> String {
    std::iter::once(a.base.as_str()).chain(a.prefix.iter().map(String::as_str)).collect::<Vec<_>>().join(".")
}

/// `{h1, h2}`.
pub fn sites(s: &BTreeSet<String>) -> String {
    format!("{{{}}}", s.iter().cloned().collect::<Vec<_>>().join(", "))
}
