//! E-CART (docs/spec/ldrf.md §6.1): the exact thread-local cartesian semantics ⟦P⟧× of §5.1, the
//! collecting semantics of the *sequential* sync-CFG program, with a pluggable mix.
//!
//! The domain is A× = L → ℘(Env): every location n holds a set a(n) of whole environments
//! (every variable of the program, values mod K, §6.2). Versions are dropped, and so are the
//! correlations between threads. a(ent_t) = {0̄}; a post-release point also holds the
//! snapshots left there (its buffer, α×). One abstract edge per instruction ⟨n, c, n'⟩:
//!
//! - assign, nondet, assume, assert, skip: a(n') ∪= ⋃_{φ ∈ a(n)} ⟦c⟧φ (an assume filters; an
//!   assert is a non-blocking read, A1, and passes every environment through);
//! - release: a(n') ∪= a(n), like skip;
//! - acquire(m): a(n') ∪= mix(a(n) ∪ ⋃{a(n̄) | n̄ ∈ L^rel_m, n ∈ G(n̄)}), with the source a(n)
//!   and accumulating (§9 A4 resolves the OCR's a(n')). No lock is needed: the abstraction
//!   has no μ.
//!
//! ⟦P⟧× is the least fixpoint. The mixes ([`Mix`]) are the paper's var-mix (§5.1), the region
//! mix mix_R of R-DRF (§5.2), and the plain union, the naive relational join that §5.2 shows
//! unsound (R5, a negative control for C9).
//!
//! Thm 10 (γ×(⟦P⟧×) ⊇ ⟦P⟧ for race-free P) is what C7 checks against E-LDRF: every thread's
//! full copy Θ(t)φ is in a(pc(t)), and every defined buffer Λ(n̄)φ in a(n̄). The unit tests
//! below check it on Fig. 1, Fig. 4 and 150 generated race-free programs, and the §8 facts
//! R1, R2 and R5.
//!
//! Deviations from §5.1 (as A4 reads it):
//! 1. Values are mod K (§6.2, A14): under ℤ the spurious release→acquire loops make ⟦P⟧×
//!    infinite (Fig. 1's x and y are unbounded). Pinned by the R1 test.
//! 2. The fixpoint stops at a budget of environments ([`Cart::cut`]); a cut result is an
//!    under-approximation. Pinned by `mixes_are_ordered_and_the_budget_cuts`.
//! 3. The A13 refinement (no mix when no buffer contributes) is not implemented.

// The fixpoint is a worklist over locations that only pushes the environments a location
// has not propagated yet (its delta) along non-acquire edges. An acquire mixes the *current*
// union of its sources, so it is recomputed whenever a source grows; acquires are deferred
// until no plain edge has work left, which batches those recomputations. The mix is
// monotone, so the order does not change the fixpoint.

use std::collections::{BTreeSet, VecDeque};

use super::cfg::{Cfg, Cmd, Edge, Node, Var};
use super::local::Sync;

/// An environment: every variable's value (mod K), indexed like [`Cfg::vars`].
pub type Env = Vec<i64>;

/// The join at an acquire (§5.1, §5.2). An analysis under test names its own (the `mix`
/// of the facts it returns through the sync-CFG seam in `theorems`): the hypothesis under
/// which it claims its facts sound.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mix {
    /// The paper's mix: the cartesian product of the per-variable value sets; it forgets
    /// every correlation, even those inside a(n). Claimed sound on every race-free program
    /// (C8), as is any join finer than it.
    Var,
    /// mix_R (§5.2, R-DRF): the product over the regions of the region tuples present;
    /// correlations survive within a region. The regions must be disjoint; variables they
    /// leave out are singleton regions. Claimed sound on programs that are
    /// region-race-free under it (C8, §3).
    Region(Vec<Vec<Var>>),
    /// The plain union: the naive relational join, unsound on race-free programs (§5.2, R5),
    /// a negative control.
    Naive,
}

impl Mix {
    /// A short name: `var`, `region {x, y}`, `naive`.
    pub fn name(&self, cfg: &Cfg) -> String {
        match self {
            Mix::Var => "var".into(),
            Mix::Region(rs) => format!("region {}", cfg.partition_name(rs).unwrap_or_else(|| "(singletons)".into())),
            Mix::Naive => "naive".into(),
        }
    }

    /// The regions the product runs over, complete and disjoint; `None` for the union.
    fn partition(&self, vars: usize) -> Option<Vec<Vec<Var>>> {
        match self {
            Mix::Var => Some(super::cfg::complete(vec![], vars)),
            Mix::Region(rs) => {
                let mut seen = vec![false; vars];
                for &x in rs.iter().flatten() {
                    let x = x.index();
                    assert!(x < vars && !seen[x], "racefuzz internal bug: a region mix over a variable that is unknown or in two regions");
                    seen[x] = true;
                }
                Some(super::cfg::complete(rs.clone(), vars))
            }
            Mix::Naive => None,
        }
    }
}

/// ⟦P⟧×: the environments at each location.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cart {
    /// a(n), indexed by location.
    pub at: Vec<BTreeSet<Env>>,
    /// Why the fixpoint stopped early, if it did: a truncated result is an under-approximation
    /// of ⟦P⟧× and must never be read as a pass.
    pub cut: Option<String>,
}

impl Cart {
    /// Σ_n |a(n)|: E-CART's state count, comparable with E-STD's and E-LDRF's.
    pub fn size(&self) -> u64 {
        self.at.iter().map(|a| a.len() as u64).sum()
    }

    /// Whether `env` ∈ a(n).
    pub fn contains(&self, n: Node, env: &[i64]) -> bool {
        self.at.get(n.index()).is_some_and(|a| a.contains(env))
    }

    /// a(n) projected on `vars` (in that order), sorted.
    pub fn project(&self, n: Node, vars: &[Var]) -> BTreeSet<Vec<i64>> {
        let Some(a) = self.at.get(n.index()) else { return BTreeSet::new() };
        a.iter().map(|env| vars.iter().map(|&x| env[x.index()]).collect()).collect()
    }
}

/// The fixpoint's working state: a(n), each location's unpropagated delta, and the acquires
/// whose sources grew.
struct Fix<'c> {
    cfg: &'c Cfg,
    at: Vec<BTreeSet<Env>>,
    delta: Vec<Vec<Env>>,
    queue: VecDeque<Node>,
    /// For each location, the acquire edges that read it (as their source or as a buffer).
    readers: Vec<Vec<Edge>>,
    /// For each acquire edge (by [`Edge::index`]), the locations it mixes: its source and
    /// the allowed buffers.
    sources: Vec<Vec<Node>>,
    dirty: BTreeSet<Edge>,
    total: u64,
    max_envs: u64,
}

impl Fix<'_> {
    /// a(n) ∪= {env}, remembering it for propagation; false when the budget is exhausted.
    fn add(&mut self, n: Node, env: Env) -> bool {
        if self.at[n.index()].contains(&env) {
            return true;
        }
        if self.total >= self.max_envs {
            return false;
        }
        self.total += 1;
        self.at[n.index()].insert(env.clone());
        if self.delta[n.index()].is_empty() {
            self.queue.push_back(n);
        }
        self.delta[n.index()].push(env);
        true
    }

    /// The images of `env` along a non-acquire instruction.
    fn post(&self, cmd: &Cmd, env: &Env) -> Vec<Env> {
        let cfg = self.cfg;
        let get = |x: Var| env[x.index()];
        match cmd {
            Cmd::Assign(x, e) => {
                let mut out = env.clone();
                out[x.index()] = cfg.eval(e, &get);
                vec![out]
            }
            Cmd::Nondet(x, lo, hi) => cfg
                .nondet(*lo, *hi)
                .into_iter()
                .map(|v| {
                    let mut out = env.clone();
                    out[x.index()] = v;
                    out
                })
                .collect(),
            Cmd::Assume(b) if !cfg.holds(b, &get) => vec![],
            Cmd::Assume(_) | Cmd::Assert(_) | Cmd::Release(_) | Cmd::Skip => vec![env.clone()],
            Cmd::Acquire(_) => unreachable!("racefuzz internal bug: acquires go through mix"),
        }
    }

    /// Pushes location `n`'s delta along its plain instructions and marks the acquires that
    /// read `n`; false when the budget is exhausted.
    fn propagate(&mut self, n: Node) -> bool {
        let delta = std::mem::take(&mut self.delta[n.index()]);
        let cfg = self.cfg;
        for &e in &cfg.out[n.index()] {
            let edge = cfg.edge(e);
            if matches!(edge.cmd, Cmd::Acquire(_)) {
                continue;
            }
            for env in &delta {
                for next in self.post(&edge.cmd, env) {
                    if !self.add(edge.dst, next) {
                        return false;
                    }
                }
            }
        }
        let readers = self.readers[n.index()].clone();
        self.dirty.extend(readers);
        true
    }

    /// a(n') ∪= mix(sources) for acquire edge `e`; false when the budget is exhausted.
    fn acquire(&mut self, e: Edge, partition: Option<&[Vec<Var>]>) -> bool {
        let dst = self.cfg.edge(e).dst;
        let incoming: BTreeSet<&Env> = self.sources[e.index()].iter().flat_map(|&n| self.at[n.index()].iter()).collect();
        let mixed: Vec<Env> = match partition {
            None => incoming.into_iter().cloned().collect(),
            Some(rs) => {
                let tuples: Vec<BTreeSet<Vec<i64>>> = rs.iter().map(|r| incoming.iter().map(|env| r.iter().map(|&x| env[x.index()]).collect()).collect()).collect();
                // The product can dwarf the budget by itself: refuse before building it.
                let size = tuples.iter().try_fold(1u64, |acc, t| acc.checked_mul(t.len() as u64));
                if size.is_none_or(|s| s > self.max_envs.saturating_sub(self.total).saturating_add(self.at[dst.index()].len() as u64)) {
                    return false;
                }
                product(self.cfg.vars.len(), rs, &tuples)
            }
        };
        mixed.into_iter().all(|env| self.add(dst, env))
    }
}

/// Every environment built from one tuple per region.
fn product(vars: usize, regions: &[Vec<Var>], tuples: &[BTreeSet<Vec<i64>>]) -> Vec<Env> {
    let mut out: Vec<Env> = if tuples.iter().any(BTreeSet::is_empty) { vec![] } else { vec![vec![0; vars]] };
    for (r, ts) in regions.iter().zip(tuples) {
        out = out
            .into_iter()
            .flat_map(|env| {
                ts.iter().map(move |t| {
                    let mut env = env.clone();
                    for (&x, &v) in r.iter().zip(t) {
                        env[x.index()] = v;
                    }
                    env
                })
            })
            .collect();
    }
    out
}

/// ⟦P⟧× of `cfg` with G = `sync` and the join `mix` at acquires (spec §5.1), stopping with
/// [`Cart::cut`] set once more than `max_envs` environments are held in all.
pub fn cart(cfg: &Cfg, sync: &Sync, mix: &Mix, max_envs: u64) -> Cart {
    let nodes = cfg.owner.len();
    let mut readers = vec![vec![]; nodes];
    let mut sources = vec![vec![]; cfg.edges.len()];
    for (e, edge) in cfg.edge_ids().zip(&cfg.edges) {
        if let Cmd::Acquire(m) = edge.cmd {
            let allowed = cfg.release_points(m).into_iter().filter(|&r| match sync {
                Sync::Full => true,
                Sync::Pairs(p) => p.contains(&(r, edge.src)),
            });
            let mut from: Vec<Node> = std::iter::once(edge.src).chain(allowed).collect();
            // The source may itself be a post-release point (`rel(m); acq(m)`).
            from.sort_unstable();
            from.dedup();
            for &n in &from {
                readers[n.index()].push(e);
            }
            sources[e.index()] = from;
        }
    }
    let mut fix = Fix { cfg, at: vec![BTreeSet::new(); nodes], delta: vec![vec![]; nodes], queue: VecDeque::new(), readers, sources, dirty: BTreeSet::new(), total: 0, max_envs };
    let partition = mix.partition(cfg.vars.len());
    let mut complete = cfg.entries.iter().all(|&n| fix.add(n, vec![0; cfg.vars.len()]));
    while complete {
        if let Some(n) = fix.queue.pop_front() {
            complete = fix.propagate(n);
        } else if let Some(e) = fix.dirty.pop_first() {
            complete = fix.acquire(e, partition.as_deref());
        } else {
            break;
        }
    }
    let cut = (!complete).then(|| format!("the cartesian semantics (mix {}) hit its budget of {max_envs} environments (raise --max-states)", mix.name(cfg)));
    Cart { at: fix.at, cut }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Config;
    use crate::ldrf::local::Ldrf;
    use crate::ldrf::MODULUS;

    fn cfg_of(src: &str) -> Cfg {
        let p = crate::lang::parse(src).unwrap();
        crate::lang::validate(&p).unwrap();
        Cfg::of(&p, MODULUS)
    }

    fn corpus(name: &str) -> Cfg {
        let path = format!("{}/../corpus/paper/ldrf/{name}", env!("CARGO_MANIFEST_DIR"));
        cfg_of(&std::fs::read_to_string(path).unwrap())
    }

    fn var(cfg: &Cfg, x: &str) -> Var {
        Var::try_from(cfg.vars.iter().position(|v| v == x).unwrap()).unwrap()
    }

    /// The source location of thread `t`'s (0-based) instruction with this text.
    fn at(cfg: &Cfg, t: usize, text: &str) -> Node {
        cfg.edges.iter().find(|e| e.text == text && cfg.owner[e.src.index()] == t).unwrap_or_else(|| panic!("no `{text}` in thread {t}")).src
    }

    fn run(cfg: &Cfg, mix: &Mix) -> Cart {
        let c = cart(cfg, &Sync::Full, mix, 1_000_000);
        assert_eq!(c.cut, None);
        c
    }

    /// §8 R1: var-mix keeps x = y at t1's assert (line 5) but loses it at t2's (line 11);
    /// the region mix with {x, y} keeps it there too.
    #[test]
    fn r1_fig1_var_mix_loses_x_eq_y_at_11_region_mix_keeps_it() {
        let cfg = corpus("fig1_sync_cfg.race");
        let (x, y) = (var(&cfg, "x"), var(&cfg, "y"));
        let (t1, t2) = (at(&cfg, 0, "assert x == y"), at(&cfg, 1, "assert x == y"));
        let eq = |c: &Cart, n: Node| c.project(n, &[x, y]).iter().all(|v| v[0] == v[1]);
        let v = run(&cfg, &Mix::Var);
        assert!(!v.at[t1.index()].is_empty() && eq(&v, t1));
        assert!(!eq(&v, t2));
        let z = var(&cfg, "z");
        let r = run(&cfg, &Mix::Region(vec![vec![x, y], vec![z]]));
        assert!(eq(&r, t1) && eq(&r, t2) && !r.at[t2.index()].is_empty());
        // Sound: the truth at 11, (0, 0) and (1, 1), is there under every mix.
        for c in [&v, &r] {
            assert!(c.project(t2, &[x, y]).is_superset(&BTreeSet::from([vec![0, 0], vec![1, 1]])));
        }
    }

    /// §8 R2: E-CART gives exactly x = 2 at `p = x` (the spec's line 12).
    #[test]
    fn r2_fig4_x_is_2_at_p_eq_x() {
        let cfg = corpus("fig4_handoff.race");
        let n = at(&cfg, 1, "p = x");
        let c = run(&cfg, &Mix::Var);
        assert_eq!(c.project(n, &[var(&cfg, "x")]), BTreeSet::from([vec![2]]));
    }

    /// §8 R5 (mod 4, with y = 2): the truth at `a = x + y` is (x, y) ∈ {(0, 2), (1, 2)}; the
    /// var-mix covers both, the naive union misses (1, 2), and so does the region mix with
    /// {x, y}, under which the program is region-racy.
    #[test]
    fn r5_naive_join_misses_a_true_environment() {
        let cfg = cfg_of("dialect ldrf\nthread {\n  acq(m)\n  x = 1\n  rel(m)\n}\nthread {\n  y = 2\n  acq(m)\n  a = x + y\n}\n");
        let (x, y) = (var(&cfg, "x"), var(&cfg, "y"));
        let n = at(&cfg, 1, "a = x + y");
        let truth = BTreeSet::from([vec![0, 2], vec![1, 2]]);
        let std = crate::ldrf::standard::reach(&cfg, &Config::default());
        let seen: BTreeSet<Vec<i64>> = std.states.keys().filter(|s| s.pc[1] == n).map(|s| vec![s.env[x.index()], s.env[y.index()]]).collect();
        assert_eq!(seen, truth);
        assert!(run(&cfg, &Mix::Var).project(n, &[x, y]).is_superset(&truth));
        let naive = run(&cfg, &Mix::Naive).project(n, &[x, y]);
        assert!(naive.contains(&vec![0, 2]) && !naive.contains(&vec![1, 2]), "{naive:?}");
        let a = var(&cfg, "a");
        let region = run(&cfg, &Mix::Region(vec![vec![x, y], vec![a]])).project(n, &[x, y]);
        assert!(!region.contains(&vec![1, 2]), "{region:?}");
    }

    /// Thm 10 (C7) on Fig. 1 and Fig. 4: every reachable L-DRF state's thread copies are in
    /// a(pc(t)) and every defined buffer Λ(n̄) is in a(n̄), under var-mix.
    #[test]
    fn thm10_cart_covers_every_ldrf_state() {
        for name in ["fig1_sync_cfg.race", "fig4_handoff.race"] {
            let cfg = corpus(name);
            let c = run(&cfg, &Mix::Var);
            let l = Ldrf::new(&cfg, Sync::Full).reach(&Config::default());
            assert_eq!(l.cut, None);
            let rel = cfg.all_release_points();
            let mut checked = 0;
            for s in l.states.keys() {
                for (t, &n) in s.pc.iter().enumerate() {
                    let env: Env = s.theta[t].iter().map(|&(v, _)| v).collect();
                    assert!(c.contains(n, &env), "{name}: Θ(t{}) = {env:?} not in a({})", t + 1, cfg.node_name(n));
                    checked += 1;
                }
                for (b, snaps) in s.lambda.iter().enumerate() {
                    for snap in snaps {
                        let env: Env = snap.iter().map(|&(v, _)| v).collect();
                        assert!(c.contains(rel[b], &env), "{name}: Λ({}) = {env:?} not in a(n̄)", cfg.node_name(rel[b]));
                        checked += 1;
                    }
                }
            }
            assert!(checked > 0);
        }
    }

    /// Thm 10 (C7) on generated programs: on every race-free one, var-mix E-CART covers
    /// every thread copy and buffer of E-LDRF. Not vacuous: 150 race-free programs with an
    /// acquire. (The region mix is covered by E-RDRF, not E-LDRF, and waits for it.)
    #[test]
    fn thm10_on_generated_race_free_programs() {
        let (mut checked, mut largest) = (0, 0);
        for seed in 0..2000u64 {
            let p = crate::gen::ldrf::swarm_ldrf(&crate::gen::test_bytes(seed, 40), crate::lang::Relax::default());
            let cfg = Cfg::of(&p, MODULUS);
            let bounds = Config { max_states: 200_000, ..Config::default() };
            let std = crate::ldrf::standard::reach(&cfg, &bounds);
            if std.cut.is_some() || !std.races.is_empty() || !cfg.edges.iter().any(|e| matches!(e.cmd, Cmd::Acquire(_))) {
                continue;
            }
            let l = Ldrf::new(&cfg, Sync::Full).reach(&bounds);
            let c = cart(&cfg, &Sync::Full, &Mix::Var, 1_000_000);
            if l.cut.is_some() || c.cut.is_some() {
                continue;
            }
            let rel = cfg.all_release_points();
            for s in l.states.keys() {
                for (t, &n) in s.pc.iter().enumerate() {
                    let env: Env = s.theta[t].iter().map(|&(v, _)| v).collect();
                    assert!(c.contains(n, &env), "Θ(t{}) = {env:?} not in a({})\n{}", t + 1, cfg.node_name(n), crate::lang::print(&p));
                }
                for (b, snaps) in s.lambda.iter().enumerate() {
                    for snap in snaps {
                        let env: Env = snap.iter().map(|&(v, _)| v).collect();
                        assert!(c.contains(rel[b], &env), "Λ({}) = {env:?}\n{}", cfg.node_name(rel[b]), crate::lang::print(&p));
                    }
                }
            }
            largest = largest.max(c.size());
            checked += 1;
            if checked == 150 {
                break;
            }
        }
        assert!(checked == 150, "vacuous: {checked} race-free programs with an acquire (largest ⟦P⟧× {largest})");
    }

    /// The mixes are ordered: naive ⊆ region ⊆ var pointwise (a coarser mix yields more), and
    /// a budget stop says so and names the flag.
    #[test]
    fn mixes_are_ordered_and_the_budget_cuts() {
        let cfg = corpus("fig1_sync_cfg.race");
        let (x, y, z) = (var(&cfg, "x"), var(&cfg, "y"), var(&cfg, "z"));
        let (n, r, v) = (run(&cfg, &Mix::Naive), run(&cfg, &Mix::Region(vec![vec![x, y], vec![z]])), run(&cfg, &Mix::Var));
        for i in 0..cfg.owner.len() {
            assert!(n.at[i].is_subset(&r.at[i]) && r.at[i].is_subset(&v.at[i]), "at {}", cfg.node_name(Node::try_from(i).unwrap()));
        }
        let cut = cart(&cfg, &Sync::Full, &Mix::Var, 10);
        assert!(cut.size() <= 10 && cut.cut.as_deref().is_some_and(|m| m.contains("10 environments") && m.contains("--max-states")), "{cut:?}");
    }
}
