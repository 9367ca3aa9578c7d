//! Trace precision of an access filter, judged on every interleaving: the check shared by
//! `escape-trace-precise` (Theorem 4.5.3) and `capsule-first-race` (Theorem 5.4.3), and
//! by the escape filter's negative controls (docs/spec/escape_capsule.md §13 P-E8, P-E9).
//!
//! For each execution of the program (the naive explorer, every interleaving: the first
//! race depends on the order of independent events, docs/design.md principle 1), the filter
//! decides every event of α ([`super::filter`]), β is α without the elided events (same
//! indices, spec A8), and the ground truth computes the races of both with the same
//! happens-before (`race::hb`, with fork edges, spec A4). `Property::TracePrecise`
//! checks the strong form of the theorems, spec §4.5 C1/C4 and §9.4:
//! 1. **first race kept** (P-E1–P-E3, P-C1–P-C3): `j*(β) = j*(α)` and `R1(β) = R1(α)`,
//!    with the first race located by its *second* access (§1.5);
//! 2. **no new race** (P-E4, P-C4): every racing pair of β is a racing pair of α (a
//!    filter that drops a synchronization event fails here, M-E8);
//! 3. **the detector on β** (FastTrack): its first report is at `j*(α)`, and every
//!    location it reports is racy in α;
//! 4. **violations** (operational CapJava, P-C9/P-C10, §9.4): the filter reports its first
//!    capsule violation exactly where the semantics marks the first one (index v), and
//!    1 and 3 are owed only when `j*(α) < v`. Each execution ends at its first violation
//!    ([`Config::stop_at_violation`]): after it the claim owes nothing but 2, which holds
//!    by construction for a filter that keeps every synchronization event and is checked
//!    on the formal traces.
//!
//! P-E5 (lost races come after the first) follows from 1 and 2 and is not checked on its
//! own. The invariants P-E6/P-C6 are the filter's business (its own tests).
//!
//! An exploration cut by its budget that showed no counterexample is inconclusive.
//!
//! The parts, one concept each: this module (the check over every execution), `beta` (β,
//! its races and the properties judged on one trace) and `table` (one execution's
//! decisions, for people).

mod beta;
mod table;

pub use table::{filter_table, FilterRow, FilterTable};

use beta::{address_precise, elided_race_free, trace_precise};

use std::cell::LazyCell;
use std::ops::ControlFlow;

use super::detector::detector_view;
use super::filter::{filtered, Classes, Decision};
use super::result::{Item, ItemStatus, OracleResult};
use super::{Budget, Oracle, Sut};
use crate::explore::witness::Names;
use crate::explore::{Config, Execution, Explorer, ExplorerKind, FilterView, Naive, Schedule, SutView, Witness};
use crate::lang::Program;
use crate::machine::{Event, EventIdx, Machine};
use crate::race::data_races;

/// The most executions one check explores (the campaign's own budget if lower).
pub const BUDGET: u64 = 20_000;

/// What is checked on each trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Property {
    /// The theorem's strong form (see the module docs).
    TracePrecise,
    /// P-E8, a negative control: the racy locations of β are those of α (false: Fig. 4.2).
    AddressPrecise,
    /// P-E9, a negative control: no elided access is part of any race of α (false: Fig. 4.2).
    ElidedRaceFree,
}

impl Property {
    /// What it is about, for a result's subject.
    fn what(self) -> &'static str {
        match self {
            Property::TracePrecise => "first race of every trace",
            Property::AddressPrecise => "racy locations of every trace",
            Property::ElidedRaceFree => "elided accesses of every trace",
        }
    }
}

/// Counts over one check, for its explanation (and the bench's filtered fraction).
#[derive(Default)]
struct Tally {
    traces: u64,
    racy: u64,
    accesses: u64,
    elided: u64,
    violations: u64,
}

/// Checks `property` of the filter in `sut` on every execution of `p`; in the
/// `operational` mode the machine takes capsule violations (spec A14(b)).
pub(super) fn check(o: &Oracle, p: &Program, sut: &Sut<'_>, b: &Budget, operational: bool, property: Property) -> OracleResult {
    let Sut::Filter(filter, detector) = sut else { return o.wrong_sut(sut) };
    let name = sut_name(*filter, *detector);
    let inconclusive = |note: String| OracleResult::inconclusive(o.id, name.clone(), o.item_kind, note);
    if let Some(note) = o.unmet(p, b.relax) {
        return inconclusive(note);
    }
    // Operational: an execution ends at its first violation, where the claim ends.
    let cfg = Config { max_executions: b.explore.max_executions.min(BUDGET), explorer: ExplorerKind::Naive, stop_at_violation: operational, ..b.explore };
    let mut m = Machine::new(p, cfg.loop_bound);
    if operational {
        m = m.operational();
    }
    let init = match m.initial_state() {
        Ok(s) => s,
        Err(e) => return inconclusive(format!("no initial state: {e}")),
    };
    let detector = detector.for_program(p);
    let mut tally = Tally::default();
    let mut counterexample = None;
    let stats = Naive.explore(&m, init, &cfg, &mut |ex: &Execution<'_, '_>| {
        tally.traces += 1;
        let mut f = filter.fresh(Classes::of(p, &ex.state.objects));
        let decisions: Vec<Decision> = ex.trace.iter().map(|e| f.on_event(e)).collect();
        let alpha = data_races(ex.trace);
        tally.racy += u64::from(!alpha.is_empty());
        tally.accesses += ex.trace.iter().filter(|e| e.access().is_some()).count() as u64;
        tally.elided += ex.trace.iter().zip(&decisions).filter(|(e, d)| e.access().is_some() && **d == Decision::Elide).count() as u64;
        tally.violations += u64::from(ex.trace.iter().any(|e| e.violation.is_some()));
        // Names are for messages only: built when a counterexample needs them.
        let names = LazyCell::new(|| Names::of(&m, ex.state));
        let found = match property {
            Property::TracePrecise => trace_precise(ex.trace, &decisions, &alpha, detector.as_ref(), &names),
            Property::AddressPrecise => address_precise(ex.trace, &decisions, &alpha, &names),
            Property::ElidedRaceFree => elided_race_free(ex.trace, &decisions, &alpha, &names),
        };
        match found {
            None => ControlFlow::Continue(()),
            Some(mut lines) => {
                lines.insert(0, format!("trace {} (schedule {}):", tally.traces, Schedule(ex.schedule.to_vec())));
                // The decisions that matter to a reader: every elided or violating event, why.
                let mut f = filter.fresh(Classes::of(p, &ex.state.objects));
                let mut view = FilterView { name: f.name(), ..FilterView::default() };
                for e in ex.trace {
                    let d = f.on_event(e);
                    if d != Decision::Keep {
                        lines.push(format!("  {:?}: {}: {}", d, names.event(e), f.explain(e, d)));
                    }
                    match d {
                        Decision::Keep => {}
                        Decision::Elide => view.elided.push(e.idx),
                        Decision::Violation => view.violations.push(e.idx),
                    }
                }
                let beta = filtered(ex.trace, &decisions);
                let detector = detector_view(detector.as_ref(), property.what(), &beta, ex.trace, &|a| ex.state.addr_name(&m, a));
                counterexample = Some((lines, Witness::of_execution(&m, ex).with_sut(SutView { detector, filter: Some(view), checks: vec![] })));
                ControlFlow::Break(())
            }
        }
    });
    let subject = format!("{name}: {}", property.what());
    if let Some((explanation, witness)) = counterexample {
        let item = Item { subject, status: ItemStatus::Violated, explanation, witness: Some(witness) };
        return OracleResult::from_items(o.id, name, o.item_kind, vec![item], None);
    }
    let note = b.cut_short(stats.complete, tally.traces);
    let share = if tally.accesses == 0 { 0.0 } else { 100.0 * tally.elided as f64 / tally.accesses as f64 };
    let mut explanation = vec![format!("{} trace(s), {} racy; {} access(es), {} elided ({share:.1}%)", tally.traces, tally.racy, tally.accesses, tally.elided)];
    if operational {
        explanation.push(format!("{} trace(s) with a capsule violation", tally.violations));
    }
    let item = Item { subject, status: if note.is_some() { ItemStatus::Unknown } else { ItemStatus::Holds }, explanation, witness: None };
    OracleResult::from_items(o.id, name, o.item_kind, vec![item], note)
}

/// `filter + detector`, by their own names.
fn sut_name(filter: &dyn super::FilterFactory, detector: &dyn super::DetectorFactory) -> String {
    format!("{} + {}", filter.fresh(Classes::default()).name(), detector.fresh().name())
}

fn event(trace: &[Event], i: EventIdx) -> Option<&Event> {
    trace.get(i.0 as usize)
}

fn partner_list(trace: &[Event], partners: &[EventIdx], names: &Names) -> String {
    partners.iter().filter_map(|i| event(trace, *i)).map(|e| names.event(e)).collect::<Vec<_>>().join(", ")
}
