//! Race ground truth per trace: vector-clock happens-before, data races, check races and the
//! first race. RacerDX's Definition 3.6 is a property of states and lives in the explorer
//! (`explore::naive`, `Def36Race`).

pub mod first_race;
pub mod hb;
pub mod vclock;

pub use first_race::{first_race, FirstRace};
pub use hb::{check_races, data_races, Clocks, Hb, Race};
pub use vclock::VClock;
