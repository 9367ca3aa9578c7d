//! Enumeration of interleavings and nondeterministic choices (naive DFS), budgets, and
//! replayable schedules.

pub mod naive;
pub mod schedule;
pub mod truth;

pub use naive::{explore, replay, search_thread, Config, Def36Race, ExploreError, Execution, Outcome, Reached, Stats};
pub use schedule::{Choice, Schedule, ScheduleParseError};
pub use truth::{ground_truth, Run, Witness, WitnessEvent};
