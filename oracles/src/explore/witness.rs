//! Structured witnesses: a racing execution (or execution prefix) as data. Events keep their
//! [`EventKind`] with typed ids, and a [`Names`] table, taken from the execution's final
//! state, gives the ids their stable names (object ids are per execution; names are not).
//! Rendering (terminal columns, JSON) lives in the SUT crate's `render` module, never here.
//!
//! Accesses are identified by the line of the statement that makes them (`Line`'s equality
//! is honest), so a witness, a snapshot and a finding's header name the same line when they
//! are computed on the same text.

use super::schedule::Schedule;
use crate::machine::{Addr, EventIdx, EventKind, LockId, Machine, ObjId, State, ThreadId};

/// The names an execution gives its ids, for rendering.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Names {
    /// Object names, by [`ObjId`] (`b`, `l1`, `p@T1.o`).
    pub objects: Vec<String>,
    /// Field names, by [`crate::machine::FieldId`].
    pub fields: Vec<String>,
    /// Thread names, by [`ThreadId`], in creation order.
    pub threads: Vec<String>,
}

impl Names {
    /// The names of `st`'s objects and threads and of the program's fields.
    pub fn of(m: &Machine<'_>, st: &State<'_>) -> Names {
        Names { objects: st.objects.iter().map(|o| o.name.to_string()).collect(), fields: m.fields.clone(), threads: st.threads.iter().map(|t| t.name.to_string()).collect() }
    }

    /// An object's name (`#N` if the table does not know it).
    pub fn object(&self, o: ObjId) -> String {
        self.objects.get(o.0 as usize).cloned().unwrap_or_else(|| format!("#{}", o.0))
    }

    /// A readable address (`b.f`, `a[2]`), stable across executions.
    pub fn addr(&self, a: Addr) -> String {
        match a {
            Addr::Field(o, f) => format!("{}.{}", self.object(o), self.fields.get(f.0 as usize).map_or("?", String::as_str)),
            Addr::Index(o, i) => format!("{}[{i}]", self.object(o)),
        }
    }

    /// A readable lock (`lock` for RacerDX's global lock, else the object).
    pub fn lock(&self, l: LockId) -> String {
        match l {
            LockId::Global => "lock".into(),
            LockId::Obj(o) => self.object(o),
        }
    }

    /// A thread's name.
    pub fn thread(&self, t: ThreadId) -> String {
        self.threads.get(t.0 as usize).cloned().unwrap_or_else(|| t.to_string())
    }

    /// One event, for sentences: `event 7 (T1.1, line 3: write r1@T1.1.f)`.
    pub fn event(&self, e: &crate::machine::Event) -> String {
        let what = match e.kind {
            EventKind::Access(k, a) => format!("{} {}", if k == crate::lang::AccessKind::Write { "write" } else { "read" }, self.addr(a)),
            EventKind::Check(k, a) => format!("check({k:?}: {})", self.addr(a)),
            EventKind::Acquire(l) => format!("acq {}", self.lock(l)),
            EventKind::Release(l) => format!("rel {}", self.lock(l)),
            EventKind::Fork(t) => format!("fork {}", self.thread(t)),
            EventKind::Join(t) => format!("join {}", self.thread(t)),
            EventKind::Enter(o) => format!("enter {}", self.object(o)),
            EventKind::Exit(o) => format!("exit {}", self.object(o)),
            EventKind::Atomic(k, a) => format!("atomic {} {}", k.describe(), self.addr(a)),
            EventKind::Fence(o) => format!("fence({o})"),
        };
        format!("event {} ({}, line {}: {what})", e.idx.0, self.thread(e.thread), e.line)
    }
}

/// Which race definition a witness demonstrates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RaceDefinition {
    /// Two accesses unordered by happens-before; the marked pair is the trace's first race
    /// (docs/spec/escape_capsule.md §1.5).
    HappensBeforeFirstRace,
    /// Every happens-before race of one replayed execution is marked.
    HappensBefore,
    /// Def. 3.6: both accesses enabled in the last state (docs/spec/racerdx.md §2.5).
    Def36,
    /// Def. 3.6, reached from the Lemma B.7 state by the directed search (docs/spec/racerdx.md §4.5).
    Def36FromLemmaB7,
    /// Def. 3.6, found by searching every interleaving over the bounded heap family.
    Def36BySearch,
}

/// One row of a witness.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct WitnessEvent {
    /// Trace index, or `None` for the two accesses Def. 3.6 shows as enabled together.
    pub index: Option<EventIdx>,
    /// The thread (its column).
    pub thread: ThreadId,
    /// The line of the statement that makes the event.
    pub line: u32,
    /// What happens.
    pub kind: EventKind,
    /// Whether this is one of the racing accesses.
    pub racing: bool,
}

/// A racing execution (prefix), as data.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Witness {
    /// The choices that reproduce it (`racefuzz replay --schedule`).
    #[serde(serialize_with = "as_text")]
    pub schedule: Schedule,
    /// Column headers: every thread of the execution, in creation order (`T1 (zap)`).
    pub threads: Vec<String>,
    /// The lazily fixed part of the initial heap (racerdx pairs), as facts.
    pub initial_heap: Vec<String>,
    /// The events, in order.
    pub events: Vec<WitnessEvent>,
    /// The address raced on (for a replay: the first racing pair's).
    pub address: Option<Addr>,
    /// Which definition the race is under.
    pub definition: RaceDefinition,
    /// Names of the ids in `events` and `address`.
    pub names: Names,
    /// What the system under test did on this execution, when an oracle judged one on it
    /// (boxed: most witnesses have none, and they travel inside results by value).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sut: Option<Box<SutView>>,
}

/// What the system under test did on a witness's execution, as the oracle that judged it
/// saw it: the facts the item's explanation gives in words, as data, for a picture's panel
/// (`racefuzz check --html`) and for JSON. Events are named by their trace index
/// ([`WitnessEvent::index`]). Set only on the cold path, for a counterexample.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SutView {
    /// A dynamic detector's run over the trace (behind a filter: over the filtered trace β,
    /// whose events keep their indices in α; docs/spec/escape_capsule.md §3.1, A8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detector: Option<DetectorView>,
    /// An access filter's decisions on the trace (docs/spec/escape_capsule.md §3.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<FilterView>,
    /// Each check event of the trace (a placed program's) with the accesses it covers
    /// (docs/spec/bigfoot.md §3.1), in trace order; empty when the trace has no check.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<CheckCover>,
}

/// A detector's reports on one trace beside the ground truth's races of that trace.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DetectorView {
    /// The detector, as it names itself.
    pub name: String,
    /// What the oracle holds it to on every trace (`racy locations of every trace`): the
    /// missed and invented locations break the claim only where it is about them.
    pub claim: String,
    /// The events whose arrival completed a race it reports, in order (a report at the end
    /// of the trace, DynamicBF's footprint commit, has no event and shows in `reported` only).
    pub reported_events: Vec<EventIdx>,
    /// The locations it reported, named, sorted.
    pub reported: Vec<String>,
    /// The racy locations of the trace (docs/spec/bigfoot.md §1.6 `DR(α)`), named, sorted.
    pub racy: Vec<String>,
}

impl DetectorView {
    /// The racy locations it did not report.
    pub fn missed(&self) -> Vec<&str> {
        self.racy.iter().filter(|l| !self.reported.contains(l)).map(String::as_str).collect()
    }

    /// The locations it reported that are not racy (false alarms).
    pub fn invented(&self) -> Vec<&str> {
        self.reported.iter().filter(|l| !self.racy.contains(l)).map(String::as_str).collect()
    }
}

/// An access filter's decisions on one trace: the events it did not pass on as they are.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FilterView {
    /// The filter, as it names itself.
    pub name: String,
    /// The events it elided (no-ops in β), in order.
    pub elided: Vec<EventIdx>,
    /// The events it reported as capsule violations (kept), in order.
    pub violations: Vec<EventIdx>,
}

/// One check event and the accesses it covers.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CheckCover {
    /// The check event.
    pub check: EventIdx,
    /// The accesses it covers (same thread and location, no release or acquire between
    /// where the rule forbids one, a kind that fits), in order.
    pub covers: Vec<EventIdx>,
}

fn as_text<S: serde::Serializer>(s: &Schedule, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(&s.to_string())
}

impl Witness {
    /// This witness with what the system under test did on it.
    #[must_use]
    pub fn with_sut(self, view: SutView) -> Witness {
        Witness { sut: Some(Box::new(view)), ..self }
    }

    /// The address raced on, by name (empty if none).
    pub fn address_name(&self) -> String {
        self.address.map(|a| self.names.addr(a)).unwrap_or_default()
    }

    /// The whole execution `ex` as a witness: every event of a happens-before race is marked
    /// (docs/spec/escape_capsule.md §1.5), `address` is the first race's (none if the
    /// execution is race-free). This is how an oracle shows the one execution a failure is
    /// about (a detector's false alarm on it, a filter's lost race), and what `replay` prints.
    pub fn of_execution<'p>(m: &Machine<'p>, ex: &super::Execution<'_, 'p>) -> Witness {
        let races = crate::race::data_races(ex.trace);
        let racing: Vec<usize> = races.iter().flat_map(|r| [r.first.0 as usize, r.second.0 as usize]).collect();
        Witness {
            schedule: Schedule(ex.schedule.to_vec()),
            threads: ex.state.threads.iter().map(|t| t.name.to_string()).collect(),
            initial_heap: ex.state.initial_facts.clone(),
            events: rows(ex.trace, &racing),
            address: races.first().map(|r| r.addr),
            definition: RaceDefinition::HappensBefore,
            names: Names::of(m, ex.state),
            sut: None,
        }
    }
}

/// Rows for the events of `trace`, marking the positions `marked`.
pub fn rows(trace: &[crate::machine::Event], marked: &[usize]) -> Vec<WitnessEvent> {
    trace.iter().enumerate().map(|(i, e)| WitnessEvent { index: Some(e.idx), thread: e.thread, line: e.line, kind: e.kind, racing: marked.contains(&i) }).collect()
}

/// The rows of a Def. 3.6 witness: the prefix, then the two enabled accesses.
pub fn def36_rows(prefix: &[crate::machine::Event], pair: &crate::race::def36::EnabledPair) -> Vec<WitnessEvent> {
    let mut events = rows(prefix, &[]);
    for a in &pair.0 {
        events.push(WitnessEvent { index: None, thread: a.thread, line: a.line, kind: EventKind::Access(a.kind, a.addr), racing: true });
    }
    events
}
