//! The summary of one run, the ground truth a person reads: how executions ended, whether
//! any races, on which addresses, and one witness. Every engine fills it in (`truth` runs the
//! machine's programs through an [`super::Explorer`]; `instrumented` and `ldrf` have their
//! own semantics), so it lives here, below them all.

use super::{Stats, Witness};

/// The whole-program race verdict of a run with its exactness label (docs/spec/atomics.md §3.4):
/// the explorers enumerate SC interleavings only, so "no execution races" is exact only when
/// every atomic and fence is `seq_cst` (DRF-SC, spec §3.3); with weaker orders a race-free
/// answer is `inconclusive (SC executions only)` (spec §3.2, L10), never `race-free`. A racy
/// answer is always exact: its witness is an SC execution, which is a consistent C++20
/// execution (spec §3.1). The label depends only on the orders in the program text
/// ([`crate::lang::Program::race_freedom_is_exact`]). Displayed and serialized as the
/// label itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum RaceVerdict {
    /// Some execution races (exact).
    #[serde(rename = "racy")]
    Racy,
    /// No execution races, and the enumeration is exact (exact).
    #[serde(rename = "race-free")]
    RaceFree,
    /// No SC execution races, but orders weaker than `seq_cst` allow non-SC executions that
    /// the enumeration does not see.
    #[serde(rename = "inconclusive (SC executions only)")]
    ScExecutionsOnly,
    /// No race found, but a budget cut the enumeration.
    #[serde(rename = "inconclusive (exploration incomplete)")]
    Incomplete,
}

impl RaceVerdict {
    /// The verdict of an enumeration that found a race or not (`racy`), ran to the end or not
    /// (`complete`), over a program whose race freedom is `exact` over SC executions.
    pub fn of(racy: bool, complete: bool, exact: bool) -> RaceVerdict {
        match (racy, complete, exact) {
            (true, ..) => RaceVerdict::Racy,
            (false, false, _) => RaceVerdict::Incomplete,
            (false, true, true) => RaceVerdict::RaceFree,
            (false, true, false) => RaceVerdict::ScExecutionsOnly,
        }
    }

    /// The verdict of a program made of several runs (racerdx method pairs): racy if one is,
    /// else the least conclusive of the others.
    pub fn combine(verdicts: impl IntoIterator<Item = RaceVerdict>) -> RaceVerdict {
        let vs: Vec<RaceVerdict> = verdicts.into_iter().collect();
        [RaceVerdict::Racy, RaceVerdict::Incomplete, RaceVerdict::ScExecutionsOnly].into_iter().find(|v| vs.contains(v)).unwrap_or(RaceVerdict::RaceFree)
    }

    /// The label, as displayed and serialized.
    pub fn label(self) -> &'static str {
        match self {
            RaceVerdict::Racy => "racy",
            RaceVerdict::RaceFree => "race-free",
            RaceVerdict::ScExecutionsOnly => "inconclusive (SC executions only)",
            RaceVerdict::Incomplete => "inconclusive (exploration incomplete)",
        }
    }
}

impl std::fmt::Display for RaceVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// The ground truth of one run (one set of threads from one family of initial states).
#[derive(Clone, Debug, serde::Serialize)]
pub struct Run {
    /// `threads`, or `m1 ∥ m2` for a racerdx pair.
    pub setup: String,
    /// Thread names with what they run, in column order.
    pub threads: Vec<String>,
    /// Execution counts and completeness.
    pub executions: Stats,
    /// Whether some execution races (Def. 3.6 for racerdx, happens-before otherwise).
    pub racy: bool,
    /// The whole-program verdict with its exactness label (docs/spec/atomics.md §3.4).
    pub verdict: RaceVerdict,
    /// Every address some execution races on, sorted.
    pub racy_addresses: Vec<String>,
    /// The happens-before racy addresses (equal to `racy_addresses` outside racerdx). Only
    /// races found on visited prefixes when the explorer does not preserve traces
    /// (`classes` is then `None`).
    pub hb_racy_addresses: Vec<String>,
    /// Mazurkiewicz classes among the executions ([`super::classes`]); `None` when the
    /// explorer does not preserve traces.
    pub classes: Option<u64>,
    /// Distinct stuck/deadlock descriptions, sorted.
    pub problems: Vec<String>,
    /// Every distinct final state, sorted, as [`super::classes::final_state`] writes it (how
    /// the execution ended, each object's cells, each thread's status; every explorer
    /// preserves them, [`super::Property::Outcomes`]). `None` unless asked for
    /// (`truth::ground_truth_with_final_states`), and for the semantics that do not report
    /// them: Naik-Aiken's instrumented semantics and L-DRF's standard semantics.
    pub final_states: Option<Vec<String>>,
    /// One racing execution, the first in exploration order.
    pub witness: Option<Witness>,
}

#[cfg(test)]
mod tests {
    use super::RaceVerdict::{self, *};

    /// docs/spec/atomics.md §3.4: racy is exact; race-free only when the enumeration is exact
    /// (every atomic and fence seq_cst) and complete; a cut enumeration is never race-free.
    #[test]
    fn verdict_labels() {
        assert_eq!([RaceVerdict::of(true, true, false), RaceVerdict::of(true, false, true)], [Racy, Racy]);
        assert_eq!([RaceVerdict::of(false, true, true), RaceVerdict::of(false, true, false), RaceVerdict::of(false, false, true)], [RaceFree, ScExecutionsOnly, Incomplete]);
        assert_eq!(RaceVerdict::combine([RaceFree, ScExecutionsOnly, Incomplete]), Incomplete);
        assert_eq!(RaceVerdict::combine([RaceFree, ScExecutionsOnly]), ScExecutionsOnly);
        assert_eq!(RaceVerdict::combine([ScExecutionsOnly, Racy]), Racy);
        assert_eq!(RaceVerdict::combine([]), RaceFree);
        assert_eq!(ScExecutionsOnly.to_string(), "inconclusive (SC executions only)");
    }

    /// The label is decided from the program text alone.
    #[test]
    fn exactness_is_static() {
        let p = |body: &str| crate::lang::parse(&format!("dialect bfj\ninit {{ o = new }}\nthread {{ {body} }}\n")).unwrap();
        assert!(p("o.f = 1").race_freedom_is_exact());
        assert!(p("o.f.store(1, seq_cst); r = o.f.cas(0, 1, seq_cst, seq_cst); fence(seq_cst)").race_freedom_is_exact());
        assert!(!p("r = o.f.cas(0, 1, seq_cst, acquire)").race_freedom_is_exact());
        assert!(!p("fence(acq_rel)").race_freedom_is_exact());
    }
}
