//! The trace-level race check of Def. 4 (docs/spec/ldrf.md §1.3): every standard execution is
//! enumerated (no state merging: a race is a property of a trace's history), happens-before
//! is program order plus release→next-acquire of the same lock, tracked with vector clocks,
//! and two conflicting accesses of different threads race when neither happens before the
//! other. C11 compares it with E-STD's simultaneous-enabledness check
//! ([`super::standard::reach`]); the spec derives that both find the same racy programs
//! (§1.3 \[D\]), and this module is how that claim is tested.
//!
//! Traces are unbounded under loops, so [`races`] stops at `max_steps` per execution and
//! `max_executions` in all; a cut enumeration is incomplete (its races are still real).
//! [`races_stateful`] is the same check with finite states, so it completes under loops: it
//! keeps, per instruction, only its *latest* execution, with the set of threads and locks
//! it happens before. That is enough for the racing instruction pairs: an older execution
//! of an instruction happens before its latest one (program order), so if some execution
//! of it does not happen before an access, the latest one does not either. (Keeping only
//! the latest access per variable and thread is not enough: a racy read can steer control
//! so that the interleaving exposing an older access never exists.) Its pairs are
//! cross-checked against [`races`] on loop-free programs (the plain version).

use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;

use super::cfg::{Cfg, Cmd, Edge, Var};
use super::standard::{conflicts, Race, StdState};
use crate::clock::VClock;
use crate::explore::Config;
use crate::machine::ThreadId;
use crate::reach::{Model, Strategy};

/// One access remembered for a variable: the thread, its clock then, the instruction.
#[derive(Clone, Copy, Hash)]
struct Past {
    thread: usize,
    clock: u32,
    write: bool,
    edge: Edge,
}

/// One node of the trace tree: the state, each thread's and each lock's vector clock, every
/// access so far per variable, and the races the last step completed.
#[derive(Clone)]
struct Run {
    s: StdState,
    vc: Vec<VClock>,
    locks: Vec<VClock>,
    past: Vec<Vec<Past>>,
    found: Vec<Race>,
}

/// The tree search never merges, so this identity is never consulted; it is the run's
/// whole content all the same (a clock by its entries).
impl Hash for Run {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.s.hash(h);
        for c in self.vc.iter().chain(&self.locks) {
            (0..self.vc.len()).for_each(|t| c.get(thread(t)).hash(h));
        }
        self.past.hash(h);
        self.found.hash(h);
    }
}

/// A thread's id in a vector clock.
fn thread(t: usize) -> ThreadId {
    // OK since the ldrf dialect admits at most 64 threads (its size rule).
    ThreadId(u32::try_from(t).unwrap_or(u32::MAX))
}

/// Def. 4 over the tree of standard executions ([`Strategy::Tree`]).
struct Traces<'c> {
    cfg: &'c Cfg,
    out: BTreeSet<Race>,
}

impl Model for Traces<'_> {
    type State = Run;
    type Label = Edge;

    fn initial(&mut self) -> Run {
        let threads = self.cfg.entries.len();
        let vc = (0..threads)
            .map(|t| {
                let mut c = VClock::default();
                c.tick(thread(t));
                c
            })
            .collect();
        Run { s: StdState::initial(self.cfg), vc, locks: vec![VClock::default(); self.cfg.locks.len()], past: vec![vec![]; self.cfg.vars.len()], found: vec![] }
    }

    fn successors(&mut self, r: &Run, emit: &mut dyn FnMut(Edge, Run) -> ControlFlow<()>) -> ControlFlow<()> {
        // Emitted in reverse, so the last successor is explored first (the order of the
        // original stack of runs; only a cut search could tell).
        let mut all = vec![];
        for (t, &n) in r.s.pc.iter().enumerate() {
            for &e in &self.cfg.out[n.index()] {
                all.extend(r.s.step(self.cfg, t, e).into_iter().map(|next| (t, e, next)));
            }
        }
        for (t, e, next) in all.into_iter().rev() {
            emit(e, advance(self.cfg, r, t, e, next))?;
        }
        ControlFlow::Continue(())
    }

    fn visit(&mut self, r: &Run, _: Option<&[Edge]>, _: bool) -> ControlFlow<()> {
        self.out.extend(r.found.iter().copied());
        ControlFlow::Continue(())
    }
}

/// The races of every execution (Def. 4) as `(edge, edge, variable)`, the smaller edge
/// first, and whether the enumeration was complete (`max_steps` per execution,
/// `max_executions` in all, the deadline).
pub fn races(cfg: &Cfg, bounds: &Config) -> (BTreeSet<Race>, bool) {
    let mut m = Traces { cfg, out: BTreeSet::new() };
    let found = crate::reach::reach(&mut m, Strategy::Tree, bounds);
    (m.out, found.complete())
}

/// The run after thread `t` took instruction `e` to state `s`, with the races it completed.
fn advance(cfg: &Cfg, r: &Run, t: usize, e: Edge, s: StdState) -> Run {
    let mut n = r.clone();
    n.s = s;
    n.found.clear();
    let me = thread(t);
    match cfg.edge(e).cmd {
        Cmd::Acquire(m) => {
            let l = n.locks[m.index()].clone();
            n.vc[t].join(&l);
        }
        Cmd::Release(m) => n.locks[m.index()] = n.vc[t].clone(),
        _ => {}
    }
    let (reads, write) = cfg.accesses(cfg.edge(e));
    let mut touch = |x: Var, is_write: bool| {
        for p in &n.past[x.index()] {
            if p.thread != t && (is_write || p.write) && n.vc[t].get(thread(p.thread)) < p.clock {
                // `conflicts` names the variable the two instructions race on.
                if conflicts(cfg, p.edge, e).contains(&x) {
                    n.found.push((p.edge.min(e), p.edge.max(e), x));
                }
            }
        }
        let clock = n.vc[t].get(me);
        n.past[x.index()].push(Past { thread: t, clock, write: is_write, edge: e });
    };
    for x in reads {
        touch(x, false);
    }
    if let Some(x) = write {
        touch(x, true);
    }
    n.vc[t].tick(me);
    n
}

/// The latest execution of one accessing instruction: the threads it happens before (bit t)
/// and the locks whose last release it happens before (bit m). 64 bits suffice: the ldrf
/// dialect admits at most 64 threads and 64 locks (its size rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Latest {
    threads: u64,
    locks: u64,
}

/// A standard state with its happens-before summary, indexed by instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct HbState {
    s: StdState,
    latest: Vec<Option<Latest>>,
}

/// [`races`] with finite states as a [`Model`], recording the races as it steps.
struct Stateful<'c> {
    cfg: &'c Cfg,
    accessing: Vec<Edge>,
    out: BTreeSet<Race>,
}

impl Model for Stateful<'_> {
    type State = HbState;
    type Label = Edge;

    fn initial(&mut self) -> HbState {
        HbState { s: StdState::initial(self.cfg), latest: vec![None; self.cfg.edges.len()] }
    }

    fn successors(&mut self, h: &HbState, emit: &mut dyn FnMut(Edge, HbState) -> ControlFlow<()>) -> ControlFlow<()> {
        let cfg = self.cfg;
        for (t, &n) in h.s.pc.iter().enumerate() {
            for &e in &cfg.out[n.index()] {
                for s in h.s.step(cfg, t, e) {
                    let mut next = HbState { s, latest: h.latest.clone() };
                    match cfg.edge(e).cmd {
                        Cmd::Acquire(m) => {
                            let m = m.index();
                            for l in next.latest.iter_mut().flatten().filter(|l| l.locks >> m & 1 == 1) {
                                l.threads |= 1 << t;
                            }
                        }
                        // The lock's clock becomes the releaser's: it now happens after exactly
                        // what the releaser happens after.
                        Cmd::Release(m) => {
                            let m = m.index();
                            for l in next.latest.iter_mut().flatten() {
                                if l.threads >> t & 1 == 1 {
                                    l.locks |= 1 << m;
                                } else {
                                    l.locks &= !(1 << m);
                                }
                            }
                        }
                        _ => {}
                    }
                    if self.accessing.binary_search(&e).is_ok() {
                        for &d in &self.accessing {
                            let other = cfg.owner[cfg.edge(d).src.index()] != t;
                            if let (true, Some(l)) = (other, next.latest[d.index()]) {
                                if l.threads >> t & 1 == 0 {
                                    self.out.extend(conflicts(cfg, d, e).into_iter().map(|x| (d.min(e), d.max(e), x)));
                                }
                            }
                        }
                        next.latest[e.index()] = Some(Latest { threads: 1 << t, locks: 0 });
                    }
                    emit(e, next)?;
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// [`races`] with finite states (see the module docs): every race of every execution, and
/// why the search stopped early if it did (`bounds.max_states`, `bounds.deadline`).
pub fn races_stateful(cfg: &Cfg, bounds: &Config) -> (BTreeSet<Race>, Option<String>) {
    let accessing: Vec<Edge> = cfg
        .edge_ids()
        .filter(|&e| {
            let (r, w) = cfg.accesses(cfg.edge(e));
            !r.is_empty() || w.is_some()
        })
        .collect();
    let mut m = Stateful { cfg, accessing, out: BTreeSet::new() };
    let found = crate::reach::reach(&mut m, Strategy::Breadth, bounds);
    (m.out, found.cut.map(|c| c.explain("the happens-before search")))
}
