//! The step function: one statement of one thread, yielding at most one event (the rules
//! per dialect are listed in the `state` module's docs).

use super::*;
use crate::lang::*;

impl<'p> Machine<'p> {
    /// Executes thread `t`'s next action with alternative `alt`, returning its event.
    /// On `Err`, the state is unchanged.
    ///
    /// # Errors
    /// [`Disabled`] says why `t` cannot step now.
    pub fn step(&self, st: &mut State<'p>, t: ThreadId, alt: u8) -> Step<Option<EventKind>> {
        let action = st.action(t).ok_or_else(|| Disabled::Blocked("thread has finished".into()))?;
        let ev = match action {
            Action::Stmt(s) => self.exec(st, t, s, alt)?,
            Action::LoopHead(s, iters) => {
                let go = match &s.kind {
                    StmtKind::While { cond, .. } => self.cond(st, t, cond, alt)?,
                    _ => true,
                };
                let fr = st.frame_mut(t);
                fr.conts.pop();
                if go {
                    let body = loop_body(s);
                    fr.conts.push(Cont::Loop { stmt: s, iters: iters + 1 });
                    fr.conts.push(Cont::Seq { block: body, pc: 0 });
                } else if self.cuts_loop_at(s, iters) {
                    st.loop_bound_hit = true;
                }
                None
            }
            Action::Release(lock, _) => {
                if st.objects[idx(lock)].lock_owner != Some(t) {
                    return fault("release of a lock the thread does not hold");
                }
                st.objects[idx(lock)].lock_owner = None;
                st.frame_mut(t).conts.pop();
                Some(EventKind::Release(LockId::Obj(lock)))
            }
            Action::Enter(k, _) => {
                st.enter_capsule(t, k)?;
                st.frame_mut(t).conts.pop();
                st.frame_mut(t).capsule = Some(k);
                Some(EventKind::Enter(k))
            }
            Action::CapExit(k, _) => {
                st.return_from(t, Value::Null);
                Some(EventKind::Exit(k))
            }
            Action::Check(kind, addr, _) => {
                let fr = st.frame_mut(t);
                if let Some(Cont::Checks { rest, .. }) = fr.conts.last_mut() {
                    rest.pop();
                    if rest.is_empty() {
                        fr.conts.pop();
                    }
                }
                Some(EventKind::Check(kind, addr))
            }
        };
        st.settle(t);
        if let (Some(cf), Some(ev)) = (&mut st.capfree, ev) {
            cf.apply(t, ev);
        }
        Ok(ev)
    }

    pub(super) fn cuts_loop_at(&self, s: &Stmt, iters: u32) -> bool {
        matches!(s.kind, StmtKind::While { cond: Cond::Star, .. }) && iters >= self.loop_bound
    }

    pub(super) fn cond(&self, st: &State<'p>, t: ThreadId, c: &Cond, alt: u8) -> Step<bool> {
        match c {
            Cond::Star => Ok(alt == 0),
            Cond::Expr(e) => match st.eval(t, e)? {
                Value::Bool(b) => Ok(b),
                v => fault(format!("condition is {v:?}, not a boolean")),
            },
        }
    }

    /// Executes one statement. Every check that can fail comes before the first mutation.
    pub(super) fn exec(&self, st: &mut State<'p>, t: ThreadId, s: &'p Stmt, alt: u8) -> Step<Option<EventKind>> {
        let line = s.line;
        match &s.kind {
            StmtKind::Skip => {
                st.advance(t);
                Ok(None)
            }
            StmtKind::Assign { dst, src } => {
                let v = st.eval(t, src)?;
                st.advance(t);
                st.set_local(t, dst, v);
                Ok(None)
            }
            StmtKind::Rename { dst, src } => {
                let v = st.local(t, src)?;
                st.advance(t);
                st.set_local(t, dst, v);
                Ok(None)
            }
            StmtKind::New { dst, class, .. } => {
                let class_idx = class.as_ref().and_then(|c| self.program.classes.iter().position(|d| &d.name == c));
                let name = st.fresh_name(t, dst);
                let id = ObjId(u32::try_from(st.objects.len()).unwrap_or(u32::MAX));
                let init = match self.sem.field_init {
                    FieldInit::SelfLoop => Value::Obj(id),
                    FieldInit::Null => Value::Null,
                    FieldInit::Zero => Value::Int(0),
                };
                let fields = match class_idx {
                    Some(ci) => {
                        let declared = &self.program.classes[ci].fields;
                        self.fields.iter().map(|f| if declared.contains(f) { Cell::Val(init) } else { Cell::Absent }).collect()
                    }
                    None => vec![Cell::Val(init); self.fields.len()],
                };
                st.objects.push(Object { name, class: class_idx, fields, elems: None, lock_owner: None, capsule_holder: None, initial: false });
                st.advance(t);
                st.set_local(t, dst, Value::Obj(id));
                Ok(None)
            }
            StmtKind::NewArray { dst, len } => {
                let n = match st.eval(t, len)? {
                    Value::Int(n) if (0..=1024).contains(&n) => n,
                    v => return fault(format!("array length {v:?} is not an integer in 0..=1024")),
                };
                let init = match self.sem.field_init {
                    FieldInit::Null => Value::Null,
                    _ => Value::Int(0),
                };
                let name = st.fresh_name(t, dst);
                let id = ObjId(u32::try_from(st.objects.len()).unwrap_or(u32::MAX));
                let elems = vec![init; usize::try_from(n).unwrap_or(0)];
                st.objects.push(Object {
                    name,
                    class: None,
                    fields: vec![Cell::Absent; self.fields.len()],
                    elems: Some(elems),
                    lock_owner: None,
                    capsule_holder: None,
                    initial: false,
                });
                st.advance(t);
                st.set_local(t, dst, Value::Obj(id));
                Ok(None)
            }
            StmtKind::Load { dst, src } => {
                let addr = st.resolve(self, t, src)?;
                let v = st.check_cell(self, t, addr)?;
                st.advance(t);
                st.set_local(t, dst, v);
                Ok(Some(EventKind::Access(AccessKind::Read, addr)))
            }
            StmtKind::Store { dst, src } => {
                let v = st.eval(t, src)?;
                let addr = st.resolve(self, t, dst)?;
                match st.check_cell(self, t, addr) {
                    // Writing an undetermined initial cell needs no choice: its old value is dead.
                    Ok(_) | Err(Disabled::NeedChoice(LazyRef::Cell(..))) => {}
                    Err(e) => return Err(e),
                }
                st.advance(t);
                st.write(addr, v);
                Ok(Some(EventKind::Access(AccessKind::Write, addr)))
            }
            StmtKind::Lock => {
                if let Some(u) = st.threads.iter().enumerate().find(|(i, u)| u.depth > 0 && *i != idx_t(t)) {
                    return Err(Disabled::Blocked(format!("global lock held by {}", u.1.name)));
                }
                st.advance(t);
                st.threads[idx_t(t)].depth += 1;
                Ok(Some(EventKind::Acquire(LockId::Global)))
            }
            StmtKind::Unlock => {
                if st.threads[idx_t(t)].depth == 0 {
                    return fault("unlock at lock depth 0");
                }
                st.advance(t);
                st.threads[idx_t(t)].depth -= 1;
                Ok(Some(EventKind::Release(LockId::Global)))
            }
            StmtKind::Acq(x) => {
                let o = st.lockable(self, t, x)?;
                st.advance(t);
                st.objects[idx(o)].lock_owner = Some(t);
                Ok(Some(EventKind::Acquire(LockId::Obj(o))))
            }
            StmtKind::Sync { lock, body } => {
                let o = st.lockable(self, t, lock)?;
                st.advance(t);
                st.objects[idx(o)].lock_owner = Some(t);
                let fr = st.frame_mut(t);
                fr.conts.push(Cont::Release { lock: o, line });
                fr.conts.push(Cont::Seq { block: body, pc: 0 });
                Ok(Some(EventKind::Acquire(LockId::Obj(o))))
            }
            StmtKind::Rel(x) => {
                let o = st.obj_of(t, x)?;
                if self.is_capsule(st, o) {
                    return fault("a capsule cannot be used as a lock");
                }
                if st.objects[idx(o)].lock_owner != Some(t) {
                    return fault(format!("rel({x}) of a lock the thread does not hold"));
                }
                st.advance(t);
                st.objects[idx(o)].lock_owner = None;
                Ok(Some(EventKind::Release(LockId::Obj(o))))
            }
            StmtKind::If { cond, then_b, else_b } => {
                let b = if self.cond(st, t, cond, alt)? { then_b } else { else_b };
                st.advance(t);
                st.frame_mut(t).conts.push(Cont::Seq { block: b, pc: 0 });
                Ok(None)
            }
            StmtKind::While { cond, body, .. } => {
                let go = self.cond(st, t, cond, alt)?;
                st.advance(t);
                if go {
                    let fr = st.frame_mut(t);
                    fr.conts.push(Cont::Loop { stmt: s, iters: 1 });
                    fr.conts.push(Cont::Seq { block: body, pc: 0 });
                } else if self.cuts_loop_at(s, 0) {
                    st.loop_bound_hit = true;
                }
                Ok(None)
            }
            StmtKind::Loop { body, .. } => {
                st.advance(t);
                let fr = st.frame_mut(t);
                fr.conts.push(Cont::Loop { stmt: s, iters: 1 });
                fr.conts.push(Cont::Seq { block: body, pc: 0 });
                Ok(None)
            }
            StmtKind::Break => {
                let fr = st.frame_mut(t);
                while let Some(c) = fr.conts.pop() {
                    if matches!(c, Cont::Loop { .. }) {
                        break;
                    }
                }
                Ok(None)
            }
            StmtKind::Call { dst, recv, method, args } => self.call(st, t, dst.as_deref(), recv.as_deref(), method, args, line),
            StmtKind::Return(e) => {
                let v = match e {
                    Some(e) => st.eval(t, e)?,
                    None => Value::Null,
                };
                let cap = st.frame(t).capsule;
                st.return_from(t, v);
                Ok(cap.map(EventKind::Exit))
            }
            StmtKind::Fork { dst, target } => self.fork(st, t, dst.as_deref(), target, line),
            StmtKind::Join(h) => {
                let u = match st.local(t, h)? {
                    Value::Thread(u) => u,
                    v => return fault(format!("join of {v:?}, not a thread handle")),
                };
                if st.threads[idx_t(u)].status != Status::Done {
                    return Err(Disabled::Blocked(format!("waiting for {} to finish", st.threads[idx_t(u)].name)));
                }
                st.advance(t);
                Ok(Some(EventKind::Join(u)))
            }
            StmtKind::Check(items) => {
                // E-CHKSET: one check event per address, each its own step; the rest wait
                // in a `Checks` continuation.
                let mut addrs = st.check_addrs(self, t, items)?;
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
            StmtKind::Assume(e) => match st.eval(t, e)? {
                Value::Bool(true) => {
                    st.advance(t);
                    Ok(None)
                }
                Value::Bool(false) => Err(Disabled::Infeasible),
                v => fault(format!("assume of {v:?}, not a boolean")),
            },
            StmtKind::Assert(e) => match st.eval(t, e)? {
                Value::Bool(true) => {
                    st.advance(t);
                    Ok(None)
                }
                Value::Bool(false) => fault("assertion failed"),
                v => fault(format!("assert of {v:?}, not a boolean")),
            },
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn call(&self, st: &mut State<'p>, t: ThreadId, dst: Option<&'p str>, recv: Option<&'p str>, method: &str, args: &'p [Expr], line: Line) -> Step<Option<EventKind>> {
        let this = match recv {
            Some(r) => Some(st.obj_of(t, r)?),
            None => None,
        };
        let m = self.lookup_arity(st, this, method, args.len())?;
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(st.eval_arg(self, t, a)?);
        }
        let capsule = this.filter(|o| self.is_capsule(st, *o));
        if let Some(k) = capsule {
            st.enter_capsule(t, k)?;
        }
        st.advance(t);
        let mut locals: Vec<(&str, Option<Value>)> = m.params.iter().map(|p| p.as_str()).zip(vals.into_iter().map(Some)).collect();
        if let Some(o) = this {
            locals.push(("this", Some(Value::Obj(o))));
        }
        let mut fr = Frame::new(locals, &m.body, dst, line);
        fr.capsule = capsule;
        st.threads[idx_t(t)].frames.push(fr);
        Ok(capsule.map(EventKind::Enter))
    }

    pub(super) fn fork(&self, st: &mut State<'p>, t: ThreadId, dst: Option<&'p str>, target: &'p ForkTarget, line: Line) -> Step<Option<EventKind>> {
        let frame = match target {
            ForkTarget::Block(b) => Frame::new(st.frame(t).locals.clone(), b, None, line),
            ForkTarget::Call { recv, method, args } => {
                let this = match recv {
                    Some(r) => Some(st.obj_of(t, r)?),
                    None => None,
                };
                let m = self.lookup_arity(st, this, method, args.len())?;
                let mut locals: Vec<(&str, Option<Value>)> = vec![];
                for (p, a) in m.params.iter().zip(args) {
                    locals.push((p.as_str(), Some(st.eval_arg(self, t, a)?)));
                }
                if let Some(o) = this {
                    locals.push(("this", Some(Value::Obj(o))));
                }
                let mut fr = Frame::new(locals, &m.body, None, m.line);
                if let Some(k) = this.filter(|o| self.is_capsule(st, *o)) {
                    fr.conts.push(Cont::Enter { capsule: k, line });
                }
                fr
            }
        };
        st.advance(t);
        let parent = &mut st.threads[idx_t(t)];
        parent.forks += 1;
        let name = format!("{}.{}", parent.name, parent.forks);
        let child = thread_id(st.threads.len());
        st.threads.push(Thread::new(name, frame));
        st.settle(child);
        if let Some(d) = dst {
            st.set_local(t, d, Value::Thread(child));
        }
        Ok(Some(EventKind::Fork(child)))
    }

    pub(super) fn lookup(&self, st: &State<'p>, this: Option<ObjId>, method: &str) -> Step<&'p Method> {
        let found = match this {
            Some(o) => st.objects[idx(o)].class.and_then(|c| self.program.classes[c].methods.iter().find(|m| m.name == method)),
            None => self.program.method(method),
        };
        match found {
            Some(m) => Ok(m),
            None => fault(format!("no method `{method}` for this receiver")),
        }
    }

    /// `lookup`, also checking the number of arguments against the method found.
    pub(super) fn lookup_arity(&self, st: &State<'p>, this: Option<ObjId>, method: &str, nargs: usize) -> Step<&'p Method> {
        let m = self.lookup(st, this, method)?;
        if m.params.len() != nargs {
            return fault(format!("`{method}` takes {} argument(s) but is called with {nargs}", m.params.len()));
        }
        Ok(m)
    }
}

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

    #[test]
    fn nondeterministic_statements_have_two_alternatives_and_loops_stop_at_k() {
        let p = parse("dialect bfj\ninit { o = new }\nthread { while * { o.f = 1 } }\n").unwrap();
        let m = Machine::new(&p, 1);
        let mut st = m.initial_state().unwrap();
        let t = thread_id(0);
        assert_eq!(m.alternatives(&st, t), &[0, 1]);
        assert_eq!(m.step(&mut st, t, 0), Ok(None));
        assert!(matches!(m.step(&mut st, t, 0), Ok(Some(EventKind::Access(AccessKind::Write, _)))));
        // K = 1: the loop head now only exits.
        assert_eq!(m.alternatives(&st, t), &[1]);
        assert_eq!(m.step(&mut st, t, 1), Ok(None));
        assert_eq!(st.threads[0].status, Status::Done);
    }

    #[test]
    fn fork_and_join_are_events_and_join_waits() {
        let p = parse("dialect simplejava\nclass R { fields f; method run() { skip } }\ninit { r = new R }\nthread { h = fork r; join(h) }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let t = thread_id(0);
        assert!(matches!(m.step(&mut st, t, 0), Ok(Some(EventKind::Fork(u))) if u == thread_id(1)));
        assert!(matches!(m.step(&mut st.clone(), t, 0), Err(Disabled::Blocked(_))), "join waits for the child");
        while st.threads[1].status != Status::Done {
            m.step(&mut st, thread_id(1), 0).unwrap();
        }
        assert!(matches!(m.step(&mut st, t, 0), Ok(Some(EventKind::Join(u))) if u == thread_id(1)));
    }
}
