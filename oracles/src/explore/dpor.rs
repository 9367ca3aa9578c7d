//! Optimal dynamic partial-order reduction (issue 9, item 2; spec/dpor.md, algorithm 4):
//! Abdulla, Aronis, Jonsson and Sagonas, "Source sets: a foundation for optimal dynamic
//! partial order reduction" (J.ACM 2017), Algorithm 2 (source sets with wakeup trees). It
//! visits one execution per Mazurkiewicz class, so it preserves every property that is the
//! same on all members of a class ([`Property::Classes`]: happens-before races, racy
//! addresses, final states and how executions end), and nothing that depends on the order
//! of independent events (the first race of each linearization: the naive explorer).
//!
//! **Events.** The unit of scheduling is a *visible* step (one that is not
//! [`Machine::is_local`]) followed by its *closure*: the local steps run eagerly after it,
//! as the naive explorer runs them ([`Config::eager_local`]), including the first local
//! steps of a thread it forks. A closure may branch (`if *`, `while *`); its choices are
//! part of the event (`Label::alts`), and every alternative is explored when the thread
//! is. Events are identified across executions by names that do not depend on the
//! interleaving (thread and object display names), never by creation numbers.
//!
//! Choices make a thread's transition nondeterministic, which the paper's processes are
//! not. We read a program with choices as the union of deterministic programs, one per
//! resolution of every choice, whose searches share the prefixes where they agree: where
//! a thread is explored, *all* its alternatives are, each with the wakeup subtree inserted
//! for it, and only then does the thread sleep. Each deterministic program's search is then
//! embedded in ours. The price is that a branch can end with every enabled thread asleep
//! (an alternative nobody needed here); such a branch is cut before it reaches a leaf and
//! counted in [`Stats::redundant`], so the executions visited stay one per class.
//!
//! **Dependence**, from each step's whole footprint ([`Machine::step_reading`]): two events
//! of one thread; two touches of one heap cell or array element, one of them a write (path
//! prefixes and actuals are reads, though they yield no trace event; a check counts as an
//! access, as in [`super::classes`]); two operations on one lock (acquire, release; the
//! RacerDX global lock is one lock); two entries or exits of one capsule; a fork or join
//! of thread `c` and any event of `c`.
//!
//! **Races** are reversed only where the reversal is possible: between two heap touches
//! (the later one not happening-before-ordered after the earlier through any other path),
//! and between two critical sections of one lock (or occupancies of one capsule): the
//! acquire of a lock races with the acquire that began the previous critical section of
//! another thread, unless that acquire happens before the later thread's other
//! predecessors (a release and the next acquire cannot be swapped; the critical sections
//! can). Forks and joins only order events. At the end of an execution, a thread whose
//! next step is an acquire or a capsule entry it cannot take ([`Machine::next_sync`]) adds
//! that attempt as a pending event, racing with every earlier section of another thread
//! that is not ordered before it: that is how a lock-order deadlock (a held lock) and a
//! CapJava capFree fault (an exit not ordered before the entry) are reached. An attempt
//! never ran, so its closure choices are unknown: it matches a wakeup-tree event of its
//! thread with any choices (`Label::attempt`; without that, a `while *` after the acquire
//! made DPOR re-run the thread's every alternative on a second branch,
//! `tests/regress/dpor_attempt_with_choices.race`).
//!
//! **Reversed addresses.** A path's prefix is read to find the address (`Label::addressing`).
//! When `e_i` writes a cell that `e_j` read that way, `e_j` reversed (run after
//! `notdep(e_i, E)`, without `e_i`) touches another address than in `E`. Its footprint is
//! then computed exactly, by replaying `notdep(e_i, E)` from `e_i`'s node (`reversed`).
//! An approximation is not harmless here: a label "dependent on everything" made a sleeping
//! thread fail to be a weak initial of the sequence, so a wakeup leaf was added that later
//! claimed to cover a reversal which the sleeping thread, in turn, claimed to cover; a
//! class was lost (`tests/regress/dpor_reversed_read_changes_address.race`).
//! [`Config::eager_local`] is ignored: local steps always run in closures.
//!
//! **Blocking.** The paper's processes are always enabled; ours block on a held lock (or a
//! capsule in use). One place of the algorithm depends on that: a thread absent from a
//! sequence and independent of all of it counts as a weak initial (Def. 6.1), because every
//! maximal extension runs it somewhere. A thread about to acquire may instead never run,
//! when the sequence goes on to take the lock and keep it, and those executions are not
//! among the ones that begin with it. So an absent section-beginning event is never a weak
//! initial (`weak_initial`): a sleeping acquire no longer swallows such a reversal, and a
//! wakeup-tree branch that begins with an acquire no longer claims to cover it. The cost
//! is a branch that ends with every enabled thread asleep where the lock stays free,
//! counted in [`Stats::redundant`]; visits stay one per class
//! (`tests/regress/dpor_sleeping_acquire_disabled.race`, found by `explorer-agree`).
//! Such a branch visits no execution, but the races of its prefix are reversed all the
//! same (as source-DPOR reverses races at every step): the paper's Algorithm 2 finds races
//! only at maximal executions, because it never blocks, and a race that only such a
//! prefix showed was lost (`tests/regress/dpor_race_in_a_blocked_branch.race`, found by
//! `explorer-agree`, seed 21).
//!
//! **Where it falls back.** A program whose initial heap is fixed lazily (RacerDX pairs)
//! is explored by the naive enumeration: the names of lazily created objects (`l1`, `l2`)
//! follow the order in which threads first need them, so events could not be identified
//! across executions. Its properties there are state properties (Def. 3.6), for which the
//! stateful explorer is the fast one anyway.
//!
//! Bounds: `max_executions` and `max_steps` as for the naive explorer; a branch whose
//! wakeup sequence cannot be followed (a thread that is not enabled) or whose every enabled
//! thread sleeps is dropped and counted in [`Stats::redundant`] (0 on every benchmark
//! family; nonzero with choices, or where a sleeping acquire is never disabled).
//! `tests/explore.rs` and the `explorer-agree` oracle cross-check it against the naive
//! explorer; `benches/explore.rs` measures `explored / classes`.
//!
//! [`Property::Classes`]: super::Property::Classes

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::rc::Rc;

use super::explorer::{Config, Execution, Explorer, Outcome, Stats};
use super::schedule::Choice;
use crate::lang::AccessKind;
use crate::machine::*;

/// The optimal DPOR explorer (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dpor {
    /// A seeded bug, for the `explorer-agree` oracles' mutants (`None`: the real explorer,
    /// the only one [`super::ExplorerKind::get`] hands out).
    pub seeded: Option<DporBug>,
}

/// Seeded bugs of the DPOR explorer, each a mistake the literature or this module's docs
/// warn about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DporBug {
    /// Dependence forgets locks (and capsules): critical sections never conflict.
    ForgetsLocks,
    /// A child keeps its parent's whole sleep set instead of the threads independent of the
    /// step taken (sleep sets never cleared).
    SleepKeptWhole,
    /// Footprints are the events only: a path's prefix read conflicts with nothing.
    NoPrefixReads,
    /// Attempts blocked at the end of an execution are not reversed (deadlocks and capFree
    /// faults behind a critical section are missed).
    NoBlockedAttempts,
}

impl Dpor {
    /// The real DPOR explorer.
    pub const REAL: Dpor = Dpor { seeded: None };
}

impl Explorer for Dpor {
    fn explore<'p>(&self, m: &Machine<'p>, init: State<'p>, cfg: &Config, visit: &mut dyn FnMut(&Execution<'_, 'p>) -> ControlFlow<()>) -> Stats {
        if init.has_lazy_values() {
            return super::naive::explore(m, init, cfg, visit, None, &State::key);
        }
        Search {
            m,
            cfg,
            visit,
            names: Names { bug: self.seeded, ..Names::default() },
            stats: Stats { complete: true, ..Stats::default() },
            trace: vec![],
            path: vec![],
            events: vec![],
            starts: vec![],
            stack: vec![],
            stop: false,
        }
        .run(init)
    }
}

/// What a step touches, by interleaving-independent identity (interned names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Res {
    Cell(u32, FieldId),
    Elem(u32, i64),
    Lock(u32),
    Capsule(u32),
    Thread(u32),
}

/// The global lock's id among [`Res::Lock`]s (objects are numbered from 0).
const GLOBAL: u32 = u32::MAX;

/// What a step does to a lock or capsule, for the critical-section race rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Sync {
    None,
    /// Takes a free lock (or enters a free capsule).
    Begin(Res),
    /// Frees it.
    End(Res),
}

/// One event, as identified across executions.
#[derive(Clone, Debug)]
struct Label {
    /// Interned thread name.
    thread: u32,
    /// The closure's choices (alternatives taken where there were several).
    alts: Vec<u8>,
    /// Footprint: what the step touches, and whether it writes it.
    fp: Vec<(Res, bool)>,
    sync: Sync,
    /// Cells read to find the address (path prefixes, path actuals): if the event this one
    /// races with writes one of them, the reversed event touches other cells.
    addressing: Vec<Res>,
    /// The footprint is unknown: dependent on everything, which is sound but not optimal.
    /// Only a fallback, for a reversed event whose replay (`Search::reversed`) failed, which
    /// is an internal inconsistency (debug builds assert it never happens).
    wild: bool,
    /// An attempt that could not run at the end of an execution (see [`races`]): its
    /// closure choices are unknown, and any alternative of its thread serves a wakeup
    /// sequence that ends with it.
    attempt: bool,
}

fn dependent(a: &Label, b: &Label) -> bool {
    a.thread == b.thread || a.wild || b.wild || a.fp.iter().any(|(r, w)| b.fp.iter().any(|(s, v)| r == s && (*w || *v)))
}

/// A node of a wakeup tree: an event, and what to run after it.
#[derive(Debug)]
struct WNode {
    label: Rc<Label>,
    children: Vec<WNode>,
}

/// Whether `c`'s thread is a weak initial of `v` (J.ACM 2017, Def. 6.1 `WI`): `v` has an
/// event of `c`'s thread with no earlier dependent event in `v`, or `c`'s thread is absent
/// from `v` and independent of all of it. Closure choices do not count: exploring a thread
/// runs all of them.
fn weak_initial(c: &Label, v: &[Rc<Label>]) -> bool {
    match v.iter().position(|e| e.thread == c.thread) {
        Some(k) => !v[..k].iter().any(|e| dependent(e, &v[k])),
        // A section-beginning event (an acquire, a capsule entry) absent from `v` is not a
        // weak initial of it: `v` may go on to disable it (someone takes the lock and keeps
        // it), and the executions where it never runs are not among those that begin with it.
        None => !matches!(c.sync, Sync::Begin(_)) && v.iter().all(|e| !dependent(c, e)),
    }
}

/// `insert[E](v, wut(E))`: walks down the leftmost children that are weak initials of `v`;
/// a leaf reached means `v` is covered already, otherwise the rest of `v` becomes the new
/// rightmost branch.
///
/// The children of one thread form a group: exploring the thread runs every closure
/// alternative of its event (see "Choices" in the module docs), each under the subtree of
/// its own child, or under an empty one (a leaf) if it has none. So the leftmost weak
/// initial is found by thread, ignoring choices; then `v` follows the child with its own
/// choices, and is covered already when there is none, since its alternative will be run
/// as a leaf. (Matching choices in the search for the leftmost weak initial instead let a
/// sequence for an alternative that the group will run anyway become a second branch after
/// the group, where the thread ran again: `tests/regress/dpor_choice_after_access.race`.)
fn insert(mut children: &mut Vec<WNode>, mut v: Vec<Rc<Label>>) {
    loop {
        if v.is_empty() {
            return;
        }
        let Some(k) = children.iter().position(|c| weak_initial(&c.label, &v)) else {
            let mut chain: Option<WNode> = None;
            for label in v.into_iter().rev() {
                chain = Some(WNode { label, children: chain.into_iter().collect() });
            }
            children.extend(chain);
            return;
        };
        let t = children[k].label.thread;
        // Absent from `v` (and independent of all of it): every alternative's branch runs
        // `v` unchanged after it, so the leftmost child serves.
        let k = match v.iter().position(|e| e.thread == t) {
            None => k,
            Some(i) => {
                let e = v.remove(i);
                let Some(k) = children.iter().position(|c| c.label.thread == t && (c.label.attempt || e.attempt || c.label.alts == e.alts)) else {
                    return;
                };
                k
            }
        };
        let c = &mut children[k];
        if c.children.is_empty() {
            return;
        }
        children = &mut c.children;
    }
}

/// Interned names of threads and objects.
#[derive(Default)]
struct Names {
    /// The seeded bug, if any (it changes footprints, sleep sets and blocked attempts).
    bug: Option<DporBug>,
    threads: HashMap<String, u32>,
    objects: HashMap<String, u32>,
}

fn intern(map: &mut HashMap<String, u32>, s: &str) -> u32 {
    if let Some(&i) = map.get(s) {
        return i;
    }
    let i = u32::try_from(map.len()).unwrap_or(u32::MAX - 1);
    map.insert(s.to_string(), i);
    i
}

/// A state after a closure: where a scheduling decision is made, or a leaf.
struct Closed<'p> {
    alts: Vec<u8>,
    state: State<'p>,
    choices: Vec<Choice>,
    steps: usize,
}

/// The eager closure of local steps from `st`, scheduled as the naive explorer schedules
/// them (the first thread whose next step is local and can run), branching on
/// alternatives; alternative 0 comes first.
fn closure<'p>(m: &Machine<'p>, cfg: &Config, st: State<'p>, steps: usize) -> Vec<Closed<'p>> {
    let mut out = vec![];
    let mut work = vec![Closed { alts: vec![], state: st, choices: vec![], steps }];
    'work: while let Some(mut c) = work.pop() {
        if at_budget(cfg, &c.state, c.steps) {
            out.push(c);
            continue;
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
                    work.push(c);
                    continue 'work;
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
                work.extend(succ.into_iter().rev());
                continue 'work;
            }
        }
        out.push(c);
    }
    out
}

/// The step budget cuts the execution here (a finished run is not cut).
fn at_budget(cfg: &Config, st: &State<'_>, steps: usize) -> bool {
    steps >= cfg.max_steps as usize && !st.threads.iter().all(|t| t.status == Status::Done)
}

/// An enabled thread at a node: its event (without closure choices) and the state after
/// its visible step.
struct Next<'p> {
    tid: ThreadId,
    label: Rc<Label>,
    ev: Option<EventKind>,
    /// Taken when the thread is explored (once per node).
    after: Option<State<'p>>,
}

impl Names {
    /// The enabled threads of a closed state, with their events.
    fn enabled<'p>(&mut self, m: &Machine<'p>, cfg: &Config, st: &State<'p>, steps: usize) -> Vec<Next<'p>> {
        if at_budget(cfg, st, steps) {
            return vec![];
        }
        let mut next = vec![];
        for ti in 0..st.threads.len() {
            let t = thread_id(ti);
            if st.threads[ti].status != Status::Running {
                continue;
            }
            let mut after = st.clone();
            if let (Ok(ev), reads) = m.step_reading(&mut after, t, 0) {
                let label = self.label(st, t, &after, ev, &reads);
                next.push(Next { tid: t, label: Rc::new(label), ev, after: Some(after) });
            }
        }
        next
    }

    /// The section-beginning attempts of the threads that cannot step in `st` (see
    /// [`races`]).
    fn pending<'p>(&mut self, m: &Machine<'p>, st: &State<'p>) -> Vec<Rc<Label>> {
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
        intern(&mut self.objects, &st.objects[o.0 as usize].name)
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
    fn label(&mut self, st: &State<'_>, t: ThreadId, after: &State<'_>, ev: Option<EventKind>, reads: &[Addr]) -> Label {
        let thread = intern(&mut self.threads, &st.threads[t.0 as usize].name);
        let mut fp = vec![(Res::Thread(thread), true)];
        let own = match ev {
            Some(EventKind::Access(_, a) | EventKind::Check(_, a)) => Some(a),
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
            Some(EventKind::Access(k, a) | EventKind::Check(k, a)) => fp.push((self.res(st, a), k == AccessKind::Write)),
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
            Some(EventKind::Fork(c)) => fp.push((Res::Thread(intern(&mut self.threads, &after.threads[c.0 as usize].name)), true)),
            Some(EventKind::Join(c)) => fp.push((Res::Thread(intern(&mut self.threads, &after.threads[c.0 as usize].name)), false)),
        }
        if self.bug == Some(DporBug::ForgetsLocks) {
            fp.retain(|(r, _)| !matches!(r, Res::Lock(_) | Res::Capsule(_)));
            sync = Sync::None;
        }
        Label { thread, alts: vec![], fp, sync, addressing, wild: false, attempt: false }
    }
}

/// A scheduling node of the search: a prefix `E` of the current execution.
struct Node<'p> {
    state: State<'p>,
    steps: usize,
    next: Vec<Next<'p>>,
    /// `sleep(E)`: events explored from here already (or from an earlier sibling).
    sleep: Vec<Rc<Label>>,
    /// `wut(E)`: the wakeup tree, children of its root.
    wut: Vec<WNode>,
    /// The thread being explored (index into `next`), its closure outcomes still to run
    /// with their wakeup subtrees, and the sleep set they get.
    exploring: Option<usize>,
    pending: Vec<(Closed<'p>, Vec<WNode>)>,
    child_sleep: Vec<Rc<Label>>,
    /// Lengths of the trace and path before the node's event (to unwind to).
    lens: (usize, usize),
}

/// Happens-before of one execution's events, by vector clocks over interned threads.
struct Hb {
    clock: Vec<Vec<u32>>,
    /// 1-based position of each event among its thread's events.
    pos: Vec<u32>,
}

impl Hb {
    /// Whether event `i` happens before (or is) event `k`.
    fn before(&self, events: &[Rc<Label>], i: usize, k: usize) -> bool {
        self.clock[k][events[i].thread as usize] >= self.pos[i]
    }
}

/// The reversible races of a maximal execution `E` (J.ACM 2017, `e ⋖_E e'`; see the module
/// docs for which pairs are reversible), as index pairs, with the happens-before relation.
///
/// `pending` are the attempts of threads that cannot step at the end (a blocked acquire, an
/// entry refused by capFree): each is treated as an event after `E` that begins a section,
/// so that the section which disables it can be reversed (lock-order deadlocks are found
/// this way). Races with a pending event have `j ≥ events.len()`.
fn races(events: &[Rc<Label>], pending: &[Rc<Label>]) -> (Vec<(usize, usize)>, Hb) {
    let nt = events.iter().chain(pending).map(|e| e.thread as usize + 1).max().unwrap_or(0);
    let mut hb = Hb { clock: Vec::with_capacity(events.len()), pos: Vec::with_capacity(events.len()) };
    let mut last_of: HashMap<u32, usize> = HashMap::new();
    // Per resource: the last write, and the reads since.
    let mut table: HashMap<Res, (Option<usize>, Vec<usize>)> = HashMap::new();
    // Per lock or capsule: where the current section began, and where the earlier ones did.
    let mut sections: HashMap<Res, (Option<usize>, Vec<usize>)> = HashMap::new();
    let mut out = vec![];
    let n = events.len();
    for (j, e) in events.iter().chain(pending).enumerate() {
        let attempt = j >= n;
        let mut direct: Vec<(usize, Res)> = vec![];
        if let Some(&p) = last_of.get(&e.thread) {
            direct.push((p, Res::Thread(e.thread)));
        }
        for &(r, w) in &e.fp {
            if let Some((lw, rs)) = table.get(&r) {
                direct.extend(lw.map(|x| (x, r)));
                if w {
                    direct.extend(rs.iter().map(|&x| (x, r)));
                }
            }
        }
        let mut c = vec![0u32; nt];
        for &(d, _) in &direct {
            for (a, b) in c.iter_mut().zip(&hb.clock[d]) {
                *a = (*a).max(*b);
            }
        }
        let p = last_of.get(&e.thread).map_or(0, |&x| hb.pos[x]) + 1;
        c[e.thread as usize] = p;
        // `d` does not happen before `d2`.
        let not_before = |d: usize, d2: usize| hb.clock[d2][events[d].thread as usize] < hb.pos[d];
        for &(d, r) in &direct {
            if matches!(r, Res::Cell(..) | Res::Elem(..)) && events[d].thread != e.thread && direct.iter().all(|&(d2, _)| d2 == d || not_before(d, d2)) {
                out.push((d, j));
            }
        }
        if let Sync::Begin(r) = e.sync {
            let s = sections.entry(r).or_default();
            // An attempt that cannot step may be disabled by any earlier section (a held
            // lock, or for capFree an exit that does not happen before it); a step that
            // ran follows the previous section only.
            let candidates: Vec<usize> = if attempt { s.1.iter().copied().chain(s.0).collect() } else { s.1.last().copied().into_iter().collect() };
            for a1 in candidates {
                if events[a1].thread != e.thread && direct.iter().all(|&(d2, via)| via == r || not_before(a1, d2)) {
                    out.push((a1, j));
                }
            }
            if attempt {
                continue;
            }
            s.0 = Some(j);
        } else if attempt {
            continue;
        }
        if let Sync::End(r) = e.sync {
            let s = sections.entry(r).or_default();
            s.1.extend(s.0.take());
        }
        for &(r, w) in &e.fp {
            let slot = table.entry(r).or_default();
            if w {
                *slot = (Some(j), vec![]);
            } else {
                slot.1.push(j);
            }
        }
        hb.clock.push(c);
        hb.pos.push(p);
        last_of.insert(e.thread, j);
    }
    out.sort_unstable();
    out.dedup();
    (out, hb)
}

struct Search<'a, 'c, 'p> {
    m: &'a Machine<'p>,
    cfg: &'c Config,
    visit: &'a mut dyn FnMut(&Execution<'_, 'p>) -> ControlFlow<()>,
    names: Names,
    stats: Stats,
    trace: Vec<Event>,
    path: Vec<Choice>,
    /// `E`: the event taken at each node of the stack.
    events: Vec<Rc<Label>>,
    /// Where each event's choices (its visible step, then its closure) begin in `path`.
    starts: Vec<usize>,
    stack: Vec<Node<'p>>,
    stop: bool,
}

impl<'p> Search<'_, '_, 'p> {
    fn run(mut self, init: State<'p>) -> Stats {
        // Choices before any visible step begin independent searches.
        for root in closure(self.m, self.cfg, init, 0) {
            if self.stop {
                break;
            }
            self.path.clone_from(&root.choices);
            if let Some(n) = self.node(root, vec![], vec![], (0, 0)) {
                self.stack.push(n);
            }
            self.dfs();
        }
        self.stats
    }

    /// Builds the node for a closed state, or visits it as a leaf (then `None`).
    fn node(&mut self, c: Closed<'p>, sleep: Vec<Rc<Label>>, mut wut: Vec<WNode>, lens: (usize, usize)) -> Option<Node<'p>> {
        let next = self.names.enabled(self.m, self.cfg, &c.state, c.steps);
        if next.is_empty() {
            self.leaf(&c.state, c.steps);
            return None;
        }
        if wut.is_empty() {
            // Algorithm 2, line 9: any enabled thread (one that does not sleep).
            let Some(n) = next.iter().find(|n| !sleep.iter().any(|s| s.thread == n.label.thread)) else {
                // Sleep-set blocked (see "Blocking" in the module docs): no execution is
                // visited from here, but the races of the prefix are still reversed, as
                // source-DPOR does at every step; they would be lost otherwise.
                self.stats.redundant += 1;
                self.reverse_races(&[]);
                return None;
            };
            wut.push(WNode { label: n.label.clone(), children: vec![] });
        }
        Some(Node { state: c.state, steps: c.steps, next, sleep, wut, exploring: None, pending: vec![], child_sleep: vec![], lens })
    }

    /// Algorithm 2's `Explore`, with an explicit stack.
    fn dfs(&mut self) {
        while !self.stop {
            let Some(top) = self.stack.last_mut() else { break };
            if let Some(e) = top.exploring {
                if let Some((c, wut)) = top.pending.pop() {
                    let (tid, ev) = (top.next[e].tid, top.next[e].ev);
                    let mut label = (*top.next[e].label).clone();
                    label.alts.clone_from(&c.alts);
                    let label = Rc::new(label);
                    let sleep = top.child_sleep.clone();
                    let lens = (self.trace.len(), self.path.len());
                    let choice = Choice::Step { thread: tid, alt: 0 };
                    super::naive::record(self.m, &top.state, None, choice, ev, &mut self.trace);
                    self.starts.push(self.path.len());
                    self.path.push(choice);
                    self.path.extend_from_slice(&c.choices);
                    self.events.push(label);
                    match self.node(c, sleep, wut, lens) {
                        Some(n) => self.stack.push(n),
                        None => self.unwind(lens),
                    }
                    continue;
                }
                // Every closure alternative of this thread is done: it sleeps here now.
                top.exploring = None;
                let label = top.next[e].label.clone();
                top.wut.retain(|w| w.label.thread != label.thread);
                top.sleep.push(label);
                continue;
            }
            let Some(first) = top.wut.first() else {
                let lens = top.lens;
                self.stack.pop();
                if !self.stack.is_empty() {
                    self.unwind(lens);
                }
                continue;
            };
            let t = first.label.thread;
            let Some(e) = top.next.iter().position(|n| n.label.thread == t) else {
                // A wakeup sequence this state cannot follow.
                self.stats.redundant += 1;
                top.wut.remove(0);
                continue;
            };
            let label = &top.next[e].label;
            top.child_sleep = top.sleep.iter().filter(|s| self.names.bug == Some(DporBug::SleepKeptWhole) || !dependent(label, s)).cloned().collect();
            let mut subtrees: Vec<(Vec<u8>, Vec<WNode>)> = vec![];
            for w in &mut top.wut {
                if w.label.thread == t {
                    subtrees.push((w.label.alts.clone(), std::mem::take(&mut w.children)));
                }
            }
            let Some(after) = top.next[e].after.take() else {
                // Explored here already: a wakeup sequence for a thread that sleeps.
                self.stats.redundant += 1;
                top.wut.remove(0);
                continue;
            };
            let outcomes = closure(self.m, self.cfg, after, top.steps + 1);
            let mut pending: Vec<(Closed<'p>, Vec<WNode>)> = outcomes
                .into_iter()
                .map(|c| {
                    let sub = subtrees.iter_mut().find(|(a, _)| *a == c.alts).map(|(_, s)| std::mem::take(s)).unwrap_or_default();
                    (c, sub)
                })
                .collect();
            // Popped from the back: the first outcome runs first.
            pending.reverse();
            top.pending = pending;
            top.exploring = Some(e);
        }
    }

    fn unwind(&mut self, lens: (usize, usize)) {
        self.trace.truncate(lens.0);
        self.path.truncate(lens.1);
        self.events.pop();
        self.starts.pop();
    }

    /// A maximal execution: visit it, then reverse its races into the wakeup trees of the
    /// nodes where they begin (Algorithm 2, lines 1–6).
    fn leaf(&mut self, st: &State<'p>, steps: usize) {
        // `None`: the naive explorer would go on from here, an internal inconsistency.
        let outcome = super::naive::classify(self.m, st, self.cfg, steps).unwrap_or(Outcome::Truncated);
        self.stats.count(&outcome);
        self.stats.steps += self.path.iter().filter(|c| matches!(c, Choice::Step { .. })).count() as u64;
        self.stats.events += self.trace.len() as u64;
        self.stats.loop_bound_hit |= st.loop_bound_hit;
        let ex = Execution { trace: &self.trace, schedule: &self.path, outcome: &outcome, state: st, state_races: &[] };
        let late = self.stats.executions.is_multiple_of(256) && self.cfg.deadline.is_some_and(|d| std::time::Instant::now() > d);
        if (self.visit)(&ex).is_break() || self.stats.executions >= self.cfg.max_executions || late {
            self.stats.complete = false;
            self.stop = true;
            return;
        }
        let pending = if self.names.bug == Some(DporBug::NoBlockedAttempts) { vec![] } else { self.names.pending(self.m, st) };
        self.reverse_races(&pending);
    }

    /// Algorithm 2, lines 2–6: every race of `E` (and of the `pending` attempts after it)
    /// becomes a wakeup sequence at the node where it begins, unless a sleeping event
    /// covers it.
    fn reverse_races(&mut self, pending: &[Rc<Label>]) {
        let (races, hb) = races(&self.events, pending);
        let n = self.events.len();
        for (i, j) in races {
            // e_j: an event of E, or a pending attempt after it (owned: `reversed` needs
            // the search mutably).
            let ej = if j < n { self.events[j].clone() } else { pending[j - n].clone() };
            // v = notdep(e_i, E) . e_j
            let mut v: Vec<Rc<Label>> = (i + 1..self.events.len()).filter(|&k| k != j && !hb.before(&self.events, i, k)).map(|k| self.events[k].clone()).collect();
            // The reversed event reads what e_i has not written yet: where that decides its
            // address, its footprint after notdep(e_i, E) is not the one recorded in E, and
            // is computed by running notdep(e_i, E) from the node of e_i.
            let e = &self.events[i];
            if ej.addressing.iter().any(|r| e.fp.iter().any(|(s, w)| *w && s == r)) {
                let exact = self.reversed(i, j, &hb);
                debug_assert!(exact.is_some(), "internal: replaying notdep(e_{i}, E) disagrees with E");
                let label = exact.unwrap_or_else(|| Label { wild: true, ..(*ej).clone() });
                v.push(Rc::new(Label { alts: ej.alts.clone(), ..label }));
            } else {
                v.push(ej);
            }
            let node = &mut self.stack[i];
            if !node.sleep.iter().any(|s| weak_initial(s, &v)) {
                insert(&mut node.wut, v);
            }
        }
    }

    /// The event `e_j` as it is after `pre(E, e_i) . notdep(e_i, E)`: the state at
    /// `e_i`'s node, with the choices of every event of `notdep(e_i, E)` replayed in order
    /// (each is independent of `e_i`, so it runs as in `E`; the thread of `e_j` is where it
    /// was just before `e_j`, since its events after `e_i` are in `notdep`). `None` (the
    /// caller falls back to a label dependent on everything) only if the replay disagrees
    /// with `E`, which would be an internal inconsistency.
    fn reversed(&mut self, i: usize, j: usize, hb: &Hb) -> Option<Label> {
        let end = |k: usize| self.starts.get(k + 1).copied().unwrap_or(self.path.len());
        let mut st = self.stack[i].state.clone();
        for k in (i + 1..j).filter(|&k| !hb.before(&self.events, i, k)) {
            for c in &self.path[self.starts[k]..end(k)] {
                let Choice::Step { thread, alt } = *c else { return None };
                self.m.step(&mut st, thread, alt).ok()?;
            }
        }
        let Choice::Step { thread: t, .. } = *self.path.get(*self.starts.get(j)?)? else { return None };
        let mut after = st.clone();
        let (ev, reads) = self.m.step_reading(&mut after, t, 0);
        Some(self.names.label(&st, t, &after, ev.ok()?, &reads))
    }
}
