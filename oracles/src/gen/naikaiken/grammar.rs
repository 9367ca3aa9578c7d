//! The grammar of the Naik-Aiken programs and its classifier ([`crate::gen::grammar`]): the
//! statements of docs/spec/naik_aiken.md §4.1, the biases of §4.4 and the shapes of §6, each a
//! production the generator must use in at least 1% of its programs. The classifier reads
//! the program, not the generator's choices.

use std::collections::BTreeSet;

use crate::gen::grammar::{prod, Grammar};
use crate::gen::toolkit::keep_listed;
use crate::lang::*;

/// The productions of the Naik-Aiken programs (docs/spec/naik_aiken.md §4.1 the statements, §4.4
/// the biases, §6 the shapes).
pub static GRAMMAR_NAIKAIKEN: Grammar = Grammar {
    productions: &[
        prod("allocation", "x = new @h"),
        prod("copy", "x = y"),
        prod("null assignment", "x = null"),
        prod("heap read", "x = y.f"),
        prod("path load", "x = y.f.g (two or more fields)"),
        prod("pointer store", "x.f = y"),
        prod("null store", "x.f = null"),
        prod("data write", "x.g = k"),
        prod("path data write", "x.f.g = k (two or more fields)"),
        prod("read", "read x.f…"),
        prod("append", "x[+] = y"),
        prod("pick", "x = y[*]"),
        prod("if", "if * { .. } else { .. }"),
        prod("loop", "while @w * { .. }"),
        prod("nested loop", "while @w1 * { .. while @w2 * { .. } .. }"),
        prod("sync", "sync(x) { .. }"),
        prod("anonymous fork", "fork { .. }"),
        prod("thread-object fork", "fork(x) { .. }"),
        prod("self access", "self.f… inside fork(x)"),
        prod("fork inside a loop", "while @w * { .. fork .. }"),
        prod("allocate and link in one iteration", "while @w * { t = new @h2; u = new @h3; t.f = u }"),
        prod("link to the previous iteration", "while @w * { .. t.next = p; p = t }"),
        prod("object allocated once and shared", "d = new @h outside loops, used in a forked thread"),
        prod("fill and pick in two loops", "while @w1 * { .. a[+] = t }; while @w2 * { x = a[*] .. } (R4)"),
        prod("link from a heap read", "s = a[*] or s = x.f, then s.f = u (R6, type T)"),
        prod("lock-prefix access", "sync(x) { x.f.g = k } (depth ≥ 1)"),
        prod("lock-as-base access", "sync(x) { x.g = k } (depth 0)"),
        prod("lock not a prefix", "sync(l) { y.f.g = k } with y ≠ l"),
        prod("mixed depths", "sync(x) { x.g = k } and sync(x) { x.f.g = k } (or self.g and self.f.g)"),
        prod("self-prefix access", "fork(t) { self.f.g = k }"),
        prod("anonymous fork inside fork(x)", "fork(t) { fork { self.f.g = k } }"),
        prod("main access after fork", "fork { .. }; x.f.g = k (the main thread writes or reads too)"),
    ],
    uses: uses_naikaiken,
};

/// The data access of a statement: (root, fields) of `p = k` and `read p`.
pub(super) fn data_access(s: &Stmt) -> Option<(&str, usize)> {
    match &s.kind {
        StmtKind::Store { dst: Place::Field { base, fields }, src: Expr::Int(_) } | StmtKind::Read(Place::Field { base, fields }) => Some((base, fields.len())),
        _ => None,
    }
}

/// Where the classifier is.
#[derive(Clone, Copy, Default)]
struct At {
    /// Loops enclosing this point, forks crossed.
    loops: usize,
    /// Loops enclosing this point in its own thread.
    own_loops: usize,
    /// Inside a forked thread.
    child: bool,
    /// Inside `fork(x)`.
    obj: bool,
}

struct Classify<'p> {
    u: BTreeSet<&'static str>,
    /// Variables allocated in the main thread outside every loop.
    once: BTreeSet<&'p str>,
    /// Variables some forked thread reads.
    child_reads: BTreeSet<&'p str>,
    /// Loops (by label) that append, and that pick.
    appends: BTreeSet<&'p str>,
    picks: BTreeSet<&'p str>,
    /// Depths of the accesses rooted at a `sync` variable (or `self`): 0 or ≥ 1.
    depths: BTreeSet<(&'p str, bool)>,
    main_forked: bool,
}

impl<'p> Classify<'p> {
    fn block(&mut self, b: &'p [Stmt], at: At, label: Option<&'p str>) {
        for s in b {
            self.stmt(s, at, label);
        }
    }

    fn stmt(&mut self, s: &'p Stmt, at: At, label: Option<&'p str>) {
        let u = &mut self.u;
        if at.child {
            s.kind.sub_blocks().is_empty().then(|| {
                reads(&s.kind, &mut |v| {
                    self.child_reads.insert(v);
                })
            });
        }
        if let Some((root, n)) = data_access(s) {
            if !at.child && self.main_forked {
                u.insert("main access after fork");
            }
            if root == "self" && n >= 2 {
                u.insert("self-prefix access");
            }
            if root == "self" {
                self.depths.insert(("self", n >= 2));
            }
        }
        match &s.kind {
            StmtKind::New { dst, .. } => {
                u.insert("allocation");
                if !at.child && at.loops == 0 {
                    self.once.insert(dst);
                }
            }
            StmtKind::Assign { src: Expr::Null, .. } => {
                u.insert("null assignment");
            }
            StmtKind::Assign { .. } => {
                u.insert("copy");
            }
            StmtKind::Load { src: Place::Field { base, fields }, .. } => {
                u.insert(if fields.len() >= 2 { "path load" } else { "heap read" });
                if base == "self" {
                    u.insert("self access");
                }
            }
            StmtKind::Store { dst: Place::Field { base, fields }, src } => {
                if base == "self" {
                    u.insert("self access");
                }
                match src {
                    Expr::Null => u.insert("null store"),
                    Expr::Int(_) if fields.len() >= 2 => u.insert("path data write"),
                    Expr::Int(_) => u.insert("data write"),
                    _ => u.insert("pointer store"),
                };
            }
            StmtKind::Read(p) => {
                u.insert("read");
                if p.base() == "self" {
                    u.insert("self access");
                }
            }
            StmtKind::Append { .. } => {
                u.insert("append");
                if let Some(l) = label {
                    self.appends.insert(l);
                }
            }
            StmtKind::Pick { .. } => {
                u.insert("pick");
                if let Some(l) = label {
                    self.picks.insert(l);
                }
            }
            StmtKind::If { then_b, else_b, .. } => {
                u.insert("if");
                self.block(then_b, at, label);
                self.block(else_b, at, label);
            }
            StmtKind::While { label: w, body, .. } => {
                u.insert("loop");
                if at.own_loops > 0 {
                    u.insert("nested loop");
                }
                loop_shapes(body, u);
                let inner = At { loops: at.loops + 1, own_loops: at.own_loops + 1, ..at };
                self.block(body, inner, w.as_deref().or(label));
            }
            StmtKind::Sync { lock, body } => {
                u.insert("sync");
                walk_block(body, &mut |t| {
                    if let Some((root, n)) = data_access(t) {
                        if root == lock {
                            u.insert(if n >= 2 { "lock-prefix access" } else { "lock-as-base access" });
                            self.depths.insert((lock, n >= 2));
                        } else {
                            u.insert("lock not a prefix");
                        }
                    }
                });
                self.block(body, at, label);
            }
            StmtKind::Fork { target: ForkTarget::Block { this, body }, .. } => {
                u.insert(if this.is_some() { "thread-object fork" } else { "anonymous fork" });
                if this.is_none() && at.obj {
                    u.insert("anonymous fork inside fork(x)");
                }
                if at.loops > 0 {
                    u.insert("fork inside a loop");
                }
                if let Some(x) = this {
                    if !at.child {
                        self.child_reads.insert(x);
                    }
                }
                let inner = At { own_loops: 0, child: true, obj: at.obj || this.is_some(), ..at };
                self.block(body, inner, None);
                if !at.child {
                    self.main_forked = true;
                }
            }
            _ => {}
        }
    }
}

/// Calls `f` on the variables a statement (not its nested blocks) reads.
fn reads<'p>(k: &'p StmtKind, f: &mut impl FnMut(&'p str)) {
    match k {
        StmtKind::Assign { src: Expr::Var(y), .. } => f(y),
        StmtKind::Load { src: p, .. } | StmtKind::Read(p) => f(p.base()),
        StmtKind::Store { dst, src } => {
            f(dst.base());
            if let Expr::Var(y) = src {
                f(y);
            }
        }
        StmtKind::Append { array, src } => {
            f(array);
            f(src);
        }
        StmtKind::Pick { array, .. } => f(array),
        _ => {}
    }
}

/// The shapes of one loop body (its own statements): allocate and link in one iteration, a
/// link to the previous iteration's variable, a link from a heap read.
fn loop_shapes(body: &[Stmt], u: &mut BTreeSet<&'static str>) {
    let mut fresh: BTreeSet<&str> = BTreeSet::new();
    let mut read: BTreeSet<&str> = BTreeSet::new();
    let mut linked_to: Vec<(&str, &str)> = vec![];
    for s in body {
        match &s.kind {
            StmtKind::New { dst, .. } => {
                fresh.insert(dst);
                read.remove(dst.as_str());
            }
            StmtKind::Load { dst, .. } | StmtKind::Pick { dst, .. } => {
                fresh.remove(dst.as_str());
                read.insert(dst);
            }
            StmtKind::Store { dst: Place::Field { base, .. }, src: Expr::Var(y) } => {
                if fresh.contains(base.as_str()) && fresh.contains(y.as_str()) {
                    u.insert("allocate and link in one iteration");
                }
                if read.contains(base.as_str()) {
                    u.insert("link from a heap read");
                }
                if fresh.contains(base.as_str()) && !fresh.contains(y.as_str()) {
                    linked_to.push((base, y));
                }
            }
            StmtKind::Assign { dst, src: Expr::Var(y) } => {
                if linked_to.iter().any(|(t, p)| t == y && p == dst) {
                    u.insert("link to the previous iteration");
                }
                fresh.remove(dst.as_str());
            }
            _ => {}
        }
    }
}

fn uses_naikaiken(p: &Program) -> BTreeSet<&'static str> {
    let Some(main) = p.threads.first() else { return BTreeSet::new() };
    let mut c = Classify {
        u: BTreeSet::new(),
        once: BTreeSet::new(),
        child_reads: BTreeSet::new(),
        appends: BTreeSet::new(),
        picks: BTreeSet::new(),
        depths: BTreeSet::new(),
        main_forked: false,
    };
    c.block(main, At::default(), None);
    // Heap reads outside loops that are then linked (R6's shape without a loop).
    loop_shapes(main, &mut c.u);
    c.u.remove("allocate and link in one iteration");
    walk_block(main, &mut |s| {
        if let StmtKind::While { body, .. } = &s.kind {
            loop_shapes(body, &mut c.u);
        }
    });
    if c.once.iter().any(|v| c.child_reads.contains(v)) {
        c.u.insert("object allocated once and shared");
    }
    if c.appends.iter().any(|a| c.picks.iter().any(|p| p != a)) {
        c.u.insert("fill and pick in two loops");
    }
    if c.depths.iter().any(|(v, deep)| *deep && c.depths.contains(&(v, false))) {
        c.u.insert("mixed depths");
    }
    keep_listed(&GRAMMAR_NAIKAIKEN, &mut c.u);
    c.u
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::grammar::Coverage;
    use crate::gen::naikaiken::swarm_naikaiken;
    use crate::gen::test_bytes as bytes;

    #[test]
    fn every_production_is_used() {
        let mut cov = Coverage::new(&GRAMMAR_NAIKAIKEN);
        for seed in 0..3000u64 {
            cov.add(&GRAMMAR_NAIKAIKEN, &swarm_naikaiken(&bytes(seed + 7_000, 64), Relax::default()));
        }
        assert_eq!(cov.programs, 3000);
        for (q, pct) in cov.percents() {
            println!("{pct:5.1}% {}", q.name);
        }
        let below = cov.below_floor();
        assert!(below.is_empty(), "below the floor: {below:?}");
    }
}
