//! The seam for access filters (docs/spec/escape_capsule.md §3.1, §8): a filter reads the full
//! trace α one event at a time and decides, before the detector sees it, whether the event
//! reaches the detector or becomes a no-op in the filtered trace β (index-aligned, spec
//! A8). The partial-escape filter (Fig. 4.4) and the capsule filter (Fig. 5.6) plug in
//! here; the detector behind them is any [`super::DynamicDetector`] (FastTrack).
//!
//! A filter sees what an instrumenting tool sees: the events with the values they move
//! ([`crate::machine::Moved`]), and the class of each object, as a Java tool reads an
//! object's class ([`Classes`]). Where a filter also checks the
//! capsule properties (the operational mode, spec §6.7, §9.4), it says so per event
//! ([`Decision::Violation`]).

use crate::lang::Program;
use crate::machine::{Event, ObjId, Object};

/// The classes of one execution's objects, as a filter may know them: each object's class
/// (an index into `Program::classes`) and whether that class is a capsule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Classes {
    class: Vec<Option<usize>>,
    capsule: Vec<bool>,
}

impl Classes {
    /// The classes of `objects` (an execution's final state holds every object it made).
    pub fn of<'o>(p: &Program, objects: impl IntoIterator<Item = &'o Object>) -> Classes {
        let class: Vec<Option<usize>> = objects.into_iter().map(|o| o.class).collect();
        let capsule = class.iter().map(|c| c.is_some_and(|c| p.classes.get(c).is_some_and(|d| d.capsule))).collect();
        Classes { class, capsule }
    }

    /// Whether `o` is an instance of a capsule class (unknown objects are not).
    pub fn is_capsule(&self, o: ObjId) -> bool {
        self.capsule.get(o.0 as usize).copied().unwrap_or(false)
    }

    /// `o`'s class, if known.
    pub fn class(&self, o: ObjId) -> Option<usize> {
        self.class.get(o.0 as usize).copied().flatten()
    }
}

/// What a filter does with one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Decision {
    /// The detector sees it.
    Keep,
    /// It becomes a no-op in β (spec §3.2 `b = t:no-op`).
    Elide,
    /// The detector sees it, and it is a capsule violation the filter reports (spec §6.7:
    /// a violating access is recorded and not filtered; a violating enter passes through).
    Violation,
}

/// An access filter over one trace. Two required methods.
pub trait AccessFilter {
    /// Consumes the next event of α and decides it. Must be cheap on the common path.
    fn on_event(&mut self, e: &Event) -> Decision;

    /// A short name for messages (`escape filter`).
    fn name(&self) -> String;

    /// The cold path: why the event just consumed was decided as it was, for people
    /// (`racefuzz analyze`, counterexamples). The default names the decision only.
    #[cold]
    fn explain(&self, e: &Event, d: Decision) -> String {
        let _ = e;
        format!("{d:?}")
    }
}

/// Makes a fresh filter for each trace (filters are stateful).
pub trait FilterFactory {
    /// A filter in its initial state (G = ∅) for one execution whose objects have the
    /// classes `classes`.
    fn fresh(&self, classes: Classes) -> Box<dyn AccessFilter>;
}

impl<F: Fn(Classes) -> Box<dyn AccessFilter>> FilterFactory for F {
    fn fresh(&self, classes: Classes) -> Box<dyn AccessFilter> {
        self(classes)
    }
}

/// The filtered trace β: the events the detector sees, with their α indices (an elided
/// event is a no-op in place, so it is simply absent; spec A8).
pub fn filtered(trace: &[Event], decisions: &[Decision]) -> Vec<Event> {
    trace.iter().zip(decisions).filter(|(_, d)| **d != Decision::Elide).map(|(e, _)| e.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::AccessKind;
    use crate::machine::{Addr, EventIdx, EventKind, FieldId, ThreadId};

    /// Elides every access to object 0.
    struct NotZero;

    impl AccessFilter for NotZero {
        fn on_event(&mut self, e: &Event) -> Decision {
            match e.access() {
                Some((_, a)) if a.obj() == ObjId(0) => Decision::Elide,
                _ => Decision::Keep,
            }
        }

        fn name(&self) -> String {
            "not-zero".into()
        }
    }

    #[test]
    fn decisions_and_the_filtered_trace_keep_alpha_indices() {
        let w = |i: u32, o: u32| Event::plain(EventIdx(i), ThreadId(0), 1, EventKind::Access(AccessKind::Write, Addr::Field(ObjId(o), FieldId(0))));
        let trace = [w(0, 0), w(1, 1), w(2, 0), w(3, 1)];
        let factory = |_: Classes| Box::new(NotZero) as Box<dyn AccessFilter>;
        let mut f = factory.fresh(Classes::default());
        let d: Vec<Decision> = trace.iter().map(|e| f.on_event(e)).collect();
        assert_eq!(d, [Decision::Elide, Decision::Keep, Decision::Elide, Decision::Keep]);
        let beta: Vec<u32> = filtered(&trace, &d).iter().map(|e| e.idx.0).collect();
        assert_eq!(beta, [1, 3]);
        assert_eq!(factory.fresh(Classes::default()).explain(&trace[0], d[0]), "Elide");
        let p = crate::lang::parse("dialect capjava\nclass A { }\ncapsule class K { }\nthread { a = new A; k = new K }\n").unwrap();
        let m = crate::machine::Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        for _ in 0..2 {
            m.step(&mut st, ThreadId(0), 0).unwrap();
        }
        let c = Classes::of(&p, &st.objects);
        assert_eq!((c.is_capsule(ObjId(0)), c.is_capsule(ObjId(1)), c.is_capsule(ObjId(9))), (false, true, false));
        assert_eq!((c.class(ObjId(1)), c.class(ObjId(9))), (Some(1), None));
    }
}
