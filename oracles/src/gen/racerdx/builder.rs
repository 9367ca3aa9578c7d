//! The racerdx builder: statements and methods from bytes, deterministically
//! (docs/spec/racerdx.md §1.1 Fig. 4 under §1.2 A1–A6 and ANF). Invariants it keeps: locks are
//! balanced within a block (A2) unless the `unmatched_unlock` knob says otherwise; a local
//! is read only where it is definitely assigned (A3); a method calls only earlier methods,
//! so the call graph is acyclic (A5).

use super::super::toolkit::{parse_generated, Bytes};
use super::knobs::RacerDxKnobs;
use crate::lang::is_formal;
use crate::lang::*;

const FIELD_NAMES: [&str; 4] = ["f", "g", "h", "k"];
const LOCAL_NAMES: [&str; 3] = ["x", "y", "z"];

struct Builder<'a, 'b> {
    src: &'a mut Bytes<'b>,
    k: RacerDxKnobs,
    formals: usize,
    me: usize,
    params: Vec<usize>,
    /// The cost of each earlier method, its callees inlined ([`cost`]).
    costs: Vec<usize>,
    budget: usize,
    /// What this method may still cost ([`RacerDxKnobs::max_cost`] less what it has cost).
    cost: usize,
    /// Locals definitely assigned here (A3): the only locals that may be read.
    assigned: Vec<String>,
    /// The next statement drawn is a call, where one is possible (a lock block opens with
    /// one a quarter of the time).
    call_next: bool,
}

fn stmt(kind: StmtKind) -> Stmt {
    Stmt { kind, line: Line(0) }
}

impl Builder<'_, '_> {
    fn formal(&mut self) -> String {
        format!("arg{}", self.src.below(self.formals) + 1)
    }

    fn path(&mut self) -> Vec<String> {
        let n = self.src.below(self.k.max_path) + 1;
        (0..n).map(|_| FIELD_NAMES[self.src.below(self.k.fields.clamp(1, 4))].to_string()).collect()
    }

    /// A variable to read: when `locals` and one is assigned, a local half of the time;
    /// otherwise a formal.
    fn readable(&mut self, locals: bool) -> String {
        let b = self.src.next();
        if locals && !self.assigned.is_empty() && b.is_multiple_of(2) {
            self.assigned[usize::from(b / 2) % self.assigned.len()].clone()
        } else {
            format!("arg{}", usize::from(b / 2) % self.formals + 1)
        }
    }

    /// A variable to assign: a local, or a formal one time in three (when formals are written).
    fn writable(&mut self) -> String {
        let b = self.src.next();
        if self.k.formal_writes && b.is_multiple_of(3) {
            format!("arg{}", usize::from(b / 3) % self.formals + 1)
        } else {
            LOCAL_NAMES[usize::from(b) % self.k.locals.clamp(1, 3)].to_string()
        }
    }

    fn assign(&mut self, x: &str) {
        if !is_formal(x) && !self.assigned.iter().any(|a| a == x) {
            self.assigned.push(x.to_string());
        }
    }

    fn place(&mut self) -> Place {
        let base = self.readable(self.k.local_roots);
        Place::Field { base, fields: self.path() }
    }

    fn load(&mut self, out: &mut Block) {
        let src = self.place();
        let dst = self.writable();
        self.assign(&dst);
        out.push(stmt(StmtKind::Load { dst, src }));
    }

    /// `π := x` with x an assigned local (ANF forbids a formal); when none is assigned or
    /// one time in two, a fresh object first (`x := new()`).
    fn store(&mut self, out: &mut Block) {
        let dst = self.place();
        let reuse = !self.assigned.is_empty() && self.src.next() % 2 == 1;
        let x = if reuse {
            self.assigned[self.src.below(self.assigned.len())].clone()
        } else {
            let x = LOCAL_NAMES[self.src.below(self.k.locals.clamp(1, 3))].to_string();
            out.push(stmt(StmtKind::New { dst: x.clone(), class: None, site: None }));
            self.assign(&x);
            x
        };
        out.push(stmt(StmtKind::Store { dst, src: Expr::Var(x) }));
    }

    fn call(&mut self, out: &mut Block) {
        // The previous method half of the time, so that calls chain (m3 → m2 → m1).
        let b = self.src.next();
        let drawn = if b.is_multiple_of(2) { self.me - 1 } else { usize::from(b / 2) % self.me };
        // Under a cost cap, a callee that no longer fits gives way to the cheapest earlier
        // method (the first of them), so that calls stay common in small programs.
        let cheapest = (0..self.me).min_by_key(|&i| self.costs.get(i).copied().unwrap_or(0)).unwrap_or(drawn);
        let callee = if self.costs.get(drawn).is_some_and(|&c| c > self.cost) { cheapest } else { drawn };
        let mut args: Vec<Expr> = vec![];
        let n = self.params[callee];
        for i in 0..n {
            let b = self.src.next();
            let arg = match args.last() {
                // One actual a prefix of another (Fig. 7's Pre(ē)): the same actual again,
                // or an earlier one extended by a field.
                Some(prev) if b.is_multiple_of(4) => {
                    let prev = prev.clone();
                    if b.is_multiple_of(8) {
                        prev
                    } else {
                        let (base, mut fields) = match prev {
                            Expr::Path(p) => match *p {
                                Place::Field { base, fields } => (base, fields),
                                Place::Index { base, .. } => (base, vec![]),
                            },
                            Expr::Var(v) => (v, vec![]),
                            _ => (self.formal(), vec![]),
                        };
                        fields.push(FIELD_NAMES[self.src.below(self.k.fields.clamp(1, 4))].to_string());
                        Expr::Path(Box::new(Place::Field { base, fields }))
                    }
                }
                _ => {
                    // A local actual whatever `local_roots` says: passing a local is not an
                    // access through it here, and its accesses in the callee drop out by fml.
                    // One time in four, the caller's formal in the mirrored position
                    // (`m(arg2, arg1)`): θ must then substitute simultaneously (§3.2).
                    let base = if self.src.next().is_multiple_of(4) { format!("arg{}", (n - 1 - i) % self.formals + 1) } else { self.readable(true) };
                    if b.is_multiple_of(2) {
                        Expr::Var(base)
                    } else {
                        Expr::Path(Box::new(Place::Field { base, fields: self.path() }))
                    }
                }
            };
            args.push(arg);
        }
        out.push(stmt(StmtKind::Call { dst: None, recv: None, method: format!("m{}", callee + 1), args }));
    }

    /// A nested block: at most 1–3 statements (drawn), so that statements follow it.
    fn nested(&mut self, locks: usize, control: usize) -> Block {
        let len = self.src.below(3) + 1;
        self.block_of(locks, control, len)
    }

    /// `lock(); C; unlock()`, paid on entry (2) under the cost cap.
    fn lock_block(&mut self, out: &mut Block, locks: usize, control: usize) {
        self.cost -= 2;
        out.push(stmt(StmtKind::Lock));
        // A call under a lock adds the caller's level to the callee's accesses (§3.2 call,
        // add(L, L')); drawn freely it fell to about 1% of programs.
        self.call_next = self.src.next().is_multiple_of(4);
        let inner = self.nested(locks + 1, control);
        self.call_next = false;
        // `lock(); … lock(); …; unlock(); π := x; unlock()`: an access after a nested block
        // but still under the outer lock is where a lock bound below the nesting depth drops
        // a level (§3.3 L̂, §6.3(a)); nested blocks of 1–3 statements rarely had one.
        let after_inner = matches!(inner.last(), Some(s) if matches!(s.kind, StmtKind::Unlock)) && self.budget > 0 && self.src.next().is_multiple_of(2);
        out.extend(inner);
        if after_inner {
            let (mark, before) = (out.len(), self.assigned.clone());
            self.store(out);
            if self.pay(out, mark, before) {
                self.budget -= 1;
            }
        }
        out.push(stmt(StmtKind::Unlock));
    }

    /// Pays for the statements written to `out` since `mark` under the cost cap; beyond it,
    /// drops them and restores the locals assigned `before` them (false).
    fn pay(&mut self, out: &mut Block, mark: usize, before: Vec<String>) -> bool {
        let c = cost(&out[mark..], &self.costs);
        if c > self.cost {
            out.truncate(mark);
            self.assigned = before;
            return false;
        }
        self.cost -= c;
        true
    }

    fn block(&mut self, locks: usize, control: usize) -> Block {
        self.block_of(locks, control, usize::MAX)
    }

    fn block_of(&mut self, locks: usize, control: usize, max_len: usize) -> Block {
        let mut out = vec![];
        let mut len = 0;
        while self.budget > 0 && len < max_len && !self.src.exhausted() {
            len += 1;
            let c = if std::mem::take(&mut self.call_next) && self.k.calls && self.me > 0 { 23 } else { self.src.next() };
            if c == 0 {
                break;
            }
            self.budget -= 1;
            let (mark, before) = (out.len(), self.assigned.clone());
            let mut compound = false;
            // A 32-way choice (weights: loads 5, stores 5, copies 4, `new` 2, locks 4,
            // `if` 2, `while` 2, calls 6, `skip` 1); an option that is unavailable here
            // (switched off, nesting at its limit, no earlier method to call) falls back to
            // a load.
            match c % 32 {
                8..=12 => self.store(&mut out),
                5..=7 | 31 if self.k.copies => {
                    let src = self.readable(true);
                    // A local copied into a formal half of the time (`arg_i := x` rebinds a
                    // formal to a caller-invisible object, a form that was once never written).
                    let dst = if !is_formal(&src) && self.k.formal_writes && self.src.next().is_multiple_of(2) { self.formal() } else { self.writable() };
                    self.assign(&dst);
                    out.push(stmt(StmtKind::Assign { dst, src: Expr::Var(src) }));
                }
                // Under the bias, `new` inside a lock block opens a nested one, which the
                // cost cap makes rare otherwise.
                14 if self.k.call_bias && locks > 0 && locks < self.k.max_lock_nesting && self.cost >= 2 => {
                    compound = true;
                    self.lock_block(&mut out, locks, control);
                }
                13 | 14 | 29 if self.k.call_bias && self.k.calls && self.me > 0 => self.call(&mut out),
                13 | 14 => {
                    let dst = self.writable();
                    self.assign(&dst);
                    out.push(stmt(StmtKind::New { dst, class: None, site: None }));
                }
                15..=18 if locks < self.k.max_lock_nesting && self.cost >= 2 => {
                    compound = true;
                    self.lock_block(&mut out, locks, control);
                }
                19 | 20 if control < self.k.max_control_nesting && self.cost >= 1 => {
                    (compound, self.cost) = (true, self.cost - 1);
                    // A local assigned on one branch only is not definitely assigned after.
                    let before = self.assigned.clone();
                    let then_b = self.nested(locks, control + 1);
                    let after_then = std::mem::replace(&mut self.assigned, before);
                    let else_b = self.nested(locks, control + 1);
                    self.assigned.retain(|x| after_then.contains(x));
                    out.push(stmt(StmtKind::If { cond: Cond::Star, then_b, else_b }));
                }
                21 | 22 if control < self.k.max_control_nesting && self.cost >= 1 => {
                    (compound, self.cost) = (true, self.cost - 1);
                    let before = self.assigned.clone();
                    let body = self.nested(locks, control + 1);
                    self.assigned = before;
                    out.push(stmt(StmtKind::While { label: None, cond: Cond::Star, body }));
                }
                23..=28 if self.k.calls && self.me > 0 => self.call(&mut out),
                29 => out.push(stmt(StmtKind::Skip)),
                30 if self.k.unmatched_unlock && locks == 0 => out.push(stmt(StmtKind::Unlock)),
                _ => self.load(&mut out),
            }
            // A block (lock, if, while) paid on entry and its statements as they came; a
            // single statement pays now, or, beyond the cap, is dropped and ends the method.
            if !compound && !self.pay(&mut out, mark, before) {
                self.budget = 0;
                break;
            }
        }
        out
    }
}

/// What statements cost the naive enumeration of a method pair, roughly (a proxy for
/// [`RacerDxKnobs::max_cost`]): an access or a path actual 1 + its path length (one
/// non-local step, and up to one lazily fixed initial-heap fact per field, each a branch
/// of the enumeration, docs/spec/racerdx.md §3.1's lazy initial heap), a `lock` or `unlock` 1
/// (a synchronizing step), an `if *` or `while *` 1 (a choice) plus its blocks, a call its
/// callee's cost (`costs`, by method index; the body is inlined) plus its path actuals.
/// Local statements (copies, `new`, `skip`) cost nothing: they run eagerly.
pub(super) fn cost(b: &[Stmt], costs: &[usize]) -> usize {
    let path = |pl: &Place| match pl {
        Place::Field { fields, .. } => 1 + fields.len(),
        Place::Index { .. } => 1,
    };
    b.iter()
        .map(|s| match &s.kind {
            StmtKind::Load { src: pl, .. } | StmtKind::Store { dst: pl, .. } => path(pl),
            StmtKind::Lock | StmtKind::Unlock => 1,
            StmtKind::If { then_b, else_b, .. } => 1usize.saturating_add(cost(then_b, costs)).saturating_add(cost(else_b, costs)),
            StmtKind::While { body, .. } => 1usize.saturating_add(cost(body, costs)),
            StmtKind::Call { method, args, .. } => {
                let callee = method.strip_prefix('m').and_then(|i| i.parse::<usize>().ok()).and_then(|i| costs.get(i.wrapping_sub(1))).copied().unwrap_or(0);
                let actuals: usize = args.iter().map(|a| if let Expr::Path(pl) = a { path(pl) } else { 0 }).sum();
                callee.saturating_add(actuals)
            }
            _ => 0,
        })
        .fold(0, usize::saturating_add)
}

/// Builds a racerdx program from `bytes` (deterministic; a prefix gives a smaller program).
pub fn build(bytes: &[u8], k: RacerDxKnobs) -> Program {
    let mut src = Bytes::new(bytes);
    let n = k.max_methods.max(1);
    let mut methods: Vec<Method> = vec![];
    let mut params = vec![];
    let mut costs = vec![];
    for me in 0..n {
        let formals = src.below(k.max_formals.max(1)) + 1;
        let mut b =
            Builder { src: &mut src, k, formals, me, params: params.clone(), costs: costs.clone(), budget: k.max_stmts, cost: k.max_cost, assigned: vec![], call_next: false };
        let body = b.block(0, 0);
        params.push(formals);
        costs.push(cost(&body, &costs));
        methods.push(Method { name: format!("m{}", me + 1), params: (1..=formals).map(|i| format!("arg{i}")).collect(), body, line: Line(0) });
    }
    // Give every statement a distinct line, as if printed, so that reports name lines.
    let text = print(&Program { dialect: Dialect::RacerDx, classes: vec![], methods, init: None, threads: vec![], regions: vec![] });
    parse_generated("racerdx", &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_means_stop() {
        let p = build(&[], RacerDxKnobs::default());
        assert_eq!(p.methods.len(), 3);
        assert!(p.methods.iter().all(|m| m.body.is_empty()));
        let p = build(&[0, 1, 1, 1, 1, 0], RacerDxKnobs::default());
        assert_eq!(p.methods[0].body.len(), 1);
    }
}
