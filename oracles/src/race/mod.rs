//! The race definitions of the ground truth: per trace, vector-clock happens-before, data
//! races, check races and the first race; per state, RacerDX's Definition 3.6 ([`def36`]),
//! which the explorer evaluates through its state-predicate hook.

pub mod def36;
pub mod first_race;
pub mod hb;
pub mod vclock;

pub use first_race::{first_race, FirstRace};
pub use hb::{check_races, data_races, Clocks, Hb, Race};
pub use vclock::VClock;
