//! Why no subject could be built ([`SubjectError`]): each case names what was given and
//! what would have fitted.

use race_oracles::lang::Dialect;
use race_oracles::theorems::SutKind;

use super::{analysis_oracles, detector_oracles};

/// Why no subject could be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SubjectError {
    /// A mutant name that is not in the catalogue, or not one of this SUT's.
    #[error("no mutant `{given}` for {sut} (its mutants: {known}; combine with +)")]
    UnknownMutant {
        /// What was given.
        given: String,
        /// The SUT.
        sut: &'static str,
        /// Its mutants.
        known: String,
    },
    /// A catalogued mutant of a SUT that the oracle does not judge (so it could not run).
    #[error("mutant `{given}` breaks {owner}, which {oracle} does not judge; {}", judged_by(judges))]
    ForeignMutant {
        /// What was given.
        given: String,
        /// The SUT it breaks.
        owner: &'static str,
        /// The oracle.
        oracle: &'static str,
        /// The oracles that judge it, in registry order.
        judges: Vec<&'static str>,
    },
    /// A SUT name (`--sut`) that is not in the catalogue, or not of the kind and dialect
    /// the oracle judges.
    #[error("no SUT `{given}` for {oracle} (its SUTs: {fitting}; every SUT: {known})")]
    UnknownSut {
        /// What was given.
        given: String,
        /// The oracle.
        oracle: &'static str,
        /// The SUTs of the oracle's kind and dialect.
        fitting: String,
        /// Every SUT.
        known: String,
    },
    /// An external detector (`--detector-cmd`) for an oracle that judges another kind of SUT.
    #[error("{oracle} judges a {kind:?}, not a dynamic detector; --detector-cmd applies to {}", detector_oracles().join(", "))]
    NotADetector {
        /// The oracle.
        oracle: &'static str,
        /// The kind it judges.
        kind: SutKind,
    },
    /// An external static analysis (`--analysis-cmd`) for an oracle that does not judge a
    /// static analysis's reports.
    #[error("{oracle} judges {what}; --analysis-cmd applies to {}", analysis_oracles().join(", "))]
    NotAnAnalysis {
        /// The oracle.
        oracle: &'static str,
        /// What it judges instead.
        what: String,
    },
    /// A version of a SUT that has none (`fasttrack@2`).
    #[error("{sut} has no versions (given `{sut}@{given}`); name it without `@`")]
    NoVersions {
        /// The SUT.
        sut: &'static str,
        /// The version given.
        given: String,
    },
    /// `--claim` for a SUT that is no dynamic detector (a claim is about a detector's
    /// reports on a trace).
    #[error("--claim {claim}: {sut} is no dynamic detector; a claim is what a detector says about every trace")]
    ClaimOfNoDetector {
        /// The SUT.
        sut: String,
        /// The claim given.
        claim: &'static str,
    },
    /// `--all-traces` for a SUT that is no dynamic detector (only a detector runs on traces
    /// one by one).
    #[error("--all-traces: {sut} is no dynamic detector; only a detector is run trace by trace")]
    AllTracesOfNoDetector {
        /// The SUT.
        sut: String,
    },
    /// A real detector at a version racefuzz does not know, or not installed here.
    #[error(transparent)]
    Real(#[from] crate::real::RealError),
    /// An external SUT that cannot be run as given.
    #[error(transparent)]
    External(#[from] crate::external::ConfigError),
    /// No SUT of the kind and dialect the oracle needs.
    #[error("racefuzz internal bug: no {kind:?} SUT for the {dialect} dialect (oracle {oracle})")]
    NoSut {
        /// The oracle.
        oracle: &'static str,
        /// The kind it needs.
        kind: SutKind,
        /// Its dialect.
        dialect: Dialect,
    },
}

/// The end of a [`SubjectError::ForeignMutant`] message: who judges the mutant instead.
fn judged_by(judges: &[&str]) -> String {
    if judges.is_empty() {
        "no oracle judges it".into()
    } else {
        format!("the oracles that judge it: {}", judges.join(", "))
    }
}
