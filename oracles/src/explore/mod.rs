//! Enumeration of interleavings and nondeterministic choices: the [`Explorer`] seam and its
//! implementations (the naive DFS, the stateful search with a visited set, optimal DPOR) over
//! one depth-first engine (`dfs`), budgets ([`Config`]), replayable schedules, and what a
//! run's summary holds ([`Run`], its structured [`Witness`]). It knows no oracle and no other
//! semantics: the dispatcher that picks an engine per dialect is `truth`, above it.

pub mod classes;
mod dfs;
pub mod dpor;
mod explorer;
pub mod naive;
mod replay;
mod run;
pub mod schedule;
pub mod stateful;
pub mod witness;

pub use explorer::{Config, Execution, ExploreError, Explorer, ExplorerKind, Outcome, Property, StatePredicate, StateRace, Stats, MAX_STATES};
pub use naive::Naive;
pub use replay::{replay_filling_heap, search_thread, Reached, ThreadSearch};
pub use run::{RaceVerdict, Run};
pub use schedule::{Choice, Schedule, ScheduleParseError};
pub use witness::{CheckCover, DetectorView, FilterView, Names, RaceDefinition, SutView, Witness, WitnessEvent};
