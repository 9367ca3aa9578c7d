//! The plug-in seam for analyses over the sync-CFG ([Mukherjee et al. 2017]; docs/spec/ldrf.md §5): the
//! per-thread control-flow graphs of [`Cfg`] plus an edge n̄ → n from every post-release
//! point n̄ of a lock to every acquire n of that lock (G full), with a *mix* at acquires.
//! Any sequential domain plugs in if its mix is sound (§5.1); the oracles that judge one are
//! in [`super::ldrf_sound`]. It knows no implementation.
//!
//! The claim an analysis makes at a location is given in one uniform shape, so that the
//! judge needs no knowledge of the domain: a *product over blocks* of the variables (the
//! blocks partition them), each block with the set of value tuples it allows. γ(claim) is
//! the cartesian product of the blocks' sets.
//! - a value-set analysis: singleton blocks, each with its value set;
//! - an interval analysis: singleton blocks, each with the values of its interval;
//! - a region-relational analysis: the regions, each with its region tuples;
//! - a fully relational analysis: one block, the set of whole environments.
//!
//! Values are those of the oracle's world, mod K = [`Cfg::modulus`] (spec §6.2 (a)): a claim
//! is never a ℤ fact compared with mod-K truth (A14).

use std::collections::BTreeSet;

use crate::ldrf::cfg::{Cfg, Edge, Node, Var};

pub use crate::ldrf::cart::Mix;

/// How a claim reads best (a printing hint only; the judge reads the tuples).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Notation {
    /// `x∈{0,1}`, `{x,y}∈{(0,0),(1,1)}`.
    Sets,
    /// `x∈[0,2]` (singleton blocks whose values are contiguous).
    Intervals,
}

/// One block of a claim: some variables and the tuples of values they may hold together.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Block {
    /// The block's variables, in the order of the tuples' components.
    pub vars: Vec<Var>,
    /// The tuples allowed (values mod K). Empty: no environment (⊥).
    pub tuples: BTreeSet<Vec<i64>>,
}

/// A claim at one location: `None` claims the location unreachable (⊥); otherwise a product
/// of blocks that partition the variables.
pub type Claim = Option<Vec<Block>>;

/// What a sync-CFG analysis concluded about one program.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Facts {
    /// The domain's name (`value-set`).
    pub domain: String,
    /// Its mix, and so the hypothesis of its soundness claim.
    pub mix: Mix,
    /// How its claims read best.
    pub notation: Notation,
    /// The claim at every location, indexed by [`Node`].
    pub at: Vec<Claim>,
    /// The assert instructions it claims proved: every
    /// environment of γ(claim at the assert's source) satisfies the condition.
    pub proved: BTreeSet<Edge>,
}

/// A sync-CFG analysis as a system under test.
pub trait SyncCfgAnalysis: Send + Sync {
    /// Its name in reports (`value-set`, `interval[mutant]`).
    fn name(&self) -> String;

    /// Analyzes the graphs of a validated `ldrf` program.
    fn analyze(&self, cfg: &Cfg) -> Facts;
}

impl Facts {
    /// Why these facts do not fit `cfg` (an analysis bug the judge cannot read past): a
    /// claim at a location that does not exist, blocks that do not partition the variables,
    /// tuples of the wrong arity, values outside `0..K`, a proved edge that is no assert.
    pub fn malformed(&self, cfg: &Cfg) -> Option<String> {
        if self.at.len() != cfg.owner.len() {
            return Some(format!("claims are given at {} locations; the program has {}", self.at.len(), cfg.owner.len()));
        }
        for (n, claim) in self.at.iter().enumerate() {
            let Some(blocks) = claim else { continue };
            let mut seen = vec![0usize; cfg.vars.len()];
            for b in blocks {
                for &x in &b.vars {
                    match seen.get_mut(x.index()) {
                        Some(c) => *c += 1,
                        None => return Some(format!("location {n}: a block names variable #{x}, which does not exist")),
                    }
                }
                if let Some(t) = b.tuples.iter().find(|t| t.len() != b.vars.len() || t.iter().any(|v| !(0..cfg.modulus).contains(v))) {
                    return Some(format!("location {n}: the tuple {t:?} does not fit the block {} (values mod {})", cfg.region_name(&b.vars), cfg.modulus));
                }
            }
            if let Some(x) = seen.iter().position(|&c| c != 1) {
                return Some(format!("location {n}: the blocks do not partition the variables (`{}` is in {} blocks)", cfg.vars[x], seen[x]));
            }
        }
        if let Some(e) = self.proved.iter().find(|&&e| !matches!(cfg.edges.get(e.index()).map(|e| &e.cmd), Some(crate::ldrf::cfg::Cmd::Assert(_)))) {
            return Some(format!("instruction #{e} is claimed a proved assert but is none"));
        }
        None
    }

    /// Whether γ(claim at `n`) projected to `vars` contains `tuple` (components in `vars`'
    /// order). A product contains a tuple iff every block's projection contains the
    /// tuple's part over that block, and no block is empty.
    pub fn covers(&self, n: Node, vars: &[Var], tuple: &[i64]) -> bool {
        let Some(Some(blocks)) = self.at.get(n.index()) else { return false };
        blocks.iter().all(|b| {
            let parts: Vec<(usize, i64)> =
                b.vars.iter().enumerate().filter_map(|(i, x)| vars.iter().position(|y| y == x).map(|j| (i, tuple.get(j).copied().unwrap_or(-1)))).collect();
            b.tuples.iter().any(|t| parts.iter().all(|&(i, v)| t.get(i) == Some(&v)))
        })
    }

    /// The claim at `n` projected to `vars`, as text: `x∈{0,1} · {x,y}∈{(0,0),(1,1)}`, `⊥`
    /// for an unreachable claim, `⊤` when no block meets `vars`.
    pub fn show(&self, cfg: &Cfg, n: Node, vars: &[Var]) -> String {
        let Some(Some(blocks)) = self.at.get(n.index()) else { return "⊥".into() };
        if blocks.iter().any(|b| b.tuples.is_empty()) {
            return "⊥".into();
        }
        let mut parts = vec![];
        for b in blocks {
            let keep: Vec<usize> = (0..b.vars.len()).filter(|&i| vars.contains(&b.vars[i])).collect();
            if keep.is_empty() {
                continue;
            }
            let proj: BTreeSet<Vec<i64>> = b.tuples.iter().map(|t| keep.iter().map(|&i| t.get(i).copied().unwrap_or(-1)).collect()).collect();
            if keep.len() == 1 {
                let name = cfg.vars.get(b.vars[keep[0]].index()).map_or("?", String::as_str);
                let vals: Vec<i64> = proj.iter().map(|t| t[0]).collect();
                let (lo, hi) = (vals.first().copied().unwrap_or(0), vals.last().copied().unwrap_or(0));
                if self.notation == Notation::Intervals && usize::try_from(hi - lo + 1).ok() == Some(vals.len()) {
                    parts.push(format!("{name}∈[{lo},{hi}]"));
                } else {
                    parts.push(format!("{name}∈{{{}}}", vals.iter().map(ToString::to_string).collect::<Vec<_>>().join(",")));
                }
            } else {
                let names: Vec<&str> = keep.iter().map(|&i| cfg.vars.get(b.vars[i].index()).map_or("?", String::as_str)).collect();
                let tuples: Vec<String> = proj.iter().map(|t| format!("({})", t.iter().map(ToString::to_string).collect::<Vec<_>>().join(","))).collect();
                parts.push(format!("{{{}}}∈{{{}}}", names.join(","), tuples.join(",")));
            }
        }
        if parts.is_empty() {
            "⊤".into()
        } else {
            parts.join(" ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(blocks: Vec<Block>) -> Facts {
        Facts { domain: "t".into(), mix: Mix::Var, notation: Notation::Sets, at: vec![Some(blocks)], proved: BTreeSet::new() }
    }

    #[test]
    fn a_product_covers_a_tuple_iff_every_block_does() {
        let v = |xs: &[usize]| -> Vec<Var> { xs.iter().map(|&x| Var::new(x)).collect() };
        let n = Node::new(0);
        let f = facts(vec![Block { vars: v(&[0, 1]), tuples: [vec![0, 0], vec![1, 1]].into() }, Block { vars: v(&[2]), tuples: [vec![3]].into() }]);
        assert!(f.covers(n, &v(&[0, 1]), &[1, 1]));
        assert!(!f.covers(n, &v(&[0, 1]), &[1, 0]));
        assert!(f.covers(n, &v(&[1, 2]), &[0, 3]));
        assert!(!f.covers(n, &v(&[2]), &[1]));
        assert!(f.covers(n, &[], &[]));
        let bottom = facts(vec![Block { vars: v(&[0]), tuples: BTreeSet::new() }]);
        assert!(!bottom.covers(n, &[], &[]));
    }
}
