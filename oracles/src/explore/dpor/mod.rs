//! Optimal dynamic partial-order reduction (docs/spec/dpor.md, algorithm 4):
//! Abdulla, Aronis, Jonsson and Sagonas, "Source sets: a foundation for optimal dynamic
//! partial order reduction" (J.ACM 2017), Algorithm 2 (source sets with wakeup trees). It
//! visits one execution per Mazurkiewicz class, so it preserves every property that is the
//! same on all members of a class ([`Property::Classes`]: happens-before races, racy
//! addresses, final states and how executions end), and nothing that depends on the order
//! of independent events (the first race of each linearization: the naive explorer).
//!
//! The search (Algorithm 2's `Explore`, with an explicit stack) is here; its parts are
//! one concept per module: `events` (the unit of scheduling, its name across
//! executions, dependence, the closure of local steps), `races` (the reversible races of
//! an execution and its happens-before relation), `wakeup` (wakeup trees: weak initials
//! and `insert`). Each module lists its own deviations from the paper.
//!
//! **Choices.** Closure choices (`if *`, `while *` in the local steps after a visible one)
//! make a thread's transition nondeterministic, which the paper's processes are not. We
//! read a program with choices as the union of deterministic programs, one per resolution
//! of every choice, whose searches share the prefixes where they agree: where a thread is
//! explored, *all* its alternatives are, each with the wakeup subtree inserted for it (or
//! none: a leaf), and only then does the thread sleep. Each deterministic program's search
//! is then embedded in ours, provided a wakeup sequence for any alternative of a thread
//! already in the tree is inserted under that thread's node, not as a new branch
//! (`wakeup`, `tests/regress/dpor_choice_after_access.race`). The price is that a branch
//! can end with every enabled thread asleep (an alternative nobody needed here); such a
//! branch is cut before it reaches a leaf and counted in [`Stats::redundant`], so the
//! executions visited stay one per class.
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
//! **What it costs.** One execution per Mazurkiewicz class (optimal), each a path from the
//! deepest node with an unexplored wakeup-tree branch. Per node, as in the naive explorer,
//! one step of the machine per enabled thread (DPOR needs each one's footprint for sleep
//! sets; the state after it is kept, and is the child's when the thread is explored); per
//! event, a happens-before update and the race check against the events it may race with
//! (kept incrementally across executions, undone on backtracking, in tables indexed by
//! dense resource numbers: `races`); per maximal execution, each race's reversal offered to
//! the wakeup tree of its node. Nodes' vectors and events' labels are reused, so the search
//! allocates little beyond the machine's states. Every node of the current path holds the
//! state of each enabled thread's next step, the sleep set and the wakeup tree, so memory
//! is the path times the threads. Per execution, where both run the same executions, DPOR
//! takes 1.27× the naive explorer's time on 2×7 locked increments (1.15× its instructions:
//! the rest is cache misses) and 1.63× on 2×7 `fetch_add` increments (`cargo bench -p
//! racefuzz-bench --bench explore -- dpor-vs-naive`; the book's "Explorers"). Where the two
//! differ in executions (every family with independent steps) DPOR runs exponentially fewer.
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

use std::ops::ControlFlow;
use std::rc::Rc;

use self::events::{closure, dependent, Closed, Label, Names, Next};
use self::races::{Hb, Races};
use self::wakeup::{offer, WNode};
use super::explorer::{Config, Execution, Explorer, Outcome, Stats};
use super::schedule::Choice;
use crate::machine::*;

mod events;
mod fx;
#[cfg(test)]
mod plain;
mod races;
mod wakeup;

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
    /// The wakeup tree's leftmost weak initial must also have the sequence's closure
    /// choices, so a sequence for another alternative of a thread passes its group by and
    /// becomes a branch after it, where the thread runs again (a bug a campaign found: repeated
    /// classes, `tests/regress/dpor_choice_after_access.race`).
    WeakInitialByChoices,
}

impl Dpor {
    /// The real DPOR explorer.
    pub const REAL: Dpor = Dpor { seeded: None };
}

impl Explorer for Dpor {
    fn explore<'p>(&self, m: &Machine<'p>, init: State<'p>, cfg: &Config, visit: &mut dyn FnMut(&Execution<'_, 'p>) -> ControlFlow<()>) -> Stats {
        if init.has_lazy_values() {
            return super::dfs::explore(m, init, cfg, visit, None);
        }
        Search {
            m,
            cfg,
            visit,
            names: Names::new(self.seeded),
            stats: Stats { complete: true, ..Stats::default() },
            trace: vec![],
            path: vec![],
            events: vec![],
            starts: vec![],
            stack: vec![],
            races: Races::default(),
            stop: false,
            closed: vec![],
            spare: Spare::default(),
        }
        .run(init)
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
    /// The race detection of `events`, kept across leaves (`races::Races`).
    races: Races,
    stop: bool,
    /// A buffer for a closure's outcomes, and the vectors of nodes popped.
    closed: Vec<Closed<'p>>,
    spare: Spare<'p>,
}

/// The vectors of nodes popped (cleared), kept for their allocations: a node needs a few,
/// and the search makes one node per event it runs.
#[derive(Default)]
struct Spare<'p> {
    next: Vec<Vec<Next<'p>>>,
    labels: Vec<Vec<Rc<Label>>>,
    wut: Vec<Vec<WNode>>,
    pending: Vec<Vec<(Closed<'p>, Vec<WNode>)>>,
}

impl<'p> Spare<'p> {
    fn keep(&mut self, mut next: Vec<Next<'p>>, sleep: Vec<Rc<Label>>, mut wut: Vec<WNode>, mut pending: Vec<(Closed<'p>, Vec<WNode>)>) {
        next.clear();
        wut.clear();
        pending.clear();
        self.keep_labels(sleep);
        if next.capacity() > 0 {
            self.next.push(next);
        }
        if wut.capacity() > 0 {
            self.wut.push(wut);
        }
        if pending.capacity() > 0 {
            self.pending.push(pending);
        }
    }

    fn keep_labels(&mut self, mut labels: Vec<Rc<Label>>) {
        labels.clear();
        if labels.capacity() > 0 {
            self.labels.push(labels);
        }
    }
}

impl<'p> Search<'_, '_, 'p> {
    fn run(mut self, init: State<'p>) -> Stats {
        // Choices before any visible step begin independent searches.
        let mut roots = vec![];
        closure(self.m, self.cfg, init, 0, &mut roots);
        for root in roots {
            if self.stop {
                break;
            }
            self.path.clone_from(&root.choices);
            self.node(root, vec![], vec![], (0, 0));
            self.dfs();
        }
        self.stats
    }

    /// Pushes the node for a closed state, or visits it as a leaf (then `false`).
    fn node(&mut self, c: Closed<'p>, sleep: Vec<Rc<Label>>, mut wut: Vec<WNode>, lens: (usize, usize)) -> bool {
        let mut next = self.spare.next.pop().unwrap_or_default();
        self.names.enabled(self.m, self.cfg, &c.state, c.steps, &mut next, &mut self.races.free);
        if next.is_empty() {
            self.spare.keep(next, sleep, wut, vec![]);
            self.leaf(&c.state, c.steps);
            return false;
        }
        if wut.is_empty() {
            // Algorithm 2, line 9: any enabled thread (one that does not sleep).
            let Some(n) = next.iter().find(|n| !sleep.iter().any(|s| s.thread == n.label.thread)) else {
                // Sleep-set blocked (see "Blocking" in the module docs): no execution is
                // visited from here, but the races of the prefix are still reversed, as
                // source-DPOR does at every step; they would be lost otherwise.
                self.stats.redundant += 1;
                self.spare.keep(next, sleep, wut, vec![]);
                self.reverse_races(&[]);
                return false;
            };
            let label = n.label.clone();
            if wut.capacity() == 0 {
                wut = self.spare.wut.pop().unwrap_or_default();
            }
            wut.push(WNode { label, children: vec![] });
        }
        let (pending, child_sleep) = (self.spare.pending.pop().unwrap_or_default(), self.spare.labels.pop().unwrap_or_default());
        self.stack.push(Node { state: c.state, steps: c.steps, next, sleep, wut, exploring: None, pending, child_sleep, lens });
        true
    }

    /// Algorithm 2's `Explore`, with an explicit stack.
    fn dfs(&mut self) {
        while !self.stop {
            let Some(top) = self.stack.last_mut() else { break };
            if let Some(e) = top.exploring {
                if let Some((c, wut)) = top.pending.pop() {
                    let (tid, ev) = (top.next[e].tid, top.next[e].ev);
                    // The event is the enabled thread's, with the closure's choices (shared
                    // when there are none: `races` identifies events by pointer, and this
                    // node explores the thread once).
                    let label = if events::same_alts(&top.next[e].label.alts, &c.alts) {
                        top.next[e].label.clone()
                    } else {
                        Rc::new(Label { alts: c.alts.clone(), ..(*top.next[e].label).clone() })
                    };
                    let mut sleep = self.spare.labels.pop().unwrap_or_default();
                    sleep.extend(top.child_sleep.iter().cloned());
                    let lens = (self.trace.len(), self.path.len());
                    let choice = Choice::Step { thread: tid, alt: 0 };
                    super::dfs::record(self.m, &top.state, None, choice, ev, &mut self.trace);
                    self.starts.push(self.path.len());
                    self.path.push(choice);
                    self.path.extend_from_slice(&c.choices);
                    self.events.push(label);
                    if !self.node(c, sleep, wut, lens) {
                        self.unwind(lens);
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
                if let Some(n) = self.stack.pop() {
                    self.spare.keep(n.next, n.sleep, n.wut, n.pending);
                    self.spare.keep_labels(n.child_sleep);
                }
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
            top.child_sleep.clear();
            top.child_sleep.extend(top.sleep.iter().filter(|s| self.names.bug == Some(DporBug::SleepKeptWhole) || !dependent(label, s)).cloned());
            let Some(after) = top.next[e].after.take() else {
                // Explored here already: a wakeup sequence for a thread that sleeps.
                self.stats.redundant += 1;
                top.wut.iter_mut().filter(|w| w.label.thread == t).for_each(|w| w.children.clear());
                top.wut.remove(0);
                continue;
            };
            closure(self.m, self.cfg, after, top.steps + 1, &mut self.closed);
            // Each outcome runs under the wakeup subtree of its thread's node with its
            // choices (or none); popped from the back, so the first outcome runs first.
            // Then the thread's nodes are leaves: what they held is being explored.
            top.pending.clear();
            for c in self.closed.drain(..).rev() {
                let sub =
                    top.wut.iter_mut().find(|w| w.label.thread == t && events::same_alts(&w.label.alts, &c.alts)).map(|w| std::mem::take(&mut w.children)).unwrap_or_default();
                top.pending.push((c, sub));
            }
            top.wut.iter_mut().filter(|w| w.label.thread == t).for_each(|w| w.children.clear());
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
        let outcome = super::dfs::classify(self.m, st, self.cfg, steps).unwrap_or(Outcome::Truncated);
        self.stats.count(&outcome);
        self.stats.steps += self.path.iter().filter(|c| matches!(c, Choice::Step { .. })).count() as u64;
        self.stats.events += self.trace.len() as u64;
        self.stats.loop_bound_hit |= st.loop_bound_hit;
        let ex = Execution { trace: &self.trace, schedule: &self.path, outcome: &outcome, state: st, state_races: &[] };
        // Every 256 executions, from the first: a deadline already passed stops at once.
        let late = self.stats.executions % 256 == 1 && self.cfg.deadline.is_some_and(|d| std::time::Instant::now() > d);
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
        // Taken out while `reversed` needs the search mutably; put back for the next leaf.
        let mut detect = std::mem::take(&mut self.races);
        let events = std::mem::take(&mut self.events);
        detect.extend(&events);
        let races = detect.races(&events, pending);
        let hb = detect.hb();
        let n = events.len();
        // One buffer of borrowed labels for every race's sequence: a leaf reverses several
        // races, each with a sequence about as long as the execution.
        let mut v: Vec<&Rc<Label>> = Vec::with_capacity(n);
        let by_choices = self.names.bug == Some(DporBug::WeakInitialByChoices);
        for (i, j) in races {
            // e_j: an event of E, or a pending attempt after it.
            let ej = if j < n { &events[j] } else { &pending[j - n] };
            // v = notdep(e_i, E) . e_j
            v.clear();
            v.extend(hb.notdep(&events, i).filter(|&k| k != j).map(|k| &events[k]));
            // The reversed event reads what e_i has not written yet: where that decides its
            // address, its footprint after notdep(e_i, E) is not the one recorded in E, and
            // is computed by running notdep(e_i, E) from the node of e_i.
            let e = &events[i];
            if ej.addressing.iter().any(|r| e.fp.iter().any(|(s, w)| *w && s == r)) {
                let replayed = self.reversed(&events, i, j, hb);
                debug_assert!(replayed.is_some(), "internal: replaying notdep(e_{i}, E) disagrees with E");
                let label = replayed.unwrap_or_else(|| Label { wild: true, ..(**ej).clone() });
                let mut owned: Vec<Rc<Label>> = v.iter().map(|&e| e.clone()).collect();
                owned.push(Rc::new(Label { alts: ej.alts.clone(), ..label }));
                let node = &mut self.stack[i];
                offer(&node.sleep, &mut node.wut, &mut owned, by_choices);
            } else {
                v.push(ej);
                let node = &mut self.stack[i];
                offer(&node.sleep, &mut node.wut, &mut v, by_choices);
            }
        }
        drop(v);
        self.events = events;
        self.races = detect;
    }

    /// The event `e_j` as it is after `pre(E, e_i) . notdep(e_i, E)`: the state at
    /// `e_i`'s node, with the choices of every event of `notdep(e_i, E)` replayed in order
    /// (each is independent of `e_i`, so it runs as in `E`; the thread of `e_j` is where it
    /// was just before `e_j`, since its events after `e_i` are in `notdep`). `None` (the
    /// caller falls back to a label dependent on everything) only if the replay disagrees
    /// with `E`, which would be an internal inconsistency.
    ///
    /// Thread ids number threads in creation order, and leaving out the events that
    /// happen after `e_i` may leave out a fork and renumber the threads forked after it
    /// (a panic, or a step of the wrong thread, before `tests/regress/dpor_fork_renumbers.race`).
    /// So each step's thread is found in the replay by its name, which does not depend on
    /// the interleaving.
    fn reversed(&mut self, events: &[Rc<Label>], i: usize, j: usize, hb: &Hb) -> Option<Label> {
        let end = |k: usize| self.starts.get(k + 1).copied().unwrap_or(self.path.len());
        let in_e = &self.stack.get(j)?.state;
        let same = |st: &State<'p>, t: ThreadId| -> Option<ThreadId> {
            let name = &in_e.threads.get(t.0 as usize)?.name;
            st.threads.iter().position(|u| u.name == *name).map(thread_id)
        };
        let mut st = self.stack[i].state.clone();
        for k in (i + 1..j).filter(|&k| !hb.before(events, i, k)) {
            for c in &self.path[self.starts[k]..end(k)] {
                let Choice::Step { thread, alt } = *c else { return None };
                let thread = same(&st, thread)?;
                self.m.step(&mut st, thread, alt).ok()?;
            }
        }
        let Choice::Step { thread: t, .. } = *self.path.get(*self.starts.get(j)?)? else { return None };
        let t = same(&st, t)?;
        let mut after = st.clone();
        let (ev, reads) = self.m.step_reading(&mut after, t, 0);
        Some(self.names.label(&st, t, &after, ev.ok()?, &reads))
    }
}
