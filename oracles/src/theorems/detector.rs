//! The seam for dynamic race detectors (FastTrack, BigFoot's DynamicBF, the escape and
//! capsule filters; conventions §4 and §6): a detector consumes the machine's events one at
//! a time and answers, cheaply, whether an event completes a race it reports. Only when an
//! oracle needs to show a report does it call the cold path, [`DynamicDetector::explain`].
//!
//! The oracles that judge detectors (`fasttrack-precise`, `bigfoot-precise`,
//! `escape-trace-precise`, `capsule-first-race`) arrive with their issues; they feed every
//! explored trace to a fresh detector ([`DetectorFactory`]) and compare its reports with
//! the ground truth's races (`race::hb`, `race::first_race`).

use std::collections::{BTreeMap, BTreeSet};

use crate::machine::{Addr, Event, EventIdx, EventKind};

/// The zero-sized signal of the hot path: "this event completes a reported race".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reported;

/// What a detector says about one reported event, on the cold path.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DetectorReport {
    /// The event that completed the race.
    pub at: EventIdx,
    /// Earlier events the detector holds responsible (may be empty if it cannot tell).
    pub partners: Vec<EventIdx>,
    /// A sentence for people.
    pub reason: String,
}

/// A dynamic race detector over one trace. Two required methods.
pub trait DynamicDetector {
    /// Consumes the next event of the trace; `Err(Reported)` if it completes a race the
    /// detector reports. Must be cheap: no allocation on the race-free path.
    ///
    /// # Errors
    /// [`Reported`] when the event completes a reported race.
    fn on_event(&mut self, e: &Event) -> Result<(), Reported>;

    /// A short name for messages (`FastTrack`).
    fn name(&self) -> String;

    /// The cold path: why the event `trace[at]` was reported. `trace` is every event
    /// consumed so far. The default names the event only.
    #[cold]
    fn explain(&self, trace: &[Event], at: EventIdx) -> DetectorReport {
        let _ = trace;
        DetectorReport { at, partners: vec![], reason: format!("{} reported event {}", self.name(), at.0) }
    }
}

/// Makes a fresh detector for each trace (detectors are stateful).
pub trait DetectorFactory {
    /// A detector in its initial state.
    fn fresh(&self) -> Box<dyn DynamicDetector>;
}

impl<F: Fn() -> Box<dyn DynamicDetector>> DetectorFactory for F {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        self()
    }
}

/// The locations a fresh detector reports on `trace` (named by `name`), each with the
/// detector's explanation of its first report there. A report on an event that touches no
/// location is a false alarm of its own, keyed `event N, which is no access`.
pub fn reported_locations(factory: &dyn DetectorFactory, trace: &[Event], name: &dyn Fn(Addr) -> String) -> BTreeMap<String, String> {
    let mut d = factory.fresh();
    let mut out = BTreeMap::new();
    for (i, e) in trace.iter().enumerate() {
        if d.on_event(e).is_err() {
            let loc = match e.kind {
                EventKind::Access(_, a) | EventKind::Check(_, a) => name(a),
                _ => format!("event {i}, which is no access"),
            };
            out.entry(loc).or_insert_with(|| d.explain(&trace[..=i], e.idx).reason);
        }
    }
    out
}

/// How a detector's reported locations ([`reported_locations`]) differ from the racy ones:
/// the racy locations it missed, and the race-free ones it reported, with its explanation.
/// Both empty when they agree.
pub fn location_differences<'a>(racy: &'a BTreeSet<String>, reported: &'a BTreeMap<String, String>) -> (Vec<&'a str>, Vec<(&'a str, &'a str)>) {
    let missed = racy.iter().filter(|l| !reported.contains_key(*l)).map(String::as_str).collect();
    let false_alarms = reported.iter().filter(|(l, _)| !racy.contains(*l)).map(|(l, w)| (l.as_str(), w.as_str())).collect();
    (missed, false_alarms)
}

/// Runs a fresh detector over `trace`: the indices of the events it reports.
pub fn reported(factory: &dyn DetectorFactory, trace: &[Event]) -> Vec<EventIdx> {
    let mut d = factory.fresh();
    trace.iter().filter(|e| d.on_event(e).is_err()).map(|e| e.idx).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::AccessKind;
    use crate::machine::{FieldId, ObjId, ThreadId};

    /// Reports every write after the first one: a toy, to test the plumbing.
    struct SecondWrite(bool);

    impl DynamicDetector for SecondWrite {
        fn on_event(&mut self, e: &Event) -> Result<(), Reported> {
            if matches!(e.kind, EventKind::Access(AccessKind::Write, _)) {
                if self.0 {
                    return Err(Reported);
                }
                self.0 = true;
            }
            Ok(())
        }

        fn name(&self) -> String {
            "second-write".into()
        }
    }

    #[test]
    fn fresh_detector_per_trace() {
        let w = |i: u32| Event { idx: EventIdx(i), thread: ThreadId(i % 2), line: 1, kind: EventKind::Access(AccessKind::Write, Addr::Field(ObjId(0), FieldId(0))) };
        let trace = [w(0), w(1), w(2)];
        let factory = || Box::new(SecondWrite(false)) as Box<dyn DynamicDetector>;
        assert_eq!(reported(&factory, &trace), vec![EventIdx(1), EventIdx(2)]);
        // A second run starts from a fresh state, not from the first run's.
        assert_eq!(reported(&factory, &trace[..1]), vec![]);
        assert_eq!(factory.fresh().explain(&trace, EventIdx(1)).reason, "second-write reported event 1");
    }
}
