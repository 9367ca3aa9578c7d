//! Calls, returns, `fork` and `join` (docs/spec/racerdx.md §2.2 `call`/`return` with path actuals;
//! docs/spec/bigfoot.md §2.3 and its tier-2 fork/join; docs/spec/escape_capsule.md §2.2 FORK and §7.3,
//! where a call on a capsule enters it and the return exits). A call pushes a [`Frame`]; a
//! `fork` makes a thread whose name (`T1.2`: the second fork of `T1`) is stable across
//! executions.

use super::*;
use crate::lang::*;

impl<'p> Machine<'p> {
    /// `[dst =] [recv.]method(args)`: evaluates the receiver and the actuals, enters the
    /// receiver if it is a capsule, and pushes the callee's frame.
    #[allow(clippy::too_many_arguments)] // OK since these are the statement's own parts.
    pub(super) fn call(&self, st: &mut State<'p>, t: ThreadId, dst: Option<&'p str>, recv: Option<&'p str>, method: &str, args: &'p [Expr], line: Line) -> Step<Option<EventKind>> {
        let this = match recv {
            Some(r) => Some(st.obj_of(t, r)?),
            None => None,
        };
        let m = self.lookup_arity(st, this, method, args.len())?;
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.eval_arg(st, t, a)?);
        }
        let capsule = this.filter(|o| self.is_capsule(st, *o));
        if let Some(k) = capsule {
            self.enter(st, t, k)?;
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

    /// `return [e]`: pops the frame (exiting its capsule, if any).
    pub(super) fn ret(&self, st: &mut State<'p>, t: ThreadId, e: Option<&Expr>) -> Step<Option<EventKind>> {
        let v = match e {
            Some(e) => st.eval(t, e)?,
            None => Value::Null,
        };
        let cap = st.frame(t).capsule;
        st.return_from(t, v);
        Ok(cap.map(EventKind::Exit))
    }

    /// `[dst =] fork target`: a new thread running a block (over a copy of the locals) or a
    /// method (entering its receiver first if that is a capsule).
    pub(super) fn fork(&self, st: &mut State<'p>, t: ThreadId, dst: Option<&'p str>, target: &'p ForkTarget, line: Line) -> Step<Option<EventKind>> {
        let frame = match target {
            ForkTarget::Block { this, body } => {
                let mut locals = st.frame(t).locals.clone();
                if let Some(x) = this {
                    locals.push(("self", Some(Value::Obj(st.obj_of(t, x)?))));
                }
                Frame::new(locals, body, None, line)
            }
            ForkTarget::Call { recv, method, args } => {
                let this = match recv {
                    Some(r) => Some(st.obj_of(t, r)?),
                    None => None,
                };
                let m = self.lookup_arity(st, this, method, args.len())?;
                let mut locals: Vec<(&str, Option<Value>)> = vec![];
                for (p, a) in m.params.iter().zip(args) {
                    locals.push((p.as_str(), Some(self.eval_arg(st, t, a)?)));
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

    /// `join(h)`: waits until the thread `h` names has finished.
    pub(super) fn join(&self, st: &mut State<'p>, t: ThreadId, h: &str) -> Step<Option<EventKind>> {
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

    /// The method a call names: the receiver class's, or a top-level one.
    fn lookup(&self, st: &State<'p>, this: Option<ObjId>, method: &str) -> Step<&'p Method> {
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
    fn lookup_arity(&self, st: &State<'p>, this: Option<ObjId>, method: &str, nargs: usize) -> Step<&'p Method> {
        let m = self.lookup(st, this, method)?;
        if m.params.len() != nargs {
            return fault(format!("`{method}` takes {} argument(s) but is called with {nargs}", m.params.len()));
        }
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    #[test]
    fn calls_push_frames_and_returns_pop_them_with_the_value() {
        let p = parse("dialect bfj\nclass C { fields f; method get(n) { return n + 1 } }\ninit { c = new C }\nthread { x = c.get(4); y = x }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let t = thread_id(0);
        assert_eq!(m.step(&mut st, t, 0), Ok(None), "a call on a plain object is no event");
        assert_eq!(st.threads[0].frames.len(), 2, "the call pushed a frame");
        assert_eq!((st.local(t, "n"), st.local(t, "this")), (Ok(Value::Int(4)), Ok(Value::Obj(ObjId(0)))));
        assert_eq!(m.call_sites(&st, t), [4]);
        assert_eq!(m.step(&mut st, t, 0), Ok(None));
        assert_eq!(st.threads[0].frames.len(), 1, "the return popped it");
        assert_eq!(st.local(t, "x"), Ok(Value::Int(5)));
    }

    #[test]
    fn racerdx_path_actuals_are_read_without_an_access() {
        let p = parse("dialect racerdx\nmethod callee(arg1) { skip }\nmethod m(arg1) { x = new; callee(x.f) }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.method_threads(&["m"], vec![], &[vec![Some(Value::Null)]]).unwrap();
        let t = thread_id(0);
        m.step(&mut st, t, 0).unwrap();
        assert_eq!(m.step(&mut st, t, 0), Ok(None));
        assert_eq!(st.local(t, "arg1"), Ok(Value::Obj(ObjId(0))), "the callee's arg1 is x.f, a self-loop");
    }

    #[test]
    fn unknown_methods_and_wrong_arity_are_faults() {
        let p = parse("dialect bfj\nclass C { fields f; method get(n) { skip } }\ninit { c = new C }\nthread { c.get() }\nthread { c.put(1) }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        assert_eq!(m.step(&mut st, thread_id(0), 0), Err(Disabled::Fault("`get` takes 1 argument(s) but is called with 0".into())));
        assert_eq!(m.step(&mut st, thread_id(1), 0), Err(Disabled::Fault("no method `put` for this receiver".into())));
    }

    #[test]
    fn fork_and_join_are_events_and_join_waits() {
        let p = parse("dialect simplejava\nclass R { fields f; method run() { skip } }\ninit { r = new R }\nthread { h = fork r; g = fork { skip }; join(h); join(r) }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let t = thread_id(0);
        assert_eq!(m.step(&mut st, t, 0), Ok(Some(EventKind::Fork(thread_id(1)))));
        assert_eq!(m.step(&mut st, t, 0), Ok(Some(EventKind::Fork(thread_id(2)))));
        let names: Vec<&str> = st.threads.iter().map(|u| u.name.as_ref()).collect();
        assert_eq!(names, ["T1", "T1.1", "T1.2"]);
        assert_eq!(st.local(t, "h"), Ok(Value::Thread(thread_id(1))));
        assert_eq!(m.step(&mut st.clone(), t, 0), Err(Disabled::Blocked("waiting for T1.1 to finish".into())));
        assert_eq!(m.step(&mut st, thread_id(1), 0), Ok(None));
        assert_eq!(st.threads[1].status, Status::Done);
        assert_eq!(m.step(&mut st, t, 0), Ok(Some(EventKind::Join(thread_id(1)))));
        assert_eq!(m.step(&mut st, t, 0), Err(Disabled::Fault("join of Obj(ObjId(0)), not a thread handle".into())));
    }

    #[test]
    fn a_forked_capsule_method_enters_its_capsule_first() {
        let p = parse("dialect capjava\ncapsule class K { fields f; method run() { this.f = 1 } }\nthread { k = new K; fork k }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        m.step(&mut st, thread_id(0), 0).unwrap();
        assert_eq!(m.step(&mut st, thread_id(0), 0), Ok(Some(EventKind::Fork(thread_id(1)))));
        let c = thread_id(1);
        assert_eq!(m.step(&mut st, c, 0), Ok(Some(EventKind::Enter(ObjId(0)))));
        assert!(matches!(m.step(&mut st, c, 0), Ok(Some(EventKind::Access(AccessKind::Write, _)))));
        assert_eq!(m.step(&mut st, c, 0), Ok(Some(EventKind::Exit(ObjId(0)))));
        assert_eq!(st.threads[1].status, Status::Done);
    }
}
