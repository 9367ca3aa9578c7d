//! E-STD (docs/spec/ldrf.md §1.2, §6.1): the standard interleaving semantics, explicit-state and
//! exhaustive. A state is ⟨pc, μ, φ⟩; a step moves one thread along one enabled
//! instruction. Its race verdict (§1.3 \[D\]) is simultaneous enabledness: a reachable state
//! in which two threads' next instructions access one variable, one of them writing.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::rc::Rc;

use super::cfg::{Cfg, Cmd, Edge, Node, Var};
use crate::explore::Config;
use crate::reach::{Kept, Model, Strategy};

/// ⟨pc, μ, φ⟩. μ and φ are shared between a state and its successors until a step writes
/// them (`Rc::make_mut`): most steps write neither. An `Rc` hashes, orders and prints as what
/// it points to, so keys are those of plain vectors.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StdState {
    /// Each thread's location.
    pub pc: Vec<Node>,
    /// Each lock's holder.
    pub owner: Rc<Vec<Option<u8>>>,
    /// The store (values mod K).
    pub env: Rc<Vec<i64>>,
}

/// A race of E-STD: two instructions (the smaller first) and the variable.
pub type Race = (Edge, Edge, Var);

/// The reachable standard states and what was found among them.
#[derive(Clone, Debug, Default)]
pub struct Reach {
    /// Every reachable state, in the order met, with the state and edge it was first
    /// reached from: the witness paths ([`path_to`]).
    pub states: Kept<StdState, Edge>,
    /// Every race (§1.3), sorted.
    pub races: BTreeSet<Race>,
    /// Every pair of instructions of two threads that leave their locations in one
    /// reachable state (the smaller edge first): races and region races (Def. 12) under
    /// any partition are read off these.
    pub together: BTreeSet<(Edge, Edge)>,
    /// Every assert instruction that fails in some reachable state.
    pub failed_asserts: BTreeSet<Edge>,
    /// Final states (no successor): every thread at its end, or blocked.
    pub finals: u64,
    /// … of which some thread is not at its end (blocked on a lock or an assume).
    pub blocked: u64,
    /// Why the search stopped early, if it did.
    pub cut: Option<String>,
}

impl StdState {
    /// s_ent: every thread at its entry, no lock held, every variable 0.
    pub fn initial(cfg: &Cfg) -> StdState {
        StdState { pc: cfg.entries.clone(), owner: Rc::new(vec![None; cfg.locks.len()]), env: Rc::new(vec![0; cfg.vars.len()]) }
    }

    /// Every successor by thread `t` along instruction `e` (an edge leaving `pc[t]`).
    pub fn step(&self, cfg: &Cfg, t: usize, e: Edge) -> Vec<StdState> {
        let edge = cfg.edge(e);
        let env = |x: Var| self.env[x.index()];
        // OK since the ldrf dialect admits at most 64 threads (its size rule).
        let me = u8::try_from(t).unwrap_or(u8::MAX);
        let mut next = self.clone();
        next.pc[t] = edge.dst;
        match &edge.cmd {
            Cmd::Assign(x, a) => Rc::make_mut(&mut next.env)[x.index()] = cfg.eval(a, &env),
            Cmd::Nondet(x, lo, hi) => {
                return cfg
                    .nondet(*lo, *hi)
                    .into_iter()
                    .map(|v| {
                        let mut n = next.clone();
                        Rc::make_mut(&mut n.env)[x.index()] = v;
                        n
                    })
                    .collect();
            }
            Cmd::Assume(b) if !cfg.holds(b, &env) => return vec![],
            Cmd::Acquire(m) if self.owner[m.index()].is_some() => return vec![],
            Cmd::Acquire(m) => Rc::make_mut(&mut next.owner)[m.index()] = Some(me),
            Cmd::Release(m) if self.owner[m.index()] != Some(me) => return vec![],
            Cmd::Release(m) => Rc::make_mut(&mut next.owner)[m.index()] = None,
            Cmd::Assume(_) | Cmd::Assert(_) | Cmd::Skip => {}
        }
        vec![next]
    }

    /// Every (edge, successor) of every thread.
    pub fn successors(&self, cfg: &Cfg) -> Vec<(Edge, StdState)> {
        let mut out = vec![];
        for (t, &n) in self.pc.iter().enumerate() {
            for &e in &cfg.out[n.index()] {
                out.extend(self.step(cfg, t, e).into_iter().map(|s| (e, s)));
            }
        }
        out
    }

    /// The next instructions of two threads in this state (the smaller edge first).
    pub fn together(&self, cfg: &Cfg) -> Vec<(Edge, Edge)> {
        let mut out = vec![];
        for (t, &n) in self.pc.iter().enumerate() {
            for &u in &self.pc[t + 1..] {
                for &e1 in &cfg.out[n.index()] {
                    for &e2 in &cfg.out[u.index()] {
                        out.push((e1.min(e2), e1.max(e2)));
                    }
                }
            }
        }
        out
    }
}

/// The variables two instructions conflict on (one writes what the other reads or writes).
pub fn conflicts(cfg: &Cfg, e1: Edge, e2: Edge) -> Vec<Var> {
    let (r1, w1) = cfg.accesses(cfg.edge(e1));
    let (r2, w2) = cfg.accesses(cfg.edge(e2));
    let mut out = vec![];
    if let Some(x) = w1 {
        if w2 == Some(x) || r2.contains(&x) {
            out.push(x);
        }
    }
    if let Some(x) = w2 {
        if r1.contains(&x) && !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// A region race (Def. 12, A10): two instructions (the smaller first) and the region (an
/// index into the partition).
pub type RegionRace = (Edge, Edge, usize);

/// The region races of a search under `partition`: instructions of two threads, leaving
/// their locations in one reachable state, that access one region, one of them writing a
/// variable of it. Singleton regions give the data races (§3: DRF is the special case).
pub fn region_races(cfg: &Cfg, r: &Reach, partition: &[Vec<Var>]) -> BTreeSet<RegionRace> {
    let region = cfg.region_of(partition);
    let touched = |e: Edge| {
        let (reads, write) = cfg.accesses(cfg.edge(e));
        (reads.into_iter().map(|x| region[x.index()]).collect::<BTreeSet<_>>(), write.map(|x| region[x.index()]))
    };
    let mut out = BTreeSet::new();
    for &(e1, e2) in &r.together {
        let ((r1, w1), (r2, w2)) = (touched(e1), touched(e2));
        for (w, (r, o)) in [(w1, (&r2, w2)), (w2, (&r1, w1))] {
            if let Some(w) = w {
                if r.contains(&w) || o == Some(w) {
                    out.insert((e1, e2, w));
                }
            }
        }
    }
    out
}

/// E-STD as a [`Model`]: every thread's enabled instructions, with the per-state race and
/// assert checks of [`reach`].
struct Standard<'c> {
    cfg: &'c Cfg,
    r: Reach,
}

impl Model for Standard<'_> {
    type State = StdState;
    type Label = Edge;

    fn initial(&mut self) -> StdState {
        StdState::initial(self.cfg)
    }

    fn successors(&mut self, s: &StdState, emit: &mut dyn FnMut(Edge, StdState) -> ControlFlow<()>) -> ControlFlow<()> {
        for (e, n) in s.successors(self.cfg) {
            emit(e, n)?;
        }
        ControlFlow::Continue(())
    }

    fn visit(&mut self, s: &StdState, _: Option<&[Edge]>, is_final: bool) -> ControlFlow<()> {
        let (cfg, r) = (self.cfg, &mut self.r);
        for (e1, e2) in s.together(cfg) {
            if r.together.insert((e1, e2)) {
                r.races.extend(conflicts(cfg, e1, e2).into_iter().map(|x| (e1, e2, x)));
            }
        }
        for &n in &s.pc {
            for &e in &cfg.out[n.index()] {
                if let Cmd::Assert(b) = &cfg.edge(e).cmd {
                    if !cfg.holds(b, &|x| s.env[x.index()]) {
                        r.failed_asserts.insert(e);
                    }
                }
            }
        }
        if is_final {
            r.blocked += u64::from(s.pc.iter().any(|&n| !cfg.out[n.index()].is_empty()));
        }
        ControlFlow::Continue(())
    }
}

/// Every reachable standard state (breadth first, so witness paths are shortest), its races
/// and failing asserts. `bounds.max_states` and `bounds.deadline` bound the search
/// (incomplete, `cut` says so).
pub fn reach(cfg: &Cfg, bounds: &Config) -> Reach {
    let mut m = Standard { cfg, r: Reach::default() };
    let found = crate::reach::reach(&mut m, Strategy::BreadthKeep, bounds);
    Reach { states: found.kept, finals: found.finals, cut: found.cut.map(|c| c.explain("the standard semantics")), ..m.r }
}

/// Remark 9's search as a [`Model`]: a standard state with the landing point of each lock's
/// last release, recording the synchronizes-with pairs as it steps.
struct Sw<'c> {
    cfg: &'c Cfg,
    out: BTreeSet<(Node, Node)>,
}

impl Model for Sw<'_> {
    type State = (StdState, Vec<Option<Node>>);
    type Label = Edge;

    fn initial(&mut self) -> Self::State {
        (StdState::initial(self.cfg), vec![None; self.cfg.locks.len()])
    }

    fn successors(&mut self, (s, last): &Self::State, emit: &mut dyn FnMut(Edge, Self::State) -> ControlFlow<()>) -> ControlFlow<()> {
        let cfg = self.cfg;
        for (t, &n) in s.pc.iter().enumerate() {
            for &e in &cfg.out[n.index()] {
                for next in s.step(cfg, t, e) {
                    let mut last = last.clone();
                    match cfg.edge(e).cmd {
                        Cmd::Acquire(m) => self.out.extend(last[m.index()].map(|r| (r, n))),
                        Cmd::Release(m) => last[m.index()] = Some(cfg.edge(e).dst),
                        _ => {}
                    }
                    emit(e, (next, last))?;
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// Remark 9's observed synchronizes-with pairs (§6.1): (n̄, n) when some standard execution
/// has a release landing at n̄ followed, as the next acquire of that lock, by an acquire
/// leaving n. A search over (state, the landing point of each lock's last release); why it
/// stopped early, if it did.
pub fn observed_sw(cfg: &Cfg, bounds: &Config) -> (BTreeSet<(Node, Node)>, Option<String>) {
    let mut m = Sw { cfg, out: BTreeSet::new() };
    let found = crate::reach::reach(&mut m, Strategy::Breadth, bounds);
    (m.out, found.cut.map(|c| c.explain("the synchronizes-with search")))
}

/// The instructions from the initial state to `s`, read off a search's parent links: E-STD's
/// and E-LDRF's witness paths.
pub fn path_to<S: std::hash::Hash + Eq>(states: &Kept<S, Edge>, s: &S) -> Vec<Edge> {
    states.path_to(s)
}
