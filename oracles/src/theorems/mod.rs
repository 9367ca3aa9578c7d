//! Oracles, one per published theorem, the seams their systems under test plug into, and
//! their three-valued verdicts.
//!
//! - [`oracle`]: an oracle ([`Oracle`]: its claim, dialect, generator and check, the one
//!   dispatch) and its [`Budget`]; [`registry`]: every oracle ([`Registry::builtin`]).
//! - [`sut`]: the kinds of system under test ([`SutKind`]), one per seam, and a SUT as an
//!   oracle receives it ([`Sut`]), declared together from one list.
//! - The seams (conventions §6; at most two required methods each, and no implementation
//!   here): [`StaticRaceAnalysis`], [`DynamicDetector`] (with [`DetectorFactory`]),
//!   [`CheckPlacer`], [`AccessFilter`] (with [`FilterFactory`]), [`MustNotAliasAnalysis`],
//!   [`SyncCfgAnalysis`], [`ModelChecker`];
//!   the explorer seam is [`crate::explore::Explorer`].
//! - [`result`]: the one result type, [`OracleResult`].
//! - The oracles: [`racerdx_tp`] (Theorem 6.10), [`racerdx_complete`] (Theorem 5.15),
//!   [`racerdx_reports`] (§3.4 on α), [`explorer_agree`] (the fast explorers against the
//!   naive one), [`fasttrack_precise`] (a precise detector's racy locations,
//!   BigFoot spec §9.1 O0), [`bigfoot_precise`] (placed checks are precise, Theorem 3.9.4),
//!   [`escape_trace_precise`] (escape elision keeps the first race, Theorem 4.5.3, and two
//!   negative controls), [`capsule_first_race`] (capsule filtering keeps it, Theorem 5.4.3,
//!   formal and operational), [`lock_elision`] (a negative control: partial lock elision
//!   breaks race freedom, Fig. 4.1, §5.3), [`naik_aiken_sound`] (Naik-Aiken's typing abstracts
//!   every state and its pruned pairs never race, T1–T7, and the T9 negative control),
//!   [`ldrf_agree`] (the L-DRF semantics agrees with the standard one on race-free programs,
//!   C1–C4), [`ldrf_sound`] (sync-CFG analyses are sound at relevant points, C8, with the
//!   C9 negative controls), [`whole_program`] (a model checker reports a race iff the
//!   program has one).
//!
//! A [`Verdict`] is `pass`, `fail` or `inconclusive`, and a truncated search is never
//! `pass` (docs/design.md, principle 2).

pub mod bigfoot_precise;
pub mod capsule_first_race;
pub mod claim;
pub mod detector;
pub mod escape_trace_precise;
pub mod explorer_agree;
pub mod fasttrack_precise;
pub mod filter;
pub mod ldrf_agree;
pub mod ldrf_sound;
pub mod lock_elision;
pub mod model_checker;
pub mod must_not_alias;
pub mod naik_aiken_sound;
pub mod oracle;
pub mod placer;
pub mod racerdx_complete;
pub mod racerdx_reports;
pub mod racerdx_tp;
pub mod registry;
pub mod result;
pub mod rules;
pub mod static_race;
pub mod sut;
pub mod sync_cfg;
pub mod trace_precision;
pub mod whole_program;

pub use claim::Claim;
pub use detector::{DetectorFactory, DetectorReport, DetectorRun, DynamicDetector, Reported, Traces};
pub use explorer_agree::FastExplorers;
pub use filter::{AccessFilter, Classes, Decision, FilterFactory};
pub use model_checker::{ModelChecker, ModelVerdict};
pub use must_not_alias::{MustNotAliasAnalysis, Typing};
pub use oracle::{Budget, Oracle, Reads, Unexercised};
pub use placer::{CheckPlacer, PlaceError};
pub use registry::Registry;
pub use result::{Item, ItemStatus, OracleResult, SC_EXECUTIONS_ONLY};
pub use static_race::{summaries, AccessPath, AnalysisFailure, RaceReport, ReportSide, StaticRaceAnalysis, Summary};
pub use sut::{Sut, SutKind};
pub use sync_cfg::{Facts, SyncCfgAnalysis};

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
