//! What an observer of a step sees besides its [`EventKind`]: the values it moves
//! ([`Moved`]; docs/spec/escape_capsule.md §2.1 and §7.1 actions carry them) and, in the
//! operational mode, whether it is a capsule violation ([`Violation`]; spec §7.5, §9.4,
//! A14(b)).
//!
//! Both are read off the states around the step, never stored in them: a step's rule
//! stays the same function of the state, and a state's identity (`key`) does not grow a
//! history. The explorer asks once per step it records ([`Machine::observe`]).

use super::*;
use crate::lang::StmtKind;

impl<'p> Machine<'p> {
    /// The values `t`'s step from `before` to `after` moved (nothing without `after`), and
    /// the capsule violation it is (operational mode only: in the formal mode a violating
    /// step is disabled).
    pub fn observe(&self, before: &State<'p>, after: Option<&State<'p>>, t: ThreadId, kind: EventKind) -> (Moved, Option<Violation>) {
        let moved = match after {
            // Atomic events carry their values in every dialect (docs/spec/atomics.md §6.1):
            // a replay checks each atomic's result against them.
            Some(after) if self.sem.values || matches!(kind, EventKind::Atomic(..)) => self.moved(before, after, t, kind),
            _ => Moved::Nothing,
        };
        let violation = if self.sem.operational { self.violation(before, t, kind) } else { None };
        (moved, violation)
    }

    fn moved(&self, before: &State<'p>, after: &State<'p>, t: ThreadId, kind: EventKind) -> Moved {
        let cell = |st: &State<'p>, a: Addr| match a {
            Addr::Field(o, f) => match st.objects[idx(o)].fields.get(f.0 as usize) {
                Some(Cell::Val(v)) => Some(*v),
                _ => None,
            },
            Addr::Index(o, i) => st.objects[idx(o)].elems.as_ref().and_then(|es| usize::try_from(i).ok().and_then(|i| es.get(i))).copied(),
        };
        match kind {
            // An atomic load or failed CAS: the value read; a store: the value written; an
            // RMW (a successful CAS included): the value read, then the value written.
            EventKind::Atomic(k, a) => match (k, cell(before, a), cell(after, a)) {
                (AtomicKind::Rmw(_), Some(old), Some(new)) => Moved::Args(Box::new([old, new])),
                (AtomicKind::Rmw(_), ..) => Moved::Nothing,
                (_, _, Some(v)) => Moved::One(v),
                _ => Moved::Nothing,
            },
            // A read leaves the cell as it was; a write leaves its value there.
            EventKind::Access(_, a) => match a {
                Addr::Field(o, f) => match after.objects[idx(o)].fields.get(f.0 as usize) {
                    Some(Cell::Val(v)) => Moved::One(*v),
                    _ => Moved::Nothing,
                },
                Addr::Index(o, i) => {
                    let elem = after.objects[idx(o)].elems.as_ref().and_then(|es| usize::try_from(i).ok().and_then(|i| es.get(i)));
                    elem.map_or(Moved::Nothing, |v| Moved::One(*v))
                }
            },
            // The child runs `p.run()`: p is its first frame's `this`.
            EventKind::Fork(u) => {
                let this = after.threads[idx_t(u)].frames.first().and_then(|f| f.locals.iter().find(|(n, _)| *n == "this")).and_then(|(_, v)| *v);
                this.map_or(Moved::Nothing, Moved::One)
            }
            // The callee's frame holds the parameters, in order, and `this`.
            EventKind::Enter(_) => {
                let args = after.frame(t).locals.iter().filter(|(n, _)| *n != "this").filter_map(|(_, v)| *v).collect();
                Moved::Args(args)
            }
            // `return e` evaluates e before the step (pure); a body that ends returns null.
            EventKind::Exit(_) => match before.action(t) {
                Some(Action::Stmt(s)) => match &s.kind {
                    StmtKind::Return(Some(e)) => before.eval(t, e).map_or(Moved::Nothing, Moved::One),
                    _ => Moved::One(Value::Null),
                },
                _ => Moved::One(Value::Null),
            },
            _ => Moved::Nothing,
        }
    }

    /// The violation `t`'s step of `kind` from `before` is, if any (the checks CAPREAD,
    /// CAPWRITE and CAPMETHOD make in the formal mode, spec §7.3–7.4).
    fn violation(&self, before: &State<'p>, t: ThreadId, kind: EventKind) -> Option<Violation> {
        match kind {
            EventKind::Access(_, a) | EventKind::Atomic(_, a) if self.outside_capsule(before, t, a.obj()) => Some(Violation::Encapsulation),
            EventKind::Enter(k) if before.objects[idx(k)].capsule_holder.is_some() => Some(Violation::Occupied),
            EventKind::Enter(k) => before.capfree.as_ref().is_some_and(|cf| !cf.may_enter(t, k)).then_some(Violation::CapFree),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    fn events(src: &str, operational: bool, schedule: &[usize]) -> Vec<(EventKind, Moved, Option<Violation>)> {
        let p = parse(src).unwrap();
        let mut m = Machine::new(&p, 2);
        if operational {
            m = m.operational();
        }
        let mut st = m.initial_state().unwrap();
        let mut out = vec![];
        for &t in schedule {
            if st.threads[t].status == Status::Done {
                continue;
            }
            let before = st.clone();
            if let Some(kind) = m.step(&mut st, thread_id(t), 0).unwrap() {
                let (moved, v) = m.observe(&before, Some(&st), thread_id(t), kind);
                out.push((kind, moved, v));
            }
        }
        out
    }

    #[test]
    fn writes_forks_enters_and_exits_carry_their_values() {
        let src = "dialect capjava\nclass R { fields f }\ncapsule class K { fields o; method put(a, n) { this.o = a; return n } method run() { skip } }\nthread { r = new R; k = new K; r.f = r; x = k.put(r, 7); fork k }\n";
        let ev = events(src, false, &[0; 8]);
        let kinds: Vec<String> = ev.iter().map(|(k, m, _)| format!("{k:?} {m:?}")).collect();
        assert_eq!(
            kinds,
            [
                "Access(Write, Field(ObjId(0), FieldId(0))) One(Obj(ObjId(0)))",
                "Enter(ObjId(1)) Args([Obj(ObjId(0)), Int(7)])",
                "Access(Write, Field(ObjId(1), FieldId(1))) One(Obj(ObjId(0)))",
                "Exit(ObjId(1)) One(Int(7))",
                "Fork(ThreadId(1)) One(Obj(ObjId(1)))",
            ]
        );
        assert!(ev.iter().all(|(.., v)| v.is_none()));
    }

    #[test]
    fn the_operational_mode_takes_violating_steps_and_marks_them() {
        let src = "dialect capjava\ncapsule class K { fields n; method inc() { n = this.n; this.n = n } }\nthread { k = new K; k.inc(); x = k.n; k.inc() }\n";
        let p = parse(src).unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        for _ in 0..5 {
            m.step(&mut st, thread_id(0), 0).unwrap();
        }
        assert!(matches!(m.step(&mut st, thread_id(0), 0), Err(Disabled::Fault(_))), "formal: reading k.n from outside is stuck");
        let ev = events(src, true, &[0; 12]);
        let marked: Vec<(usize, Violation)> = ev.iter().enumerate().filter_map(|(i, (.., v))| v.map(|v| (i, v))).collect();
        assert_eq!(marked, [(4, Violation::Encapsulation)]);
    }

    #[test]
    fn occupied_and_cap_free_violations() {
        let src = "dialect capjava\ncapsule class K { fields n; method inc() { this.n = 1 } }\nclass W { fields k; method run() { k = this.k; k.inc() } }\nthread { k = new K; w = new W; w.k = k; fork w; k.inc() }\n";
        // Main enters k, then the worker enters while main is inside: occupied.
        let ev = events(src, true, &[0, 0, 0, 0, 0, 1, 1, 1, 0]);
        let marked: Vec<Violation> = ev.iter().filter_map(|(.., v)| *v).collect();
        assert_eq!(marked, [Violation::Occupied]);
        // Main runs inc to its exit, then the unsynchronized worker enters: capFree.
        let ev = events(src, true, &[0, 0, 0, 0, 0, 0, 0, 1, 1, 1]);
        let marked: Vec<Violation> = ev.iter().filter_map(|(.., v)| *v).collect();
        assert_eq!(marked, [Violation::CapFree]);
    }

    /// docs/spec/atomics.md §6.1: atomic events carry their values in every dialect (here
    /// BFJ, which records none for plain accesses).
    #[test]
    fn atomic_events_carry_their_values() {
        let src = "dialect bfj\ninit { o = new }\nthread { o.f.store(3, relaxed); r = o.f.fetch_add(2, relaxed); ok = o.f.cas(1, 2, seq_cst, seq_cst); s = o.f.load(acquire); fence(seq_cst); o.g = 1 }\n";
        let moved: Vec<Moved> = events(src, false, &[0; 8]).into_iter().map(|(_, m, _)| m).collect();
        let i = Value::Int;
        assert_eq!(moved, [Moved::One(i(3)), Moved::Args(Box::new([i(3), i(5)])), Moved::One(i(5)), Moved::One(i(5)), Moved::Nothing, Moved::Nothing]);
    }
}
