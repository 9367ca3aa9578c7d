//! The depth-first engine that the naive and stateful explorers share (and DPOR, where it
//! falls back to plain enumeration): expanding a state into its children, walking the tree
//! of choices with an explicit stack, and recording events. It holds no reduction of its own
//! beyond what [`Config`] asks for; what a caller adds is passed in ([`Merge`]).
//!
//! At each node the engine either
//! 1. fixes a lazy initial-heap value, if some thread's next step needs one (all candidates
//!    become children: every initial object, and a fresh one while fewer than the heap bound
//!    exist), or
//! 2. branches on every enabled (thread, alternative) pair, or, with [`Config::eager_local`],
//!    on the alternatives of the first thread whose next step is local (with
//!    [`Config::eager_checks`], or a check) and can run; the docs of those fields say what
//!    each keeps.
//!
//! A node with no child ends an execution, classified as terminated (every thread done),
//! stuck (some thread faulted), deadlocked (every unfinished thread blocked) or infeasible
//! (an `assume` failed). A node at the step budget ends a *truncated* execution; the
//! execution budget and the deadline stop the search. Either makes the exploration
//! incomplete. A state property ([`Config::state_predicate`], RacerDX's Def. 3.6) is
//! evaluated at every branching node, the initial state included.
//!
//! Cost: one clone of the state per child tried (cheap: `machine::cow` shares what a step
//! does not write) and one step per child; memory is the current path, each level holding
//! its node's children.

use std::ops::ControlFlow;

use super::explorer::{Config, Execution, Outcome, StateRace, Stats};
use super::schedule::Choice;
use crate::machine::*;

/// What a search with a visited set adds to the engine (the stateful explorer,
/// `super::stateful`): a child seen before is not expanded, and its path ends as
/// [`Outcome::Merged`].
pub(super) trait Merge<'p> {
    /// Records `st`, and says whether it had been recorded before.
    fn seen(&mut self, st: &State<'p>) -> bool;
    /// How many distinct states are recorded (bounded by [`Config::max_states`]).
    fn states(&self) -> u64;
}

/// A node of the tree: a state's children (each a choice, the state it leads to and the
/// event it yields), the next child to enter, or how the execution ends here.
pub(super) struct Node<'p> {
    pub(super) succs: Vec<(Choice, State<'p>, Option<EventKind>)>,
    next: usize,
    pub(super) leaf: Option<Outcome>,
    /// The lazy initial value this node fixes (its children are `Choice::Heap`).
    pub(super) need: Option<LazyRef>,
}

/// How an execution that stands at `st` ends, if it ends there (no thread can step).
pub(super) fn classify<'p>(m: &Machine<'p>, st: &State<'p>, cfg: &Config, steps: usize) -> Option<Outcome> {
    let n = expand(m, st, cfg, steps);
    if n.succs.is_empty() {
        n.leaf
    } else {
        None
    }
}

/// Expands a state into its children (or classifies it as a leaf).
pub(super) fn expand<'p>(m: &Machine<'p>, st: &State<'p>, cfg: &Config, steps: usize) -> Node<'p> {
    // A run that has finished exactly at the budget is terminated, not truncated.
    let done = st.threads.iter().all(|t| t.status == Status::Done);
    if steps >= cfg.max_steps as usize && !done {
        return Node { succs: vec![], next: 0, leaf: Some(Outcome::Truncated), need: None };
    }
    if cfg.eager_local {
        if let Some(t) =
            (0..st.threads.len()).map(thread_id).find(|&t| st.threads[t.0 as usize].status == Status::Running && (m.is_local(st, t) || (cfg.eager_checks && m.is_check(st, t))))
        {
            let mut local = vec![];
            for &alt in m.alternatives(st, t) {
                let mut child = st.clone();
                match m.step(&mut child, t, alt) {
                    Ok(ev) => local.push((Choice::Step { thread: t, alt }, child, ev)),
                    Err(Disabled::NeedChoice(r)) => return heap_node(m, st, r, cfg),
                    // A faulting or infeasible local step: fall through to the full
                    // expansion, which records why and lets the other threads go on.
                    Err(_) => {}
                }
            }
            if !local.is_empty() {
                return Node { succs: local, next: 0, leaf: None, need: None };
            }
        }
    }
    let mut succs = vec![];
    let mut stuck: Option<Outcome> = None;
    let mut blocked = vec![];
    let mut infeasible = false;
    for ti in 0..st.threads.len() {
        let t = thread_id(ti);
        if st.threads[ti].status == Status::Done {
            continue;
        }
        for &alt in m.alternatives(st, t) {
            let mut child = st.clone();
            match m.step(&mut child, t, alt) {
                Ok(ev) => succs.push((Choice::Step { thread: t, alt }, child, ev)),
                Err(Disabled::NeedChoice(r)) => return heap_node(m, st, r, cfg),
                Err(Disabled::Blocked(why)) => blocked.push(format!("{}: {why} (line {})", st.threads[ti].name, m.next_line(st, t).unwrap_or(0))),
                Err(Disabled::Fault(why)) => {
                    if stuck.is_none() {
                        stuck = Some(Outcome::Stuck { thread: st.threads[ti].name.to_string(), line: m.next_line(st, t).unwrap_or(0), reason: why });
                    }
                }
                Err(Disabled::Infeasible) => infeasible = true,
            }
        }
    }
    let leaf = if !succs.is_empty() {
        None
    } else if infeasible {
        Some(Outcome::Infeasible)
    } else if let Some(s) = stuck {
        Some(s)
    } else if !blocked.is_empty() {
        Some(Outcome::Deadlock { blocked })
    } else {
        Some(Outcome::Terminated)
    };
    Node { succs, next: 0, leaf, need: None }
}

fn heap_node<'p>(m: &Machine<'p>, st: &State<'p>, r: LazyRef, cfg: &Config) -> Node<'p> {
    let mut succs = vec![];
    let mut k = 0;
    for o in st.initial_objects() {
        let mut child = st.clone();
        child.resolve_lazy(m, r, Some(o));
        succs.push((Choice::Heap(k), child, None));
        k += 1;
    }
    if st.lazy_objects < cfg.heap_bound {
        let mut child = st.clone();
        child.resolve_lazy(m, r, None);
        succs.push((Choice::Heap(k), child, None));
    }
    // No candidate at all (heap bound 0): the execution cannot go on within the bounds.
    let leaf = succs.is_empty().then_some(Outcome::Truncated);
    Node { succs, next: 0, leaf, need: Some(r) }
}

/// Records what the state predicate finds in a state, unless it is a leaf or still fixing
/// the heap.
pub(super) fn watch<'p>(m: &Machine<'p>, cfg: &Config, node: &Node<'p>, st: &State<'p>, at: usize, choices: usize, out: &mut Vec<StateRace>) {
    let Some(pred) = cfg.state_predicate else { return };
    if node.leaf.is_some() || matches!(node.succs.first(), Some((Choice::Heap(_), ..))) {
        return;
    }
    out.extend(pred(m, st).into_iter().map(|pair| StateRace { at, choices, facts: st.initial_facts.len(), pair }));
}

/// Explores every execution from `init`, calling `visit` on each; `visit` may stop the
/// search early with `ControlFlow::Break` (the result is then incomplete).
///
/// With `merge` (the stateful explorer), a child it has seen before is not expanded: its
/// path ends as [`Outcome::Merged`]. Without it, this is the plain enumeration.
pub(super) fn explore<'p>(
    m: &Machine<'p>,
    init: State<'p>,
    cfg: &Config,
    visit: &mut dyn FnMut(&Execution<'_, 'p>) -> ControlFlow<()>,
    mut merge: Option<&mut dyn Merge<'p>>,
) -> Stats {
    if let Some(v) = merge.as_deref_mut() {
        v.seen(&init);
    }
    let mut stats = Stats { complete: true, ..Stats::default() };
    let mut trace: Vec<Event> = vec![];
    let mut path: Vec<Choice> = vec![];
    let mut found: Vec<StateRace> = vec![];
    // Per stack level: the node, and the lengths of trace/found when it was entered.
    let mut stack: Vec<(Node<'p>, State<'p>, usize, usize)> = vec![];
    let root = expand(m, &init, cfg, 0);
    watch(m, cfg, &root, &init, 0, 0, &mut found);
    stack.push((root, init, 0, 0));
    while let Some((node, state, tlen, dlen)) = stack.last_mut() {
        if let Some(outcome) = &node.leaf {
            stats.count(outcome);
            stats.steps += path.iter().filter(|c| matches!(c, Choice::Step { .. })).count() as u64;
            stats.events += trace.len() as u64;
            stats.loop_bound_hit |= state.loop_bound_hit;
            let ex = Execution { trace: &trace, schedule: &path, outcome, state, state_races: &found };
            // Every 256 executions, from the first: a deadline already passed stops at once.
            let late = stats.executions % 256 == 1 && cfg.deadline.is_some_and(|d| std::time::Instant::now() > d);
            // The stateful search counts the paths that were not merged (see `max_executions`).
            let counted = if merge.is_some() { stats.executions - stats.merged } else { stats.executions };
            let full = merge.as_deref().is_some_and(|v| v.states() >= cfg.max_states);
            if visit(&ex).is_break() || counted >= cfg.max_executions || full || late {
                stats.complete = false;
                break;
            }
            let (tl, dl) = (*tlen, *dlen);
            stack.pop();
            unwind(&mut trace, &mut path, &mut found, tl, dl, !stack.is_empty());
            continue;
        }
        if node.next >= node.succs.len() {
            let (tl, dl) = (*tlen, *dlen);
            stack.pop();
            unwind(&mut trace, &mut path, &mut found, tl, dl, !stack.is_empty());
            continue;
        }
        let (choice, child, ev) = node.succs[node.next].clone();
        node.next += 1;
        let (tl, dl) = (trace.len(), found.len());
        path.push(choice);
        record(m, state, Some(&child), choice, ev, &mut trace);
        let steps = path.iter().filter(|c| matches!(c, Choice::Step { .. })).count();
        let seen = merge.as_deref_mut().is_some_and(|v| v.seen(&child));
        let violated = cfg.stop_at_violation && trace.len() > tl && trace.last().is_some_and(|e| e.violation.is_some());
        let n = if seen {
            Node { succs: vec![], next: 0, leaf: Some(Outcome::Merged), need: None }
        } else if violated {
            Node { succs: vec![], next: 0, leaf: Some(Outcome::Violated), need: None }
        } else {
            expand(m, &child, cfg, steps)
        };
        watch(m, cfg, &n, &child, trace.len(), path.len(), &mut found);
        stack.push((n, child, tl, dl));
    }
    stats.states = merge.map_or(0, |v| v.states());
    stats
}

/// Appends the event of a step taken from `parent` to `child`, with the line of its
/// statement and what [`Machine::observe`] sees. Without `child` (DPOR, which steps on
/// through local steps before it records) the event carries no values: no oracle that
/// reads values runs on DPOR traces.
pub(super) fn record<'p>(m: &Machine<'p>, parent: &State<'p>, child: Option<&State<'p>>, choice: Choice, ev: Option<EventKind>, trace: &mut Vec<Event>) {
    if let (Choice::Step { thread, .. }, Some(kind)) = (choice, ev) {
        let line = m.next_line(parent, thread).unwrap_or(0);
        // OK since a trace has at most one event per step, at most `Config::max_steps` (a u32).
        let idx = EventIdx(u32::try_from(trace.len()).unwrap_or(u32::MAX));
        let (moved, violation) = m.observe(parent, child, thread, kind);
        trace.push(Event { idx, thread, line, kind, moved, violation });
    }
}

/// Restores the trace, path and race list to what they were when a node was entered.
fn unwind(trace: &mut Vec<Event>, path: &mut Vec<Choice>, found: &mut Vec<StateRace>, tlen: usize, dlen: usize, had_parent: bool) {
    trace.truncate(tlen);
    found.truncate(dlen);
    if had_parent {
        path.pop();
    }
}
