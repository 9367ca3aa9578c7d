//! The race definitions of the ground truth: per trace, vector-clock happens-before, data
//! races, check races, the first race and precise checks ([`precise_checks`]); with atomics,
//! C++20 happens-before written literally ([`literal`], docs/spec/atomics.md §2); per state,
//! RacerDX's Definition 3.6 ([`def36`]), which the explorer evaluates through its
//! state-predicate hook; and the trace shapes where detectors with bounded state are tested
//! ([`limits`]).

pub mod def36;
pub mod first_race;
pub mod hb;
pub mod limits;
pub mod literal;
pub mod precise_checks;

pub use first_race::{first_race, FirstRace};
pub use hb::{check_races, clocks_agree_with_literal, data_races, data_races_by_clocks, Hb, Race};
