//! Atomic operations and fences through loom (docs/spec/atomics.md §1, §5.3, §6.2).
//!
//! # Atomically used cells
//! A field is *atomically used* when some atomic statement of the program names it (the
//! last field of its path): `o.f.load(..)` makes `f` of every object an atomic cell. The
//! rule is static because a loom object has one type for its whole life: an atomic cell is
//! one `loom::sync::atomic::AtomicI64` (`AtomicU64` or `AtomicUsize` in the 0.2 and 0.3
//! series, `shim::Atomic64`), every other cell a loom `UnsafeCell`. On an atomic cell:
//! - an atomic statement is the loom operation with the program's own orders (`consume` is
//!   already `acquire`; a CAS is `compare_exchange` with its success and failure orders;
//!   `fence(o)` is `loom::sync::atomic::fence(o)`);
//! - a plain read is `unsync_load` (loom checks it against unordered atomic writes);
//! - a plain write cannot be expressed (loom's `with_mut` needs `&mut`, which a shared
//!   cell never gives): a program with one in a thread or method is refused ([`refusal`],
//!   spec §6.2). `init` may write it: that is the initial value.
//!
//! Creating a loom atomic is its first store, by its creator, so atomics are pooled as cells
//! are: the main loom thread makes, before it starts any other, one per atomic cell of the
//! initial heap with the machine's initial value, and `--atomics` spares with a fresh
//! object's field value (0, or `null`) for objects that threads allocate.
//!
//! # Values: loom's, and whether the execution is still SC
//! The atomic holds the machine's value, encoded ([`encode`]: integers as themselves, the
//! other values in a reserved range below −2⁶³+2³⁴), so that loom's `compare_exchange`
//! compares what the program compares. loom may return an older store than the newest
//! (`MAX_ATOMIC_HISTORY`, spec §5.3), which the SC machine never does. The driver follows
//! loom: the machine's step reads the value loom returned (the driver puts it in the cell
//! for that step and puts the newest back after a load or a failed CAS), so the run stays
//! an execution of the program under loom's memory model, and a loom report is about a
//! real execution of it.
//!
//! This departs from the first design ("keep the machine's control flow and compare"):
//! after a read the machine would not have made, its control flow is that of no execution
//! at all, and loom's known false positive under `SeqCst` (L9: both loads read the initial
//! value, both threads write `d`; spec §5.3) could never show.
//!
//! An execution is *SC* while every atomic read returned the newest store, the one the
//! machine (SC) would read; loom's operations are performed in the machine's step order
//! (nothing switches between a loom operation and the machine's step), so up to then the
//! run is the machine's SC trace. A read whose value differs from the newest store's makes
//! the execution non-SC ([`NON_SC`], reset when an execution starts). So does a read whose
//! value an earlier store of the cell also holds: loom might have read that one (a value
//! tells no store from another), so the label is conservative; an RMW or CAS reads a
//! store that no other store follows in loom's modification order, so for them the
//! initial value does not count once another store exists (the pool's atomics are made
//! before every thread, hence come first in every modification order).
//!
//! # Why the operation comes before the machine's step
//! loom may switch threads at the start of every atomic operation (it schedules before it
//! performs it). The driver therefore takes the operands from the machine
//! ([`Machine::next_atomic`]: the place and the operands read only the thread's locals),
//! performs the operation, and only then takes the machine's step, which sees whatever the
//! other threads did meanwhile.

use super::*;
use race_oracles::lang::{walk_block, Atomic, Order, Place, RmwOp, StmtKind};
use race_oracles::machine::{AtomicKind, Cell, FieldId, FieldInit, ObjId, Value};

/// Whether the current execution has diverged from an SC execution (or may have: see the
/// module docs). Reset when an execution starts.
pub static NON_SC: AtomicBool = AtomicBool::new(false);

/// Atomic operations in flight (the thread is inside loom's operation, which may switch to
/// others before it performs it): the access a causality violation raised inside one is
/// about. A plain access is `CURRENT`, which is set only around operations that cannot
/// switch.
pub static PENDING: StdMutex<Vec<Access>> = StdMutex::new(Vec::new());

/// Integers below this are not representable: the other values are encoded there.
const RESERVED_TOP: i64 = i64::MIN + (1 << 34);

/// The encoding of a value in a loom atomic: integers as themselves, `null`, booleans,
/// objects and thread handles in a reserved range. `None` for an integer in that range.
pub fn encode(v: Value) -> Option<i64> {
    Some(match v {
        Value::Int(i) if i >= RESERVED_TOP => i,
        Value::Int(_) => return None,
        Value::Null => i64::MIN,
        Value::Bool(b) => i64::MIN + 1 + i64::from(b),
        Value::Obj(o) => i64::MIN + 4 + 2 * i64::from(o.0),
        Value::Thread(t) => i64::MIN + 5 + 2 * i64::from(t.0),
    })
}

/// The value an encoding stands for ([`encode`]'s inverse; loom's `fetch_add` may make
/// any integer, which decodes as itself or, in the reserved range, as what it encodes).
pub fn decode(x: i64) -> Value {
    if x >= RESERVED_TOP {
        return Value::Int(x);
    }
    let k = x.wrapping_sub(i64::MIN);
    match k {
        0 => Value::Null,
        1 => Value::Bool(false),
        2 => Value::Bool(true),
        3 => Value::Null,
        _ if k % 2 == 0 => Value::Obj(ObjId(((k - 4) / 2) as u32)),
        _ => Value::Thread(ThreadId(((k - 5) / 2) as u32)),
    }
}

/// The atomically used fields: the last field of every atomic statement's path.
pub fn atomic_fields(p: &Program) -> BTreeSet<String> {
    p.atomics().iter().filter_map(|a| match a.place() {
        Some(Place::Field { fields, .. }) => fields.last().cloned(),
        _ => None,
    }).collect()
}

/// Why loom cannot run a program with atomics, if it cannot: a plain write to an
/// atomically used field in a thread or a method, or a fence a loom version lacks (none
/// before 0.2.6, acquire fences only before 0.5.2).
pub fn refusal(p: &Program) -> Option<String> {
    let fields = atomic_fields(p);
    let mut bodies: Vec<&[lang::Stmt]> = p.all_methods().map(|(_, m)| m.body.as_slice()).collect();
    bodies.extend(p.threads.iter().map(|b| b.as_slice()));
    let mut found = None;
    let mut fence: Option<Order> = None;
    for b in bodies {
        walk_block(b, &mut |s| match &s.kind {
            StmtKind::Store { dst: Place::Field { fields: fs, .. }, .. } if found.is_none() => {
                if let Some(f) = fs.last().filter(|f| fields.contains(*f)) {
                    found = Some((f.clone(), s.line.0));
                }
            }
            StmtKind::Atomic(Atomic::Fence(o)) if fence.is_none_or(|f| f == Order::Acquire) => fence = Some(*o),
            _ => {}
        });
    }
    if let Some((f, line)) = found {
        return Some(format!(
            "a plain write to the atomically used field `{f}` (line {line}): loom writes an atomic non-atomically only through `with_mut`, which needs `&mut` (spec/atomics.md §6.2)"
        ));
    }
    match (fence, shim::FENCES) {
        (Some(_), "none") => Some(format!("a fence: loom {} has no `loom::sync::atomic::fence` (added in 0.2.6)", shim::VERSION)),
        (Some(o), "acquire") if o != Order::Acquire => {
            Some(format!("a fence({}): loom {} supports acquire fences only (every order from 0.5.2)", o.name(), shim::VERSION))
        }
        _ => None,
    }
}

/// The atomics of one execution.
pub struct Atomics {
    /// The atomically used fields.
    fields: BTreeSet<FieldId>,
    pool: Vec<shim::Atomic64>,
    of: RefCell<HashMap<Addr, usize>>,
    /// The encoding of a fresh object's field (the spares' initial value).
    fresh: i64,
    /// Per atomic address in use, the encoded values of its stores in loom's order (which
    /// is the machine's), the initial value first.
    stores: RefCell<HashMap<Addr, Vec<i64>>>,
}

fn cell_value(st: &State<'_>, a: Addr) -> Option<Value> {
    let Addr::Field(o, f) = a else { return None };
    match st.objects.get(o.0 as usize)?.fields.get(f.0 as usize)? {
        Cell::Val(v) => Some(*v),
        _ => None,
    }
}

fn set_cell(st: &mut State<'_>, a: Addr, v: Value) {
    if let Addr::Field(o, f) = a {
        if let Some(c) = st.objects.get_mut(o.0 as usize).and_then(|ob| ob.fields.get_mut(f.0 as usize)) {
            *c = Cell::Val(v);
        }
    }
}

fn order(o: Order) -> Ordering {
    match o {
        Order::Relaxed => Ordering::Relaxed,
        Order::Acquire => Ordering::Acquire,
        Order::Release => Ordering::Release,
        Order::AcqRel => Ordering::AcqRel,
        Order::SeqCst => Ordering::SeqCst,
    }
}

fn encoded(v: Value) -> i64 {
    encode(v).unwrap_or_else(|| beyond(&format!("an atomic value of {v:?}: integers below -2^63+2^34 are the driver's encoding of other values")))
}

impl Atomics {
    /// The pool, made by the calling (main) loom thread: one atomic per atomically used
    /// cell of the initial heap `st`, with its value, and `spares` for later objects.
    pub fn new(m: &Machine<'_>, p: &Program, st: &State<'_>, spares: usize) -> Atomics {
        let fields: BTreeSet<FieldId> = atomic_fields(p).iter().filter_map(|f| m.field(f)).collect();
        let fresh = encoded(match m.sem.field_init {
            FieldInit::Null => Value::Null,
            _ => Value::Int(0),
        });
        let (mut pool, mut of, mut stores) = (vec![], HashMap::new(), HashMap::new());
        for o in 0..st.objects.len() {
            for &f in &fields {
                let a = Addr::Field(ObjId(o as u32), f);
                if let Some(v) = cell_value(st, a) {
                    let x = encoded(v);
                    of.insert(a, pool.len());
                    stores.insert(a, vec![x]);
                    pool.push(shim::new_atomic64(x));
                }
            }
        }
        pool.extend((0..spares).map(|_| shim::new_atomic64(fresh)));
        Atomics { fields, pool, of: RefCell::new(of), fresh, stores: RefCell::new(stores) }
    }

    /// Whether `a` is an atomically used cell.
    pub fn is_atomic(&self, a: Addr) -> bool {
        matches!(a, Addr::Field(_, f) if self.fields.contains(&f))
    }

    /// The loom atomic of `a`, taking a spare on first use (`now`: the machine's value).
    pub fn get(&self, a: Addr, now: Option<Value>) -> &shim::Atomic64 {
        let mut of = self.of.borrow_mut();
        let i = match of.get(&a) {
            Some(&i) => i,
            None => {
                let i = of.len();
                if i >= self.pool.len() {
                    beyond(&format!("more atomic cells than the pool holds ({}; raise --atomics)", self.pool.len()));
                }
                // OK since plain writes to atomic cells are refused: a thread's object is
                // as `new` made it until its first atomic operation.
                if now.and_then(encode) != Some(self.fresh) {
                    say("crash", &["racefuzz internal bug: an atomic cell of a thread's object changed before its first atomic operation"]);
                }
                of.insert(a, i);
                self.stores.borrow_mut().insert(a, vec![self.fresh]);
                i
            }
        };
        &self.pool[i]
    }
}

/// An atomic operation performed through loom, waiting for the machine's step.
pub struct Performed {
    addr: Option<Addr>,
    /// What loom's read returned (a load, an RMW, a CAS).
    read: Option<i64>,
    /// Whether loom's CAS stored.
    cas_ok: Option<bool>,
    /// Whether loom wrote (a store, an RMW, a CAS that stored).
    wrote: bool,
    rmw: bool,
    access: Option<Access>,
}

/// Performs thread `t`'s next step through loom if it is an atomic statement (before the
/// machine's step: see the module docs).
pub fn perform(sh: &Shared, at: &Atomics, t: ThreadId, name: &str, line: u32) -> Option<Performed> {
    let (a, addr, ops, now, addr_name) = {
        let st = sh.st.borrow();
        let (a, addr, ops) = sh.m.next_atomic(&st, t)?;
        (a, addr, ops, addr.and_then(|x| cell_value(&st, x)), addr.map(|x| st.addr_name(&sh.m, x)).unwrap_or_default())
    };
    let (kind, rmw) = match a {
        Atomic::Load { .. } => ("atomic read", false),
        Atomic::Store { .. } => ("atomic write", false),
        Atomic::Rmw { .. } | Atomic::Cas { .. } => ("atomic read-write", true),
        Atomic::Fence(_) => ("fence", false),
    };
    let access = addr.map(|_| Access { thread: name.to_string(), kind, line, addr: addr_name });
    let mut done = Performed { addr, read: None, cas_ok: None, wrote: false, rmw, access: access.clone() };
    if let Atomic::Fence(o) = a {
        shim::fence(order(*o));
        return Some(done);
    }
    // The machine faults on a non-integer addend whatever the cell holds: no operation.
    if matches!(a, Atomic::Rmw { op: RmwOp::FetchAdd, .. }) && !matches!(ops.first(), Some(Value::Int(_))) {
        return None;
    }
    let x = at.get(addr?, now);
    let operand = |i: usize| ops.get(i).copied().map(encoded).unwrap_or(0);
    if let Some(acc) = &access {
        lock(&PENDING).push(acc.clone());
    }
    match a {
        Atomic::Load { order: o, .. } => done.read = Some(shim::load(x, order(*o))),
        Atomic::Store { order: o, .. } => {
            shim::store(x, operand(0), order(*o));
            done.wrote = true;
        }
        Atomic::Rmw { op, order: o, .. } => {
            done.read = Some(match op {
                RmwOp::FetchAdd => shim::fetch_add(x, operand(0), order(*o)),
                RmwOp::Xchg => shim::swap(x, operand(0), order(*o)),
            });
            done.wrote = true;
        }
        Atomic::Cas { success, failure, .. } => {
            let r = shim::cas(x, operand(0), operand(1), order(*success), order(*failure));
            done.cas_ok = Some(r.is_ok());
            done.wrote = r.is_ok();
            done.read = Some(r.unwrap_or_else(|v| v));
        }
        Atomic::Fence(_) => {}
    }
    if let Some(acc) = &access {
        let mut pending = lock(&PENDING);
        if let Some(i) = pending.iter().position(|p| p.thread == acc.thread) {
            pending.remove(i);
        }
    }
    Some(done)
}

/// Whether loom's read of `v` may not be the newest of `stores` (see the module docs).
fn diverges(stores: &[i64], v: i64, rmw: bool) -> bool {
    let Some((&newest, older)) = stores.split_last() else { return true };
    let older = if rmw && !older.is_empty() { &older[1..] } else { older };
    v != newest || older.contains(&v)
}

/// The machine's step after loom performed `done`: it reads what loom read; the stores
/// it makes are recorded, and a load puts the newest value back.
pub fn step(sh: &Shared, at: &Atomics, done: &Performed, t: ThreadId, alt: u8) -> Result<Option<EventKind>, Disabled> {
    let mut st = sh.st.borrow_mut();
    let (Some(a), Some(v)) = (done.addr, done.read) else { return follow(sh, at, done, &mut st, t, alt, None) };
    let prev = cell_value(&st, a);
    let stores = at.stores.borrow().get(&a).cloned().unwrap_or_default();
    if diverges(&stores, v, done.rmw) {
        NON_SC.store(true, Ordering::Relaxed);
    }
    set_cell(&mut st, a, decode(v));
    follow(sh, at, done, &mut st, t, alt, prev)
}

fn follow(sh: &Shared, at: &Atomics, done: &Performed, st: &mut State<'static>, t: ThreadId, alt: u8, prev: Option<Value>) -> Result<Option<EventKind>, Disabled> {
    let r = sh.m.step(st, t, alt);
    let restore = |st: &mut State<'static>| {
        if let (Some(a), Some(p)) = (done.addr, prev) {
            set_cell(st, a, p);
        }
    };
    match &r {
        Ok(Some(EventKind::Atomic(kind, a))) => {
            if Some(*a) != done.addr {
                beyond("an atomic's address changed while loom switched threads (a path prefix read without an event)");
            }
            // OK since the machine's CAS read the value loom's read, and the encoding is
            // injective: they compare alike.
            if done.cas_ok.is_some_and(|ok| ok == matches!(kind, AtomicKind::CasFailed { .. })) {
                say("crash", &["racefuzz internal bug: loom's CAS and the machine's, reading the same value, disagree on storing"]);
            }
            if kind.writes() {
                let now = cell_value(st, *a).map(encoded);
                at.stores.borrow_mut().entry(*a).or_default().extend(now);
            } else {
                restore(st);
            }
            if let Some(acc) = &done.access {
                record(acc.clone());
            }
        }
        Ok(Some(EventKind::Fence(_))) => {}
        _ if done.wrote => beyond(&format!("the machine's step faulted ({r:?}) after loom performed its atomic write: the driver cannot take that write back")),
        _ => restore(st),
    }
    r
}
