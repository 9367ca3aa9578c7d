//! What a dynamic detector claims about every trace, and how a trace's reports are
//! compared with its races under each claim. FastTrack's claim is the first: it reports
//! exactly the racy locations, `FT(α) = DR(α)` (docs/spec/bigfoot.md §1.6, §9.1 O0). The
//! others are what detectors written elsewhere claim: every racy event (each access that
//! completes a happens-before race with an earlier one, [`crate::race::data_races`]'s
//! `second`s), the first race (docs/spec/escape_capsule.md §1.5: the first report is at the
//! trace's first racy event), or one half of the locations claim. `fasttrack-precise`
//! checks the claim its detector makes ([`super::DetectorFactory::claim`]).

use std::collections::BTreeSet;

use super::detector::{location_differences, reported, reported_locations, reported_pairs, DetectorFactory, DetectorFailure};
use crate::machine::{Addr, Event, EventIdx};
use crate::race::{first_race, Race};

/// A claim about every trace.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Claim {
    /// Exactly the racy locations (FastTrack's).
    #[default]
    Locations,
    /// Exactly the racy events: each access that completes a race with an earlier one.
    Events,
    /// The first report is at the trace's first racy event, and a race-free trace has none.
    FirstRace,
    /// Every reported location is racy.
    NoFalseAlarm,
    /// Every racy location is reported.
    NoMissedRace,
    /// Every pair of accesses a report names (the access that completed it and an earlier
    /// one, [`DetectorReport::partners`](super::detector::DetectorReport)) is a data race of
    /// the trace: the claim of a tool that names both accesses (ThreadSanitizer, Helgrind).
    /// A report that names no earlier access is not held to it.
    Pairs,
}

impl Claim {
    /// Every claim, in the order `--claim` lists them.
    pub const ALL: [Claim; 6] = [Claim::Locations, Claim::Events, Claim::FirstRace, Claim::NoFalseAlarm, Claim::NoMissedRace, Claim::Pairs];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Claim::Locations => "locations",
            Claim::Events => "events",
            Claim::FirstRace => "first-race",
            Claim::NoFalseAlarm => "no-false-alarm",
            Claim::NoMissedRace => "no-missed-race",
            Claim::Pairs => "pairs",
        }
    }

    /// The claim named `s`.
    pub fn parse(s: &str) -> Option<Claim> {
        Claim::ALL.into_iter().find(|c| c.name() == s)
    }

    /// Whether the ground truth's side of the claim is the same on every trace of a
    /// Mazurkiewicz class: happens-before races are (docs/spec/dpor.md, "The bound"), so the racy
    /// locations, the racy events and the pairs are; the *first* race is not, since the
    /// order of independent events decides which race comes first.
    pub fn class_invariant(self) -> bool {
        self != Claim::FirstRace
    }

    /// What holds, for a result's subject (`racy locations of every trace`).
    pub fn property(self) -> &'static str {
        match self {
            Claim::Locations => "racy locations of every trace",
            Claim::Events => "racy events of every trace",
            Claim::FirstRace => "first race of every trace",
            Claim::NoFalseAlarm => "no false alarm on any trace",
            Claim::NoMissedRace => "no missed racy location on any trace",
            Claim::Pairs => "every reported pair of accesses is a race of the trace",
        }
    }

    /// How a fresh detector's reports on `trace` break the claim, one line each (empty
    /// when it holds); `races` are the trace's data races, `name` names an address and
    /// `event` an event.
    ///
    /// # Errors
    /// When the detector gives no answer on the trace.
    pub fn mismatches(
        self,
        factory: &dyn DetectorFactory,
        trace: &[Event],
        races: &[Race],
        name: &dyn Fn(Addr) -> String,
        event: &dyn Fn(EventIdx) -> String,
    ) -> Result<Vec<String>, DetectorFailure> {
        let mut out = vec![];
        match self {
            Claim::Locations | Claim::NoFalseAlarm | Claim::NoMissedRace => {
                let truth: BTreeSet<String> = races.iter().map(|r| name(r.addr)).collect();
                let run = reported_locations(factory, trace, name)?;
                let (missed, false_alarms) = location_differences(&truth, &run.locations);
                if !missed.is_empty() && self != Claim::NoFalseAlarm {
                    out.push(format!("MISSED racy location(s): {}", missed.join(", ")));
                }
                if !false_alarms.is_empty() && self != Claim::NoMissedRace {
                    out.push(format!("FALSE ALARM on race-free location(s): {}", false_alarms.iter().map(|(l, _)| *l).collect::<Vec<_>>().join(", ")));
                    out.extend(false_alarms.iter().map(|(l, w)| format!("{l}: {w}")));
                }
            }
            Claim::Events => {
                let racy: BTreeSet<EventIdx> = races.iter().map(|r| r.second).collect();
                let reports = reported(factory, trace)?;
                let flagged: BTreeSet<EventIdx> = reports.iter().flatten().copied().collect();
                let list = |s: Vec<&EventIdx>| s.into_iter().map(|&i| event(i)).collect::<Vec<_>>().join("; ");
                let missed: Vec<&EventIdx> = racy.difference(&flagged).collect();
                let invented: Vec<&EventIdx> = flagged.difference(&racy).collect();
                if !missed.is_empty() {
                    out.push(format!("MISSED racy event(s): {}", list(missed)));
                }
                if !invented.is_empty() {
                    out.push(format!("FALSE ALARM on event(s) that complete no race: {}", list(invented)));
                }
                if reports.contains(&None) {
                    out.push("FALSE ALARM at the end of the trace, where no event completes a race".into());
                }
            }
            Claim::Pairs => {
                let racing: BTreeSet<(EventIdx, EventIdx)> = races.iter().map(|r| (r.first, r.second)).collect();
                for (at, partners) in reported_pairs(factory, trace)? {
                    for p in partners.into_iter().filter(|p| !racing.contains(&(*p, at))) {
                        out.push(format!("WRONG PAIR: the report at {} names {} as the earlier access, which does not race with it", event(at), event(p)));
                    }
                }
            }
            Claim::FirstRace => {
                let first = first_race(races).map(|f| f.second);
                let reports = reported(factory, trace)?;
                match (first, reports.first()) {
                    (None, None) => {}
                    (Some(f), Some(Some(r))) if f == *r => {}
                    (Some(f), got) => {
                        let got = got.map_or("nothing".to_string(), |r| r.map_or("the end of the trace".into(), event));
                        out.push(format!("FIRST RACE MISSED: the first racy event is {}; the first report is at {got}", event(f)));
                    }
                    (None, Some(r)) => out.push(format!("FALSE ALARM on a race-free trace at {}", r.map_or("the end of the trace".into(), event))),
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::AccessKind;
    use crate::machine::{EventKind, FieldId, ObjId, ThreadId};
    use crate::race::data_races;
    use crate::theorems::detector::{DynamicDetector, Reported};

    /// Reports the events whose indices it is given, naming the event of the second index
    /// (if any) as the earlier access of each report.
    struct At(Vec<u32>, Option<u32>);

    impl DynamicDetector for At {
        fn on_event(&mut self, e: &Event) -> Result<(), Reported> {
            if self.0.contains(&e.idx.0) {
                Err(Reported)
            } else {
                Ok(())
            }
        }

        fn name(&self) -> String {
            "at".into()
        }

        fn explain(&self, _: &[Event], at: EventIdx) -> crate::theorems::detector::DetectorReport {
            crate::theorems::detector::DetectorReport { at, partners: self.1.map(EventIdx).into_iter().collect(), reason: format!("at reported event {}", at.0), locations: vec![] }
        }
    }

    /// Three unordered writes to one field by three threads: events 1 and 2 are racy.
    fn check(claim: Claim, at: &[u32]) -> Vec<String> {
        let x = Addr::Field(ObjId(0), FieldId(0));
        let trace: Vec<Event> = (0..3).map(|i| Event::plain(EventIdx(i), ThreadId(i), 1, EventKind::Access(AccessKind::Write, x))).collect();
        let at = at.to_vec();
        let factory = move || Box::new(At(at.clone(), None)) as Box<dyn DynamicDetector>;
        claim.mismatches(&factory, &trace, &data_races(&trace), &|_| "x".into(), &|i| format!("e{}", i.0)).unwrap()
    }

    #[test]
    fn each_claim_compares_its_own_unit() {
        // Reporting event 1 only: the location is right, the events are not, the first race is.
        assert!(check(Claim::Locations, &[1]).is_empty());
        assert_eq!(check(Claim::Events, &[1]), vec!["MISSED racy event(s): e2"]);
        assert!(check(Claim::FirstRace, &[1]).is_empty());
        assert_eq!(check(Claim::FirstRace, &[2]), vec!["FIRST RACE MISSED: the first racy event is e1; the first report is at e2"]);
        assert_eq!(check(Claim::Events, &[0, 1, 2]), vec!["FALSE ALARM on event(s) that complete no race: e0"]);
        assert!(check(Claim::Events, &[1, 2]).is_empty());
        // The halves of the locations claim.
        assert_eq!(check(Claim::Locations, &[]), vec!["MISSED racy location(s): x"]);
        assert!(check(Claim::NoFalseAlarm, &[]).is_empty());
        assert_eq!(check(Claim::NoMissedRace, &[]), vec!["MISSED racy location(s): x"]);
        assert_eq!(Claim::ALL.map(|c| Claim::parse(c.name())), Claim::ALL.map(Some));
    }

    #[test]
    fn the_pairs_claim_holds_each_named_pair_to_a_race() {
        // Write, then the same thread's write (ordered), then another thread's write:
        // events 0 and 1 race with 2; 0 and 1 do not race.
        let x = Addr::Field(ObjId(0), FieldId(0));
        let trace: Vec<Event> = [0, 0, 1].iter().enumerate().map(|(i, &t)| Event::plain(EventIdx(i as u32), ThreadId(t), 1, EventKind::Access(AccessKind::Write, x))).collect();
        let races = data_races(&trace);
        let pairs = |at: Vec<u32>, partner: u32| {
            let factory = move || Box::new(At(at.clone(), Some(partner))) as Box<dyn DynamicDetector>;
            Claim::Pairs.mismatches(&factory, &trace, &races, &|_| "x".into(), &|i| format!("e{}", i.0)).unwrap()
        };
        assert!(pairs(vec![2], 0).is_empty());
        assert!(pairs(vec![2], 1).is_empty());
        assert_eq!(pairs(vec![1], 0), vec!["WRONG PAIR: the report at e1 names e0 as the earlier access, which does not race with it"]);
    }
}
