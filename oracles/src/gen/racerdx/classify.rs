//! The racerdx grammar (docs/spec/racerdx.md §1.1 Fig. 4 under A1–A6 and ANF) and the
//! classifier that says which of its productions a program uses (the coverage rule of
//! [`super::super::grammar`]).

use std::collections::BTreeSet;

use super::super::grammar::{prod, Grammar, Production};
use crate::lang::is_formal;
use crate::lang::*;

/// The racerdx grammar (docs/spec/racerdx.md §1.1, Fig. 4, under A1–A6 and ANF), one production
/// per statement form, variable role and context an analysis can treat differently.
pub const GRAMMAR: Grammar = Grammar { productions: PRODUCTIONS, uses };

/// The grammar of [`super::swarm_small`]'s programs: [`GRAMMAR`] without its last seven
/// productions, the call shapes that the small generator's cost cap makes rare (calls with
/// costly actuals or callees, in locks or control, nested: a call costs its callee inlined). They matter
/// to RacerDX's summaries (docs/spec/racerdx.md §3.2, Fig. 7's actuals), which `racerdx-tp` and
/// `racerdx-complete` judge on [`super::swarm`]'s programs; to the explorers a call is its
/// inlined body.
pub const GRAMMAR_SMALL: Grammar = Grammar { productions: SMALL, uses: uses_small };

const SMALL: &[Production] = PRODUCTIONS.split_at(PRODUCTIONS.len() - 7).0;

fn uses_small(p: &Program) -> BTreeSet<&'static str> {
    uses(p).into_iter().filter(|n| SMALL.iter().any(|q| q.name == *n)).collect()
}

/// The productions of [`GRAMMAR`]; the seven [`GRAMMAR_SMALL`] leaves out come last.
const PRODUCTIONS: &[Production] = &[
    prod("skip", "skip"),
    prod("copy local := local", "x := y"),
    prod("copy local := formal", "x := arg_i"),
    prod("copy formal := local", "arg_i := x"),
    prod("copy formal := formal", "arg_i := arg_j"),
    prod("new into a local", "x := new()"),
    prod("new into a formal", "arg_i := new()"),
    prod("load into a local", "x := e.f̄"),
    prod("load into a formal", "arg_i := e.f̄"),
    prod("store", "e.f̄ := x"),
    prod("access rooted at a formal", "arg_i.f̄ (load or store)"),
    prod("access rooted at a local", "x.f̄ (load or store)"),
    prod("access through a reassigned formal", "arg_i.f̄ where the method assigns arg_i"),
    prod("access path of 1 field", "e.f"),
    prod("access path of 2 fields", "e.f.g"),
    prod("access path of 3 fields", "e.f.g.h"),
    prod("lock block", "lock(); C; unlock()"),
    prod("nested lock", "lock(); … lock(); C; unlock(); … unlock()"),
    prod("if *", "if * then C1 else C2"),
    prod("while *", "while * do C"),
    prod("nested control", "if/while inside if/while"),
    prod("lock inside control", "lock() inside if/while"),
    prod("control inside lock", "if/while between lock() and unlock()"),
    prod("call", "m(ē)"),
    prod("actual: formal", "m(…, arg_i, …)"),
    prod("actual: path from a formal", "m(…, arg_i.f̄, …)"),
    prod("actuals: one a prefix of another", "m(…, e, …, e.f̄, …), Pre(ē) ≠ ∅"),
    prod("call of a 2-formal method", "m(e1, e2)"),
    prod("call inside control", "m(ē) inside if/while"),
    prod("actual: local", "m(…, x, …)"),
    prod("actual: path from a local", "m(…, x.f̄, …)"),
    prod("actual: path of ≥ 2 fields", "m(…, e.f.g, …)"),
    prod("call of a 3-formal method", "m(e1, e2, e3)"),
    prod("call inside lock", "lock(); … m(ē) …; unlock()"),
    prod("nested call", "m(ē) where m calls"),
];

/// Where a statement sits.
#[derive(Clone, Copy)]
struct At {
    locks: usize,
    control: usize,
}

fn uses(p: &Program) -> BTreeSet<&'static str> {
    let mut u = BTreeSet::new();
    for m in &p.methods {
        let mut reassigned = BTreeSet::new();
        walk_block(&m.body, &mut |s| match &s.kind {
            StmtKind::Assign { dst, .. } | StmtKind::Load { dst, .. } | StmtKind::New { dst, .. } if is_formal(dst) => {
                reassigned.insert(dst.as_str());
            }
            _ => {}
        });
        classify(p, &m.body, At { locks: 0, control: 0 }, &reassigned, &mut u);
    }
    u
}

fn classify(p: &Program, b: &Block, mut at: At, reassigned: &BTreeSet<&str>, u: &mut BTreeSet<&'static str>) {
    let role = |v: &str, formal: &'static str, local: &'static str| if is_formal(v) { formal } else { local };
    let access = |pl: &Place, u: &mut BTreeSet<&'static str>| {
        if let Place::Field { base, fields } = pl {
            u.insert(role(base, "access rooted at a formal", "access rooted at a local"));
            if reassigned.contains(base.as_str()) {
                u.insert("access through a reassigned formal");
            }
            u.extend(match fields.len() {
                1 => Some("access path of 1 field"),
                2 => Some("access path of 2 fields"),
                3 => Some("access path of 3 fields"),
                _ => None,
            });
        }
    };
    for s in b {
        match &s.kind {
            StmtKind::Skip => {
                u.insert("skip");
            }
            StmtKind::Assign { dst, src: Expr::Var(y) } => {
                u.insert(match (is_formal(dst), is_formal(y)) {
                    (false, false) => "copy local := local",
                    (false, true) => "copy local := formal",
                    (true, false) => "copy formal := local",
                    (true, true) => "copy formal := formal",
                });
            }
            StmtKind::New { dst, .. } => {
                u.insert(role(dst, "new into a formal", "new into a local"));
            }
            StmtKind::Load { dst, src } => {
                u.insert(role(dst, "load into a formal", "load into a local"));
                access(src, u);
            }
            StmtKind::Store { dst, .. } => {
                u.insert("store");
                access(dst, u);
            }
            StmtKind::Lock => {
                u.insert(if at.locks > 0 { "nested lock" } else { "lock block" });
                if at.control > 0 {
                    u.insert("lock inside control");
                }
                at.locks += 1;
            }
            StmtKind::Unlock => at.locks = at.locks.saturating_sub(1),
            StmtKind::If { then_b, else_b, .. } => {
                control(at, "if *", u);
                let inner = At { control: at.control + 1, ..at };
                classify(p, then_b, inner, reassigned, u);
                classify(p, else_b, inner, reassigned, u);
            }
            StmtKind::While { body, .. } => {
                control(at, "while *", u);
                classify(p, body, At { control: at.control + 1, ..at }, reassigned, u);
            }
            StmtKind::Call { method, args, .. } => {
                u.insert("call");
                call(p, method, args, at, u);
            }
            _ => {}
        }
    }
}

fn control(at: At, what: &'static str, u: &mut BTreeSet<&'static str>) {
    u.insert(what);
    if at.control > 0 {
        u.insert("nested control");
    }
    if at.locks > 0 {
        u.insert("control inside lock");
    }
}

fn call(p: &Program, method: &str, args: &[Expr], at: At, u: &mut BTreeSet<&'static str>) {
    if at.locks > 0 {
        u.insert("call inside lock");
    }
    if at.control > 0 {
        u.insert("call inside control");
    }
    match args.len() {
        2 => u.insert("call of a 2-formal method"),
        3 => u.insert("call of a 3-formal method"),
        _ => false,
    };
    if p.method(method).is_some_and(|m| {
        let mut calls = false;
        walk_block(&m.body, &mut |s| calls |= matches!(s.kind, StmtKind::Call { .. }));
        calls
    }) {
        u.insert("nested call");
    }
    let mut paths = vec![];
    for a in args {
        let (base, fields): (&str, &[String]) = match a {
            Expr::Var(v) => (v, &[]),
            Expr::Path(pl) => match &**pl {
                Place::Field { base, fields } => (base, fields),
                Place::Index { .. } => continue,
            },
            _ => continue,
        };
        u.insert(match (fields.is_empty(), is_formal(base)) {
            (true, true) => "actual: formal",
            (true, false) => "actual: local",
            (false, true) => "actual: path from a formal",
            (false, false) => "actual: path from a local",
        });
        if fields.len() >= 2 {
            u.insert("actual: path of ≥ 2 fields");
        }
        paths.push((base, fields));
    }
    let prefix = |(b1, f1): &(&str, &[String]), (b2, f2): &(&str, &[String])| b1 == b2 && f2.starts_with(f1);
    if paths.iter().enumerate().any(|(i, a)| paths.iter().enumerate().any(|(j, b)| i != j && prefix(a, b))) {
        u.insert("actuals: one a prefix of another");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// classified as using every production, and an empty one as using none.
    #[test]
    fn the_classifier_sees_every_production() {
        let src = "dialect racerdx
method m1(arg1) { skip }
method m2(arg1, arg2) { m1(arg1) }
method m3(arg1, arg2, arg3) {
  x = new; y = x; z = arg1; arg2 = z; arg3 = arg1; arg1 = new
  u = arg2.f; arg3 = arg2.f.g; arg1.f.g.h = u; x.f = u
  lock; lock; if * { m2(arg1, arg1.f) } else { skip }; unlock; unlock
  while * { lock; unlock; if * { skip } else { skip } }
  lock; m1(x); unlock
  if * { m2(x.f, arg2.f.g) } else { skip }
  m3b(arg1, arg2, arg3)
}
method m3b(arg1, arg2, arg3) { skip }
";
        let p = parse(src).unwrap();
        crate::lang::validate(&p).unwrap();
        let used = uses(&p);
        let missing: Vec<&str> = GRAMMAR.productions.iter().map(|q| q.name).filter(|n| !used.contains(n)).collect();
        assert!(missing.is_empty(), "not seen: {missing:?}");
        assert!(uses(&parse("dialect racerdx\nmethod m(arg1) { }\n").unwrap()).is_empty());
    }
}
