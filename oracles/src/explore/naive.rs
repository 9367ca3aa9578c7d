//! The naive explorer: depth-first enumeration of every interleaving and every
//! nondeterministic choice. This is the trusted base (design.md, principle 1): no reduction,
//! no caching; every state is cloned.
//!
//! At each node the explorer either
//! 1. fixes a lazy initial-heap value, if some thread's next step needs one (all candidates
//!    become children: every initial object, and a fresh one while fewer than the heap bound
//!    exist), or
//! 2. branches on every enabled (thread, alternative) pair.
//!
//! A node with no child ends an execution, classified as terminated (every thread done),
//! stuck (some thread faulted), deadlocked (every unfinished thread blocked) or infeasible
//! (an `assume` failed). A node at the step budget ends a *truncated* execution; the
//! execution budget stops the search. Either makes the exploration incomplete, and a verdict
//! built on an incomplete exploration is never `pass`.
//!
//! A state property (RacerDX's Definition 3.6, `race::def36`) is evaluated through the
//! hook [`Config::state_predicate`] at every branching node, the initial state included.
//!
//! Reduction: with [`Config::eager_local`] (the default) a thread whose next step is local
//! runs alone; that keeps every trace, every final state and every state in which all
//! threads stand at non-local steps (see the field's docs), and `tests/explore.rs` checks it
//! against the fully naive enumeration (`--all-interleavings`). There is no other
//! reduction and no caching; every state is cloned.

use std::ops::ControlFlow;

use super::explorer::{Config, Execution, ExploreError, Explorer, Outcome, StateRace, Stats};
use super::schedule::{Choice, Schedule};
use crate::machine::*;

/// The naive explorer (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct Naive;

impl Explorer for Naive {
    fn explore<'p>(&self, m: &Machine<'p>, init: State<'p>, cfg: &Config, visit: &mut dyn FnMut(&Execution<'_, 'p>) -> ControlFlow<()>) -> Stats {
        explore(m, init, cfg, visit, None, &State::key)
    }
}

struct Node<'p> {
    succs: Vec<(Choice, State<'p>, Option<EventKind>)>,
    next: usize,
    leaf: Option<Outcome>,
    /// The lazy initial value this node fixes (its children are `Choice::Heap`).
    need: Option<LazyRef>,
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
fn expand<'p>(m: &Machine<'p>, st: &State<'p>, cfg: &Config, steps: usize) -> Node<'p> {
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
fn watch<'p>(m: &Machine<'p>, cfg: &Config, node: &Node<'p>, st: &State<'p>, at: usize, choices: usize, out: &mut Vec<StateRace>) {
    let Some(pred) = cfg.state_predicate else { return };
    if node.leaf.is_some() || matches!(node.succs.first(), Some((Choice::Heap(_), ..))) {
        return;
    }
    out.extend(pred(m, st).into_iter().map(|pair| StateRace { at, choices, facts: st.initial_facts.len(), pair }));
}

/// Explores every execution from `init`, calling `visit` on each; `visit` may stop the
/// search early with `ControlFlow::Break` (the result is then incomplete).
///
/// With `visited` (the stateful explorer, `super::stateful`), a child whose `key` is already
/// in the set is not expanded: its path ends as [`Outcome::Merged`]. Without it, this is
/// the plain enumeration.
pub(super) fn explore<'p>(
    m: &Machine<'p>,
    init: State<'p>,
    cfg: &Config,
    visit: &mut dyn FnMut(&Execution<'_, 'p>) -> ControlFlow<()>,
    mut visited: Option<&mut std::collections::HashSet<u128>>,
    key: &dyn Fn(&State<'p>) -> u128,
) -> Stats {
    if let Some(v) = visited.as_deref_mut() {
        v.insert(key(&init));
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
            let late = stats.executions.is_multiple_of(256) && cfg.deadline.is_some_and(|d| std::time::Instant::now() > d);
            // The stateful search counts the paths that were not merged (see `max_executions`).
            let counted = if visited.is_some() { stats.executions - stats.merged } else { stats.executions };
            let full = visited.as_deref().is_some_and(|v| v.len() as u64 >= cfg.max_states);
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
        let seen = visited.as_deref_mut().is_some_and(|v| !v.insert(key(&child)));
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
    stats.states = visited.map_or(0, |v| v.len() as u64);
    stats
}

/// Appends the event of a step taken from `parent` to `child`, with the line of its
/// statement and what [`Machine::observe`] sees. Without `child` (DPOR, which steps on
/// through local steps before it records) the event carries no values: no oracle that
/// reads values runs on DPOR traces.
pub(super) fn record<'p>(m: &Machine<'p>, parent: &State<'p>, child: Option<&State<'p>>, choice: Choice, ev: Option<EventKind>, trace: &mut Vec<Event>) {
    if let (Choice::Step { thread, .. }, Some(kind)) = (choice, ev) {
        let line = m.next_line(parent, thread).unwrap_or(0);
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

/// Runs the one execution that `schedule` names and calls `visit` on it. With
/// `complete_prefix`, a schedule that ends early is completed by always taking the first
/// available choice (a Def. 3.6 witness schedule stops at the racing state).
///
/// # Errors
/// [`ExploreError`] when the schedule does not fit the program.
pub(super) fn replay<'p>(
    m: &Machine<'p>,
    init: State<'p>,
    cfg: &Config,
    schedule: &Schedule,
    complete_prefix: bool,
    visit: &mut dyn FnMut(&Execution<'_, 'p>),
) -> Result<(), ExploreError> {
    let mut trace = vec![];
    let mut found = vec![];
    let mut state = init;
    let mut steps = 0;
    let mut node = expand(m, &state, cfg, steps);
    for (i, want) in schedule.0.iter().enumerate() {
        watch(m, cfg, &node, &state, trace.len(), i, &mut found);
        let enabled = || node.succs.iter().map(|s| s.0.to_string()).collect::<Vec<_>>().join(", ");
        let Some((choice, child, ev)) = node.succs.iter().find(|s| s.0 == *want).cloned() else {
            return Err(ExploreError::Diverged { pos: i + 1, choice: want.to_string(), enabled: enabled() });
        };
        record(m, &state, Some(&child), choice, ev, &mut trace);
        if matches!(choice, Choice::Step { .. }) {
            steps += 1;
        }
        state = child;
        node = expand(m, &state, cfg, steps);
    }
    let mut path = schedule.0.clone();
    while node.leaf.is_none() {
        if !complete_prefix {
            let enabled = node.succs.iter().map(|s| s.0.to_string()).collect::<Vec<_>>().join(", ");
            return Err(ExploreError::TooShort { len: schedule.0.len(), enabled });
        }
        // Complete a prefix deterministically: always the first available choice.
        watch(m, cfg, &node, &state, trace.len(), path.len(), &mut found);
        let (choice, child, ev) = node.succs[0].clone();
        record(m, &state, Some(&child), choice, ev, &mut trace);
        if matches!(choice, Choice::Step { .. }) {
            steps += 1;
        }
        path.push(choice);
        state = child;
        node = expand(m, &state, cfg, steps);
    }
    let outcome = node.leaf.unwrap_or(Outcome::Truncated);
    visit(&Execution { trace: &trace, schedule: &path, outcome: &outcome, state: &state, state_races: &found });
    Ok(())
}

/// Translates a schedule of `fast`, a machine that skips dead loads
/// (`Machine::skipping_dead_loads`), into a schedule of `plain`, the same program's plain
/// machine. Both follow the schedule side by side from the same initial state. Where
/// `plain` must fix a lazy cell that `fast` does not fix now (a dead load), `plain` gives it
/// the value `fast` gives that cell later in the schedule, if it does, and otherwise the
/// first candidate (an existing initial object: a cell belongs to one); where `fast` then
/// fixes a cell that `plain` has fixed already, only `fast` takes the choice. Object numbers
/// stay aligned as long as no filled value is a fresh object; that case is refused.
/// Past the schedule's end, `plain` fixes what it still needs (a state that needs a choice
/// enables nothing). Returns the state `plain` reaches, with the completed schedule and the
/// trace.
///
/// # Errors
/// [`ExploreError::Diverged`] when a step of the schedule is not enabled, or a filled value
/// would be a fresh object.
pub fn replay_filling_heap<'p>(plain: &Machine<'p>, fast: &Machine<'p>, init: State<'p>, cfg: &Config, schedule: &Schedule) -> Result<Reached<'p>, ExploreError> {
    let diverged = |pos: usize, want: &Choice, n: &Node<'p>| ExploreError::Diverged {
        pos,
        choice: want.to_string(),
        enabled: n.succs.iter().map(|s| s.0.to_string()).collect::<Vec<_>>().join(", "),
    };
    let cell = |st: &State<'p>, r: LazyRef| match r {
        LazyRef::Cell(o, f) => st.objects.get(o.0 as usize).and_then(|x| x.fields.get(f.0 as usize)).copied(),
        LazyRef::Local(..) => None,
    };
    // Pass 1: the values `fast` gives lazy cells, and whether each is a fresh object.
    let mut fixed: Vec<(LazyRef, Option<Cell>, bool)> = vec![];
    let (mut st, mut steps) = (init.clone(), 0);
    for (i, want) in schedule.0.iter().enumerate() {
        let node = expand(fast, &st, cfg, steps);
        let (_, child, _) = node.succs.iter().find(|s| s.0 == *want).cloned().ok_or_else(|| diverged(i + 1, want, &node))?;
        if let Some(r) = node.need {
            fixed.push((r, cell(&child, r), child.lazy_objects > st.lazy_objects));
        }
        steps += usize::from(matches!(want, Choice::Step { .. }));
        st = child;
    }
    // Pass 2: side by side.
    let mut r = Reached { state: init.clone(), choices: vec![], trace: vec![] };
    let (mut other, mut steps, mut pos) = (init, 0, 0);
    loop {
        let node = expand(plain, &r.state, cfg, steps);
        let twin = expand(fast, &other, cfg, steps);
        // Past the schedule's end, `plain` still fixes what `fast` never needed, so that
        // the racing access is enabled there too (a state needing a choice enables nothing).
        let Some(want) = schedule.0.get(pos).or((node.need.is_some() && node.need != twin.need).then_some(&Choice::Heap(0))) else { break };
        if node.need.is_none() && twin.need.is_some() {
            // `plain` fixed this cell at a dead load already: only `fast` chooses.
            other = twin.succs.iter().find(|s| s.0 == *want).map(|s| s.1.clone()).ok_or_else(|| diverged(pos + 1, want, &twin))?;
            pos += 1;
            continue;
        }
        let (choice, child, ev) = match node.need {
            Some(need) if node.need != twin.need => {
                let later = fixed.iter().find(|(r, ..)| *r == need);
                match later {
                    Some((_, _, true)) => return Err(diverged(pos + 1, want, &node)),
                    Some((_, v, false)) => node.succs.iter().find(|s| cell(&s.1, need) == *v).cloned(),
                    None => node.succs.first().cloned(),
                }
                .ok_or_else(|| diverged(pos + 1, want, &node))?
            }
            _ => {
                other = twin.succs.iter().find(|s| s.0 == *want).map(|s| s.1.clone()).ok_or_else(|| diverged(pos + 1, want, &twin))?;
                pos += 1;
                node.succs.iter().find(|s| s.0 == *want).cloned().ok_or_else(|| diverged(pos, want, &node))?
            }
        };
        record(plain, &r.state, Some(&child), choice, ev, &mut r.trace);
        steps += usize::from(matches!(choice, Choice::Step { .. }));
        r.choices.push(choice);
        r.state = child;
    }
    Ok(r)
}

/// A state reached by stepping one thread alone, with the choices and events that led there.
#[derive(Clone, Debug)]
pub struct Reached<'p> {
    /// The state.
    pub state: State<'p>,
    /// The choices from the start state.
    pub choices: Vec<Choice>,
    /// The events from the start state.
    pub trace: Vec<Event>,
}

/// Depth-first search over the executions of thread `t` alone (every other thread stays
/// where it is) for the first state satisfying `goal`, checked before each step. Used to
/// build directed witnesses (spec/racerdx.md §4.5: "find a control path for thread a …
/// stopping just before c'"). Loops are bounded by `cfg.loop_bound`, paths by
/// `cfg.max_steps`; lazy initial values are not fixed here (such paths are dead ends).
pub fn search_thread<'p>(m: &Machine<'p>, start: Reached<'p>, t: ThreadId, cfg: &Config, goal: &mut impl FnMut(&State<'p>) -> bool) -> Option<Reached<'p>> {
    let mut stack = vec![start];
    while let Some(r) = stack.pop() {
        if goal(&r.state) {
            return Some(r);
        }
        if r.choices.len() >= cfg.max_steps as usize || r.state.threads[t.0 as usize].status == Status::Done {
            continue;
        }
        // Push alternatives in reverse so that alternative 0 is searched first.
        for &alt in m.alternatives(&r.state, t).iter().rev() {
            let mut next = r.state.clone();
            if let Ok(ev) = m.step(&mut next, t, alt) {
                let choice = Choice::Step { thread: t, alt };
                let mut trace = r.trace.clone();
                record(m, &r.state, Some(&next), choice, ev, &mut trace);
                let mut choices = r.choices.clone();
                choices.push(choice);
                stack.push(Reached { state: next, choices, trace });
            }
        }
    }
    None
}
