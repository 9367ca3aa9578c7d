//! The seeded-bug catalogue: deliberately broken variants of the systems under test, each
//! selectable by name (`--mutant NAME`), with what the spec predicts under the oracles that
//! judge it ([`Predicted`]: by oracle id, stated by exception, so that an oracle added over
//! an existing kind of SUT edits no row). A mutant predicted to break a theorem must be caught by
//! that theorem's oracle within a fixed budget (`tests/oracles/hunt.rs`); that is how we
//! know the fuzzer has teeth.
//!
//! Each SUT declares its own seeded bugs beside its code, as a table of [`Seeded`] rows
//! (name, description, predictions and the bug value it sets: [`fasttrack::SEEDED`]
//! and so on; the SUTs that live in the ground-truth crate have theirs in [`explorers`] and
//! [`ldrf`]), so a mutant's name is written once. This module lists the tables in catalogue
//! order ([`MUTANTS`]); the SUT catalogue above it applies a SUT's rows when it builds it.

pub mod explorers;
pub mod ldrf;

use std::sync::LazyLock;

use crate::analyses::{bigfoot, capsule, escape, fasttrack, ldrf as ldrf_analyses, naik_aiken, per_access, racerdx};
use crate::seeded::{Predicted, Seeded};

/// One seeded bug in the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct Mutant {
    /// Its name on the command line.
    pub name: &'static str,
    /// The SUT it breaks, by the name of its entry in the SUT catalogue.
    pub sut: &'static str,
    /// The oracle whose theorem it targets.
    pub oracle: &'static str,
    /// What is broken.
    pub description: &'static str,
    /// What the spec predicts under the oracles that judge it; which oracles those are (the
    /// ones that judge its SUT) the SUT catalogue above decides.
    pub predicted: Predicted,
    /// Where the spec discusses it.
    pub spec: &'static str,
}

/// Every mutant, in catalogue order: each SUT's table, named by the SUT it breaks.
pub static MUTANTS: LazyLock<Vec<Mutant>> = LazyLock::new(|| {
    [
        listed("explorers", explorers::SEEDED),
        listed("racerdx", racerdx::SEEDED),
        listed("fasttrack", fasttrack::SEEDED),
        listed("per-access", per_access::SEEDED),
        listed("bigfoot", bigfoot::SEEDED),
        listed("escape", escape::SEEDED),
        listed("capsule", capsule::SEEDED),
        listed("naikaiken", naik_aiken::SEEDED),
        listed("ldrf", ldrf::SEEDED),
        listed("ldrf-analyses", ldrf_analyses::SEEDED),
        listed("tsan", crate::tsan::SEEDED),
        listed("miri", crate::miri::SEEDED),
    ]
    .concat()
});

/// The catalogue entries of `sut`'s table.
fn listed<B>(sut: &'static str, table: &[Seeded<B>]) -> Vec<Mutant> {
    table.iter().map(|s| Mutant { name: s.name, sut, oracle: s.oracle, description: s.description, predicted: s.predicted, spec: s.spec }).collect()
}

/// Looks a mutant up by name.
pub fn find(name: &str) -> Option<&'static Mutant> {
    MUTANTS.iter().find(|m| m.name == name)
}
