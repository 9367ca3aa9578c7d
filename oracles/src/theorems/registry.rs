//! The oracle registry: one [`Oracle`] entry per published theorem, each knowing its
//! dialect, its generator, the kind of system under test it judges, and how to check one
//! program. `racefuzz check`, `fuzz`, `shrink`, `gen`, the cargo-fuzz targets, the benches
//! and the tests all go through it, so that an oracle is added by writing one module (its
//! `pub const ORACLE: Oracle` and its check) and one line in [`Registry::builtin`].
//!
//! The registry knows no implementation: an entry names the *kind* of SUT it needs
//! ([`SutKind`]) and the SUT crate supplies one ([`Sut`]) together with the assumptions
//! a seeded bug relaxes ([`Budget::relax`]). Mutants and their predictions live with the
//! SUTs (the SUT crate's `mutants` module), keyed by oracle id.

use super::detector::DetectorFactory;
use super::explorer_agree::FastExplorers;
use super::filter::FilterFactory;
use super::must_not_alias::MustNotAliasAnalysis;
use super::placer::CheckPlacer;
use super::result::OracleResult;
use super::static_race::StaticRaceAnalysis;
use super::sync_cfg::SyncCfgAnalysis;
use crate::explore::Config;
use crate::gen::grammar::Grammar;
use crate::lang::{Dialect, Program, Relax};

/// The kinds of system under test, one per seam.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SutKind {
    /// A [`StaticRaceAnalysis`] (RacerDX, RacerD-like, later Naik-Aiken).
    StaticRaceAnalysis,
    /// A [`super::DynamicDetector`] (FastTrack).
    DynamicDetector,
    /// An access filter ([`super::AccessFilter`]: the escape and capsule filters) with the
    /// detector that runs on the filtered trace.
    Filter,
    /// A [`CheckPlacer`] with the detector that runs its checks (BigFoot + DynamicBF).
    CheckPlacer,
    /// The fast explorers ([`FastExplorers`]), judged against the naive enumeration.
    Explorers,
    /// Naik-Aiken's conditional must-not-alias analysis ([`MustNotAliasAnalysis`]).
    MustNotAlias,
    /// The thread-local L-DRF semantics ([`crate::ldrf::local`]), judged against the
    /// standard one.
    ThreadLocal,
    /// Analyses over the sync-CFG ([`SyncCfgAnalysis`]: value-set, interval, region mix,
    /// naive union), judged against the standard semantics.
    SyncCfg,
}

/// A system under test, as an oracle receives it.
pub enum Sut<'a> {
    /// A static race analysis.
    Static(&'a dyn StaticRaceAnalysis),
    /// A dynamic detector, fresh per trace.
    Detector(&'a dyn DetectorFactory),
    /// A check placer and the detector that runs the placed program.
    Placer(&'a dyn CheckPlacer, &'a dyn DetectorFactory),
    /// A stateful search and a DPOR.
    Explorers(FastExplorers<'a>),
    /// An access filter and the detector that runs on what it keeps.
    Filter(&'a dyn FilterFactory, &'a dyn DetectorFactory),
    /// A conditional must-not-alias analysis.
    MustNotAlias(&'a dyn MustNotAliasAnalysis),
    /// The L-DRF semantics, with a seeded bug or not.
    ThreadLocal(Option<crate::ldrf::local::LdrfBug>),
    /// Sync-CFG analyses, one per domain, judged together (C12 compares them).
    SyncCfg(&'a [Box<dyn SyncCfgAnalysis>]),
}

impl Sut<'_> {
    /// Which seam this SUT plugs into.
    pub fn kind(&self) -> SutKind {
        match self {
            Sut::Static(_) => SutKind::StaticRaceAnalysis,
            Sut::Detector(_) => SutKind::DynamicDetector,
            Sut::Placer(..) => SutKind::CheckPlacer,
            Sut::Explorers(_) => SutKind::Explorers,
            Sut::Filter(..) => SutKind::Filter,
            Sut::MustNotAlias(_) => SutKind::MustNotAlias,
            Sut::ThreadLocal(_) => SutKind::ThreadLocal,
            Sut::SyncCfg(_) => SutKind::SyncCfg,
        }
    }
}

/// The bounds an oracle runs under.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    /// Exploration bounds (and the campaign's deadline).
    pub explore: Config,
    /// Hypotheses of the theorem not checked, because a seeded bug feeds programs outside
    /// them on purpose (spec/racerdx.md §6.3(b)).
    pub relax: Relax,
}

impl Budget {
    /// Why an enumeration that showed no counterexample proves nothing: the campaign's
    /// deadline passed during it, or it stopped at its execution budget after `traces`
    /// traces. `None` when it covered everything within the bounds.
    pub fn cut_short(&self, complete: bool, traces: u64) -> Option<String> {
        if self.explore.deadline.is_some_and(|d| std::time::Instant::now() > d) {
            Some("the campaign's deadline passed during the check".to_string())
        } else {
            (!complete).then(|| format!("the enumeration hit its budget after {traces} traces (raise --max-executions)"))
        }
    }
}

/// One oracle: a published claim, checked against the ground truth.
#[derive(Clone, Copy)]
pub struct Oracle {
    /// Its id on the command line and in files (`racerdx-tp`).
    pub id: &'static str,
    /// The claim, one line (`every RacerDX report is a true race (Theorem 6.10)`).
    pub claim: &'static str,
    /// Where the spec states it.
    pub spec: &'static str,
    /// The dialect of the programs it judges.
    pub dialect: Dialect,
    /// The kind of SUT it judges.
    pub sut: SutKind,
    /// What its items are (`report`, `method`).
    pub item_kind: &'static str,
    /// A negative control: a claim the papers show false (escape elision is not address
    /// precise, Fig. 4.2), kept to show that the fuzzer has teeth. Expected to fail;
    /// campaigns over all oracles leave it out unless named.
    pub negative_control: bool,
    /// Its generator: a program of `dialect` from any bytes (swarm knobs first, then the
    /// program), honouring the relaxed assumptions. Deterministic in its input.
    pub generate: fn(&[u8], Relax) -> Program,
    /// The grammar of `dialect` that `generate` must cover: every production in at least
    /// 1% of programs at default settings (`crate::gen::grammar`, enforced by `tests/gen.rs`).
    pub grammar: &'static Grammar,
    /// Checks one program. A SUT of another kind, or a program outside the dialect, is
    /// `inconclusive` with a note, never a panic.
    pub check: fn(&Program, &Sut<'_>, &Budget) -> OracleResult,
}

impl std::fmt::Debug for Oracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oracle").field("id", &self.id).field("dialect", &self.dialect).field("sut", &self.sut).finish_non_exhaustive()
    }
}

impl Oracle {
    /// Checks `p` with `sut`: the one dispatch.
    pub fn check(&self, p: &Program, sut: &Sut<'_>, budget: &Budget) -> OracleResult {
        (self.check)(p, sut, budget)
    }

    /// Why `p` is outside this oracle's hypotheses, if it is: another dialect, or a program
    /// the dialect's validator rejects (with the assumptions `relax` lifts). Such a program
    /// is `inconclusive` with this note, never judged.
    pub fn unmet(&self, p: &Program, relax: Relax) -> Option<String> {
        if !self.dialect.contains(p.dialect) {
            return Some(format!("{} applies to {} programs only", self.id, self.dialect));
        }
        crate::lang::validate_relaxed(p, relax).err().map(|e| format!("precondition unmet: {e}"))
    }

    /// The result for a SUT of the wrong kind (a caller's mistake, reported as data).
    pub fn wrong_sut(&self, sut: &Sut<'_>) -> OracleResult {
        OracleResult::inconclusive(self.id, String::new(), self.item_kind, format!("racefuzz internal bug: {} needs a {:?} SUT, got a {:?}", self.id, self.sut, sut.kind()))
    }
}

/// A set of oracles, in the order campaigns run them.
#[derive(Clone, Debug)]
pub struct Registry {
    oracles: Vec<Oracle>,
}

impl Registry {
    /// The built-in oracles. Adding one: write its module with a `pub const ORACLE` and
    /// add it here.
    pub fn builtin() -> Registry {
        Registry {
            oracles: vec![
                super::racerdx_tp::ORACLE,
                super::racerdx_complete::ORACLE,
                super::racerdx_reports::ORACLE,
                super::explorer_agree::ORACLE,
                super::explorer_agree::RACERDX,
                super::fasttrack_precise::ORACLE,
                super::bigfoot_precise::ORACLE,
                super::escape_trace_precise::ORACLE,
                super::escape_trace_precise::ADDRESS_PRECISE,
                super::escape_trace_precise::ELIDED_RACE_FREE,
                super::lock_elision::ORACLE,
                super::capsule_first_race::ORACLE,
                super::capsule_first_race::OPERATIONAL,
                super::naik_aiken_sound::ORACLE,
                super::naik_aiken_sound::UNLIKELY,
                super::ldrf_agree::ORACLE,
                super::ldrf_agree::RACY,
                super::ldrf_sound::ORACLE,
                super::ldrf_sound::NAIVE,
                super::ldrf_sound::REGION_RACY,
                super::ldrf_sound::EVERYWHERE,
            ],
        }
    }

    /// This registry with one more oracle (for users' own oracles and for tests).
    ///
    /// # Panics
    /// If the id is taken: two oracles with one id would make findings ambiguous.
    #[must_use]
    pub fn with(mut self, o: Oracle) -> Registry {
        assert!(self.find(o.id).is_none(), "oracle id `{}` registered twice", o.id);
        self.oracles.push(o);
        self
    }

    /// Every oracle.
    pub fn all(&self) -> &[Oracle] {
        &self.oracles
    }

    /// Looks an oracle up by id.
    pub fn find(&self, id: &str) -> Option<&Oracle> {
        self.oracles.iter().find(|o| o.id == id)
    }

    /// The ids, for messages.
    pub fn ids(&self) -> Vec<&'static str> {
        self.oracles.iter().map(|o| o.id).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_generators_fit_their_dialect() {
        let r = Registry::builtin();
        let mut ids = r.ids();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), r.all().len());
        for o in r.all() {
            for seed in 0u8..20 {
                let bytes: Vec<u8> = (0u8..40).map(|i| seed.wrapping_mul(31).wrapping_add(i.wrapping_mul(7))).collect();
                let p = (o.generate)(&bytes, Relax::default());
                assert_eq!(p.dialect, o.dialect, "{}", o.id);
                assert!(o.unmet(&p, Relax::default()).is_none(), "{}", o.id);
                crate::lang::validate(&p).unwrap_or_else(|e| panic!("{}: {e}", o.id));
            }
        }
    }
}
