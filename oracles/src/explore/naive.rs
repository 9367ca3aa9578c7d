//! The naive explorer: depth-first enumeration of every interleaving and every
//! nondeterministic choice, with no visited set and no partial-order reduction. This is the
//! trusted base (docs/design.md, principle 1) that `explorer-agree` checks the stateful search
//! and DPOR against. The walk itself is the engine in `super::dfs`, which the stateful
//! explorer shares; the naive explorer passes it nothing to merge with.
//!
//! Two reductions it does make, both opt-in through [`Config`], both about steps that
//! commute with every step of every other thread:
//! - [`Config::eager_local`] (the default): a thread whose next step is local (it touches
//!   only its own locals and control, [`Machine::is_local`]) runs alone. That keeps every
//!   trace, every final state and every state in which all threads stand at non-local steps
//!   (docs/spec/bigfoot.md §10.4: invisible steps commute with other threads' steps);
//!   `tests/explore.rs` checks it against the fully naive enumeration
//!   (`--all-interleavings`).
//! - [`Config::eager_checks`] (only `bigfoot-precise` sets it, with `eager_local`): a
//!   thread's `check` steps run alone too. A check changes no state, and its happens-before
//!   relation to every other thread's operation depends only on its program-order position
//!   among its own thread's synchronization (docs/spec/bigfoot.md §10.4), so interleavings that
//!   differ only in where checks sit have the same check races and data races. It drops
//!   traces that differ in the order of checks, which is why no other oracle sets it.
//!
//! What it costs: one execution per interleaving of the non-local steps (times the choices
//! and lazy-heap values), so C(2n, n) for two threads of n independent steps; memory is the
//! current path.

use std::ops::ControlFlow;

use super::explorer::{Config, Execution, Explorer, Stats};
use crate::machine::*;

/// The naive explorer (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct Naive;

impl Explorer for Naive {
    fn explore<'p>(&self, m: &Machine<'p>, init: State<'p>, cfg: &Config, visit: &mut dyn FnMut(&Execution<'_, 'p>) -> ControlFlow<()>) -> Stats {
        super::dfs::explore(m, init, cfg, visit, None)
    }
}
