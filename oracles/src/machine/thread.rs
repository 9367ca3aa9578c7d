//! Threads, their frames and continuations (docs/spec/racerdx.md §2.2 stacks of frames;
//! docs/spec/bigfoot.md §2.3 `s1 || … || sn`; docs/spec/escape_capsule.md §2.2, §7.3 frames that run
//! inside a capsule): what a thread runs next ([`Action`]), and how a finished block, loop
//! iteration or call hands control back (`advance`, `settle`, `return_from`). Data only: the
//! rules that push and pop frames are in `step` and `call`.

use super::*;
use crate::lang::*;

/// The id of the thread at position `i`.
pub fn thread_id(i: usize) -> ThreadId {
    // OK since a state's threads are the program's thread blocks plus at most one fork per
    // step, and a path has at most `Config::max_steps` (a u32) steps.
    ThreadId(u32::try_from(i).unwrap_or(u32::MAX))
}

/// The position of `t` in [`State::threads`].
pub(super) fn idx_t(t: ThreadId) -> usize {
    t.0 as usize
}

/// A continuation: what a frame does once the innermost running part is done.
#[derive(Clone, Debug)]
pub(super) enum Cont<'p> {
    /// The statements of a block, from `pc` on.
    Seq { block: &'p [Stmt], pc: usize },
    /// Below a loop body; on top, the next action is the loop head.
    Loop { stmt: &'p Stmt, iters: u32 },
    /// Below a `sync` body; on top, the next action releases the lock.
    Release { lock: ObjId, line: Line },
    /// A forked thread's pending entry into a capsule.
    Enter { capsule: ObjId, line: Line },
    /// The remaining addresses of a `check`, last first.
    Checks { rest: Vec<(AccessKind, Addr)>, line: Line },
}

/// A method activation (or a thread's body).
#[derive(Clone, Debug)]
pub(super) struct Frame<'p> {
    /// Locals by name; `None` is an undetermined formal of the lazy initial heap.
    pub(super) locals: Vec<(&'p str, Option<Value>)>,
    /// Continuations, innermost last; empty when the body is done.
    pub(super) conts: Vec<Cont<'p>>,
    /// The caller's local that receives the return value.
    pub(super) ret: Option<&'p str>,
    /// The capsule this frame runs inside (CapJava), left when the frame returns.
    pub(super) capsule: Option<ObjId>,
    /// The line of the call (or fork) that made the frame.
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
    pub name: std::sync::Arc<str>,
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
    /// A statement.
    Stmt(&'p Stmt),
    /// The head of a loop after `iters` iterations.
    LoopHead(&'p Stmt, u32),
    /// The release at the end of a `sync` body.
    Release(ObjId, Line),
    /// A forked thread's entry into its capsule.
    Enter(ObjId, Line),
    /// The exit from a capsule whose method body is done.
    CapExit(ObjId, Line),
    /// The next address of a multi-address `check`.
    Check(AccessKind, Addr, Line),
}

impl<'p> Frame<'p> {
    pub(super) fn new(locals: Vec<(&'p str, Option<Value>)>, body: &'p [Stmt], ret: Option<&'p str>, line: Line) -> Frame<'p> {
        Frame { locals, conts: vec![Cont::Seq { block: body, pc: 0 }], ret, capsule: None, line }
    }
}

impl<'p> Thread<'p> {
    pub(super) fn new(name: String, frame: Frame<'p>) -> Thread<'p> {
        Thread { name: name.into(), frames: vec![frame], status: Status::Running, depth: 0, allocs: 0, forks: 0, final_locals: None }
    }
}

impl<'p> State<'p> {
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

    /// A local's value; unassigned locals are `nil` (docs/spec/racerdx.md §2.1, `s_nil`).
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
    fn settle_pops_finished_blocks_and_marks_the_thread_done() {
        let p = parse("dialect bfj\nthread { if true { skip } }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let t = thread_id(0);
        assert!(matches!(st.action(t), Some(Action::Stmt(Stmt { kind: StmtKind::If { .. }, line: Line(2) }))));
        m.step(&mut st, t, 0).unwrap();
        assert_eq!(st.frame(t).conts.len(), 2, "the `then` block runs above the thread's body");
        assert!(matches!(st.action(t), Some(Action::Stmt(Stmt { kind: StmtKind::Skip, .. }))));
        m.step(&mut st, t, 0).unwrap();
        // Both sequences are finished: settling popped them and the bottom frame.
        assert!(st.action(t).is_none());
        assert_eq!((st.threads[0].status.clone(), st.threads[0].frames.len()), (Status::Done, 0));
        assert_eq!(m.step(&mut st, t, 0), Err(Disabled::Blocked("thread has finished".into())));
    }

    #[test]
    fn unassigned_locals_are_nil_and_set_local_overwrites() {
        let p = parse("dialect bfj\nthread { skip }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let t = thread_id(0);
        assert_eq!(st.local(t, "x"), Ok(Value::Null));
        st.set_local(t, "x", Value::Int(1));
        st.set_local(t, "x", Value::Int(2));
        assert_eq!((st.local(t, "x"), st.frame(t).locals.len()), (Ok(Value::Int(2)), 1));
        assert_eq!(thread_id(3), ThreadId(3));
        assert_eq!(idx_t(ThreadId(3)), 3);
    }

    #[test]
    fn a_finished_init_hands_its_locals_to_every_thread() {
        let p = parse("dialect bfj\ninit { x = 1 }\nthread { skip }\nthread { skip }\n").unwrap();
        let st = Machine::new(&p, 2).initial_state().unwrap();
        let names: Vec<&str> = st.threads.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["T1", "T2"]);
        assert_eq!((st.local(thread_id(0), "x"), st.local(thread_id(1), "x")), (Ok(Value::Int(1)), Ok(Value::Int(1))));
    }
}
