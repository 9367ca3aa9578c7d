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

use super::*;
use crate::lang::*;

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
    pub(super) capfree: Option<CapFree>,
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

pub(super) fn idx(o: ObjId) -> usize {
    o.0 as usize
}

pub(super) fn idx_t(t: ThreadId) -> usize {
    t.0 as usize
}

/// The id of the thread at position `i`.
pub fn thread_id(i: usize) -> ThreadId {
    ThreadId(u32::try_from(i).unwrap_or(u32::MAX))
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
        if self.sem.cap_free {
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

    pub(super) fn loop_alts(&self, iters: u32) -> &'static [u8] {
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
}

impl<'p> State<'p> {
    /// A display name for a new object, unique in this state and the same in every
    /// execution that allocates it at the same point of the same thread.
    pub(super) fn fresh_name(&mut self, t: ThreadId, var: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    #[test]
    fn racerdx_new_makes_self_loops_and_formals_are_lazy() {
        let p = parse("dialect racerdx\nmethod m(arg1) { x = new; y = x.f; t = arg1.g }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.method_threads(&["m"], vec![], &[]).unwrap();
        let t = thread_id(0);
        m.step(&mut st, t, 0).unwrap();
        // `new` makes every field point back at the object (spec/racerdx.md §7.1).
        assert!(matches!(m.step(&mut st, t, 0), Ok(Some(EventKind::Access(AccessKind::Read, Addr::Field(o, _)))) if o == ObjId(0)));
        // The formal (and then the field it reaches) is undetermined: the explorer fixes each
        // first; the step changes nothing until it can run.
        let r = m.step(&mut st.clone(), t, 0);
        assert!(matches!(r, Err(Disabled::NeedChoice(_))), "{r:?}");
        let read = loop {
            match m.step(&mut st, t, 0) {
                Err(Disabled::NeedChoice(lazy)) => st.resolve_lazy(&m, lazy, None),
                other => break other,
            }
        };
        assert!(matches!(read, Ok(Some(EventKind::Access(AccessKind::Read, _)))), "{read:?}");
        assert!(!st.initial_facts.is_empty() && st.initial_facts.len() <= 2, "{:?}", st.initial_facts);
    }

    #[test]
    fn init_runs_before_the_threads_and_a_stuck_init_is_a_setup_error() {
        let p = parse("dialect bfj\ninit { o = new; o.f = 7 }\nthread { t = o.f }\n").unwrap();
        let m = Machine::new(&p, 2);
        let st = m.initial_state().unwrap();
        assert_eq!(st.threads.len(), 1);
        assert_eq!(st.objects.len(), 1);
        let p = parse("dialect bfj\ninit { n = null; t = n.f }\nthread { skip }\n").unwrap();
        assert!(matches!(Machine::new(&p, 2).initial_state(), Err(SetupError::InitStuck { line: 2, .. })));
    }
}
