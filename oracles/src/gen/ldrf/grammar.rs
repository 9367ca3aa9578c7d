//! The grammar of the L-DRF programs and its classifier ([`crate::gen::grammar`]): the
//! commands of docs/spec/ldrf.md §1.1, the biases of §6.4 and the shapes of §8, each a production
//! the generator must use in at least 1% of its programs. The classifier reads the program,
//! not the generator's choices.

use std::collections::{BTreeMap, BTreeSet};

use super::SHARED;
use crate::gen::grammar::{prod, Grammar};
use crate::gen::toolkit::keep_listed;
use crate::lang::*;

/// The productions of the L-DRF programs (docs/spec/ldrf.md §1.1 the commands, §6.4 the biases,
/// §8 the shapes).
pub static GRAMMAR_LDRF: Grammar = Grammar {
    productions: &[
        prod("constant write", "x = k"),
        prod("copy", "x = y"),
        prod("add constant", "x = y ± k"),
        prod("sum of variables", "x = y ± z"),
        prod("product or remainder", "x = y * k | y % k"),
        prod("negation", "x = -y | -(y + k)"),
        prod("nondet", "x = nondet{a..b}"),
        prod("assume", "assume b"),
        prod("assert on shared", "assert b (b reads a variable two threads mention)"),
        prod("assert on private", "assert b (b reads private variables only)"),
        prod("compound condition", "b1 && b2 | b1 || b2 | !b"),
        prod("skip", "skip"),
        prod("if", "if b { .. } else { .. }"),
        prod("if *", "if * { .. } else { .. }"),
        prod("while", "while b { .. }"),
        prod("spin loop", "while b { acq(m); .. rel(m) } (Fig. 4)"),
        prod("critical section", "acq(m); ..; rel(m)"),
        prod("nested locks", "acq(m); .. acq(n); .. rel(n); .. rel(m)"),
        prod("two locks", "locks m and n in one program"),
        prod("three threads", "thread { } thread { } thread { }"),
        prod("shared read into a private", "acq(m); a = x; rel(m)"),
        prod("assert in a critical section", "acq(m); assert x == y; rel(m) (Fig. 1)"),
        prod("lock in a branch", "if b { acq(m); ..; rel(m) }"),
        prod("branch in a critical section", "acq(m); if b { .. }; rel(m)"),
        prod("confined variable", "a shared name (x, y, z, w) only one thread mentions"),
        prod("unlocked shared access", "x = e or assert on x, x shared, no lock held"),
        prod("access after a hand-off", "while b { acq(m); .. rel(m) }; x = e, x shared"),
        prod("regions", "regions { x, y } (§3: co-accessed variables, §6.4)"),
    ],
    uses: uses_ldrf,
};

/// Walks one thread: the productions its statements use.
struct Classify<'p> {
    u: BTreeSet<&'static str>,
    /// Variables two or more threads mention.
    shared: BTreeSet<&'p str>,
}

impl<'p> Classify<'p> {
    fn expr_vars(e: &'p Expr) -> Vec<&'p str> {
        let mut v = vec![];
        e.for_each_var(&mut |x| v.push(x));
        v
    }

    fn compound(e: &Expr) -> bool {
        match e {
            Expr::Unary(UnOp::Not, _) | Expr::Binary(BinOp::And | BinOp::Or, ..) => true,
            Expr::Unary(_, a) => Self::compound(a),
            Expr::Binary(_, a, b) => Self::compound(a) || Self::compound(b),
            _ => false,
        }
    }

    /// `held`: locks held here; `spun`: a spin loop ran before, in this thread.
    fn block(&mut self, b: &'p [Stmt], held: &mut Vec<&'p str>, spun: &mut bool, in_if: bool) {
        for st in b {
            self.stmt(st, held, spun, in_if);
        }
    }

    fn access(&mut self, vars: &[&'p str], held: &[&'p str], spun: bool) {
        if vars.iter().any(|v| self.shared.contains(v)) && held.is_empty() {
            self.u.insert("unlocked shared access");
            if spun {
                self.u.insert("access after a hand-off");
            }
        }
    }

    fn stmt(&mut self, st: &'p Stmt, held: &mut Vec<&'p str>, spun: &mut bool, in_if: bool) {
        let u = &mut self.u;
        match &st.kind {
            StmtKind::Skip => {
                u.insert("skip");
            }
            StmtKind::Assign { dst, src } => {
                match src {
                    Expr::Int(_) => u.insert("constant write"),
                    Expr::Var(_) => u.insert("copy"),
                    Expr::Binary(BinOp::Add | BinOp::Sub, a, b) => match (&**a, &**b) {
                        (Expr::Var(_), Expr::Int(_)) | (Expr::Int(_), Expr::Var(_)) => u.insert("add constant"),
                        (Expr::Var(_), Expr::Var(_)) => u.insert("sum of variables"),
                        _ => false,
                    },
                    Expr::Binary(BinOp::Mul | BinOp::Rem, ..) => u.insert("product or remainder"),
                    Expr::Unary(UnOp::Neg, _) => u.insert("negation"),
                    _ => false,
                };
                let mut vars = Self::expr_vars(src);
                if !held.is_empty() && !self.shared.contains(dst.as_str()) && vars.iter().any(|v| self.shared.contains(v)) {
                    self.u.insert("shared read into a private");
                }
                vars.push(dst);
                self.access(&vars, held, *spun);
            }
            StmtKind::Nondet { dst, .. } => {
                u.insert("nondet");
                self.access(&[dst.as_str()], held, *spun);
            }
            StmtKind::Assume(e) => {
                u.insert("assume");
                if Self::compound(e) {
                    u.insert("compound condition");
                }
            }
            StmtKind::Assert(e) => {
                if Self::compound(e) {
                    u.insert("compound condition");
                }
                let vars = Self::expr_vars(e);
                if vars.iter().any(|v| self.shared.contains(v)) {
                    self.u.insert("assert on shared");
                    if !held.is_empty() {
                        self.u.insert("assert in a critical section");
                    }
                } else {
                    self.u.insert("assert on private");
                }
                self.access(&vars, held, *spun);
            }
            StmtKind::Acq(m) => {
                u.insert("critical section");
                if !held.is_empty() {
                    u.insert("nested locks");
                }
                if in_if {
                    u.insert("lock in a branch");
                }
                held.push(m);
            }
            StmtKind::Rel(m) => {
                if let Some(i) = held.iter().rposition(|h| h == m) {
                    held.remove(i);
                }
            }
            StmtKind::If { cond, then_b, else_b } => {
                match cond {
                    Cond::Star => u.insert("if *"),
                    Cond::Expr(e) => {
                        if Self::compound(e) {
                            u.insert("compound condition");
                        }
                        u.insert("if")
                    }
                };
                if !held.is_empty() {
                    u.insert("branch in a critical section");
                }
                let mut h2 = held.clone();
                self.block(then_b, &mut h2, spun, true);
                let mut h3 = held.clone();
                self.block(else_b, &mut h3, spun, true);
            }
            StmtKind::While { cond, body, .. } => {
                u.insert("while");
                if let Cond::Expr(e) = cond {
                    if Self::compound(e) {
                        u.insert("compound condition");
                    }
                }
                let spin = body.iter().any(|s| matches!(s.kind, StmtKind::Acq(_)));
                if spin {
                    u.insert("spin loop");
                }
                let mut h2 = held.clone();
                self.block(body, &mut h2, spun, in_if);
                *spun |= spin;
            }
            _ => {}
        }
    }
}

fn uses_ldrf(p: &Program) -> BTreeSet<&'static str> {
    let ms: Vec<BTreeSet<&str>> = p.threads.iter().map(|b| crate::lang::mentioned_vars(b)).collect();
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for m in &ms {
        for v in m {
            *count.entry(v).or_default() += 1;
        }
    }
    let shared: BTreeSet<&str> = count.iter().filter(|(_, n)| **n >= 2).map(|(v, _)| *v).collect();
    let mut c = Classify { u: BTreeSet::new(), shared };
    for t in &p.threads {
        c.block(t, &mut vec![], &mut false, false);
    }
    if count.iter().any(|(v, n)| *n == 1 && SHARED.contains(v)) {
        c.u.insert("confined variable");
    }
    if p.threads.len() >= 3 {
        c.u.insert("three threads");
    }
    let mut locks = BTreeSet::new();
    for t in &p.threads {
        walk_block(t, &mut |s| {
            if let StmtKind::Acq(m) | StmtKind::Rel(m) = &s.kind {
                locks.insert(m.clone());
            }
        });
    }
    if locks.len() >= 2 {
        c.u.insert("two locks");
    }
    if !p.regions.is_empty() {
        c.u.insert("regions");
    }
    keep_listed(&GRAMMAR_LDRF, &mut c.u);
    c.u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::grammar::Coverage;
    use crate::gen::ldrf::swarm_ldrf;
    use crate::gen::test_bytes as bytes;

    #[test]
    fn every_production_is_used() {
        let mut cov = Coverage::new(&GRAMMAR_LDRF);
        for seed in 0..3000u64 {
            cov.add(&GRAMMAR_LDRF, &swarm_ldrf(&bytes(seed + 7_000, 64), Relax::default()));
        }
        for (q, pct) in cov.percents() {
            println!("{pct:5.1}% {}", q.name);
        }
        let below = cov.below_floor();
        assert!(below.is_empty(), "below the floor: {below:?}");
    }
}
