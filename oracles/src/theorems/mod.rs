//! Oracles, one per published theorem, and their three-valued verdicts.
//!
//! Oracles arrive with later issues (`racerdx-tp`, `bigfoot-precise`, …); what they share is
//! here: a [`Verdict`] is `pass`, `fail` or `inconclusive`, and a truncated search is never
//! `pass` (design.md, principle 2).

pub mod racerdx_complete;
pub mod racerdx_tp;
pub mod static_race;

pub use static_race::{AccessPath, RaceReport, ReportSide, StaticRaceAnalysis, Summary};

/// The result of checking one property on one program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The property holds on every execution within the printed bounds.
    Pass,
    /// A counterexample was found.
    Fail,
    /// A budget was exhausted or a precondition is unmet.
    Inconclusive,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Pass => "pass",
            Verdict::Fail => "fail",
            Verdict::Inconclusive => "inconclusive",
        })
    }
}

impl Verdict {
    /// Parses `pass`, `fail` or `inconclusive`.
    pub fn from_name(s: &str) -> Option<Verdict> {
        [Verdict::Pass, Verdict::Fail, Verdict::Inconclusive].into_iter().find(|v| v.to_string() == s)
    }

    /// `pass` unless the search was incomplete: a truncated search is never `pass`.
    pub fn from_search(found_counterexample: bool, complete: bool) -> Verdict {
        match (found_counterexample, complete) {
            (true, _) => Verdict::Fail,
            (false, true) => Verdict::Pass,
            (false, false) => Verdict::Inconclusive,
        }
    }
}
