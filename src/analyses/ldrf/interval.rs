//! The interval domain (docs/spec/ldrf.md §5.2 and §5.3: A5, the interval value-set baseline of
//! [De et al. 2011]) in the mod-K world: each variable's values lie in [lo, hi] ⊆ [0, K-1].
//!
//! Deviation from the paper (§6.2 (a), A14): the paper's intervals are over ℤ; here every
//! value is taken mod K, as the oracle's semantics takes it. Interval arithmetic is done
//! over ℤ on the bounds, and a result that would wrap around K (part of it below 0 or at or
//! above K, the rest not) goes to ⊤ = [0, K-1]; a result wholly on one side of the
//! boundary is shifted by K, which is exact. Both are sound in the mod-K world: the
//! concrete result ((a ∘ b) mod K) of any operands in the intervals is in the answer. `%`,
//! and any operator without an interval rule, takes the hull of the concrete results over
//! the operands' values (at most K² of them). Assume and assert read the intervals' values
//! (at most K per variable) by enumeration, which is the best interval transformer for them.
//! Finite lattice, so no widening.

use race_oracles::lang::BinOp;
use race_oracles::ldrf::cfg::{BExpr, Cfg, Cmd, IExpr, Instr, Var};
use race_oracles::theorems::rules::fire;
use race_oracles::theorems::sync_cfg::Block;

use super::fixpoint::Domain;
use super::rules::SyncCfgRule as R;
use race_oracles::ldrf::cfg::bool_vars;

/// [lo, hi], with 0 ≤ lo ≤ hi < K.
pub type Itv = (i64, i64);

/// The interval domain.
#[derive(Clone, Copy, Debug, Default)]
pub struct Intervals {
    /// `sync-interval-saturates`: a sum past K-1 saturates at K-1 instead of going to ⊤.
    pub saturate: bool,
    /// `sync-interval-hull-of-corners`: an operator without an interval rule takes the hull
    /// of its results at the four corners of the operands' intervals, as if it were monotone.
    pub corners: bool,
}

impl Intervals {
    fn top(cfg: &Cfg) -> Itv {
        (0, cfg.modulus - 1)
    }

    /// The interval of `e` under `a`.
    fn eval(&self, cfg: &Cfg, e: &IExpr, a: &[Itv]) -> Itv {
        let k = cfg.modulus;
        // Exact if wholly in one period of K; ⊤ if it straddles a boundary.
        let fit = |(lo, hi): (i64, i64)| {
            if lo.div_euclid(k) == hi.div_euclid(k) {
                fire(if lo.div_euclid(k) == 0 { R::IntervalExact } else { R::IntervalShift });
                (lo.rem_euclid(k), hi.rem_euclid(k))
            } else {
                fire(R::IntervalTop);
                Self::top(cfg)
            }
        };
        match e {
            IExpr::Int(c) => (c.rem_euclid(k), c.rem_euclid(k)),
            IExpr::Var(x) => a[x.index()],
            IExpr::Neg(x) => {
                let (lo, hi) = self.eval(cfg, x, a);
                fit((-hi, -lo))
            }
            IExpr::Bin(op, x, y) => {
                let (p, q) = (self.eval(cfg, x, a), self.eval(cfg, y, a));
                match op {
                    BinOp::Add if self.saturate => ((p.0 + q.0).min(k - 1), (p.1 + q.1).min(k - 1)),
                    BinOp::Add => fit((p.0 + q.0, p.1 + q.1)),
                    BinOp::Sub => fit((p.0 - q.1, p.1 - q.0)),
                    // Both operands are in [0, K-1], so the products are ordered by the bounds.
                    BinOp::Mul => fit((p.0 * q.0, p.1 * q.1)),
                    _ => {
                        fire(R::IntervalHull);
                        let mut vals = vec![];
                        // Every value of each operand, or (the seeded bug) its bounds only.
                        let corners = self.corners;
                        let values = move |i: Itv| (i.0..=i.1).filter(move |&u| !corners || u == i.0 || u == i.1);
                        for u in values(p) {
                            for v in values(q) {
                                vals.push(cfg.eval(&IExpr::Bin(*op, Box::new(IExpr::Int(u)), Box::new(IExpr::Int(v))), &|_| 0));
                            }
                        }
                        hull(&vals).unwrap_or_else(|| Self::top(cfg))
                    }
                }
            }
        }
    }

    /// Calls `f` with every environment whose `vars` range over their intervals (others 0).
    fn each(a: &[Itv], vars: &[Var], f: &mut dyn FnMut(&[i64])) {
        fn go(a: &[Itv], vars: &[Var], env: &mut Vec<i64>, f: &mut dyn FnMut(&[i64])) {
            let Some((&x, rest)) = vars.split_first() else { return f(env) };
            let (lo, hi) = a[x.index()];
            for v in lo..=hi {
                env[x.index()] = v;
                go(a, rest, env, f);
            }
        }
        go(a, vars, &mut vec![0; a.len()], f);
    }

    fn cond_vars(b: &BExpr) -> Vec<Var> {
        let mut vars = vec![];
        bool_vars(b, &mut vars);
        vars.sort_unstable();
        vars.dedup();
        vars
    }

    /// Whether every environment of γ(a) satisfies `b`.
    pub fn proves(&self, a: &[Itv], b: &BExpr, cfg: &Cfg) -> bool {
        let mut all = true;
        Self::each(a, &Self::cond_vars(b), &mut |env| all &= cfg.holds(b, &|x| env[x.index()]));
        all
    }

    /// The element as the seam's blocks: a singleton block per variable.
    pub fn claim(a: &[Itv]) -> Vec<Block> {
        a.iter().enumerate().map(|(x, &(lo, hi))| Block { vars: vec![race_oracles::ldrf::cfg::Var::new(x)], tuples: (lo..=hi).map(|v| vec![v]).collect() }).collect()
    }
}

fn hull(vals: &[i64]) -> Option<Itv> {
    Some((*vals.iter().min()?, *vals.iter().max()?))
}

impl Domain for Intervals {
    type Elem = Vec<Itv>;

    fn init(&self, cfg: &Cfg) -> Vec<Itv> {
        vec![(0, 0); cfg.vars.len()]
    }

    fn join(&self, old: &Vec<Itv>, new: &Vec<Itv>, _: bool) -> Vec<Itv> {
        self.mix(&[old, new])
    }

    fn mix(&self, inputs: &[&Vec<Itv>]) -> Vec<Itv> {
        let n = inputs.first().map_or(0, |a| a.len());
        (0..n).map(|x| (inputs.iter().map(|a| a[x].0).min().unwrap_or(0), inputs.iter().map(|a| a[x].1).max().unwrap_or(0))).collect()
    }

    fn post(&self, cfg: &Cfg, edge: &Instr, a: &Vec<Itv>) -> Option<Vec<Itv>> {
        let mut out = a.clone();
        match &edge.cmd {
            Cmd::Assign(x, e) => out[x.index()] = self.eval(cfg, e, a),
            Cmd::Nondet(x, lo, hi) => out[x.index()] = hull(&cfg.nondet(*lo, *hi)).unwrap_or_else(|| Self::top(cfg)),
            Cmd::Assume(b) => {
                let vars = Self::cond_vars(b);
                let mut seen: Vec<Vec<i64>> = vec![vec![]; vars.len()];
                let mut any = false;
                Self::each(a, &vars, &mut |env| {
                    if cfg.holds(b, &|y| env[y.index()]) {
                        any = true;
                        for (k, &x) in vars.iter().enumerate() {
                            seen[k].push(env[x.index()]);
                        }
                    }
                });
                if !any {
                    return None;
                }
                for (k, &x) in vars.iter().enumerate() {
                    out[x.index()] = hull(&seen[k]).unwrap_or(a[x.index()]);
                }
            }
            Cmd::Assert(_) | Cmd::Skip | Cmd::Acquire(_) | Cmd::Release(_) => {}
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> Cfg {
        let p = race_oracles::lang::parse("dialect ldrf\nthread {\nx = 1\n}\n").unwrap();
        Cfg::of(&p, 4)
    }

    fn add(a: Itv, b: Itv, saturate: bool) -> Itv {
        let e = IExpr::Bin(BinOp::Add, Box::new(IExpr::Var(Var::new(0))), Box::new(IExpr::Var(Var::new(1))));
        Intervals { saturate, corners: false }.eval(&cfg(), &e, &[a, b])
    }

    /// A sum wholly past K shifts exactly; one straddling K goes to ⊤; the mutant saturates.
    #[test]
    fn sums_wrap_to_top_or_shift() {
        assert_eq!(add((1, 2), (1, 1), false), (2, 3));
        assert_eq!(add((2, 3), (2, 2), false), (0, 1));
        assert_eq!(add((2, 3), (1, 1), false), (0, 3));
        assert_eq!(add((3, 3), (1, 1), true), (3, 3));
    }
}
