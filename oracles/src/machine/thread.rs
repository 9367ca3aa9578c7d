//! Threads, their frames and continuations: what a thread runs next ([`Action`]), and how
//! a finished block, loop iteration or call hands control back (`advance`, `settle`,
//! `return_from`). Data only; the rules that use it are in `step`.

use super::*;
use crate::lang::*;

#[derive(Clone, Debug)]
pub(super) enum Cont<'p> {
    Seq {
        block: &'p [Stmt],
        pc: usize,
    },
    /// Below a loop body; on top, the next action is the loop head.
    Loop {
        stmt: &'p Stmt,
        iters: u32,
    },
    /// Below a `sync` body; on top, the next action releases the lock.
    Release {
        lock: ObjId,
        line: Line,
    },
    /// A forked thread's pending entry into a capsule.
    Enter {
        capsule: ObjId,
        line: Line,
    },
    /// The remaining addresses of a `check`, last first.
    Checks {
        rest: Vec<(AccessKind, Addr)>,
        line: Line,
    },
}

#[derive(Clone, Debug)]
pub(super) struct Frame<'p> {
    pub(super) locals: Vec<(&'p str, Option<Value>)>,
    pub(super) conts: Vec<Cont<'p>>,
    pub(super) ret: Option<&'p str>,
    pub(super) capsule: Option<ObjId>,
    pub(super) line: Line,
}

/// Status of a thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Has statements left.
    Running,
    /// Finished.
    Done,
}

/// One thread.
#[derive(Clone, Debug)]
pub struct Thread<'p> {
    /// Display name, stable across executions (`T1`, `T1.2`).
    pub name: String,
    pub(super) frames: Vec<Frame<'p>>,
    /// Running or done.
    pub status: Status,
    /// Depth of the global reentrant lock.
    pub depth: u32,
    pub(super) allocs: u32,
    pub(super) forks: u32,
    /// The locals of the bottom frame when the thread finished (how `init` hands its
    /// variables to the threads).
    pub(super) final_locals: Option<Vec<(&'p str, Option<Value>)>>,
}

/// The next thing a thread will do.
#[derive(Clone, Copy, Debug)]
pub(super) enum Action<'p> {
    Stmt(&'p Stmt),
    LoopHead(&'p Stmt, u32),
    Release(ObjId, Line),
    Enter(ObjId, Line),
    CapExit(ObjId, Line),
    Check(AccessKind, Addr, Line),
}

impl<'p> Frame<'p> {
    pub(super) fn new(locals: Vec<(&'p str, Option<Value>)>, body: &'p [Stmt], ret: Option<&'p str>, line: Line) -> Frame<'p> {
        Frame { locals, conts: vec![Cont::Seq { block: body, pc: 0 }], ret, capsule: None, line }
    }
}

impl<'p> Thread<'p> {
    pub(super) fn new(name: String, frame: Frame<'p>) -> Thread<'p> {
        Thread { name, frames: vec![frame], status: Status::Running, depth: 0, allocs: 0, forks: 0, final_locals: None }
    }
}

impl<'p> State<'p> {
    pub(super) fn empty() -> State<'p> {
        State { objects: vec![], threads: vec![], lazy_objects: 0, initial_facts: vec![], loop_bound_hit: false, capfree: None }
    }

    pub(super) fn frame(&self, t: ThreadId) -> &Frame<'p> {
        self.threads[idx_t(t)].frames.last().expect("racefuzz internal bug: running thread without a frame")
    }

    pub(super) fn frame_mut(&mut self, t: ThreadId) -> &mut Frame<'p> {
        self.threads[idx_t(t)].frames.last_mut().expect("racefuzz internal bug: running thread without a frame")
    }

    /// The thread's next action; `None` once it has finished. Relies on `settle` having run.
    pub(super) fn action(&self, t: ThreadId) -> Option<Action<'p>> {
        let th = &self.threads[idx_t(t)];
        if th.status == Status::Done {
            return None;
        }
        let fr = th.frames.last()?;
        match fr.conts.last() {
            None => fr.capsule.map(|k| Action::CapExit(k, fr.line)),
            Some(Cont::Seq { block, pc }) => block.get(*pc).map(Action::Stmt),
            Some(Cont::Loop { stmt, iters }) => Some(Action::LoopHead(stmt, *iters)),
            Some(Cont::Release { lock, line }) => Some(Action::Release(*lock, *line)),
            Some(Cont::Enter { capsule, line }) => Some(Action::Enter(*capsule, *line)),
            Some(Cont::Checks { rest, line }) => rest.last().map(|(k, a)| Action::Check(*k, *a, *line)),
        }
    }

    /// Moves past the current statement of the innermost sequence.
    pub(super) fn advance(&mut self, t: ThreadId) {
        if let Some(Cont::Seq { pc, .. }) = self.frame_mut(t).conts.last_mut() {
            *pc += 1;
        }
    }

    /// Pops finished sequences and frames so that the thread stands at its next action.
    pub(super) fn settle(&mut self, t: ThreadId) {
        loop {
            let th = &mut self.threads[idx_t(t)];
            let Some(fr) = th.frames.last_mut() else {
                th.status = Status::Done;
                return;
            };
            match fr.conts.last() {
                Some(Cont::Seq { block, pc }) if *pc >= block.len() => {
                    fr.conts.pop();
                }
                Some(_) => return,
                None if fr.capsule.is_some() => return,
                None => self.return_from(t, Value::Null),
            }
        }
    }

    /// Pops the current frame, storing `v` into the caller's destination and leaving any
    /// capsule the frame was running in.
    pub(super) fn return_from(&mut self, t: ThreadId, v: Value) {
        let th = &mut self.threads[idx_t(t)];
        let Some(fr) = th.frames.pop() else { return };
        if let Some(k) = fr.capsule {
            self.objects[idx(k)].capsule_holder = None;
        }
        let th = &mut self.threads[idx_t(t)];
        if th.frames.is_empty() {
            th.final_locals = Some(fr.locals);
            th.status = Status::Done;
        } else if let Some(d) = fr.ret {
            self.set_local(t, d, v);
        }
    }

    pub(super) fn set_local(&mut self, t: ThreadId, x: &'p str, v: Value) {
        let fr = self.frame_mut(t);
        match fr.locals.iter_mut().find(|(n, _)| *n == x) {
            Some(slot) => slot.1 = Some(v),
            None => fr.locals.push((x, Some(v))),
        }
    }

    /// A local's value; unassigned locals are `nil` (spec/racerdx.md §2.1, `s_nil`).
    pub(super) fn local(&self, t: ThreadId, x: &str) -> Step<Value> {
        let fr = self.frame(t);
        match fr.locals.iter().position(|(n, _)| *n == x) {
            Some(i) => fr.locals[i].1.ok_or(Disabled::NeedChoice(LazyRef::Local(t, i))),
            None => Ok(Value::Null),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    #[test]
    fn calls_push_frames_and_returns_pop_them() {
        let p = parse("dialect bfj\nclass C { fields f; method get() { return 5 } }\ninit { c = new C }\nthread { x = c.get(); y = x }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let t = thread_id(0);
        m.step(&mut st, t, 0).unwrap();
        assert_eq!(st.threads[0].frames.len(), 2, "the call pushed a frame");
        m.step(&mut st, t, 0).unwrap();
        assert_eq!(st.threads[0].frames.len(), 1, "the return popped it");
        assert_eq!(st.local(t, "x"), Ok(Value::Int(5)));
    }
}
