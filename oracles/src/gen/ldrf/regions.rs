//! The region partitions of the L-DRF generator (docs/spec/ldrf.md §3 `regions { x, y }`, §6.4:
//! group variables co-accessed in one critical section). They read no bytes: a partition is
//! a function of the program and the knobs.

use std::collections::BTreeSet;

use super::SHARED;
use crate::lang::{Program, Stmt, StmtKind};

/// A region partition for `p` (spec §6.4: group variables co-accessed in one critical
/// section): the shared-named variables (`x y z w`) that one statement mentions together
/// (`by_statement`), or that one outermost critical section touches, closed transitively;
/// only groups of two or more. Some groupings are region-racy (R5: `b = x + y` groups x with
/// the unlocked `y`); E-STD tells (Def. 12), not the generator.
pub fn regions(p: &Program, by_statement: bool) -> Vec<Vec<String>> {
    fn walk<'p>(b: &'p [Stmt], held: &mut usize, cur: &mut Vec<&'p str>, groups: &mut Vec<Vec<&'p str>>, by_statement: bool) {
        for st in b {
            match &st.kind {
                StmtKind::Acq(_) => *held += 1,
                StmtKind::Rel(_) => {
                    *held = held.saturating_sub(1);
                    if *held == 0 && !by_statement {
                        groups.push(std::mem::take(cur));
                    }
                }
                _ => {}
            }
            let mut vars = vec![];
            match &st.kind {
                StmtKind::Assign { src: e, .. } | StmtKind::Assert(e) => e.for_each_var(&mut |v| vars.push(v)),
                _ => {}
            }
            vars.extend(st.kind.assigned());
            vars.retain(|v| SHARED.contains(v));
            if by_statement {
                groups.push(vars);
            } else if *held > 0 {
                cur.extend(vars);
            }
            for sub in st.kind.sub_blocks() {
                walk(sub, held, cur, groups, by_statement);
            }
        }
    }
    let mut groups = vec![];
    for t in &p.threads {
        let (mut held, mut cur) = (0, vec![]);
        walk(t, &mut held, &mut cur, &mut groups, by_statement);
        groups.push(cur);
    }
    // Union of overlapping groups, to a fixpoint.
    let mut parts: Vec<BTreeSet<&str>> = vec![];
    for g in groups {
        let mut merged: BTreeSet<&str> = g.into_iter().collect();
        parts.retain(|q| {
            if q.is_disjoint(&merged) {
                return true;
            }
            merged.extend(q.iter().copied());
            false
        });
        parts.push(merged);
    }
    let mut out: Vec<Vec<String>> = parts.into_iter().filter(|q| q.len() >= 2).map(|q| q.into_iter().map(str::to_string).collect()).collect();
    out.sort();
    out
}
