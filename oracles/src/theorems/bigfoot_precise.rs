//! `bigfoot-precise` (docs/spec/bigfoot.md §3, Theorem 3.9.4, and §9.1): a
//! check placer's checks are precise, and the detector that runs them reports exactly the
//! racy locations of every trace.
//!
//! The system under test is a [`super::CheckPlacer`] with the [`super::DetectorFactory`] that runs its
//! checks (BigFoot with its detector, or per-access checking with FastTrack on checks). The
//! placed program is enumerated in every interleaving (checks change neither the heap nor
//! the schedule, so its traces are the original's with checks added; a thread's checks run
//! right after the step before them, `Config::eager_checks`, spec §10.4), and on each trace:
//! - **precise checks** (§9.1 O2, §3.1 and §3.3): on every terminated trace, every access
//!   has a covering check and every check is legitimate for some access
//!   ([`crate::race::precise_checks`]);
//! - **racy locations** (O1, and O4 from spec \[D\] D2): on every trace that terminates or
//!   deadlocks (every unfinished thread waiting at an acquire), the locations the
//!   detector reports equal the locations with a happens-before data race;
//! - **no false alarm on a prefix** (O3, \[D\] D1): on every trace, whatever its ending
//!   (stuck, deadlocked, cut), each check race on a location comes with a data race on it
//!   among the events up to the later check.
//!
//! Programs must be BFJ in A-normal form (spec §2.1); checks already in a program are
//! removed before placement (the placer infers all of them); a placer that cannot place a
//! program makes it inconclusive, naming the construct. The result reports the check ratio
//! and the static checks against the accesses. The check ratio is the detector's
//! shadow-location operations per access event over the terminated and deadlocked traces
//! (spec §7.2; 1 for FastTrack on per-access checks, 0.43 the paper's benchmark mean for
//! BigFoot) when the detector counts them ([`super::DynamicDetector::shadow_operations`]),
//! else check events per access event over every trace.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use super::detector::{detector_view, location_differences, reported_locations};
use super::result::{Item, ItemStatus, OracleResult};
use super::{Budget, Oracle, Reads, Sut, SutKind};
use crate::explore::{CheckCover, Config, Execution, Explorer, ExplorerKind, Naive, Outcome, SutView, Witness};
use crate::gen;
use crate::lang::{validate_relaxed, walk_block, Dialect, Expr, ForkTarget, Place, Program, StmtKind};
use crate::machine::{Event, EventKind, Machine};
use crate::race::precise_checks::{coverage, imprecisions, Imprecision};
use crate::race::{check_races, data_races};

/// The most executions one check explores (the campaign's own budget if lower).
pub const BUDGET: u64 = 20_000;

/// `bigfoot-precise`.
pub const ORACLE: Oracle = Oracle {
    id: "bigfoot-precise",
    claim: "placed checks are precise and their detector reports exactly the racy locations of every trace (Theorem 3.9.4)",
    spec: "spec/bigfoot.md §3, §9.1 O1–O3",
    dialect: Dialect::Bfj,
    sut: SutKind::CheckPlacer,
    item_kind: "property",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[],
    scorecard: true,
    operational: None,
    generate: gen::bfj::swarm_bfj,
    grammar: &gen::bfj::GRAMMAR_BFJ,
    check,
};

/// The first counterexample of one property: the trace's number, the trace and why.
#[derive(Default)]
struct Property {
    first: Option<(u64, Witness, Vec<String>)>,
}

impl Property {
    /// Keeps the first counterexample, with what the SUT did on it (`view`, the cold path).
    fn fail<'p>(&mut self, n: u64, m: &Machine<'p>, ex: &Execution<'_, 'p>, why: Vec<String>, view: &dyn Fn() -> SutView) {
        if self.first.is_none() {
            self.first = Some((n, Witness::of_execution(m, ex).with_sut(view()), why));
        }
    }

    fn item(self, subject: &str, holds: String, unknown: bool) -> Item {
        match self.first {
            Some((n, w, why)) => {
                Item { subject: subject.into(), status: ItemStatus::Violated, explanation: [vec![format!("trace {n} (schedule {}):", w.schedule)], why].concat(), witness: Some(w) }
            }
            None => Item { subject: subject.into(), status: if unknown { ItemStatus::Unknown } else { ItemStatus::Holds }, explanation: vec![holds], witness: None },
        }
    }
}

fn check(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::Placer(placer, factory) = sut else { return ORACLE.wrong_sut(sut) };
    let name = format!("{} + {}", placer.name(), factory.fresh().name());
    let inconclusive = |note: String| OracleResult::inconclusive(ORACLE.id, name.clone(), ORACLE.item_kind, note);
    if let Some(note) = ORACLE.unmet(p, b.relax) {
        return inconclusive(note);
    }
    if let Some(line) = not_anf(p) {
        return inconclusive(format!(
            "precondition unmet: BFJ statements are in A-normal form (spec/bigfoot.md §2.1); line {line} accesses a path longer than one field or passes a path"
        ));
    }
    // The placer infers every check (spec §4): checks already in the program are the
    // author's (the corpus figures carry the spec's placements) and are set aside.
    let p = &p.without_checks();
    let placed = match placer.place(p) {
        Ok(q) => q,
        Err(e) => return inconclusive(format!("the placer declined: {e}")),
    };
    if let Err(e) = validate_relaxed(&placed, b.relax) {
        let item = Item { subject: "the placed program".into(), status: ItemStatus::Violated, explanation: vec![format!("is not valid BFJ: {e}")], witness: None };
        return OracleResult::from_items(ORACLE.id, name, ORACLE.item_kind, vec![item], None);
    }
    // Checks run eagerly (spec §10.4): interleavings that differ only in where checks sit
    // have the same races, so enumerating them all would only multiply the traces.
    let cfg = Config { max_executions: b.explore.max_executions.min(BUDGET), explorer: ExplorerKind::Naive, eager_checks: b.explore.eager_local, ..b.explore };
    let m = Machine::new(&placed, cfg.loop_bound);
    let init = match m.initial_state() {
        Ok(s) => s,
        Err(e) => return inconclusive(format!("no initial state: {e}")),
    };
    let (mut precise, mut exact, mut prefixes) = (Property::default(), Property::default(), Property::default());
    // The detector's static facts are about the placed program it runs on (spec §5.2).
    let factory = factory.for_program(&placed);
    let (mut traces, mut terminated, mut ended, mut accesses, mut checks) = (0u64, 0u64, 0u64, 0u64, 0u64);
    // Shadow operations and accesses over the traces the detector runs on (the ended ones).
    let (mut shadow_ops, mut ended_accesses) = (Some(0u64), 0u64);
    let mut racy = BTreeSet::new();
    let stats = Naive.explore(&m, init, &cfg, &mut |ex: &Execution<'_, '_>| {
        traces += 1;
        let name = |a| ex.state.addr_name(&m, a);
        let describe = |e: &Event| format!("{} at line {} ({})", kind_text(e.kind, &name), e.line, ex.state.threads.get(e.thread.0 as usize).map_or("?", |t| t.name.as_ref()));
        let view = || SutView {
            detector: detector_view(factory.as_ref(), super::Claim::Locations.property(), ex.trace, ex.trace, &name),
            filter: None,
            checks: coverage(ex.trace).into_iter().map(|(check, covers)| CheckCover { check, covers }).collect(),
        };
        let trace_accesses = ex.trace.iter().filter(|e| matches!(e.kind, EventKind::Access(..))).count() as u64;
        accesses += trace_accesses;
        checks += ex.trace.iter().filter(|e| matches!(e.kind, EventKind::Check(..))).count() as u64;
        let data = data_races(ex.trace);
        // O3: a check race completed at event j needs a data race on its location by j.
        for c in check_races(ex.trace, true) {
            if !data.iter().any(|d| d.addr == c.addr && d.second.0 <= c.second.0) {
                prefixes.fail(
                    traces,
                    &m,
                    ex,
                    vec![format!("check race on {} (events {} and {}) with no data race on it up to there: a false alarm", name(c.addr), c.first.0, c.second.0)],
                    &view,
                );
            }
        }
        // O1 on terminated traces; O4 (spec [D] D2) on deadlocks too, where every blocked
        // thread waits at an acquire, before which every past access was checked.
        let deadlocked = matches!(ex.outcome, Outcome::Deadlock { .. });
        if *ex.outcome != Outcome::Terminated && !deadlocked {
            return ControlFlow::Continue(());
        }
        ended += 1;
        let faults = if deadlocked { vec![] } else { imprecisions(ex.trace) };
        terminated += u64::from(!deadlocked);
        if !faults.is_empty() {
            let why = faults
                .iter()
                .take(3)
                .map(|f| match *f {
                    Imprecision::Uncovered(i) => format!("UNCOVERED access: {}", describe(&ex.trace[i.0 as usize])),
                    Imprecision::Illegitimate(i) => format!("ILLEGITIMATE check: {}", describe(&ex.trace[i.0 as usize])),
                })
                .collect();
            precise.fail(traces, &m, ex, why, &view);
        }
        let truth: BTreeSet<String> = data.iter().map(|r| name(r.addr)).collect();
        let run = match reported_locations(factory.as_ref(), ex.trace, &name) {
            Ok(run) => run,
            Err(failure) => {
                exact.fail(traces, &m, ex, vec![format!("DETECTOR FAILED: {failure}")], &view);
                return ControlFlow::Continue(());
            }
        };
        shadow_ops = shadow_ops.zip(run.shadow_operations).map(|(a, b)| a + b);
        ended_accesses += trace_accesses;
        let reported = run.locations;
        let (missed, false_alarms) = location_differences(&truth, &reported);
        if !missed.is_empty() || !false_alarms.is_empty() {
            let mut why: Vec<String> = missed.iter().map(|l| format!("MISSED racy location {l}")).collect();
            why.extend(false_alarms.iter().map(|(l, w)| format!("FALSE ALARM on race-free location {l}: {w}")));
            exact.fail(traces, &m, ex, why, &view);
        }
        racy.extend(truth);
        ControlFlow::Continue(())
    });
    let note = b.cut_short(stats.complete, traces);
    let unknown = note.is_some();
    let ratio = match shadow_ops {
        // With no ended trace the detector never ran: no count to show.
        Some(ops) if ended > 0 => {
            if ended_accesses == 0 {
                "no accesses".to_string()
            } else {
                format!("{:.2} shadow operation(s) per access", ops as f64 / ended_accesses as f64)
            }
        }
        _ if accesses == 0 => "no accesses".to_string(),
        _ => format!("{:.2} check(s) per access", checks as f64 / accesses as f64),
    };
    let (static_checks, static_accesses) = (count(&placed, true), count(p, false));
    let items = vec![
        precise.item(
            "precise checks on every terminated trace",
            format!("{terminated} terminated trace(s) of {traces}; {ratio}; {static_checks} static check(s) for {static_accesses} access statement(s)"),
            // With no terminated trace there was nothing to judge: not a pass.
            unknown || terminated == 0,
        ),
        exact.item(
            "racy locations reported exactly on every terminated or deadlocked trace",
            format!("{ended} such trace(s); racy locations: {}", if racy.is_empty() { "none".to_string() } else { racy.into_iter().collect::<Vec<_>>().join(", ") }),
            unknown || ended == 0,
        ),
        prefixes.item("no check race without a data race, on every prefix", format!("{traces} trace(s), every ending"), unknown),
    ];
    OracleResult::from_items(ORACLE.id, name, ORACLE.item_kind, items, note)
}

fn kind_text(k: EventKind, name: &dyn Fn(crate::machine::Addr) -> String) -> String {
    match k {
        EventKind::Access(k, a) => format!("{} {}", k.letter(), name(a)),
        EventKind::Check(k, a) => format!("check({}: {})", k.letter(), name(a)),
        other => format!("{other:?}"),
    }
}

/// The line of the first statement outside A-normal form: an access through a path of
/// more than one field, or a path passed as an actual (both read heap cells without an
/// access event, which no check can name).
fn not_anf(p: &Program) -> Option<u32> {
    let multi = |pl: &Place| matches!(pl, Place::Field { fields, .. } if fields.len() > 1);
    let mut found = None;
    let bodies = p.all_methods().map(|(_, m)| &m.body).chain(p.init.iter()).chain(p.threads.iter());
    for b in bodies {
        walk_block(b, &mut |s| {
            let bad = match &s.kind {
                StmtKind::Load { src: pl, .. } | StmtKind::Store { dst: pl, .. } => multi(pl),
                StmtKind::Call { args, .. } | StmtKind::Fork { target: ForkTarget::Call { args, .. }, .. } => args.iter().any(|a| matches!(a, Expr::Path(_))),
                _ => false,
            };
            if bad && found.is_none() {
                found = Some(s.line.0);
            }
        });
    }
    found
}

/// Check items (`checks`) or field and array access statements in a program's threads and
/// methods.
fn count(p: &Program, checks: bool) -> usize {
    let mut n = 0;
    for b in p.threads.iter().chain(p.all_methods().map(|(_, m)| &m.body)) {
        walk_block(b, &mut |s| {
            n += match &s.kind {
                StmtKind::Check(items) if checks => items.len(),
                StmtKind::Load { .. } | StmtKind::Store { .. } if !checks => 1,
                _ => 0,
            }
        });
    }
    n
}
