//! The ground truth of a whole program: explore it and summarize what a person (or a
//! `--json` consumer) wants to know: how executions ended, whether any races, on which
//! addresses, and one witness ([`Run`]); and the replay of one execution.
//!
//! This module sits above every engine: it dispatches a program to the semantics of its
//! dialect (the machine through an [`crate::explore::Explorer`], Naik-Aiken's instrumented
//! semantics, L-DRF's standard semantics), so that no engine knows another, and the explorer
//! knows no oracle.
//!
//! A program with `thread` blocks is one *run*. A racerdx program is a set of methods, and
//! each unordered pair of methods (self-pairs included) is a run of two threads
//! (docs/spec/racerdx.md §3.4). Def. 3.6 quantifies over *every* initial state, so a pair runs
//! from a bounded family of initial heaps: formals and fields are fixed lazily, each to an
//! existing initial object or a fresh one while fewer than `Config::heap_bound` exist. This
//! covers every aliasing pattern among the formals of both threads and the objects their
//! paths reach, up to that many objects (maximal aliasing alone would hide races that need
//! two distinct objects). The heap facts an execution fixed are printed with its witness.
//!
//! For racerdx runs the race verdict is Def. 3.6; the happens-before verdict is computed too
//! (`hb_racy_addresses`), and `tests/explore.rs` checks that they agree where both apply.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use crate::explore::classes::{class_key, final_state};
use crate::explore::witness::{def36_rows, rows};
use crate::explore::{Config, Execution, ExploreError, Names, Outcome, Property, RaceDefinition, RaceVerdict, Run, Schedule, StatePredicate, Witness};
use crate::lang::{Dialect, Program};
use crate::machine::*;
use crate::race::{data_races, def36, first_race};

/// Explores `program` (every method pair, or just `pair`, for racerdx; naikaiken programs on
/// the instrumented semantics, [`crate::instrumented::ground_truth`]; ldrf programs on E-STD,
/// [`crate::ldrf::ground_truth`]) and summarizes.
///
/// # Errors
/// [`SetupError`] when the initial state cannot be built.
pub fn ground_truth(program: &Program, cfg: &Config, pair: Option<(&str, &str)>) -> Result<Vec<Run>, SetupError> {
    summarize(program, cfg, pair, false)
}

/// [`ground_truth`], with every run's distinct final states ([`Run::final_states`]). Kept
/// apart because writing a final state for every execution costs about a tenth of an
/// exploration, and only `explore --json` shows them.
///
/// # Errors
/// [`SetupError`] when the initial state cannot be built.
pub fn ground_truth_with_final_states(program: &Program, cfg: &Config, pair: Option<(&str, &str)>) -> Result<Vec<Run>, SetupError> {
    summarize(program, cfg, pair, true)
}

fn summarize(program: &Program, cfg: &Config, pair: Option<(&str, &str)>, finals: bool) -> Result<Vec<Run>, SetupError> {
    match program.dialect {
        // Naik-Aiken's races are a property of the instrumented semantics' states.
        Dialect::NaikAiken => return Ok(vec![crate::instrumented::ground_truth(program, cfg)]),
        // L-DRF programs run on the paper's own standard semantics (values mod K).
        Dialect::Ldrf => return Ok(vec![crate::ldrf::ground_truth(program, cfg)]),
        _ => {}
    }
    let m = Machine::new(program, cfg.loop_bound);
    if program.dialect != Dialect::RacerDx {
        let init = m.initial_state()?;
        let threads = (1..=program.threads.len()).map(|i| format!("T{i}")).collect();
        return Ok(vec![run(&m, init, cfg, "threads".into(), threads, false, finals)]);
    }
    let names: Vec<&str> = program.methods.iter().map(|m| m.name.as_ref()).collect();
    let pairs: Vec<(&str, &str)> = match pair {
        Some(p) => vec![p],
        None => names.iter().enumerate().flat_map(|(i, a)| names[i..].iter().map(move |b| (*a, *b))).collect(),
    };
    let cfg = Config { state_predicate: Some(def36::enabled_pairs), ..*cfg };
    let mut runs = vec![];
    for (a, b) in pairs {
        let init = m.method_threads(&[a, b], vec![], &[])?;
        runs.push(run(&m, init, &cfg, format!("{a} ∥ {b}"), vec![format!("T1 ({a})"), format!("T2 ({b})")], true, finals));
    }
    Ok(runs)
}

/// One replayed execution: how it ended and every race along it.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Replayed {
    /// How the execution ended (`terminated`, `stuck: …`).
    pub outcome: String,
    /// The addresses with a happens-before race in this execution, sorted.
    pub hb_racy_addresses: Vec<String>,
    /// For racerdx pairs: the addresses of Def. 3.6 races in states along it, sorted.
    pub def36_racy_addresses: Option<Vec<String>>,
    /// The whole execution; every event of a happens-before race is marked.
    pub witness: Witness,
}

/// Replays the execution `schedule` names (completing a shorter schedule by always taking
/// the first choice), through the configured explorer.
///
/// # Errors
/// [`ReplayError`]: the initial state cannot be built, the program is racerdx and `pair` is
/// missing, or the schedule does not fit.
pub fn replay(program: &Program, cfg: &Config, pair: Option<(&str, &str)>, schedule: &Schedule) -> Result<Replayed, ReplayError> {
    let m = Machine::new(program, cfg.loop_bound);
    let racerdx = program.dialect == Dialect::RacerDx;
    let (init, columns) = if racerdx {
        let (a, b) = pair.ok_or(ReplayError::NeedsPair)?;
        (m.method_threads(&[a, b], vec![], &[])?, vec![format!("T1 ({a})"), format!("T2 ({b})")])
    } else {
        (m.initial_state()?, (1..=program.threads.len()).map(|i| format!("T{i}")).collect())
    };
    let cfg = Config { state_predicate: racerdx.then_some(def36::enabled_pairs as StatePredicate), ..*cfg };
    let mut out = None;
    cfg.explorer.get().replay(&m, init, &cfg, schedule, true, &mut |ex| {
        let races = data_races(ex.trace);
        let sorted = |v: Vec<String>| v.into_iter().collect::<BTreeSet<_>>().into_iter().collect::<Vec<_>>();
        let mut witness = Witness::of_execution(&m, ex);
        for (name, column) in witness.threads.iter_mut().zip(&columns) {
            name.clone_from(column);
        }
        out = Some(Replayed {
            outcome: ex.outcome.to_string(),
            hb_racy_addresses: sorted(races.iter().map(|r| ex.state.addr_name(&m, r.addr)).collect()),
            def36_racy_addresses: racerdx.then(|| sorted(ex.state_races.iter().map(|d| ex.state.addr_name(&m, d.pair.0[0].addr)).collect())),
            witness,
        });
    })?;
    out.ok_or(ReplayError::Internal)
}

/// Why a replay could not run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The initial state cannot be built.
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// A racerdx program runs a pair of methods.
    #[error("replaying a racerdx program needs --pair m1,m2")]
    NeedsPair,
    /// The schedule does not fit.
    #[error(transparent)]
    Schedule(#[from] ExploreError),
    /// The explorer returned without visiting the execution.
    #[error("racefuzz internal bug: the explorer's replay visited no execution")]
    Internal,
}

fn run<'p>(m: &Machine<'p>, init: State<'p>, cfg: &Config, setup: String, threads: Vec<String>, def36: bool, finals_wanted: bool) -> Run {
    let mut racy = BTreeSet::new();
    let mut hb_racy = BTreeSet::new();
    let mut problems = BTreeSet::new();
    let mut finals = BTreeSet::new();
    let mut witness = None;
    // Classes are a property of whole traces: counted only where traces are preserved.
    let traces = cfg.explorer.preserves(Property::Classes);
    let mut classes = std::collections::HashSet::new();
    let stats = cfg.explorer.get().explore(m, init, cfg, &mut |ex: &Execution<'_, 'p>| {
        if traces {
            classes.insert(class_key(m, ex));
        }
        let races = data_races(ex.trace);
        for r in &races {
            hb_racy.insert(ex.state.addr_name(m, r.addr));
        }
        for d in ex.state_races {
            racy.insert(ex.state.addr_name(m, d.pair.0[0].addr));
        }
        if matches!(ex.outcome, Outcome::Stuck { .. } | Outcome::Deadlock { .. }) {
            problems.insert(ex.outcome.to_string());
        }
        // A merged execution ends in a state another execution reached in full.
        if finals_wanted && *ex.outcome != Outcome::Merged {
            finals.insert(final_state(m, ex));
        }
        if witness.is_none() {
            witness = if def36 { def36_witness(m, ex) } else { hb_witness(m, ex, &races) };
        }
        ControlFlow::Continue(())
    });
    if !def36 {
        racy = hb_racy.clone();
    }
    if let Some(w) = &mut witness {
        for (name, label) in w.threads.iter_mut().zip(&threads) {
            name.clone_from(label);
        }
    }
    Run {
        setup,
        threads,
        executions: stats,
        racy: !racy.is_empty(),
        verdict: RaceVerdict::of(!racy.is_empty(), stats.complete, m.program.race_freedom_is_exact()),
        racy_addresses: racy.into_iter().collect(),
        hb_racy_addresses: hb_racy.into_iter().collect(),
        classes: traces.then_some(classes.len() as u64),
        problems: problems.into_iter().collect(),
        final_states: finals_wanted.then(|| finals.into_iter().collect()),
        witness,
    }
}

fn thread_names(ex: &Execution<'_, '_>) -> Vec<String> {
    ex.state.threads.iter().map(|t| t.name.to_string()).collect()
}

fn hb_witness<'p>(m: &Machine<'p>, ex: &Execution<'_, 'p>, races: &[crate::race::Race]) -> Option<Witness> {
    let f = first_race(races)?;
    let first = f.partners[0].0 as usize;
    let second = f.second.0 as usize;
    Some(Witness {
        schedule: Schedule(ex.schedule.to_vec()),
        threads: thread_names(ex),
        initial_heap: ex.state.initial_facts.clone(),
        events: rows(ex.trace, &[first, second]),
        address: Some(f.addr),
        definition: RaceDefinition::HappensBeforeFirstRace,
        names: Names::of(m, ex.state),
        sut: None,
    })
}

fn def36_witness<'p>(m: &Machine<'p>, ex: &Execution<'_, 'p>) -> Option<Witness> {
    let d = ex.state_races.first()?;
    Some(Witness {
        schedule: Schedule(ex.schedule[..d.choices].to_vec()),
        threads: thread_names(ex),
        initial_heap: ex.state.initial_facts[..d.facts].to_vec(),
        events: def36_rows(&ex.trace[..d.at], &d.pair),
        address: Some(d.pair.0[0].addr),
        definition: RaceDefinition::Def36,
        names: Names::of(m, ex.state),
        sut: None,
    })
}
