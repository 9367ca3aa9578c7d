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
//! RacerDX's Definition 3.6 (spec/racerdx.md §2.5) is evaluated here, because it is a
//! property of states, not of traces: at every branching node, two threads whose next
//! statements are conflicting accesses to the same address race. The initial state counts
//! too (the paper's bodies start with `skip`, which makes it reachable after one step).

use std::ops::ControlFlow;

use super::schedule::{Choice, Schedule};
use crate::lang::AccessKind;
use crate::machine::*;

/// Exploration bounds. Every one is printed with the results.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Config {
    /// K: iterations of each instance of a nondeterministic loop (`while *`).
    pub loop_bound: u32,
    /// Stop after this many executions (incomplete).
    pub max_executions: u64,
    /// Cut an execution after this many steps (truncated, incomplete).
    pub max_steps: u32,
    /// At most this many lazily created initial objects (RacerDX pair mode).
    pub heap_bound: u32,
    /// Evaluate Definition 3.6 at every node.
    pub def36: bool,
    /// Run local steps eagerly: when some thread's next step is local
    /// ([`Machine::is_local`]), only that thread is scheduled. Local steps commute with
    /// everything, so this keeps every trace (event sequence), every final state and every
    /// state in which all threads stand at non-local steps (hence every Def. 3.6 race); it
    /// only drops interleavings that differ in where silent steps sit. `false` gives the
    /// fully naive enumeration; `tests/explore.rs` checks that both find the same traces.
    /// Under truncation the two differ: a thread in a long local loop runs alone until the
    /// step budget cuts it, so other threads' races may not be reached (the result is then
    /// incomplete, never a pass).
    pub eager_local: bool,
    /// Stop (incomplete) once this instant has passed: a campaign's wall-clock budget.
    #[serde(skip)]
    pub deadline: Option<std::time::Instant>,
}

impl Default for Config {
    fn default() -> Config {
        Config { loop_bound: 2, max_executions: 200_000, max_steps: 2_000, heap_bound: 3, def36: false, eager_local: true, deadline: None }
    }
}

/// How an execution ended.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Outcome {
    /// Every thread finished.
    Terminated,
    /// Some thread cannot step and never will by itself (null dereference, unlock at depth 0,
    /// capsule violation, failed assert, …); the first such thread is named.
    Stuck {
        /// The stuck thread.
        thread: String,
        /// Its line.
        line: u32,
        /// Why.
        reason: String,
    },
    /// Every unfinished thread is blocked waiting.
    Deadlock {
        /// `thread: reason` for each blocked thread.
        blocked: Vec<String>,
    },
    /// An `assume` failed.
    Infeasible,
    /// The step budget cut the execution.
    Truncated,
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Terminated => f.write_str("terminated"),
            Outcome::Stuck { thread, line, reason } => write!(f, "stuck: {thread} at line {line}: {reason}"),
            Outcome::Deadlock { blocked } => write!(f, "deadlock: {}", blocked.join("; ")),
            Outcome::Infeasible => f.write_str("infeasible (an assume failed)"),
            Outcome::Truncated => f.write_str("truncated at the step budget"),
        }
    }
}

/// Two conflicting accesses enabled together in one state (Def. 3.6).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Def36Race {
    /// The state: after this many events of the trace.
    pub at: usize,
    /// … and this many choices of the schedule.
    pub choices: usize,
    /// … and this many lazily fixed initial-heap facts (`State::initial_facts`).
    pub facts: usize,
    /// The two accesses: thread, kind, address, line.
    pub pair: [(ThreadId, AccessKind, Addr, u32); 2],
    /// Their sites: the call-statement lines on each thread's stack, then the access line.
    pub sites: [Vec<u32>; 2],
}

/// One finished execution, as the visitor sees it.
#[derive(Debug)]
pub struct Execution<'a, 'p> {
    /// The events.
    pub trace: &'a [Event],
    /// The choices that reproduce it.
    pub schedule: &'a [Choice],
    /// How it ended.
    pub outcome: &'a Outcome,
    /// The final state (for object and thread names).
    pub state: &'a State<'p>,
    /// Def. 3.6 races in states along this execution (empty unless `Config::def36`).
    pub def36: &'a [Def36Race],
}

/// Counts over a whole exploration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Executions visited.
    pub executions: u64,
    /// … that terminated.
    pub terminated: u64,
    /// … that got stuck.
    pub stuck: u64,
    /// … that deadlocked.
    pub deadlocked: u64,
    /// … that were infeasible.
    pub infeasible: u64,
    /// … that hit the step budget.
    pub truncated: u64,
    /// Steps taken, summed over executions (a shared prefix counts once per execution).
    pub steps: u64,
    /// Events (trace entries), summed over executions.
    pub events: u64,
    /// Whether the search covered everything within the loop and heap bounds.
    pub complete: bool,
    /// Whether some nondeterministic loop was cut at the loop bound.
    pub loop_bound_hit: bool,
}

/// Errors of the explorer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExploreError {
    /// A replayed schedule asked for a choice that is not available.
    #[error("schedule diverges at position {pos}: `{choice}` is not enabled here (enabled: {enabled}); is the schedule from this program and these bounds?")]
    Diverged {
        /// 1-based position in the schedule.
        pos: usize,
        /// The choice asked for.
        choice: String,
        /// The choices available.
        enabled: String,
    },
    /// A replayed schedule ended before the execution did.
    #[error("schedule ends after {len} choices but the execution goes on (next: {enabled})")]
    TooShort {
        /// Schedule length.
        len: usize,
        /// The choices available.
        enabled: String,
    },
}

struct Node<'p> {
    succs: Vec<(Choice, State<'p>, Option<EventKind>)>,
    next: usize,
    leaf: Option<Outcome>,
}

/// Expands a state into its children (or classifies it as a leaf).
fn expand<'p>(m: &Machine<'p>, st: &State<'p>, cfg: &Config, steps: usize) -> Node<'p> {
    // A run that has finished exactly at the budget is terminated, not truncated.
    let done = st.threads.iter().all(|t| t.status == Status::Done);
    if steps >= cfg.max_steps as usize && !done {
        return Node { succs: vec![], next: 0, leaf: Some(Outcome::Truncated) };
    }
    if cfg.eager_local {
        if let Some(t) = (0..st.threads.len()).map(thread_id).find(|&t| st.threads[t.0 as usize].status == Status::Running && m.is_local(st, t)) {
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
                return Node { succs: local, next: 0, leaf: None };
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
                        stuck = Some(Outcome::Stuck { thread: st.threads[ti].name.clone(), line: m.next_line(st, t).unwrap_or(0), reason: why });
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
    Node { succs, next: 0, leaf }
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
    Node { succs, next: 0, leaf }
}

/// Records the Def. 3.6 races of a state, unless it is a leaf or still fixing the heap.
fn def36_at<'p>(m: &Machine<'p>, node: &Node<'p>, st: &State<'p>, at: usize, choices: usize, out: &mut Vec<Def36Race>) {
    if node.leaf.is_some() || matches!(node.succs.first(), Some((Choice::Heap(_), ..))) {
        return;
    }
    let next: Vec<_> = (0..st.threads.len()).filter_map(|i| m.next_access(st, thread_id(i)).map(|a| (thread_id(i), a))).collect();
    for (i, (t, (k1, a1, l1))) in next.iter().enumerate() {
        for (u, (k2, a2, l2)) in &next[i + 1..] {
            if a1 == a2 && (*k1 == AccessKind::Write || *k2 == AccessKind::Write) {
                let site = |t: ThreadId, line: u32| {
                    let mut s = m.call_sites(st, t);
                    s.push(line);
                    s
                };
                out.push(Def36Race { at, choices, facts: st.initial_facts.len(), pair: [(*t, *k1, *a1, *l1), (*u, *k2, *a2, *l2)], sites: [site(*t, *l1), site(*u, *l2)] });
            }
        }
    }
}

/// Explores every execution from `init`, calling `visit` on each; `visit` may stop the
/// search early with `ControlFlow::Break` (the result is then incomplete).
pub fn explore<'p>(m: &Machine<'p>, init: State<'p>, cfg: &Config, mut visit: impl FnMut(&Execution<'_, 'p>) -> ControlFlow<()>) -> Stats {
    let mut stats = Stats { complete: true, ..Stats::default() };
    let mut trace: Vec<Event> = vec![];
    let mut path: Vec<Choice> = vec![];
    let mut def36: Vec<Def36Race> = vec![];
    // Per stack level: the node, and the lengths of trace/def36 when it was entered.
    let mut stack: Vec<(Node<'p>, State<'p>, usize, usize)> = vec![];
    let root = expand(m, &init, cfg, 0);
    if cfg.def36 {
        def36_at(m, &root, &init, 0, 0, &mut def36);
    }
    stack.push((root, init, 0, 0));
    while let Some((node, state, tlen, dlen)) = stack.last_mut() {
        if let Some(outcome) = &node.leaf {
            stats.executions += 1;
            stats.steps += path.iter().filter(|c| matches!(c, Choice::Step { .. })).count() as u64;
            stats.events += trace.len() as u64;
            stats.loop_bound_hit |= state.loop_bound_hit;
            match outcome {
                Outcome::Terminated => stats.terminated += 1,
                Outcome::Stuck { .. } => stats.stuck += 1,
                Outcome::Deadlock { .. } => stats.deadlocked += 1,
                Outcome::Infeasible => stats.infeasible += 1,
                Outcome::Truncated => {
                    stats.truncated += 1;
                    stats.complete = false;
                }
            }
            let ex = Execution { trace: &trace, schedule: &path, outcome, state, def36: &def36 };
            let late = stats.executions % 256 == 0 && cfg.deadline.is_some_and(|d| std::time::Instant::now() > d);
            if visit(&ex).is_break() || stats.executions >= cfg.max_executions || late {
                stats.complete = false;
                break;
            }
            let (tl, dl) = (*tlen, *dlen);
            stack.pop();
            unwind(&mut trace, &mut path, &mut def36, tl, dl, !stack.is_empty());
            continue;
        }
        if node.next >= node.succs.len() {
            let (tl, dl) = (*tlen, *dlen);
            stack.pop();
            unwind(&mut trace, &mut path, &mut def36, tl, dl, !stack.is_empty());
            continue;
        }
        let (choice, child, ev) = node.succs[node.next].clone();
        node.next += 1;
        let (tl, dl) = (trace.len(), def36.len());
        path.push(choice);
        record(m, state, choice, ev, &mut trace);
        let steps = path.iter().filter(|c| matches!(c, Choice::Step { .. })).count();
        let n = expand(m, &child, cfg, steps);
        if cfg.def36 {
            def36_at(m, &n, &child, trace.len(), path.len(), &mut def36);
        }
        stack.push((n, child, tl, dl));
    }
    stats
}

/// Appends the event of a step taken from `parent`, with the line of its statement.
fn record<'p>(m: &Machine<'p>, parent: &State<'p>, choice: Choice, ev: Option<EventKind>, trace: &mut Vec<Event>) {
    if let (Choice::Step { thread, .. }, Some(kind)) = (choice, ev) {
        let line = m.next_line(parent, thread).unwrap_or(0);
        let idx = EventIdx(u32::try_from(trace.len()).unwrap_or(u32::MAX));
        trace.push(Event { idx, thread, line, kind });
    }
}

/// Restores the trace, path and race list to what they were when a node was entered.
fn unwind(trace: &mut Vec<Event>, path: &mut Vec<Choice>, def36: &mut Vec<Def36Race>, tlen: usize, dlen: usize, had_parent: bool) {
    trace.truncate(tlen);
    def36.truncate(dlen);
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
pub fn replay<'p, R>(
    m: &Machine<'p>,
    init: State<'p>,
    cfg: &Config,
    schedule: &Schedule,
    complete_prefix: bool,
    visit: impl FnOnce(&Execution<'_, 'p>) -> R,
) -> Result<R, ExploreError> {
    let mut trace = vec![];
    let mut def36 = vec![];
    let mut state = init;
    let mut steps = 0;
    let mut node = expand(m, &state, cfg, steps);
    for (i, want) in schedule.0.iter().enumerate() {
        if cfg.def36 {
            def36_at(m, &node, &state, trace.len(), i, &mut def36);
        }
        let enabled = || node.succs.iter().map(|s| s.0.to_string()).collect::<Vec<_>>().join(", ");
        let Some((choice, child, ev)) = node.succs.iter().find(|s| s.0 == *want).cloned() else {
            return Err(ExploreError::Diverged { pos: i + 1, choice: want.to_string(), enabled: enabled() });
        };
        record(m, &state, choice, ev, &mut trace);
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
        if cfg.def36 {
            def36_at(m, &node, &state, trace.len(), path.len(), &mut def36);
        }
        let (choice, child, ev) = node.succs[0].clone();
        record(m, &state, choice, ev, &mut trace);
        if matches!(choice, Choice::Step { .. }) {
            steps += 1;
        }
        path.push(choice);
        state = child;
        node = expand(m, &state, cfg, steps);
    }
    let outcome = node.leaf.unwrap_or(Outcome::Truncated);
    Ok(visit(&Execution { trace: &trace, schedule: &path, outcome: &outcome, state: &state, def36: &def36 }))
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
                record(m, &r.state, choice, ev, &mut trace);
                let mut choices = r.choices.clone();
                choices.push(choice);
                stack.push(Reached { state: next, choices, trace });
            }
        }
    }
    None
}
