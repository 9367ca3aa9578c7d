//! What a seeded bug is, as the SUT it breaks declares it: a row of its `SEEDED` table
//! ([`Seeded`]), with the spec's [`Prediction`] under each oracle, and how a SUT's build
//! picks the rows that mutant names select ([`select`], [`one`]).
//!
//! A leaf of the crate: it names no other module of it, so that the SUTs (`analyses`), the
//! catalogue that lists their tables (`mutants`) and the SUT catalogue that applies them
//! (`suts`) all build on it and never on each other upwards.

/// What the spec predicts for a mutant under an oracle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Prediction {
    /// The theorem breaks: the oracle must find a counterexample.
    BreaksTheorem,
    /// Observationally equivalent on programs that meet the theorem's hypotheses.
    Equivalent,
    /// The spec does not claim an outcome (exploratory).
    Unknown,
}

impl Prediction {
    /// `breaks-theorem`, `equivalent`, `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Prediction::BreaksTheorem => "breaks-theorem",
            Prediction::Equivalent => "equivalent",
            Prediction::Unknown => "unknown",
        }
    }
}

/// One seeded bug as its SUT declares it: what the catalogue says about it, and the value
/// `B` it sets in the SUT (a bug enum's variant, or a change to the SUT's options).
#[derive(Clone, Copy, Debug)]
pub struct Seeded<B> {
    /// Its name on the command line.
    pub name: &'static str,
    /// The oracle whose theorem it targets.
    pub oracle: &'static str,
    /// What is broken.
    pub description: &'static str,
    /// The spec's prediction under each oracle that judges its SUT, by oracle id.
    pub predicted: &'static [(&'static str, Prediction)],
    /// Where the spec discusses it.
    pub spec: &'static str,
    /// What it sets in the SUT.
    pub bug: B,
}

/// The bugs of `table` that `names` select, in the order named (for SUTs whose mutants
/// combine); `None` if a name is not in the table.
pub fn select<B: Copy>(table: &[Seeded<B>], names: &[&str]) -> Option<Vec<B>> {
    names.iter().map(|n| table.iter().find(|s| s.name == *n).map(|s| s.bug)).collect()
}

/// The one bug of `table` that `names` select: `Some(None)` for no name, `None` for a name
/// not in the table or for more than one name (one bug at a time).
pub fn one<B: Copy>(table: &[Seeded<B>], names: &[&str]) -> Option<Option<B>> {
    match names {
        [] => Some(None),
        [_] => select(table, names).map(|bugs| bugs.first().copied()),
        _ => None,
    }
}
