//! The machine and its state: [`Machine`] holds the program, its field table and the
//! dialect's [`Semantics`]; [`State`] is a whole-program state (heap, threads, the lazily
//! fixed part of the initial heap). Initial states: `init` then `thread` blocks (docs/spec/bigfoot.md
//! §2.3; docs/spec/escape_capsule.md §2.2, one main thread), or RacerDX's two methods over a
//! possibly undetermined heap (docs/spec/racerdx.md §3.4, Def. 3.6).

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
    /// Loads that need not fix the value they read (`liveness`), when asked for.
    pub(super) dead_loads: Option<std::collections::HashSet<usize>>,
    /// While [`Machine::step_reading`] runs: every address the step reads (path prefixes
    /// and actuals included, which yield no event). `None` otherwise.
    pub(super) reads: std::cell::RefCell<Option<Vec<Addr>>>,
}

/// A whole-program state: heap, threads, and the lazily fixed part of the initial heap.
#[derive(Clone, Debug)]
pub struct State<'p> {
    /// Objects, by [`ObjId`] (shared with the clones of this state until written).
    pub objects: CowVec<Object>,
    /// Threads, by [`ThreadId`] (shared with the clones of this state until written).
    pub threads: CowVec<Thread<'p>>,
    /// Number of initial objects created by lazy choices (bounded by the explorer).
    pub lazy_objects: u32,
    /// Lazy choices made so far, as readable facts (`arg1@T1 = l1`, `l1.f = l2`).
    pub initial_facts: Vec<String>,
    /// Whether a nondeterministic loop was cut at the loop bound.
    pub loop_bound_hit: bool,
    /// Happens-before so far, kept only where the semantics needs it (CapJava's capFree);
    /// shared with the clones of this state until a step with an event changes it.
    pub(super) capfree: Option<std::rc::Rc<CapFree>>,
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
        let fields = program.field_names();
        Machine { program, sem: Semantics::of(program.dialect), fields, loop_bound, dead_loads: None, reads: std::cell::RefCell::new(None) }
    }

    /// This machine in CapJava's operational mode (docs/spec/escape_capsule.md A14(b)): capsule
    /// violations are taken and marked on their events ([`Machine::observe`]), as an
    /// implementation that reports them and runs on would; in the formal mode (the default)
    /// a violating step is disabled. No effect on programs without capsules.
    #[must_use]
    pub fn operational(mut self) -> Machine<'p> {
        self.sem.operational = true;
        self
    }

    /// This machine, with loads whose value is dead not fixing lazy initial values
    /// (`liveness`): it keeps every Def. 3.6 race as (thread, kind, site) pairs but not
    /// object names or dead locals' values, so only searches for race sides may use it.
    #[must_use]
    pub fn skipping_dead_loads(mut self) -> Machine<'p> {
        self.dead_loads = Some(super::liveness::dead_loads(self.program));
        self
    }

    /// Whether `s` is a load whose lazily undetermined value need not be fixed.
    pub(super) fn dead_load(&self, s: &Stmt) -> bool {
        self.dead_loads.as_ref().is_some_and(|d| super::liveness::is_dead(d, s))
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
        // RacerDX's method threads never enter capsules; only `init`/`thread` programs may.
        st.capfree = self.sem.cap_free.then(|| std::rc::Rc::new(CapFree::default()));
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

    /// The initial state of RacerDX's two-thread setting (docs/spec/racerdx.md §3.4): thread i runs
    /// the body of `methods[i]` in a single frame whose formals are `formals[i]` (`None` =
    /// undetermined, fixed lazily), over the given heap.
    ///
    /// # Errors
    /// [`SetupError::BadEntry`] when a method does not exist or the formals do not fit.
    pub fn method_threads(&self, methods: &[&str], objects: Vec<Object>, formals: &[Vec<Option<Value>>]) -> Result<State<'p>, SetupError> {
        let mut st = State::empty();
        st.objects = objects.into();
        // OK since the caller's objects are an initial heap the search bounds (heap_bound).
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
}

impl<'p> State<'p> {
    /// No objects, no threads.
    fn empty() -> State<'p> {
        State { objects: CowVec::default(), threads: CowVec::default(), lazy_objects: 0, initial_facts: vec![], loop_bound_hit: false, capfree: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    #[test]
    fn the_field_table_is_sorted_and_names_every_mentioned_field() {
        let p = parse("dialect bfj\nclass C { fields z }\ninit { c = new C }\nthread { t = c.b; check(R: c.a/y) }\n").unwrap();
        let m = Machine::new(&p, 2);
        assert_eq!(m.fields, ["a", "b", "y", "z"]);
        assert_eq!((m.field("y"), m.field("nope")), (Some(FieldId(2)), None));
    }

    #[test]
    fn racerdx_formals_are_undetermined_until_the_explorer_fixes_them() {
        let p = parse("dialect racerdx\nmethod m(arg1) { t = arg1.g.h; skip }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.method_threads(&["m"], vec![], &[]).unwrap();
        let t = thread_id(0);
        assert_eq!(m.step(&mut st.clone(), t, 0), Err(Disabled::NeedChoice(LazyRef::Local(t, 0))));
        let read = loop {
            match m.step(&mut st, t, 0) {
                Err(Disabled::NeedChoice(lazy)) => st.resolve_lazy(&m, lazy, None),
                other => break other,
            }
        };
        let h = m.field("h").unwrap();
        assert_eq!(read, Ok(Some(EventKind::Access(AccessKind::Read, Addr::Field(ObjId(1), h)))));
        // The formal, the path prefix and the cell read are each fixed to a fresh object.
        assert_eq!(st.initial_facts, ["arg1@T1 = l1", "l1.g = l2", "l2.h = l3"]);
        assert_eq!((st.local(t, "t"), st.lazy_objects), (Ok(Value::Obj(ObjId(2))), 3));
    }

    #[test]
    fn method_threads_checks_its_entries() {
        let p = parse("dialect racerdx\nmethod m(arg1) { skip }\n").unwrap();
        let m = Machine::new(&p, 2);
        assert_eq!(m.method_threads(&["nope"], vec![], &[]).err(), Some(SetupError::BadEntry("no method `nope`".into())));
        assert_eq!(m.method_threads(&["m"], vec![], &[vec![]]).err(), Some(SetupError::BadEntry("`m` takes 1 formals".into())));
        let st = m.method_threads(&["m", "m"], vec![], &[]).unwrap();
        let names: Vec<&str> = st.threads.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!((names, st.capfree.is_none()), (vec!["T1", "T2"], true));
    }

    #[test]
    fn init_runs_before_the_threads_and_a_stuck_init_is_a_setup_error() {
        let p = parse("dialect bfj\ninit { o = new; o.f = 7 }\nthread { t = o.f }\n").unwrap();
        let m = Machine::new(&p, 2);
        let st = m.initial_state().unwrap();
        assert_eq!((st.threads.len(), st.objects.len()), (1, 1));
        assert_eq!(st.objects[0].fields, [Cell::Val(Value::Int(7))]);
        let p = parse("dialect bfj\ninit { n = null; t = n.f }\nthread { skip }\n").unwrap();
        let e = Machine::new(&p, 2).initial_state().unwrap_err();
        assert_eq!(e, SetupError::InitStuck { line: 2, reason: "`n` is null, not an object".into() });
        let p = parse("dialect capjava\nclass C { method run() { skip } }\nthread { skip }\n").unwrap();
        assert!(Machine::new(&p, 2).initial_state().unwrap().capfree.is_some(), "capjava states carry happens-before");
    }
}
