//! What a seeded bug is, as the SUT it breaks declares it: a row of its `SEEDED` table
//! ([`Seeded`]), with what the spec predicts under the oracles that judge it ([`Predicted`],
//! one [`Prediction`] per oracle), and how a SUT's build picks the rows that mutant names
//! select ([`select`], [`one`]).
//!
//! A leaf of the crate: it names no other module of it (only the ground truth's `Oracle`),
//! so that the SUTs (`analyses`), the catalogue that lists their tables (`mutants`) and the
//! SUT catalogue that applies them (`suts`) all build on it and never on each other upwards
//! (`tests/layers.rs` keeps the order).

use race_oracles::theorems::Oracle;

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

/// What the spec predicts for a seeded bug, stated by exception: the oracles whose theorem
/// it breaks and those under which it is equivalent, by id. Which oracles judge it is not
/// stated here: an oracle judges a mutant iff it judges the mutant's SUT (the oracle's kind
/// and dialect; the SUT catalogue decides), so an oracle added over an existing kind of SUT
/// edits no row. Under an oracle that judges it, the prediction ([`Predicted::under`]) is:
///
/// - none for a negative control ([`Oracle::negative_control`]): its claim is false of the
///   real SUT already, so a seeded bug can neither break it nor keep it;
/// - none for an oracle the row says never runs the part of the SUT the bug is in
///   ([`Predicted::unexercised_by`]: DPOR's bugs under `explorer-agree-racerdx`);
/// - [`Prediction::BreaksTheorem`] for [`Predicted::breaks`], [`Prediction::Equivalent`] for
///   [`Predicted::equivalent`] and [`Predicted::and_equivalent`];
/// - [`Prediction::Unknown`] for any other: the default, because it is the one prediction
///   that claims nothing. An oracle nobody has thought about for this bug is exploratory:
///   the hunt runs the pair and records what it finds, and fails on neither outcome; a
///   default of `Equivalent` would assert an untested claim, and no prediction at all would
///   hide the pair from the hunt. (It is also what the rows said, before they were keyed
///   this way, for every oracle they left neither broken nor equivalent.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Predicted {
    breaks: &'static [&'static str],
    equivalent: &'static [&'static str],
    unexercised: &'static [&'static str],
}

impl Predicted {
    /// Nothing claimed: [`Prediction::Unknown`] under every oracle that judges it.
    pub const UNKNOWN: Predicted = Predicted { breaks: &[], equivalent: &[], unexercised: &[] };

    /// Breaks the theorems of `oracles` (ids).
    pub const fn breaks(oracles: &'static [&'static str]) -> Predicted {
        Predicted { breaks: oracles, ..Predicted::UNKNOWN }
    }

    /// Equivalent under `oracles` (ids) and breaks nothing.
    pub const fn equivalent(oracles: &'static [&'static str]) -> Predicted {
        Predicted { equivalent: oracles, ..Predicted::UNKNOWN }
    }

    /// These predictions, and equivalent under `oracles` (ids).
    #[must_use]
    pub const fn and_equivalent(self, oracles: &'static [&'static str]) -> Predicted {
        Predicted { equivalent: oracles, ..self }
    }

    /// These predictions, and none under `oracles` (ids), which judge the SUT but never run
    /// the part of it the bug is in.
    #[must_use]
    pub const fn unexercised_by(self, oracles: &'static [&'static str]) -> Predicted {
        Predicted { unexercised: oracles, ..self }
    }

    /// The prediction under `oracle`, which judges the bug (see [`Predicted`]); `None`: it
    /// makes none.
    pub fn under(&self, oracle: &Oracle) -> Option<Prediction> {
        let named = |ids: &[&str]| ids.contains(&oracle.id);
        if oracle.negative_control || named(self.unexercised) {
            None
        } else if named(self.breaks) {
            Some(Prediction::BreaksTheorem)
        } else if named(self.equivalent) {
            Some(Prediction::Equivalent)
        } else {
            Some(Prediction::Unknown)
        }
    }

    /// Every oracle id it names, each with what it says of it (for checks that each names an
    /// oracle that judges the bug, once).
    pub fn named(&self) -> impl Iterator<Item = (&'static str, Option<Prediction>)> + '_ {
        let said = |ids: &'static [&'static str], p: Option<Prediction>| ids.iter().map(move |id| (*id, p));
        said(self.breaks, Some(Prediction::BreaksTheorem)).chain(said(self.equivalent, Some(Prediction::Equivalent))).chain(said(self.unexercised, None))
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
    /// What the spec predicts under the oracles that judge it.
    pub predicted: Predicted,
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
