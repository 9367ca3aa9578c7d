//! Capsule filtering (Rhodes 2019, ch. 5): Fig. 5.6 as docs/spec/escape_capsule.md §8 states
//! it, with the operational checks of §6.7/§11 (Figs. 5.8, 5.9) done strictly at entry, in
//! front of FastTrack. Oracles: `capsule-first-race` (Theorem 5.4.3 and its strong form,
//! §9.4) and `capsule-first-race-operational` (P-C9/P-C10).
//!
//! Like the escape filter (`super::escape`) it keeps a monotone set G of capsule-shared
//! objects and a shadow of the object graph rebuilt from the trace, with three differences:
//! 1. **accessibility** instead of reachability (§6.3 \[REC\]): `acc(v)` never traverses
//!    into a capsule, and a capsule is never in G;
//! 2. **leaks** at capsule-method enter (`G ∪= acc(args)`, CE-ENTER) and exit
//!    (`G ∪= acc(ret)`, CE-EXIT), besides publication and fork;
//! 3. an access to a capsule's field is always filtered: encapsulation and capFree make
//!    it safe on formal traces.
//!
//! The capsule properties (§7.4, the checks an implementation runs; §6.7): an access to a
//! capsule's field whose executor (innermost capsule the thread is in) is not that capsule
//! (object-based, A18), an enter into an occupied capsule (even by the same thread, Fig.
//! 5.9), and an enter that the join of all earlier exits from the capsule does not
//! happen-before (capFree, the join-of-exits form §7.4 \[REC\], which also closes M-C10) are
//! each reported as a [`Decision::Violation`]: the event is kept (Fig. 5.8: a violating
//! access is not filtered) and the run goes on. Happens-before here is this module's own
//! (FastTrack's clocks: program order, locks, fork; enter/exit add no edge, §1.2).

use std::collections::{BTreeMap, HashMap};

use race_oracles::lang::AccessKind;
use race_oracles::machine::{Addr, Event, EventIdx, EventKind, LockId, ObjId, ThreadId, Value};
use race_oracles::rule_cases;
use race_oracles::theorems::rules::fire;
use race_oracles::theorems::{AccessFilter, Classes, Decision, FilterFactory};

use super::fasttrack::{Clocks, Vc};
use super::object_graph::ObjectGraph;

use crate::seeded::{Predicted, Seeded};

rule_cases! {
    /// The cases of Fig. 5.6 (docs/spec/escape_capsule.md §8's CE-* table and steps 3–7), of the
    /// capsule properties checked at entry (§7.3 CAPMETHOD/CAPREAD/CAPWRITE, §7.4 capFree,
    /// §7.5 violations), and of the owners an access can have (§9.1 executor).
    pub enum CapsuleRule in CAPSULE_RULES = "capsule filter", "escape_capsule.md §7–9" {
        /// CE-READ1: `p ∉ G`, filtered.
        ReadLocal => "CE-READ1 read of a capsule-local object: filtered", "§8 CE-READ1";
        /// CE-READ2: `p ∈ G`, kept.
        ReadShared => "CE-READ2 read of a capsule-shared object: kept", "§8 CE-READ2";
        /// CE-WRITE1: `p ∉ G`, filtered, and the value does not leak.
        WriteLocal => "CE-WRITE1 write into a capsule-local object: filtered", "§8 CE-WRITE1, step 6";
        /// CE-WRITE2 whose `acc(v)` adds nothing (v not an object, a capsule, or in G).
        WriteSharedNoLeak => "CE-WRITE2 write into a shared object, nothing leaks", "§8 CE-WRITE2";
        /// CE-WRITE2 whose `acc(v)` adds objects to G (leak point 1).
        WriteSharedLeaks => "CE-WRITE2 write publishes acc(v)", "§8 CE-WRITE2, §6.5 leak point 1";
        /// CE-FORK of a non-capsule thread object: `acc(p)` joins G (leak point 4).
        ForkLeaks => "CE-FORK leaks acc(thread object)", "§8 CE-FORK, step 3";
        /// CE-FORK adding nothing (the thread object a capsule, or in G already).
        ForkNoLeak => "CE-FORK leaks nothing (capsule or shared thread object)", "§8 step 3";
        /// CE-ENTER: an argument's `acc` joins G (leak point 2).
        EnterLeaks => "CE-ENTER leaks acc(arguments)", "§8 CE-ENTER, §6.5 leak point 2";
        /// CE-ENTER with no argument adding anything.
        EnterNoLeak => "CE-ENTER leaks nothing", "§8 CE-ENTER";
        /// CE-EXIT: the return value's `acc` joins G (leak point 3).
        ExitLeaks => "CE-EXIT leaks acc(return value)", "§8 CE-EXIT, §6.5 leak point 3";
        /// CE-EXIT returning nothing that adds to G.
        ExitNoLeak => "CE-EXIT leaks nothing", "§8 CE-EXIT";
        /// acc never enters a capsule, nor puts one in G (§6.3 accessibility).
        AccStopsAtCapsule => "acc stops at a capsule", "§6.3 acc, §8 invariant: no capsule in G";
        /// CAPREAD/CAPWRITE with executor = k: always filtered (step 7).
        CapsuleFieldInside => "capsule field accessed by its own executor: filtered", "§8 step 7, §7.3 CAPREAD/CAPWRITE";
        /// An access of a non-capsule object while the thread is inside a capsule (owner k).
        AccessInsideCapsule => "non-capsule access whose executor is a capsule", "§9.1 owner of an action";
        /// CAPMETHOD, capsule entered for the first time (no earlier exit).
        EnterFirst => "CAPMETHOD first enter of a capsule", "§7.4 capFree, no exit";
        /// CAPMETHOD after earlier exits, all happening-before the enter.
        EnterAfterExit => "CAPMETHOD enter after exits that happen-before it", "§7.4 capFree, ExitVC ⊑ C_t";
        /// CAPMETHOD while inside another capsule: the executor becomes the innermost.
        EnterNested => "CAPMETHOD from inside another capsule (nested)", "§7.4 executor, innermost";
        /// EXITCAP back to an enclosing capsule or the thread.
        Exit => "EXITCAP", "§7.3 EXITCAP";
        /// A capsule field accessed with executor ≠ k (object-based): a violation, kept.
        ViolationEncapsulation => "violation: capsule field accessed from outside", "§7.5, §9.4 operational", rare "capsule-first-race runs the formal semantics (§7.5), where a violating step is stuck and never emitted; only capsule-first-race-operational's traces carry one";
        /// An enter into an occupied capsule (`H(k) ≠ ⊥`): a violation.
        ViolationOccupied => "violation: enter into an occupied capsule", "§7.4 H(k) = ⊥, §9.4", rare "capsule-first-race runs the formal semantics (§7.5), where an enter into an occupied capsule waits and is never emitted; only capsule-first-race-operational's traces carry one";
        /// An enter that an earlier exit does not happen-before: a violation.
        ViolationCapFree => "violation: enter not after every exit (capFree)", "§7.4 capFree hb, §9.4", rare "capsule-first-race runs the formal semantics (§7.5), where an enter failing capFree is stuck and never emitted; only capsule-first-race-operational's traces carry one";
        /// Acquire, release: passed through (CE-ACQ, CE-REL).
        Sync => "CE-ACQ/CE-REL passed through", "§8 CE-ACQ, CE-REL";
    }
}

/// Seeded bugs: the re-implementation mistakes of spec §14 (M-C1…M-C6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapsuleBug {
    /// M-C1: exit → later enter of a capsule is a happens-before edge (as if a lock), so
    /// capFree always passes.
    ExitEnterEdge,
    /// M-C2: no occupancy check at enter (only the exits' clock).
    NoOccupancyCheck,
    /// M-C3: the encapsulation check compares classes, not objects (Fig. 5.8).
    ClassBasedEncapsulation,
    /// M-C4: an exit does not leak the return value.
    ExitLeaksNothing,
    /// M-C5: an enter does not leak the arguments.
    EnterLeaksNothing,
    /// M-C6: a leak marks the value only, not what is accessible from it.
    NonTransitiveLeak,
    /// A nested enter (from inside another capsule) skips the capFree check, as if the
    /// outer capsule serialized every enter it makes.
    NestedSkipsCapFree,
}

/// Its seeded bugs (`--mutant NAME`), with what the spec predicts under each oracle
/// (the seeded-bug catalogue lists them).
pub const SEEDED: &[Seeded<CapsuleBug>] = &[
    Seeded {
        name: "cap-exit-enter-edge",
        oracle: "capsule-first-race-operational",
        description: "a capsule's exit happens-before a later enter (as if a lock): capFree always passes",
        predicted: Predicted::breaks(&["capsule-first-race-operational"]).and_equivalent(&["capsule-first-race"]),
        spec: "spec/escape_capsule.md §14 M-C1",
        bug: CapsuleBug::ExitEnterEdge,
    },
    Seeded {
        name: "cap-no-occupancy-check",
        oracle: "capsule-first-race-operational",
        description: "an enter into an occupied capsule is not a violation (only the exits' clock is checked)",
        predicted: Predicted::breaks(&["capsule-first-race-operational"]).and_equivalent(&["capsule-first-race"]),
        spec: "spec/escape_capsule.md §14 M-C2",
        bug: CapsuleBug::NoOccupancyCheck,
    },
    Seeded {
        name: "cap-class-based-encapsulation",
        oracle: "capsule-first-race-operational",
        description: "the encapsulation check compares classes, not objects (Fig. 5.8)",
        predicted: Predicted::breaks(&["capsule-first-race-operational"]).and_equivalent(&["capsule-first-race"]),
        spec: "spec/escape_capsule.md §14 M-C3",
        bug: CapsuleBug::ClassBasedEncapsulation,
    },
    Seeded {
        name: "cap-exit-leaks-nothing",
        oracle: "capsule-first-race",
        description: "a capsule method's exit does not leak its return value",
        predicted: Predicted::breaks(&["capsule-first-race", "capsule-first-race-operational"]),
        spec: "spec/escape_capsule.md §14 M-C4, Fig. 5.2",
        bug: CapsuleBug::ExitLeaksNothing,
    },
    Seeded {
        name: "cap-enter-leaks-nothing",
        oracle: "capsule-first-race",
        description: "a capsule method's enter does not leak its arguments",
        predicted: Predicted::breaks(&["capsule-first-race", "capsule-first-race-operational"]),
        spec: "spec/escape_capsule.md §14 M-C5, Fig. 5.2",
        bug: CapsuleBug::EnterLeaksNothing,
    },
    Seeded {
        name: "cap-non-transitive-leak",
        oracle: "capsule-first-race",
        description: "a leak marks the value only, not what is accessible from it",
        predicted: Predicted::breaks(&["capsule-first-race", "capsule-first-race-operational"]),
        spec: "spec/escape_capsule.md §14 M-C6",
        bug: CapsuleBug::NonTransitiveLeak,
    },
    Seeded {
        name: "cap-nested-enter-skips-capfree",
        oracle: "capsule-first-race-operational",
        description: "an enter from inside another capsule skips the capFree check, as if the outer capsule serialized every enter it makes",
        predicted: Predicted::breaks(&["capsule-first-race-operational"]).and_equivalent(&["capsule-first-race"]),
        spec: "spec/escape_capsule.md §7.4 (CAPMETHOD: capFree for every enter, nested or not), §9.4",
        bug: CapsuleBug::NestedSkipsCapFree,
    },
];

/// Makes a fresh capsule filter per trace.
#[derive(Clone, Copy, Debug, Default)]
pub struct CapsuleFilterFactory {
    /// The seeded bug.
    pub bug: Option<CapsuleBug>,
}

impl FilterFactory for CapsuleFilterFactory {
    fn fresh(&self, classes: Classes) -> Box<dyn AccessFilter> {
        Box::new(CapsuleFilter::new(self.bug, classes))
    }
}

/// How an object became capsule-shared (∈ G).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leak {
    /// Accessible from the thread object of a fork (leak point 4).
    Fork(EventIdx),
    /// Accessible from a value written into a shared object (leak point 1).
    Published(EventIdx),
    /// Accessible from an argument of a capsule-method enter (leak point 2).
    Enter(EventIdx),
    /// Accessible from the return value of a capsule-method exit (leak point 3).
    Exit(EventIdx),
}

/// The capsule filter over one trace (see the module docs).
#[derive(Clone, Debug)]
pub struct CapsuleFilter {
    bug: Option<CapsuleBug>,
    classes: Classes,
    /// G: capsule-shared objects, with how each got there. Never holds a capsule.
    shared: BTreeMap<ObjId, Leak>,
    /// The object graph, from the trace's writes.
    heap: ObjectGraph,
    /// Per thread: the capsules it is inside, innermost last (its executor is the last).
    inside: HashMap<ThreadId, Vec<ObjId>>,
    /// Per capsule: the thread inside it.
    occupant: HashMap<ObjId, ThreadId>,
    /// Per capsule: the join of the clocks of all exits from it (`ExitVC[k]`, §7.4).
    exits: HashMap<ObjId, Vc>,
    clocks: Clocks,
    /// The reason for the last violation reported (cold path).
    last_violation: Option<&'static str>,
}

impl CapsuleFilter {
    /// G = ∅, no thread inside any capsule.
    pub fn new(bug: Option<CapsuleBug>, classes: Classes) -> CapsuleFilter {
        CapsuleFilter {
            bug,
            classes,
            shared: BTreeMap::new(),
            heap: ObjectGraph::default(),
            inside: HashMap::new(),
            occupant: HashMap::new(),
            exits: HashMap::new(),
            clocks: Clocks::default(),
            last_violation: None,
        }
    }

    /// G, in object order.
    pub fn shared(&self) -> impl Iterator<Item = (ObjId, Leak)> + '_ {
        self.shared.iter().map(|(o, l)| (*o, *l))
    }

    /// `G ∪= acc(v)` (§6.3): stops at capsules and at members of G (closed).
    /// Whether anything joined G.
    fn leak(&mut self, v: Value, how: Leak) -> bool {
        let transitive = self.bug != Some(CapsuleBug::NonTransitiveLeak);
        let stop = |o| {
            let capsule = self.classes.is_capsule(o);
            if capsule {
                fire(CapsuleRule::AccStopsAtCapsule);
            }
            capsule || self.shared.contains_key(&o)
        };
        let grown = self.heap.closure(v, stop, transitive);
        let leaked = !grown.is_empty();
        for o in grown {
            self.shared.insert(o, how);
        }
        leaked
    }

    fn executor(&self, t: ThreadId) -> Option<ObjId> {
        self.inside.get(&t).and_then(|s| s.last().copied())
    }

    fn violation(&mut self, why: &'static str) -> Decision {
        self.last_violation = Some(why);
        Decision::Violation
    }

    fn access(&mut self, e: &Event, a: Addr, write: bool) -> Decision {
        let p = a.obj();
        let value = e.moved.values().first().copied().unwrap_or(Value::Null);
        let d = if self.classes.is_capsule(p) {
            let ok = match (self.bug, self.executor(e.thread)) {
                (Some(CapsuleBug::ClassBasedEncapsulation), Some(k)) => self.classes.class(k) == self.classes.class(p),
                (_, k) => k == Some(p),
            };
            if ok {
                fire(CapsuleRule::CapsuleFieldInside);
                Decision::Elide
            } else {
                fire(CapsuleRule::ViolationEncapsulation);
                self.violation("a capsule's field accessed from outside the capsule")
            }
        } else {
            if self.executor(e.thread).is_some() {
                fire(CapsuleRule::AccessInsideCapsule);
            }
            let shared = self.shared.contains_key(&p);
            // Only a kept write publishes (step 6: a local target leaks nothing).
            let leaked = write && shared && self.leak(value, Leak::Published(e.idx));
            fire(match (write, shared, leaked) {
                (false, false, _) => CapsuleRule::ReadLocal,
                (false, true, _) => CapsuleRule::ReadShared,
                (true, false, _) => CapsuleRule::WriteLocal,
                (true, true, true) => CapsuleRule::WriteSharedLeaks,
                (true, true, false) => CapsuleRule::WriteSharedNoLeak,
            });
            if shared {
                Decision::Keep
            } else {
                Decision::Elide
            }
        };
        if write {
            self.heap.write(a, value);
        }
        d
    }

    fn enter(&mut self, e: &Event, k: ObjId) -> Decision {
        if self.bug != Some(CapsuleBug::EnterLeaksNothing) {
            let mut leaked = false;
            for &v in e.moved.values() {
                leaked |= self.leak(v, Leak::Enter(e.idx));
            }
            fire(if leaked { CapsuleRule::EnterLeaks } else { CapsuleRule::EnterNoLeak });
        }
        if self.executor(e.thread).is_some() {
            fire(CapsuleRule::EnterNested);
        }
        let occupied = self.occupant.contains_key(&k) && self.bug != Some(CapsuleBug::NoOccupancyCheck);
        let mut d = Decision::Keep;
        if occupied {
            fire(CapsuleRule::ViolationOccupied);
            d = self.violation("an enter into a capsule that a thread is inside");
        } else if self.bug == Some(CapsuleBug::ExitEnterEdge) {
            self.clocks.sync(e.thread, EventKind::Acquire(LockId::Obj(k)), None);
        } else if self.bug == Some(CapsuleBug::NestedSkipsCapFree) && self.executor(e.thread).is_some() {
            // The seeded bug: "the outer capsule already serializes us".
        } else if let Some(x) = self.exits.get(&k) {
            if x.below(self.clocks.current(e.thread)) {
                fire(CapsuleRule::EnterAfterExit);
            } else {
                fire(CapsuleRule::ViolationCapFree);
                d = self.violation("an enter that an earlier exit from the capsule does not happen-before (capFree)");
            }
        } else {
            fire(CapsuleRule::EnterFirst);
        }
        self.occupant.insert(k, e.thread);
        self.inside.entry(e.thread).or_default().push(k);
        d
    }

    fn exit(&mut self, e: &Event, k: ObjId) -> Decision {
        fire(CapsuleRule::Exit);
        if self.bug != Some(CapsuleBug::ExitLeaksNothing) {
            let ret = e.moved.values().first().copied().unwrap_or(Value::Null);
            fire(if self.leak(ret, Leak::Exit(e.idx)) { CapsuleRule::ExitLeaks } else { CapsuleRule::ExitNoLeak });
        }
        if self.bug == Some(CapsuleBug::ExitEnterEdge) {
            self.clocks.sync(e.thread, EventKind::Release(LockId::Obj(k)), None);
        } else {
            let c = self.clocks.current(e.thread).clone();
            self.exits.entry(k).or_default().join(&c);
        }
        self.occupant.remove(&k);
        if let Some(s) = self.inside.get_mut(&e.thread) {
            s.pop();
        }
        Decision::Keep
    }
}

impl AccessFilter for CapsuleFilter {
    fn on_event(&mut self, e: &Event) -> Decision {
        self.last_violation = None;
        match e.kind {
            EventKind::Access(k, a) => self.access(e, a, k == AccessKind::Write),
            EventKind::Enter(k) => self.enter(e, k),
            EventKind::Exit(k) => self.exit(e, k),
            EventKind::Fork(_) => {
                let p = e.moved.values().first().copied().unwrap_or(Value::Null);
                fire(if self.leak(p, Leak::Fork(e.idx)) { CapsuleRule::ForkLeaks } else { CapsuleRule::ForkNoLeak });
                self.clocks.sync(e.thread, e.kind, None);
                Decision::Keep
            }
            kind => {
                if matches!(kind, EventKind::Acquire(_) | EventKind::Release(_)) {
                    fire(CapsuleRule::Sync);
                }
                self.clocks.sync(e.thread, kind, None);
                Decision::Keep
            }
        }
    }

    fn name(&self) -> String {
        "capsule filter".into()
    }

    fn explain(&self, e: &Event, d: Decision) -> String {
        if let (Decision::Violation, Some(why)) = (d, self.last_violation) {
            return format!("capsule violation: {why}; kept");
        }
        let EventKind::Access(_, a) = e.kind else { return "synchronization, fork, enter and exit are never filtered".into() };
        let p = a.obj();
        if self.classes.is_capsule(p) {
            return "a capsule access (from inside the capsule): always filtered".into();
        }
        match self.shared.get(&p) {
            None => "capsule-local (∉ G): accessible by one owner only".into(),
            Some(Leak::Fork(i)) => format!("capsule-shared since event {} (accessible from a forked thread object)", i.0),
            Some(Leak::Published(i)) => format!("capsule-shared since event {} (written into a shared object)", i.0),
            Some(Leak::Enter(i)) => format!("capsule-shared since event {} (passed into a capsule method)", i.0),
            Some(Leak::Exit(i)) => format!("capsule-shared since event {} (returned from a capsule method)", i.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use race_oracles::lang::parse;
    use race_oracles::machine::{FieldId, Machine, Moved};

    use super::*;

    fn ev(i: u32, t: u32, kind: EventKind, moved: &[Value]) -> Event {
        let mut e = Event::plain(EventIdx(i), ThreadId(t), i + 1, kind);
        e.moved = match moved {
            [] => Moved::Nothing,
            [v] if !matches!(kind, EventKind::Enter(_)) => Moved::One(*v),
            vs => Moved::Args(vs.into()),
        };
        e
    }

    fn classes(src: &str, objects: usize) -> Classes {
        // Allocates `objects` objects with the main thread's first statements.
        let p = parse(src).unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        for _ in 0..objects {
            m.step(&mut st, ThreadId(0), 0).unwrap();
        }
        Classes::of(&p, &st.objects)
    }

    fn run(bug: Option<CapsuleBug>, c: &Classes, trace: &[Event]) -> String {
        let mut f = CapsuleFilter::new(bug, c.clone());
        trace
            .iter()
            .map(|e| match f.on_event(e) {
                Decision::Keep => 'k',
                Decision::Elide => 'e',
                Decision::Violation => 'V',
            })
            .collect()
    }

    const SRC: &str = "dialect capjava\nclass O { fields g }\ncapsule class K { fields o; method get() { x = this.o; return x } }\nthread { k = new K; o = new O; j = new K }\n";
    const O: Value = Value::Obj(ObjId(1));

    #[test]
    fn exit_leaks_the_return_value_and_capsule_fields_are_filtered() {
        let c = classes(SRC, 3);
        let (k, o, g) = (ObjId(0), ObjId(1), FieldId(0));
        let of = |f| Addr::Field(k, f);
        let trace = [
            ev(0, 0, EventKind::Enter(k), &[]),
            ev(1, 0, EventKind::Access(AccessKind::Write, of(FieldId(1))), &[O]), // this.o = o (inside k)
            ev(2, 0, EventKind::Exit(k), &[Value::Null]),
            ev(3, 0, EventKind::Access(AccessKind::Write, Addr::Field(o, g)), &[]), // o.g: local
            ev(4, 0, EventKind::Enter(k), &[]),
            ev(5, 0, EventKind::Exit(k), &[O]),                                     // get() returns o: leak
            ev(6, 0, EventKind::Access(AccessKind::Write, Addr::Field(o, g)), &[]), // o.g: shared
        ];
        assert_eq!(run(None, &c, &trace), "kekekkk");
        assert_eq!(run(Some(CapsuleBug::ExitLeaksNothing), &c, &trace), "kekekke");
    }

    #[test]
    fn violations_encapsulation_occupancy_and_cap_free() {
        let c = classes(SRC, 3);
        let (k, j) = (ObjId(0), ObjId(2));
        let ko = Addr::Field(k, FieldId(1));
        // Main enters j and reads k.o from there: an encapsulation violation, which the
        // class-based check misses (k and j are both K).
        let trace = [ev(0, 0, EventKind::Enter(j), &[]), ev(1, 0, EventKind::Access(AccessKind::Read, ko), &[])];
        assert_eq!(run(None, &c, &trace), "kV");
        assert_eq!(run(Some(CapsuleBug::ClassBasedEncapsulation), &c, &trace), "ke");
        // Thread 1 enters k while thread 0 is inside: occupied.
        let trace = [ev(0, 0, EventKind::Fork(ThreadId(1)), &[]), ev(1, 0, EventKind::Enter(k), &[]), ev(2, 1, EventKind::Enter(k), &[])];
        assert_eq!(run(None, &c, &trace), "kkV");
        assert_eq!(run(Some(CapsuleBug::NoOccupancyCheck), &c, &trace), "kkk");
        // Thread 0's exit does not happen-before thread 1's enter: capFree.
        let trace =
            [ev(0, 0, EventKind::Fork(ThreadId(1)), &[]), ev(1, 0, EventKind::Enter(k), &[]), ev(2, 0, EventKind::Exit(k), &[Value::Null]), ev(3, 1, EventKind::Enter(k), &[])];
        assert_eq!(run(None, &c, &trace), "kkkV");
        assert_eq!(run(Some(CapsuleBug::ExitEnterEdge), &c, &trace), "kkkk");
        // Ordered by a lock, the same visits are fine.
        let l = LockId::Obj(ObjId(1));
        let trace = [
            ev(0, 0, EventKind::Fork(ThreadId(1)), &[]),
            ev(1, 0, EventKind::Acquire(l), &[]),
            ev(2, 0, EventKind::Enter(k), &[]),
            ev(3, 0, EventKind::Exit(k), &[Value::Null]),
            ev(4, 0, EventKind::Release(l), &[]),
            ev(5, 1, EventKind::Acquire(l), &[]),
            ev(6, 1, EventKind::Enter(k), &[]),
        ];
        assert_eq!(run(None, &c, &trace), "kkkkkkk");
    }

    #[test]
    fn enter_leaks_arguments_but_never_a_capsule() {
        let c = classes(SRC, 3);
        let (k, j, o) = (ObjId(0), ObjId(2), ObjId(1));
        let mut f = CapsuleFilter::new(None, c.clone());
        f.on_event(&ev(0, 0, EventKind::Enter(k), &[O, Value::Obj(j)]));
        let g: Vec<ObjId> = f.shared().map(|(x, _)| x).collect();
        assert_eq!(g, [o], "the capsule argument j is never capsule-shared");
        let mut f = CapsuleFilter::new(Some(CapsuleBug::EnterLeaksNothing), c);
        f.on_event(&ev(0, 0, EventKind::Enter(k), &[O]));
        assert_eq!(f.shared().count(), 0);
    }
}
