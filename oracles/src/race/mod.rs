//! The race definitions of the ground truth: per trace, vector-clock happens-before, data
//! races, check races, the first race and precise checks ([`precise_checks`]); per state, RacerDX's Definition 3.6 ([`def36`]),
//! which the explorer evaluates through its state-predicate hook.

pub mod def36;
pub mod first_race;
pub mod hb;
pub mod precise_checks;

pub use first_race::{first_race, FirstRace};
pub use hb::{check_races, data_races, Hb, Race};
