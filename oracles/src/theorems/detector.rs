//! The seam for dynamic race detectors (FastTrack, BigFoot's DynamicBF; conventions §4 and
//! §6): a detector consumes the machine's events one at a time and answers, cheaply,
//! whether an event completes a race it reports. Only when an oracle needs to show a report
//! does it call the cold path, [`DynamicDetector::explain`]. (The escape and capsule
//! filters sit in front of a detector, behind their own seam, [`super::filter`].)
//!
//! The oracles that judge detectors (`fasttrack-precise`, `bigfoot-precise`, and behind a
//! filter `escape-trace-precise`, `capsule-first-race`) feed every explored trace to a
//! fresh detector ([`DetectorFactory`]) and compare its reports with the ground truth's
//! races (`race::hb`, `race::first_race`).

use std::collections::{BTreeMap, BTreeSet};

use crate::explore::DetectorView;
use crate::lang::Program;
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
    /// The locations the report is about; empty means the location of the event `at`
    /// itself. A detector whose shadow stands for several locations (DynamicBF's field
    /// proxy groups and array index groups, docs/spec/bigfoot.md §7.2 `report`) names them all
    /// here, and so does one that reports on a synchronization event or at
    /// [`DynamicDetector::finish`] (a footprint commit).
    pub locations: Vec<Addr>,
}

/// A dynamic race detector over one trace. Two required methods.
pub trait DynamicDetector {
    /// Consumes the next event of the trace; `Err(Reported)` if it completes a race the
    /// detector reports. Must be cheap: no allocation on the race-free path.
    ///
    /// # Errors
    /// [`Reported`] when the event completes a reported race.
    fn on_event(&mut self, e: &Event) -> Result<(), Reported>;

    /// Called once after the last event of the trace: a detector commits pending work here
    /// (DynamicBF's array footprints, docs/spec/bigfoot.md §7.1 \[C\] "commit at thread exit").
    /// BFJ tier 1 has no fork/join, so a thread's clock does not change after its last
    /// event, and committing every pending footprint at the end of the trace is the same
    /// as committing each at its thread's exit. A report here is explained with
    /// `at = EventIdx(trace.len())` and names its [`DetectorReport::locations`]. The
    /// default has nothing pending.
    ///
    /// # Errors
    /// [`Reported`] when the pending work completes a reported race.
    fn finish(&mut self) -> Result<(), Reported> {
        Ok(())
    }

    /// How many shadow-location operations the detector performed so far, if it counts
    /// them: the numerator of the check ratio (docs/spec/bigfoot.md §7.2, shadow-location
    /// operations per heap access). The default does not count.
    fn shadow_operations(&self) -> Option<u64> {
        None
    }

    /// A short name for messages (`FastTrack`).
    fn name(&self) -> String;

    /// Whether the detector reads a whole trace at once ([`DynamicDetector::on_trace`])
    /// instead of one event at a time: a detector in another process, which is given the
    /// trace as a file or a request. The default streams.
    fn whole_trace(&self) -> bool {
        false
    }

    /// For a [`DynamicDetector::whole_trace`] detector: every event of `trace` it reports,
    /// in order (`None` for a report at the end), or why it gave no answer. Not called on
    /// streaming detectors; the default says so as an internal failure.
    ///
    /// # Errors
    /// A [`DetectorFailure`] when the detector gave no answer (crashed, timed out, printed
    /// what does not parse).
    fn on_trace(&mut self, trace: &[Event]) -> Result<Vec<Option<EventIdx>>, DetectorFailure> {
        let _ = trace;
        Err(DetectorFailure(format!("internal: {} streams events, on_trace called", self.name())))
    }

    /// The cold path: why the event `trace[at]` was reported. `trace` is every event
    /// consumed so far. The default names the event only.
    #[cold]
    fn explain(&self, trace: &[Event], at: EventIdx) -> DetectorReport {
        let _ = trace;
        DetectorReport { at, partners: vec![], reason: format!("{} reported event {}", self.name(), at.0), locations: vec![] }
    }
}

/// Why a detector gave no answer on a trace: an external detector that crashed, timed out
/// or printed what does not parse. The oracles make it a violated item of its own (a
/// finding, kept and shrunk like any other), never a pass or a panic.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DetectorFailure(pub String);

impl DetectorFailure {
    /// How [`DetectorFailure::no_answer`] starts its message.
    const NO_ANSWER: &'static str = "no answer: ";

    /// A failure that says nothing about the detector: the harness did not run the trace
    /// it was given (a replay that diverged from it, docs/spec/atomics.md §6.1). The
    /// oracles make it inconclusive, never a pass nor a finding against the detector.
    pub fn no_answer(why: impl std::fmt::Display) -> DetectorFailure {
        DetectorFailure(format!("{}{why}", Self::NO_ANSWER))
    }

    /// Whether it is a [`DetectorFailure::no_answer`].
    pub fn is_no_answer(&self) -> bool {
        self.0.starts_with(Self::NO_ANSWER)
    }
}

/// Makes a fresh detector for each trace (detectors are stateful).
pub trait DetectorFactory {
    /// A detector in its initial state.
    fn fresh(&self) -> Box<dyn DynamicDetector>;

    /// The factory for runs on the program `p`, called once per program before its traces
    /// (by `bigfoot-precise` on the placed program, by `fasttrack-precise` on the program).
    /// A detector that needs static facts about the program it runs on computes them once
    /// here: DynamicBF's field proxy groups come from every check of the placed program
    /// (docs/spec/bigfoot.md §5.2). The default needs none and makes [`DetectorFactory::fresh`]
    /// detectors.
    fn for_program(&self, p: &Program) -> Box<dyn DetectorFactory + '_> {
        let _ = p;
        Box::new(SameFactory(self))
    }

    /// What its detectors claim about every trace, which `fasttrack-precise` checks. The
    /// default is FastTrack's: exactly the racy locations.
    fn claim(&self) -> super::Claim {
        super::Claim::Locations
    }

    /// Which traces of a program `fasttrack-precise` runs its detectors on. The default is
    /// every interleaving, since a detector's state depends on the order of independent
    /// events even where the races do not; a detector that pays a process or a replay per
    /// trace asks for one per Mazurkiewicz class.
    fn traces(&self) -> Traces {
        Traces::Every
    }

    /// Whether its detectors answer faster given every trace of a program at once (a
    /// command run once per program on a folder of traces, `--batch`): then
    /// [`DetectorFactory::prepare`] receives them before they are judged one by one.
    fn batches(&self) -> bool {
        false
    }

    /// Every trace of the program this factory is for ([`DetectorFactory::for_program`]),
    /// in the order they will be judged, when [`DetectorFactory::batches`]: a batching
    /// detector runs them here and answers each trace from what it learnt. A failure is
    /// the answer of each trace it covers, so nothing is returned.
    fn prepare(&self, traces: &[Vec<Event>]) {
        let _ = traces;
    }
}

/// Hands a batching factory ([`DetectorFactory::batches`]) every trace that `explorer`
/// will visit from `init`, by exploring once first: the oracles that judge detectors call
/// it before their own exploration, so that a detector that pays a process start per
/// trace pays one per program. Does nothing for any other factory.
pub fn prepare_batch<'p>(
    factory: &dyn DetectorFactory,
    explorer: &dyn crate::explore::Explorer,
    m: &crate::machine::Machine<'p>,
    init: crate::machine::State<'p>,
    cfg: &crate::explore::Config,
) {
    if !factory.batches() {
        return;
    }
    let mut traces = vec![];
    explorer.explore(m, init, cfg, &mut |ex| {
        traces.push(ex.trace.to_vec());
        std::ops::ControlFlow::Continue(())
    });
    factory.prepare(&traces);
}

/// Which traces of a program a detector runs on ([`DetectorFactory::traces`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Traces {
    /// Every interleaving (the naive explorer).
    #[default]
    Every,
    /// One trace per Mazurkiewicz class (DPOR), for a claim the ground truth answers the
    /// same on every trace of a class ([`super::Claim::class_invariant`]); the others still
    /// run on every interleaving. A detector whose answer depends on the order of
    /// independent events (ThreadSanitizer's bounded history) is then judged on fewer
    /// orders: `--all-traces` judges it on all of them.
    OnePerClass,
}

impl<F: Fn() -> Box<dyn DynamicDetector>> DetectorFactory for F {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        self()
    }

    fn for_program(&self, _: &Program) -> Box<dyn DetectorFactory + '_> {
        Box::new(SameFactory(self))
    }
}

/// The default [`DetectorFactory::for_program`]: the factory itself, borrowed. (A struct,
/// not a closure, and returning itself from `for_program`: a closure type built inside
/// `for_program` would make every factory's `for_program` a new type without end.)
struct SameFactory<'a, F: ?Sized>(&'a F);

impl<F: DetectorFactory + ?Sized> DetectorFactory for SameFactory<'_, F> {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        self.0.fresh()
    }

    fn claim(&self) -> super::Claim {
        self.0.claim()
    }

    fn traces(&self) -> Traces {
        self.0.traces()
    }

    fn batches(&self) -> bool {
        self.0.batches()
    }

    fn prepare(&self, traces: &[Vec<Event>]) {
        self.0.prepare(traces);
    }

    fn for_program(&self, _: &Program) -> Box<dyn DetectorFactory + '_> {
        Box::new(SameFactory(self.0))
    }
}

/// What a fresh detector reported over one whole trace ([`reported_locations`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DetectorRun {
    /// Each reported location (named), with the detector's explanation of its first report.
    pub locations: BTreeMap<String, String>,
    /// Every reported event, in order (`None` for a report at the end), as [`reported`]
    /// gives them.
    pub events: Vec<Option<EventIdx>>,
    /// The detector's shadow-location operations over the trace, if it counts them
    /// ([`DynamicDetector::shadow_operations`]).
    pub shadow_operations: Option<u64>,
}

/// Runs a fresh detector over `trace` and then [`DynamicDetector::finish`]: the locations
/// it reports (named by `name`), each with the detector's explanation of its first report
/// there, and its shadow operations. A report's locations are its
/// [`DetectorReport::locations`], or else the reported event's own location (an atomic
/// access's too: a tool that takes atomics for plain accesses reports them); a report on
/// an event that touches no location and names none (a synchronization event, or the end
/// of the trace) is a false alarm of its own, keyed `event N, which is no access`.
pub fn reported_locations(factory: &dyn DetectorFactory, trace: &[Event], name: &dyn Fn(Addr) -> String) -> Result<DetectorRun, DetectorFailure> {
    let mut d = factory.fresh();
    let mut out = BTreeMap::new();
    let mut events = vec![];
    // Every report is explained (the cold path), since only the explanation names the
    // locations of a report on a shadow that stands for several.
    let mut record = |d: &dyn DynamicDetector, i: usize| {
        events.push(trace.get(i).map(|e| e.idx));
        // OK since the explorer numbered this trace's events with `EventIdx` (a u32), so i fits.
        let r = d.explain(&trace[..i.saturating_add(1).min(trace.len())], EventIdx(u32::try_from(i).unwrap_or(u32::MAX)));
        let own = match trace.get(i).map(|e| e.kind) {
            Some(EventKind::Access(_, a) | EventKind::Check(_, a) | EventKind::Atomic(_, a)) => vec![a],
            _ => vec![],
        };
        let locs = if r.locations.is_empty() { own } else { r.locations };
        if locs.is_empty() {
            out.entry(format!("event {i}, which is no access")).or_insert(r.reason);
        } else {
            for a in locs {
                out.entry(name(a)).or_insert_with(|| r.reason.clone());
            }
        }
    };
    if d.whole_trace() {
        // A whole trace's events are numbered by their positions (the explorer's traces are).
        for r in d.on_trace(trace)? {
            record(d.as_ref(), r.map_or(trace.len(), |e| e.0 as usize));
        }
    } else {
        for (i, e) in trace.iter().enumerate() {
            if d.on_event(e).is_err() {
                record(d.as_ref(), i);
            }
        }
        if d.finish().is_err() {
            record(d.as_ref(), trace.len());
        }
    }
    Ok(DetectorRun { locations: out, events, shadow_operations: d.shadow_operations() })
}

/// How a detector's reported locations ([`reported_locations`]) differ from the racy ones:
/// the racy locations it missed, and the race-free ones it reported, with its explanation.
/// Both empty when they agree.
pub fn location_differences<'a>(racy: &'a BTreeSet<String>, reported: &'a BTreeMap<String, String>) -> (Vec<&'a str>, Vec<(&'a str, &'a str)>) {
    let missed = racy.iter().filter(|l| !reported.contains_key(*l)).map(String::as_str).collect();
    let false_alarms = reported.iter().filter(|(l, _)| !racy.contains(*l)).map(|(l, w)| (l.as_str(), w.as_str())).collect();
    (missed, false_alarms)
}

/// A fresh detector's run over `seen` (a whole trace, or the events a filter kept of it)
/// beside the racy locations of the whole trace `alpha`, for a counterexample's picture
/// (the cold path: the detector runs once more), held to `claim` (a [`super::Claim`]'s
/// property). `None` when the detector gave no answer.
pub fn detector_view(factory: &dyn DetectorFactory, claim: &str, seen: &[Event], alpha: &[Event], name: &dyn Fn(Addr) -> String) -> Option<DetectorView> {
    let run = reported_locations(factory, seen, name).ok()?;
    let racy: BTreeSet<String> = crate::race::data_races(alpha).iter().map(|r| name(r.addr)).collect();
    Some(DetectorView {
        name: factory.fresh().name(),
        claim: claim.into(),
        reported_events: run.events.into_iter().flatten().collect(),
        reported: run.locations.into_keys().collect(),
        racy: racy.into_iter().collect(),
    })
}

/// Runs a fresh detector over the events `trace` (a whole trace, or the events a filter
/// kept, which keep their own indices) and then [`DynamicDetector::finish`]: the index of
/// each event it reports, in order, and `None` last if it reports at the end.
///
/// # Errors
/// A [`DetectorFailure`] when a whole-trace detector gave no answer.
pub fn reported<'a>(factory: &dyn DetectorFactory, trace: impl IntoIterator<Item = &'a Event>) -> Result<Vec<Option<EventIdx>>, DetectorFailure> {
    let mut d = factory.fresh();
    if d.whole_trace() {
        let events: Vec<Event> = trace.into_iter().cloned().collect();
        return d.on_trace(&events);
    }
    let mut out: Vec<Option<EventIdx>> = trace.into_iter().filter(|e| d.on_event(e).is_err()).map(|e| Some(e.idx)).collect();
    if d.finish().is_err() {
        out.push(None);
    }
    Ok(out)
}

/// Runs a fresh detector over `trace`: each event it reports with the earlier events its
/// explanation names ([`DetectorReport::partners`]), asked at once for a streaming detector
/// (its state then is the report's) and after the run for a whole-trace one. A report at the
/// end of the trace names no event and is left out.
///
/// # Errors
/// A [`DetectorFailure`] when a whole-trace detector gave no answer.
pub fn reported_pairs(factory: &dyn DetectorFactory, trace: &[Event]) -> Result<Vec<(EventIdx, Vec<EventIdx>)>, DetectorFailure> {
    let mut d = factory.fresh();
    if d.whole_trace() {
        let at: Vec<EventIdx> = d.on_trace(trace)?.into_iter().flatten().collect();
        return Ok(at.into_iter().map(|i| (i, d.explain(trace, i).partners)).collect());
    }
    let mut out = vec![];
    for (i, e) in trace.iter().enumerate() {
        if d.on_event(e).is_err() {
            out.push((e.idx, d.explain(&trace[..=i], e.idx).partners));
        }
    }
    Ok(out)
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
        let w = |i: u32| Event::plain(EventIdx(i), ThreadId(i % 2), 1, EventKind::Access(AccessKind::Write, Addr::Field(ObjId(0), FieldId(0))));
        let trace = [w(0), w(1), w(2)];
        let factory = || Box::new(SecondWrite(false)) as Box<dyn DynamicDetector>;
        assert_eq!(reported(&factory, &trace), Ok(vec![Some(EventIdx(1)), Some(EventIdx(2))]));
        // A second run starts from a fresh state, not from the first run's.
        assert_eq!(reported(&factory, &trace[..1]), Ok(vec![]));
        assert_eq!(factory.fresh().explain(&trace, EventIdx(1)).reason, "second-write reported event 1");
    }

    /// Reports every acquire (naming no location) and, at the end, the last write's
    /// location; counts its events as shadow operations.
    #[derive(Default)]
    struct AtEnd(Option<Addr>, u64);

    impl DynamicDetector for AtEnd {
        fn on_event(&mut self, e: &Event) -> Result<(), Reported> {
            self.1 += 1;
            match e.kind {
                EventKind::Access(AccessKind::Write, a) => self.0 = Some(a),
                EventKind::Acquire(_) => return Err(Reported),
                _ => {}
            }
            Ok(())
        }

        fn finish(&mut self) -> Result<(), Reported> {
            self.0.map_or(Ok(()), |_| Err(Reported))
        }

        fn name(&self) -> String {
            "at-end".into()
        }

        fn shadow_operations(&self) -> Option<u64> {
            Some(self.1)
        }

        fn explain(&self, trace: &[Event], at: EventIdx) -> DetectorReport {
            let locations = if at.0 as usize == trace.len() { self.0.into_iter().collect() } else { vec![] };
            DetectorReport { at, partners: vec![], reason: format!("at {}", at.0), locations }
        }
    }

    #[test]
    fn finish_reports_name_their_locations_and_sync_reports_without_any_are_false_alarms() {
        let x = Addr::Field(ObjId(0), FieldId(3));
        let trace = [
            Event::plain(EventIdx(0), ThreadId(0), 1, EventKind::Access(AccessKind::Write, x)),
            Event::plain(EventIdx(1), ThreadId(0), 2, EventKind::Acquire(crate::machine::LockId::Global)),
        ];
        let factory = || Box::new(AtEnd::default()) as Box<dyn DynamicDetector>;
        let run = reported_locations(&factory, &trace, &|a| format!("{a:?}")).unwrap();
        let expected: BTreeMap<String, String> = [("event 1, which is no access".to_string(), "at 1".to_string()), (format!("{x:?}"), "at 2".to_string())].into();
        assert_eq!(run, DetectorRun { locations: expected, events: vec![Some(EventIdx(1)), None], shadow_operations: Some(2) });
        assert_eq!(reported(&factory, &trace), Ok(vec![Some(EventIdx(1)), None]));
        // The default per-program factory makes the same detectors.
        assert_eq!(reported(factory.for_program(&crate::lang::parse("dialect bfj\nthread { }\n").unwrap()).as_ref(), &trace), Ok(vec![Some(EventIdx(1)), None]));
    }

    /// Reads whole traces: reports the last event, or fails on an empty trace.
    struct Whole;

    impl DynamicDetector for Whole {
        fn on_event(&mut self, _: &Event) -> Result<(), Reported> {
            unreachable!("a whole-trace detector is not streamed")
        }

        fn name(&self) -> String {
            "whole".into()
        }

        fn whole_trace(&self) -> bool {
            true
        }

        fn on_trace(&mut self, trace: &[Event]) -> Result<Vec<Option<EventIdx>>, DetectorFailure> {
            trace.last().map(|e| vec![Some(e.idx)]).ok_or_else(|| DetectorFailure("timed out".into()))
        }
    }

    #[test]
    fn whole_trace_detectors_get_the_trace_and_their_failures_are_values() {
        let x = Addr::Field(ObjId(0), FieldId(3));
        let w = |i: u32| Event::plain(EventIdx(i), ThreadId(0), 1, EventKind::Access(AccessKind::Write, x));
        let trace = [w(0), w(1)];
        let factory = || Box::new(Whole) as Box<dyn DynamicDetector>;
        assert_eq!(reported(&factory, &trace), Ok(vec![Some(EventIdx(1))]));
        // A filter's kept events keep their indices.
        assert_eq!(reported(&factory, trace[..1].iter()), Ok(vec![Some(EventIdx(0))]));
        let run = reported_locations(&factory, &trace, &|a| format!("{a:?}")).unwrap();
        assert_eq!(run.locations.keys().collect::<Vec<_>>(), vec![&format!("{x:?}")]);
        assert_eq!(reported_locations(&factory, &[], &|a| format!("{a:?}")), Err(DetectorFailure("timed out".into())));
    }
}
