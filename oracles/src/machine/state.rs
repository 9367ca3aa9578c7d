//! Machine state and the small-step semantics of one thread step.
//!
//! One [`State::step`] executes the next statement of one thread and yields at most one
//! [`EventKind`]. The rules follow, per dialect:
//! - RacerDX (spec/racerdx.md §2.2–2.3, §7.1–7.2): `new` makes every field a self-loop; a
//!   store needs an existing cell; `unlock` at depth 0 is stuck; `lock` by thread i is enabled
//!   only when every other thread's depth is 0 (reentrant).
//! - BFJ (spec/bigfoot.md §2.3): `acq` blocks while the lock is held, even by the acquirer
//!   (non-reentrant); `rel` by a non-holder is stuck; fields and array slots start at 0 (A25, §9.3).
//! - SimpleJava / CapJava (spec/escape_capsule.md §2.2, §7.3): fields start at `null`; locks
//!   as in BFJ (CapJava's REL needs the holder; we use that for SimpleJava too [C]); capsule
//!   fields may be accessed only while the innermost executing capsule is that object, and a
//!   capsule cannot be locked or entered twice.
//!
//! Deviations from the papers:
//! 1. Every statement is one scheduling point, silent ones included (`x = y`, `if *`, a loop
//!    head). The papers' states are a subset of ours (a branch choice "adds no step" there), and
//!    every state of ours has the same heap and stores as one of theirs, so the set of
//!    reachable (heap, next-command) pairs, hence races under either definition, is the same.
//!    Execution counts are therefore counts of *our* interleavings (see `tests/explore.rs`).
//! 2. CapJava's `capFree` (§7.4) is enforced with vector clocks kept in the state for
//!    capjava programs only: an enter whose capsule has an earlier exit that does not
//!    happen-before it is stuck (a capsule violation), as in the formal model.
//! 3. `break`/`return` may not leave a `sync` body (validator), so unwinding never releases.
//!
//! Lazy initial heaps: for RacerDX's existential initial states (Def. 3.6), a cell or formal
//! may be *undetermined*. Reading one makes [`State::step`] return
//! [`Disabled::NeedChoice`] without changing anything; the explorer then fixes its value
//! (an existing initial object or a fresh one, up to a bound) and retries.

use super::event::*;
use crate::lang::*;

/// A runtime value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// `null` / RacerDX's `nil`.
    Null,
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// An object or array.
    Obj(ObjId),
    /// A thread handle returned by `fork`.
    Thread(ThreadId),
}

/// What `new` stores in a fresh object's fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldInit {
    /// Every field points to the object itself (RacerDX, spec/racerdx.md §2.2).
    SelfLoop,
    /// `null` (SimpleJava, CapJava).
    Null,
    /// `0` (BFJ, spec/bigfoot.md A25/§9.3).
    Zero,
}

/// The dialect's semantic parameters.
#[derive(Clone, Copy, Debug)]
pub struct Semantics {
    /// What `new` initializes fields to.
    pub field_init: FieldInit,
}

impl Semantics {
    /// The parameters of `d`'s paper.
    pub fn of(d: Dialect) -> Semantics {
        let field_init = match d {
            Dialect::RacerDx => FieldInit::SelfLoop,
            Dialect::Bfj => FieldInit::Zero,
            Dialect::SimpleJava | Dialect::CapJava => FieldInit::Null,
        };
        Semantics { field_init }
    }
}

/// A cell of an object: absent (the class has no such field), undetermined (lazy initial
/// heap), or a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// Not a field of this object.
    Absent,
    /// Part of the initial heap, not yet fixed.
    Lazy,
    /// A value.
    Val(Value),
}

/// A heap object.
#[derive(Clone, Debug)]
pub struct Object {
    /// Display name, stable across executions (`b`, `y@T1`, `l1`).
    pub name: String,
    /// Index into `Program::classes`, if allocated with a class.
    pub class: Option<usize>,
    /// Field cells, indexed by [`FieldId`] (records), empty for arrays.
    pub fields: Vec<Cell>,
    /// Elements (arrays only).
    pub elems: Option<Vec<Value>>,
    /// Holder of the object's lock.
    pub lock_owner: Option<ThreadId>,
    /// The thread inside this capsule, if any.
    pub capsule_holder: Option<ThreadId>,
    /// Part of the initial heap given by the caller (not allocated by the program).
    pub initial: bool,
}

/// Where the lazy initial heap is undetermined.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LazyRef {
    /// A field of an initial object.
    Cell(ObjId, FieldId),
    /// A formal of a thread's initial frame.
    Local(ThreadId, usize),
}

/// Why a thread cannot take a step now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Disabled {
    /// Waiting (lock held, join target running, capsule occupied); may become enabled.
    Blocked(String),
    /// No rule applies (null dereference, unlock at depth 0, capsule violation, failed assert).
    Fault(String),
    /// `assume` of a false condition: the execution is infeasible.
    Infeasible,
    /// A lazy initial-heap value must be chosen first.
    NeedChoice(LazyRef),
}

#[derive(Clone, Debug)]
enum Cont<'p> {
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
struct Frame<'p> {
    locals: Vec<(&'p str, Option<Value>)>,
    conts: Vec<Cont<'p>>,
    ret: Option<&'p str>,
    capsule: Option<ObjId>,
    line: Line,
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
    frames: Vec<Frame<'p>>,
    /// Running or done.
    pub status: Status,
    /// Depth of the global reentrant lock.
    pub depth: u32,
    allocs: u32,
    forks: u32,
    /// The locals of the bottom frame when the thread finished (how `init` hands its
    /// variables to the threads).
    final_locals: Option<Vec<(&'p str, Option<Value>)>>,
}

/// The next thing a thread will do.
#[derive(Clone, Copy, Debug)]
enum Action<'p> {
    Stmt(&'p Stmt),
    LoopHead(&'p Stmt, u32),
    Release(ObjId, Line),
    Enter(ObjId, Line),
    CapExit(ObjId, Line),
    Check(AccessKind, Addr, Line),
}

/// The machine's context: the program and its parameters, shared by every state.
#[derive(Debug)]
pub struct Machine<'p> {
    /// The program.
    pub program: &'p Program,
    /// Semantic parameters.
    pub sem: Semantics,
    /// Sorted field names; [`FieldId`] indexes this.
    pub fields: Vec<String>,
    /// Bound K on iterations of each instance of a nondeterministic loop.
    pub loop_bound: u32,
}

/// A whole-program state: heap, threads, and the lazily fixed part of the initial heap.
#[derive(Clone, Debug)]
pub struct State<'p> {
    /// Objects, by [`ObjId`].
    pub objects: Vec<Object>,
    /// Threads, by [`ThreadId`].
    pub threads: Vec<Thread<'p>>,
    /// Number of initial objects created by lazy choices (bounded by the explorer).
    pub lazy_objects: u32,
    /// Lazy choices made so far, as readable facts (`arg1@T1 = l1`, `l1.f = l2`).
    pub initial_facts: Vec<String>,
    /// Whether a nondeterministic loop was cut at the loop bound.
    pub loop_bound_hit: bool,
    /// Happens-before so far, kept only where the semantics needs it (CapJava's capFree).
    capfree: Option<CapFree>,
}

/// CapJava's `capFree` (spec/escape_capsule.md §7.4): a thread may enter capsule k only if
/// every earlier exit from k happens-before the enter. Happens-before comes from
/// `race::Clocks` (the same rules that stamp traces); `exits[k]` is the join of the clocks
/// of all exits from k, and an enter needs `exits[k] ⊑ C_t` ([REC] in §7.4).
#[derive(Clone, Debug, Default)]
struct CapFree {
    clocks: crate::race::Clocks,
    exits: std::collections::BTreeMap<ObjId, crate::race::VClock>,
}

impl CapFree {
    /// Whether every earlier exit from `k` happens-before the current point of `t`.
    fn may_enter(&mut self, t: ThreadId, k: ObjId) -> bool {
        let exits = self.exits.get(&k).cloned().unwrap_or_default();
        exits.le(self.clocks.clock(t))
    }

    fn apply(&mut self, t: ThreadId, ev: EventKind) {
        self.clocks.before(t, ev);
        if let EventKind::Exit(k) = ev {
            let c = self.clocks.clock(t).clone();
            self.exits.entry(k).or_default().join(&c);
        }
        self.clocks.after(t, ev);
    }
}

type Step<T> = Result<T, Disabled>;

fn fault<T>(msg: impl Into<String>) -> Step<T> {
    Err(Disabled::Fault(msg.into()))
}

/// Errors while building an initial state.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// `init` could not run to completion.
    #[error("init block gets stuck at line {line}: {reason}")]
    InitStuck {
        /// Where.
        line: u32,
        /// Why.
        reason: String,
    },
    /// A named method does not exist or has the wrong shape.
    #[error("{0}")]
    BadEntry(String),
}

impl<'p> Machine<'p> {
    /// Prepares `program` with its dialect's semantics.
    pub fn new(program: &'p Program, loop_bound: u32) -> Machine<'p> {
        let mut fields: Vec<String> = vec![];
        let mut add = |f: &str| {
            if !fields.iter().any(|g| g == f) {
                fields.push(f.to_string());
            }
        };
        for c in &program.classes {
            c.fields.iter().for_each(|f| add(f));
        }
        let mut bodies: Vec<&Block> = program.all_methods().map(|(_, m)| &m.body).collect();
        bodies.extend(program.init.iter());
        bodies.extend(program.threads.iter());
        for b in bodies {
            walk_block(b, &mut |s| {
                let mut place = |p: &Place| {
                    if let Place::Field { fields, .. } = p {
                        fields.iter().for_each(|f| add(f));
                    }
                };
                match &s.kind {
                    StmtKind::Load { src, .. } => place(src),
                    StmtKind::Store { dst, .. } => place(dst),
                    StmtKind::Call { args, .. } | StmtKind::Fork { target: ForkTarget::Call { args, .. }, .. } => args.iter().for_each(|a| {
                        if let Expr::Path(p) = a {
                            place(p)
                        }
                    }),
                    StmtKind::Check(items) => items.iter().for_each(|i| {
                        if let CheckTarget::Fields { fields, .. } = &i.target {
                            fields.iter().for_each(|f| add(f));
                        }
                    }),
                    _ => {}
                }
            });
        }
        fields.sort();
        Machine { program, sem: Semantics::of(program.dialect), fields, loop_bound }
    }

    /// The id of a field name, if the program mentions it.
    pub fn field(&self, name: &str) -> Option<FieldId> {
        self.fields.iter().position(|f| f == name).and_then(|i| u16::try_from(i).ok()).map(FieldId)
    }

    /// The initial state of a program with `init` and `thread` blocks: `init` runs to
    /// completion first (its events are not part of the trace: everything it does
    /// happens-before every thread), and its locals become each thread's initial locals.
    ///
    /// # Errors
    /// [`SetupError::InitStuck`] when `init` faults.
    pub fn initial_state(&self) -> Result<State<'p>, SetupError> {
        let mut st = State::empty();
        if self.program.dialect == Dialect::CapJava {
            st.capfree = Some(CapFree::default());
        }
        let mut locals = vec![];
        if let Some(init) = &self.program.init {
            st.threads.push(Thread::new("init".into(), Frame::new(vec![], init, None, Line(0))));
            let t = ThreadId(0);
            while st.threads[0].status == Status::Running {
                if let Err(d) = self.step(&mut st, t, 0) {
                    let line = self.next_line(&st, t).unwrap_or(0);
                    let reason = match d {
                        Disabled::Fault(r) | Disabled::Blocked(r) => r,
                        other => format!("{other:?}"),
                    };
                    return Err(SetupError::InitStuck { line, reason });
                }
            }
            locals = st.threads[0].final_locals.take().unwrap_or_default();
            st.threads.clear();
        }
        for (i, body) in self.program.threads.iter().enumerate() {
            let f = Frame::new(locals.clone(), body, None, Line(0));
            st.threads.push(Thread::new(format!("T{}", i + 1), f));
        }
        for t in 0..st.threads.len() {
            st.settle(thread_id(t));
        }
        Ok(st)
    }

    /// The initial state of RacerDX's two-thread setting (spec/racerdx.md §3.4): thread i runs
    /// the body of `methods[i]` in a single frame whose formals are `formals[i]` (`None` =
    /// undetermined, fixed lazily), over the given heap.
    ///
    /// # Errors
    /// [`SetupError::BadEntry`] when a method does not exist or the formals do not fit.
    pub fn method_threads(&self, methods: &[&str], objects: Vec<Object>, formals: &[Vec<Option<Value>>]) -> Result<State<'p>, SetupError> {
        let mut st = State::empty();
        st.objects = objects;
        st.lazy_objects = u32::try_from(st.objects.len()).unwrap_or(u32::MAX);
        for (i, name) in methods.iter().enumerate() {
            let m = self.program.method(name).ok_or_else(|| SetupError::BadEntry(format!("no method `{name}`")))?;
            let vals = formals.get(i).cloned().unwrap_or_else(|| vec![None; m.params.len()]);
            if vals.len() != m.params.len() {
                return Err(SetupError::BadEntry(format!("`{name}` takes {} formals", m.params.len())));
            }
            let locals = m.params.iter().map(|p| p.as_str()).zip(vals).collect();
            st.threads.push(Thread::new(format!("T{}", i + 1), Frame::new(locals, &m.body, None, m.line)));
        }
        for t in 0..st.threads.len() {
            st.settle(thread_id(t));
        }
        Ok(st)
    }

    /// A record object with every program field set to `init` (or undetermined, if `None`).
    pub fn record(&self, name: String, init: Option<Value>) -> Object {
        let cell = init.map_or(Cell::Lazy, Cell::Val);
        Object { name, class: None, fields: vec![cell; self.fields.len()], elems: None, lock_owner: None, capsule_holder: None, initial: true }
    }

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

    /// The lines of the call statements on the thread's stack, outermost first (the bottom
    /// frame is the thread's own body and has no call site).
    pub fn call_sites(&self, st: &State<'p>, t: ThreadId) -> Vec<u32> {
        st.threads[t.0 as usize].frames.iter().skip(1).map(|f| f.line.0).collect()
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
        let addr = st.resolve(self, t, place).ok()?;
        match st.check_cell(self, t, addr) {
            Ok(_) => {}
            // A store does not read the cell, so an undetermined initial value is no obstacle.
            Err(Disabled::NeedChoice(LazyRef::Cell(..))) if kind == AccessKind::Write => {}
            Err(_) => return None,
        }
        Some((kind, addr, s.line.0))
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

    fn cuts_loop_at(&self, s: &Stmt, iters: u32) -> bool {
        matches!(s.kind, StmtKind::While { cond: Cond::Star, .. }) && iters >= self.loop_bound
    }

    fn cond(&self, st: &State<'p>, t: ThreadId, c: &Cond, alt: u8) -> Step<bool> {
        match c {
            Cond::Star => Ok(alt == 0),
            Cond::Expr(e) => match st.eval(t, e)? {
                Value::Bool(b) => Ok(b),
                v => fault(format!("condition is {v:?}, not a boolean")),
            },
        }
    }

    /// Executes one statement. Every check that can fail comes before the first mutation.
    fn exec(&self, st: &mut State<'p>, t: ThreadId, s: &'p Stmt, alt: u8) -> Step<Option<EventKind>> {
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
    fn call(&self, st: &mut State<'p>, t: ThreadId, dst: Option<&'p str>, recv: Option<&'p str>, method: &str, args: &'p [Expr], line: Line) -> Step<Option<EventKind>> {
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

    fn fork(&self, st: &mut State<'p>, t: ThreadId, dst: Option<&'p str>, target: &'p ForkTarget, line: Line) -> Step<Option<EventKind>> {
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

    fn is_capsule(&self, st: &State<'p>, o: ObjId) -> bool {
        st.objects[idx(o)].class.is_some_and(|c| self.program.classes[c].capsule)
    }
}

fn loop_body(s: &Stmt) -> &[Stmt] {
    match &s.kind {
        StmtKind::While { body, .. } | StmtKind::Loop { body, .. } => body,
        _ => unreachable!("racefuzz internal bug: loop head on a non-loop statement"),
    }
}

fn idx(o: ObjId) -> usize {
    o.0 as usize
}

fn idx_t(t: ThreadId) -> usize {
    t.0 as usize
}

/// The id of the thread at position `i`.
pub fn thread_id(i: usize) -> ThreadId {
    ThreadId(u32::try_from(i).unwrap_or(u32::MAX))
}

impl<'p> Frame<'p> {
    fn new(locals: Vec<(&'p str, Option<Value>)>, body: &'p [Stmt], ret: Option<&'p str>, line: Line) -> Frame<'p> {
        Frame { locals, conts: vec![Cont::Seq { block: body, pc: 0 }], ret, capsule: None, line }
    }
}

impl<'p> Thread<'p> {
    fn new(name: String, frame: Frame<'p>) -> Thread<'p> {
        Thread { name, frames: vec![frame], status: Status::Running, depth: 0, allocs: 0, forks: 0, final_locals: None }
    }
}

impl<'p> State<'p> {
    fn empty() -> State<'p> {
        State { objects: vec![], threads: vec![], lazy_objects: 0, initial_facts: vec![], loop_bound_hit: false, capfree: None }
    }

    fn frame(&self, t: ThreadId) -> &Frame<'p> {
        self.threads[idx_t(t)].frames.last().expect("racefuzz internal bug: running thread without a frame")
    }

    fn frame_mut(&mut self, t: ThreadId) -> &mut Frame<'p> {
        self.threads[idx_t(t)].frames.last_mut().expect("racefuzz internal bug: running thread without a frame")
    }

    /// The thread's next action; `None` once it has finished. Relies on `settle` having run.
    fn action(&self, t: ThreadId) -> Option<Action<'p>> {
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
    fn advance(&mut self, t: ThreadId) {
        if let Some(Cont::Seq { pc, .. }) = self.frame_mut(t).conts.last_mut() {
            *pc += 1;
        }
    }

    /// Pops finished sequences and frames so that the thread stands at its next action.
    fn settle(&mut self, t: ThreadId) {
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
    fn return_from(&mut self, t: ThreadId, v: Value) {
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

    fn set_local(&mut self, t: ThreadId, x: &'p str, v: Value) {
        let fr = self.frame_mut(t);
        match fr.locals.iter_mut().find(|(n, _)| *n == x) {
            Some(slot) => slot.1 = Some(v),
            None => fr.locals.push((x, Some(v))),
        }
    }

    /// A local's value; unassigned locals are `nil` (spec/racerdx.md §2.1, `s_nil`).
    fn local(&self, t: ThreadId, x: &str) -> Step<Value> {
        let fr = self.frame(t);
        match fr.locals.iter().position(|(n, _)| *n == x) {
            Some(i) => fr.locals[i].1.ok_or(Disabled::NeedChoice(LazyRef::Local(t, i))),
            None => Ok(Value::Null),
        }
    }

    fn eval(&self, t: ThreadId, e: &Expr) -> Step<Value> {
        Ok(match e {
            Expr::Int(i) => Value::Int(*i),
            Expr::Bool(b) => Value::Bool(*b),
            Expr::Null => Value::Null,
            Expr::Var(x) => self.local(t, x)?,
            Expr::Path(_) => return fault("racefuzz internal bug: path in an expression"),
            Expr::Unary(op, a) => match (op, self.eval(t, a)?) {
                (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
                (UnOp::Neg, Value::Int(i)) => Value::Int(i.checked_neg().ok_or(Disabled::Fault("integer overflow".into()))?),
                (_, v) => return fault(format!("operator applied to {v:?}")),
            },
            Expr::Binary(op, a, b) => {
                let (x, y) = (self.eval(t, a)?, self.eval(t, b)?);
                binary(*op, x, y)?
            }
        })
    }

    /// A call actual: an expression, or a path whose value is read without an access event
    /// (`push(ē)` is no access in Def. 3.6).
    fn eval_arg(&self, m: &Machine<'p>, t: ThreadId, e: &Expr) -> Step<Value> {
        match e {
            Expr::Path(p) => {
                let a = self.resolve(m, t, p)?;
                self.check_cell(m, t, a)
            }
            e => self.eval(t, e),
        }
    }

    fn obj_of(&self, t: ThreadId, x: &str) -> Step<ObjId> {
        match self.local(t, x)? {
            Value::Obj(o) => Ok(o),
            v => fault(format!("`{x}` is {}, not an object", show_value(v))),
        }
    }

    /// The address a place designates; dereferencing the prefix `x.f1…f(n-1)` reads cells
    /// without access events (Def. 3.1).
    fn resolve(&self, m: &Machine<'p>, t: ThreadId, p: &Place) -> Step<Addr> {
        match p {
            Place::Index { base, index } => {
                let o = self.obj_of(t, base)?;
                match self.eval(t, index)? {
                    Value::Int(i) => Ok(Addr::Index(o, i)),
                    v => fault(format!("index {v:?} is not an integer")),
                }
            }
            Place::Field { base, fields } => {
                let mut o = self.obj_of(t, base)?;
                let (last, prefix) = fields.split_last().expect("racefuzz internal bug: empty path");
                for f in prefix {
                    let a = Addr::Field(o, field_id(m, f)?);
                    o = match self.check_cell(m, t, a)? {
                        Value::Obj(n) => n,
                        v => return fault(format!("path prefix `.{f}` is {}, not an object", show_value(v))),
                    };
                }
                Ok(Addr::Field(o, field_id(m, last)?))
            }
        }
    }

    /// Reads `a` for thread `t` after checking that the access is allowed: the cell exists,
    /// and a capsule's fields are touched only from inside it (CAPREAD/CAPWRITE).
    fn check_cell(&self, m: &Machine<'p>, t: ThreadId, a: Addr) -> Step<Value> {
        let o = &self.objects[idx(a.obj())];
        if m.is_capsule(self, a.obj()) && self.executor(t) != Some(a.obj()) {
            return fault(format!("capsule violation: field of capsule {} accessed from outside it", o.name));
        }
        match a {
            Addr::Field(_, f) => match o.fields.get(f.0 as usize).copied().unwrap_or(Cell::Absent) {
                Cell::Val(v) => Ok(v),
                Cell::Lazy => Err(Disabled::NeedChoice(LazyRef::Cell(a.obj(), f))),
                Cell::Absent => fault(format!("{} has no field `{}`", o.name, m.fields[f.0 as usize])),
            },
            Addr::Index(_, i) => match &o.elems {
                Some(es) => {
                    usize::try_from(i).ok().and_then(|i| es.get(i).copied()).ok_or_else(|| Disabled::Fault(format!("index {i} out of bounds of {} (length {})", o.name, es.len())))
                }
                None => fault(format!("{} is not an array", o.name)),
            },
        }
    }

    fn write(&mut self, a: Addr, v: Value) {
        let o = &mut self.objects[idx(a.obj())];
        match a {
            Addr::Field(_, f) => o.fields[f.0 as usize] = Cell::Val(v),
            Addr::Index(_, i) => {
                if let Some(slot) = o.elems.as_mut().and_then(|es| usize::try_from(i).ok().and_then(|i| es.get_mut(i))) {
                    *slot = v;
                }
            }
        }
    }

    /// The innermost capsule the thread executes in (CapJava's `executor`), if any.
    fn executor(&self, t: ThreadId) -> Option<ObjId> {
        self.threads[idx_t(t)].frames.iter().rev().find_map(|f| f.capsule)
    }

    fn enter_capsule(&mut self, t: ThreadId, k: ObjId) -> Step<()> {
        if let Some(cf) = &mut self.capfree {
            if !cf.may_enter(t, k) {
                return fault(format!("capsule violation (capFree): an earlier exit from {} does not happen-before this enter", self.objects[idx(k)].name));
            }
        }
        match self.objects[idx(k)].capsule_holder {
            None => {
                self.objects[idx(k)].capsule_holder = Some(t);
                Ok(())
            }
            Some(u) if u == t => fault(format!("re-entrant call into capsule {}", self.objects[idx(k)].name)),
            Some(u) => Err(Disabled::Blocked(format!("capsule {} is occupied by {}", self.objects[idx(k)].name, self.threads[idx_t(u)].name))),
        }
    }

    /// The object in `x`, if its lock is free (locks are not reentrant in BFJ/SimpleJava/CapJava).
    fn lockable(&self, m: &Machine<'p>, t: ThreadId, x: &str) -> Step<ObjId> {
        let o = self.obj_of(t, x)?;
        if m.is_capsule(self, o) {
            return fault("a capsule cannot be used as a lock");
        }
        match self.objects[idx(o)].lock_owner {
            None => Ok(o),
            Some(u) if u == t => Err(Disabled::Blocked(format!("acq({x}) of a lock it already holds (locks are not reentrant)"))),
            Some(u) => Err(Disabled::Blocked(format!("lock {} held by {}", self.objects[idx(o)].name, self.threads[idx_t(u)].name))),
        }
    }

    /// The addresses a `check` names, in order (E-CHKFIELD, E-CHKINDEX).
    fn check_addrs(&self, m: &Machine<'p>, t: ThreadId, items: &[CheckItem]) -> Step<Vec<(AccessKind, Addr)>> {
        let mut out = vec![];
        for it in items {
            match &it.target {
                CheckTarget::Fields { base, fields } => {
                    let o = self.obj_of(t, base)?;
                    for f in fields {
                        out.push((it.kind, Addr::Field(o, field_id(m, f)?)));
                    }
                }
                CheckTarget::Range { base, lo, hi, stride } => {
                    let o = self.obj_of(t, base)?;
                    let int = |e: &Expr| match self.eval(t, e)? {
                        Value::Int(i) => Ok(i),
                        v => fault(format!("range bound {v:?} is not an integer")),
                    };
                    let lo = int(lo)?;
                    let hi = match hi {
                        Some(h) => int(h)?,
                        None => lo.saturating_add(1),
                    };
                    let k = stride.unwrap_or(1).max(1);
                    if hi.saturating_sub(lo) / k > MAX_CHECK_RANGE {
                        return fault(format!("check range {lo}..{hi} names more than {MAX_CHECK_RANGE} elements"));
                    }
                    let mut i = lo;
                    while i < hi {
                        out.push((it.kind, Addr::Index(o, i)));
                        i = i.saturating_add(k);
                    }
                }
            }
        }
        Ok(out)
    }

    /// A display name for a new object, unique in this state and the same in every
    /// execution that allocates it at the same point of the same thread.
    fn fresh_name(&mut self, t: ThreadId, var: &str) -> String {
        let th = &mut self.threads[idx_t(t)];
        th.allocs += 1;
        let base = if th.name == "init" { var.to_string() } else { format!("{var}@{}", th.name) };
        if !self.objects.iter().any(|o| o.name == base) {
            return base;
        }
        (2..).map(|k| format!("{base}#{k}")).find(|n| !self.objects.iter().any(|o| &o.name == n)).unwrap_or(base)
    }

    /// Fixes an undetermined initial value to an initial object (an existing one, or a new
    /// undetermined one named `l<k>`).
    pub fn resolve_lazy(&mut self, m: &Machine<'p>, r: LazyRef, target: Option<ObjId>) {
        let o = match target {
            Some(o) => o,
            None => {
                let id = ObjId(u32::try_from(self.objects.len()).unwrap_or(u32::MAX));
                self.lazy_objects += 1;
                self.objects.push(m.record(format!("l{}", self.lazy_objects), None));
                id
            }
        };
        let name = self.objects[idx(o)].name.clone();
        match r {
            LazyRef::Cell(c, f) => {
                self.initial_facts.push(format!("{}.{} = {name}", self.objects[idx(c)].name, m.fields[f.0 as usize]));
                self.objects[idx(c)].fields[f.0 as usize] = Cell::Val(Value::Obj(o));
            }
            LazyRef::Local(t, i) => {
                let th = &mut self.threads[idx_t(t)];
                let fr = th.frames.first_mut().expect("racefuzz internal bug: lazy formal without a frame");
                self.initial_facts.push(format!("{}@{} = {name}", fr.locals[i].0, th.name));
                fr.locals[i].1 = Some(Value::Obj(o));
            }
        }
    }

    /// The initial objects a lazy value may point to.
    pub fn initial_objects(&self) -> Vec<ObjId> {
        self.objects.iter().enumerate().filter(|(_, o)| o.initial).map(|(i, _)| ObjId(u32::try_from(i).unwrap_or(u32::MAX))).collect()
    }

    /// A readable name for an address (`b.f`, `a[2]`), stable across executions.
    pub fn addr_name(&self, m: &Machine<'p>, a: Addr) -> String {
        match a {
            Addr::Field(o, f) => format!("{}.{}", self.objects[idx(o)].name, m.fields[f.0 as usize]),
            Addr::Index(o, i) => format!("{}[{i}]", self.objects[idx(o)].name),
        }
    }

    /// A readable name for a lock.
    pub fn lock_name(&self, l: LockId) -> String {
        match l {
            LockId::Global => "lock".into(),
            LockId::Obj(o) => self.objects[idx(o)].name.clone(),
        }
    }
}

/// The most elements one `check` range may name (arrays are at most 1024 long too).
const MAX_CHECK_RANGE: i64 = 1024;

/// A field's id; the program can name at most 65,536 distinct fields.
fn field_id(m: &Machine<'_>, f: &str) -> Step<FieldId> {
    m.field(f).ok_or_else(|| Disabled::Fault(format!("field `{f}`: more than 65,536 distinct field names")))
}

fn binary(op: BinOp, x: Value, y: Value) -> Step<Value> {
    use Value::*;
    let overflow = || Disabled::Fault("integer overflow".into());
    Ok(match (op, x, y) {
        (BinOp::Eq, a, b) => Bool(a == b),
        (BinOp::Ne, a, b) => Bool(a != b),
        (BinOp::And, Bool(a), Bool(b)) => Bool(a && b),
        (BinOp::Or, Bool(a), Bool(b)) => Bool(a || b),
        (BinOp::Lt, Int(a), Int(b)) => Bool(a < b),
        (BinOp::Le, Int(a), Int(b)) => Bool(a <= b),
        (BinOp::Gt, Int(a), Int(b)) => Bool(a > b),
        (BinOp::Ge, Int(a), Int(b)) => Bool(a >= b),
        (BinOp::Add, Int(a), Int(b)) => Int(a.checked_add(b).ok_or_else(overflow)?),
        (BinOp::Sub, Int(a), Int(b)) => Int(a.checked_sub(b).ok_or_else(overflow)?),
        (BinOp::Mul, Int(a), Int(b)) => Int(a.checked_mul(b).ok_or_else(overflow)?),
        (BinOp::Rem, Int(_), Int(0)) => return fault("remainder by zero"),
        (BinOp::Rem, Int(a), Int(b)) => Int(a.checked_rem_euclid(b).ok_or_else(overflow)?),
        (op, a, b) => return fault(format!("`{}` applied to {} and {}", op.symbol(), show_value(a), show_value(b))),
    })
}

fn show_value(v: Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Obj(o) => format!("object #{}", o.0),
        Value::Thread(t) => format!("thread handle #{}", t.0),
    }
}
