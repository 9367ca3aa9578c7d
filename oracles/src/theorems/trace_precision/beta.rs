//! β, the trace the filter keeps (α without the elided events, same indices, spec
//! A8), its races, and the properties [`super::check`] judges on one trace
//! (docs/spec/escape_capsule.md §4.5 C1/C4, §9.4, §13 P-E8 and P-E9): the theorems' strong form
//! ([`trace_precise`]) and the two negative controls ([`address_precise`],
//! [`elided_race_free`]).

use std::cell::LazyCell;
use std::collections::BTreeSet;

use super::{event, partner_list};
use crate::explore::witness::Names;
use crate::machine::{Addr, Event, EventIdx};
use crate::race::{data_races, first_race, Race};
use crate::theorems::detector::reported;
use crate::theorems::filter::{filtered, Decision};
use crate::theorems::DetectorFactory;

/// The racing pairs of a trace as a set.
fn pairs(races: &[Race]) -> BTreeSet<(EventIdx, EventIdx, Addr)> {
    races.iter().map(|r| (r.first, r.second, r.addr)).collect()
}

/// The theorem's strong form on one trace; `Some(explanation)` on a counterexample.
pub(super) fn trace_precise<F: FnOnce() -> Names>(
    alpha: &[Event],
    decisions: &[Decision],
    races_a: &[Race],
    detector: &dyn DetectorFactory,
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
    let reports = match reported(detector, kept(alpha, decisions)) {
        Ok(r) => r,
        Err(failure) => return Some(vec![format!("DETECTOR FAILED on β: {failure}")]),
    };
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
pub(super) fn kept<'a>(alpha: &'a [Event], decisions: &'a [Decision]) -> impl Iterator<Item = &'a Event> {
    alpha.iter().zip(decisions).filter(|(_, d)| **d != Decision::Elide).map(|(e, _)| e)
}

/// The races of β. Where the filter elided accesses only, β's happens-before is α's
/// restricted to β (Theorem 4.5.1's proof, step 3: program order is transitive and a fork
/// edge reaches every event of the child, so dropping an access breaks no chain), and its
/// races are α's races between kept events; otherwise they are computed afresh.
pub(super) fn races_of_beta(alpha: &[Event], decisions: &[Decision], races_a: &[Race]) -> Vec<Race> {
    let is_kept = |i: EventIdx| decisions.get(i.0 as usize) != Some(&Decision::Elide);
    if alpha.iter().zip(decisions).all(|(e, d)| *d != Decision::Elide || e.access().is_some()) {
        races_a.iter().filter(|r| is_kept(r.first) && is_kept(r.second)).copied().collect()
    } else {
        data_races(&filtered(alpha, decisions))
    }
}

/// P-E8 on one trace: the racy locations of β equal those of α.
pub(super) fn address_precise<F: FnOnce() -> Names>(alpha: &[Event], decisions: &[Decision], races_a: &[Race], names: &LazyCell<Names, F>) -> Option<Vec<String>> {
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
pub(super) fn elided_race_free<F: FnOnce() -> Names>(alpha: &[Event], decisions: &[Decision], races_a: &[Race], names: &LazyCell<Names, F>) -> Option<Vec<String>> {
    let elided = |i: EventIdx| decisions.get(i.0 as usize) == Some(&Decision::Elide);
    let r = races_a.iter().find(|r| elided(r.first) || elided(r.second))?;
    let (Some(a), Some(b)) = (event(alpha, r.first), event(alpha, r.second)) else { return None };
    Some(vec!["AN ELIDED ACCESS RACES (P-E9):".into(), format!("{} races with {}", names.event(a), names.event(b))])
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
