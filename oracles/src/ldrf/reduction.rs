//! Remark 13 (docs/spec/ldrf.md §3): region races reduce to data races. Add a ghost variable X_r
//! per region; before `x := e`, which writes region r_w and reads regions r_1..r_k, insert
//! `X_{r_w} := X_{r_1}; …; X_{r_w} := X_{r_k}`; then the data races on the ghosts are the
//! region races (Def. 12) of the original program. C10 compares the two.
//!
//! **The k = 0 gap \[D\]** (§3, R7): the literal reduction inserts nothing before a write
//! that reads no region (`x := 5`, `x := nondet{..}`), so `x := 1 ∥ y := 1` with region
//! {x, y} is a region race the reduced program does not have. [`Reduction::Fixed`] inserts
//! `X_{r_w} := X_{r_w}` there (\[C\]); [`Reduction::Literal`] keeps the gap, to show it.
//!
//! An `assert` reads (A1), so both forms insert a ghost read `assert X_r == X_r` for each
//! region it reads: the paper's language has no assert, and without these reads an assert
//! racing a region write would be missed by both forms alike.

use std::collections::BTreeSet;

use super::cfg::{Cfg, Cmd, Edge, IExpr, Instr, Var};
use super::standard::{Race, RegionRace};

/// Which form of the reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// As the paper writes it: nothing before a write that reads no region.
    Literal,
    /// With `X_{r_w} := X_{r_w}` before such a write (\[C\]).
    Fixed,
}

/// The reduced program: its graphs, the ghost variable of each region (by index into the
/// partition), and the original instruction each instruction stands for.
pub struct Reduced {
    /// P' (ghosts appended to the variables).
    pub cfg: Cfg,
    /// X_r for each region r.
    pub ghost: Vec<Var>,
    /// For each edge of P', the edge of P it was inserted before (or is).
    pub origin: Vec<Edge>,
}

/// P' of Remark 13 under `partition`.
pub fn reduce(cfg: &Cfg, partition: &[Vec<Var>], form: Reduction) -> Reduced {
    let region = cfg.region_of(partition);
    let mut out = Cfg { edges: vec![], out: vec![vec![]; cfg.out.len()], ..cfg.clone() };
    let ghost: Vec<Var> = partition
        .iter()
        .map(|r| {
            out.vars.push(format!("X{}", cfg.region_name(r)));
            super::cfg::Var::new(out.vars.len() - 1)
        })
        .collect();
    let mut origin = vec![];
    for (i, e) in cfg.edge_ids().zip(&cfg.edges) {
        let (reads, write) = cfg.accesses(e);
        let read_regions: BTreeSet<usize> = reads.iter().map(|&x| region[x.index()]).collect();
        let inserted: Vec<Cmd> = match (&e.cmd, write) {
            (Cmd::Assign(..) | Cmd::Nondet(..), Some(w)) => {
                let rw = region[w.index()];
                let mut v: Vec<Cmd> = read_regions.iter().map(|&r| Cmd::Assign(ghost[rw], IExpr::Var(ghost[r]))).collect();
                if v.is_empty() && form == Reduction::Fixed {
                    v.push(Cmd::Assign(ghost[rw], IExpr::Var(ghost[rw])));
                }
                v
            }
            (Cmd::Assert(_), _) => read_regions.iter().map(|&r| Cmd::Assert(super::cfg::BExpr::Cmp(crate::lang::BinOp::Eq, IExpr::Var(ghost[r]), IExpr::Var(ghost[r])))).collect(),
            _ => vec![],
        };
        let mut src = e.src;
        for cmd in inserted {
            // Checked: one location per inserted read, which the size rule does not bound.
            let mid = super::cfg::Node::new(out.owner.len());
            out.owner.push(cfg.owner[e.src.index()]);
            out.out.push(vec![]);
            let text = ghost_text(&out, &cmd);
            out.push(Instr { src, cmd, dst: mid, line: e.line, text });
            origin.push(i);
            src = mid;
        }
        out.push(Instr { src, ..e.clone() });
        origin.push(i);
    }
    Reduced { cfg: out, ghost, origin }
}

fn ghost_text(cfg: &Cfg, cmd: &Cmd) -> String {
    let name = |x: &IExpr| match x {
        IExpr::Var(v) => cfg.vars[v.index()].clone(),
        _ => String::new(),
    };
    match cmd {
        Cmd::Assign(x, e) => format!("{} = {} (ghost)", cfg.vars[x.index()], name(e)),
        Cmd::Assert(super::cfg::BExpr::Cmp(_, a, _)) => format!("assert {0} == {0} (ghost)", name(a)),
        _ => String::new(),
    }
}

impl Reduced {
    /// The region races P' reports: its data races on ghosts, as (edge of P, edge of P,
    /// region), the smaller edge first.
    pub fn region_races(&self, races: &BTreeSet<Race>) -> BTreeSet<RegionRace> {
        races
            .iter()
            .filter_map(|&(e1, e2, x)| {
                let r = self.ghost.iter().position(|&g| g == x)?;
                let (a, b) = (self.origin[e1.index()], self.origin[e2.index()]);
                Some((a.min(b), a.max(b), r))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Config;
    use crate::ldrf::standard::{reach, region_races};

    fn cfg(src: &str) -> Cfg {
        let p = crate::lang::parse(src).expect("parses");
        crate::lang::validate(&p).expect("valid");
        Cfg::of(&p, 4)
    }

    fn both(c: &Cfg, form: Reduction) -> (BTreeSet<RegionRace>, BTreeSet<RegionRace>) {
        let direct = region_races(c, &reach(c, &Config::default()), &c.regions);
        let r = reduce(c, &c.regions, form);
        (direct, r.region_races(&reach(&r.cfg, &Config::default()).races))
    }

    /// R7: `x := 1 ∥ y := 1` with region {x, y} is a region race (Def. 12) and no data race;
    /// the literal reduction misses it, the fixed one finds it.
    #[test]
    fn r7_the_k0_gap() {
        let c = cfg("dialect ldrf\nregions { x, y }\nthread {\nx = 1\n}\nthread {\ny = 1\n}\n");
        assert!(reach(&c, &Config::default()).races.is_empty());
        let (direct, literal) = both(&c, Reduction::Literal);
        assert_eq!(direct.len(), 1);
        assert!(literal.is_empty(), "the literal reduction has the gap");
        let (direct, fixed) = both(&c, Reduction::Fixed);
        assert_eq!(direct, fixed);
    }

    /// R5 with region {x, y}: t1's write of x races t2's write of y as a region; both
    /// reductions agree with Def. 12 there (every write reads or is fixed).
    #[test]
    fn r5_region_race_both_ways() {
        let c = cfg("dialect ldrf\nregions { x, y }\nthread {\nacq(m)\nx = 1\nrel(m)\n}\nthread {\ny = 2\nacq(m)\na = x + y\n}\n");
        let (direct, fixed) = both(&c, Reduction::Fixed);
        assert!(!direct.is_empty());
        assert_eq!(direct, fixed);
    }
}
