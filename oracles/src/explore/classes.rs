//! Mazurkiewicz classes of executions (docs/spec/dpor.md on trace equivalence):
//! a canonical key per execution, so that an exploration can report how many executions it
//! ran per class (`explored / classes`; exactly 1 is what optimal DPOR promises).
//!
//! Two executions are equivalent when one becomes the other by swapping adjacent
//! independent events. The canonical representative is the Foata normal form: each event's
//! level is one more than the highest level of an earlier event it depends on; events are
//! listed by level, and within a level by thread. Dependence, from the machine's events:
//! - two events of one thread;
//! - two accesses (or checks) of one address, at least one a write;
//! - two operations on one lock (acquire or release);
//! - a fork or join of thread t and any event of t;
//! - two capsule entries or exits of one capsule;
//! - atomics (docs/spec/atomics.md §7): an atomic access is an access of its address (a store
//!   or RMW writes, a load reads; a compare-exchange counts as a write whether it succeeds or
//!   not \[C\], the same relation as DPOR's, `explore::dpor::events`); a fence depends on no
//!   event of another thread, except that two `seq_cst` fences depend on each other \[C\].
//!
//! An execution is more than its events: the key also holds each thread's sequence of
//! alternatives (branch and loop choices, which may leave no event) and the fixed initial
//! heap (its facts, as a set). Events name objects and threads by their display names,
//! which do not depend on the interleaving, never by allocation numbers, which do.
//!
//! Limit: the key sees events only. A path's prefix (`x.f` of `x.f.g`) and a path actual
//! are read without an event (`Program::reads_silently`), so two executions that differ
//! only in the order of such a read and a write of the same cell share a key although
//! they are different Mazurkiewicz traces. DPOR, whose dependence sees those reads, may
//! then visit both; `explorer-agree` checks "one per class" only without silent reads.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::explorer::Execution;
use super::schedule::Choice;
use crate::machine::{Event, EventKind, Machine, State};

/// What an event touches, by interleaving-independent names (borrowed from the state and
/// the machine: naming an event allocates nothing, which matters at one key per execution).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum On<'a> {
    /// An address `o.f`.
    Field(&'a str, &'a str),
    /// An address `o[i]`.
    Index(&'a str, i64),
    /// A lock, capsule or thread, by name; the global lock is `lock`, an unknown object or
    /// thread its number.
    Name(&'a str),
    Number(u32),
}

/// An event with interleaving-independent names: thread, line, what it does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Named<'a> {
    thread: On<'a>,
    line: u32,
    kind: &'static str,
    /// The address (accesses, checks), lock, capsule or thread it touches.
    on: On<'a>,
    write: bool,
}

fn named<'a>(m: &'a Machine<'_>, st: &'a State<'_>, e: &Event) -> Named<'a> {
    let thread = |t: crate::machine::ThreadId| st.threads.get(t.0 as usize).map_or(On::Number(t.0), |x| On::Name(&x.name));
    let obj = |o: crate::machine::ObjId| st.objects.get(o.0 as usize).map_or(On::Number(o.0), |x| On::Name(&x.name));
    let addr = |a: crate::machine::Addr| match (a, obj(a.obj())) {
        (crate::machine::Addr::Field(_, f), On::Name(o)) => On::Field(o, m.fields.get(f.0 as usize).map_or("?", |f| f.as_str())),
        (crate::machine::Addr::Index(_, i), On::Name(o)) => On::Index(o, i),
        (_, unknown) => unknown,
    };
    let (kind, on, write) = match e.kind {
        EventKind::Access(k, a) => ("access", addr(a), k == crate::lang::AccessKind::Write),
        EventKind::Check(k, a) => ("check", addr(a), k == crate::lang::AccessKind::Write),
        EventKind::Acquire(l) => ("acquire", lock(l, &obj), true),
        EventKind::Release(l) => ("release", lock(l, &obj), true),
        EventKind::Fork(t) => ("fork", thread(t), true),
        EventKind::Join(t) => ("join", thread(t), true),
        EventKind::Enter(o) => ("enter", obj(o), true),
        EventKind::Exit(o) => ("exit", obj(o), true),
        EventKind::Atomic(k, a) => (atomic_kind(k), addr(a), k.writes() || k.is_failed_cas()),
        EventKind::Fence(crate::lang::Order::SeqCst) => ("sc-fence", On::Name("seq_cst fences"), true),
        EventKind::Fence(_) => ("fence", On::Name("fence"), false),
    };
    Named { thread: thread(e.thread), line: e.line, kind, on, write }
}

fn atomic_kind(k: crate::machine::AtomicKind) -> &'static str {
    match k {
        crate::machine::AtomicKind::Load(_) => "load",
        crate::machine::AtomicKind::Store(_) => "store",
        crate::machine::AtomicKind::Rmw(_) => "rmw",
        crate::machine::AtomicKind::CasFailed { .. } => "cas-failed",
    }
}

fn lock<'a>(l: crate::machine::LockId, obj: &impl Fn(crate::machine::ObjId) -> On<'a>) -> On<'a> {
    match l {
        crate::machine::LockId::Global => On::Name("lock"),
        crate::machine::LockId::Obj(o) => obj(o),
    }
}

fn dependent(a: &Named<'_>, b: &Named<'_>) -> bool {
    let family = |k: &'static str| match k {
        "access" | "check" | "load" | "store" | "rmw" | "cas-failed" => 0,
        "acquire" | "release" => 1,
        "fork" | "join" => 2,
        "sc-fence" => 4,
        "fence" => 5,
        _ => 3,
    };
    if a.thread == b.thread {
        return true;
    }
    // A fork or join of thread t orders every event of t.
    let (fa, fb) = (family(a.kind), family(b.kind));
    if (fa == 2 && a.on == b.thread) || (fb == 2 && b.on == a.thread) {
        return true;
    }
    // A non-seq_cst fence touches nothing another thread does (docs/spec/atomics.md §7).
    if fa == 5 || fb == 5 {
        return false;
    }
    fa == fb && fa != 2 && a.on == b.on && (fa != 0 || a.write || b.write)
}

/// The key of `ex`'s class (see the module docs): equal for equivalent executions, and
/// different otherwise except on a 64-bit hash collision.
pub fn class_key(m: &Machine<'_>, ex: &Execution<'_, '_>) -> u64 {
    let events: Vec<Named<'_>> = ex.trace.iter().map(|e| named(m, ex.state, e)).collect();
    let mut level = vec![0usize; events.len()];
    for i in 0..events.len() {
        level[i] = (0..i).filter(|&j| dependent(&events[j], &events[i])).map(|j| level[j] + 1).max().unwrap_or(0);
    }
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by(|&a, &b| (level[a], &events[a].thread).cmp(&(level[b], &events[b].thread)));
    let mut h = DefaultHasher::new();
    for i in order {
        (level[i], &events[i]).hash(&mut h);
    }
    // Each thread's own choices, in its own order.
    let mut alts: Vec<(String, Vec<u8>)> = ex.state.threads.iter().map(|t| (t.name.to_string(), vec![])).collect();
    for c in ex.schedule {
        if let Choice::Step { thread, alt } = c {
            if let Some(slot) = alts.get_mut(thread.0 as usize) {
                slot.1.push(*alt);
            }
        }
    }
    alts.sort();
    alts.hash(&mut h);
    let mut facts: Vec<&String> = ex.state.initial_facts.iter().collect();
    facts.sort_unstable();
    facts.hash(&mut h);
    ex.outcome.to_string().hash(&mut h);
    h.finish()
}

/// How `ex` ended and its final state, with every object and thread named by its display
/// name (never by creation number), so that equal final states reached by different
/// interleavings give equal text: the outcome, each object's cells and array elements (by
/// name, sorted) and each thread's status. Thread locals are left out: they are not
/// shared, and a thread's observations show in the heap it wrote. So are the fixed initial
/// facts of a lazy heap: they are the log of how the initial heap was chosen, not part of
/// the state (`machine::key`), and what of them still holds shows in the cells.
pub fn final_state(m: &Machine<'_>, ex: &Execution<'_, '_>) -> String {
    use std::fmt::Write;

    use crate::machine::{Cell, Value};
    let st = ex.state;
    // Written into one buffer per object (one key per execution: no string per cell).
    let show = |out: &mut String, v: &Value| {
        let name = match v {
            Value::Obj(o) => st.objects.get(o.0 as usize).map(|x| &x.name),
            Value::Thread(t) => st.threads.get(t.0 as usize).map(|x| &x.name),
            _ => None,
        };
        let _ = match (v, name) {
            (_, Some(name)) => out.write_str(name),
            (Value::Obj(o), None) => write!(out, "#{}", o.0),
            (Value::Thread(t), None) => write!(out, "#{}", t.0),
            (v, None) => write!(out, "{v:?}"),
        };
    };
    let mut objects: Vec<String> = st
        .objects
        .iter()
        .map(|o| {
            let mut text = format!("{}{{", o.name);
            let mut first = true;
            let mut sep = |text: &mut String| {
                if !std::mem::take(&mut first) {
                    text.push(',');
                }
            };
            for (c, f) in o.fields.iter().zip(&m.fields) {
                match c {
                    Cell::Absent => {}
                    Cell::Lazy => {
                        sep(&mut text);
                        let _ = write!(text, "{f}=?");
                    }
                    Cell::Val(v) => {
                        sep(&mut text);
                        let _ = write!(text, "{f}=");
                        show(&mut text, v);
                    }
                }
            }
            for v in o.elems.iter().flatten() {
                sep(&mut text);
                show(&mut text, v);
            }
            text.push('}');
            text
        })
        .collect();
    objects.sort();
    let mut threads: Vec<String> = st.threads.iter().map(|t| format!("{}:{:?}", t.name, t.status)).collect();
    threads.sort();
    format!("{} | {} | {}", ex.outcome, objects.join(" "), threads.join(" "))
}
