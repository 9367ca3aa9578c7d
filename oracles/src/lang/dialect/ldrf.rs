//! The language of the L-DRF paper ([Mukherjee et al. 2017] §2, docs/spec/ldrf.md §1.1, §6.4): global integer
//! variables that all start at 0, a fixed set of `thread { }` blocks, named locks taken with
//! `acq(m)` and `rel(m)` (not reentrant, A7), `x = e` over `+ - * %` and `x = nondet{a..b}`,
//! `assume b`, `assert b` (a non-blocking read that records a failure, A1), and `if`/`while`
//! whose conditions are the paper's assume-edge pairs.
//!
//! Well-formedness rules it enforces, each named in its errors:
//! - **§1.1 program**: threads only (no classes, methods or `init`), at least one thread;
//! - **§1.1 commands**: assignments, `nondet`, `assume`, `assert`, `acq`, `rel`, `skip`,
//!   `if`, `while`; nothing on the heap, no `fork`/`join`/`break`/`return`/calls;
//! - **§1.1 expressions**: assignments compute integers (constants, variables, `+ - * %`,
//!   negation); conditions compare integers and combine with `&& || !`;
//! - **§1.1 assume**: assume conditions (and so `if`/`while` conditions, which are assume
//!   pairs) mention only the thread's private variables, those no other thread mentions:
//!   the paper's WLOG restriction, which keeps assumes out of the accesses;
//! - **§1.1 locks**: a lock name is not also a variable;
//! - **§3 regions**: `regions { x, y }` declares one region of a partition of the
//!   variables: each names variables of the program, none twice (a variable in no
//!   declaration is a region of its own).
//! - **size** (\[C\]): at most [`MAX_THREADS`] threads, [`MAX_LOCKS`] locks,
//!   [`MAX_VARS`] variables and [`MAX_STATEMENTS`] statements: the engines index them with
//!   fixed-width integers (the L-DRF control-flow graph's `Var`, `Lock` and `Node`), and an
//!   index that did not fit would alias two of them. This rule rejects such a program (exit 2)
//!   before any index is made, so those indices' checked constructors fail only on an
//!   internal bug.

use std::collections::{BTreeMap, BTreeSet};

use super::*;

/// At most this many threads: the stateful happens-before check keeps sets of threads in
/// 64-bit words (and lock holders are `u8`s).
pub const MAX_THREADS: usize = 64;
/// At most this many locks: the same check keeps sets of locks in 64-bit words.
pub const MAX_LOCKS: usize = 64;
/// At most this many variables: indices are 16-bit, and Remark 13's reduction adds one
/// ghost variable per region (at most one per variable).
pub const MAX_VARS: usize = 1 << 15;
/// At most this many statements: locations are 32-bit, and a statement makes at most three.
pub const MAX_STATEMENTS: usize = 1 << 20;

impl Validator<'_> {
    pub(super) fn ldrf(&self) -> VResult {
        if let Some(c) = self.p.classes.first() {
            return self.fail("§1.1 program", format!("a program is threads over global integers; no classes (class `{}`)", c.name), Some(c.line));
        }
        if let Some(m) = self.p.methods.first() {
            return self.fail("§1.1 program", format!("threads have no procedures (method `{}`)", m.name), Some(m.line));
        }
        if self.p.init.is_some() {
            return self.fail("§1.1 program", "every variable starts at 0; there is no `init`".into(), None);
        }
        if self.p.threads.is_empty() {
            return self.fail("§1.1 program", "a program needs at least one thread".into(), None);
        }
        self.forbid("§1.1 commands", "not an L-DRF command (assignments, nondet, assume, assert, acq, rel, skip, if, while)", |k| {
            !matches!(
                k,
                StmtKind::Skip
                    | StmtKind::Assign { .. }
                    | StmtKind::Nondet { .. }
                    | StmtKind::Assume(_)
                    | StmtKind::Assert(_)
                    | StmtKind::Acq(_)
                    | StmtKind::Rel(_)
                    | StmtKind::If { .. }
                    | StmtKind::While { label: None, .. }
            )
        })?;
        self.forbid(
            "§1.1 expressions",
            "an assignment computes an integer from constants, variables and `+ - * %`",
            |k| matches!(k, StmtKind::Assign { src, .. } if !int_expr(src)),
        )?;
        self.forbid("§1.1 expressions", "a condition compares integers (`==`, `<`, …) and combines with `&& || !`", |k| match k {
            StmtKind::Assume(e) | StmtKind::Assert(e) | StmtKind::If { cond: Cond::Expr(e), .. } | StmtKind::While { cond: Cond::Expr(e), .. } => !bool_expr(e),
            _ => false,
        })?;
        let locks: BTreeSet<&str> = self
            .all_stmts()
            .filter_map(|(_, s)| match &s.kind {
                StmtKind::Acq(m) | StmtKind::Rel(m) => Some(m.as_str()),
                _ => None,
            })
            .collect();
        let mut owners: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
        for (t, s) in self.all_stmts() {
            for v in stmt_vars(&s.kind) {
                if locks.contains(v) {
                    return self.fail("§1.1 locks", format!("`{v}` names a lock and a variable"), Some(s.line));
                }
                owners.entry(v).or_default().insert(t);
            }
        }
        self.ldrf_size(locks.len(), owners.len())?;
        let mut placed = BTreeSet::new();
        for r in &self.p.regions {
            for v in r {
                if !owners.contains_key(v.as_str()) {
                    return self.fail("§3 regions", format!("`{v}` in `regions {{ {} }}` is not a variable of the program", r.join(", ")), None);
                }
                if !placed.insert(v.as_str()) {
                    return self.fail("§3 regions", format!("`{v}` is in two regions; regions partition the variables"), None);
                }
            }
        }
        for (t, s) in self.all_stmts() {
            let cond = match &s.kind {
                StmtKind::Assume(e) | StmtKind::If { cond: Cond::Expr(e), .. } | StmtKind::While { cond: Cond::Expr(e), .. } => e,
                _ => continue,
            };
            let mut shared = None;
            cond.for_each_var(&mut |v| {
                if shared.is_none() && owners.get(v).is_some_and(|o| o.len() > 1 || !o.contains(&t)) {
                    shared = Some(v.to_string());
                }
            });
            if let Some(v) = shared {
                return self.fail(
                    "§1.1 assume",
                    format!(
                        "the condition reads `{v}`, which another thread mentions; assume conditions read the thread's private variables only (use `assert` to read shared ones)"
                    ),
                    Some(s.line),
                );
            }
        }
        Ok(())
    }

    /// The **size** rule: what the engines can index.
    fn ldrf_size(&self, locks: usize, vars: usize) -> VResult {
        let statements = self.all_stmts().count();
        for (n, max, what) in
            [(self.p.threads.len(), MAX_THREADS, "threads"), (locks, MAX_LOCKS, "locks"), (vars, MAX_VARS, "variables"), (statements, MAX_STATEMENTS, "statements")]
        {
            if n > max {
                return self.fail("size", format!("{n} {what}; the L-DRF engines admit at most {max}"), None);
            }
        }
        Ok(())
    }

    /// Every statement of every thread, nested ones included, with the thread's index.
    fn all_stmts(&self) -> impl Iterator<Item = (usize, &Stmt)> {
        self.p.threads.iter().enumerate().flat_map(|(t, b)| {
            let mut v = vec![];
            walk_block(b, &mut |s| v.push((t, s)));
            v
        })
    }
}

/// The variables a statement mentions itself (conditions, operands, the assigned one).
fn stmt_vars(k: &StmtKind) -> Vec<&str> {
    let mut out = vec![];
    match k {
        StmtKind::Assign { src: e, .. } | StmtKind::Assume(e) | StmtKind::Assert(e) | StmtKind::If { cond: Cond::Expr(e), .. } | StmtKind::While { cond: Cond::Expr(e), .. } => {
            e.for_each_var(&mut |v| out.push(v));
        }
        _ => {}
    }
    out.extend(k.assigned());
    out
}

fn int_expr(e: &Expr) -> bool {
    match e {
        Expr::Int(_) | Expr::Var(_) => true,
        Expr::Unary(UnOp::Neg, a) => int_expr(a),
        Expr::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Rem, a, b) => int_expr(a) && int_expr(b),
        _ => false,
    }
}

fn bool_expr(e: &Expr) -> bool {
    match e {
        Expr::Bool(_) => true,
        Expr::Unary(UnOp::Not, a) => bool_expr(a),
        Expr::Binary(BinOp::And | BinOp::Or, a, b) => bool_expr(a) && bool_expr(b),
        Expr::Binary(BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge, a, b) => int_expr(a) && int_expr(b),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::violation;

    fn v(threads: &[&str]) -> Option<(&'static str, Option<u32>)> {
        let body: String = threads.iter().map(|t| format!("thread {{\n{t}\n}}\n")).collect();
        violation(&format!("dialect ldrf\n{body}")).map(|(a, l, _)| (a, l))
    }

    #[test]
    fn the_papers_figures_are_in_the_dialect() {
        let fig1 = ["acq(m)\nx = y\nx = x + 1\ny = y + 1\nassert x == y\nrel(m)", "z = z + 1\nassert z == 1\nacq(m)\nassert x == y\nrel(m)"];
        assert_eq!(v(&fig1), None);
        let fig4 = ["acq(m)\nx = 1\ny = 1\nrel(m)", "while p != 1 {\nacq(m)\np = y\nrel(m)\n}\nx = 2\np = x\nassert p != 1"];
        assert_eq!(v(&fig4), None);
        assert_eq!(v(&["t = nondet{0..3}\nif t < 2 { x = t } else { skip }"]), None);
    }

    #[test]
    fn each_rule_is_named_with_its_line() {
        assert_eq!(v(&["x = 1", "assume x == 1"]), Some(("§1.1 assume", Some(6))));
        assert_eq!(v(&["x = 1", "if x == 1 { skip }"]), Some(("§1.1 assume", Some(6))));
        assert_eq!(v(&["x = 1", "assert x == 1"]), None);
        assert_eq!(v(&["acq(m)\nm = 1\nrel(m)"]), Some(("§1.1 locks", Some(4))));
        assert_eq!(v(&["x = y == 1"]), Some(("§1.1 expressions", Some(3))));
        assert_eq!(v(&["assume x + 1"]), Some(("§1.1 expressions", Some(3))));
        assert_eq!(v(&["x = new"]), Some(("§1.1 commands", Some(3))));
        assert_eq!(v(&["lock"]), Some(("§1.1 commands", Some(3))));
        assert_eq!(violation("dialect ldrf\n").map(|(a, _, _)| a), Some("§1.1 program"));
        let regions = |decl: &str| violation(&format!("dialect ldrf\n{decl}\nthread {{\nx = 1\ny = 2\n}}\n")).map(|(a, _, _)| a);
        assert_eq!(regions("regions { x, y }"), None);
        assert_eq!(regions("regions { x, w }"), Some("§3 regions"));
        assert_eq!(regions("regions { x }\nregions { x, y }"), Some("§3 regions"));
        assert_eq!(violation("dialect bfj\nregions { x }\nthread { x = 1 }\n").map(|(a, _, _)| a), Some("regions"));
        let threads = |n: usize| violation(&format!("dialect ldrf\n{}", "thread {\nskip\n}\n".repeat(n))).map(|(a, _, m)| (a, m));
        assert_eq!(threads(super::MAX_THREADS), None);
        assert_eq!(threads(super::MAX_THREADS + 1), Some(("size", "65 threads; the L-DRF engines admit at most 64".into())));
        let locks: String = (0..=super::MAX_LOCKS).map(|i| format!("acq(m{i})\nrel(m{i})\n")).collect();
        assert_eq!(v(&[&locks]).map(|(a, _)| a), Some("size"));
    }
}
