//! The explorer seam (conventions §6): what every explorer takes ([`Config`]), what it hands
//! to its visitor ([`Execution`]) and returns ([`Stats`]), and the [`Explorer`] trait that
//! the ground truth (`truth`, above this module), `racefuzz replay` and the oracles run
//! through. Explorers form a closed set, [`ExplorerKind`]: the naive DFS
//! ([`super::naive`]), the stateful search ([`super::stateful`]) and optimal DPOR
//! ([`super::dpor`]), the fast two cross-checked against the naive one by the
//! `explorer-agree` oracles (docs/design.md, principle 1). Each states what it preserves
//! ([`ExplorerKind::preserves`]) and callers choose by [`Property`].
//!
//! A state property such as RacerDX's Definition 3.6 is not computed by an explorer: the
//! explorer calls [`Config::state_predicate`] at every branching state and records what it
//! returns ([`StateRace`]); the predicate itself lives in `race/`.

use std::ops::ControlFlow;

use super::schedule::Schedule;
use super::Choice;
use crate::machine::{Event, Machine, State};
use crate::race::def36::EnabledPair;

/// A predicate on states, evaluated by the explorer at every branching state (not at
/// leaves, nor while the initial heap is being fixed): the conflicting pairs it finds.
pub type StatePredicate = for<'p> fn(&Machine<'p>, &State<'p>) -> Vec<EnabledPair>;

/// The explorers, a closed set (conventions §6: a closed set is an enum; the trait is the
/// seam they share).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExplorerKind {
    /// Depth-first enumeration of every interleaving and choice ([`super::naive`]).
    #[default]
    Naive,
    /// The same search with a visited set of states ([`super::stateful`]): a path that
    /// reaches an explored state stops there ([`Outcome::Merged`]).
    Stateful,
    /// Optimal dynamic partial-order reduction ([`super::dpor`]): one execution per
    /// Mazurkiewicz class.
    Dpor,
}

/// What a caller asks of an exploration, to choose an explorer that preserves it
/// ([`ExplorerKind::preserves`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Property {
    /// The findings of [`Config::state_predicate`] (Def. 3.6 races): a property of states.
    StateRaces,
    /// The set of final states and of how executions end (terminated, stuck, deadlocked).
    Outcomes,
    /// What is the same on every execution of a Mazurkiewicz class (docs/spec/dpor.md): the
    /// happens-before races and racy addresses, and the class count itself.
    Classes,
    /// What depends on the order of independent events too: the first race of each
    /// linearization, a detector's order-dependent state, execution counts.
    Traces,
}

impl ExplorerKind {
    /// The explorer itself.
    pub fn get(self) -> &'static dyn Explorer {
        match self {
            ExplorerKind::Naive => &super::naive::Naive,
            ExplorerKind::Stateful => &super::stateful::Stateful::REAL,
            ExplorerKind::Dpor => &super::dpor::Dpor::REAL,
        }
    }

    /// Whether this explorer's visits answer `p` exactly (within the bounds). The naive
    /// explorer preserves everything. The stateful one visits every reachable state once,
    /// so it preserves state properties and outcomes, but a path that merges into an
    /// explored state is cut short: its trace is a prefix, so trace properties are not
    /// preserved (a race found on a prefix is real; a missing one proves nothing). DPOR
    /// visits one execution of every class: class properties and outcomes (the final state
    /// and how a run ends are the same on a whole class), not states the visited
    /// linearizations skip (Def. 3.6) nor order-dependent ones.
    pub fn preserves(self, p: Property) -> bool {
        match self {
            ExplorerKind::Naive => true,
            ExplorerKind::Stateful => matches!(p, Property::StateRaces | Property::Outcomes),
            ExplorerKind::Dpor => matches!(p, Property::Classes | Property::Outcomes),
        }
    }

    /// The fastest explorer that preserves every property of `ps`: how oracles and the
    /// command line choose. Stateful search is tried first where it
    /// applies: on a racerdx pair (the only programs with state properties) it is the fast
    /// one, and DPOR runs the naive enumeration there anyway (see [`super::dpor`]).
    pub fn fastest_for(ps: &[Property]) -> ExplorerKind {
        [ExplorerKind::Stateful, ExplorerKind::Dpor, ExplorerKind::Naive].into_iter().find(|e| ps.iter().all(|&p| e.preserves(p))).unwrap_or_default()
    }

    /// The name printed with the bounds.
    pub fn name(self) -> &'static str {
        match self {
            ExplorerKind::Naive => "naive",
            ExplorerKind::Stateful => "stateful",
            ExplorerKind::Dpor => "dpor",
        }
    }
}

/// An exhaustive explorer of one program from one initial state. One required method and
/// one provided;
/// an implementation must visit every execution within the bounds of its [`Config`] (or
/// say, in [`Stats::complete`], that it did not), and replay any schedule it printed.
pub trait Explorer {
    /// Explores every execution from `init`, calling `visit` on each; `visit` may stop
    /// the search early with `ControlFlow::Break` (the result is then incomplete).
    fn explore<'p>(&self, m: &Machine<'p>, init: State<'p>, cfg: &Config, visit: &mut dyn FnMut(&Execution<'_, 'p>) -> ControlFlow<()>) -> Stats;

    /// Runs the one execution that `schedule` names and calls `visit` on it. With
    /// `complete_prefix`, a schedule that ends early is completed by always taking the
    /// first available choice (a Def. 3.6 witness schedule stops at the racing state).
    ///
    /// The schedules of every built-in explorer are paths of the naive explorer's tree
    /// (local steps run eagerly in all three), so the provided method replays there.
    ///
    /// # Errors
    /// [`ExploreError`] when the schedule does not fit the program ("is the schedule from
    /// this program and these bounds?").
    fn replay<'p>(
        &self,
        m: &Machine<'p>,
        init: State<'p>,
        cfg: &Config,
        schedule: &Schedule,
        complete_prefix: bool,
        visit: &mut dyn FnMut(&Execution<'_, 'p>),
    ) -> Result<(), ExploreError> {
        super::replay::replay(m, init, cfg, schedule, complete_prefix, visit)
    }
}

/// Exploration bounds. Every one is printed with the results.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Config {
    /// K: iterations of each instance of a nondeterministic loop (`while *`).
    pub loop_bound: u32,
    /// Stop after this many executions (incomplete). The stateful explorer counts the
    /// executions that end other than merged: a merge costs one lookup, and the states
    /// bound those ([`Config::max_states`]).
    pub max_executions: u64,
    /// The stateful explorer: stop after this many distinct states (incomplete).
    pub max_states: u64,
    /// Cut an execution after this many steps (truncated, incomplete).
    pub max_steps: u32,
    /// At most this many lazily created initial objects (RacerDX pair mode).
    pub heap_bound: u32,
    /// A state predicate evaluated at every branching state, whose findings each
    /// [`Execution`] carries (`Some(race::def36::enabled_pairs)` for RacerDX's Def. 3.6).
    #[serde(skip)]
    pub state_predicate: Option<StatePredicate>,
    /// Which explorer runs the search ([`ExplorerKind::get`]).
    pub explorer: ExplorerKind,
    /// Run local steps eagerly: when some thread's next step is local
    /// ([`Machine::is_local`]), only that thread is scheduled. Local steps commute with
    /// everything, so this keeps every trace (event sequence), every final state and every
    /// state in which all threads stand at non-local steps (hence every Def. 3.6 race); it
    /// only drops interleavings that differ in where silent steps sit. `false` gives the
    /// fully naive enumeration; `tests/explore.rs` checks that both find the same traces.
    /// Under truncation the two differ: a thread in a long local loop runs alone until the
    /// step budget cuts it, so other threads' races may not be reached (the result is then
    /// incomplete, never a pass).
    pub eager_local: bool,
    /// With `eager_local`, the naive explorer also runs a thread's `check` steps eagerly,
    /// as if they were local (docs/spec/bigfoot.md §10.4): a check changes no state, and its
    /// happens-before relation to every other thread's operation depends only on its place
    /// among its own thread's synchronization, so the interleavings that differ only in
    /// where checks sit have the same check races and data races. The placer oracle
    /// (`bigfoot-precise`) sets it; it is off everywhere else, since check events order the
    /// traces the other explorers and the class counts compare.
    pub eager_checks: bool,
    /// The naive explorer ends an execution at its first event that is a capsule violation
    /// (CapJava's operational mode, [`crate::machine::Machine::operational`]), as
    /// [`Outcome::Violated`]. `capsule-first-race-operational` sets it: its claim ends at
    /// the first violation (docs/spec/escape_capsule.md §9.4), so what follows is owed nothing.
    pub stop_at_violation: bool,
    /// Stop (incomplete) once this instant has passed: a campaign's wall-clock budget.
    #[serde(skip)]
    pub deadline: Option<std::time::Instant>,
}

/// The default state budget of the stateful explorer. A visited state costs 16 bytes of
/// key plus the table's overhead, so this many stay well under 100 MB.
pub const MAX_STATES: u64 = 2_000_000;

impl Default for Config {
    fn default() -> Config {
        Config {
            loop_bound: 2,
            max_executions: 200_000,
            max_states: MAX_STATES,
            max_steps: 2_000,
            heap_bound: 3,
            state_predicate: None,
            explorer: ExplorerKind::Naive,
            eager_local: true,
            eager_checks: false,
            stop_at_violation: false,
            deadline: None,
        }
    }
}

/// How an execution ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Outcome {
    /// Every thread finished.
    Terminated,
    /// Some thread cannot step and never will by itself (null dereference, unlock at depth 0,
    /// capsule violation, failed assert, …); the first such thread is named.
    Stuck {
        /// The stuck thread.
        thread: String,
        /// Its line.
        line: u32,
        /// Why.
        reason: String,
    },
    /// Every unfinished thread is blocked waiting.
    Deadlock {
        /// `thread: reason` for each blocked thread.
        blocked: Vec<String>,
    },
    /// An `assume` failed.
    Infeasible,
    /// The step budget cut the execution.
    Truncated,
    /// The path reached a state explored before (stateful search only): what follows was
    /// visited from there.
    Merged,
    /// The last event is a capsule violation and [`Config::stop_at_violation`] is set.
    Violated,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Terminated => f.write_str("terminated"),
            Outcome::Stuck { thread, line, reason } => write!(f, "stuck: {thread} at line {line}: {reason}"),
            Outcome::Deadlock { blocked } => write!(f, "deadlock: {}", blocked.join("; ")),
            Outcome::Infeasible => f.write_str("infeasible (an assume failed)"),
            Outcome::Truncated => f.write_str("truncated at the step budget"),
            Outcome::Merged => f.write_str("merged into an explored state"),
            Outcome::Violated => f.write_str("stopped at its first capsule violation"),
        }
    }
}

/// A finding of the state predicate, with the position of its state in the execution.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct StateRace {
    /// The state: after this many events of the trace.
    pub at: usize,
    /// … and this many choices of the schedule.
    pub choices: usize,
    /// … and this many lazily fixed initial-heap facts (`State::initial_facts`).
    pub facts: usize,
    /// The two accesses enabled together.
    pub pair: EnabledPair,
}

/// One finished execution, as the visitor sees it.
#[derive(Debug)]
pub struct Execution<'a, 'p> {
    /// The events.
    pub trace: &'a [Event],
    /// The choices that reproduce it.
    pub schedule: &'a [Choice],
    /// How it ended.
    pub outcome: &'a Outcome,
    /// The final state (for object and thread names).
    pub state: &'a State<'p>,
    /// What the state predicate found in states along this execution (empty without
    /// [`Config::state_predicate`]).
    pub state_races: &'a [StateRace],
}

/// Counts over a whole exploration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Executions visited.
    pub executions: u64,
    /// … that terminated.
    pub terminated: u64,
    /// … that got stuck.
    pub stuck: u64,
    /// … that deadlocked.
    pub deadlocked: u64,
    /// … that were infeasible.
    pub infeasible: u64,
    /// … that hit the step budget.
    pub truncated: u64,
    /// … that merged into an explored state (stateful search).
    pub merged: u64,
    /// … that stopped at a capsule violation ([`Config::stop_at_violation`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub violated: u64,
    /// Distinct states in the visited set (stateful search; 0 otherwise).
    pub states: u64,
    /// Branches DPOR dropped as redundant: sleep-set blocked, or a wakeup sequence the state
    /// could not follow (0 is what optimality promises; see [`super::dpor`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub redundant: u64,
    /// Steps taken, summed over executions (a shared prefix counts once per execution).
    pub steps: u64,
    /// Events (trace entries), summed over executions.
    pub events: u64,
    /// Whether the search covered everything within the loop and heap bounds.
    pub complete: bool,
    /// Whether some nondeterministic loop was cut at the loop bound.
    pub loop_bound_hit: bool,
}

impl Stats {
    /// Counts one execution that ended with `outcome` (a truncated one makes the
    /// exploration incomplete).
    pub fn count(&mut self, outcome: &Outcome) {
        self.executions += 1;
        match outcome {
            Outcome::Terminated => self.terminated += 1,
            Outcome::Stuck { .. } => self.stuck += 1,
            Outcome::Deadlock { .. } => self.deadlocked += 1,
            Outcome::Infeasible => self.infeasible += 1,
            Outcome::Truncated => {
                self.truncated += 1;
                self.complete = false;
            }
            Outcome::Merged => self.merged += 1,
            Outcome::Violated => self.violated += 1,
        }
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Errors of the explorer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExploreError {
    /// A replayed schedule asked for a choice that is not available.
    #[error("schedule diverges at position {pos}: `{choice}` is not enabled here (enabled: {enabled}); is the schedule from this program and these bounds?")]
    Diverged {
        /// 1-based position in the schedule.
        pos: usize,
        /// The choice asked for.
        choice: String,
        /// The choices available.
        enabled: String,
    },
    /// A replayed schedule ended before the execution did.
    #[error("schedule ends after {len} choices but the execution goes on (next: {enabled})")]
    TooShort {
        /// Schedule length.
        len: usize,
        /// The choices available.
        enabled: String,
    },
}
