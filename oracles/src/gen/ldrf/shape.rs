//! The sizes and the lock discipline of L-DRF programs (docs/spec/ldrf.md §6.4: what a
//! generator must enforce): the statement count [`super::MAX_STMTS`] bounds, and balanced
//! lock use on every path.

use std::collections::BTreeSet;

use crate::lang::{walk_block, Program, Stmt, StmtKind};

/// Statements of `p`, nested ones included.
pub fn stmt_count(p: &Program) -> usize {
    let mut n = 0;
    for t in &p.threads {
        walk_block(t, &mut |_| n += 1);
    }
    n
}

/// Whether every path of every thread of `p` takes only unheld locks and releases only held
/// ones (§6.4's balanced lock use; threads may not end holding a lock either).
pub fn balanced(p: &Program) -> bool {
    /// The lock sets after `b` from each set of `ins`; `None` on an unbalanced operation.
    fn go(b: &[Stmt], ins: BTreeSet<Vec<String>>) -> Option<BTreeSet<Vec<String>>> {
        let mut cur = ins;
        for s in b {
            let mut next = BTreeSet::new();
            for held in &cur {
                match &s.kind {
                    StmtKind::Acq(m) => {
                        if held.contains(m) {
                            return None;
                        }
                        let mut h = held.clone();
                        h.push(m.clone());
                        next.insert(h);
                    }
                    StmtKind::Rel(m) => {
                        let i = held.iter().position(|h| h == m)?;
                        let mut h = held.clone();
                        h.remove(i);
                        next.insert(h);
                    }
                    StmtKind::If { then_b, else_b, .. } => {
                        let one = BTreeSet::from([held.clone()]);
                        next.extend(go(then_b, one.clone())?);
                        next.extend(go(else_b, one)?);
                    }
                    StmtKind::While { body, .. } => {
                        let one = BTreeSet::from([held.clone()]);
                        if go(body, one.clone())? != one {
                            return None;
                        }
                        next.insert(held.clone());
                    }
                    _ => {
                        next.insert(held.clone());
                    }
                }
            }
            cur = next;
        }
        Some(cur)
    }
    p.threads.iter().all(|t| go(t, BTreeSet::from([vec![]])).is_some_and(|ends| ends.iter().all(Vec::is_empty)))
}
