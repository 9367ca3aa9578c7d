//! The step function: one action of one thread, yielding at most one event. [`Machine::step`]
//! dispatches on the thread's next action, [`Machine::exec`] on the statement kind; each
//! rule is a small function here (local statements, heap accesses, control flow, `check`,
//! `assume`/`assert`), in `sync` (locks, capsules) or in `call` (calls, returns, fork/join).
//! Every rule makes all the checks that can fail before its first mutation, so a disabled
//! step leaves the state unchanged. Nondeterministic `if *` and `while *` take the
//! alternative the explorer chose (0 = then/iterate, 1 = else/exit; see
//! [`Machine::alternatives`]); `while *` iterates at most K = [`Machine::loop_bound`] times.
//!
//! Deviations from the papers:
//! 1. Every statement is one scheduling point, silent ones included (`x = y`, `if *`, a loop
//!    head). The papers' states are a subset of ours (a branch choice "adds no step" there), and
//!    every state of ours has the same heap and stores as one of theirs, so the set of
//!    reachable (heap, next-command) pairs, hence races under either definition, is the same.
//!    Execution counts are therefore counts of *our* interleavings (see `tests/explore.rs`).
//! 2. A BFJ `check` of several addresses (E-CHKSET) is one step per address: the first event
//!    comes with the statement, the rest wait in a `Checks` continuation.

use super::*;
use crate::lang::*;

impl<'p> Machine<'p> {
    /// [`Machine::step`], also returning every heap address the step read, including what
    /// yields no event: path prefixes (`x.f` of `x.f.g`) and path actuals. An explorer that
    /// reorders steps (`explore::dpor`) needs the whole footprint, not just the event.
    ///
    /// # Errors
    /// As [`Machine::step`].
    pub fn step_reading(&self, st: &mut State<'p>, t: ThreadId, alt: u8) -> (Step<Option<EventKind>>, Vec<Addr>) {
        let mut reads = vec![];
        let r = self.step_reading_into(st, t, alt, &mut reads);
        (r, reads)
    }

    /// [`Machine::step_reading`], with the addresses read written into `reads` (cleared
    /// first), so that a caller stepping many times reuses one buffer.
    ///
    /// # Errors
    /// As [`Machine::step`].
    pub fn step_reading_into(&self, st: &mut State<'p>, t: ThreadId, alt: u8, reads: &mut Vec<Addr>) -> Step<Option<EventKind>> {
        reads.clear();
        *self.reads.borrow_mut() = Some(std::mem::take(reads));
        let r = self.step(st, t, alt);
        *reads = self.reads.borrow_mut().take().unwrap_or_default();
        r
    }

    /// Executes thread `t`'s next action with alternative `alt`, returning its event.
    /// On `Err`, the state is unchanged.
    ///
    /// # Errors
    /// [`Disabled`] says why `t` cannot step now.
    pub fn step(&self, st: &mut State<'p>, t: ThreadId, alt: u8) -> Step<Option<EventKind>> {
        let action = st.action(t).ok_or_else(|| Disabled::Blocked("thread has finished".into()))?;
        let ev = match action {
            Action::Stmt(s) => self.exec(st, t, s, alt)?,
            Action::LoopHead(s, iters) => self.loop_head(st, t, s, iters, alt)?,
            Action::Release(lock, _) => self.sync_release(st, t, lock)?,
            Action::Enter(k, _) => self.forked_enter(st, t, k)?,
            Action::CapExit(k, _) => self.exit(st, t, k)?,
            Action::Check(kind, addr, _) => st.next_check(t, kind, addr),
        };
        st.settle(t);
        if let (Some(cf), Some(ev)) = (&mut st.capfree, ev) {
            std::rc::Rc::make_mut(cf).apply(t, ev);
        }
        Ok(ev)
    }

    /// Executes one statement.
    pub(super) fn exec(&self, st: &mut State<'p>, t: ThreadId, s: &'p Stmt, alt: u8) -> Step<Option<EventKind>> {
        let line = s.line;
        match &s.kind {
            StmtKind::Skip => Ok(st.assign(t, None)),
            // Naik-Aiken's statements run on the instrumented semantics (a module above this
            // one), which has the loop vectors and effects this machine lacks.
            StmtKind::Read(_) | StmtKind::Append { .. } | StmtKind::Pick { .. } | StmtKind::Nondet { .. } => {
                Err(Disabled::Fault("`read`, `x[+] = y`, `x = y[*]` and `nondet` belong to the naikaiken and ldrf dialects, which run on their own semantics".into()))
            }
            StmtKind::Assign { dst, src } => {
                let v = st.eval(t, src)?;
                Ok(st.assign(t, Some((dst, v))))
            }
            StmtKind::Rename { dst, src } => {
                let v = st.local(t, src)?;
                Ok(st.assign(t, Some((dst, v))))
            }
            StmtKind::New { dst, class, .. } => {
                let o = self.alloc_object(st, t, dst, class.as_deref());
                Ok(st.assign(t, Some((dst, Value::Obj(o)))))
            }
            StmtKind::NewArray { dst, len } => {
                let n = st.eval(t, len)?;
                let o = self.alloc_array(st, t, dst, n)?;
                Ok(st.assign(t, Some((dst, Value::Obj(o)))))
            }
            StmtKind::Load { dst, src } => self.load(st, t, dst, src, self.dead_load(s)),
            StmtKind::Store { dst, src } => self.store(st, t, dst, src),
            StmtKind::Lock => self.lock(st, t),
            StmtKind::Unlock => self.unlock(st, t),
            StmtKind::Acq(x) => self.acq(st, t, x),
            StmtKind::Sync { lock, body } => self.sync(st, t, lock, body, line),
            StmtKind::Rel(x) => self.rel(st, t, x),
            StmtKind::If { cond, then_b, else_b } => self.branch(st, t, cond, then_b, else_b, alt),
            StmtKind::While { cond, .. } => self.while_test(st, t, s, cond, alt),
            StmtKind::Loop { .. } => Ok(st.enter_loop(t, s)),
            StmtKind::Break => Ok(st.break_loop(t)),
            StmtKind::Call { dst, recv, method, args } => self.call(st, t, dst.as_deref(), recv.as_deref(), method, args, line),
            StmtKind::Return(e) => self.ret(st, t, e.as_ref()),
            StmtKind::Fork { dst, target } => self.fork(st, t, dst.as_deref(), target, line),
            StmtKind::Join(h) => self.join(st, t, h),
            StmtKind::Check(items) => self.check(st, t, items, line),
            StmtKind::Assume(e) => match st.eval(t, e)? {
                Value::Bool(true) => Ok(st.assign(t, None)),
                Value::Bool(false) => Err(Disabled::Infeasible),
                v => fault(format!("assume of {v:?}, not a boolean")),
            },
            StmtKind::Assert(e) => match st.eval(t, e)? {
                Value::Bool(true) => Ok(st.assign(t, None)),
                Value::Bool(false) => fault("assertion failed"),
                v => fault(format!("assert of {v:?}, not a boolean")),
            },
            StmtKind::Atomic(a) => self.atomic(st, t, a),
        }
    }

    // ===== heap accesses =====

    /// `dst = place`: a read event.
    fn load(&self, st: &mut State<'p>, t: ThreadId, dst: &'p str, src: &Place, dead: bool) -> Step<Option<EventKind>> {
        let addr = self.resolve(st, t, src)?;
        let v = match self.read(st, t, addr) {
            // Nobody reads the value (`liveness`): the cell stays undetermined.
            Err(Disabled::NeedChoice(LazyRef::Cell(..))) if dead => Value::Null,
            r => r?,
        };
        st.assign(t, Some((dst, v)));
        Ok(Some(EventKind::Access(AccessKind::Read, addr)))
    }

    /// `place = e`: a write event.
    fn store(&self, st: &mut State<'p>, t: ThreadId, dst: &Place, src: &Expr) -> Step<Option<EventKind>> {
        let v = st.eval(t, src)?;
        let addr = self.resolve(st, t, dst)?;
        self.writable(st, t, addr)?;
        st.advance(t);
        st.write(addr, v);
        Ok(Some(EventKind::Access(AccessKind::Write, addr)))
    }

    /// `check(items)` (E-CHKSET): the first address's event now, the rest one step each.
    fn check(&self, st: &mut State<'p>, t: ThreadId, items: &[CheckItem], line: Line) -> Step<Option<EventKind>> {
        let mut addrs = self.check_addrs(st, t, items)?;
        st.advance(t);
        if addrs.is_empty() {
            return Ok(None);
        }
        let first = addrs.remove(0);
        if !addrs.is_empty() {
            addrs.reverse();
            st.frame_mut(t).conts.push(Cont::Checks { rest: addrs, line });
        }
        Ok(Some(EventKind::Check(first.0, first.1)))
    }

    // ===== control flow =====

    /// The value of a condition; `*` is the explorer's choice `alt`.
    pub(super) fn cond(&self, st: &State<'p>, t: ThreadId, c: &Cond, alt: u8) -> Step<bool> {
        match c {
            Cond::Star => Ok(alt == 0),
            Cond::Expr(e) => match st.eval(t, e)? {
                Value::Bool(b) => Ok(b),
                v => fault(format!("condition is {v:?}, not a boolean")),
            },
        }
    }

    /// `if c { then_b } else { else_b }`.
    fn branch(&self, st: &mut State<'p>, t: ThreadId, c: &Cond, then_b: &'p [Stmt], else_b: &'p [Stmt], alt: u8) -> Step<Option<EventKind>> {
        let b = if self.cond(st, t, c, alt)? { then_b } else { else_b };
        st.advance(t);
        st.frame_mut(t).conts.push(Cont::Seq { block: b, pc: 0 });
        Ok(None)
    }

    /// The first test of `while c { .. }`.
    fn while_test(&self, st: &mut State<'p>, t: ThreadId, s: &'p Stmt, c: &Cond, alt: u8) -> Step<Option<EventKind>> {
        let go = self.cond(st, t, c, alt)?;
        if go {
            return Ok(st.enter_loop(t, s));
        }
        st.advance(t);
        if self.cuts_loop_at(s, 0) {
            st.loop_bound_hit = true;
        }
        Ok(None)
    }

    /// A loop head after `iters` iterations: `loop` always iterates, `while` tests again.
    fn loop_head(&self, st: &mut State<'p>, t: ThreadId, s: &'p Stmt, iters: u32, alt: u8) -> Step<Option<EventKind>> {
        let go = match &s.kind {
            StmtKind::While { cond, .. } => self.cond(st, t, cond, alt)?,
            _ => true,
        };
        let fr = st.frame_mut(t);
        fr.conts.pop();
        if go {
            fr.conts.push(Cont::Loop { stmt: s, iters: iters + 1 });
            fr.conts.push(Cont::Seq { block: loop_body(s), pc: 0 });
        } else if self.cuts_loop_at(s, iters) {
            st.loop_bound_hit = true;
        }
        Ok(None)
    }

    /// Whether leaving `while *` after `iters` iterations is the bound's doing, not a choice.
    pub(super) fn cuts_loop_at(&self, s: &Stmt, iters: u32) -> bool {
        matches!(s.kind, StmtKind::While { cond: Cond::Star, .. }) && iters >= self.loop_bound
    }
}

impl<'p> State<'p> {
    /// Moves past a silent statement, assigning a local if asked.
    fn assign(&mut self, t: ThreadId, local: Option<(&'p str, Value)>) -> Option<EventKind> {
        self.advance(t);
        if let Some((x, v)) = local {
            self.set_local(t, x, v);
        }
        None
    }

    /// Starts the first iteration of the loop statement `s`.
    fn enter_loop(&mut self, t: ThreadId, s: &'p Stmt) -> Option<EventKind> {
        self.advance(t);
        let fr = self.frame_mut(t);
        fr.conts.push(Cont::Loop { stmt: s, iters: 1 });
        fr.conts.push(Cont::Seq { block: loop_body(s), pc: 0 });
        None
    }

    /// `break`: pops continuations up to and including the innermost loop.
    fn break_loop(&mut self, t: ThreadId) -> Option<EventKind> {
        let fr = self.frame_mut(t);
        while let Some(c) = fr.conts.pop() {
            if matches!(c, Cont::Loop { .. }) {
                break;
            }
        }
        None
    }

    /// The next address of a multi-address `check`.
    fn next_check(&mut self, t: ThreadId, kind: AccessKind, addr: Addr) -> Option<EventKind> {
        let fr = self.frame_mut(t);
        if let Some(Cont::Checks { rest, .. }) = fr.conts.last_mut() {
            rest.pop();
            if rest.is_empty() {
                fr.conts.pop();
            }
        }
        Some(EventKind::Check(kind, addr))
    }
}

/// The body of a `while` or `loop` statement.
pub(super) fn loop_body(s: &Stmt) -> &[Stmt] {
    match &s.kind {
        StmtKind::While { body, .. } | StmtKind::Loop { body, .. } => body,
        _ => unreachable!("racefuzz internal bug: loop head on a non-loop statement"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    fn machine_run(src: &str, k: u32, alts: &[u8]) -> (Vec<Step<Option<EventKind>>>, bool, Status) {
        let p = parse(src).unwrap();
        let m = Machine::new(&p, k);
        let mut st = m.initial_state().unwrap();
        let evs = alts.iter().map(|a| m.step(&mut st, thread_id(0), *a)).collect();
        (evs, st.loop_bound_hit, st.threads[0].status.clone())
    }

    const W: Step<Option<EventKind>> = Ok(Some(EventKind::Access(AccessKind::Write, Addr::Field(ObjId(0), FieldId(0)))));
    const G: Step<Option<EventKind>> = Ok(Some(EventKind::Access(AccessKind::Write, Addr::Field(ObjId(0), FieldId(1)))));

    #[test]
    fn if_star_takes_the_chosen_branch() {
        let src = "dialect bfj\ninit { o = new }\nthread { if * { o.f = 1 } else { o.g = 1 } }\n";
        assert_eq!(machine_run(src, 2, &[0, 0]).0, [Ok(None), W]);
        assert_eq!(machine_run(src, 2, &[1, 0]).0, [Ok(None), G]);
    }

    #[test]
    fn while_star_iterates_at_most_k_times() {
        let src = "dialect bfj\ninit { o = new }\nthread { while * { o.f = 1 } }\n";
        // K = 1: iterate once, then the head may only exit, and the cut is recorded.
        let (evs, hit, status) = machine_run(src, 1, &[0, 0, 1]);
        assert_eq!((evs, hit, status), (vec![Ok(None), W, Ok(None)], true, Status::Done));
        // Leaving before the bound is a choice, not a cut.
        let (evs, hit, status) = machine_run(src, 2, &[0, 0, 1]);
        assert_eq!((evs, hit, status), (vec![Ok(None), W, Ok(None)], false, Status::Done));
        // K = 0: the loop is cut at once.
        assert!(machine_run(src, 0, &[1]).1);
    }

    #[test]
    fn loops_break_and_conditions() {
        let src = "dialect bfj\ninit { o = new }\nthread { i = 0; loop { if i >= 2 break; o.f = i; i = i + 1 }; o.g = i }\n";
        let p = parse(src).unwrap();
        let m = Machine::new(&p, 0);
        let mut st = m.initial_state().unwrap();
        let mut evs = vec![];
        while st.threads[0].status == Status::Running {
            if let Some(e) = m.step(&mut st, thread_id(0), 0).unwrap() {
                evs.push(e);
            }
        }
        assert_eq!(evs.len(), 3, "{evs:?}");
        assert_eq!((st.objects[0].fields.clone(), st.loop_bound_hit), (vec![Cell::Val(Value::Int(1)), Cell::Val(Value::Int(2))], false));
        let (evs, ..) = machine_run("dialect bfj\nthread { if 1 { skip } }\n", 2, &[0]);
        assert_eq!(evs, [Err(Disabled::Fault("condition is Int(1), not a boolean".into()))]);
    }

    #[test]
    fn check_is_one_event_per_address() {
        let src = "dialect bfj\ninit { o = new }\nthread { check(R: o.f/g, W: o.g) }\n";
        let (evs, _, status) = machine_run(src, 2, &[0, 0, 0]);
        let c = |k, f| Ok(Some(EventKind::Check(k, Addr::Field(ObjId(0), FieldId(f)))));
        assert_eq!(evs, [c(AccessKind::Read, 0), c(AccessKind::Read, 1), c(AccessKind::Write, 1)]);
        assert_eq!(status, Status::Done);
    }

    #[test]
    fn assume_and_assert() {
        let (evs, ..) = machine_run("dialect bfj\nthread { assume true; assume false }\n", 2, &[0, 0]);
        assert_eq!(evs, [Ok(None), Err(Disabled::Infeasible)]);
        let (evs, ..) = machine_run("dialect bfj\nthread { assert 1 == 1; assert false }\n", 2, &[0, 0]);
        assert_eq!(evs, [Ok(None), Err(Disabled::Fault("assertion failed".into()))]);
    }

    #[test]
    fn a_disabled_step_changes_nothing() {
        let p = parse("dialect bfj\ninit { o = new; n = null }\nthread { o.f = 1; t = n.f }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        m.step(&mut st, thread_id(0), 0).unwrap();
        let before = format!("{st:?}");
        assert!(m.step(&mut st, thread_id(0), 0).is_err());
        assert_eq!(format!("{st:?}"), before);
    }
}
