//! One explicit-state search for the models that do not run on the `machine`: Naik-Aiken's
//! instrumented semantics (docs/spec/naik_aiken.md §4.2), E-STD and E-LDRF (docs/spec/ldrf.md §1.2,
//! §2, §6.1), Remark 9's synchronizes-with search and the two happens-before checks of
//! Def. 4 (docs/spec/ldrf.md §1.3). A model says what its initial state is and what the
//! successors of a state are; [`reach`] owns the rest: the visited set, the parent pointers,
//! every budget of [`Config`], the deadline, and the one [`Cut`] that says why a search
//! stopped early.
//!
//! Four strategies ([`Strategy`]):
//! - [`Strategy::Tree`]: depth first over the tree of paths, no merging (a property of a
//!   path's history, Def. 4). `max_steps` truncates a path (the search goes on, incomplete)
//!   and `max_executions` bounds the paths that end (a stop), as in the naive explorer.
//! - [`Strategy::Depth`]: depth first, a path that reaches a state seen before stops there.
//!   The path to the visited state is the stack, so every visit sees its path for free.
//!   A state at `max_steps` steps stops the search: a later, shorter path to it would be
//!   merged into it and its successors never explored, so a truncated stateful search
//!   cannot honestly go on.
//! - [`Strategy::Breadth`]: breadth first with a visited set of keys; a state is dropped
//!   once expanded.
//! - [`Strategy::BreadthKeep`]: breadth first keeping every state with the state and label it
//!   was first reached from ([`Kept`]): witness paths are shortest. The steps budget does
//!   not apply to the breadth-first strategies (their depth is a shortest distance, not an
//!   execution's length); the states budget bounds them.
//!
//! Every keyed strategy stops (incomplete, [`Cut::States`]) when a transition (even one to a known state) is met while
//! the visited set holds `max_states` states; every strategy stops ([`Cut::Deadline`]) once
//! `Config::deadline` has passed, checked after every expanded state.
//!
//! A state is identified by its 128-bit fingerprint ([`crate::fingerprint`]), so the visited
//! set costs 16 bytes per state plus the table's overhead whatever a state's size.
//!
//! ## Cost
//! Time: for each expanded state, the model's successor function, one fingerprint (a walk
//! of the state's `Hash` stream and one XXH3-128 run over it) and one hash-table probe per
//! successor; [`Strategy::Tree`] skips the fingerprint and the probe. Memory: per visited
//! state, a 16-byte key and about as much table overhead; the frontier holds whole states
//! (depth first: the successors of every state on the current path; breadth first: the
//! queue); [`Strategy::BreadthKeep`] also keeps every state and a parent index for the
//! whole search (`Kept`), which is what its callers read.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::ops::ControlFlow;

use crate::explore::{Config, Stats};
use crate::fingerprint;

/// A transition system to search.
pub trait Model {
    /// A state; its `Hash` stream is its identity (equal streams, one state).
    type State: Hash;
    /// What a transition is called in a path (an instruction, a step).
    type Label: Copy;

    /// The initial state.
    fn initial(&mut self) -> Self::State;

    /// Calls `emit` on every successor of `s`, with the transition's label. `emit` breaks
    /// when the search is cut; the model should then stop and return the break (`emit(..)?`).
    /// A model may record what it learns from each transition as it emits it.
    fn successors(&mut self, s: &Self::State, emit: &mut dyn FnMut(Self::Label, Self::State) -> ControlFlow<()>) -> ControlFlow<()>;

    /// Called once on every state the search expands, after its successors: the path to it
    /// (depth-first strategies; `None` breadth first, whose callers read paths off [`Kept`])
    /// and whether it has no successor. A break stops the search ([`Cut::Stopped`]).
    fn visit(&mut self, _s: &Self::State, _path: Option<&[Self::Label]>, _is_final: bool) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

/// The order of the search and what it remembers (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Depth first over paths, nothing merged.
    Tree,
    /// Depth first, merging states seen before.
    Depth,
    /// Breadth first, merging states seen before.
    Breadth,
    /// Breadth first, keeping every state and its parent.
    BreadthKeep,
}

/// Why a search stopped early. Every cut makes the search incomplete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The visited set held `Config::max_states` states.
    States(u64),
    /// A path of a stateful depth-first search reached `Config::max_steps` steps.
    Steps(u32),
    /// `Config::max_executions` paths ended ([`Strategy::Tree`]).
    Executions(u64),
    /// `Config::deadline` passed.
    Deadline,
    /// The model's visit broke.
    Stopped,
}

impl Cut {
    /// Why, as a sentence whose subject is the search's name (`the standard semantics`).
    pub fn explain(&self, search: &str) -> String {
        match self {
            Cut::States(n) => format!("{search} hit its budget of {n} states (raise --max-states)"),
            Cut::Steps(n) => format!("a path reached {n} steps (raise --max-steps)"),
            Cut::Executions(n) => format!("{search} hit its budget of {n} executions (raise --max-executions)"),
            Cut::Deadline => "the campaign's deadline passed during the check".into(),
            Cut::Stopped => "the check stopped the search".into(),
        }
    }
}

/// What a search covered.
#[derive(Clone, Debug)]
pub struct Searched<S, L> {
    /// Distinct states met (keyed strategies), or paths' nodes visited ([`Strategy::Tree`]).
    pub states: u64,
    /// Expanded states without a successor.
    pub finals: u64,
    /// Paths cut at `max_steps` ([`Strategy::Tree`]).
    pub truncated: u64,
    /// Why the search stopped early, if it did.
    pub cut: Option<Cut>,
    /// Every state with its parent ([`Strategy::BreadthKeep`]; empty otherwise).
    pub kept: Kept<S, L>,
}

impl<S, L> Searched<S, L> {
    /// Whether the search covered everything: no cut, no truncated path.
    pub fn complete(&self) -> bool {
        self.cut.is_none() && self.truncated == 0
    }

    /// The counts as the explorers report them: finals as executions, `complete` false on
    /// any cut or truncation.
    pub fn stats(&self) -> Stats {
        Stats { executions: self.finals, truncated: self.truncated, states: self.states, complete: self.complete(), ..Stats::default() }
    }
}

/// Every state a [`Strategy::BreadthKeep`] search met, in the order it met them (so the
/// initial state first), each with the state and label it was first reached from.
#[derive(Clone, Debug)]
pub struct Kept<S, L> {
    states: Vec<S>,
    parents: Vec<Option<(usize, L)>>,
    index: HashMap<u128, usize>,
}

impl<S, L> Default for Kept<S, L> {
    fn default() -> Self {
        Kept { states: vec![], parents: vec![], index: HashMap::new() }
    }
}

impl<S: Hash + Eq, L: Copy> Kept<S, L> {
    /// How many states.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether there are none (a search that kept nothing).
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Every state, in the order the search met them.
    pub fn keys(&self) -> std::slice::Iter<'_, S> {
        self.states.iter()
    }

    /// Whether `s` was met.
    pub fn contains_key(&self, s: &S) -> bool {
        self.position(s).is_some()
    }

    fn position(&self, s: &S) -> Option<usize> {
        let i = *self.index.get(&fingerprint::of(s))?;
        (self.states[i] == *s).then_some(i)
    }

    /// The labels from the initial state to `s` (empty if `s` was not met).
    pub fn path_to(&self, s: &S) -> Vec<L> {
        let mut path = vec![];
        let mut cur = self.position(s);
        while let Some(Some((prev, l))) = cur.map(|i| self.parents[i]) {
            path.push(l);
            cur = Some(prev);
        }
        path.reverse();
        path
    }
}

/// Searches `model` from its initial state with `strategy` within `cfg`'s budgets (see the
/// module docs for which budget applies to which strategy).
pub fn reach<M: Model>(model: &mut M, strategy: Strategy, cfg: &Config) -> Searched<M::State, M::Label> {
    let mut out = Searched { states: 0, finals: 0, truncated: 0, cut: None, kept: Kept::default() };
    match strategy {
        Strategy::Tree | Strategy::Depth => depth_first(model, strategy == Strategy::Depth, cfg, &mut out),
        Strategy::Breadth | Strategy::BreadthKeep => breadth_first(model, strategy == Strategy::BreadthKeep, cfg, &mut out),
    }
    out
}

fn late(cfg: &Config) -> bool {
    cfg.deadline.is_some_and(|d| std::time::Instant::now() > d)
}

fn depth_first<M: Model>(m: &mut M, merge: bool, cfg: &Config, out: &mut Searched<M::State, M::Label>) {
    let mut seen = HashSet::new();
    let init = m.initial();
    if merge {
        seen.insert(fingerprint::of(&init));
    }
    let mut path: Vec<M::Label> = vec![];
    // Each frame: the successors of the state at that depth still to explore.
    let mut stack: Vec<std::vec::IntoIter<(M::Label, M::State)>> = vec![];
    let mut current = Some(init);
    loop {
        if let Some(s) = current.take() {
            let mut succ = vec![];
            let _ = m.successors(&s, &mut |l, n| {
                succ.push((l, n));
                ControlFlow::Continue(())
            });
            out.states += 1;
            let is_final = succ.is_empty();
            out.finals += u64::from(is_final);
            out.cut = if m.visit(&s, Some(&path), is_final).is_break() {
                Some(Cut::Stopped)
            } else if !merge && is_final && out.finals >= cfg.max_executions {
                Some(Cut::Executions(cfg.max_executions))
            } else if merge && path.len() >= cfg.max_steps as usize {
                Some(Cut::Steps(cfg.max_steps))
            } else if late(cfg) {
                Some(Cut::Deadline)
            } else {
                None
            };
            if out.cut.is_some() {
                return;
            }
            if !merge && !is_final && path.len() >= cfg.max_steps as usize {
                // Truncated: the path ends here, its successors unexplored.
                out.truncated += 1;
                path.pop();
                continue;
            }
            stack.push(succ.into_iter());
            continue;
        }
        let Some(top) = stack.last_mut() else { return };
        match top.next() {
            Some((l, n)) => {
                if merge {
                    if seen.len() as u64 >= cfg.max_states {
                        out.cut = Some(Cut::States(cfg.max_states));
                        return;
                    }
                    if !seen.insert(fingerprint::of(&n)) {
                        continue;
                    }
                }
                path.push(l);
                current = Some(n);
            }
            None => {
                stack.pop();
                path.pop();
            }
        }
    }
}

fn breadth_first<M: Model>(m: &mut M, keep: bool, cfg: &Config, out: &mut Searched<M::State, M::Label>) {
    let init = m.initial();
    let mut seen: HashMap<u128, usize> = HashMap::from([(fingerprint::of(&init), 0)]);
    // Kept: the states in the order met (the queue is a cursor into it); else the queue.
    let (mut states, mut parents, mut queue) = (vec![], vec![], VecDeque::new());
    if keep {
        states.push(init);
        parents.push(None);
    } else {
        queue.push_back(init);
    }
    let mut next = 0usize;
    loop {
        let owned;
        let s = if keep {
            match states.get(next) {
                Some(s) => s,
                None => break,
            }
        } else {
            match queue.pop_front() {
                Some(s) => {
                    owned = s;
                    &owned
                }
                None => break,
            }
        };
        let (mut fresh, mut cut, mut any) = (vec![], None, false);
        let _ = m.successors(s, &mut |l, n| {
            any = true;
            if cut.is_some() || seen.len() as u64 >= cfg.max_states {
                cut = Some(Cut::States(cfg.max_states));
                return ControlFlow::Break(());
            }
            let len = seen.len();
            if let std::collections::hash_map::Entry::Vacant(v) = seen.entry(fingerprint::of(&n)) {
                v.insert(len);
                fresh.push((l, n));
            }
            ControlFlow::Continue(())
        });
        out.finals += u64::from(!any);
        let stopped = m.visit(s, None, !any).is_break();
        for (l, n) in fresh {
            if keep {
                states.push(n);
                parents.push(Some((next, l)));
            } else {
                queue.push_back(n);
            }
        }
        next += 1;
        out.cut = cut.or(stopped.then_some(Cut::Stopped)).or_else(|| late(cfg).then_some(Cut::Deadline));
        if out.cut.is_some() {
            break;
        }
    }
    out.states = seen.len() as u64;
    if keep {
        out.kept = Kept { states, parents, index: seen };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A counter mod `n` that steps by 1 or 2: every strategy meets `n` states.
    struct Ring(u32);

    impl Model for Ring {
        type State = u32;
        type Label = u8;
        fn initial(&mut self) -> u32 {
            0
        }
        fn successors(&mut self, s: &u32, emit: &mut dyn FnMut(u8, u32) -> ControlFlow<()>) -> ControlFlow<()> {
            emit(1, (s + 1) % self.0)?;
            emit(2, (s + 2) % self.0)
        }
    }

    #[test]
    fn keyed_strategies_meet_every_state_once() {
        for strategy in [Strategy::Depth, Strategy::Breadth, Strategy::BreadthKeep] {
            let r = reach(&mut Ring(10), strategy, &Config::default());
            assert_eq!((r.states, r.cut), (10, None), "{strategy:?}");
        }
        let r = reach(&mut Ring(10), Strategy::BreadthKeep, &Config::default());
        assert_eq!(r.kept.keys().copied().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(r.kept.path_to(&7), vec![1, 2, 2, 2], "shortest, first found");
        assert!(r.kept.path_to(&10).is_empty() && !r.kept.contains_key(&10));
    }

    #[test]
    fn budgets_cut() {
        let small = Config { max_states: 4, ..Config::default() };
        for strategy in [Strategy::Depth, Strategy::Breadth, Strategy::BreadthKeep] {
            let r = reach(&mut Ring(10), strategy, &small);
            assert_eq!((r.states, r.cut), (4, Some(Cut::States(4))), "{strategy:?}");
            assert!(!r.stats().complete);
        }
        // Exactly the budget: the next transition is met at the budget, and cuts even though
        // it leads back to a known state (the rule the L-DRF engines always had).
        assert_eq!(reach(&mut Ring(4), Strategy::Breadth, &small).cut, Some(Cut::States(4)));
        let r = reach(&mut Ring(10), Strategy::Depth, &Config { max_steps: 3, ..Config::default() });
        assert_eq!(r.cut, Some(Cut::Steps(3)));
        // A tree never ends a path here: every path is truncated at 3 steps (2^3 of them).
        let r = reach(&mut Ring(10), Strategy::Tree, &Config { max_steps: 3, ..Config::default() });
        assert_eq!((r.truncated, r.cut, r.complete()), (8, None, false));
        let past = Config { deadline: std::time::Instant::now().checked_sub(std::time::Duration::from_secs(1)), ..Config::default() };
        assert!(past.deadline.is_some());
        for strategy in [Strategy::Tree, Strategy::Depth, Strategy::Breadth, Strategy::BreadthKeep] {
            assert_eq!(reach(&mut Ring(10), strategy, &past).cut, Some(Cut::Deadline), "{strategy:?}");
        }
    }
}
