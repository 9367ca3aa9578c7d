//! The ground truth of a whole program: explore it and summarize what a person (or a
//! `--json` consumer) wants to know: how executions ended, whether any races, on which
//! addresses, and one witness.
//!
//! A program with `thread` blocks is one *run*. A racerdx program is a set of methods, and
//! each unordered pair of methods (self-pairs included) is a run of two threads
//! (spec/racerdx.md §3.4). Def. 3.6 quantifies over *every* initial state, so a pair runs
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

use super::naive::{explore, Config, Execution, Outcome, Stats};
use crate::lang::{AccessKind, Dialect, Program};
use crate::machine::*;
use crate::race::{data_races, first_race};

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
    /// Every address some execution races on, sorted.
    pub racy_addresses: Vec<String>,
    /// The happens-before racy addresses (equal to `racy_addresses` outside racerdx).
    pub hb_racy_addresses: Vec<String>,
    /// Distinct stuck/deadlock descriptions, sorted.
    pub problems: Vec<String>,
    /// One racing execution, the first in exploration order.
    pub witness: Option<Witness>,
}

/// A racing execution, laid out for people.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Witness {
    /// The schedule that reproduces the execution (`racefuzz replay --schedule`).
    pub schedule: String,
    /// Column headers: every thread of the execution, in creation order.
    pub threads: Vec<String>,
    /// The lazily fixed part of the initial heap (racerdx pairs).
    pub initial_heap: Vec<String>,
    /// The events, in order.
    pub events: Vec<WitnessEvent>,
    /// The address raced on.
    pub address: String,
    /// Which definition found the race: `happens-before` or `Def. 3.6`.
    pub definition: String,
}

/// One row of a witness.
#[derive(Clone, Debug, serde::Serialize)]
pub struct WitnessEvent {
    /// Trace index, or `None` for the two accesses Def. 3.6 shows as enabled together.
    pub index: Option<u32>,
    /// Column (thread position).
    pub thread: usize,
    /// Source line.
    pub line: u32,
    /// What happens (`W b.f`, `acq m`).
    pub text: String,
    /// Whether this is one of the two racing accesses.
    pub racing: bool,
}

/// Explores `program` (every method pair, or just `pair`, for racerdx) and summarizes.
///
/// # Errors
/// [`SetupError`] when the initial state cannot be built.
pub fn ground_truth(program: &Program, cfg: &Config, pair: Option<(&str, &str)>) -> Result<Vec<Run>, SetupError> {
    let m = Machine::new(program, cfg.loop_bound);
    if program.dialect != Dialect::RacerDx {
        let init = m.initial_state()?;
        let threads = (1..=program.threads.len()).map(|i| format!("T{i}")).collect();
        return Ok(vec![run(&m, init, cfg, "threads".into(), threads, false)]);
    }
    let names: Vec<&str> = program.methods.iter().map(|m| m.name.as_str()).collect();
    let pairs: Vec<(&str, &str)> = match pair {
        Some(p) => vec![p],
        None => names.iter().enumerate().flat_map(|(i, a)| names[i..].iter().map(move |b| (*a, *b))).collect(),
    };
    let cfg = Config { def36: true, ..*cfg };
    let mut runs = vec![];
    for (a, b) in pairs {
        let init = m.method_threads(&[a, b], vec![], &[])?;
        runs.push(run(&m, init, &cfg, format!("{a} ∥ {b}"), vec![format!("T1 ({a})"), format!("T2 ({b})")], true));
    }
    Ok(runs)
}

fn run<'p>(m: &Machine<'p>, init: State<'p>, cfg: &Config, setup: String, threads: Vec<String>, def36: bool) -> Run {
    let mut racy = BTreeSet::new();
    let mut hb_racy = BTreeSet::new();
    let mut problems = BTreeSet::new();
    let mut witness = None;
    let stats = explore(m, init, cfg, |ex: &Execution<'_, 'p>| {
        let races = data_races(ex.trace);
        for r in &races {
            hb_racy.insert(ex.state.addr_name(m, r.addr));
        }
        for d in ex.def36 {
            racy.insert(ex.state.addr_name(m, d.pair[0].2));
        }
        if matches!(ex.outcome, Outcome::Stuck { .. } | Outcome::Deadlock { .. }) {
            problems.insert(ex.outcome.to_string());
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
            *name = label.clone();
        }
    }
    Run {
        setup,
        threads,
        executions: stats,
        racy: !racy.is_empty(),
        racy_addresses: racy.into_iter().collect(),
        hb_racy_addresses: hb_racy.into_iter().collect(),
        problems: problems.into_iter().collect(),
        witness,
    }
}

/// Renders an event for a witness row.
pub fn event_text<'p>(m: &Machine<'p>, st: &State<'p>, k: EventKind) -> String {
    let thread = |t: ThreadId| st.threads.get(t.0 as usize).map_or_else(|| t.to_string(), |th| th.name.clone());
    match k {
        EventKind::Access(kind, a) => format!("{} {}", kind.letter(), st.addr_name(m, a)),
        EventKind::Acquire(LockId::Global) => "lock".into(),
        EventKind::Release(LockId::Global) => "unlock".into(),
        EventKind::Acquire(l) => format!("acq {}", st.lock_name(l)),
        EventKind::Release(l) => format!("rel {}", st.lock_name(l)),
        EventKind::Fork(u) => format!("fork {}", thread(u)),
        EventKind::Join(u) => format!("join {}", thread(u)),
        EventKind::Check(kind, a) => format!("check {} {}", kind.letter(), st.addr_name(m, a)),
        EventKind::Enter(k) => format!("enter {}", st.objects[k.0 as usize].name),
        EventKind::Exit(k) => format!("exit {}", st.objects[k.0 as usize].name),
    }
}

fn thread_names(ex: &Execution<'_, '_>) -> Vec<String> {
    ex.state.threads.iter().map(|t| t.name.clone()).collect()
}

/// Witness rows for `trace` (events of `state`'s execution), marking positions `marked`.
pub fn rows<'p>(m: &Machine<'p>, state: &State<'p>, trace: &[Event], marked: &[usize]) -> Vec<WitnessEvent> {
    trace
        .iter()
        .enumerate()
        .map(|(i, e)| WitnessEvent { index: Some(e.idx.0), thread: e.thread.0 as usize, line: e.line, text: event_text(m, state, e.kind), racing: marked.contains(&i) })
        .collect()
}

fn hb_witness<'p>(m: &Machine<'p>, ex: &Execution<'_, 'p>, races: &[crate::race::Race]) -> Option<Witness> {
    let f = first_race(races)?;
    let first = f.partners[0].0 as usize;
    let second = f.second.0 as usize;
    Some(Witness {
        schedule: super::Schedule(ex.schedule.to_vec()).to_string(),
        threads: thread_names(ex),
        initial_heap: ex.state.initial_facts.clone(),
        events: rows(m, ex.state, ex.trace, &[first, second]),
        address: ex.state.addr_name(m, f.addr),
        definition: "happens-before (first race)".into(),
    })
}

fn def36_witness<'p>(m: &Machine<'p>, ex: &Execution<'_, 'p>) -> Option<Witness> {
    let d = ex.def36.first()?;
    let mut events = rows(m, ex.state, &ex.trace[..d.at], &[]);
    for (t, kind, addr, line) in d.pair {
        let text = event_text(m, ex.state, EventKind::Access(kind, addr));
        events.push(WitnessEvent { index: None, thread: t.0 as usize, line, text, racing: true });
    }
    debug_assert!(d.pair.iter().any(|p| p.1 == AccessKind::Write));
    Some(Witness {
        schedule: super::Schedule(ex.schedule[..d.choices].to_vec()).to_string(),
        threads: thread_names(ex),
        initial_heap: ex.state.initial_facts[..d.facts].to_vec(),
        events,
        address: ex.state.addr_name(m, d.pair[0].2),
        definition: "Def. 3.6 (both accesses enabled in the same state)".into(),
    })
}
