//! Rule coverage of a system under test by its oracle's generator: the
//! share of generated programs on which each case of the SUT's spec rules fires, counted
//! from the SUT's behaviour ([`race_oracles::theorems::rules`]), not from the programs'
//! syntax. `racefuzz gen ORACLE --stats` prints it; `tests/rules.rs` holds every oracle's
//! generator to the floor.

use race_oracles::lang::Program;
use race_oracles::theorems::rules::{record, Fired, Tally};
use race_oracles::theorems::Oracle;
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::campaign;
use crate::suts::{self, Subject};

/// Runs `count` programs of `oracle`'s generator (drawn as a campaign with `seed` draws
/// them) through the oracle against `subject`, recording the rule cases the SUT takes.
pub fn measure(oracle: &Oracle, subject: &Subject, count: usize, seed: u64) -> Tally {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut tally = Tally::default();
    for _ in 0..count {
        let p = campaign::generate(oracle, subject, &mut rng);
        tally.add(&observe(oracle, subject, &p));
    }
    tally
}

/// The rule cases `subject` takes while `oracle` judges it on `p` (at the campaign's bounds).
pub fn observe(oracle: &Oracle, subject: &Subject, p: &Program) -> Fired {
    record(|| suts::check(oracle, p, subject, suts::campaign_bounds())).1
}
