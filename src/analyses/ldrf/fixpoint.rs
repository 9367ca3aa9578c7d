//! The sync-CFG fixpoint (docs/spec/ldrf.md §5.1): the per-thread graphs plus an edge n̄ → n from
//! every post-release point n̄ of a lock m to every acquire n of m (G full: every acquire
//! reads every post-release point of its lock), with the domain's mix at acquires, solved
//! by a worklist over instructions from a(ent_t) = {0̄}.
//!
//! - assign/assume/assert/skip: a(n') ⊔= ⟦c⟧ a(n) (an assert is a non-blocking read, A1);
//! - release: a(n') ⊔= a(n) (the post-release point doubles as the buffer);
//! - acquire(m): a(n') ⊔= mix(a(n), a(n̄) for every post-release point n̄ of m), the source
//!   a(n) and accumulation as §9 A4 resolves the OCR.
//!
//! No widening: every domain here is a finite lattice (values mod K, spec §6.2 (a)) and each
//! update only grows a(n'), so the worklist stops. A domain over ℤ would need one; this
//! module would then have to apply it at loop heads ([`loop_heads`]).

use std::collections::VecDeque;

use race_oracles::ldrf::cfg::{Cfg, Cmd, Edge, Instr};
use race_oracles::theorems::rules::fire;

use super::rules::SyncCfgRule as R;

/// A domain the fixpoint runs (⊥ is `None` throughout).
pub trait Domain {
    /// An abstract element (never ⊥).
    type Elem: Clone + PartialEq;

    /// a(ent_t): every variable 0.
    fn init(&self, cfg: &Cfg) -> Self::Elem;

    /// The join at a location that already holds `old` (`loop_head`: `n` closes a loop).
    fn join(&self, old: &Self::Elem, new: &Self::Elem, loop_head: bool) -> Self::Elem;

    /// The mix at an acquire of what reaches it (at least one element).
    fn mix(&self, inputs: &[&Self::Elem]) -> Self::Elem;

    /// ⟦c⟧ of an instruction other than acquire and release; `None` when no environment
    /// passes (an assume that never holds).
    fn post(&self, cfg: &Cfg, edge: &Instr, a: &Self::Elem) -> Option<Self::Elem>;
}

/// Seeded bugs of the fixpoint itself (rows of [`super::SEEDED`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wiring {
    /// `sync-acquire-ignores-buffers`: an acquire reads only its own source (no sync-CFG
    /// edges).
    pub acquire_ignores_buffers: bool,
    /// `sync-release-feeds-nothing`: a release edge does not feed its post-release point.
    pub release_feeds_nothing: bool,
}

/// The locations that close a loop: targets of an edge from a later location (the builder
/// numbers a loop's body after its head).
pub fn loop_heads(cfg: &Cfg) -> Vec<bool> {
    let mut heads = vec![false; cfg.owner.len()];
    for e in &cfg.edges {
        if e.src > e.dst {
            heads[e.dst.index()] = true;
        }
    }
    heads
}

/// The least fixpoint: the element at every location (`None`: not reached).
pub fn solve<D: Domain>(cfg: &Cfg, d: &D, wiring: Wiring) -> Vec<Option<D::Elem>> {
    let n = cfg.owner.len();
    let heads = loop_heads(cfg);
    let mut a: Vec<Option<D::Elem>> = vec![None; n];
    for &e in &cfg.entries {
        a[e.index()] = Some(d.init(cfg));
    }
    // Who must run again when a(n) grows: the instructions leaving n, and, at a
    // post-release point of m, every acquire of m.
    let mut readers: Vec<Vec<Edge>> = cfg.out.clone();
    for (i, e) in cfg.edge_ids().zip(&cfg.edges) {
        if let Cmd::Acquire(m) = e.cmd {
            for r in cfg.release_points(m) {
                readers[r.index()].push(i);
            }
        }
    }
    let mut queued = vec![true; cfg.edges.len()];
    let mut work: VecDeque<Edge> = cfg.edge_ids().collect();
    while let Some(i) = work.pop_front() {
        queued[i.index()] = false;
        let edge = cfg.edge(i);
        let Some(src) = a[edge.src.index()].as_ref() else { continue };
        let out = match edge.cmd {
            Cmd::Acquire(m) if !wiring.acquire_ignores_buffers => {
                let points = cfg.release_points(m);
                let mut inputs = vec![src];
                inputs.extend(points.iter().filter_map(|&r| a[r.index()].as_ref()));
                let mixed = d.mix(&inputs);
                if inputs.len() == 1 {
                    fire(R::AcquireAlone);
                } else {
                    fire(R::AcquireMix);
                    // Remark 11: with G full, a thread's own release feeds its next acquire.
                    if points.iter().any(|&r| a[r.index()].is_some() && cfg.owner[r.index()] == cfg.owner[edge.src.index()]) {
                        fire(R::AcquireOwnRelease);
                    }
                }
                if mixed != *src {
                    fire(R::AcquireImports);
                }
                Some(mixed)
            }
            Cmd::Acquire(_) => Some(src.clone()),
            Cmd::Release(_) if wiring.release_feeds_nothing => None,
            Cmd::Release(_) => {
                fire(R::Release);
                Some(src.clone())
            }
            _ => {
                let out = d.post(cfg, edge, src);
                fire(match (&edge.cmd, &out) {
                    (Cmd::Assign(..), _) => R::Assign,
                    (Cmd::Nondet(..), _) => R::Nondet,
                    (Cmd::Assume(_), None) => R::AssumeBlocks,
                    (Cmd::Assume(_), Some(o)) if o != src => R::AssumeRefines,
                    (Cmd::Assume(_), Some(_)) => R::AssumeKeeps,
                    (Cmd::Assert(_), _) => R::Assert,
                    _ => R::Skip,
                });
                out
            }
        };
        let Some(out) = out else { continue };
        let dst = edge.dst.index();
        let new = match &a[dst] {
            None => out,
            Some(old) => {
                let new = d.join(old, &out, heads[dst]);
                if new != *old {
                    fire(if heads[dst] { R::JoinLoopHead } else { R::JoinMerge });
                }
                new
            }
        };
        if a[dst].as_ref() != Some(&new) {
            a[dst] = Some(new);
            for &r in &readers[dst] {
                if !queued[r.index()] {
                    // An acquire that does not leave dst is queued by a sync-CFG edge.
                    if cfg.edge(r).src.index() != dst {
                        fire(R::BufferRequeue);
                    }
                    queued[r.index()] = true;
                    work.push_back(r);
                }
            }
        }
    }
    if a.iter().any(Option::is_none) {
        fire(R::Unreached);
    }
    a
}
