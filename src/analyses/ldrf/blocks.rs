//! The partitioned tuple-set domain: a location's element is, per block of a fixed
//! partition of the variables, the set of value tuples the block may hold; γ is their
//! product. One domain, three analyses of docs/spec/ldrf.md §5.2, by the partition:
//! - singletons: the value-set analysis of [De et al. 2011] (var → value set), whose join is its mix;
//! - the declared regions (`regions { x, y }`, completed with singletons): the
//!   region-relational analysis, whose join per block is exactly mix_R (§5.2), so the
//!   correlations inside a region survive an acquire;
//! - one block of every variable: the fully relational analysis whose join at acquires is
//!   the union of whole environments, the naive mix that §5.2 and R5 show unsound.
//!
//! Transfer functions are the best ones for a product: an assignment to x recomputes x's
//! block from every combination of the blocks the instruction touches; an assume keeps, in
//! each block it mentions, the tuples that take part in a satisfying combination. Values
//! are mod K through [`Cfg::eval`] (spec §6.2 (a)).

use std::collections::BTreeSet;

use race_oracles::ldrf::cfg::{Cfg, Cmd, Instr, Var};
use race_oracles::theorems::rules::{fire, recording};
use race_oracles::theorems::sync_cfg::Block;

use super::fixpoint::Domain;
use super::rules::SyncCfgRule as R;
use super::DomainKind;
use race_oracles::ldrf::cfg::{bool_vars, int_vars};

/// Per block, its tuples.
pub type Tuples = Vec<BTreeSet<Vec<i64>>>;

/// A visitor of environments, with the tuple chosen from each block.
type Visit<'f> = dyn FnMut(&[i64], &[&Vec<i64>]) + 'f;

/// The domain over one partition.
#[derive(Clone, Debug)]
pub struct Blocks {
    /// The blocks, none empty.
    pub partition: Vec<Vec<Var>>,
    /// Each variable's block and position in it.
    place: Vec<(usize, usize)>,
    /// Variables in all.
    vars: usize,
    /// `sync-value-set-loop-head-keeps-old`: the join at a loop head keeps what the head
    /// already holds.
    pub keep_old_at_loop_heads: bool,
    /// The analysis this partition makes (only rule coverage tells them apart: the mix is
    /// the same per-block union for all three).
    domain: DomainKind,
}

impl Blocks {
    /// The domain of `domain` over `partition` (a partition of the variables of `cfg`; empty
    /// blocks are dropped).
    pub fn new(cfg: &Cfg, domain: DomainKind, partition: Vec<Vec<Var>>) -> Blocks {
        let partition: Vec<Vec<Var>> = partition.into_iter().filter(|b| !b.is_empty()).collect();
        let mut place = vec![(0, 0); cfg.vars.len()];
        for (b, vars) in partition.iter().enumerate() {
            for (i, &x) in vars.iter().enumerate() {
                if let Some(p) = place.get_mut(x.index()) {
                    *p = (b, i);
                }
            }
        }
        Blocks { partition, place, vars: cfg.vars.len(), keep_old_at_loop_heads: false, domain }
    }

    /// The blocks holding `vars`, sorted, without repeats.
    fn blocks_of(&self, vars: &[Var]) -> Vec<usize> {
        let mut bs: Vec<usize> = vars.iter().map(|&x| self.place[x.index()].0).collect();
        bs.sort_unstable();
        bs.dedup();
        bs
    }

    /// Calls `f` with every environment of the product of `blocks` (other variables 0) and
    /// the tuple chosen from each block.
    fn each(&self, a: &Tuples, blocks: &[usize], f: &mut Visit<'_>) {
        fn go<'t>(d: &Blocks, a: &'t Tuples, blocks: &[usize], env: &mut Vec<i64>, chosen: &mut Vec<&'t Vec<i64>>, f: &mut Visit<'_>) {
            let Some((&b, rest)) = blocks.split_first() else { return f(env, chosen) };
            for t in &a[b] {
                for (&x, &v) in d.partition[b].iter().zip(t) {
                    env[x.index()] = v;
                }
                chosen.push(t);
                go(d, a, rest, env, chosen, f);
                chosen.pop();
            }
        }
        go(self, a, blocks, &mut vec![0; self.vars], &mut vec![], f);
    }

    /// Whether every environment of γ(a) satisfies `b`.
    pub fn proves(&self, a: &Tuples, b: &race_oracles::ldrf::cfg::BExpr, cfg: &Cfg) -> bool {
        let mut vars = vec![];
        bool_vars(b, &mut vars);
        let mut all = true;
        self.each(a, &self.blocks_of(&vars), &mut |env, _| all &= cfg.holds(b, &|x| env[x.index()]));
        all
    }

    /// The per-block union of `inputs`: the join, and the mix at acquires (§5.2: for a
    /// partitioned domain mix_R is the per-block join; the product recombines the blocks).
    fn union(&self, inputs: &[&Tuples]) -> Tuples {
        (0..self.partition.len()).map(|b| inputs.iter().flat_map(|a| a[b].iter().cloned()).collect()).collect()
    }

    /// Whether γ(`mixed`) holds an environment that no input's γ holds, i.e. the mix chose
    /// blocks from different inputs (§5.1: mix forgets correlations across blocks). A
    /// depth-first choice of one tuple per block, keeping the inputs that hold every tuple
    /// chosen so far: when none is left, that prefix extends to a new environment. Gives up
    /// (false) past `budget` steps, which only undercounts the case.
    fn combines(&self, inputs: &[&Tuples], mixed: &Tuples) -> bool {
        fn go(mixed: &Tuples, b: usize, alive: &[&Tuples], budget: &mut usize) -> bool {
            if alive.is_empty() {
                return true;
            }
            if b == mixed.len() || *budget == 0 {
                return false;
            }
            mixed[b].iter().any(|t| {
                *budget = budget.saturating_sub(1);
                let next: Vec<&Tuples> = alive.iter().copied().filter(|a| a[b].contains(t)).collect();
                go(mixed, b + 1, &next, budget)
            })
        }
        go(mixed, 0, inputs, &mut 20_000)
    }

    /// Whether some block of at least two variables holds fewer tuples than the product of
    /// its variables' values: the block keeps a correlation a per-variable mix would lose.
    fn keeps_correlation(&self, a: &Tuples) -> bool {
        self.partition.iter().zip(a).any(|(vars, tuples)| {
            vars.len() >= 2
                && (0..vars.len())
                    .map(|i| tuples.iter().map(|t| t[i]).collect::<BTreeSet<i64>>().len())
                    .try_fold(1usize, |n, k| n.checked_mul(k))
                    .is_some_and(|product| tuples.len() < product)
        })
    }

    /// The element as the seam's blocks.
    pub fn claim(&self, a: &Tuples) -> Vec<Block> {
        self.partition.iter().zip(a).map(|(vars, tuples)| Block { vars: vars.clone(), tuples: tuples.clone() }).collect()
    }
}

impl Domain for Blocks {
    type Elem = Tuples;

    fn init(&self, _: &Cfg) -> Tuples {
        self.partition.iter().map(|b| BTreeSet::from([vec![0; b.len()]])).collect()
    }

    fn join(&self, old: &Tuples, new: &Tuples, loop_head: bool) -> Tuples {
        if loop_head && self.keep_old_at_loop_heads {
            return old.clone();
        }
        self.union(&[old, new])
    }

    fn mix(&self, inputs: &[&Tuples]) -> Tuples {
        let mixed = self.union(inputs);
        // Deciding these cases costs more than the mix, so only rule coverage pays for it.
        if inputs.len() >= 2 && recording() {
            match self.domain {
                DomainKind::Naive if self.keeps_correlation(&mixed) => fire(R::NaiveUnion),
                DomainKind::Naive => {}
                _ => {
                    if self.combines(inputs, &mixed) {
                        fire(R::MixCombines);
                    }
                    if self.domain == DomainKind::Region && self.keeps_correlation(&mixed) {
                        fire(R::RegionKeeps);
                    }
                }
            }
        }
        mixed
    }

    fn post(&self, cfg: &Cfg, edge: &Instr, a: &Tuples) -> Option<Tuples> {
        let mut out = a.clone();
        match &edge.cmd {
            Cmd::Assign(x, e) => {
                let mut vars = vec![*x];
                int_vars(e, &mut vars);
                let (bx, ix) = self.place[x.index()];
                let touched = self.blocks_of(&vars);
                if touched.len() >= 2 {
                    fire(R::AssignProduct);
                }
                let at = touched.iter().position(|&b| b == bx).unwrap_or(0);
                let mut new = BTreeSet::new();
                self.each(a, &touched, &mut |env, chosen| {
                    let mut t = chosen[at].clone();
                    t[ix] = cfg.eval(e, &|y| env[y.index()]);
                    new.insert(t);
                });
                out[bx] = new;
            }
            Cmd::Nondet(x, lo, hi) => {
                let (bx, ix) = self.place[x.index()];
                let values = cfg.nondet(*lo, *hi);
                out[bx] = a[bx]
                    .iter()
                    .flat_map(|t| {
                        values.iter().map(move |&v| {
                            let mut t = t.clone();
                            t[ix] = v;
                            t
                        })
                    })
                    .collect();
            }
            Cmd::Assume(b) => {
                let mut vars = vec![];
                bool_vars(b, &mut vars);
                let touched = self.blocks_of(&vars);
                let mut kept: Tuples = vec![BTreeSet::new(); touched.len()];
                let mut any = false;
                self.each(a, &touched, &mut |env, chosen| {
                    if cfg.holds(b, &|y| env[y.index()]) {
                        any = true;
                        for (k, t) in chosen.iter().enumerate() {
                            kept[k].insert((*t).clone());
                        }
                    }
                });
                for (k, &b) in touched.iter().enumerate() {
                    out[b] = std::mem::take(&mut kept[k]);
                }
                if !any || out.iter().any(BTreeSet::is_empty) {
                    return None;
                }
            }
            Cmd::Assert(_) | Cmd::Skip | Cmd::Acquire(_) | Cmd::Release(_) => {}
        }
        Some(out)
    }
}
