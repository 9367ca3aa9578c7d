//! What the explorer asks about a thread's next step without taking it: its line and call
//! sites (for witnesses), its alternatives (`if *`, `while *` up to the loop bound K), whether
//! it is local (for eager execution), and the access it makes (RacerDX's Def. 3.6 enabled
//! pairs, docs/spec/racerdx.md §3.4).

use super::*;
use crate::lang::*;

impl<'p> Machine<'p> {
    /// The source line of the thread's next action, if it has one.
    pub fn next_line(&self, st: &State<'p>, t: ThreadId) -> Option<u32> {
        st.action(t).map(|a| match a {
            Action::Stmt(s) | Action::LoopHead(s, _) => s.line.0,
            Action::Release(_, l) | Action::Enter(_, l) | Action::CapExit(_, l) | Action::Check(_, _, l) => l.0,
        })
    }

    /// The alternatives of the thread's next step: two for `if *` and for `while *` below the
    /// loop bound (0 = then/iterate, 1 = else/exit), only `1` at the bound, otherwise `0`.
    pub fn alternatives(&self, st: &State<'p>, t: ThreadId) -> &'static [u8] {
        match st.action(t) {
            Some(Action::Stmt(Stmt { kind: StmtKind::If { cond: Cond::Star, .. }, .. })) => &[0, 1],
            Some(Action::Stmt(Stmt { kind: StmtKind::While { cond: Cond::Star, .. }, .. })) => self.loop_alts(0),
            Some(Action::LoopHead(Stmt { kind: StmtKind::While { cond: Cond::Star, .. }, .. }, iters)) => self.loop_alts(iters),
            _ => &[0],
        }
    }

    fn loop_alts(&self, iters: u32) -> &'static [u8] {
        if iters < self.loop_bound {
            &[0, 1]
        } else {
            &[1]
        }
    }

    /// Whether the thread's next step is *local*: it reads and writes only the thread's own
    /// locals and control (no heap, lock, thread or capsule operation, no event). A local
    /// step commutes with every step of every other thread, which is what lets the explorer
    /// run it eagerly (`Config::eager_local`).
    pub fn is_local(&self, st: &State<'p>, t: ThreadId) -> bool {
        match st.action(t) {
            Some(Action::LoopHead(..)) => true,
            Some(Action::Stmt(s)) => match &s.kind {
                StmtKind::Skip
                | StmtKind::Assign { .. }
                | StmtKind::Rename { .. }
                | StmtKind::New { .. }
                | StmtKind::NewArray { .. }
                | StmtKind::If { .. }
                | StmtKind::While { .. }
                | StmtKind::Loop { .. }
                | StmtKind::Break
                | StmtKind::Assume(_)
                | StmtKind::Assert(_) => true,
                StmtKind::Return(_) => st.frame(t).capsule.is_none(),
                StmtKind::Call { recv, args, .. } => {
                    // Path actuals read the heap (without an access event), and capsule
                    // calls enter a capsule: neither is local.
                    let receiver_ok = match recv {
                        None => true,
                        Some(r) => matches!(st.obj_of(t, r), Ok(o) if !self.is_capsule(st, o)),
                    };
                    receiver_ok && !args.iter().any(|a| matches!(a, Expr::Path(_)))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether the thread's next step is a check (of one address or of the first of several),
    /// which the naive explorer may run eagerly (`Config::eager_checks`).
    pub fn is_check(&self, st: &State<'p>, t: ThreadId) -> bool {
        match st.action(t) {
            Some(Action::Check(..)) => true,
            Some(Action::Stmt(s)) => matches!(s.kind, StmtKind::Check(_)),
            _ => false,
        }
    }

    /// The lines of the call statements on the thread's stack, outermost first (the bottom
    /// frame is the thread's own body and has no call site).
    pub fn call_sites(&self, st: &State<'p>, t: ThreadId) -> Vec<u32> {
        st.threads[idx_t(t)].frames.iter().skip(1).map(|f| f.line.0).collect()
    }

    /// The lock acquire or capsule entry the thread's next step attempts, whether or not it
    /// is enabled now: a step that waits for a lock or a capsule (or, under CapJava's
    /// capFree, faults for want of an ordering) still conflicts with the sections that
    /// disable it, and DPOR must be able to reverse them (`explore::dpor`).
    pub fn next_sync(&self, st: &State<'p>, t: ThreadId) -> Option<EventKind> {
        match st.action(t)? {
            Action::Enter(k, _) => Some(EventKind::Enter(k)),
            Action::Stmt(s) => match &s.kind {
                StmtKind::Lock => Some(EventKind::Acquire(LockId::Global)),
                StmtKind::Acq(x) | StmtKind::Sync { lock: x, .. } => st.obj_of(t, x).ok().map(|o| EventKind::Acquire(LockId::Obj(o))),
                StmtKind::Call { recv: Some(r), .. } => st.obj_of(t, r).ok().filter(|&o| self.is_capsule(st, o)).map(EventKind::Enter),
                _ => None,
            },
            _ => None,
        }
    }

    /// The thread a `join(h)` that is the thread's next step waits for, whether or not it
    /// has finished, when `h` holds a thread handle. A detector that performs a program's
    /// synchronization itself (the loom driver, `drivers/loom`) must block on the target
    /// *before* the machine's join step, which is disabled until the target is done.
    pub fn next_join(&self, st: &State<'p>, t: ThreadId) -> Option<ThreadId> {
        let Some(Action::Stmt(Stmt { kind: StmtKind::Join(h), .. })) = st.action(t) else { return None };
        match st.local(t, h) {
            Ok(Value::Thread(u)) => Some(u),
            _ => None,
        }
    }

    /// The atomic statement that is the thread's next step, with its place resolved and its
    /// operands evaluated: `[val]` for a store or an RMW, `[expected, new]` for a CAS, none
    /// for a load or a fence. `None` when the next step is no atomic statement, or its place
    /// or operands fault (the step then faults too). A detector that performs a program's
    /// atomics itself (the loom driver, `drivers/loom`) must perform the operation *before*
    /// the machine's step: loom may switch threads inside it, and the step must see what the
    /// other threads did meanwhile. The operands read only the thread's locals, so they are
    /// the same then.
    pub fn next_atomic(&self, st: &State<'p>, t: ThreadId) -> Option<(&'p Atomic, Option<Addr>, Vec<Value>)> {
        let Some(Action::Stmt(Stmt { kind: StmtKind::Atomic(a), .. })) = st.action(t) else { return None };
        let addr = match a.place() {
            Some(p) => Some(self.resolve(st, t, p).ok()?),
            None => None,
        };
        let operands = match a {
            Atomic::Store { val, .. } | Atomic::Rmw { val, .. } => vec![st.eval(t, val).ok()?],
            Atomic::Cas { expected, new, .. } => vec![st.eval(t, expected).ok()?, st.eval(t, new).ok()?],
            Atomic::Load { .. } | Atomic::Fence(_) => vec![],
        };
        Some((a, addr, operands))
    }

    /// The access the thread's next step makes, if its next statement is a load or store
    /// whose address resolves now (used for Def. 3.6).
    pub fn next_access(&self, st: &State<'p>, t: ThreadId) -> Option<(AccessKind, Addr, u32)> {
        let Some(Action::Stmt(s)) = st.action(t) else { return None };
        let (kind, place) = match &s.kind {
            StmtKind::Load { src, .. } => (AccessKind::Read, src),
            StmtKind::Store { dst, .. } => (AccessKind::Write, dst),
            _ => return None,
        };
        let addr = self.resolve(st, t, place).ok()?;
        match self.read(st, t, addr) {
            Ok(_) => {}
            // A store does not read the cell, nor a dead load (`liveness`) its value, so an
            // undetermined initial value is no obstacle.
            Err(Disabled::NeedChoice(LazyRef::Cell(..))) if kind == AccessKind::Write || self.dead_load(s) => {}
            Err(_) => return None,
        }
        Some((kind, addr, s.line.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    #[test]
    fn alternatives_of_if_star_and_while_star_up_to_the_bound() {
        let p = parse("dialect bfj\ninit { o = new }\nthread { if * { skip }; while * { o.f = 1 }; if true { skip } }\n").unwrap();
        let m = Machine::new(&p, 1);
        let mut st = m.initial_state().unwrap();
        let t = thread_id(0);
        assert_eq!(m.alternatives(&st, t), [0, 1], "if *");
        m.step(&mut st, t, 1).unwrap();
        assert_eq!(m.alternatives(&st, t), [0, 1], "while * below K");
        m.step(&mut st, t, 0).unwrap();
        assert_eq!(m.alternatives(&st, t), [0], "the store");
        m.step(&mut st, t, 0).unwrap();
        assert_eq!(m.alternatives(&st, t), [1], "the loop head at K = 1 only exits");
        m.step(&mut st, t, 1).unwrap();
        assert_eq!(m.alternatives(&st, t), [0], "if with a condition");
    }

    #[test]
    fn next_join_names_the_target_before_it_finishes() {
        let p = parse("dialect bfj2\ninit { o = new }\nthread { h = fork { o.f = 1 }; join(h) }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let t = thread_id(0);
        assert_eq!(m.next_join(&st, t), None, "the fork");
        assert_eq!(m.step(&mut st, t, 0), Ok(Some(EventKind::Fork(thread_id(1)))));
        assert_eq!(m.next_join(&st, t), Some(thread_id(1)), "join(h) while h runs");
        assert!(matches!(m.step(&mut st, t, 0), Err(Disabled::Blocked(_))));
    }

    #[test]
    fn next_atomic_resolves_the_place_and_evaluates_the_operands() {
        let p = parse("dialect bfj2\ninit { o = new }\nthread { v = 3; o.f.store(v, release); ok = o.f.cas(3, v + 1, acq_rel, acquire); fence(seq_cst) }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let t = thread_id(0);
        assert!(m.next_atomic(&st, t).is_none(), "an assignment");
        m.step(&mut st, t, 0).unwrap();
        let f = Some(Addr::Field(ObjId(0), m.field("f").unwrap()));
        let (a, addr, ops) = m.next_atomic(&st, t).unwrap();
        assert!(matches!(a, Atomic::Store { order: Order::Release, .. }) && addr == f && ops == [Value::Int(3)]);
        m.step(&mut st, t, 0).unwrap();
        let (a, addr, ops) = m.next_atomic(&st, t).unwrap();
        assert!(matches!(a, Atomic::Cas { .. }) && addr == f && ops == [Value::Int(3), Value::Int(4)]);
        m.step(&mut st, t, 0).unwrap();
        assert!(matches!(m.next_atomic(&st, t), Some((Atomic::Fence(Order::SeqCst), None, ops)) if ops.is_empty()));
    }

    #[test]
    fn local_steps_and_next_accesses() {
        let p = parse("dialect racerdx\nmethod m(arg1) { x = arg1; lock; x.f = x; t = x.g; unlock }\n").unwrap();
        let m = Machine::new(&p, 2);
        let o = m.record("b".into(), None);
        let mut st = m.method_threads(&["m"], vec![o], &[vec![Some(Value::Obj(ObjId(0)))]]).unwrap();
        let t = thread_id(0);
        let (f, g) = (m.field("f").unwrap(), m.field("g").unwrap());
        assert!(m.is_local(&st, t) && m.next_access(&st, t).is_none());
        m.step(&mut st, t, 0).unwrap();
        assert!(!m.is_local(&st, t), "lock");
        m.step(&mut st, t, 0).unwrap();
        // A store to an undetermined cell is an access now; a load of one needs a choice first.
        assert_eq!(m.next_access(&st, t), Some((AccessKind::Write, Addr::Field(ObjId(0), f), 2)));
        assert!(!m.is_local(&st, t));
        m.step(&mut st, t, 0).unwrap();
        assert_eq!(m.next_access(&st, t), None);
        st.resolve_lazy(&m, LazyRef::Cell(ObjId(0), g), Some(ObjId(0)));
        assert_eq!(m.next_access(&st, t), Some((AccessKind::Read, Addr::Field(ObjId(0), g), 2)));
        assert_eq!((m.next_line(&st, t), m.call_sites(&st, t)), (Some(2), vec![]));
    }
}
