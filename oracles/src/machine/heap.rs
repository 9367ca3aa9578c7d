//! The heap: cells, objects and arrays, allocation (E-NEW, docs/spec/bigfoot.md §2.3; `new`
//! in docs/spec/racerdx.md §2.2; docs/spec/escape_capsule.md §2.2), reads and writes of cells, and
//! RacerDX's lazy initial heap.
//!
//! What `new` stores in a fresh object's fields is the dialect's [`Semantics::field_init`]:
//! a self-loop (RacerDX), 0 (BFJ) or `null` (SimpleJava, CapJava). A store needs an existing
//! cell: a field the object's class does not declare is [`Cell::Absent`].
//!
//! Lazy initial heaps: for RacerDX's existential initial states (Def. 3.6), a cell or formal
//! may be *undetermined* ([`Cell::Lazy`], a formal without a value). Reading one makes
//! [`Machine::step`] return [`Disabled::NeedChoice`] without changing anything; the
//! explorer then fixes its value with [`State::resolve_lazy`] (an existing initial object or
//! a fresh one, up to a bound) and retries. Writing one needs no choice: its old value is dead.

use super::*;

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
    pub name: std::sync::Arc<str>,
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

/// The longest array `new_array` makes.
pub(super) const MAX_ARRAY_LEN: i64 = 1024;

/// The position of `o` in [`State::objects`].
pub(super) fn idx(o: ObjId) -> usize {
    o.0 as usize
}

/// The id the next allocated object gets.
fn next_obj(st: &State<'_>) -> ObjId {
    // OK since objects are the bounded initial heap plus at most one allocation per step,
    // and a path has at most `Config::max_steps` (a u32) steps.
    ObjId(u32::try_from(st.objects.len()).unwrap_or(u32::MAX))
}

impl<'p> Machine<'p> {
    /// A record object with every program field set to `init` (or undetermined, if `None`).
    pub fn record(&self, name: String, init: Option<Value>) -> Object {
        let cell = init.map_or(Cell::Lazy, Cell::Val);
        Object { name: name.into(), class: None, fields: vec![cell; self.fields.len()], elems: None, lock_owner: None, capsule_holder: None, initial: true }
    }

    /// `dst = new [class]`: a fresh object whose declared fields hold the dialect's initial
    /// value (every program field, without a class).
    pub(super) fn alloc_object(&self, st: &mut State<'p>, t: ThreadId, dst: &str, class: Option<&str>) -> ObjId {
        let class_idx = class.and_then(|c| self.program.classes.iter().position(|d| d.name == c));
        let name = st.fresh_name(t, dst);
        let id = next_obj(st);
        let init = Cell::Val(self.sem.new_field(id));
        let fields = match class_idx {
            Some(ci) => {
                let declared = &self.program.classes[ci].fields;
                self.fields.iter().map(|f| if declared.contains(f) { init } else { Cell::Absent }).collect()
            }
            None => vec![init; self.fields.len()],
        };
        st.objects.push(Object { name: name.into(), class: class_idx, fields, elems: None, lock_owner: None, capsule_holder: None, initial: false });
        id
    }

    /// `dst = new_array len`: a fresh array of the dialect's initial element value.
    pub(super) fn alloc_array(&self, st: &mut State<'p>, t: ThreadId, dst: &str, len: Value) -> Step<ObjId> {
        let n = match len {
            Value::Int(n) if (0..=MAX_ARRAY_LEN).contains(&n) => n,
            v => return fault(format!("array length {v:?} is not an integer in 0..={MAX_ARRAY_LEN}")),
        };
        let name = st.fresh_name(t, dst);
        let id = next_obj(st);
        // OK since n is in 0..=MAX_ARRAY_LEN (the guard above).
        let elems = vec![self.sem.new_elem(); usize::try_from(n).unwrap_or(0)];
        let fields = vec![Cell::Absent; self.fields.len()];
        st.objects.push(Object { name: name.into(), class: None, fields, elems: Some(elems), lock_owner: None, capsule_holder: None, initial: false });
        Ok(id)
    }

    /// Reads `a` for thread `t` after checking that the access is allowed: the cell exists,
    /// and a capsule's fields are touched only from inside it (CAPREAD/CAPWRITE).
    pub(super) fn read(&self, st: &State<'p>, t: ThreadId, a: Addr) -> Step<Value> {
        if let Some(reads) = self.reads.borrow_mut().as_mut() {
            reads.push(a);
        }
        self.capsule_guard(st, t, a.obj())?;
        let o = &st.objects[idx(a.obj())];
        match a {
            Addr::Field(_, f) => match o.fields.get(f.0 as usize).copied().unwrap_or(Cell::Absent) {
                Cell::Val(v) => Ok(v),
                Cell::Lazy => Err(Disabled::NeedChoice(LazyRef::Cell(a.obj(), f))),
                Cell::Absent => fault(format!("{} has no field `{}`", o.name, self.fields[f.0 as usize])),
            },
            Addr::Index(_, i) => match &o.elems {
                Some(es) => {
                    usize::try_from(i).ok().and_then(|i| es.get(i).copied()).ok_or_else(|| Disabled::Fault(format!("index {i} out of bounds of {} (length {})", o.name, es.len())))
                }
                None => fault(format!("{} is not an array", o.name)),
            },
        }
    }

    /// Checks that `a` may be written: as [`Machine::read`], except that an undetermined
    /// initial cell needs no choice (its old value is dead).
    pub(super) fn writable(&self, st: &State<'p>, t: ThreadId, a: Addr) -> Step<()> {
        match self.read(st, t, a) {
            Ok(_) | Err(Disabled::NeedChoice(LazyRef::Cell(..))) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

impl<'p> State<'p> {
    /// Stores `v` at `a`, which [`Machine::writable`] has checked.
    pub(super) fn write(&mut self, a: Addr, v: Value) {
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

    /// A display name for a new object, unique in this state and the same in every
    /// execution that allocates it at the same point of the same thread.
    pub(super) fn fresh_name(&mut self, t: ThreadId, var: &str) -> String {
        let th = &mut self.threads[idx_t(t)];
        th.allocs += 1;
        let base = if &*th.name == "init" { var.to_string() } else { format!("{var}@{}", th.name) };
        if !self.objects.iter().any(|o| *o.name == *base) {
            return base;
        }
        (2..).map(|k| format!("{base}#{k}")).find(|n| !self.objects.iter().any(|o| *o.name == **n)).unwrap_or(base)
    }

    /// Fixes an undetermined initial value to an initial object (an existing one, or a new
    /// undetermined one named `l<k>`).
    pub fn resolve_lazy(&mut self, m: &Machine<'p>, r: LazyRef, target: Option<ObjId>) {
        let o = match target {
            Some(o) => o,
            None => {
                let id = next_obj(self);
                self.lazy_objects += 1;
                self.objects.push(m.record(format!("l{}", self.lazy_objects), None));
                id
            }
        };
        let name = self.objects[idx(o)].name.to_string();
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

    /// Whether some initial value is still undetermined (a lazy formal or field).
    pub fn has_lazy_values(&self) -> bool {
        self.objects.iter().any(|o| o.fields.contains(&Cell::Lazy)) || self.threads.iter().any(|t| t.frames.iter().any(|f| f.locals.iter().any(|l| l.1.is_none())))
    }

    /// The initial objects a lazy value may point to.
    pub fn initial_objects(&self) -> Vec<ObjId> {
        // OK since object numbers fit a u32 (see `next_obj`).
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
            LockId::Obj(o) => self.objects[idx(o)].name.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{parse, AccessKind};

    /// Runs thread 0 of `src` (an `init` block and one thread) to its end.
    fn run(src: &str, check: impl FnOnce(&Machine<'_>, &State<'_>)) {
        let p = parse(src).unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        while st.threads[0].status == Status::Running {
            m.step(&mut st, thread_id(0), 0).unwrap();
        }
        check(&m, &st);
    }

    #[test]
    fn racerdx_new_makes_every_field_a_self_loop() {
        let p = parse("dialect racerdx\nmethod m(arg1) { x = new; y = x.f; z = y.g; skip }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.method_threads(&["m"], vec![], &[]).unwrap();
        for _ in 0..3 {
            m.step(&mut st, thread_id(0), 0).unwrap();
        }
        assert_eq!(st.objects.len(), 1);
        assert_eq!(st.objects[0].fields, vec![Cell::Val(Value::Obj(ObjId(0))); 2]);
        assert_eq!(&*st.objects[0].name, "x@T1");
        assert_eq!(st.local(thread_id(0), "z"), Ok(Value::Obj(ObjId(0))));
    }

    #[test]
    fn bfj_starts_at_zero_and_simplejava_at_null() {
        run("dialect bfj\nclass C { fields f }\ninit { c = new C; a = new_array 2 }\nthread { skip }\n", |m, st| {
            let f = m.field("f").unwrap();
            assert_eq!(st.objects[0].fields[f.0 as usize], Cell::Val(Value::Int(0)));
            assert_eq!(st.objects[1].elems, Some(vec![Value::Int(0); 2]));
            assert_eq!((st.objects[0].name.as_ref(), st.objects[0].initial), ("c", false));
        });
        run("dialect simplejava\nclass C { fields f; method run() { skip } }\nthread { c = new C; d = new C }\n", |m, st| {
            let f = m.field("f").unwrap();
            assert_eq!(st.objects[0].fields[f.0 as usize], Cell::Val(Value::Null));
            assert_eq!((st.objects[0].name.as_ref(), st.objects[1].name.as_ref()), ("c@T1", "d@T1"));
        });
    }

    #[test]
    fn undeclared_fields_are_absent_and_arrays_are_bounded() {
        let p = parse("dialect bfj\nclass C { fields f }\ninit { c = new C }\nthread { c.g = 1 }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let g = m.field("g").unwrap();
        assert_eq!(st.objects[0].fields[g.0 as usize], Cell::Absent);
        assert_eq!(m.step(&mut st, thread_id(0), 0), Err(Disabled::Fault("c has no field `g`".into())));
        let r = m.alloc_array(&mut st, thread_id(0), "a", Value::Int(MAX_ARRAY_LEN + 1));
        assert_eq!(r, Err(Disabled::Fault("array length Int(1025) is not an integer in 0..=1024".into())));
        assert_eq!(st.objects.len(), 1, "a failed allocation allocates nothing");
    }

    #[test]
    fn lazy_cells_are_fixed_by_resolve_lazy_and_named() {
        let p = parse("dialect racerdx\nmethod m(arg1) { t = arg1.f; arg1.g = t }\n").unwrap();
        let m = Machine::new(&p, 2);
        let o = m.record("b".into(), None);
        assert!(o.initial && o.fields.iter().all(|c| *c == Cell::Lazy));
        let mut st = m.method_threads(&["m"], vec![o], &[vec![Some(Value::Obj(ObjId(0)))]]).unwrap();
        let (t, f) = (thread_id(0), m.field("f").unwrap());
        assert_eq!(m.step(&mut st, t, 0), Err(Disabled::NeedChoice(LazyRef::Cell(ObjId(0), f))));
        st.resolve_lazy(&m, LazyRef::Cell(ObjId(0), f), None);
        assert_eq!((st.objects.len(), st.lazy_objects), (2, 2));
        assert_eq!(st.initial_facts, vec!["b.f = l2".to_string()]);
        assert_eq!(st.initial_objects(), vec![ObjId(0), ObjId(1)]);
        let read = m.step(&mut st, t, 0);
        assert_eq!(read, Ok(Some(EventKind::Access(AccessKind::Read, Addr::Field(ObjId(0), f)))));
        // The store to the still undetermined `b.g` needs no choice.
        let g = m.field("g").unwrap();
        assert_eq!(m.step(&mut st, t, 0), Ok(Some(EventKind::Access(AccessKind::Write, Addr::Field(ObjId(0), g)))));
        assert_eq!(st.objects[0].fields[g.0 as usize], Cell::Val(Value::Obj(ObjId(1))));
        assert_eq!(st.addr_name(&m, Addr::Field(ObjId(0), g)), "b.g");
        assert_eq!(st.lock_name(LockId::Obj(ObjId(1))), "l2");
    }
}
