//! The stateful explorer: the depth-first engine (`super::dfs`) that the naive explorer
//! uses, with a visited set of states ([`State::key`]) that this module owns. A path that reaches a
//! state explored before stops there, as an execution that ends [`Outcome::Merged`]: every
//! continuation of that state was, or is being, explored from its first visit.
//!
//! What it preserves ([`ExplorerKind::preserves`]): every reachable state is expanded once,
//! so the state predicate ([`Config::state_predicate`], Def. 3.6) sees every reachable
//! branching state and every final state and outcome is reached; witnesses stay replayable
//! schedules (the search path to the state). Traces are not preserved: a merged path is a
//! prefix. The state space of a racerdx pair is finite (bounded loops, a bounded lazy heap),
//! so the search ends where the naive one can spend its whole budget inside nested loops of
//! one initial heap. `tests/explore.rs` cross-checks it against the
//! naive explorer.
//!
//! Bounds: `max_states` bounds the visited set, `max_executions` counts the paths that
//! end other than merged, `max_steps` cuts a path as before; each makes the result
//! incomplete, never a pass.
//!
//! What it costs: the naive explorer's work per step, plus one key per state reached (a walk
//! of the state into the crate's 128-bit fingerprint, `machine::key`) and one hash-set probe;
//! each reachable state is expanded once, so time is linear in the reachable states times
//! the threads' alternatives. Memory: 16 bytes (plus table overhead) per visited state,
//! and the current path.
//!
//! [`ExplorerKind::preserves`]: super::ExplorerKind::preserves

use std::collections::HashSet;
use std::ops::ControlFlow;

use super::dfs::Merge;
#[cfg(doc)]
use super::explorer::Outcome;
use super::explorer::{Config, Execution, Explorer, Stats};
use crate::machine::{Machine, State};

/// The stateful explorer (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stateful {
    /// A seeded bug, for the `explorer-agree` oracles' mutants (`None`: the real explorer,
    /// the only one [`super::ExplorerKind::get`] hands out).
    pub seeded: Option<StatefulBug>,
}

/// Seeded bugs of the stateful explorer: parts of the state left out of the visited set's
/// key, so that states which differ there are merged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatefulBug {
    /// The key leaves out the threads' locals.
    KeyWithoutLocals,
    /// The key leaves out every object's cells and array elements.
    KeyWithoutHeap,
}

impl Stateful {
    /// The real stateful explorer.
    pub const REAL: Stateful = Stateful { seeded: None };

    fn key(&self, st: &State<'_>) -> u128 {
        match self.seeded {
            None => st.key(),
            Some(StatefulBug::KeyWithoutLocals) => st.key_without_locals(),
            Some(StatefulBug::KeyWithoutHeap) => {
                let mut s = st.clone();
                for o in &mut s.objects {
                    o.fields.clear();
                    o.elems = None;
                }
                s.key()
            }
        }
    }
}

impl Explorer for Stateful {
    fn explore<'p>(&self, m: &Machine<'p>, init: State<'p>, cfg: &Config, visit: &mut dyn FnMut(&Execution<'_, 'p>) -> ControlFlow<()>) -> Stats {
        let mut visited = Visited { explorer: *self, keys: HashSet::new() };
        super::dfs::explore(m, init, cfg, visit, Some(&mut visited))
    }
}

/// The visited set: the keys of every state reached so far.
struct Visited {
    explorer: Stateful,
    keys: HashSet<u128>,
}

impl<'p> Merge<'p> for Visited {
    fn seen(&mut self, st: &State<'p>) -> bool {
        !self.keys.insert(self.explorer.key(st))
    }

    fn states(&self) -> u64 {
        self.keys.len() as u64
    }
}
