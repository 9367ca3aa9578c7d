//! The trace-level race check of Def. 4 (spec/ldrf.md §1.3): every standard execution is
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

use std::collections::{BTreeSet, HashSet, VecDeque};

use super::cfg::{Cfg, Cmd, Ix};
use super::standard::{conflicts, Race, StdState};
use crate::explore::Config;

/// One access remembered for a variable: the thread, its clock then, the instruction.
#[derive(Clone, Copy)]
struct Past {
    thread: usize,
    clock: u32,
    write: bool,
    edge: usize,
}

#[derive(Clone)]
struct Run {
    s: StdState,
    vc: Vec<Vec<u32>>,
    locks: Vec<Vec<u32>>,
    past: Vec<Vec<Past>>,
    steps: u32,
}

/// The races of every execution (Def. 4) as `(edge, edge, variable)`, the smaller edge
/// first, and whether the enumeration was complete.
pub fn races(cfg: &Cfg, bounds: &Config) -> (BTreeSet<Race>, bool) {
    let threads = cfg.entries.len();
    let init = Run {
        s: StdState::initial(cfg),
        vc: (0..threads).map(|t| (0..threads).map(|u| u32::from(t == u)).collect()).collect(),
        locks: vec![vec![0; threads]; cfg.locks.len()],
        past: vec![vec![]; cfg.vars.len()],
        steps: 0,
    };
    let (mut out, mut complete, mut executions) = (BTreeSet::new(), true, 0u64);
    let mut stack = vec![init];
    while let Some(r) = stack.pop() {
        let mut any = false;
        for (t, &n) in r.s.pc.iter().enumerate() {
            for &e in &cfg.out[n as usize] {
                for next in r.s.step(cfg, t, e) {
                    any = true;
                    if r.steps >= bounds.max_steps {
                        complete = false;
                        continue;
                    }
                    stack.push(advance(cfg, &r, t, e, next, &mut out));
                }
            }
        }
        if !any {
            executions += 1;
            if executions >= bounds.max_executions {
                return (out, false);
            }
        }
    }
    (out, complete)
}

/// The run after thread `t` took instruction `e` to state `s`, recording its races.
fn advance(cfg: &Cfg, r: &Run, t: usize, e: usize, s: StdState, out: &mut BTreeSet<Race>) -> Run {
    let mut n = r.clone();
    n.s = s;
    n.steps += 1;
    match cfg.edges[e].cmd {
        Cmd::Acquire(m) => {
            let l = &n.locks[usize::from(m)];
            n.vc[t] = n.vc[t].iter().zip(l).map(|(a, b)| *a.max(b)).collect();
        }
        Cmd::Release(m) => n.locks[usize::from(m)] = n.vc[t].clone(),
        _ => {}
    }
    let (reads, write) = cfg.accesses(&cfg.edges[e]);
    let mut touch = |x: Ix, is_write: bool| {
        for p in &n.past[usize::from(x)] {
            if p.thread != t && (is_write || p.write) && n.vc[t][p.thread] < p.clock {
                // `conflicts` names the variable the two instructions race on.
                if conflicts(cfg, p.edge, e).contains(&x) {
                    out.insert((p.edge.min(e), p.edge.max(e), x));
                }
            }
        }
        n.past[usize::from(x)].push(Past { thread: t, clock: n.vc[t][t], write: is_write, edge: e });
    };
    for x in reads {
        touch(x, false);
    }
    if let Some(x) = write {
        touch(x, true);
    }
    n.vc[t][t] += 1;
    n
}

/// The latest execution of one accessing instruction: the threads it happens before (bit t)
/// and the locks whose last release it happens before (bit m).
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

/// [`races`] with finite states (see the module docs): every race of every execution, and
/// why the search stopped early if it did (`bounds.max_states`).
pub fn races_stateful(cfg: &Cfg, bounds: &Config) -> (BTreeSet<Race>, Option<String>) {
    let accessing: Vec<usize> = (0..cfg.edges.len())
        .filter(|&e| {
            let (r, w) = cfg.accesses(&cfg.edges[e]);
            !r.is_empty() || w.is_some()
        })
        .collect();
    let init = HbState { s: StdState::initial(cfg), latest: vec![None; cfg.edges.len()] };
    let mut out = BTreeSet::new();
    let mut seen = HashSet::from([init.clone()]);
    let mut queue = VecDeque::from([init]);
    while let Some(h) = queue.pop_front() {
        for (t, &n) in h.s.pc.iter().enumerate() {
            for &e in &cfg.out[n as usize] {
                for s in h.s.step(cfg, t, e) {
                    let mut next = HbState { s, latest: h.latest.clone() };
                    match cfg.edges[e].cmd {
                        Cmd::Acquire(m) => {
                            for l in next.latest.iter_mut().flatten().filter(|l| l.locks >> m & 1 == 1) {
                                l.threads |= 1 << t;
                            }
                        }
                        // The lock's clock becomes the releaser's: it now happens after exactly
                        // what the releaser happens after.
                        Cmd::Release(m) => {
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
                    if accessing.binary_search(&e).is_ok() {
                        for &d in &accessing {
                            let other = cfg.owner[cfg.edges[d].src as usize] != t;
                            if let (true, Some(l)) = (other, next.latest[d]) {
                                if l.threads >> t & 1 == 0 {
                                    out.extend(conflicts(cfg, d, e).into_iter().map(|x| (d.min(e), d.max(e), x)));
                                }
                            }
                        }
                        next.latest[e] = Some(Latest { threads: 1 << t, locks: 0 });
                    }
                    if seen.len() as u64 >= bounds.max_states {
                        return (out, Some(format!("the happens-before search hit its budget of {} states (raise --max-states)", bounds.max_states)));
                    }
                    if seen.insert(next.clone()) {
                        queue.push_back(next);
                    }
                }
            }
        }
    }
    (out, None)
}
