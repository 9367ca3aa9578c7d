//! The productions of the BFJ programs and their classifier ([`crate::gen::grammar`]): one
//! production per rule of spec §4.5, per index form of §4.7 and §10.2, and per kill-set
//! class of \[CALL\] that the generator writes. The classifier reads the program only.

use std::collections::BTreeSet;

use crate::gen::grammar::{prod, Grammar};
use crate::lang::*;

/// The productions of the BFJ programs.
pub const GRAMMAR_BFJ: Grammar = Grammar {
    productions: &[
        prod("field read", "r = o.f"),
        prod("field write", "o.f = k"),
        prod("array read", "r = a[j]"),
        prod("array write", "a[j] = k"),
        prod("reassigned index", "j = k; …a[j]…; j = k'"),
        prod("literal index", "a[k]"),
        prod("non-linear index", "a[r % 4], a[i % 4], a[i % 4 + 0], a[-(i % 4) + 3]"),
        prod("offset index", "a[i + 1], a[i - 1]"),
        prod("scaled index", "a[2 * i]"),
        prod("reversed index", "a[3 - i], a[-i + 3]"),
        prod("index variable", "j = i + c; a[j]"),
        prod("acq/rel", "acq(m); C; rel(m)"),
        prod("sync", "sync(m) { C }"),
        prod("if *", "if * { C1 } else { C2 }"),
        prod("data condition", "if r > 0 { C1 } else { C2 }"),
        prod("do-while loop", "i = 0; loop { a[i]…; i = i + k; if i >= n break }"),
        prod("stride 2", "i = i + 2"),
        prod("while loop", "i = 0; while i < n { a[i]…; i = i + k }"),
        prod("exit test first", "loop { if i >= n break; …; i = i + k }"),
        prod("exit test in the middle", "loop { a[i]…; i = i + k; if i >= n break; … }"),
        prod("nested loops", "loop { …; loop { … } }"),
        prod("rename", "p <- i; i = p + k"),
        prod("start through a variable", "j = s; i = j; loop { … }"),
        prod("array alias", "b = a; …b[i]…"),
        prod("loop assigns its array", "loop { b = a; …b[i]… }"),
        prod("loop around a critical section", "i = 0; loop { acq(m); a[i]…; rel(m); … } run twice or more"),
        prod("allocation in a thread", "x = new C; x.f = k / x = new_array 2; x[k] = k'"),
        prod("call, no sync", "r = o.put(c) / r = o.store(a, j)"),
        prod("call, early return", "r = o.early(c), which may return before its end"),
        prod("call, acquires and releases", "r = o.bump(m)"),
        prod("call, acquire-only then release-only", "r = o.acquireIt(m); …; r = o.releaseIt(m)"),
        prod("call through a caller", "r = o.putVia(c) / r = o.bumpVia(m): kill sets through a callee"),
        prod("call, sync in the callee", "r = o.guarded(m), whose body is sync(l) { … }"),
        prod("three threads", "thread { … } × 3"),
    ],
    uses,
};

/// `if … break`.
fn is_exit(s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::If { then_b, .. } if matches!(then_b.as_slice(), [Stmt { kind: StmtKind::Break, .. }]))
}

/// The production of an index expression, if it is more than a variable.
fn index_form(e: &Expr) -> Option<&'static str> {
    let (mut neg, mut rem) = (false, false);
    walk_expr(e, &mut |x| {
        neg |= matches!(x, Expr::Unary(UnOp::Neg, _));
        rem |= matches!(x, Expr::Binary(BinOp::Rem, ..));
    });
    Some(match e {
        Expr::Int(_) => "literal index",
        _ if rem => "non-linear index",
        Expr::Binary(BinOp::Mul, ..) => "scaled index",
        Expr::Binary(BinOp::Sub, a, _) if matches!(**a, Expr::Int(_)) => "reversed index",
        _ if neg => "reversed index",
        Expr::Binary(BinOp::Add | BinOp::Sub, ..) => "offset index",
        _ => return None,
    })
}

fn walk_expr(e: &Expr, f: &mut impl FnMut(&Expr)) {
    f(e);
    match e {
        Expr::Unary(_, a) => walk_expr(a, f),
        Expr::Binary(_, a, b) => {
            walk_expr(a, f);
            walk_expr(b, f);
        }
        _ => {}
    }
}

fn uses(p: &Program) -> BTreeSet<&'static str> {
    let mut u = BTreeSet::new();
    if p.threads.len() == 3 {
        u.insert("three threads");
    }
    for t in &p.threads {
        let mut index_sets = 0;
        walk_block(t, &mut |s| {
            if let StmtKind::Load { src: Place::Index { index, .. }, .. } | StmtKind::Store { dst: Place::Index { index, .. }, .. } = &s.kind {
                u.extend(index_form(index));
            }
            if let StmtKind::Loop { body, .. } | StmtKind::While { body, .. } = &s.kind {
                let mut nested = false;
                walk_block(body, &mut |x| nested |= matches!(x.kind, StmtKind::Loop { .. } | StmtKind::While { .. }));
                if nested {
                    u.insert("nested loops");
                }
                if body.iter().any(|x| matches!(x.kind, StmtKind::Acq(_) | StmtKind::Sync { .. })) {
                    u.insert("loop around a critical section");
                }
                if body.iter().any(|x| matches!(&x.kind, StmtKind::Assign { src: Expr::Var(a), .. } if a == "a")) {
                    u.insert("loop assigns its array");
                }
                if let StmtKind::Loop { .. } = &s.kind {
                    match body.iter().position(is_exit) {
                        Some(0) => {
                            u.insert("exit test first");
                        }
                        Some(at) if at + 1 < body.len() => {
                            u.insert("exit test in the middle");
                        }
                        _ => {}
                    }
                }
            }
            let name = match &s.kind {
                StmtKind::Load { src: Place::Field { .. }, .. } => "field read",
                StmtKind::Store { dst: Place::Field { .. }, .. } => "field write",
                StmtKind::Load { src: Place::Index { .. }, .. } => "array read",
                StmtKind::Store { dst: Place::Index { .. }, .. } => "array write",
                StmtKind::New { .. } | StmtKind::NewArray { .. } => "allocation in a thread",
                StmtKind::Acq(_) => "acq/rel",
                StmtKind::Sync { .. } => "sync",
                StmtKind::If { cond: Cond::Star, .. } => "if *",
                StmtKind::If { .. } if !is_exit(s) => "data condition",
                StmtKind::Loop { .. } => "do-while loop",
                StmtKind::While { .. } => "while loop",
                StmtKind::Rename { .. } => "rename",
                StmtKind::Assign { dst, src: Expr::Binary(BinOp::Add, _, k) } if **k == Expr::Int(2) && dst.starts_with('i') => "stride 2",
                StmtKind::Assign { src: Expr::Var(a), .. } if a == "a" => "array alias",
                StmtKind::Assign { dst, src: Expr::Var(j) } if j == "j" && dst.starts_with('i') => "start through a variable",
                StmtKind::Assign { dst, src: Expr::Int(_) } if dst == "j" => {
                    index_sets += 1;
                    if index_sets > 1 {
                        "reassigned index"
                    } else {
                        ""
                    }
                }
                StmtKind::Assign { dst, .. } if dst == "j" => "index variable",
                StmtKind::Call { method, .. } => match method.as_str() {
                    "put" | "store" => "call, no sync",
                    "early" => "call, early return",
                    "bump" => "call, acquires and releases",
                    "acquireIt" => "call, acquire-only then release-only",
                    "putVia" | "bumpVia" => "call through a caller",
                    "guarded" => "call, sync in the callee",
                    _ => "",
                },
                _ => "",
            };
            if !name.is_empty() {
                u.insert(name);
            }
        });
    }
    u
}

#[cfg(test)]
mod tests {
    use super::super::{CHAINS, METHODS};
    use super::*;

    /// The classifier can fail: a hand-written program uses every production, an empty one
    /// none.
    #[test]
    fn the_classifier_sees_every_production() {
        let src = format!(
            "dialect bfj\nclass C {{\n  fields f, g\n{METHODS}{CHAINS}}}\ninit {{ o1 = new C; a = new_array 4; m0 = new C }}
thread {{ r = o1.f; o1.f = 1; j = 1; a[j] = 1; j = 2; r2 = a[j]; a[3] = 1; r3 = a[r % 4]; acq(m0); rel(m0); sync(m0) {{ skip }}; if * {{ skip }} else {{ skip }}; if r > 0 {{ skip }} else {{ skip }}; n = new C; n.f = 1 }}
thread {{ i = 0; loop {{ a[i + 1] = 1; i = i + 2; if i >= 2 break }}; k = 0; while k < 2 {{ acq(m0); a[2 * k] = 1; k = k + 1; rel(m0) }}; c = 1; r = o1.put(c); r = o1.early(c); r = o1.bump(m0); r = o1.acquireIt(m0); r = o1.releaseIt(m0); r = o1.putVia(c); r = o1.guarded(m0) }}
thread {{ b = a; j = 1; i = j; loop {{ if i >= 4 break; b2 = a; j = i; b2[3 - i] = 1; p <- i; i = p + 1; loop {{ r = b[i]; i = i + 1; if i >= 4 break; skip }} }} }}\n"
        );
        let p = parse(&src).unwrap();
        validate(&p).unwrap();
        let used = uses(&p);
        let missing: Vec<&str> = GRAMMAR_BFJ.productions.iter().map(|q| q.name).filter(|n| !used.contains(n)).collect();
        assert!(missing.is_empty(), "not seen: {missing:?}");
        assert!(uses(&parse("dialect bfj\nthread { }\nthread { }\n").unwrap()).is_empty());
        // The index forms one by one: a classifier that lumps them together fails here.
        let forms = |e: &str| {
            let p = parse(&format!("dialect bfj\ninit {{ a = new_array 4 }}\nthread {{ i = 1; a[{e}] = 0 }}\n")).unwrap();
            match &p.threads[0][1].kind {
                StmtKind::Store { dst: Place::Index { index, .. }, .. } => index_form(index),
                k => panic!("not an array write: {k:?}"),
            }
        };
        assert_eq!(
            ["i", "2", "i % 4", "i % 4 + 0", "i + 1", "i - 1", "2 * i", "3 - i", "-i + 3"].map(forms),
            [
                None,
                Some("literal index"),
                Some("non-linear index"),
                Some("non-linear index"),
                Some("offset index"),
                Some("offset index"),
                Some("scaled index"),
                Some("reversed index"),
                Some("reversed index")
            ]
        );
    }
}
