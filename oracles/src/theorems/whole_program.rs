//! `whole-program-exact`: a model checker reports a data race iff the program has one, and
//! the race it reports is on a racy location.
//!
//! The claim loom makes of its `UnsafeCell` (docs.rs `loom::cell::UnsafeCell`: an access
//! not ordered by happens-before with a conflicting one is a *causality violation*) and of
//! `loom::model` (every interleaving is explored, DPOR without a preemption bound). The
//! system under test is any [`super::ModelChecker`]; the ground truth is
//! [`crate::truth::ground_truth`]'s `racy` and `racy_addresses`: a happens-before data race
//! in some execution (docs/spec/bigfoot.md §1.6, `DR(α)`), explored under the same loop
//! bound.
//!
//! Verdicts:
//! - the tool's race on a racy location of a racy program, or its no-race on a race-free
//!   one (complete exploration on both sides): pass;
//! - a missed race (with the ground truth's racing execution as witness), an invented race,
//!   or a race named on a location that never races: fail;
//! - the tool beyond its bounds, or the ground truth's exploration cut short: inconclusive;
//! - the tool failing (crash, timeout, unreadable answer): fail, `MODEL CHECKER FAILED`,
//!   never a pass.
//!
//! `whole-program-exact-atomics` ([`ATOMICS`]) makes the same claim on programs with
//! atomics and fences, with the labels of docs/spec/atomics.md §3.4. The ground truth
//! enumerates SC executions only, so where some order is weaker than `seq_cst`
//! ([`Program::race_freedom_is_exact`] is false) its "no race" is `inconclusive (SC
//! executions only)`; a tool that explores weak executions (loom) may answer
//! [`ModelVerdict::RaceNonSc`], a race found after a load read an older store:
//! - a race (SC or not) in a racy program: pass, as above (a non-SC race named on a location
//!   no SC execution races on is inconclusive: it may race in a weak execution only);
//! - a non-SC race in a program without an SC race: inconclusive (possible weak-memory
//!   race), except when every atomic is `seq_cst`, where DRF-SC makes it a false positive
//!   (fail, `INVENTED RACE`: loom on L9, spec §5.3);
//! - an SC race in a program without one: fail, as above (the tool's execution was, up to
//!   the report, an SC trace that the ground truth enumerates);
//! - no race where the ground truth has one: fail (`MISSED RACE`, with the SC witness);
//! - no race where there is none: pass when every atomic is `seq_cst`, else inconclusive
//!   (SC executions only).

use super::model_checker::ModelVerdict;
use super::result::{Item, ItemStatus, OracleResult, SC_EXECUTIONS_ONLY};
use super::{Budget, Oracle, Reads, Sut, SutKind};
use crate::explore::{Config, ExplorerKind};
use crate::gen;
use crate::lang::{Dialect, Program};
use crate::truth::ground_truth;

/// `whole-program-exact`.
pub const ORACLE: Oracle = Oracle {
    id: "whole-program-exact",
    claim: "a model checker reports a race iff the program has one, on a racy location",
    spec: "spec/bigfoot.md §1.6 (DR); loom::cell::UnsafeCell (causality violation)",
    dialect: Dialect::Bfj2,
    sut: SutKind::ModelChecker,
    item_kind: "program",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[],
    // Scores a model checker; its generator is `fasttrack-precise`'s, on whose corpus a
    // model checker is scored beside the detectors.
    scorecard: true,
    operational: None,
    generate: gen::threads::swarm_detectors,
    grammar: &gen::threads::GRAMMAR_DETECTORS,
    check: |p, sut, b| check(&ORACLE, p, sut, b),
};

/// `whole-program-exact-atomics`: the same claim on programs with atomics and fences, drawn
/// by the atomic generator (message passing with every order, fences, release sequences,
/// CAS spinlocks) without plain writes to an atomic field, which a model checker of Rust
/// cannot express ([`gen::threads::swarm_atomics_model_checkers`]), with spec/atomics.md
/// §3.4's labels.
pub const ATOMICS: Oracle = Oracle {
    id: "whole-program-exact-atomics",
    claim: "a model checker reports a race iff the program has one, on programs with atomics and fences (SC ground truth; weak-memory races inconclusive)",
    spec: "spec/atomics.md §3.4, §5.3; spec/bigfoot.md §1.6 (DR)",
    atomics: true,
    scorecard: false,
    generate: gen::threads::swarm_atomics_model_checkers,
    grammar: &gen::threads::GRAMMAR_ATOMICS,
    check: |p, sut, b| check(&ATOMICS, p, sut, b),
    ..ORACLE
};

fn check(oracle: &Oracle, p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::ModelChecker(tool) = sut else { return oracle.wrong_sut(sut) };
    let name = tool.name();
    let inconclusive = |note: String| OracleResult::inconclusive(oracle.id, name.clone(), oracle.item_kind, note);
    if let Some(note) = oracle.unmet(p, b.relax) {
        return inconclusive(note);
    }
    // DPOR: the verdict is about races and racy locations, which every Mazurkiewicz class
    // shows alike (spec/dpor.md), and the naive enumeration would cost the tool's budget.
    let cfg = Config { explorer: ExplorerKind::Dpor, ..b.explore };
    let truth = match ground_truth(p, &cfg, None) {
        Ok(runs) => runs,
        Err(e) => return inconclusive(format!("no initial state: {e}")),
    };
    let Some(run) = truth.first() else { return inconclusive("racefuzz internal bug: no run of a thread program".into()) };
    let verdict = tool.verdict(p, cfg.loop_bound);
    let racy = if run.racy_addresses.is_empty() { "none".to_string() } else { run.racy_addresses.join(", ") };
    // DRF-SC (spec/atomics.md §3.3): with every atomic seq_cst, no SC race means no race.
    let exact = p.race_freedom_is_exact();
    let (status, explanation, witness) = match &verdict {
        ModelVerdict::Failed(why) => (ItemStatus::Violated, vec![format!("MODEL CHECKER FAILED: {why}")], None),
        ModelVerdict::BeyondBounds(why) => return inconclusive(format!("{name} gave no answer: beyond its bounds ({why})")),
        ModelVerdict::RaceNonSc { location, line, .. } if !run.racy && !exact => return inconclusive(format!("possible weak-memory race: {name} reports a race on {location} (line {line}) in a non-SC execution; no SC execution races, and orders weaker than seq_cst allow executions the ground truth does not enumerate")),
        ModelVerdict::RaceNonSc { location, line, detail } if !run.racy => (
            ItemStatus::Violated,
            vec![format!("INVENTED RACE: {name} reports a race on {location} (line {line}) in a non-SC execution, but every atomic is seq_cst and no SC execution races (DRF-SC)"), format!("{name}: {detail}")],
            None,
        ),
        ModelVerdict::RaceNonSc { location, line, .. } if !run.racy_addresses.contains(location) => return inconclusive(format!("possible weak-memory race: {name} reports a race on {location} (line {line}) in a non-SC execution; the SC racy locations are {racy}")),
        ModelVerdict::Race { location, line, detail } if !run.racy => {
            (ItemStatus::Violated, vec![format!("INVENTED RACE: {name} reports a race on {location} (line {line}), but no execution races"), format!("{name}: {detail}")], None)
        }
        ModelVerdict::Race { location, line, detail } if !run.racy_addresses.contains(location) => (
            ItemStatus::Violated,
            vec![format!("WRONG LOCATION: {name} reports a race on {location} (line {line}); the racy locations are {racy}"), format!("{name}: {detail}")],
            run.witness.clone(),
        ),
        ModelVerdict::NoRace { executions } if run.racy => {
            (ItemStatus::Violated, vec![format!("MISSED RACE: {name} explored {executions} execution(s) and found no race; the racy locations are {racy}")], run.witness.clone())
        }
        ModelVerdict::Race { location, line, .. } => (ItemStatus::Holds, vec![format!("race on {location} (line {line}); racy locations: {racy}")], None),
        ModelVerdict::RaceNonSc { location, line, .. } => (ItemStatus::Holds, vec![format!("race on {location} (line {line}), found in a non-SC execution; racy locations: {racy}")], None),
        ModelVerdict::NoRace { executions } if !exact => return inconclusive(format!("{SC_EXECUTIONS_ONLY}: no race in {executions} execution(s), none in the SC ground truth, which is exact only when every atomic is seq_cst")),
        ModelVerdict::NoRace { executions } => (ItemStatus::Holds, vec![format!("no race in {executions} execution(s); none in the ground truth")], None),
    };
    // On a cut-short ground truth only what it already shows is certain: a failure of the
    // tool, and a race it found that the tool missed. A race the tool names may be in an
    // execution not explored, and a pass proves nothing.
    let note = b.cut_short(run.executions.complete, run.executions.executions);
    let certain = matches!(verdict, ModelVerdict::Failed(_)) || (run.racy && matches!(verdict, ModelVerdict::NoRace { .. }));
    let status = if note.is_some() && !certain { ItemStatus::Unknown } else { status };
    let subject = format!("{name}: whole program");
    OracleResult::from_items(oracle.id, name, oracle.item_kind, vec![Item { subject, status, explanation, witness }], note)
}
