//! E-LDRF (docs/spec/ldrf.md §2, §6.1): the thread-local semantics, explicit-state and
//! exhaustive. Every thread works on its own versioned copy of the store; a release leaves a
//! snapshot in the buffer of its post-release point (overwriting it); an acquire of m takes,
//! for each variable *independently*, a newest copy among its own and the buffers of m's
//! post-release points that G allows (updEnv, kept set-valued so that Lemma 6 violations
//! stay observable).
//!
//! Versions are normalised to dense ranks after every step (§2.1 \[D\]): only their order
//! matters, and a write makes the writer's version strictly the largest. The engine checks
//! "writer at max" on every write (§2.1 \[C\]): in a race-free program the writer of x always
//! holds the newest version of x.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::rc::Rc;

use super::cfg::{Cfg, Cmd, Edge, Lock, Node, Var};
use super::standard::StdState;
use crate::explore::Config;
use crate::machine::CowVec;
use crate::reach::{Kept, Model, Strategy};

/// A versioned environment ⟨φ, ν⟩: per variable, its value and version.
pub type VEnv = Vec<(i64, u32)>;

/// ⟨pc, μ, Θ, Λ⟩. μ, Θ and Λ are copy-on-write (`Rc`, [`CowVec`]): a step writes one
/// thread's copy (a release also one buffer, a lock step μ), so a successor shares every
/// other copy with its parent instead of copying it; a clone still behaves as a deep copy,
/// and the `Hash` stream is that of plain vectors.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocalState {
    /// Each thread's location.
    pub pc: Vec<Node>,
    /// Each lock's holder (shared like [`StdState::owner`], which χ hands it to).
    pub owner: Rc<Vec<Option<u8>>>,
    /// Θ: each thread's copy.
    pub theta: CowVec<VEnv>,
    /// Λ: the buffer of each post-release point ([`Cfg::all_release_points`] order): empty
    /// until a release lands there, then the last snapshot (the seeded bug `AppendBuffer`
    /// keeps every snapshot instead).
    pub lambda: CowVec<Vec<VEnv>>,
}

/// Which buffers an acquire reads: G(n̄) for each post-release point n̄ (§2; Remark 9).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Sync {
    /// G(n̄) = L^acq_m: every acquire of m reads every release point of m.
    #[default]
    Full,
    /// Only these (post-release point, acquire source) pairs: Remark 9's refinement.
    Pairs(BTreeSet<(Node, Node)>),
}

/// Seeded bugs of the engine, for the `ldrf-agree` oracle's teeth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LdrfBug {
    /// An acquire copies one newest snapshot whole instead of choosing per variable.
    WholeSnapshot,
    /// A release appends its snapshot to the buffer instead of overwriting it (the buffer
    /// keeps the two latest).
    AppendBuffer,
    /// An acquire ignores G and the lock: it reads the buffers of every release point.
    AcquireIgnoresG,
    /// A write does not bump the writer's version.
    NoVersionBump,
    /// χ reads a variable from a defined buffer, when there is one, before the threads.
    ChiPrefersBuffers,
    /// A release leaves no snapshot.
    ReleaseNoSnapshot,
    /// R-DRF: a write bumps the version of the written variable only, not of its whole
    /// region (§3).
    RegionBumpOne,
}

/// The engine: the program's graphs, G, where its buffers live, and a seeded bug if any.
pub struct Ldrf<'c> {
    cfg: &'c Cfg,
    sync: Sync,
    rel: Vec<Node>,
    bug: Option<LdrfBug>,
    /// E-RDRF: the region of each variable; a write bumps its whole region (§3).
    region: Option<Vec<usize>>,
}

/// The reachable L-DRF states and what went wrong among them.
#[derive(Clone, Debug, Default)]
pub struct LocalReach {
    /// Every reachable state, in the order met, with the state and instruction it was
    /// first reached from.
    pub states: Kept<LocalState, Edge>,
    /// Writes by a thread whose version of the variable was not the newest (§2.1): the
    /// instruction and the state it was taken from (first one per instruction).
    pub writer_not_max: Vec<(Edge, LocalState)>,
    /// Acquires whose updEnv had more than one result (ties that disagree, Lemma 6).
    pub ambiguous_acquires: Vec<(Edge, LocalState)>,
    /// Why the search stopped early, if it did.
    pub cut: Option<String>,
}

impl<'c> Ldrf<'c> {
    /// The engine for `cfg` with G = `sync`.
    pub fn new(cfg: &'c Cfg, sync: Sync) -> Ldrf<'c> {
        Ldrf { cfg, sync, rel: cfg.all_release_points(), bug: None, region: None }
    }

    /// E-RDRF (§3): this engine where a write to x bumps the version of every variable of
    /// x's region under `partition`.
    #[must_use]
    pub fn with_regions(mut self, partition: &[Vec<Var>]) -> Ldrf<'c> {
        self.region = Some(self.cfg.region_of(partition));
        self
    }

    /// This engine with a seeded bug.
    #[must_use]
    pub fn with_bug(mut self, bug: Option<LdrfBug>) -> Ldrf<'c> {
        self.bug = bug;
        self
    }

    /// σ_ent: every thread at its entry with the all-zero store at version 0, no buffer.
    pub fn initial(&self) -> LocalState {
        let env = vec![(0, 0); self.cfg.vars.len()];
        LocalState {
            pc: self.cfg.entries.clone(),
            owner: Rc::new(vec![None; self.cfg.locks.len()]),
            theta: vec![env; self.cfg.entries.len()].into(),
            lambda: vec![vec![]; self.rel.len()].into(),
        }
    }

    fn buffer(&self, n: Node) -> Option<usize> {
        self.rel.binary_search(&n).ok()
    }

    /// Whether an acquire leaving `acq` reads the buffer of `rel` (G).
    fn allowed(&self, rel: Node, acq: Node) -> bool {
        match &self.sync {
            Sync::Full => true,
            Sync::Pairs(p) => p.contains(&(rel, acq)),
        }
    }

    /// The newest version of `x` anywhere (threads and defined buffers).
    fn newest(s: &LocalState, x: usize) -> u32 {
        s.theta.iter().chain(s.lambda.iter().flatten()).map(|v| v[x].1).max().unwrap_or(0)
    }

    /// Every successor by thread `t` along instruction `e`, and whether the step was a write
    /// by a thread not holding the newest version.
    pub fn step(&self, s: &LocalState, t: usize, e: Edge) -> (Vec<LocalState>, bool) {
        let cfg = self.cfg;
        let edge = cfg.edge(e);
        let local = |x: Var| s.theta[t][x.index()].0;
        // OK since the ldrf dialect admits at most 64 threads (its size rule).
        let me = u8::try_from(t).unwrap_or(u8::MAX);
        let mut next = s.clone();
        next.pc[t] = edge.dst;
        // ν[x ↦ ν(x)+1] on the writer's own copy (§2): in a racy program that can tie with
        // another copy's version, which is exactly what Lemma 6's check then sees.
        let bump = u32::from(self.bug != Some(LdrfBug::NoVersionBump));
        let write = |n: &mut LocalState, x: Var, v: i64| {
            let x = x.index();
            n.theta[t][x] = (v, s.theta[t][x].1 + bump);
            // R-DRF: ν[y ↦ ν(y)+1 | r(y) = r(x)], so a region's variables move together.
            if let (Some(region), false) = (&self.region, self.bug == Some(LdrfBug::RegionBumpOne)) {
                for y in (0..region.len()).filter(|&y| y != x && region[y] == region[x]) {
                    n.theta[t][y].1 = s.theta[t][y].1 + bump;
                }
            }
        };
        let out = match &edge.cmd {
            Cmd::Assign(x, a) => {
                write(&mut next, *x, cfg.eval(a, &local));
                vec![next]
            }
            Cmd::Nondet(x, lo, hi) => cfg
                .nondet(*lo, *hi)
                .into_iter()
                .map(|v| {
                    let mut n = next.clone();
                    write(&mut n, *x, v);
                    n
                })
                .collect(),
            Cmd::Assume(b) if !cfg.holds(b, &local) => vec![],
            Cmd::Acquire(m) if s.owner[m.index()].is_some() => vec![],
            Cmd::Release(m) if s.owner[m.index()] != Some(me) => vec![],
            Cmd::Release(m) => {
                Rc::make_mut(&mut next.owner)[m.index()] = None;
                match (self.buffer(edge.dst), self.bug) {
                    (_, Some(LdrfBug::ReleaseNoSnapshot)) | (None, _) => {}
                    (Some(b), Some(LdrfBug::AppendBuffer)) => {
                        // The two latest snapshots: an unbounded list would make a spin loop's
                        // state space infinite (every round appends a newer version).
                        if !next.lambda[b].contains(&s.theta[t]) {
                            next.lambda[b].push(s.theta[t].clone());
                            if next.lambda[b].len() > 2 {
                                next.lambda[b].remove(0);
                            }
                        }
                    }
                    (Some(b), _) => next.lambda.set(b, vec![s.theta[t].clone()]),
                }
                vec![next]
            }
            Cmd::Acquire(m) => {
                Rc::make_mut(&mut next.owner)[m.index()] = Some(me);
                self.acquire(&next, t, *m, edge.src)
            }
            Cmd::Assume(_) | Cmd::Assert(_) | Cmd::Skip => vec![next],
        };
        let stale_write = match &edge.cmd {
            Cmd::Assign(x, _) | Cmd::Nondet(x, ..) => s.theta[t][x.index()].1 < Self::newest(s, x.index()),
            _ => false,
        };
        (out.into_iter().map(normalise).collect(), stale_write)
    }

    /// updEnv: every copy that takes each variable from a newest member of Y.
    fn acquire(&self, s: &LocalState, t: usize, m: Lock, at: Node) -> Vec<LocalState> {
        let mut y: Vec<&VEnv> = vec![&s.theta[t]];
        let points = if self.bug == Some(LdrfBug::AcquireIgnoresG) { self.rel.clone() } else { self.cfg.release_points(m) };
        for n in points {
            if let (Some(b), true) = (self.buffer(n), self.allowed(n, at) || self.bug == Some(LdrfBug::AcquireIgnoresG)) {
                y.extend(s.lambda[b].iter());
            }
        }
        if self.bug == Some(LdrfBug::WholeSnapshot) {
            // The member newest in the most variables, whole (ties: each of them).
            let score = |v: &VEnv| (0..v.len()).filter(|&x| y.iter().all(|o| o[x].1 <= v[x].1)).count();
            let best = y.iter().map(|v| score(v)).max().unwrap_or(0);
            let mut whole: Vec<VEnv> = y.iter().filter(|v| score(v) == best).map(|v| (*v).clone()).collect();
            whole.sort();
            whole.dedup();
            return whole
                .into_iter()
                .map(|env| {
                    let mut n = s.clone();
                    n.theta.set(t, env);
                    n
                })
                .collect();
        }
        let vars = self.cfg.vars.len();
        let mut envs: Vec<VEnv> = vec![Vec::with_capacity(vars)];
        let mut take: Vec<(i64, u32)> = vec![];
        for x in 0..vars {
            let top = y.iter().map(|v| v[x].1).max().unwrap_or(0);
            take.clear();
            take.extend(y.iter().map(|v| v[x]).filter(|c| c.1 == top));
            take.sort_unstable();
            take.dedup();
            // Each env extended by each choice for x, in order (one choice: in place).
            if let [c] = take[..] {
                envs.iter_mut().for_each(|e| e.push(c));
            } else {
                envs = envs
                    .into_iter()
                    .flat_map(|e| {
                        take.iter().map(move |&c| {
                            let mut e = e.clone();
                            e.push(c);
                            e
                        })
                    })
                    .collect();
            }
        }
        envs.into_iter()
            .map(|env| {
                let mut n = s.clone();
                n.theta.set(t, env);
                n
            })
            .collect()
    }

    /// Every reachable L-DRF state (breadth first), with the writes and acquires that break
    /// race-free behaviour. `bounds.max_states` and `bounds.deadline` bound the search.
    pub fn reach(&self, bounds: &Config) -> LocalReach {
        let mut m = Search { engine: self, r: LocalReach::default(), stale_seen: BTreeSet::new(), ambiguous_seen: BTreeSet::new() };
        let found = crate::reach::reach(&mut m, Strategy::BreadthKeep, bounds);
        LocalReach { states: found.kept, cut: found.cut.map(|c| c.explain("the L-DRF semantics")), ..m.r }
    }
}

/// E-LDRF as a [`Model`], recording the first stale write and the first ambiguous acquire
/// of each instruction as it steps.
struct Search<'e, 'c> {
    engine: &'e Ldrf<'c>,
    r: LocalReach,
    stale_seen: BTreeSet<Edge>,
    ambiguous_seen: BTreeSet<Edge>,
}

impl Model for Search<'_, '_> {
    type State = LocalState;
    type Label = Edge;

    fn initial(&mut self) -> LocalState {
        self.engine.initial()
    }

    fn successors(&mut self, s: &LocalState, emit: &mut dyn FnMut(Edge, LocalState) -> ControlFlow<()>) -> ControlFlow<()> {
        let cfg = self.engine.cfg;
        for (t, &n) in s.pc.iter().enumerate() {
            for &e in &cfg.out[n.index()] {
                let (succ, stale) = self.engine.step(s, t, e);
                if stale && self.stale_seen.insert(e) {
                    self.r.writer_not_max.push((e, s.clone()));
                }
                if matches!(cfg.edge(e).cmd, Cmd::Acquire(_)) && succ.len() > 1 && self.ambiguous_seen.insert(e) {
                    self.r.ambiguous_acquires.push((e, s.clone()));
                }
                for n in succ {
                    emit(e, n)?;
                }
            }
        }
        ControlFlow::Continue(())
    }
}

/// Replaces every version by its dense rank among the versions of that variable present in
/// the state (§2.1). Only copies whose version changes are written, so copies shared with
/// the parent state stay shared.
fn normalise(mut s: LocalState) -> LocalState {
    let vars = s.theta.first().map_or(0, Vec::len);
    let mut vs: Vec<u32> = vec![];
    for x in 0..vars {
        vs.clear();
        vs.extend(s.theta.iter().chain(s.lambda.iter().flatten()).map(|v| v[x].1));
        vs.sort_unstable();
        vs.dedup();
        // Distinct, sorted and ending at len - 1: already the ranks 0..len.
        if vs.last().is_none_or(|&v| u32::try_from(vs.len() - 1) == Ok(v)) {
            continue;
        }
        // OK since a rank is below the number of copies (threads plus buffers), far below 2³².
        let rank = |v: u32| u32::try_from(vs.binary_search(&v).unwrap_or(0)).unwrap_or(u32::MAX);
        for t in 0..s.theta.len() {
            let r = rank(s.theta[t][x].1);
            if r != s.theta[t][x].1 {
                s.theta[t][x].1 = r;
            }
        }
        for b in 0..s.lambda.len() {
            for k in 0..s.lambda[b].len() {
                let r = rank(s.lambda[b][k][x].1);
                if r != s.lambda[b][k][x].1 {
                    s.lambda[b][k][x].1 = r;
                }
            }
        }
    }
    s
}

/// Whether the state is admissible (Lemma 6): any two copies (threads or buffers) with one
/// version of x agree on x's value. The first disagreement: the variable.
pub fn inadmissible(s: &LocalState) -> Option<usize> {
    let vars = s.theta.first().map_or(0, Vec::len);
    (0..vars).find(|&x| {
        let mut seen: Vec<(u32, i64)> = s.theta.iter().chain(s.lambda.iter().flatten()).map(|v| (v[x].1, v[x].0)).collect();
        seen.sort_unstable();
        seen.dedup();
        seen.windows(2).any(|w| w[0].0 == w[1].0)
    })
}

/// The region form of Lemma 6 (§3 \[P/D\]): in R-DRF every copy gives all variables of a
/// region one version. The first copy that does not: the region's index in `partition`.
/// (Ranks are per variable, but equal raw versions in every copy have equal ranks.)
pub fn region_split(s: &LocalState, partition: &[Vec<Var>]) -> Option<usize> {
    partition.iter().position(|r| s.theta.iter().chain(s.lambda.iter().flatten()).any(|env| r.iter().any(|&y| env[y.index()].1 != env[r[0].index()].1)))
}

impl Ldrf<'_> {
    /// χ (Def. 5): ⟨pc, μ, λx. Θ(t*)φ(x)⟩ with t* a thread holding the newest version of x
    /// (the first such thread; on an admissible state they agree). Only threads count.
    pub fn extract(&self, s: &LocalState) -> StdState {
        let vars = s.theta.first().map_or(0, Vec::len);
        let env = (0..vars)
            .map(|x| {
                if self.bug == Some(LdrfBug::ChiPrefersBuffers) {
                    if let Some(b) = s.lambda.iter().flatten().last() {
                        return b[x].0;
                    }
                }
                let best = s.theta.iter().map(|v| v[x].1).max().unwrap_or(0);
                s.theta.iter().find(|v| v[x].1 == best).map_or(0, |v| v[x].0)
            })
            .collect();
        StdState { pc: s.pc.clone(), owner: s.owner.clone(), env: Rc::new(env) }
    }
}
