//! Following one path through the engine's tree (`super::dfs`) instead of all of them:
//! replaying a schedule ([`replay`], how every witness is checked), translating a schedule
//! between a machine that skips dead loads and the plain one ([`replay_filling_heap`]), and
//! a directed search of one thread alone ([`search_thread`]).

use super::dfs::{expand, record, watch, Node};
use super::explorer::{Config, Execution, ExploreError};
use super::schedule::{Choice, Schedule};
use crate::machine::*;

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
    let outcome = node.leaf.unwrap_or(super::explorer::Outcome::Truncated);
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

/// What [`search_thread`] found.
#[derive(Clone, Debug)]
pub enum ThreadSearch<'p> {
    /// The first state satisfying the goal.
    Found(Reached<'p>),
    /// No state within the loop and step bounds satisfies it.
    Absent,
    /// The state budget ran out first: nothing is shown either way.
    Exhausted,
}

/// Depth-first search over the executions of thread `t` alone (every other thread stays
/// where it is) for the first state satisfying `goal`, checked before each step. Used to
/// build directed witnesses (docs/spec/racerdx.md §4.5: "find a control path for thread a …
/// stopping just before c'"). Loops are bounded by `cfg.loop_bound`, paths by
/// `cfg.max_steps`; lazy initial values are not fixed here (such paths are dead ends).
/// The search visits at most `cfg.max_states` states: the paths of one thread grow
/// exponentially with its nondeterministic branches, so without a count an input can hold
/// a check for minutes.
pub fn search_thread<'p>(m: &Machine<'p>, start: Reached<'p>, t: ThreadId, cfg: &Config, goal: &mut impl FnMut(&State<'p>) -> bool) -> ThreadSearch<'p> {
    let mut stack = vec![start];
    let mut visited = 0u64;
    while let Some(r) = stack.pop() {
        visited += 1;
        if visited > cfg.max_states {
            return ThreadSearch::Exhausted;
        }
        if goal(&r.state) {
            return ThreadSearch::Found(r);
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
    ThreadSearch::Absent
}
