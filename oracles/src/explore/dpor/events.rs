//! DPOR's events (docs/spec/dpor.md, "The bound"; J.ACM 2017 §2): the unit of scheduling, its
//! name across executions ([`Label`]), the dependence relation between two events, and
//! the closure of local steps that follows a visible one. Used by the search (`super`),
//! by race detection ([`mod@super::races`]) and by the wakeup trees ([`mod@super::wakeup`]).
//!
//! **Events.** The unit of scheduling is a *visible* step (one that is not
//! [`Machine::is_local`]) followed by its *closure*: the local steps run eagerly after it,
//! as the naive explorer runs them ([`Config::eager_local`]), including the first local
//! steps of a thread it forks. A closure may branch (`if *`, `while *`); its choices are
//! part of the event (`Label::alts`; see "Choices" in the parent module for how they are
//! explored). Events are identified across executions by names that do not depend on the
//! interleaving (thread and object display names), never by creation numbers.
//!
//! **Dependence**, from each step's whole footprint ([`Machine::step_reading`]): two events
//! of one thread; two touches of one heap cell or array element, one of them a write (path
//! prefixes and actuals are reads, though they yield no trace event; a check counts as an
//! access, as in [`crate::explore::classes`]); two operations on one lock (acquire,
//! release; the RacerDX global lock is one lock); two entries or exits of one capsule; a
//! fork or join of thread `c` and any event of `c`. Atomics (docs/spec/atomics.md §7): an
//! atomic access touches its cell like a plain one (a load reads, a store or RMW writes, and
//! a compare-exchange counts as a write whether it succeeds or not \[C\]: loom does the
//! same, and the naive class counter `explore::classes` uses this relation too); a fence
//! touches nothing, except that every `seq_cst` fence writes one shared resource
//! ([`Res::ScFences`]) \[C\]: Miri and loom order SC fences globally, so their output depends
//! on the fence order.

use std::rc::Rc;
use std::sync::Arc;

use super::fx::FxMap;
use super::DporBug;
use crate::explore::explorer::Config;
use crate::explore::schedule::Choice;
use crate::lang::AccessKind;
use crate::machine::*;

/// What a step touches, by interleaving-independent identity (interned names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Res {
    Cell(u32, FieldId),
    Elem(u32, i64),
    Lock(u32),
    Capsule(u32),
    Thread(u32),
    /// The global order of `seq_cst` fences (docs/spec/atomics.md §7 \[C\]).
    ScFences,
}

/// The global lock's id among [`Res::Lock`]s (objects are numbered from 0).
pub(super) const GLOBAL: u32 = u32::MAX;

/// What a step does to a lock or capsule, for the critical-section race rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Sync {
    None,
    /// Takes a free lock (or enters a free capsule).
    Begin(Res),
    /// Frees it.
    End(Res),
}

/// One event, as identified across executions.
#[derive(Clone, Debug)]
pub(super) struct Label {
    /// Interned thread name.
    pub(super) thread: u32,
    /// The closure's choices (alternatives taken where there were several).
    pub(super) alts: Vec<u8>,
    /// Footprint: what the step touches, and whether it writes it.
    pub(super) fp: Vec<(Res, bool)>,
    pub(super) sync: Sync,
    /// Cells read to find the address (path prefixes, path actuals): if the event this one
    /// races with writes one of them, the reversed event touches other cells.
    pub(super) addressing: Vec<Res>,
    /// The footprint is unknown: dependent on everything, which is sound but not optimal.
    /// Only a fallback, for a reversed event whose replay (`Search::reversed`) failed, which
    /// is an internal inconsistency (debug builds assert it never happens).
    pub(super) wild: bool,
    /// An attempt that could not run at the end of an execution (see [`super::races::races`]): its
    /// closure choices are unknown, and any alternative of its thread serves a wakeup
    /// sequence that ends with it.
    pub(super) attempt: bool,
}

/// Whether two events took the same closure choices. Written out rather than `==`: the
/// slices are almost always empty, and `==` on bytes calls `memcmp` even then, which a
/// profile of 2x7 locked increments showed as a third of DPOR's time.
pub(super) fn same_alts(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

pub(super) fn dependent(a: &Label, b: &Label) -> bool {
    a.thread == b.thread || a.wild || b.wild || a.fp.iter().any(|(r, w)| b.fp.iter().any(|(s, v)| r == s && (*w || *v)))
}

/// Interned names of threads and objects.
#[derive(Default)]
pub(super) struct Names {
    /// The seeded bug, if any (it changes footprints, sleep sets and blocked attempts).
    pub(super) bug: Option<DporBug>,
    threads: Interned,
    objects: Interned,
    /// A buffer for the addresses a step reads.
    reads: Vec<Addr>,
}

/// Names numbered in the order they are first met, with the last name met at each
/// creation number (a thread's or object's id) remembered: the same id almost always
/// has the same name, most often the very same `Arc` (states share their threads' and
/// objects' names), and comparing it is cheaper than hashing it.
#[derive(Default)]
struct Interned {
    map: FxMap<String, u32>,
    at: Vec<Option<(Arc<str>, u32)>>,
}

impl Interned {
    /// The number of `s`, the name of the thread or object with creation number `id`.
    fn get(&mut self, id: usize, s: &Arc<str>) -> u32 {
        if let Some(Some((name, i))) = self.at.get(id) {
            if Arc::ptr_eq(name, s) || **name == **s {
                return *i;
            }
        }
        let i = intern(&mut self.map, s);
        if self.at.len() <= id {
            self.at.resize(id + 1, None);
        }
        self.at[id] = Some((Arc::clone(s), i));
        i
    }
}

fn intern(map: &mut FxMap<String, u32>, s: &str) -> u32 {
    if let Some(&i) = map.get(s) {
        return i;
    }
    // OK since the names are the threads, objects and fields of one trace, itself at most
    // `Config::max_steps` (a u32) events.
    let i = u32::try_from(map.len()).unwrap_or(u32::MAX - 1);
    map.insert(s.to_string(), i);
    i
}

/// A state after a closure: where a scheduling decision is made, or a leaf.
pub(super) struct Closed<'p> {
    pub(super) alts: Vec<u8>,
    pub(super) state: State<'p>,
    pub(super) choices: Vec<Choice>,
    pub(super) steps: usize,
}

/// The eager closure of local steps from `st`, scheduled as the naive explorer schedules
/// them (the first thread whose next step is local and can run), branching on
/// alternatives; alternative 0 comes first.
/// The outcomes are appended to `out`.
pub(super) fn closure<'p>(m: &Machine<'p>, cfg: &Config, st: State<'p>, steps: usize, out: &mut Vec<Closed<'p>>) {
    // The outcomes still to close; `c` is worked on in place, so that a closure without
    // choices (the common case) allocates nothing and moves its state once, into `out`.
    let mut work = vec![];
    let mut c = Closed { alts: vec![], state: st, choices: vec![], steps };
    loop {
        match close(m, cfg, &mut c) {
            None => out.push(c),
            Some(succ) => work.extend(succ.into_iter().rev()),
        }
        match work.pop() {
            Some(next) => c = next,
            None => return,
        }
    }
}

/// Runs the local steps of `c` that have one way on, in place; where one has several,
/// the outcomes of its alternatives (`None`: `c` is closed).
fn close<'p>(m: &Machine<'p>, cfg: &Config, c: &mut Closed<'p>) -> Option<Vec<Closed<'p>>> {
    'step: loop {
        if at_budget(cfg, &c.state, c.steps) {
            return None;
        }
        for ti in 0..c.state.threads.len() {
            let t = thread_id(ti);
            if c.state.threads[ti].status != Status::Running || !m.is_local(&c.state, t) {
                continue;
            }
            let alts = m.alternatives(&c.state, t);
            if let [alt] = alts {
                // One way on: step in place (a disabled step leaves the state unchanged).
                if m.step(&mut c.state, t, *alt).is_ok() {
                    c.choices.push(Choice::Step { thread: t, alt: *alt });
                    c.steps += 1;
                    continue 'step;
                }
                continue;
            }
            let mut succ = vec![];
            for &alt in alts {
                let mut s = c.state.clone();
                if m.step(&mut s, t, alt).is_ok() {
                    let mut a = c.alts.clone();
                    a.push(alt);
                    let mut choices = c.choices.clone();
                    choices.push(Choice::Step { thread: t, alt });
                    succ.push(Closed { alts: a, state: s, choices, steps: c.steps + 1 });
                }
            }
            if !succ.is_empty() {
                return Some(succ);
            }
        }
        return None;
    }
}

/// The step budget cuts the execution here (a finished run is not cut).
pub(super) fn at_budget(cfg: &Config, st: &State<'_>, steps: usize) -> bool {
    steps >= cfg.max_steps as usize && !st.threads.iter().all(|t| t.status == Status::Done)
}

/// An enabled thread at a node: its event (without closure choices) and the state after
/// its visible step.
pub(super) struct Next<'p> {
    pub(super) tid: ThreadId,
    pub(super) label: Rc<Label>,
    pub(super) ev: Option<EventKind>,
    /// Taken when the thread is explored (once per node).
    pub(super) after: Option<State<'p>>,
}

impl Names {
    /// No names interned yet; `bug` is the seeded bug, if any.
    pub(super) fn new(bug: Option<DporBug>) -> Names {
        Names { bug, ..Names::default() }
    }

    /// The enabled threads of a closed state, with their events, appended to `next`. The
    /// events are written into labels from `free` while it has some (labels nobody else
    /// holds, kept for their allocations).
    pub(super) fn enabled<'p>(&mut self, m: &Machine<'p>, cfg: &Config, st: &State<'p>, steps: usize, next: &mut Vec<Next<'p>>, free: &mut Vec<Rc<Label>>) {
        if at_budget(cfg, st, steps) {
            return;
        }
        for ti in 0..st.threads.len() {
            let t = thread_id(ti);
            if st.threads[ti].status != Status::Running {
                continue;
            }
            let mut after = st.clone();
            let mut reads = std::mem::take(&mut self.reads);
            let step = m.step_reading_into(&mut after, t, 0, &mut reads);
            if let Ok(ev) = step {
                let mut old = free.pop();
                let fp = old.as_mut().and_then(Rc::get_mut).map(|l| std::mem::take(&mut l.fp)).unwrap_or_default();
                let label = self.label_in(st, t, &after, ev, &reads, fp);
                let label = match old {
                    Some(mut rc) => match Rc::get_mut(&mut rc) {
                        Some(l) => {
                            *l = label;
                            rc
                        }
                        None => Rc::new(label),
                    },
                    None => Rc::new(label),
                };
                next.push(Next { tid: t, label, ev, after: Some(after) });
            }
            self.reads = reads;
        }
    }

    /// The section-beginning attempts of the threads that cannot step in `st` (see
    /// [`super::races::races`]).
    pub(super) fn pending<'p>(&mut self, m: &Machine<'p>, st: &State<'p>) -> Vec<Rc<Label>> {
        let mut out = vec![];
        for ti in 0..st.threads.len() {
            let t = thread_id(ti);
            if st.threads[ti].status == Status::Done {
                continue;
            }
            if let Some(ev) = m.next_sync(st, t) {
                let label = self.label(st, t, st, Some(ev), &[]);
                if matches!(label.sync, Sync::Begin(_)) {
                    out.push(Rc::new(Label { attempt: true, ..label }));
                }
            }
        }
        out
    }

    fn obj(&mut self, st: &State<'_>, o: ObjId) -> u32 {
        self.objects.get(o.0 as usize, &st.objects[o.0 as usize].name)
    }

    fn res(&mut self, st: &State<'_>, a: Addr) -> Res {
        match a {
            Addr::Field(o, f) => Res::Cell(self.obj(st, o), f),
            Addr::Index(o, i) => Res::Elem(self.obj(st, o), i),
        }
    }

    fn lock(&mut self, st: &State<'_>, l: LockId) -> Res {
        match l {
            LockId::Global => Res::Lock(GLOBAL),
            LockId::Obj(o) => Res::Lock(self.obj(st, o)),
        }
    }

    /// The event of thread `t`'s step from `st` to `after`.
    pub(super) fn label(&mut self, st: &State<'_>, t: ThreadId, after: &State<'_>, ev: Option<EventKind>, reads: &[Addr]) -> Label {
        self.label_in(st, t, after, ev, reads, Vec::with_capacity(2 + reads.len()))
    }

    /// [`Names::label`], with its footprint written into `fp` (cleared first).
    fn label_in(&mut self, st: &State<'_>, t: ThreadId, after: &State<'_>, ev: Option<EventKind>, reads: &[Addr], mut fp: Vec<(Res, bool)>) -> Label {
        let thread = self.threads.get(t.0 as usize, &st.threads[t.0 as usize].name);
        fp.clear();
        fp.reserve(2 + reads.len());
        fp.push((Res::Thread(thread), true));
        let own = match ev {
            Some(EventKind::Access(_, a) | EventKind::Check(_, a) | EventKind::Atomic(_, a)) => Some(a),
            _ => None,
        };
        let mut addressing = vec![];
        if self.bug != Some(DporBug::NoPrefixReads) {
            for &a in reads {
                let r = self.res(st, a);
                fp.push((r, false));
                if Some(a) != own {
                    addressing.push(r);
                }
            }
        }
        // The global lock is reentrant: only the outermost acquire and release bound a section.
        let (outer_acq, outer_rel) = (st.threads[t.0 as usize].depth == 0, after.threads[t.0 as usize].depth == 0);
        let mut sync = Sync::None;
        match ev {
            None => {}
            Some(EventKind::Access(k, a) | EventKind::Check(k, a)) => {
                // A load's cell is among the reads already: one entry is enough.
                let touch = (self.res(st, a), k == AccessKind::Write);
                if !fp.contains(&touch) {
                    fp.push(touch);
                }
            }
            Some(EventKind::Acquire(l)) => {
                let r = self.lock(st, l);
                fp.push((r, true));
                if l != LockId::Global || outer_acq {
                    sync = Sync::Begin(r);
                }
            }
            Some(EventKind::Release(l)) => {
                let r = self.lock(st, l);
                fp.push((r, true));
                if l != LockId::Global || outer_rel {
                    sync = Sync::End(r);
                }
            }
            Some(EventKind::Enter(o)) => {
                let r = Res::Capsule(self.obj(st, o));
                fp.push((r, true));
                sync = Sync::Begin(r);
            }
            Some(EventKind::Exit(o)) => {
                let r = Res::Capsule(self.obj(st, o));
                fp.push((r, true));
                sync = Sync::End(r);
            }
            Some(EventKind::Atomic(k, a)) => {
                let touch = (self.res(st, a), k.writes() || k.is_failed_cas());
                fp.retain(|(r, w)| !(*r == touch.0 && !*w && touch.1));
                if !fp.contains(&touch) {
                    fp.push(touch);
                }
            }
            Some(EventKind::Fence(crate::lang::Order::SeqCst)) => fp.push((Res::ScFences, true)),
            Some(EventKind::Fence(_)) => {}
            Some(EventKind::Fork(c)) => fp.push((Res::Thread(self.threads.get(c.0 as usize, &after.threads[c.0 as usize].name)), true)),
            Some(EventKind::Join(c)) => fp.push((Res::Thread(self.threads.get(c.0 as usize, &after.threads[c.0 as usize].name)), false)),
        }
        if self.bug == Some(DporBug::ForgetsLocks) {
            fp.retain(|(r, _)| !matches!(r, Res::Lock(_) | Res::Capsule(_)));
            sync = Sync::None;
        }
        Label { thread, alts: vec![], fp, sync, addressing, wild: false, attempt: false }
    }
}
