//! The shrinker: semantics-aware reduction of a failing program, re-running the property
//! at every step (conventions §12, after proptest's `ValueTree`).
//!
//! # Contract
//! - The *current* program always fails the property (proptest's "high" value): a candidate
//!   replaces it only if it is valid for the dialect **and** still fails. The result
//!   therefore fails, and is never larger than the input ([`size`]).
//! - Candidates are tried in a fixed order, largest cuts first: drop a declared region
//!   (`ldrf`), drop a thread or method,
//!   drop a statement, unwrap an `if`/loop/`sync`/lock block into its body, drop the
//!   arguments' path suffixes, shorten a path, merge two fields, and finally rename methods
//!   and fields canonically (`m1`, `m2`, …; `f`, `g`, …). The first candidate that fails is
//!   taken and the round restarts, until no candidate fails (a local minimum: the result is
//!   1-minimal with respect to these edits) or the attempt budget runs out.
//! - On a budget stop the last failing program is returned with `exhausted = true`; the
//!   caller says which flag raises the budget (`racefuzz shrink --max-attempts`).
//! - Deterministic: the same input, property and budget give the same output.

use crate::lang::*;

/// The result of shrinking.
#[derive(Clone, Debug)]
pub struct Shrunk {
    /// The smallest failing program found.
    pub program: Program,
    /// Accepted simplifications.
    pub steps: usize,
    /// Property evaluations.
    pub attempts: usize,
    /// Whether the attempt budget stopped the search before a local minimum.
    pub exhausted: bool,
}

/// A size measure: statements (nested ones too) + methods + threads + path fields.
pub fn size(p: &Program) -> usize {
    let mut n = p.threads.len() + p.all_methods().count();
    let mut count = |b: &Block| {
        walk_block(b, &mut |s| {
            n += 1;
            if let StmtKind::Load { src: Place::Field { fields, .. }, .. }
            | StmtKind::Store { dst: Place::Field { fields, .. }, .. }
            | StmtKind::Read(Place::Field { fields, .. }) = &s.kind
            {
                n += fields.len() - 1;
            }
        })
    };
    p.all_methods().for_each(|(_, m)| count(&m.body));
    p.init.iter().for_each(&mut count);
    p.threads.iter().for_each(&mut count);
    n
}

/// Statement counts: (statements including nested ones, methods) — what a person counts.
pub fn counts(p: &Program) -> (usize, usize) {
    let mut stmts = 0;
    let mut count = |b: &Block| walk_block(b, &mut |_| stmts += 1);
    p.all_methods().for_each(|(_, m)| count(&m.body));
    p.threads.iter().for_each(&mut count);
    (stmts, p.all_methods().count())
}

/// Shrinks `p`, which must fail (`fails(p)` is checked first; if it does not fail, `p` is
/// returned unchanged but for its lines). Every program judged, and the result, is numbered
/// as printed ([`crate::lang::as_printed`]). `relax` names the dialect assumptions candidates may break.
pub fn shrink(p: &Program, relax: Relax, max_attempts: usize, mut fails: impl FnMut(&Program) -> bool) -> Shrunk {
    // Every program judged is numbered as printed (`lang::as_printed`), so that the result
    // fails from its file as it failed here, for a SUT that keys anything by line too.
    let mut cur = crate::lang::as_printed(p);
    let mut attempts = 1;
    if !fails(&cur) {
        return Shrunk { program: cur, steps: 0, attempts, exhausted: false };
    }
    let mut steps = 0;
    'round: loop {
        for cand in candidates(&cur) {
            let cand = crate::lang::as_printed(&cand);
            if cand == cur || size(&cand) > size(&cur) || validate_relaxed(&cand, relax).is_err() {
                continue;
            }
            // Renaming keeps the size; accept it only if it changes something, so rounds end.
            if attempts >= max_attempts {
                return Shrunk { program: cur, steps, attempts, exhausted: true };
            }
            attempts += 1;
            if fails(&cand) {
                cur = cand;
                steps += 1;
                continue 'round;
            }
        }
        return Shrunk { program: cur, steps, attempts, exhausted: false };
    }
}

/// A body of the program, addressed by kind and index.
#[derive(Clone, Copy, Debug)]
enum Body {
    Method(usize),
    ClassMethod(usize, usize),
    Init,
    Thread(usize),
}

fn bodies(p: &Program) -> Vec<Body> {
    let mut v: Vec<Body> = (0..p.methods.len()).map(Body::Method).collect();
    for (c, class) in p.classes.iter().enumerate() {
        v.extend((0..class.methods.len()).map(|m| Body::ClassMethod(c, m)));
    }
    if p.init.is_some() {
        v.push(Body::Init);
    }
    v.extend((0..p.threads.len()).map(Body::Thread));
    v
}

fn body_mut(p: &mut Program, b: Body) -> &mut Block {
    match b {
        Body::Method(i) => &mut p.methods[i].body,
        Body::ClassMethod(c, m) => &mut p.classes[c].methods[m].body,
        Body::Init => p.init.get_or_insert_with(Vec::new),
        Body::Thread(i) => &mut p.threads[i],
    }
}

/// Every statement position of a block, pre-order, as index paths (a path step is
/// (statement index, sub-block index)).
fn positions(b: &Block, prefix: &mut Vec<(usize, usize)>, out: &mut Vec<Vec<(usize, usize)>>) {
    for (i, s) in b.iter().enumerate() {
        prefix.push((i, 0));
        out.push(prefix.clone());
        for (k, sub) in s.kind.sub_blocks().into_iter().enumerate() {
            prefix.last_mut().expect("just pushed").1 = k;
            positions(sub, prefix, out);
        }
        prefix.pop();
    }
}

/// The block containing the statement at `path`, and its index there. Each step is
/// (statement index, index of the sub-block the next step descends into).
fn locate<'a>(b: &'a mut Block, path: &[(usize, usize)]) -> Option<(&'a mut Block, usize)> {
    let ((i, k), rest) = path.split_first()?;
    if rest.is_empty() {
        return (*i < b.len()).then_some((b, *i));
    }
    let inner = b.get_mut(*i)?.kind.sub_blocks_mut().into_iter().nth(*k)?;
    locate(inner, rest)
}

fn edit(p: &Program, body: Body, path: &[(usize, usize)], f: impl FnOnce(&mut Block, usize)) -> Option<Program> {
    let mut q = p.clone();
    let (blk, i) = locate(body_mut(&mut q, body), path)?;
    f(blk, i);
    Some(q)
}

fn rename_fields(p: &Program, from: &str, to: &str) -> Program {
    let mut q = p.clone();
    let fix = |fs: &mut Vec<String>| fs.iter_mut().filter(|f| *f == from).for_each(|f| *f = to.to_string());
    for c in &mut q.classes {
        fix(&mut c.fields);
        // Merging `h` into `f` in `fields f, g, h` must not declare `f` twice (a duplicate
        // declaration is bad input, which the shrinker once reported as an internal bug).
        let mut seen = std::collections::HashSet::new();
        c.fields.retain(|f| seen.insert(f.clone()));
    }
    for b in bodies(p) {
        map_stmts(body_mut(&mut q, b), &mut |s| match &mut s.kind {
            StmtKind::Load { src: Place::Field { fields, .. }, .. } | StmtKind::Store { dst: Place::Field { fields, .. }, .. } | StmtKind::Read(Place::Field { fields, .. }) => {
                fix(fields)
            }
            StmtKind::Call { args, .. } => args.iter_mut().for_each(|a| {
                if let Expr::Path(pl) = a {
                    if let Place::Field { fields, .. } = &mut **pl {
                        fix(fields)
                    }
                }
            }),
            StmtKind::Check(items) => items.iter_mut().for_each(|it| {
                if let CheckTarget::Fields { fields, .. } = &mut it.target {
                    fix(fields)
                }
            }),
            _ => {}
        });
    }
    q
}

fn map_stmts(b: &mut Block, f: &mut impl FnMut(&mut Stmt)) {
    for s in b.iter_mut() {
        f(s);
        for sub in s.kind.sub_blocks_mut() {
            map_stmts(sub, f);
        }
    }
}

fn fields_of(p: &Program) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let blocks = p.all_methods().map(|(_, m)| &m.body).chain(&p.threads).chain(&p.init);
    for b in blocks {
        walk_block(b, &mut |s| {
            if let StmtKind::Load { src: Place::Field { fields, .. }, .. }
            | StmtKind::Store { dst: Place::Field { fields, .. }, .. }
            | StmtKind::Read(Place::Field { fields, .. }) = &s.kind
            {
                for f in fields {
                    if !out.contains(f) {
                        out.push(f.clone());
                    }
                }
            }
        });
    }
    out
}

/// Canonical names: top-level methods `m1, m2, …` in order, fields `f, g, h, k, …` in order
/// of first use. Applied as one candidate, so a program whose failure depends on a name keeps it.
fn canonical(p: &Program) -> Program {
    let mut q = p.clone();
    let names: Vec<String> = p.methods.iter().map(|m| m.name.clone()).collect();
    let new = |i: usize| format!("m{}", i + 1);
    for (i, m) in q.methods.iter_mut().enumerate() {
        m.name = new(i);
    }
    let rename = |x: &mut String| {
        if let Some(i) = names.iter().position(|n| n == x) {
            *x = new(i);
        }
    };
    for b in bodies(p) {
        map_stmts(body_mut(&mut q, b), &mut |s| match &mut s.kind {
            StmtKind::Call { method, recv: None, .. } | StmtKind::Fork { target: ForkTarget::Call { method, recv: None, .. }, .. } => rename(method),
            _ => {}
        });
    }
    const CANON: [&str; 8] = ["f", "g", "h", "k", "f5", "f6", "f7", "f8"];
    let fields = fields_of(&q);
    if p.classes.is_empty() && fields.len() <= CANON.len() {
        // Two steps through temporaries, so that swapping names cannot collide.
        for (i, f) in fields.iter().enumerate() {
            q = rename_fields(&q, f, &format!("__{i}"));
        }
        for (i, canon) in CANON.iter().enumerate().take(fields.len()) {
            q = rename_fields(&q, &format!("__{i}"), canon);
        }
    }
    q
}

/// Every one-step simplification of `p`, in the contract's order: first drop one declared
/// region (`ldrf`, docs/spec/ldrf.md §3: the partition falls back to singletons), then the
/// structural edits, each with the regions tidied ([`tidy_regions`]) so that it stays valid.
pub fn candidates(p: &Program) -> Vec<Program> {
    let mut out: Vec<Program> = (0..p.regions.len())
        .map(|i| {
            let mut q = p.clone();
            q.regions.remove(i);
            q
        })
        .collect();
    out.extend(edits(p).into_iter().map(tidy_regions));
    out
}

/// `p` with its regions restricted to the variables it still mentions, and regions of fewer
/// than two variables dropped (a singleton region is what an undeclared variable gets).
pub fn tidy_regions(mut p: Program) -> Program {
    if p.regions.is_empty() {
        return p;
    }
    let vars: std::collections::BTreeSet<String> = p.threads.iter().flat_map(|b| crate::lang::mentioned_vars(b)).map(str::to_string).collect();
    for r in &mut p.regions {
        r.retain(|v| vars.contains(v));
    }
    p.regions.retain(|r| r.len() >= 2);
    p
}

/// The structural one-step simplifications of `p`, in the contract's order.
fn edits(p: &Program) -> Vec<Program> {
    let mut out = vec![];
    // Drop a thread, a top-level method, a class method.
    for i in 0..p.threads.len() {
        let mut q = p.clone();
        q.threads.remove(i);
        out.push(q);
    }
    for i in 0..p.methods.len() {
        let mut q = p.clone();
        q.methods.remove(i);
        out.push(q);
    }
    let mut positions_of = vec![];
    for b in bodies(p) {
        let mut v = vec![];
        let mut q = p.clone();
        positions(body_mut(&mut q, b), &mut vec![], &mut v);
        positions_of.push((b, v));
    }
    // Drop a statement (a `lock` together with its matching `unlock`).
    for (b, ps) in &positions_of {
        for path in ps {
            out.extend(edit(p, *b, path, |blk, i| {
                if blk[i].kind == StmtKind::Lock {
                    let mut depth = 0;
                    let close = (i..blk.len()).find(|&j| {
                        match blk[j].kind {
                            StmtKind::Lock => depth += 1,
                            StmtKind::Unlock => depth -= 1,
                            _ => {}
                        }
                        depth == 0
                    });
                    if let Some(j) = close {
                        blk.remove(j);
                    }
                }
                blk.remove(i);
            }));
        }
    }
    // Unwrap a compound statement into one of its blocks.
    for (b, ps) in &positions_of {
        for path in ps {
            for k in 0..2 {
                out.extend(edit(p, *b, path, |blk, i| {
                    let mut s = blk.remove(i);
                    let is_loop = matches!(s.kind, StmtKind::Loop { .. } | StmtKind::While { .. });
                    let inner = s.kind.sub_blocks_mut().into_iter().nth(k).map(std::mem::take);
                    match inner {
                        Some(mut inner) => {
                            // One iteration of a loop: its own `break`s would leave no loop.
                            if is_loop {
                                breaks_to_skips(&mut inner);
                            }
                            for (j, t) in inner.into_iter().enumerate() {
                                blk.insert(i + j, t);
                            }
                        }
                        None => blk.insert(i, s),
                    }
                }));
            }
        }
    }
    // Shorten a path; replace a path actual by its root.
    for (b, ps) in &positions_of {
        for path in ps {
            out.extend(edit(p, *b, path, |blk, i| match &mut blk[i].kind {
                StmtKind::Load { src: Place::Field { fields, .. }, .. }
                | StmtKind::Store { dst: Place::Field { fields, .. }, .. }
                | StmtKind::Read(Place::Field { fields, .. })
                    if fields.len() > 1 =>
                {
                    fields.pop();
                }
                StmtKind::Call { args, .. } => {
                    if let Some(a) = args.iter_mut().find(|a| matches!(a, Expr::Path(_))) {
                        if let Expr::Path(pl) = a {
                            *a = Expr::Var(pl.base().to_string());
                        }
                    }
                }
                _ => {}
            }));
        }
    }
    // Merge two fields.
    let fields = fields_of(p);
    for (i, a) in fields.iter().enumerate() {
        for bname in &fields[i + 1..] {
            out.push(rename_fields(p, bname, a));
        }
    }
    out.push(canonical(p));
    out
}

/// Replaces the `break`s of `b` that leave `b`'s own loop (not those of a nested loop) by
/// `skip`, so that a loop's body unwrapped into its context stays a program (the parser
/// rejects a `break` outside a loop; the validators do not look).
fn breaks_to_skips(b: &mut Block) {
    for s in b.iter_mut() {
        match &mut s.kind {
            StmtKind::Break => s.kind = StmtKind::Skip,
            StmtKind::Loop { .. } | StmtKind::While { .. } => {}
            k => k.sub_blocks_mut().into_iter().for_each(breaks_to_skips),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The contract: the result fails, is no larger, and is a local minimum.
    #[test]
    fn shrinks_to_a_local_minimum() {
        let src = "dialect racerdx\nmethod a(arg1, arg2) {\n  lock\n  t = arg2.g\n  unlock\n  if * { v = new; arg1.f.g = v } else { skip }\n  while * { t = arg1.g }\n}\nmethod b(arg1) { t = arg1.f }\n";
        let p = parse(src).unwrap();
        // The "bug": some method stores to a path ending in `g`.
        let fails = |q: &Program| {
            let mut hit = false;
            for m in &q.methods {
                walk_block(&m.body, &mut |s| {
                    if let StmtKind::Store { dst: Place::Field { fields, .. }, .. } = &s.kind {
                        hit |= fields.last().is_some_and(|f| f == "g" || f == "f");
                    }
                });
            }
            hit
        };
        let r = shrink(&p, Relax::default(), 10_000, fails);
        assert!(fails(&r.program) && !r.exhausted);
        assert!(size(&r.program) < size(&p));
        for c in candidates(&r.program) {
            if c != r.program && size(&c) <= size(&r.program) && validate(&c).is_ok() && c != canonical(&r.program) {
                assert!(!fails(&c) || size(&c) == size(&r.program), "not minimal:\n{}", print(&c));
            }
        }
        assert_eq!(print(&r.program), "dialect racerdx\nmethod m1(arg1, arg2) {\n  v = new\n  arg1.f = v\n}\n");
    }

    /// Unwrapping a loop keeps a parsable program: its own `break` becomes `skip`, a nested
    /// loop's stays (found by a BFJ campaign: every shrink of a program with a
    /// loop ended in "`break` outside a loop").
    #[test]
    fn unwrapping_a_loop_drops_its_own_breaks() {
        let p = parse("dialect bfj\ninit { o = new }\nthread { i = 0; loop { o.f = i; loop { break }; i = i + 1; if i >= 2 break } }\n").unwrap();
        let unwrapped: Vec<String> = candidates(&p).iter().map(print).filter(|t| t.contains("o.f = i") && !t.contains("loop {\n    o.f")).collect();
        assert!(!unwrapped.is_empty(), "no candidate unwraps the outer loop");
        for t in &unwrapped {
            assert!(parse(t).is_ok(), "does not parse back:\n{t}");
            assert!(t.contains("loop {\n    break\n  }"), "the nested loop's break is kept:\n{t}");
        }
    }

    #[test]
    fn merging_fields_keeps_declarations_unique() {
        let p = parse("dialect bfj\nclass C {\n  fields f, g, h\n}\ninit { o = new C }\nthread { o.h = 1; o.g = 2 }\n").unwrap();
        let q = rename_fields(&p, "h", "f");
        assert_eq!(q.classes[0].fields, ["f", "g"]);
        assert!(validate(&q).is_ok(), "{}", print(&q));
    }

    #[test]
    fn positions_address_else_branches() {
        let p = parse("dialect racerdx\nmethod m(arg1) { if * { t = arg1.f } else { t = arg1.g } }\n").unwrap();
        let q = edit(&p, Body::Method(0), &[(0, 1), (0, 0)], |b, i| {
            b.remove(i);
        })
        .unwrap();
        assert_eq!(print(&q), "dialect racerdx\nmethod m(arg1) {\n  if * {\n    t = arg1.f\n  }\n}\n");
    }
}
