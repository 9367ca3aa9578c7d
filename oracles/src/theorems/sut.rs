//! The seams a system under test plugs into: [`Sut`], as an oracle receives one, and its
//! [`SutKind`], as an [`super::Oracle`] names the one it judges.
//!
//! Both enums come from one list (the `seams!` invocation below), so a new kind of SUT is
//! its seam (a trait) and one line there (its kind, its variant and what the variant
//! borrows); [`SutKind::ALL`] and [`Sut::kind`] follow from it. The crate knows no
//! implementation; the SUT crate lends one per kind.

use super::detector::DetectorFactory;
use super::explorer_agree::FastExplorers;
use super::filter::FilterFactory;
use super::model_checker::ModelChecker;
use super::must_not_alias::MustNotAliasAnalysis;
use super::placer::CheckPlacer;
use super::static_race::StaticRaceAnalysis;
use super::sync_cfg::SyncCfgAnalysis;

/// Declares [`SutKind`] and [`Sut`] from one list of `Kind => Variant(borrowed, ...)`
/// lines, each with its doc, so that the two can never disagree.
macro_rules! seams {
    ($($(#[doc = $doc:literal])* $kind:ident => $variant:ident($($field:ty),+);)+) => {
        /// The kinds of system under test, one per seam.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum SutKind {
            $($(#[doc = $doc])* $kind,)+
        }

        /// A system under test, as an oracle receives it: the implementation of one seam.
        pub enum Sut<'a> {
            $($(#[doc = $doc])* $variant($($field),+),)+
        }

        impl SutKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [SutKind] = &[$(SutKind::$kind),+];
        }

        impl Sut<'_> {
            /// Which seam this SUT plugs into.
            pub fn kind(&self) -> SutKind {
                match self {
                    $(Sut::$variant(..) => SutKind::$kind,)+
                }
            }
        }
    };
}

seams! {
    /// A static race analysis ([`StaticRaceAnalysis`]: RacerDX, RacerD-like).
    StaticRaceAnalysis => Static(&'a dyn StaticRaceAnalysis);
    /// A dynamic detector ([`super::DynamicDetector`]: FastTrack), fresh per trace.
    DynamicDetector => Detector(&'a dyn DetectorFactory);
    /// An access filter ([`super::AccessFilter`]: the escape and capsule filters) with the
    /// detector that runs on what it keeps.
    Filter => Filter(&'a dyn FilterFactory, &'a dyn DetectorFactory);
    /// A [`CheckPlacer`] with the detector that runs the placed program (BigFoot + DynamicBF).
    CheckPlacer => Placer(&'a dyn CheckPlacer, &'a dyn DetectorFactory);
    /// The fast explorers ([`FastExplorers`]: a stateful search and a DPOR), judged against
    /// the naive enumeration.
    Explorers => Explorers(FastExplorers<'a>);
    /// Naik-Aiken's conditional must-not-alias analysis ([`MustNotAliasAnalysis`]).
    MustNotAlias => MustNotAlias(&'a dyn MustNotAliasAnalysis);
    /// The thread-local L-DRF semantics ([`crate::ldrf::local`]), with a seeded bug or not,
    /// judged against the standard one.
    ThreadLocal => ThreadLocal(Option<crate::ldrf::local::LdrfBug>);
    /// Analyses over the sync-CFG ([`SyncCfgAnalysis`]: value-set, interval, region mix,
    /// naive union), one per domain, judged together against the standard semantics (C12
    /// compares them).
    SyncCfg => SyncCfg(&'a [Box<dyn SyncCfgAnalysis>]);
    /// A model checker ([`ModelChecker`]: loom), judged on whole programs.
    ModelChecker => ModelChecker(&'a dyn ModelChecker);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_listed_once() {
        for (i, k) in SutKind::ALL.iter().enumerate() {
            assert!(!SutKind::ALL[..i].contains(k), "{k:?} twice");
        }
        assert_eq!(Sut::ThreadLocal(None).kind(), SutKind::ThreadLocal);
    }
}
