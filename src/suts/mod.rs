//! The systems under test, by the seam they plug into and the dialect they analyze, and the
//! one place where an oracle meets one: [`check`].
//!
//! An oracle ([`race_oracles::theorems::Oracle`]) names the kind of SUT it judges and its
//! dialect; [`SUTS`] holds one entry per implementation, and [`Subject::for_oracle`] picks
//! the entry of that kind and dialect and applies a mutant (`crate::mutants`);
//! [`Subject::new`] builds the SUT a [`SutSpec`] names: another SUT of that kind and dialect
//! by name (`--sut`), or an external detector or analysis.
//! An entry's build lends its value to oracles as the [`Sut`] of its seam ([`lend`]), so the
//! seams are listed once, in `race_oracles::theorems::sut`. Adding an oracle over an
//! existing SUT touches nothing here; adding a SUT is its module under `analyses/` (with its
//! `SEEDED` table) plus one entry in [`SUTS`] (the book's "Adding an oracle / a SUT kind").

use race_oracles::explore::Config;
use race_oracles::lang::{Dialect, Program, Relax};
use race_oracles::theorems::rules::Rules;
use race_oracles::theorems::{Budget, FastExplorers, MustNotAliasAnalysis, Oracle, OracleResult, Reads, StaticRaceAnalysis, Sut, SutKind, SyncCfgAnalysis, Traces};

use crate::analyses::bigfoot::dynamic::{DynamicBfFactory, DYNAMIC_BF_RULES};
use crate::analyses::bigfoot::placement::{BigFoot, BIGFOOT_RULES};
use crate::analyses::bigfoot::{self, BigFootBug};
use crate::analyses::capsule::{CapsuleFilterFactory, CAPSULE_RULES};
use crate::analyses::escape::{EscapeFilterFactory, ESCAPE_RULES};
use crate::analyses::fasttrack::{FastTrackFactory, FASTTRACK_ATOMIC_RULES, FASTTRACK_RULES};
use crate::analyses::ldrf::rules::SYNC_CFG_RULES;
use crate::analyses::naik_aiken::{NaikAiken, NaikAikenBug, NAIK_AIKEN_RULES};
use crate::analyses::per_access::{PerAccess, PER_ACCESS_RULES};
use crate::analyses::racerdx::{self, RacerDx, RACERDX_REPORT_RULES, RACERDX_RULES};
use crate::go_race::GoRace;
use crate::miri::Miri;
use crate::mutants::{self, Mutant, MUTANTS};
use crate::real;
use crate::replay::{ReplayFactory, ReplayTool};
use crate::seeded::{self, Prediction};
use crate::sut_spec::SutSpec;
use crate::tsan::Tsan;
use crate::valgrind::{Tool, Valgrind};
use std::sync::Arc;

mod atomics;
mod error;
mod judged;
pub use atomics::Atomics;
pub use error::SubjectError;
use judged::Judged;

/// An implementation, with its seeded bugs applied or not, that lends itself to an oracle as
/// the [`Sut`] of its seam. The catalogue holds no enum of seams of its own: each entry's
/// build says which seam it plugs into ([`lend`]), and [`Sut`] (with [`SutKind`]) is the
/// one list of them, in `race_oracles`.
pub trait Implementation: Send + Sync {
    /// The SUT, as the oracle receives it.
    fn sut(&self) -> Sut<'_>;
}

/// An owned implementation and how it lends itself as a [`Sut`].
struct Lent<T> {
    value: T,
    lend: for<'a> fn(&'a T) -> Sut<'a>,
}

impl<T: Send + Sync> Implementation for Lent<T> {
    fn sut(&self) -> Sut<'_> {
        (self.lend)(&self.value)
    }
}

/// `value`, lent to oracles by `lend` (`|a| Sut::Static(a)`): what a catalogue entry's build
/// returns.
pub fn lend<T: Send + Sync + 'static>(value: T, lend: for<'a> fn(&'a T) -> Sut<'a>) -> Box<dyn Implementation> {
    Box::new(Lent { value, lend })
}

/// What a catalogue entry's build makes from mutant names: the implementation and the
/// assumptions its mutants relax; `None` if a name is not one of its mutants.
pub type Built = Option<(Box<dyn Implementation>, Relax)>;

/// One SUT implementation in the catalogue.
#[derive(Clone, Copy, Debug)]
pub struct SutEntry {
    /// Its name (`racerdx`); mutants name it in [`mutants::Mutant::sut`].
    pub name: &'static str,
    /// The seam it plugs into.
    pub kind: SutKind,
    /// The dialects it analyzes.
    pub dialects: &'static [Dialect],
    /// Builds it at a version (empty: the bare name's; only a real detector, `crate::real`,
    /// has others) with the mutants named (empty: the real thing); `None` if one of them is
    /// not a mutant of this SUT. Returns the assumptions the mutants relax too.
    pub build: fn(&str, &[&str]) -> Built,
    /// The rule cases it declares (`theorems::rules`), counted by `racefuzz gen --stats`:
    /// its own and those of the detector it runs.
    pub rules: &'static [&'static Rules],
    /// How it meets programs with atomic operations and fences ([`Atomics`]).
    pub atomics: Atomics,
}

impl SutEntry {
    /// Whether `oracle` can judge it: its kind, its dialect, and atomics if the oracle's
    /// programs have them.
    pub fn fits(&self, oracle: &Oracle) -> bool {
        self.kind == oracle.sut && self.dialects.contains(&oracle.dialect) && (self.atomics.judges() || !oracle.atomics)
    }
}

/// The rule tables of `entry` that `oracle` exercises, and the reasons for those it does not
/// ([`Oracle::unexercised`]): `racefuzz gen --stats` prints the reason instead of the table,
/// and the rule-coverage test does not hold the pair to the floor (every case would read 0%
/// by construction).
pub fn exercised_rules(entry: &SutEntry, oracle: &Oracle) -> (Vec<&'static Rules>, Vec<String>) {
    let mut notes = vec![];
    let tables = entry
        .rules
        .iter()
        .copied()
        .filter(|t| match oracle.unexercised.iter().find(|u| u.table == t.sut) {
            Some(u) => {
                notes.push(format!("rule coverage: {} ({}) not exercised under {}: {}", t.sut, t.spec, oracle.id, u.why));
                false
            }
            None => true,
        })
        .collect();
    (tables, notes)
}

/// Every SUT.
pub const SUTS: &[SutEntry] = &[
    SutEntry {
        name: "racerdx",
        kind: SutKind::StaticRaceAnalysis,
        dialects: &[Dialect::RacerDx],
        build: build_racerdx,
        rules: &[&RACERDX_RULES, &RACERDX_REPORT_RULES],
        atomics: Atomics::Refused,
    },
    SutEntry {
        name: "explorers",
        kind: SutKind::Explorers,
        dialects: &[Dialect::Bfj, Dialect::Bfj2, Dialect::RacerDx],
        build: build_explorers,
        rules: &[],
        atomics: Atomics::Modelled,
    },
    SutEntry {
        name: "fasttrack",
        kind: SutKind::DynamicDetector,
        dialects: &[Dialect::Bfj, Dialect::Bfj2],
        build: build_fasttrack,
        rules: &[&FASTTRACK_RULES, &FASTTRACK_ATOMIC_RULES],
        atomics: Atomics::Modelled,
    },
    SutEntry {
        name: "tsan",
        kind: SutKind::DynamicDetector,
        dialects: &[Dialect::Bfj, Dialect::Bfj2],
        build: |v, n| replay_seeded(Tsan { cc: real::program_of("tsan", v)?, bug: seeded::one(crate::tsan::SEEDED, n)? }),
        rules: &[],
        atomics: Atomics::Modelled,
    },
    SutEntry {
        name: "helgrind",
        kind: SutKind::DynamicDetector,
        dialects: &[Dialect::Bfj, Dialect::Bfj2],
        build: |_, n| replay(n, Valgrind::new(Tool::Helgrind)),
        rules: &[],
        atomics: Atomics::Modelled,
    },
    SutEntry {
        name: "drd",
        kind: SutKind::DynamicDetector,
        dialects: &[Dialect::Bfj, Dialect::Bfj2],
        build: |_, n| replay(n, Valgrind::new(Tool::Drd)),
        rules: &[],
        atomics: Atomics::Modelled,
    },
    SutEntry {
        name: "go-race",
        kind: SutKind::DynamicDetector,
        dialects: &[Dialect::Bfj, Dialect::Bfj2],
        build: |v, n| replay(n, GoRace { go: real::program_of("go-race", v)? }),
        rules: &[],
        atomics: Atomics::Strengthened,
    },
    SutEntry {
        name: "miri",
        kind: SutKind::DynamicDetector,
        dialects: &[Dialect::Bfj, Dialect::Bfj2],
        build: |_, n| Some((lend(Miri { bug: seeded::one(crate::miri::SEEDED, n)? }, |f| Sut::Detector(f)), Relax::default())),
        rules: &[],
        atomics: Atomics::Modelled,
    },
    SutEntry { name: "loom", kind: SutKind::ModelChecker, dialects: &[Dialect::Bfj, Dialect::Bfj2], build: build_loom, rules: &[], atomics: Atomics::Modelled },
    SutEntry {
        name: "bigfoot",
        kind: SutKind::CheckPlacer,
        dialects: &[Dialect::Bfj],
        build: build_bigfoot,
        rules: &[&BIGFOOT_RULES, &DYNAMIC_BF_RULES],
        atomics: Atomics::Refused,
    },
    SutEntry { name: "per-access", kind: SutKind::CheckPlacer, dialects: &[Dialect::Bfj], build: build_per_access, rules: &[&PER_ACCESS_RULES], atomics: Atomics::Refused },
    SutEntry { name: "escape", kind: SutKind::Filter, dialects: &[Dialect::SimpleJava], build: build_escape, rules: &[&ESCAPE_RULES], atomics: Atomics::Refused },
    SutEntry { name: "capsule", kind: SutKind::Filter, dialects: &[Dialect::CapJava], build: build_capsule, rules: &[&CAPSULE_RULES], atomics: Atomics::Refused },
    SutEntry { name: "naikaiken", kind: SutKind::MustNotAlias, dialects: &[Dialect::NaikAiken], build: build_naikaiken, rules: &[&NAIK_AIKEN_RULES], atomics: Atomics::Refused },
    SutEntry { name: "ldrf", kind: SutKind::ThreadLocal, dialects: &[Dialect::Ldrf], build: build_ldrf, rules: &[], atomics: Atomics::Refused },
    SutEntry { name: "ldrf-analyses", kind: SutKind::SyncCfg, dialects: &[Dialect::Ldrf], build: build_sync_cfg, rules: &[&SYNC_CFG_RULES], atomics: Atomics::Refused },
];

fn build_racerdx(_: &str, names: &[&str]) -> Built {
    let (opts, relax) = racerdx::options(names)?;
    Some((lend(RacerDx::new(opts), |a| Sut::Static(a)), relax))
}

fn build_ldrf(_: &str, names: &[&str]) -> Built {
    Some((lend(seeded::one(mutants::ldrf::SEEDED, names)?, |bug| Sut::ThreadLocal(*bug)), Relax::default()))
}

fn build_sync_cfg(_: &str, names: &[&str]) -> Built {
    let bug = seeded::one(crate::analyses::ldrf::SEEDED, names)?;
    Some((lend(crate::analyses::ldrf::suite(bug), |v| Sut::SyncCfg(v)), Relax::default()))
}

fn build_explorers(_: &str, names: &[&str]) -> Built {
    let explorers = mutants::explorers::explorers(names)?;
    Some((lend(explorers, |(s, d)| Sut::Explorers(FastExplorers { name: "explorers", stateful: s, dpor: d })), Relax::default()))
}

fn build_fasttrack(_: &str, names: &[&str]) -> Built {
    let bug = seeded::one(crate::analyses::fasttrack::SEEDED, names)?;
    Some((lend(FastTrackFactory { bug, on_checks: false }, |f| Sut::Detector(f)), Relax::default()))
}

/// A real detector over a replay (`crate::replay`; built in [`SUTS`] itself): no seeded bugs.
fn replay(names: &[&str], tool: impl ReplayTool) -> Built {
    names.is_empty().then(|| replay_seeded(tool)).flatten()
}

/// A real detector over a replay whose tool carries the seeded bugs named (ThreadSanitizer's
/// harness bugs, `crate::tsan::SEEDED`).
fn replay_seeded(tool: impl ReplayTool) -> Built {
    Some((lend(ReplayFactory::new(Arc::new(tool)), |f| Sut::Detector(f)), Relax::default()))
}

/// loom (`crate::loom`) at `version` (none: the newest), a whole-program model checker;
/// no seeded bugs (its older versions' own deviations are `crate::loom::VERSIONS`).
fn build_loom(version: &str, names: &[&str]) -> Built {
    let v = crate::real::find("loom")?.version(Some(version)).ok()?;
    let loom = crate::loom::Loom::new(v.pin).ok()?;
    names.is_empty().then(|| (lend(loom, |l| Sut::ModelChecker(l)), Relax::default()))
}

fn build_bigfoot(_: &str, names: &[&str]) -> Built {
    let (placement, dynamic) = match seeded::one(bigfoot::SEEDED, names)? {
        Some(BigFootBug::Placement(b)) => (Some(b), None),
        Some(BigFootBug::Dynamic(b)) => (None, Some(b)),
        None => (None, None),
    };
    Some((lend((BigFoot { bug: placement }, DynamicBfFactory { bug: dynamic }), |(p, f)| Sut::Placer(p, f)), Relax::default()))
}

fn build_per_access(_: &str, names: &[&str]) -> Built {
    let bug = seeded::one(crate::analyses::per_access::SEEDED, names)?;
    Some((lend((PerAccess { bug }, FastTrackFactory { bug: None, on_checks: true }), |(p, f)| Sut::Placer(p, f)), Relax::default()))
}

fn build_escape(_: &str, names: &[&str]) -> Built {
    let bug = seeded::one(crate::analyses::escape::SEEDED, names)?;
    Some((lend((EscapeFilterFactory { bug }, FastTrackFactory::default()), |(g, f)| Sut::Filter(g, f)), Relax::default()))
}

fn build_capsule(_: &str, names: &[&str]) -> Built {
    let bug = seeded::one(crate::analyses::capsule::SEEDED, names)?;
    Some((lend((CapsuleFilterFactory { bug }, FastTrackFactory::default()), |(g, f)| Sut::Filter(g, f)), Relax::default()))
}

/// `na-reassigned-lock-held` needs programs that assign a sync variable in its body (A5).
fn build_naikaiken(_: &str, names: &[&str]) -> Built {
    let bug = seeded::one(crate::analyses::naik_aiken::SEEDED, names)?;
    let relax = Relax { sync_reassign: bug == Some(NaikAikenBug::ReassignedLockHeld), ..Relax::default() };
    Some((lend(NaikAiken { bug }, |a| Sut::MustNotAlias(a)), relax))
}

/// Whether `oracle` judges `mutant` (`a+b` combines mutants): one of the SUTs it fits owns
/// every name. The one rule behind `check`, `fuzz` and the fuzz targets refusing a mutant
/// that could not run.
pub fn judges(oracle: &Oracle, mutant: &str) -> bool {
    let names: Vec<&str> = mutant.split('+').collect();
    fitting(oracle).any(|e| names.iter().all(|n| mutants::find(n).is_some_and(|m| m.sut == e.name)))
}

/// The spec's prediction for `mutant` under `oracle`: `None` when the oracle does not judge it
/// ([`judges`]) or makes no prediction about it ([`seeded::Predicted::under`]).
pub fn prediction(oracle: &Oracle, mutant: &Mutant) -> Option<Prediction> {
    judges(oracle, mutant.name).then(|| mutant.predicted.under(oracle)).flatten()
}

/// Every prediction for `mutant`, by id of the registry's oracles that make one, in
/// registry order: what `racefuzz mutants` lists and the hunt checks.
pub fn predictions(mutant: &Mutant) -> Vec<(&'static str, Prediction)> {
    race_oracles::theorems::Registry::builtin().all().iter().filter_map(|o| prediction(o, mutant).map(|p| (o.id, p))).collect()
}

/// [`SubjectError::ForeignMutant`] if `mutant` is a catalogued mutant of one SUT that
/// `oracle` does not judge (a name outside the catalogue is left to [`Subject::build`]).
fn foreign(oracle: &Oracle, mutant: Option<&str>) -> Result<(), SubjectError> {
    let Some(m) = mutant.filter(|m| !judges(oracle, m)) else { return Ok(()) };
    let found: Option<Vec<&Mutant>> = m.split('+').map(mutants::find).collect();
    match found.as_deref() {
        Some([first, rest @ ..]) if rest.iter().all(|x| x.sut == first.sut) => {
            Err(SubjectError::ForeignMutant { given: m.to_string(), owner: first.sut, oracle: oracle.id, judges: judges_of(m) })
        }
        _ => Ok(()),
    }
}

/// The catalogue entry of an external detector (`--detector-cmd`): built by
/// [`Subject::new`] from its command, never from mutant names.
pub const EXTERNAL: SutEntry = SutEntry {
    name: crate::sut_spec::EXTERNAL_DETECTOR,
    kind: SutKind::DynamicDetector,
    dialects: &[Dialect::Bfj, Dialect::Bfj2],
    build: |_, _| None,
    rules: &[],
    atomics: Atomics::Refused,
};

/// The oracles of the registry that judge a dynamic detector (what `--detector-cmd` applies to).
pub fn detector_oracles() -> Vec<&'static str> {
    race_oracles::theorems::Registry::builtin().all().iter().filter(|o| EXTERNAL.fits(o)).map(|o| o.id).collect()
}

/// The catalogue entry of an external static analysis (`--analysis-cmd`): built by
/// [`Subject::new`] from its command.
pub const EXTERNAL_ANALYSIS: SutEntry = SutEntry {
    name: crate::sut_spec::EXTERNAL_ANALYSIS,
    kind: SutKind::StaticRaceAnalysis,
    dialects: &[Dialect::RacerDx],
    build: |_, _| None,
    rules: &[],
    atomics: Atomics::Refused,
};

/// The oracles of the registry that judge a static analysis's reports (what
/// `--analysis-cmd` applies to): not those that read its method summaries
/// ([`Reads::Summaries`]), which an external analysis does not give.
pub fn analysis_oracles() -> Vec<&'static str> {
    race_oracles::theorems::Registry::builtin().all().iter().filter(|o| EXTERNAL_ANALYSIS.fits(o) && o.reads == Reads::Answers).map(|o| o.id).collect()
}

/// The oracles of the registry that judge `mutant`, in registry order.
pub fn judges_of(mutant: &str) -> Vec<&'static str> {
    race_oracles::theorems::Registry::builtin().all().iter().filter(|o| judges(o, mutant)).map(|o| o.id).collect()
}

/// A SUT ready to be judged: an implementation, its mutant, and what the mutant relaxes.
pub struct Subject {
    entry: SutEntry,
    implementation: Box<dyn Implementation>,
    relax: Relax,
    /// What names it: the SUT chosen by name (`--sut`, or an external one) if it was, the
    /// mutant; findings print it as their header ([`SutSpec::header`]).
    spec: SutSpec,
}

/// The SUTs of the catalogue that `oracle` can judge ([`SutEntry::fits`]), in catalogue
/// order; the first is the one it judges unless told otherwise.
pub fn fitting(oracle: &Oracle) -> impl Iterator<Item = &'static SutEntry> + '_ {
    SUTS.iter().filter(|e| e.fits(oracle))
}

/// Whether a campaign over every oracle runs `oracle` when none is named: not a negative
/// control (expected to fail), and not one whose SUT is a real detector (loom: it needs
/// its tool, which `--sut NAME` or naming the oracle asks for).
pub fn by_default(oracle: &Oracle) -> bool {
    !oracle.negative_control && fitting(oracle).next().is_some_and(|e| crate::real::find(e.name).is_none())
}

impl Subject {
    /// The SUT `spec` names, judged by `oracle`: the one place a [`SutSpec`] becomes a
    /// runnable SUT.
    ///
    /// # Errors
    /// [`SubjectError`]: a SUT or mutant the oracle does not judge, an external SUT of a
    /// kind the oracle does not judge.
    pub fn new(oracle: &Oracle, spec: &SutSpec) -> Result<Subject, SubjectError> {
        match spec {
            SutSpec::Catalogued { claim, all_traces, .. } if claim.is_some() || *all_traces => {
                let built = Subject::new(oracle, &spec.clone().as_built())?;
                let sut = built.spec.sut_name().unwrap_or_else(|| built.entry.name.to_string());
                if !matches!(built.sut(), Sut::Detector(_)) {
                    return Err(match claim {
                        Some(claim) => SubjectError::ClaimOfNoDetector { sut, claim: claim.name() },
                        None => SubjectError::AllTracesOfNoDetector { sut },
                    });
                }
                let implementation = Box::new(Judged { inner: built.implementation, claim: *claim, traces: all_traces.then_some(Traces::Every) });
                Ok(Subject { implementation, spec: spec.clone(), ..built })
            }
            SutSpec::Catalogued { sut: None, mutant, .. } => Subject::for_oracle(oracle, mutant.as_deref()),
            SutSpec::Catalogued { sut: Some(name), mutant, .. } => {
                foreign(oracle, mutant.as_deref())?;
                let entry = *fitting(oracle).find(|e| e.name == name.name).ok_or_else(|| SubjectError::UnknownSut {
                    given: name.to_string(),
                    oracle: oracle.id,
                    fitting: fitting(oracle).map(|e| e.name).collect::<Vec<_>>().join(", "),
                    known: SUTS.iter().map(|e| e.name).collect::<Vec<_>>().join(", "),
                })?;
                let version = match (crate::real::find(entry.name), &name.version) {
                    // A real detector runs only where it is installed: a missing one is an
                    // error with its install line, never a skipped pass.
                    (Some(real), given) => {
                        let v = real.version(given.as_deref())?;
                        real.installed(v)?;
                        v.name
                    }
                    (None, Some(given)) => return Err(SubjectError::NoVersions { sut: entry.name, given: given.clone() }),
                    (None, None) => "",
                };
                Ok(Subject { spec: spec.clone(), ..Subject::build(entry, version, mutant.as_deref())? })
            }
            SutSpec::Detector(d) => {
                if oracle.sut != SutKind::DynamicDetector {
                    return Err(SubjectError::NotADetector { oracle: oracle.id, kind: oracle.sut });
                }
                Ok(Subject { entry: EXTERNAL, implementation: lend(d.factory()?, |f| Sut::Detector(f)), relax: Relax::default(), spec: spec.clone() })
            }
            SutSpec::Analysis(a) => {
                if !analysis_oracles().contains(&oracle.id) {
                    let what = if oracle.sut == SutKind::StaticRaceAnalysis {
                        "a static analysis's method summaries, which an external analysis does not give".to_string()
                    } else {
                        format!("a {:?}, not a static race analysis", oracle.sut)
                    };
                    return Err(SubjectError::NotAnAnalysis { oracle: oracle.id, what });
                }
                Ok(Subject { entry: EXTERNAL_ANALYSIS, implementation: lend(a.analysis()?, |a| Sut::Static(a)), relax: Relax::default(), spec: spec.clone() })
            }
        }
    }

    /// The SUT `spec` names where it fits `oracle` (its kind and dialect), the oracle's own
    /// otherwise: a campaign over several oracles applies `--sut` to those it fits.
    ///
    /// # Errors
    /// As [`Subject::new`].
    pub fn where_it_fits(oracle: &Oracle, spec: &SutSpec) -> Result<Subject, SubjectError> {
        match spec {
            SutSpec::Catalogued { sut: Some(name), mutant, .. } if !fitting(oracle).any(|e| e.name == name.name) => {
                Subject::new(oracle, &SutSpec::Catalogued { sut: None, mutant: mutant.clone(), claim: None, all_traces: false })
            }
            _ => Subject::new(oracle, spec),
        }
    }

    /// The SUT that `oracle` judges, with `mutant` (`a+b` combines mutants) applied.
    ///
    /// # Errors
    /// [`SubjectError`] when the mutant is not one of that SUT's.
    pub fn for_oracle(oracle: &Oracle, mutant: Option<&str>) -> Result<Subject, SubjectError> {
        foreign(oracle, mutant)?;
        // The first SUT of the oracle's kind and dialect, unless the mutants belong to another.
        let first = mutant.and_then(|m| m.split('+').next()).and_then(mutants::find);
        let owner = first.and_then(|m| fitting(oracle).find(|e| e.name == m.sut));
        let entry = *owner.or_else(|| fitting(oracle).next()).ok_or(SubjectError::NoSut { oracle: oracle.id, kind: oracle.sut, dialect: oracle.dialect })?;
        Subject::build(entry, "", mutant)
    }

    /// The SUT named `name` (`racefuzz analyze`), with `mutant` applied; `None` if there is
    /// no such SUT.
    ///
    /// # Errors
    /// [`SubjectError`] when the mutant is not one of that SUT's.
    pub fn named(name: &str, mutant: Option<&str>) -> Option<Result<Subject, SubjectError>> {
        SUTS.iter().find(|e| e.name == name).map(|e| Subject::build(*e, "", mutant))
    }

    fn build(entry: SutEntry, version: &str, mutant: Option<&str>) -> Result<Subject, SubjectError> {
        let names: Vec<&str> = mutant.map(|m| m.split('+').collect()).unwrap_or_default();
        let unknown = || SubjectError::UnknownMutant {
            given: mutant.unwrap_or_default().to_string(),
            sut: entry.name,
            known: MUTANTS.iter().filter(|m| m.sut == entry.name).map(|m| m.name).collect::<Vec<_>>().join(", "),
        };
        if names.iter().any(|n| mutants::find(n).is_none_or(|m| m.sut != entry.name)) {
            return Err(unknown());
        }
        let (implementation, relax) = (entry.build)(version, &names).ok_or_else(unknown)?;
        Ok(Subject { entry, implementation, relax, spec: SutSpec::Catalogued { sut: None, mutant: mutant.map(str::to_string), claim: None, all_traces: false } })
    }

    /// The SUT, as the oracle receives it.
    pub fn sut(&self) -> Sut<'_> {
        self.implementation.sut()
    }

    /// The static analysis, if this is one (for `racefuzz analyze`).
    pub fn static_analysis(&self) -> Option<&dyn StaticRaceAnalysis> {
        match self.sut() {
            Sut::Static(a) => Some(a),
            _ => None,
        }
    }

    /// The must-not-alias analysis, if this is one (for `racefuzz analyze naikaiken`).
    pub fn must_not_alias(&self) -> Option<&dyn MustNotAliasAnalysis> {
        match self.sut() {
            Sut::MustNotAlias(a) => Some(a),
            _ => None,
        }
    }

    /// The sync-CFG analyses, if this is them (for `racefuzz analyze ldrf`).
    pub fn sync_cfg(&self) -> Option<&[Box<dyn SyncCfgAnalysis>]> {
        match self.sut() {
            Sut::SyncCfg(v) => Some(v),
            _ => None,
        }
    }

    /// The assumptions the mutant relaxes.
    pub fn relax(&self) -> Relax {
        self.relax
    }

    /// The mutant, if any.
    pub fn mutant(&self) -> Option<&str> {
        self.spec.mutant()
    }

    /// The catalogue entry.
    pub fn entry(&self) -> &SutEntry {
        &self.entry
    }

    /// The SUT's name if it was chosen by name (`--sut`, or an external SUT) rather than by
    /// the oracle (findings record it, so that `shrink` and regression tests pick it again).
    pub fn chosen(&self) -> Option<String> {
        self.spec.sut_name()
    }

    /// What names this SUT, as a finding's header records it.
    pub fn spec(&self) -> &SutSpec {
        &self.spec
    }
}

/// Checks `oracle` on `p` against `subject`: the one dispatch of racefuzz. The result's
/// `sut` names the mutant too.
pub fn check(oracle: &Oracle, p: &Program, subject: &Subject, explore: Config) -> OracleResult {
    let mut r = atomics::refusal(oracle, p, subject).unwrap_or_else(|| {
        let strengthened = subject.entry().atomics.judged_program(p);
        let budget = Budget { explore, relax: subject.relax };
        let mut r = oracle.check(strengthened.as_ref().unwrap_or(p), &subject.sut(), &budget);
        if let Some(s) = &strengthened {
            r.context.push(atomics::strengthened_context(s));
        }
        r
    });
    if let Some(m) = subject.mutant() {
        r.sut = format!("{} (mutant {m})", r.sut);
    }
    r
}

/// The exploration bounds of campaigns, shrinking and regression tests: the defaults, with
/// smaller execution and state budgets so that one program never holds a campaign for long
/// (a stateful search of 100,000 states takes about a second).
pub fn campaign_bounds() -> Config {
    Config { max_executions: 100_000, max_states: 100_000, ..Config::default() }
}

/// The exploration bounds of one input of a cargo-fuzz target: counts only (no deadline),
/// so that an input's verdict is the same on every machine and a slow input is
/// `inconclusive` rather than a timeout. Smaller than [`campaign_bounds`]: libFuzzer wants
/// each input to take well under a second, and an oracle may explore several times per
/// program (one exploration per pair of methods, per schedule of the SUT, …).
pub fn fuzz_bounds() -> Config {
    Config { max_executions: 5_000, max_states: 5_000, ..campaign_bounds() }
}

#[cfg(test)]
mod tests;
