//! The scorecard of a dynamic race detector: how often it is right, not only whether it is
//! always right. Data-race benchmark suites score detectors by precision, recall and F1 at
//! program level and, more harshly, per location and per event; with the exhaustive ground
//! truth racefuzz can count exactly, on as many generated programs as one likes.
//!
//! One concept, the scorecard (counts, granularities, the run over a corpus and its
//! examples), in one file of a little over 600 lines; [`board`] puts several detectors'
//! cards side by side with every distinct deviation, and [`limitations`] says which of
//! them a tool documents; `category` names what fooled the detector in each mistake. The
//! atomics column (`--generator atomics`) draws `fasttrack-precise-atomics`'s programs
//! ([`Generator::programs`]).
//!
//! Over a fixed generated corpus (the generator of the oracle that judges the detector,
//! drawn from a seeded stream: `fasttrack-precise`'s BFJ tier-2 programs for a detector,
//! `bigfoot-precise`'s BFJ programs for a check placer with its detector), every
//! interleaving of every program is a test case (the naive explorer, as `fasttrack-precise`
//! runs it, since a detector's answer depends on the order of independent events). A fresh
//! detector reads each trace; its reports are compared with the trace's happens-before data
//! races ([`race_oracles::race::data_races`]) at three granularities:
//!
//! - **location** (per trace, FastTrack's claim `FT(α) = DR(α)`, docs/spec/bigfoot.md
//!   §1.6, §9.1 O0): a reported location is a true positive when the trace races on it, a
//!   false positive otherwise (a report that names no location is one too); a racy location
//!   not reported is a false negative;
//! - **event** (per trace): the racy events are the accesses that complete a race with an
//!   earlier access (each race's `second`); a flagged event that completes none (or a
//!   report at the end of the trace) is a false positive;
//! - **program**: a program is racy when some trace of it races, and flagged when the
//!   detector reports something on some trace. A program whose exploration was cut by the
//!   budget counts at location and event granularity (each trace's truth is exact) but not
//!   here, where one more trace could change its truth.
//!
//! A placed program is judged on the traces that end (terminate or deadlock), where the
//! placer promises its checks were made (docs/spec/bigfoot.md §9.1 O1, O4); a detector
//! alone on every trace. A trace on which the detector gives no answer (an external
//! detector that crashed or timed out) counts in no row; the card counts them.
//!
//! Each mistake has a **category** that says what kind of situation fooled the detector,
//! computed from the trace: for a false positive, what orders the flagged access after
//! every conflicting access of another thread (fork/join alone, or a lock too), or that
//! there is none; for a false negative, the kinds of the missed race (and, per event,
//! whether the detector had reported its location earlier in the trace). The card shows the
//! most frequent category of each (at the granularity of the detector's claim: events for
//! `events` and `first-race`, locations otherwise), counted in programs, with the
//! smallest program that shows it shrunk ([`race_oracles::gen::shrink`]) so that it still
//! does.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;

use race_oracles::explore::{Config, Execution, ExplorerKind, Outcome, Schedule};
use race_oracles::gen::shrink::{shrink, size};
use race_oracles::lang::{print, Program, Relax};
use race_oracles::machine::{EventIdx, Machine};
use race_oracles::race::{data_races, Race};
use race_oracles::theorems::{
    detector::{prepare_batch, reported_locations},
    CheckPlacer, Claim, DetectorFactory, ModelChecker, ModelVerdict, Oracle, Registry, Sut, SutKind,
};
use rand::rngs::StdRng;
use rand::SeedableRng;

pub mod board;
mod category;
pub mod limitations;

use category::{addr_of, missed, Orders};

/// The most executions explored per program (`fasttrack-precise`'s budget).
pub const BUDGET: u64 = 20_000;

/// How many candidate programs the shrinker may try for one example.
pub const SHRINK_ATTEMPTS: usize = 400;

/// True positives, false positives and false negatives at one granularity (in JSON with
/// its precision, recall and F1, `null` where undefined).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Reported and racy.
    pub tp: u64,
    /// Reported, not racy.
    pub fp: u64,
    /// Racy, not reported.
    pub fn_: u64,
}

impl Counts {
    /// TP / (TP + FP); `None` when nothing was reported.
    pub fn precision(self) -> Option<f64> {
        ratio(self.tp, self.tp + self.fp)
    }

    /// TP / (TP + FN); `None` when nothing was racy.
    pub fn recall(self) -> Option<f64> {
        ratio(self.tp, self.tp + self.fn_)
    }

    /// The harmonic mean of precision and recall: 2·TP / (2·TP + FP + FN).
    pub fn f1(self) -> Option<f64> {
        ratio(2 * self.tp, 2 * self.tp + self.fp + self.fn_)
    }

    fn add(&mut self, o: Counts) {
        self.tp += o.tp;
        self.fp += o.fp;
        self.fn_ += o.fn_;
    }

    /// The counts of `reported` against `truth`.
    fn of<T: Ord>(truth: &BTreeSet<T>, reported: &BTreeSet<T>) -> Counts {
        let tp = truth.intersection(reported).count() as u64;
        Counts { tp, fp: reported.len() as u64 - tp, fn_: truth.len() as u64 - tp }
    }
}

impl serde::Serialize for Counts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut o = s.serialize_struct("Counts", 6)?;
        o.serialize_field("tp", &self.tp)?;
        o.serialize_field("fp", &self.fp)?;
        o.serialize_field("fn", &self.fn_)?;
        o.serialize_field("precision", &self.precision())?;
        o.serialize_field("recall", &self.recall())?;
        o.serialize_field("f1", &self.f1())?;
        o.end()
    }
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// The granularity a claim is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Granularity {
    /// Whether a program races (a model checker's whole-program claim).
    Program,
    /// Racy locations of a trace.
    Location,
    /// Racy events of a trace.
    Event,
}

impl Granularity {
    /// Its name in text and JSON (`location`).
    pub fn name(self) -> &'static str {
        match self {
            Granularity::Program => "program",
            Granularity::Location => "location",
            Granularity::Event => "event",
        }
    }

    /// Events for the claims about events (`events`, `first-race`), locations otherwise.
    pub fn of(claim: Claim) -> Granularity {
        match claim {
            Claim::Events | Claim::FirstRace => Granularity::Event,
            _ => Granularity::Location,
        }
    }
}

/// The most frequent mistake of one kind, with the smallest program that shows it, shrunk.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Example {
    /// What fooled the detector (see the module docs).
    pub category: String,
    /// How many programs show it.
    pub programs: u64,
    /// The program's number in the corpus (1-based) before shrinking.
    pub program: u64,
    /// The shrunk program's text.
    pub shrunk: String,
    /// A trace of the shrunk program that shows it.
    pub schedule: String,
    /// The mistake on that trace (`o1.f`, or the event).
    pub at: String,
}

/// A scorecard ([`score`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Scorecard {
    /// The detector's name.
    pub detector: String,
    /// What the detector claims.
    pub claim: &'static str,
    /// The generator that drew the programs: the oracle's whose generator it is, or
    /// `histories`, `limits` or `atomics` ([`Generator::programs`]).
    pub generator: &'static str,
    /// The seed of the corpus.
    pub seed: u64,
    /// Programs generated.
    pub programs: u64,
    /// Whether each program's traces are one per Mazurkiewicz class (else every
    /// interleaving).
    pub classes: bool,
    /// The most traces explored per program ([`Corpus::max_traces`]).
    pub max_traces: u64,
    /// Whether the programs were strengthened ([`Corpus::strengthened`]).
    pub strengthened: bool,
    /// Programs whose exploration was cut at [`Scorecard::max_traces`].
    pub cut_programs: u64,
    /// Programs the ground truth or the placer could not run (no initial state, placement
    /// declined): counted in no row.
    pub skipped_programs: u64,
    /// Traces the detector read (a model checker reads programs: 0).
    pub traces: u64,
    /// Traces on which the detector gave no answer (for a model checker, programs: beyond
    /// its bounds, or it failed).
    pub failed_traces: u64,
    /// Program granularity.
    pub program: Counts,
    /// Location granularity; `None` for a model checker, which names the location of the
    /// first race it finds in a program, not every racy one.
    pub location: Option<Counts>,
    /// Event granularity; `None` for a check placer, whose detector reports checks, which
    /// a placer moves away from the accesses they cover.
    pub event: Option<Counts>,
    /// The granularity of the examples.
    pub examples_at: Granularity,
    /// The most frequent false positive.
    pub false_positive: Option<Example>,
    /// The most frequent false negative.
    pub false_negative: Option<Example>,
}

/// Why a scorecard cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScoreError {
    /// The subject is no detector.
    #[error("score judges dynamic detectors (a detector, or a check placer with its detector) and model checkers; a {0:?} is neither")]
    NotADetector(SutKind),
    /// A generator that draws programs of another dialect than the SUT analyzes.
    #[error("the {0} generator draws BFJ2 thread programs; a check placer analyzes {1} programs")]
    Unfit(&'static str, &'static str),
    /// A built-in oracle is missing.
    #[error("racefuzz internal bug: no built-in oracle {0}")]
    Internal(&'static str),
}

/// What runs on a program: a detector on the program itself, a placer's program with its
/// detector, or a model checker on the whole program.
#[derive(Clone, Copy)]
enum Runner<'a> {
    Detector(&'a dyn DetectorFactory),
    Placer(&'a dyn CheckPlacer, &'a dyn DetectorFactory),
    ModelChecker(&'a dyn ModelChecker),
}

impl Runner<'_> {
    /// What the SUT claims, by name (a model checker: `whole-program`, a race iff the
    /// program has one, on a racy location).
    fn claim(self) -> &'static str {
        match self {
            Runner::Detector(f) | Runner::Placer(_, f) => f.claim().name(),
            Runner::ModelChecker(_) => "whole-program",
        }
    }

    /// The granularity of its claim, where its examples are shown.
    fn granularity(self) -> Granularity {
        match self {
            Runner::Detector(f) => Granularity::of(f.claim()),
            Runner::Placer(..) => Granularity::Location,
            Runner::ModelChecker(_) => Granularity::Program,
        }
    }
}

/// One program's score.
#[derive(Default)]
struct ProgramScore {
    cut: bool,
    /// A model checker gave no verdict: the program counts in no row.
    no_answer: bool,
    traces: u64,
    failed: u64,
    racy: bool,
    flagged: bool,
    location: Counts,
    event: Counts,
    /// Categories of false positives and false negatives at each granularity, each with
    /// its first trace's schedule and the mistake.
    fp: Found,
    fn_: Found,
}

/// Mistakes of one kind in one program, by granularity and category: the first trace's
/// schedule and the mistake there.
type Found = BTreeMap<(Granularity, String), (String, String)>;

/// Per granularity and category: how many programs show it, and the smallest (size,
/// number, program).
type Seen = BTreeMap<(Granularity, String), (u64, (usize, u64, Program))>;

/// The programs and traces a scorecard counts over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Corpus {
    /// How many programs.
    pub programs: u64,
    /// The seed they are drawn with.
    pub seed: u64,
    /// One trace per Mazurkiewicz class (the DPOR explorer's representatives) instead of
    /// every interleaving: for a detector that runs each trace slowly (ThreadSanitizer
    /// compiles and starts a process), at the price of the traces where a detector's answer
    /// depends on the order of independent events.
    pub classes: bool,
    /// Which generator draws them.
    pub generator: Generator,
    /// The most traces explored per program ([`BUDGET`] unless told): a program with more is
    /// cut, its traces counted per trace and left out of the program row. For a slow
    /// detector on programs with many classes (the `limits` generator's crowds of locked
    /// writers have hundreds), a lower cap buys more programs.
    pub max_traces: u64,
    /// Whether each program is replaced by `strengthen(p)` (docs/spec/atomics.md §6.3: every
    /// order `seq_cst`, every fence dropped) before it is explored: the corpus of a detector
    /// whose atomics are all sequentially consistent (`crate::suts::Atomics::Strengthened`).
    pub strengthened: bool,
}

/// The generator of a corpus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Generator {
    /// The scorecard oracle's (`fasttrack-precise`'s for a detector, `bigfoot-precise`'s
    /// for a check placer).
    #[default]
    Oracle,
    /// Long histories for detectors (`race_oracles::gen::threads::swarm_histories`): chains
    /// of 4 to 8 forked readers before a write, beside another thread's access.
    Histories,
    /// Every detector limit form (`race_oracles::gen::threads::swarm_limits`): reader chains,
    /// crowds, fork chains, many readers, reuse after join; `racefuzz gen limits --stats`
    /// says which shapes their traces reach (`race_oracles::race::limits`).
    Limits,
    /// Programs with atomics and fences (`race_oracles::gen::threads::swarm_atomics`, the
    /// generator of `fasttrack-precise-atomics`: message passing, flags, fences, release
    /// sequences, CAS spinlocks): the scorecard of a detector on them is its atomics column
    /// (docs/spec/atomics.md §4.4, §5).
    Atomics,
}

/// A byte-driven program generator, as the registry's oracles have.
pub type ProgramGenerator = fn(&[u8], Relax) -> Program;

impl Generator {
    /// Its name in a scorecard, and its program generator; `None` for the oracle's.
    pub fn programs(self) -> Option<(&'static str, ProgramGenerator)> {
        match self {
            Generator::Oracle => None,
            Generator::Histories => Some(("histories", race_oracles::gen::threads::swarm_histories)),
            Generator::Limits => Some(("limits", race_oracles::gen::threads::swarm_limits)),
            Generator::Atomics => Some(("atomics", race_oracles::gen::threads::swarm_atomics)),
        }
    }
}

impl Corpus {
    /// `programs` programs drawn with `seed`, every interleaving of each.
    pub fn new(programs: u64, seed: u64) -> Corpus {
        Corpus { programs, seed, classes: false, generator: Generator::Oracle, max_traces: BUDGET, strengthened: false }
    }
}

/// The scorecard of the detector `make` gives (a detector, or a check placer with its
/// detector; each of `jobs` threads makes its own) on `corpus`, generated and checked under
/// `relax`; `tick` is called after each program (for a progress bar). The programs are
/// drawn first, in order, and each job scores every `jobs`-th one, so the card is the same
/// for any number of jobs.
///
/// # Errors
/// A SUT that is no detector.
pub fn score<'s>(make: &(dyn Fn() -> Sut<'s> + Sync), relax: Relax, corpus: Corpus, jobs: usize, tick: &(dyn Fn() + Sync)) -> Result<Scorecard, ScoreError> {
    score_and_deviations(make, relax, corpus, jobs, tick, false).map(|(card, _)| card)
}

/// A mistake a detector made, at a granularity, in a category, with its shrunk example
/// ([`board`] lists every one).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Deviation {
    /// `false positive` or `false negative`.
    pub mistake: &'static str,
    /// Where it was counted.
    pub granularity: Granularity,
    /// The category, the programs that show it, the smallest shrunk.
    pub example: Example,
}

/// [`score`], and with `every` each distinct deviation (mistake × granularity × category)
/// with its smallest program shrunk, sorted: what a [`board`] lists.
///
/// # Errors
/// A SUT that is no detector.
pub fn score_and_deviations<'s>(
    make: &(dyn Fn() -> Sut<'s> + Sync),
    relax: Relax,
    corpus: Corpus,
    jobs: usize,
    tick: &(dyn Fn() + Sync),
    every: bool,
) -> Result<(Scorecard, Vec<Deviation>), ScoreError> {
    let Corpus { programs, seed, classes, generator, max_traces, strengthened } = corpus;
    let (runner, oracle_id) = runner_of(make())?;
    let oracle: Oracle = Registry::builtin().find(oracle_id).copied().ok_or(ScoreError::Internal(oracle_id))?;
    let (generate, generator_name) = match (generator.programs(), runner) {
        (None, _) => (oracle.generate, oracle.id),
        (Some((name, generate)), Runner::Detector(_) | Runner::ModelChecker(_)) => (generate, name),
        (Some((name, _)), Runner::Placer(..)) => return Err(ScoreError::Unfit(name, oracle.dialect.name())),
    };
    let at = runner.granularity();
    let explorer = if classes { ExplorerKind::Dpor } else { ExplorerKind::Naive };
    let cfg = Config { max_executions: crate::suts::campaign_bounds().max_executions.min(max_traces), explorer, ..crate::suts::campaign_bounds() };
    let mut rng = StdRng::seed_from_u64(seed);
    let ps: Vec<Program> = (0..programs).map(|_| crate::campaign::generate_with(generate, relax, &mut rng)).map(|p| if strengthened { p.strengthened() } else { p }).collect();
    let jobs = jobs.max(1);
    let mut scored: Vec<(usize, Option<ProgramScore>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..jobs)
            .map(|j| {
                let ps = &ps;
                let cfg = &cfg;
                scope.spawn(move || {
                    // Each job its own detector: factories need not be shared across threads.
                    let Ok((runner, ..)) = runner_of(make()) else { return vec![] };
                    (j..ps.len())
                        .step_by(jobs)
                        .map(|i| {
                            let s = score_program(runner, &ps[i], cfg);
                            tick();
                            (i, s)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_default()).collect()
    });
    scored.sort_by_key(|(i, _)| *i);
    let mut card = Scorecard {
        detector: match runner {
            Runner::Detector(f) => f.fresh().name(),
            Runner::Placer(p, f) => format!("{} + {}", p.name(), f.fresh().name()),
            Runner::ModelChecker(m) => m.name(),
        },
        claim: runner.claim(),
        generator: generator_name,
        seed,
        programs,
        classes,
        max_traces,
        strengthened,
        cut_programs: 0,
        skipped_programs: 0,
        traces: 0,
        failed_traces: 0,
        program: Counts::default(),
        location: (!matches!(runner, Runner::ModelChecker(_))).then(Counts::default),
        event: matches!(runner, Runner::Detector(_)).then(Counts::default),
        examples_at: at,
        false_positive: None,
        false_negative: None,
    };
    let (mut fps, mut fns) = (Seen::new(), Seen::new());
    for (i, s) in scored {
        let (n, p) = (i as u64 + 1, &ps[i]);
        let Some(s) = s else {
            card.skipped_programs += 1;
            continue;
        };
        card.traces += s.traces;
        card.failed_traces += s.failed;
        if let Some(l) = &mut card.location {
            l.add(s.location);
        }
        if let Some(e) = &mut card.event {
            e.add(s.event);
        }
        if s.cut {
            card.cut_programs += 1;
        } else if !s.no_answer {
            card.program.add(Counts { tp: u64::from(s.racy && s.flagged), fp: u64::from(!s.racy && s.flagged), fn_: u64::from(s.racy && !s.flagged) });
        }
        for (found, seen) in [(&s.fp, &mut fps), (&s.fn_, &mut fns)] {
            for c in found.keys() {
                let e = seen.entry(c.clone()).or_insert((0, (usize::MAX, 0, p.clone())));
                e.0 += 1;
                if size(p) < e.1 .0 {
                    e.1 = (size(p), n, p.clone());
                }
            }
        }
    }
    let most = |seen: &Seen| seen.iter().filter(|((g, _), _)| *g == at).max_by_key(|((_, c), (count, _))| (*count, std::cmp::Reverse(c.clone()))).map(|(k, _)| k.clone());
    card.false_positive = most(&fps).and_then(|k| example(&fps, &k, |q| score_program(runner, q, &cfg).map(|s| s.fp), relax));
    card.false_negative = most(&fns).and_then(|k| example(&fns, &k, |q| score_program(runner, q, &cfg).map(|s| s.fn_), relax));
    let mut deviations = vec![];
    if every {
        for (mistake, seen, fp) in [("false positive", &fps, true), ("false negative", &fns, false)] {
            for key in seen.keys() {
                let found = |q: &Program| score_program(runner, q, &cfg).map(|s| if fp { s.fp } else { s.fn_ });
                if let Some(example) = example(seen, key, found, relax) {
                    deviations.push(Deviation { mistake, granularity: key.0, example });
                }
            }
        }
    }
    Ok((card, deviations))
}

/// The oracle whose generator draws the corpus of a SUT of `kind` (its dialect), and whose
/// way of running the SUT a scorecard follows: the registry's scorecard oracle of that kind
/// ([`race_oracles::theorems::Oracle::scorecard`]); `None` for a kind that has none (no
/// detector).
pub fn generator_of(kind: SutKind) -> Option<&'static str> {
    race_oracles::theorems::Registry::builtin().all().iter().find(|o| o.scorecard && o.sut == kind).map(|o| o.id)
}

/// What runs on each program, and the oracle whose generator draws the corpus. A model
/// checker is scored on the detectors' corpus (its scorecard oracle, `whole-program-exact`,
/// draws from the same generator as `fasttrack-precise`), so that it sits on a board
/// beside them.
fn runner_of(sut: Sut<'_>) -> Result<(Runner<'_>, &'static str), ScoreError> {
    let kind = if sut.kind() == SutKind::ModelChecker { SutKind::DynamicDetector } else { sut.kind() };
    let oracle = generator_of(kind).ok_or(ScoreError::NotADetector(sut.kind()))?;
    match sut {
        Sut::Detector(f) => Ok((Runner::Detector(f), oracle)),
        Sut::Placer(p, f) => Ok((Runner::Placer(p, f), oracle)),
        Sut::ModelChecker(m) => Ok((Runner::ModelChecker(m), oracle)),
        other => Err(ScoreError::NotADetector(other.kind())),
    }
}

/// The category `key` of `seen`, with its smallest program shrunk so that `found` still
/// shows it.
fn example(seen: &Seen, key: &(Granularity, String), found: impl Fn(&Program) -> Option<Found>, relax: Relax) -> Option<Example> {
    let (count, (_, n, p)) = seen.get(key)?;
    let shows = |q: &Program| found(q).is_some_and(|m| m.contains_key(key));
    let small = shrink(p, relax, SHRINK_ATTEMPTS, shows).program;
    // A detector whose answer varies from run to run (ThreadSanitizer's eviction) may not
    // show it again on the shrunk program, nor on the original: say so rather than print
    // an example without its trace.
    let again = |q: &Program| found(q).and_then(|mut m| m.remove(key));
    let (program, (schedule, at)) = match again(&small) {
        Some(shown) => (print(&small), shown),
        None => match again(p) {
            Some(shown) => (print(p), shown),
            None => (print(p), ("(not shown again on a second run: the detector varies from run to run)".to_string(), String::new())),
        },
    };
    Some(Example { category: key.1.clone(), programs: *count, program: *n, shrunk: program, schedule, at })
}

/// Scores one program; `None` when it cannot run (no initial state, placement declined).
fn score_program(runner: Runner<'_>, p: &Program, cfg: &Config) -> Option<ProgramScore> {
    let (program, factory, ended_only, cfg) = match runner {
        Runner::ModelChecker(m) => return score_whole_program(m, p, cfg),
        Runner::Detector(f) => (p.clone(), f, false, *cfg),
        // As bigfoot-precise runs a placer: its own checks only, made eagerly (spec §10.4).
        Runner::Placer(placer, f) => (placer.place(&p.without_checks()).ok()?, f, true, Config { eager_checks: cfg.eager_local, ..*cfg }),
    };
    let m = Machine::new(&program, cfg.loop_bound);
    let init = m.initial_state().ok()?;
    let first_race = factory.claim() == Claim::FirstRace;
    let factory = factory.for_program(&program);
    prepare_batch(factory.as_ref(), cfg.explorer.get(), &m, init.clone(), &cfg);
    let mut s = ProgramScore::default();
    let stats = cfg.explorer.get().explore(&m, init, &cfg, &mut |ex: &Execution<'_, '_>| {
        if ended_only && !matches!(ex.outcome, Outcome::Terminated | Outcome::Deadlock { .. }) {
            return ControlFlow::Continue(());
        }
        s.traces += 1;
        let name = |a| ex.state.addr_name(&m, a);
        let Ok(run) = reported_locations(factory.as_ref(), ex.trace, &name) else {
            s.failed += 1;
            return ControlFlow::Continue(());
        };
        let races = data_races(ex.trace);
        s.racy |= !races.is_empty();
        s.flagged |= !run.events.is_empty();
        let truth: BTreeSet<String> = races.iter().map(|r| name(r.addr)).collect();
        let flagged: BTreeSet<String> = run.locations.keys().cloned().collect();
        s.location.add(Counts::of(&truth, &flagged));
        // A report at the end of the trace is an event of its own, one past the last.
        let end = EventIdx(u32::try_from(ex.trace.len()).unwrap_or(u32::MAX));
        let racy_events: BTreeSet<EventIdx> = races.iter().map(|r| r.second).collect();
        let flagged_events: BTreeSet<EventIdx> = run.events.iter().map(|e| e.unwrap_or(end)).collect();
        s.event.add(Counts::of(&racy_events, &flagged_events));
        let schedule = || Schedule(ex.schedule.to_vec()).to_string();
        let note = |into: &mut Found, at: Granularity, category: String, what: String| {
            into.entry((at, category)).or_insert_with(|| (schedule(), what));
        };
        let hb = std::cell::OnceCell::new();
        let hb = || hb.get_or_init(|| Orders::new(ex.trace));
        for l in flagged.difference(&truth) {
            let e = run.events.iter().flatten().map(|i| &ex.trace[i.0 as usize]).find(|e| addr_of(e).is_some_and(|a| name(a) == *l));
            note(&mut s.fp, Granularity::Location, e.map_or_else(|| "a report that names no access".into(), |e| hb().false_positive(ex.trace, e)), l.clone());
        }
        // A detector that stops at the first race (Miri) claims nothing after it: a race it
        // missed after one it reported is a category of its own.
        let stopped = |r: &Race| first_race && flagged_events.range(..r.second).next().is_some();
        let after_stop = |r: &Race, category: String| if stopped(r) { format!("{category} after the race it stopped at") } else { category };
        for l in truth.difference(&flagged) {
            let r = races.iter().find(|r| name(r.addr) == *l);
            note(&mut s.fn_, Granularity::Location, r.map_or_else(String::new, |r| after_stop(r, missed(ex.trace, r))), l.clone());
        }
        // A placer's detector reports checks, which the placer moves away from the accesses
        // they cover: no event granularity (as the card's `event`).
        if ended_only {
            return ControlFlow::Continue(());
        }
        for i in flagged_events.difference(&racy_events) {
            let (cat, what) = match ex.trace.get(i.0 as usize) {
                Some(e) => (hb().false_positive(ex.trace, e), format!("event {} (line {})", i.0, e.line)),
                None => ("a report at the end of the trace".into(), "the end of the trace".into()),
            };
            note(&mut s.fp, Granularity::Event, cat, what);
        }
        for i in racy_events.difference(&flagged_events) {
            let r = races.iter().find(|r| r.second == *i);
            // A detector whose claim is locations may stay silent on a location it has
            // already reported (FastTrack's same-epoch rules, spec/bigfoot.md §1.6 [D]): a
            // category of its own, apart from a race on a location never reported before.
            let reported_before = r.is_some_and(|r| !stopped(r) && flagged_events.range(..*i).any(|j| ex.trace.get(j.0 as usize).and_then(addr_of) == Some(r.addr)));
            let category = r.map_or_else(String::new, |r| after_stop(r, missed(ex.trace, r)));
            let category = if reported_before { format!("{category} on a location reported earlier in the trace") } else { category };
            note(&mut s.fn_, Granularity::Event, category, format!("event {} (line {})", i.0, ex.trace[i.0 as usize].line));
        }
        ControlFlow::Continue(())
    });
    s.cut = !stats.complete;
    Some(s)
}

/// Scores a model checker's verdict on `p` against the ground truth over every
/// Mazurkiewicz class (as `whole-program-exact` does). Its mistakes are at program
/// granularity: a racy program called race-free (the category of its first race), a
/// race-free program called racy, a race named on a location no execution races on. A
/// program beyond its bounds, or on which it failed, has no answer.
fn score_whole_program(m: &dyn ModelChecker, p: &Program, cfg: &Config) -> Option<ProgramScore> {
    let machine = Machine::new(p, cfg.loop_bound);
    let init = machine.initial_state().ok()?;
    let mut s = ProgramScore::default();
    let mut racy_locations = BTreeSet::new();
    // The first racing execution's schedule and its first race's category, for an example.
    let mut first: Option<(String, String)> = None;
    let cfg = Config { explorer: ExplorerKind::Dpor, ..*cfg };
    let stats = cfg.explorer.get().explore(&machine, init, &cfg, &mut |ex: &Execution<'_, '_>| {
        let races = data_races(ex.trace);
        for r in &races {
            racy_locations.insert(ex.state.addr_name(&machine, r.addr));
        }
        if let (None, Some(r)) = (&first, races.first()) {
            first = Some((Schedule(ex.schedule.to_vec()).to_string(), missed(ex.trace, r)));
        }
        ControlFlow::Continue(())
    });
    s.cut = !stats.complete;
    s.racy = first.is_some();
    match m.verdict(p, cfg.loop_bound) {
        ModelVerdict::BeyondBounds(_) | ModelVerdict::Failed(_) => {
            s.failed = 1;
            s.no_answer = true;
        }
        ModelVerdict::NoRace { .. } => {
            if let Some((schedule, category)) = first {
                s.fn_.insert((Granularity::Program, category), (schedule, "no race reported".into()));
            }
        }
        // A possible weak-memory race in a program the SC ground truth cannot call
        // race-free (some order is weaker than seq_cst): no answer (spec/atomics.md §3.4).
        ModelVerdict::RaceNonSc { .. } if !s.racy && !p.race_freedom_is_exact() => {
            s.failed = 1;
            s.no_answer = true;
        }
        ModelVerdict::Race { location, line, .. } | ModelVerdict::RaceNonSc { location, line, .. } => {
            s.flagged = true;
            let at = format!("{location} (line {line})");
            if !s.racy {
                s.fp.insert((Granularity::Program, "a race reported in a race-free program".into()), (String::new(), at));
            } else if !racy_locations.contains(&location) {
                let schedule = first.map(|f| f.0).unwrap_or_default();
                s.fp.insert((Granularity::Program, "a race reported on a location no execution races on".into()), (schedule, at));
            }
        }
    }
    Some(s)
}

pub(crate) fn decimal(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), |x| format!("{x:.3}"))
}

/// What a card or board says of strengthened programs ([`Corpus::strengthened`]).
pub(crate) fn strengthened(yes: bool) -> &'static str {
    if yes {
        ", each strengthened (every order seq_cst, fences dropped: docs/spec/atomics.md §6.3)"
    } else {
        ""
    }
}

impl std::fmt::Display for Scorecard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} (claim: {}) on {} programs of {}'s generator, seed {}{}",
            self.detector,
            self.claim,
            self.programs,
            self.generator,
            self.seed,
            strengthened(self.strengthened)
        )?;
        writeln!(
            f,
            "{} trace(s){}; {} program(s) cut at {} executions (counted per trace, not per program); {} program(s) skipped; {} trace(s) without an answer",
            self.traces,
            if self.classes { " (one per Mazurkiewicz class)" } else { "" },
            self.cut_programs,
            self.max_traces,
            self.skipped_programs,
            self.failed_traces
        )?;
        writeln!(f)?;
        writeln!(f, "{:<12} {:>9} {:>9} {:>9} {:>10} {:>7} {:>6}", "granularity", "TP", "FP", "FN", "precision", "recall", "F1")?;
        for (name, c) in [("program", Some(self.program)), ("location", self.location), ("event", self.event)] {
            let Some(c) = c else {
                let why =
                    if self.location.is_none() { "a model checker names the first race it finds in a program" } else { "the detector reports the placed checks, not the accesses" };
                writeln!(f, "{name:<12} (none: {why})")?;
                continue;
            };
            writeln!(f, "{name:<12} {:>9} {:>9} {:>9} {:>10} {:>7} {:>6}", c.tp, c.fp, c.fn_, decimal(c.precision()), decimal(c.recall()), decimal(c.f1()))?;
        }
        let at = self.examples_at.name();
        for (what, e) in [("false positive", &self.false_positive), ("false negative", &self.false_negative)] {
            writeln!(f)?;
            let Some(e) = e else {
                writeln!(f, "no {what} ({at})")?;
                continue;
            };
            writeln!(f, "most frequent {what} ({at}): {} (in {} program(s))", e.category, e.programs)?;
            writeln!(f, "smallest: program {}, shrunk; on schedule {}: {}", e.program, e.schedule, e.at)?;
            for l in e.shrunk.lines() {
                writeln!(f, "  {l}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use race_oracles::lang::AccessKind;
    use race_oracles::machine::{Addr, Event, EventKind, FieldId, LockId, ObjId, ThreadId};

    /// A trace of one event per `(thread, kind)`, in order, all on line 1.
    fn trace_of(kinds: &[(u32, EventKind)]) -> Vec<Event> {
        kinds.iter().enumerate().map(|(i, &(t, k))| Event::plain(EventIdx(i as u32), ThreadId(t), 1, k)).collect()
    }

    /// The category of the last event of `trace` as a false positive.
    fn category(kinds: &[(u32, EventKind)]) -> String {
        let trace = trace_of(kinds);
        Orders::new(&trace).false_positive(&trace, &trace[trace.len() - 1])
    }

    /// The category of the first race of the trace of `kinds` as a missed one.
    fn missed_category(kinds: &[(u32, EventKind)]) -> String {
        let trace = trace_of(kinds);
        let race = data_races(&trace).into_iter().next().unwrap();
        missed(&trace, &race)
    }

    #[test]
    fn a_false_alarm_is_put_down_to_what_orders_it() {
        let x = Addr::Field(ObjId(0), FieldId(0));
        let (w, r) = (EventKind::Access(AccessKind::Write, x), EventKind::Access(AccessKind::Read, x));
        let (acq, rel) = (EventKind::Acquire(LockId::Global), EventKind::Release(LockId::Global));
        assert_eq!(category(&[(0, w), (0, EventKind::Fork(ThreadId(1))), (1, w)]), "a write ordered after every conflicting access by fork/join");
        assert_eq!(category(&[(0, acq), (0, w), (0, rel), (1, acq), (1, r)]), "a read ordered after a conflicting access by a lock");
        assert_eq!(category(&[(0, r), (1, r)]), "a read with no conflicting access of another thread before it");
        assert_eq!(category(&[(0, w), (0, w)]), "a write with no conflicting access of another thread before it");
        assert_eq!(category(&[(0, acq)]), "a report on a synchronization event");
    }

    /// A missed race is a long history when at least four accesses of other threads come
    /// between its two accesses (what a 4-cell history can lose), and a race of the trace
    /// is found by `data_races` as the category expects.
    #[test]
    fn a_missed_race_behind_a_long_history_is_a_category_of_its_own() {
        let x = Addr::Field(ObjId(0), FieldId(0));
        let (w, r) = (EventKind::Access(AccessKind::Write, x), EventKind::Access(AccessKind::Read, x));
        let trace = |readers: u32| -> Vec<Event> {
            let kinds: Vec<(u32, EventKind)> = std::iter::once((0, r)).chain((0..readers).map(|t| (2 + t, r))).chain(std::iter::once((1, w))).collect();
            trace_of(&kinds)
        };
        for (readers, expected) in [(3, "a read-write race"), (4, "a read-write race behind 4 or more accesses of other threads")] {
            let t = trace(readers);
            let race = data_races(&t).into_iter().find(|r| r.first == EventIdx(0)).unwrap();
            assert_eq!(missed(&t, &race), expected);
        }
    }

    /// L12's shape: a seq_cst fence in each thread between the accesses, in either order
    /// (loom and Miri order the threads through them, spec/atomics.md §5.3, §5.4); one fence
    /// alone is not the shape.
    #[test]
    fn a_missed_race_across_sc_fences_of_both_threads_is_a_category_of_its_own() {
        let x = Addr::Field(ObjId(0), FieldId(0));
        let (w, r, f) = (EventKind::Access(AccessKind::Write, x), EventKind::Access(AccessKind::Read, x), EventKind::Fence(race_oracles::lang::Order::SeqCst));
        for (kinds, expected) in [
            (vec![(0, w), (0, f), (1, f), (1, r)], "a write-read race across a seq_cst fence in each thread"),
            (vec![(1, f), (0, w), (0, f), (1, r)], "a write-read race across a seq_cst fence in each thread"),
            (vec![(0, w), (0, f), (1, r)], "a write-read race"),
        ] {
            assert_eq!(missed_category(&kinds), expected);
        }
    }

    /// ThreadSanitizer's shadow replacement (spec/atomics.md §5.1): an atomic write, its
    /// thread's own plain read of the cell, then another thread's plain read; not without
    /// the writer's read, nor with the writer's read before its write.
    #[test]
    fn a_missed_race_after_the_writers_own_plain_read_is_a_category_of_its_own() {
        let x = Addr::Field(ObjId(0), FieldId(0));
        let (s, r) = (EventKind::Atomic(race_oracles::machine::AtomicKind::Store(race_oracles::lang::Order::Release), x), EventKind::Access(AccessKind::Read, x));
        for (kinds, expected) in [
            (vec![(0, s), (0, r), (1, r)], "an atomic store-read race after its writer's own plain read"),
            (vec![(0, s), (1, r)], "an atomic store-read race"),
            (vec![(0, r), (0, s), (1, r)], "an atomic store-read race"),
        ] {
            assert_eq!(missed_category(&kinds), expected);
        }
    }

    #[test]
    fn counts_give_precision_recall_and_f1() {
        let c = Counts { tp: 6, fp: 2, fn_: 4 };
        assert_eq!(c.precision(), Some(0.75));
        assert_eq!(c.recall(), Some(0.6));
        assert_eq!(c.f1(), Some(12.0 / 18.0));
        assert_eq!(Counts::default().precision(), None);
        let truth: BTreeSet<u8> = [1, 2, 3].into();
        assert_eq!(Counts::of(&truth, &[2, 3, 4, 5].into()), Counts { tp: 2, fp: 2, fn_: 1 });
    }
}
