//! Partial race-check elision by dynamic thread-escape analysis (Rhodes 2019, ch. 4; the
//! FTFJP 2017 paper): Fig. 4.4 as docs/spec/escape_capsule.md §3.2 reconstructs it, run in front
//! of FastTrack. Oracle: `escape-trace-precise` (Theorem 4.5.3 and its strong form,
//! spec §4.5 C1/C4), with the negative controls `escape-address-precise` (P-E8) and
//! `escape-elided-race-free` (P-E9).
//!
//! State: the monotone escaped set G (Lemma 14), and a shadow of the heap's object graph
//! rebuilt from the trace's writes (spec §2.3 \[REC\]: fields start null and every write is an
//! event, so the trace determines the heap). For each event, with the heap *before* it:
//! - a read or write of `p.f` is elided iff `p ∉ G`; a kept write of `v` adds `reach(v)`
//!   to G (spec §3.2: the target decides, never the value; M-E5);
//! - `fork p` adds `reach(p)` to G and is kept;
//! - acquire, release, enter and exit are never elided (§3.3: partial lock elision is
//!   unsound, Fig. 4.1; eliding them would invent races, M-E8).
//!
//! `reach` stops at members of G: G is closed under the heap's edges (§3.4 "Closed"), so
//! what lies behind an escaped object is escaped already. Invariants checked by the unit
//! tests: G only grows; G is closed.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::object_graph::ObjectGraph;

use race_oracles::machine::{Addr, Event, EventIdx, EventKind, ObjId, Value};
use race_oracles::rule_cases;
use race_oracles::theorems::rules::fire;
use race_oracles::theorems::{AccessFilter, Classes, Decision, FilterFactory};

use crate::seeded::{Predicted, Seeded};

rule_cases! {
    /// The cases of Fig. 4.4 (docs/spec/escape_capsule.md §3.2's table, §3.3's two ways to
    /// escape): one per row of the table that ends a step, split where the row's G update
    /// has cases a reader would tell apart (nothing, the value, what lies behind it).
    pub enum EscapeRule in ESCAPE_RULES = "escape filter", "escape_capsule.md §3" {
        /// `t:read p.f v`, `p ∉ G`: elided.
        ReadElided => "read of an unescaped object: elided", "§3.2 read, p ∉ G";
        /// `t:read p.f v`, `p ∈ G`: kept.
        ReadKept => "read of an escaped object: kept", "§3.2 read, p ∈ G";
        /// `t:write p.f v`, `p ∉ G`: elided, and v does not escape however shared it is.
        WriteElided => "write into an unescaped object: elided", "§3.2 write, p ∉ G";
        /// `t:write p.f v`, `p ∈ G`, v not an object: kept, `reach(v) = ∅`.
        WriteKeptNoObject => "write of a non-object into an escaped object: kept, G unchanged", "§3.2 reach(null) = ∅";
        /// `t:write p.f v`, `p, v ∈ G`: kept; reach stops at v (G is closed).
        WriteKeptEscapedValue => "write of an escaped object into an escaped object: kept, G unchanged", "§3.4 Closed";
        /// `t:write p.f v`, `p ∈ G`, `v ∉ G`: v escapes (publication).
        WritePublishes => "write publishes an unescaped object", "§3.3 way 1";
        /// Publication escapes an object behind v, not only v.
        WritePublishesBehind => "publication escapes what the value reaches", "§3.2 reach, transitive";
        /// `t:fork p t'` with `p ∉ G`: the thread object escapes.
        ForkEscapes => "fork escapes its thread object", "§3.3 way 2";
        /// The fork's closure reaches past the thread object.
        ForkEscapesBehind => "fork escapes what the thread object reaches", "§3.2 reach(p, H)";
        /// `t:fork p t'` with `p ∈ G` already: kept, G unchanged.
        ForkOfEscaped => "fork of an already escaped thread object", "§3.2 fork, reach stops at G", rare "the generators' main thread allocates each worker object, writes its fields and forks it, and no object ever holds a worker object, so a thread object is unescaped at its fork";
        /// reach stops at an escaped object behind the root (the closure's early stop).
        ReachStopsAtG => "reach stops at an escaped object behind the root", "§3.5 reach may stop at G";
        /// `t:acq p`, `t:rel p`: never elided, even for an unescaped lock object.
        SyncOfUnescapedKept => "acquire/release of an unescaped lock object: kept", "§3.3 never elided (Fig. 4.1)";
        /// Partial elision: an object whose earlier accesses were elided has an access kept
        /// (Fig. 4.2's pattern, the reason the theorem is about the first race only).
        ElidedThenKept => "an object's access kept after earlier ones were elided", "§3.3 partial elision, §5.2";
    }
}

/// Seeded bugs: the re-implementation mistakes of spec §14 that lose a first race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EscapeBug {
    /// M-E1: a write into an escaped object marks only the value, not `reach(v)`.
    NonTransitive,
    /// M-E2: `fork p` marks only the thread object p, not what it reaches.
    ForkMarksOnlyThreadObject,
    /// M-E3: access-based ownership, decided after the fact: an object counts as exclusive
    /// to the first thread that accesses it, and its accesses are elided until a second
    /// thread accesses it (Eraser-style), whatever reached it meanwhile.
    OwnerUntilShared,
    /// M-E5: a write of a not-yet-escaped value is elided even into an escaped target.
    ValueBased,
    /// M-E6: per-site caching: an access site (line) whose first access was elided is
    /// elided from then on.
    PerSiteCaching,
    /// M-E8: acquire and release of a not-escaped lock object are elided too.
    ElidesLocalSync,
    /// Per-object read caching: an object whose first read was elided (it had not escaped
    /// yet) has its later reads elided too, even after it escapes.
    ReadCachedPerObject,
}

/// Its seeded bugs (`--mutant NAME`), with what the spec predicts under each oracle
/// (the seeded-bug catalogue lists them).
pub const SEEDED: &[Seeded<EscapeBug>] = &[
    Seeded {
        name: "esc-non-transitive",
        oracle: "escape-trace-precise",
        description: "a write into an escaped object marks only the value, not everything it reaches",
        predicted: Predicted::breaks(&["escape-trace-precise"]),
        spec: "spec/escape_capsule.md §14 M-E1",
        bug: EscapeBug::NonTransitive,
    },
    Seeded {
        name: "esc-fork-marks-thread-object",
        oracle: "escape-trace-precise",
        description: "a fork marks only the thread object, not what it reaches",
        predicted: Predicted::breaks(&["escape-trace-precise"]),
        spec: "spec/escape_capsule.md §14 M-E2",
        bug: EscapeBug::ForkMarksOnlyThreadObject,
    },
    Seeded {
        name: "esc-owner-until-shared",
        oracle: "escape-trace-precise",
        description: "access-based ownership, decided after the fact: an object's accesses are elided until a second thread accesses it",
        predicted: Predicted::breaks(&["escape-trace-precise"]),
        spec: "spec/escape_capsule.md §14 M-E3",
        bug: EscapeBug::OwnerUntilShared,
    },
    Seeded {
        name: "esc-value-based",
        oracle: "escape-trace-precise",
        description: "a write of a not-yet-escaped value is elided even into an escaped object (the value decides, not the target)",
        predicted: Predicted::breaks(&["escape-trace-precise"]),
        spec: "spec/escape_capsule.md §14 M-E5",
        bug: EscapeBug::ValueBased,
    },
    Seeded {
        name: "esc-per-site",
        oracle: "escape-trace-precise",
        description: "per-site caching: a line whose first access was elided is elided from then on",
        predicted: Predicted::breaks(&["escape-trace-precise"]),
        spec: "spec/escape_capsule.md §14 M-E6",
        bug: EscapeBug::PerSiteCaching,
    },
    Seeded {
        name: "esc-elides-local-sync",
        oracle: "escape-trace-precise",
        description: "acquire and release of a not-escaped lock object are elided too",
        predicted: Predicted::breaks(&["escape-trace-precise"]),
        spec: "spec/escape_capsule.md §14 M-E8 (new races in β)",
        bug: EscapeBug::ElidesLocalSync,
    },
    Seeded {
        name: "esc-read-cached-per-object",
        oracle: "escape-trace-precise",
        description: "per-object read caching: an object whose first read was elided (not yet escaped) has its later reads elided too, after it escapes",
        predicted: Predicted::breaks(&["escape-trace-precise"]),
        spec: "spec/escape_capsule.md §3.2 (read, p ∉ G decided per event)",
        bug: EscapeBug::ReadCachedPerObject,
    },
];

/// Makes a fresh escape filter per trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct EscapeFilterFactory {
    /// The seeded bug.
    pub bug: Option<EscapeBug>,
}

impl FilterFactory for EscapeFilterFactory {
    fn fresh(&self, _classes: Classes) -> Box<dyn AccessFilter> {
        Box::new(EscapeFilter::new(self.bug))
    }
}

/// Why an object is in G.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// Reached from the thread object of the fork at this event.
    Fork(EventIdx),
    /// Reached from a value written into an escaped object at this event.
    Published(EventIdx),
    /// (M-E3 only) accessed by a second thread at this event.
    SecondThread(EventIdx),
}

/// The escape filter over one trace (see the module docs).
#[derive(Clone, Debug)]
pub struct EscapeFilter {
    bug: Option<EscapeBug>,
    /// G, with the event that put each member there.
    escaped: BTreeMap<ObjId, Cause>,
    /// The object graph, from the trace's writes.
    heap: ObjectGraph,
    /// (M-E3) the first thread to access each object.
    owner: HashMap<ObjId, race_oracles::machine::ThreadId>,
    /// (M-E6) per line, whether its first access was elided.
    sites: HashMap<u32, bool>,
    /// (read caching) per object, whether its first read was elided.
    first_reads: HashMap<ObjId, bool>,
    /// Objects with an elided access so far: only to tell partial elision for rule coverage.
    elided: BTreeSet<ObjId>,
}

impl EscapeFilter {
    /// G = ∅ over an empty heap.
    pub fn new(bug: Option<EscapeBug>) -> EscapeFilter {
        EscapeFilter {
            bug,
            escaped: BTreeMap::new(),
            heap: ObjectGraph::default(),
            owner: HashMap::new(),
            sites: HashMap::new(),
            first_reads: HashMap::new(),
            elided: BTreeSet::new(),
        }
    }

    /// Whether `o ∈ G`.
    pub fn is_escaped(&self, o: ObjId) -> bool {
        self.escaped.contains_key(&o)
    }

    /// G, in object order.
    pub fn escaped(&self) -> impl Iterator<Item = (ObjId, Cause)> + '_ {
        self.escaped.iter().map(|(o, c)| (*o, *c))
    }

    /// `G ∪= reach(v)` (only `v` under M-E1), in the current heap.
    fn escape(&mut self, v: Value, cause: Cause, transitive: bool) {
        let stop = |o| {
            let escaped = self.escaped.contains_key(&o);
            if escaped && v != Value::Obj(o) {
                fire(EscapeRule::ReachStopsAtG);
            }
            escaped
        };
        let grown = self.heap.closure(v, stop, transitive);
        // Which of §3.2's G updates this was: nothing new, the root, or more behind it.
        let (publish, behind) = match cause {
            Cause::Fork(_) => (EscapeRule::ForkEscapes, EscapeRule::ForkEscapesBehind),
            _ => (EscapeRule::WritePublishes, EscapeRule::WritePublishesBehind),
        };
        match (v, grown.len()) {
            (Value::Obj(_), 0) => fire(if publish == EscapeRule::ForkEscapes { EscapeRule::ForkOfEscaped } else { EscapeRule::WriteKeptEscapedValue }),
            (Value::Obj(_), n) => fire(if n > 1 { behind } else { publish }),
            _ if publish == EscapeRule::WritePublishes => fire(EscapeRule::WriteKeptNoObject),
            _ => {}
        }
        for o in grown {
            self.escaped.insert(o, cause);
        }
    }

    fn decide_access(&mut self, e: &Event, a: Addr, write: bool) -> Decision {
        let p = a.obj();
        let value = e.moved.values().first().copied().unwrap_or(Value::Null);
        let mut keep = self.is_escaped(p);
        match self.bug {
            Some(EscapeBug::OwnerUntilShared) => {
                let owner = *self.owner.entry(p).or_insert(e.thread);
                if owner != e.thread && !self.is_escaped(p) {
                    self.escaped.insert(p, Cause::SecondThread(e.idx));
                }
                keep = self.is_escaped(p);
            }
            Some(EscapeBug::ValueBased) if write => {
                keep &= match value {
                    Value::Obj(v) => self.is_escaped(v) || v == p,
                    _ => true,
                };
            }
            Some(EscapeBug::ReadCachedPerObject) if !write => {
                keep &= !*self.first_reads.entry(p).or_insert(!keep);
            }
            Some(EscapeBug::PerSiteCaching) => {
                let elided_first = *self.sites.entry(e.line).or_insert(!keep);
                keep &= !elided_first;
            }
            _ => {}
        }
        // A kept write publishes its value; M-E3 has no publication rule at all.
        if write && keep && self.bug != Some(EscapeBug::OwnerUntilShared) {
            self.escape(value, Cause::Published(e.idx), self.bug != Some(EscapeBug::NonTransitive));
        }
        if write {
            // The heap after the write (the decision and G used the heap before it).
            self.heap.write(a, value);
        }
        if !keep {
            fire(if write { EscapeRule::WriteElided } else { EscapeRule::ReadElided });
            self.elided.insert(p);
            return Decision::Elide;
        }
        // A kept write's case is its G update, fired by `escape`.
        if !write {
            fire(EscapeRule::ReadKept);
        }
        if self.elided.contains(&p) {
            fire(EscapeRule::ElidedThenKept);
        }
        Decision::Keep
    }
}

impl AccessFilter for EscapeFilter {
    fn on_event(&mut self, e: &Event) -> Decision {
        match e.kind {
            EventKind::Access(k, a) => self.decide_access(e, a, k == race_oracles::lang::AccessKind::Write),
            EventKind::Fork(_) => {
                let p = e.moved.values().first().copied().unwrap_or(Value::Null);
                self.escape(p, Cause::Fork(e.idx), self.bug != Some(EscapeBug::ForkMarksOnlyThreadObject));
                Decision::Keep
            }
            EventKind::Acquire(race_oracles::machine::LockId::Obj(l)) | EventKind::Release(race_oracles::machine::LockId::Obj(l))
                if self.bug == Some(EscapeBug::ElidesLocalSync) && !self.is_escaped(l) =>
            {
                Decision::Elide
            }
            EventKind::Acquire(race_oracles::machine::LockId::Obj(l)) | EventKind::Release(race_oracles::machine::LockId::Obj(l)) => {
                if !self.is_escaped(l) {
                    fire(EscapeRule::SyncOfUnescapedKept);
                }
                Decision::Keep
            }
            _ => Decision::Keep,
        }
    }

    fn name(&self) -> String {
        "escape filter".into()
    }

    fn explain(&self, e: &Event, d: Decision) -> String {
        let target = match (e.kind, d) {
            (EventKind::Access(_, a), _) => a.obj(),
            (EventKind::Fork(_), _) => return "a fork is never elided; what the thread object reaches escapes".into(),
            (_, Decision::Elide) => return "(seeded bug) its lock object has not escaped".into(),
            _ => return "synchronization is never elided".into(),
        };
        match (d, self.escaped.get(&target)) {
            (Decision::Elide, _) | (_, None) => "its object has not escaped (∉ G): only this thread can reach it".into(),
            (_, Some(Cause::Fork(i))) => format!("its object escaped at event {} (reached from a forked thread object)", i.0),
            (_, Some(Cause::Published(i))) if *i == e.idx => "its object escaped earlier; this write publishes what the value reaches".into(),
            (_, Some(Cause::Published(i))) => format!("its object escaped at event {} (written into an escaped object)", i.0),
            (_, Some(Cause::SecondThread(i))) => format!("its object became shared at event {} (a second thread accessed it)", i.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use race_oracles::lang::AccessKind;
    use race_oracles::machine::{FieldId, Moved, ThreadId};

    use super::*;

    fn ev(i: u32, t: u32, kind: EventKind, v: Option<u32>) -> Event {
        let mut e = Event::plain(EventIdx(i), ThreadId(t), i + 1, kind);
        e.moved = v.map_or(Moved::Nothing, |o| Moved::One(Value::Obj(ObjId(o))));
        e
    }

    fn w(i: u32, t: u32, o: u32, f: u16, v: Option<u32>) -> Event {
        ev(i, t, EventKind::Access(AccessKind::Write, Addr::Field(ObjId(o), FieldId(f))), v)
    }

    /// Fig. 4.2's trace, objects: 0 = holder p, 1 = W1, 2 = W2, 3 = r (spec §5.2's table).
    fn fig_4_2() -> Vec<Event> {
        vec![
            w(0, 0, 1, 1, Some(0)),                                                                    // a: main w1.p = p
            w(1, 0, 2, 1, Some(0)),                                                                    // b: main w2.p = p
            ev(2, 0, EventKind::Fork(ThreadId(1)), Some(1)),                                           // c: fork w1
            ev(3, 0, EventKind::Fork(ThreadId(2)), Some(2)),                                           // d: fork w2
            w(4, 1, 3, 0, None),                                                                       // e: t1 r.f = null
            ev(5, 1, EventKind::Access(AccessKind::Read, Addr::Field(ObjId(1), FieldId(1))), Some(0)), // f
            w(6, 1, 0, 2, Some(3)),                                                                    // g: t1 p.o = r
            ev(7, 2, EventKind::Access(AccessKind::Read, Addr::Field(ObjId(2), FieldId(1))), Some(0)), // h
            ev(8, 2, EventKind::Access(AccessKind::Read, Addr::Field(ObjId(0), FieldId(2))), Some(3)), // i
            w(9, 2, 3, 0, None),                                                                       // j: t2 r.f = null
        ]
    }

    fn run(bug: Option<EscapeBug>, trace: &[Event]) -> (String, EscapeFilter) {
        let mut f = EscapeFilter::new(bug);
        let d: String = trace.iter().map(|e| if f.on_event(e) == Decision::Elide { 'e' } else { 'k' }).collect();
        (d, f)
    }

    #[test]
    fn fig_4_2_table() {
        let (d, f) = run(None, &fig_4_2());
        // a, b (pre-fork writes) and e (r before publication) elided; everything else kept.
        assert_eq!(d, "eekkekkkkk");
        let g: Vec<(u32, Cause)> = f.escaped().map(|(o, c)| (o.0, c)).collect();
        assert_eq!(g, [(0, Cause::Fork(EventIdx(2))), (1, Cause::Fork(EventIdx(2))), (2, Cause::Fork(EventIdx(3))), (3, Cause::Published(EventIdx(6)))]);
    }

    #[test]
    fn g_is_monotone_and_closed_after_every_event() {
        let trace = fig_4_2();
        let mut f = EscapeFilter::new(None);
        let mut before: Vec<ObjId> = vec![];
        for e in &trace {
            f.on_event(e);
            let now: Vec<ObjId> = f.escaped().map(|(o, _)| o).collect();
            assert!(before.iter().all(|o| now.contains(o)), "G shrank at event {}", e.idx.0);
            for o in &now {
                for v in f.heap.successors(*o) {
                    assert!(f.is_escaped(v), "G not closed: {o:?} escaped, {v:?} behind it not");
                }
            }
            before = now;
        }
    }

    #[test]
    fn transitive_publication_and_its_mutant() {
        // M-E1's witness: q reachable through r; publishing r escapes q.
        let trace = vec![
            ev(0, 0, EventKind::Fork(ThreadId(1)), Some(0)), // p (0) escapes
            w(1, 0, 2, 0, Some(1)),                          // r.f = q (r local: elided)
            w(2, 0, 0, 0, Some(2)),                          // p.o = r: publishes r and q
            w(3, 0, 1, 1, None),                             // q.g = 1
        ];
        assert_eq!(run(None, &trace).0, "kekk");
        assert_eq!(run(Some(EscapeBug::NonTransitive), &trace).0, "keke");
    }

    #[test]
    fn sync_is_never_elided_but_under_its_mutant() {
        let l = race_oracles::machine::LockId::Obj(ObjId(5));
        let trace = vec![ev(0, 0, EventKind::Acquire(l), None), ev(1, 0, EventKind::Release(l), None)];
        assert_eq!(run(None, &trace).0, "kk");
        assert_eq!(run(Some(EscapeBug::ElidesLocalSync), &trace).0, "ee");
    }
}
