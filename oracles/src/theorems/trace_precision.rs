//! Trace precision of an access filter, judged on every interleaving: the check shared by
//! `escape-trace-precise` (Theorem 4.5.3) and `capsule-first-race` (Theorem 5.4.3), and
//! by the escape filter's negative controls (spec/escape_capsule.md §13 P-E8, P-E9).
//!
//! For each execution of the program (the naive explorer, every interleaving: the first
//! race depends on the order of independent events, design.md principle 1), the filter
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

use std::cell::LazyCell;
use std::collections::BTreeSet;
use std::ops::ControlFlow;

use super::detector::reported;
use super::filter::{filtered, Classes, Decision};
use super::registry::{Budget, Oracle, Sut};
use super::result::{Item, ItemStatus, OracleResult};
use crate::explore::witness::Names;
use crate::explore::{Config, Execution, Explorer, ExplorerKind, Naive, Schedule};
use crate::lang::Program;
use crate::machine::{Addr, Event, EventIdx, Machine};
use crate::race::{data_races, first_race, Race};

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
                for e in ex.trace {
                    let d = f.on_event(e);
                    if d != Decision::Keep {
                        lines.push(format!("  {:?}: {}: {}", d, names.event(e), f.explain(e, d)));
                    }
                }
                counterexample = Some(lines);
                ControlFlow::Break(())
            }
        }
    });
    let subject = format!(
        "{name}: {}",
        match property {
            Property::TracePrecise => "first race of every trace",
            Property::AddressPrecise => "racy locations of every trace",
            Property::ElidedRaceFree => "elided accesses of every trace",
        }
    );
    if let Some(explanation) = counterexample {
        let item = Item { subject, status: ItemStatus::Violated, explanation, witness: None };
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

/// The racing pairs of a trace as a set.
fn pairs(races: &[Race]) -> BTreeSet<(EventIdx, EventIdx, Addr)> {
    races.iter().map(|r| (r.first, r.second, r.addr)).collect()
}

fn event(trace: &[Event], i: EventIdx) -> Option<&Event> {
    trace.get(i.0 as usize)
}

fn partner_list(trace: &[Event], partners: &[EventIdx], names: &Names) -> String {
    partners.iter().filter_map(|i| event(trace, *i)).map(|e| names.event(e)).collect::<Vec<_>>().join(", ")
}

/// The theorem's strong form on one trace; `Some(explanation)` on a counterexample.
fn trace_precise<F: FnOnce() -> Names>(
    alpha: &[Event],
    decisions: &[Decision],
    races_a: &[Race],
    detector: &dyn super::DetectorFactory,
    names: &LazyCell<Names, F>,
) -> Option<Vec<String>> {
    let v_truth = alpha.iter().position(|e| e.violation.is_some());
    let v_sut = decisions.iter().position(|d| *d == Decision::Violation);
    if v_truth != v_sut {
        let at = |v: Option<usize>| v.and_then(|i| alpha.get(i)).map_or_else(|| "nowhere".to_string(), |e| names.event(e));
        return Some(vec![
            "FIRST VIOLATION differs: the filter's and the semantics' first capsule violation must be the same event".into(),
            format!("the semantics marks: {}", at(v_truth)),
            format!("the filter reports: {}", at(v_sut)),
        ]);
    }
    let before_violation = |j: EventIdx| v_truth.is_none_or(|v| (j.0 as usize) < v);
    let races_b = races_of_beta(alpha, decisions, races_a);
    let (pa, pb) = (pairs(races_a), pairs(&races_b));
    if let Some((i, j, _)) = pb.difference(&pa).next() {
        let (Some(ei), Some(ej)) = (event(alpha, *i), event(alpha, *j)) else { return Some(vec!["racefuzz internal bug: a race of β outside α".into()]) };
        return Some(vec!["NEW RACE: β races where α does not (a synchronization event was dropped?)".into(), format!("{} and {}", names.event(ei), names.event(ej))]);
    }
    let first_a = first_race(races_a).filter(|f| before_violation(f.second));
    if let Some(fa) = &first_a {
        let first_b = first_race(&races_b);
        if first_b.as_ref().map(|f| (f.second, &f.partners)) != Some((fa.second, &fa.partners)) {
            let mut lines = vec![format!(
                "FIRST RACE LOST: α's first race completes at {} with partner(s) {}",
                event(alpha, fa.second).map_or_else(String::new, |e| names.event(e)),
                partner_list(alpha, &fa.partners, names)
            )];
            lines.push(match &first_b {
                None => "β has no race at all".into(),
                Some(fb) => format!(
                    "β's first race completes at {} with partner(s) {}",
                    event(alpha, fb.second).map_or_else(String::new, |e| names.event(e)),
                    partner_list(alpha, &fb.partners, names)
                ),
            });
            return Some(lines);
        }
    }
    let reports = reported(detector, kept(alpha, decisions));
    let racy: BTreeSet<Addr> = races_a.iter().map(|r| r.addr).collect();
    let named = |r: Option<EventIdx>| r.and_then(|i| event(alpha, i)).map_or_else(|| "at the end of the trace".to_string(), |e| names.event(e));
    if let Some(fa) = &first_a {
        if reports.first() != Some(&Some(fa.second)) {
            return Some(vec![
                format!("DETECTOR MISSED THE FIRST RACE: α's first race completes at {}", event(alpha, fa.second).map_or_else(String::new, |e| names.event(e))),
                match reports.first() {
                    Some(r) => format!("the detector on β first reports {}", named(*r)),
                    None => "the detector on β reports nothing".into(),
                },
            ]);
        }
    }
    for r in &reports {
        let ok = r.and_then(|i| event(alpha, i)).and_then(Event::access).is_some_and(|(_, a)| racy.contains(&a));
        if !ok {
            let what = named(*r);
            return Some(vec![format!("FALSE ALARM: the detector on β reports {what}, which is no access to a location racy in α")]);
        }
    }
    None
}

/// The events of α the filter kept: β, without copying it.
fn kept<'a>(alpha: &'a [Event], decisions: &'a [Decision]) -> impl Iterator<Item = &'a Event> {
    alpha.iter().zip(decisions).filter(|(_, d)| **d != Decision::Elide).map(|(e, _)| e)
}

/// The races of β. Where the filter elided accesses only, β's happens-before is α's
/// restricted to β (Theorem 4.5.1's proof, step 3: program order is transitive and a fork
/// edge reaches every event of the child, so dropping an access breaks no chain), and its
/// races are α's races between kept events; otherwise they are computed afresh.
fn races_of_beta(alpha: &[Event], decisions: &[Decision], races_a: &[Race]) -> Vec<Race> {
    let is_kept = |i: EventIdx| decisions.get(i.0 as usize) != Some(&Decision::Elide);
    if alpha.iter().zip(decisions).all(|(e, d)| *d != Decision::Elide || e.access().is_some()) {
        races_a.iter().filter(|r| is_kept(r.first) && is_kept(r.second)).copied().collect()
    } else {
        data_races(&filtered(alpha, decisions))
    }
}

/// P-E8 on one trace: the racy locations of β equal those of α.
fn address_precise<F: FnOnce() -> Names>(alpha: &[Event], decisions: &[Decision], races_a: &[Race], names: &LazyCell<Names, F>) -> Option<Vec<String>> {
    let addrs = |rs: &[Race]| rs.iter().map(|r| r.addr).collect::<BTreeSet<Addr>>();
    let (aa, ab) = (addrs(races_a), addrs(&races_of_beta(alpha, decisions, races_a)));
    (aa != ab).then(|| {
        let named = |s: BTreeSet<Addr>| s.into_iter().map(|a| names.addr(a)).collect::<BTreeSet<String>>();
        let (la, lb) = (named(aa), named(ab));
        vec![
            "RACY LOCATIONS DIFFER (address precision, P-E8):".into(),
            format!("α races on: {}", la.into_iter().collect::<Vec<_>>().join(", ")),
            format!("β races on: {}", if lb.is_empty() { "nothing".into() } else { lb.into_iter().collect::<Vec<_>>().join(", ") }),
        ]
    })
}

/// P-E9 on one trace: no elided access is part of a race of α.
fn elided_race_free<F: FnOnce() -> Names>(alpha: &[Event], decisions: &[Decision], races_a: &[Race], names: &LazyCell<Names, F>) -> Option<Vec<String>> {
    let elided = |i: EventIdx| decisions.get(i.0 as usize) == Some(&Decision::Elide);
    let r = races_a.iter().find(|r| elided(r.first) || elided(r.second))?;
    let (Some(a), Some(b)) = (event(alpha, r.first), event(alpha, r.second)) else { return None };
    Some(vec!["AN ELIDED ACCESS RACES (P-E9):".into(), format!("{} races with {}", names.event(a), names.event(b))])
}

/// One event of [`FilterTable`]: what the filter did with it and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FilterRow {
    /// The event, named (`event 7 (T1.1, line 3: write r1@T1.1.f)`).
    pub event: String,
    /// Whether it is a heap access.
    pub access: bool,
    /// The filter's decision.
    pub decision: Decision,
    /// The filter's reason.
    pub why: String,
    /// The capsule violation the semantics marks on it (operational mode).
    pub violation: Option<String>,
    /// Whether it is part of α's first race (its second access or a partner).
    pub first_race: bool,
}

/// A filter on one execution, for people (`racefuzz analyze escape|capsule`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FilterTable {
    /// The filter and the detector behind it (`escape filter + FastTrack`).
    pub sut: String,
    /// The detector's own name.
    pub detector: String,
    /// The execution's schedule (`racefuzz replay --schedule`).
    pub schedule: String,
    /// Every event of α, in order.
    pub rows: Vec<FilterRow>,
    /// α's first race: its second access and partners, named.
    pub first_race: Option<String>,
    /// β's first race, likewise.
    pub first_race_beta: Option<String>,
    /// The racy locations of α and of β.
    pub racy: (Vec<String>, Vec<String>),
    /// The detector's first report on β.
    pub detector_first: Option<String>,
    /// Accesses, and how many were elided.
    pub accesses: (usize, usize),
}

/// Runs `filter` and `detector` on one execution of `p`: the one `schedule` names, or else
/// the first racy execution in the naive explorer's order (the first execution if none
/// races).
///
/// # Errors
/// A sentence naming the problem: no initial state, or a schedule that does not fit.
pub fn filter_table(
    p: &Program,
    filter: &dyn super::FilterFactory,
    detector: &dyn super::DetectorFactory,
    operational: bool,
    cfg: &Config,
    schedule: Option<&Schedule>,
) -> Result<FilterTable, String> {
    let mut m = Machine::new(p, cfg.loop_bound);
    if operational {
        m = m.operational();
    }
    let init = m.initial_state().map_err(|e| e.to_string())?;
    let cfg = Config { explorer: ExplorerKind::Naive, ..*cfg };
    let mut table = None;
    let mut first = None;
    let make = |ex: &Execution<'_, '_>| {
        let names = Names::of(&m, ex.state);
        let mut f = filter.fresh(Classes::of(p, &ex.state.objects));
        let alpha = data_races(ex.trace);
        let fa = first_race(&alpha);
        let in_first = |i: EventIdx| fa.as_ref().is_some_and(|f| f.second == i || f.partners.contains(&i));
        let rows: Vec<FilterRow> = ex
            .trace
            .iter()
            .map(|e| {
                let d = f.on_event(e);
                FilterRow {
                    event: names.event(e),
                    access: e.access().is_some(),
                    decision: d,
                    why: f.explain(e, d),
                    violation: e.violation.map(|v| v.to_string()),
                    first_race: in_first(e.idx),
                }
            })
            .collect();
        let decisions: Vec<Decision> = rows.iter().map(|r| r.decision).collect();
        let races_b = races_of_beta(ex.trace, &decisions, &alpha);
        let describe = |fr: Option<crate::race::FirstRace>| {
            fr.map(|f| format!("{} with {}", event(ex.trace, f.second).map_or_else(String::new, |e| names.event(e)), partner_list(ex.trace, &f.partners, &names)))
        };
        let locs = |rs: &[Race]| rs.iter().map(|r| names.addr(r.addr)).collect::<BTreeSet<String>>().into_iter().collect::<Vec<_>>();
        let detector_first =
            reported(detector, kept(ex.trace, &decisions)).first().map(|r| r.and_then(|i| event(ex.trace, i)).map_or_else(|| "at the end of the trace".into(), |e| names.event(e)));
        let accesses = (rows.iter().filter(|r| r.access).count(), rows.iter().filter(|r| r.access && r.decision == Decision::Elide).count());
        FilterTable {
            sut: sut_name(filter, detector),
            detector: detector.fresh().name(),
            schedule: Schedule(ex.schedule.to_vec()).to_string(),
            first_race: describe(fa.clone()),
            first_race_beta: describe(first_race(&races_b)),
            racy: (locs(&alpha), locs(&races_b)),
            rows,
            detector_first,
            accesses,
        }
    };
    match schedule {
        Some(s) => Naive
            .replay(&m, init, &cfg, s, true, &mut |ex| {
                table = Some(make(ex));
            })
            .map_err(|e| format!("--schedule {s}: {e}"))?,
        None => {
            Naive.explore(&m, init, &cfg, &mut |ex| {
                if data_races(ex.trace).is_empty() {
                    if first.is_none() {
                        first = Some(make(ex));
                    }
                    ControlFlow::Continue(())
                } else {
                    table = Some(make(ex));
                    ControlFlow::Break(())
                }
            });
        }
    }
    table.or(first).ok_or_else(|| "the program has no execution".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::AccessKind;
    use crate::machine::{EventKind, FieldId, LockId, ObjId, ThreadId, Violation};
    use crate::theorems::{DetectorFactory, DynamicDetector, Reported};

    /// The reference detector: reports an event iff it completes a race of what it has seen.
    struct Exact(Vec<Event>);

    impl DynamicDetector for Exact {
        fn on_event(&mut self, e: &Event) -> Result<(), Reported> {
            self.0.push(e.clone());
            if data_races(&self.0).iter().any(|r| r.second == e.idx) {
                Err(Reported)
            } else {
                Ok(())
            }
        }

        fn name(&self) -> String {
            "exact".into()
        }
    }

    /// Reports nothing.
    struct Silent;

    impl DynamicDetector for Silent {
        fn on_event(&mut self, _: &Event) -> Result<(), Reported> {
            Ok(())
        }

        fn name(&self) -> String {
            "silent".into()
        }
    }

    const X: Addr = Addr::Field(ObjId(0), FieldId(0));
    const Y: Addr = Addr::Field(ObjId(1), FieldId(0));

    fn ev(i: u32, t: u32, kind: EventKind) -> Event {
        Event::plain(EventIdx(i), ThreadId(t), i + 1, kind)
    }

    fn w(i: u32, t: u32, a: Addr) -> Event {
        ev(i, t, EventKind::Access(AccessKind::Write, a))
    }

    /// Main forks T1, writes y then x; T1 writes x then y: the first race completes at
    /// event 3 (x), the y race at event 4.
    fn racy() -> Vec<Event> {
        vec![ev(0, 0, EventKind::Fork(ThreadId(1))), w(1, 0, Y), w(2, 0, X), w(3, 1, X), w(4, 1, Y)]
    }

    fn judge(alpha: &[Event], decisions: &[Decision], detector: &dyn DetectorFactory) -> Option<String> {
        let names = LazyCell::new(Names::default);
        trace_precise(alpha, decisions, &data_races(alpha), detector, &names).map(|lines| lines.join("\n"))
    }

    fn exact() -> impl DetectorFactory {
        || Box::new(Exact(vec![])) as Box<dyn DynamicDetector>
    }

    use Decision::{Elide as E, Keep as K};

    #[test]
    fn keeping_the_first_race_passes_and_losing_it_fails() {
        let alpha = racy();
        assert_eq!(judge(&alpha, &[K; 5], &exact()), None);
        // Eliding the y race's first access loses a later race only: still trace precise.
        assert_eq!(judge(&alpha, &[K, E, K, K, K], &exact()), None);
        // Eliding a partner of the first race loses it.
        let lost = judge(&alpha, &[K, K, E, K, K], &exact()).unwrap();
        assert!(lost.starts_with("FIRST RACE LOST"), "{lost}");
        let missed = judge(&alpha, &[K; 5], &(|| Box::new(Silent) as Box<dyn DynamicDetector>)).unwrap();
        assert!(missed.starts_with("DETECTOR MISSED THE FIRST RACE"), "{missed}");
    }

    #[test]
    fn a_dropped_release_makes_a_new_race() {
        let l = LockId::Obj(ObjId(2));
        let alpha = vec![
            ev(0, 0, EventKind::Fork(ThreadId(1))),
            ev(1, 0, EventKind::Acquire(l)),
            w(2, 0, X),
            ev(3, 0, EventKind::Release(l)),
            ev(4, 1, EventKind::Acquire(l)),
            w(5, 1, X),
            ev(6, 1, EventKind::Release(l)),
        ];
        assert_eq!(judge(&alpha, &[K; 7], &exact()), None);
        let new = judge(&alpha, &[K, K, K, E, K, K, K], &exact()).unwrap();
        assert!(new.starts_with("NEW RACE"), "{new}");
    }

    #[test]
    fn violations_must_match_and_cut_what_is_owed() {
        let mut alpha = racy();
        alpha[2].violation = Some(Violation::Encapsulation);
        // The semantics marks event 2; a filter that reports nothing there is wrong.
        let differs = judge(&alpha, &[K; 5], &exact()).unwrap();
        assert!(differs.starts_with("FIRST VIOLATION differs"), "{differs}");
        // Reported where it happens, the first race (at 3, after v = 2) is owed nothing.
        assert_eq!(judge(&alpha, &[K, K, Decision::Violation, E, K], &(|| Box::new(Silent) as Box<dyn DynamicDetector>)), None);
    }

    #[test]
    fn the_negative_controls_see_a_lost_later_race() {
        let alpha = racy();
        let names = LazyCell::new(Names::default);
        let races = data_races(&alpha);
        let later_lost = [K, E, K, K, K];
        assert!(address_precise(&alpha, &later_lost, &races, &names).is_some());
        assert!(elided_race_free(&alpha, &later_lost, &races, &names).is_some());
        assert!(address_precise(&alpha, &[K; 5], &races, &names).is_none());
        assert!(elided_race_free(&alpha, &[K; 5], &races, &names).is_none());
        // β's races, derived or recomputed, agree.
        assert_eq!(races_of_beta(&alpha, &later_lost, &races), data_races(&filtered(&alpha, &later_lost)));
    }
}
