//! Enumeration of interleavings and nondeterministic choices: the [`Explorer`] seam and its
//! implementations (the naive DFS, the stateful search with a visited set, optimal DPOR) over
//! one depth-first engine (`dfs`), budgets ([`Config`]), replayable schedules, and
//! the ground truth of whole programs ([`ground_truth`]) with structured witnesses.

pub mod classes;
mod dfs;
pub mod dpor;
mod explorer;
pub mod naive;
mod replay;
pub mod schedule;
pub mod stateful;
pub mod truth;
pub mod witness;

pub use explorer::{Config, Execution, ExploreError, Explorer, ExplorerKind, Outcome, Property, StatePredicate, StateRace, Stats, MAX_STATES};
pub use naive::Naive;
pub use replay::{replay_filling_heap, search_thread, Reached};
pub use schedule::{Choice, Schedule, ScheduleParseError};
pub use truth::{ground_truth, replay, ReplayError, Replayed, Run};
pub use witness::{Names, RaceDefinition, Witness, WitnessEvent};
