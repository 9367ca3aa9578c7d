//! Dialect validators: each rejects what its paper's theorem assumes away, naming the assumption.
//!
//! | dialect | paper | what is rejected |
//! |---|---|---|
//! | `racerdx` | seed 000, spec/racerdx.md §1.2 | A1 (classes, ints, arrays), A2 (several locks, unbalanced `lock`/`unlock`, threads), A3 (formal names, use before assignment), A5 (recursion, return values), A6 (data-dependent conditions), ANF (Def. 5.12) |
//! | `bfj` | seed 003 ch. 3, spec/bigfoot.md §2, §10 | the global lock, fork/join (tier 2, outside Thm 3.9.4, A2), recursion (A11), methods assigning their parameters (A10), `x = x.f` (A9) |
//! | `simplejava` | seed 003 ch. 4, spec/escape_capsule.md §2 | globals/`init`, several initial threads, arrays, `join`, the global lock, receiver-less calls, capsules |
//! | `capjava` | seed 003 ch. 5, spec/escape_capsule.md §7 | as `simplejava`, but capsule classes are allowed |
//!
//! Deviations, each a choice [C]:
//! 1. BFJ freshness and renaming (spec/bigfoot.md §4.6) are *not* enforced here: they constrain
//!    the check placer's input, and a placer may normalize a program into fresh form itself.
//!    Only A9's `x = x.f` is rejected, because it cannot be normalized without a new temporary
//!    and the message says how to write it.
//! 2. BFJ `while c { s }` is accepted and runs as `if c { loop { s; if !c break } }` would (A7);
//!    the semantics of the two are identical, so no rewriting is needed for the ground truth.
//! 3. SimpleJava's int/bool values, `if` and `while` are accepted (the extensions of spec
//!    §2.3 [REC], which keep the theorem).

use std::collections::{BTreeMap, BTreeSet};

use super::assumption::{DialectError, Relax};
use super::ast::*;

/// Checks `p` against the assumptions of its dialect (and program-wide well-formedness).
///
/// # Errors
/// The first violated assumption, in source order.
pub fn validate(p: &Program) -> Result<(), DialectError> {
    validate_relaxed(p, Relax::default())
}

/// [`validate`], skipping the assumptions `relax` names.
///
/// # Errors
/// The first violated assumption that is not skipped.
pub fn validate_relaxed(p: &Program, relax: Relax) -> Result<(), DialectError> {
    let v = Validator { p, d: p.dialect, relax };
    v.common()?;
    match p.dialect {
        Dialect::RacerDx => v.racerdx(),
        Dialect::Bfj => v.bfj(),
        Dialect::SimpleJava | Dialect::CapJava => v.simplejava(),
    }
}

/// The line of a `return`, or of a `break` not inside a nested loop, that would leave `b`.
fn escapes(b: &Block, in_loop: bool) -> Option<Line> {
    b.iter().find_map(|s| match &s.kind {
        StmtKind::Return(_) => Some(s.line),
        StmtKind::Break if !in_loop => Some(s.line),
        StmtKind::While { body, .. } | StmtKind::Loop { body, .. } => escapes(body, true),
        StmtKind::Fork { .. } => None,
        k => k.sub_blocks().into_iter().find_map(|b| escapes(b, in_loop)),
    })
}

/// Whether a call or fork passes a heap path as an actual (RacerDX only).
fn has_path_actual(k: &StmtKind) -> bool {
    match k {
        StmtKind::Call { args, .. } | StmtKind::Fork { target: ForkTarget::Call { args, .. }, .. } => args.iter().any(|a| matches!(a, Expr::Path(_))),
        _ => false,
    }
}

struct Validator<'a> {
    p: &'a Program,
    d: Dialect,
    relax: Relax,
}

type VResult = Result<(), DialectError>;

impl<'a> Validator<'a> {
    fn fail(&self, assumption: &'static str, message: String, line: Option<Line>) -> VResult {
        Err(DialectError { dialect: self.d, assumption, message, line: line.map(|l| l.0) })
    }

    /// Every statement of the program with the name of its enclosing method or thread.
    fn bodies(&self) -> Vec<(String, &'a Block)> {
        let mut out: Vec<(String, &Block)> = self.p.all_methods().map(|(_, m)| (format!("method {}", m.name), &m.body)).collect();
        if let Some(i) = &self.p.init {
            out.push(("init".into(), i));
        }
        for (k, t) in self.p.threads.iter().enumerate() {
            out.push((format!("thread T{}", k + 1), t));
        }
        out
    }

    fn any_stmt(&self, pred: impl Fn(&StmtKind) -> bool) -> Option<(String, &'a Stmt)> {
        for (owner, b) in self.bodies() {
            let mut found = None;
            walk_block(b, &mut |s| {
                if found.is_none() && pred(&s.kind) {
                    found = Some(s);
                }
            });
            if let Some(s) = found {
                return Some((owner, s));
            }
        }
        None
    }

    fn forbid(&self, assumption: &'static str, what: &str, pred: impl Fn(&StmtKind) -> bool) -> VResult {
        if let Some((owner, s)) = self.any_stmt(pred) {
            return self.fail(assumption, format!("{what}, in {owner}"), Some(s.line));
        }
        Ok(())
    }

    // ===== all dialects =====

    fn common(&self) -> VResult {
        if let Some(init) = &self.p.init {
            let mut bad = None;
            walk_block(init, &mut |s| {
                let ok = matches!(
                    s.kind,
                    StmtKind::Skip
                        | StmtKind::Assign { .. }
                        | StmtKind::New { .. }
                        | StmtKind::NewArray { .. }
                        | StmtKind::Load { .. }
                        | StmtKind::Store { .. }
                        | StmtKind::Rename { .. }
                );
                if !ok && bad.is_none() {
                    bad = Some(s.line);
                }
            });
            if let Some(line) = bad {
                return self.fail("init", "`init` builds the initial heap and is straight-line: only `new`, `new_array`, assignments, loads and stores".into(), Some(line));
            }
        }
        for (owner, b) in self.bodies() {
            let mut bad = None;
            walk_block(b, &mut |s| {
                if let StmtKind::Sync { body, .. } = &s.kind {
                    if bad.is_none() {
                        bad = escapes(body, false);
                    }
                }
            });
            if let Some(line) = bad {
                return self.fail("well-formed", format!("`break`/`return` inside a `sync` body would leave the lock held, in {owner}; move it after the block"), Some(line));
            }
        }
        for (owner, b) in self.bodies() {
            let mut err = None;
            walk_block(b, &mut |s| {
                if err.is_some() {
                    return;
                }
                let (recv, method, nargs) = match &s.kind {
                    StmtKind::Call { recv, method, args, .. } => (recv.is_some(), method, args.len()),
                    StmtKind::Fork { target: ForkTarget::Call { recv, method, args }, .. } => (recv.is_some(), method, args.len()),
                    StmtKind::New { class: Some(c), .. } if self.p.class(c).is_none() => {
                        err = Some((format!("`new {c}`: no class `{c}`, in {owner}"), s.line));
                        return;
                    }
                    _ => return,
                };
                // A receiver call is resolved by the receiver's class at run time, so any
                // class's method of that name and arity will do statically.
                let candidates: Vec<&Method> = if recv {
                    self.p.classes.iter().flat_map(|c| &c.methods).filter(|m| &m.name == method).collect()
                } else {
                    self.p.methods.iter().filter(|m| &m.name == method).collect()
                };
                if candidates.is_empty() {
                    let kind = if recv { "method" } else { "top-level method" };
                    err = Some((format!("call of unknown {kind} `{method}`, in {owner}"), s.line));
                } else if !candidates.iter().any(|m| m.params.len() == nargs) {
                    err = Some((format!("`{method}` takes {} argument(s) but is called with {nargs}, in {owner}", candidates[0].params.len()), s.line));
                }
            });
            if let Some((msg, line)) = err {
                return self.fail("well-formed", msg, Some(line));
            }
        }
        Ok(())
    }

    /// A5 / A11: the call graph is acyclic.
    fn no_recursion(&self, assumption: &'static str) -> VResult {
        let mut calls: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for (_, m) in self.p.all_methods() {
            let e = calls.entry(&m.name).or_default();
            walk_block(&m.body, &mut |s| match &s.kind {
                StmtKind::Call { method, .. } | StmtKind::Fork { target: ForkTarget::Call { method, .. }, .. } => {
                    e.insert(method.as_str());
                }
                _ => {}
            });
        }
        // Depth-first search for a back edge; the reported cycle starts at its smallest name.
        fn dfs<'s>(n: &'s str, g: &BTreeMap<&'s str, BTreeSet<&'s str>>, stack: &mut Vec<&'s str>, done: &mut BTreeSet<&'s str>) -> Option<Vec<&'s str>> {
            if let Some(i) = stack.iter().position(|x| *x == n) {
                let mut cyc = stack[i..].to_vec();
                cyc.push(n);
                return Some(cyc);
            }
            if done.contains(n) {
                return None;
            }
            stack.push(n);
            for c in g.get(n).into_iter().flatten() {
                if let Some(c) = dfs(c, g, stack, done) {
                    return Some(c);
                }
            }
            stack.pop();
            done.insert(n);
            None
        }
        let mut done = BTreeSet::new();
        for n in calls.keys() {
            if let Some(cyc) = dfs(n, &calls, &mut vec![], &mut done) {
                let line = self.p.all_methods().find(|(_, m)| m.name == cyc[0]).map(|(_, m)| m.line);
                return self.fail(assumption, format!("methods are non-recursive, but {} calls itself", cyc.join(" → ")), line);
            }
        }
        Ok(())
    }

    // ===== racerdx =====

    fn racerdx(&self) -> VResult {
        let p = self.p;
        if let Some(c) = p.classes.first() {
            return self.fail("A1", format!("one class of records with pointer fields; declare no classes (found `class {}`)", c.name), Some(c.line));
        }
        if p.init.is_some() || !p.threads.is_empty() {
            return self.fail(
                "A2",
                "a racerdx program is a set of methods; its two threads are every pair of methods (spec/racerdx.md §3.4), so `init` and `thread` are not allowed".into(),
                None,
            );
        }
        for m in &p.methods {
            for (i, a) in m.params.iter().enumerate() {
                if *a != format!("arg{}", i + 1) {
                    return self.fail("A3", format!("formals come from the fixed set arg1, arg2, …; parameter {} of `{}` is `{a}`", i + 1, m.name), Some(m.line));
                }
            }
        }
        self.forbid("A1", "ints, booleans and arrays are outside IL (one class of pointer fields)", |k| match k {
            StmtKind::NewArray { .. } => true,
            StmtKind::Load { src: Place::Index { .. }, .. } | StmtKind::Store { dst: Place::Index { .. }, .. } => true,
            StmtKind::Assign { src, .. } => !matches!(src, Expr::Var(_)),
            StmtKind::Store { src, .. } => !matches!(src, Expr::Var(_)),
            StmtKind::New { class, .. } => class.is_some(),
            StmtKind::Call { args, .. } => args.iter().any(|a| !matches!(a, Expr::Var(_)) && !matches!(a, Expr::Path(p) if matches!(**p, Place::Field { .. }))),
            _ => false,
        })?;
        self.forbid("A2", "one global lock: per-object locks (`acq`/`rel`/`sync`) are outside IL", |k| matches!(k, StmtKind::Acq(_) | StmtKind::Rel(_) | StmtKind::Sync { .. }))?;
        self.forbid("A2", "exactly two threads: `fork`/`join` are outside IL", |k| matches!(k, StmtKind::Fork { .. } | StmtKind::Join(_)))?;
        self.forbid("A5", "methods return nothing", |k| matches!(k, StmtKind::Return(_) | StmtKind::Call { dst: Some(_), .. } | StmtKind::Call { recv: Some(_), .. }))?;
        self.forbid("A6", "`if` and `while` choose nondeterministically: conditions must be `*`", |k| {
            matches!(k, StmtKind::If { cond: Cond::Expr(_), .. } | StmtKind::While { cond: Cond::Expr(_), .. } | StmtKind::Loop { .. })
        })?;
        self.forbid("IL", "statement outside IL (no `<-`, `check`, `assume`, `assert`)", |k| {
            matches!(k, StmtKind::Rename { .. } | StmtKind::Check(_) | StmtKind::Assume(_) | StmtKind::Assert(_))
        })?;
        self.no_recursion("A5")?;
        for m in &p.methods {
            // A body never mentions arg_j with j > #(m) (§1.1): such a name would be read as
            // the caller's formal by `fml` after substitution.
            let mut stray = None;
            walk_block(&m.body, &mut |s| {
                let mut names: Vec<&str> = vec![];
                match &s.kind {
                    StmtKind::Assign { dst, src } => {
                        names.push(dst);
                        if let Expr::Var(v) = src {
                            names.push(v);
                        }
                    }
                    StmtKind::New { dst, .. } => names.push(dst),
                    StmtKind::Load { dst, src } => names.extend([dst.as_str(), src.base()]),
                    StmtKind::Store { dst, src } => {
                        names.push(dst.base());
                        if let Expr::Var(v) = src {
                            names.push(v);
                        }
                    }
                    StmtKind::Call { args, .. } => names.extend(args.iter().filter_map(|a| match a {
                        Expr::Var(v) => Some(v.as_str()),
                        Expr::Path(p) => Some(p.base()),
                        _ => None,
                    })),
                    _ => {}
                }
                for n in names {
                    let j = n.strip_prefix("arg").and_then(|d| d.parse::<usize>().ok());
                    if stray.is_none() && j.is_some_and(|j| j > m.params.len()) {
                        stray = Some((n.to_string(), s.line));
                    }
                }
            });
            if let Some((n, line)) = stray {
                return self.fail("A3", format!("`{n}` is not a formal of `{}` (it has {}); name locals otherwise", m.name, m.params.len()), Some(line));
            }
            self.anf(m)?;
            let mut assigned: BTreeSet<String> = m.params.iter().cloned().collect();
            self.definitely_assigned(m, &m.body, &mut assigned)?;
        }
        if self.relax.balanced_locking {
            return Ok(());
        }
        self.balanced_locking()
    }

    /// Def. 5.12: no `π := arg_i`.
    fn anf(&self, m: &Method) -> VResult {
        let mut bad = None;
        walk_block(&m.body, &mut |s| {
            if let StmtKind::Store { src: Expr::Var(v), dst } = &s.kind {
                if bad.is_none() && m.params.contains(v) {
                    bad =
                        Some((format!("`{} = {v}` stores a formal into the heap in method {}; copy it into a local first (`t = {v}`)", super::print::place(dst), m.name), s.line));
                }
            }
        });
        match bad {
            Some((msg, line)) => self.fail("ANF (Def. 5.12)", msg, Some(line)),
            None => Ok(()),
        }
    }

    /// A3: every local is assigned before its first use, on every path.
    fn definitely_assigned(&self, m: &Method, b: &Block, da: &mut BTreeSet<String>) -> VResult {
        for s in b {
            let mut used = vec![];
            let mut collect = |v: &str| used.push(v.to_string());
            match &s.kind {
                StmtKind::Assign { src, .. } => src.for_each_var(&mut collect),
                StmtKind::Load { src, .. } => src.for_each_var(&mut collect),
                StmtKind::Store { dst, src } => {
                    dst.for_each_var(&mut collect);
                    src.for_each_var(&mut collect);
                }
                StmtKind::Call { args, .. } => args.iter().for_each(|a| a.for_each_var(&mut collect)),
                _ => {}
            }
            if let Some(v) = used.iter().find(|v| !da.contains(*v)) {
                return self.fail("A3", format!("local `{v}` is used before it is assigned in method {}", m.name), Some(s.line));
            }
            match &s.kind {
                StmtKind::Assign { dst, .. } | StmtKind::Load { dst, .. } | StmtKind::New { dst, .. } => {
                    da.insert(dst.clone());
                }
                StmtKind::If { then_b, else_b, .. } => {
                    let mut a = da.clone();
                    let mut b2 = da.clone();
                    self.definitely_assigned(m, then_b, &mut a)?;
                    self.definitely_assigned(m, else_b, &mut b2)?;
                    *da = a.intersection(&b2).cloned().collect();
                }
                StmtKind::While { body, .. } => {
                    self.definitely_assigned(m, body, &mut da.clone())?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// A2 as refined in §5.2.1: balanced within every branch, loop body and method body
    /// (counting callees), and every `unlock` matches an earlier `lock`.
    fn balanced_locking(&self) -> VResult {
        for m in &self.p.methods {
            let net = self.balance(m, &m.body)?;
            if net != 0 {
                return self.fail("A2", format!("{net} `lock` without a matching `unlock` in method {}", m.name), Some(m.line));
            }
        }
        Ok(())
    }

    fn balance(&self, m: &Method, b: &Block) -> Result<i64, DialectError> {
        let mut depth: i64 = 0;
        for s in b {
            match &s.kind {
                StmtKind::Lock => depth += 1,
                StmtKind::Unlock => {
                    depth -= 1;
                    if depth < 0 {
                        self.fail("A2", format!("unlock without a matching lock in method {}", m.name), Some(s.line))?;
                    }
                }
                StmtKind::If { then_b, else_b, .. } => {
                    for br in [then_b, else_b] {
                        if self.balance(m, br)? != 0 {
                            self.fail("A2", format!("locking is unbalanced inside a branch of `if` in method {}", m.name), Some(s.line))?;
                        }
                    }
                }
                StmtKind::While { body, .. } if self.balance(m, body)? != 0 => {
                    self.fail("A2", format!("locking is unbalanced inside a loop body in method {}", m.name), Some(s.line))?;
                }
                StmtKind::Call { method, .. } => {
                    if let Some(callee) = self.p.method(method) {
                        if self.balance(callee, &callee.body)? != 0 {
                            self.fail("A2", format!("callee `{method}` leaves the lock unbalanced, called from method {}", m.name), Some(s.line))?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(depth)
    }

    // ===== bfj =====

    fn bfj(&self) -> VResult {
        if let Some(c) = self.p.classes.iter().find(|c| c.capsule) {
            return self.fail("BFJ", format!("capsule classes belong to capjava (class `{}`)", c.name), Some(c.line));
        }
        if self.p.threads.is_empty() {
            return self.fail("BFJ", "a program is classes plus threads `s1 || … || sn`; declare at least one `thread`".into(), None);
        }
        self.forbid("BFJ", "BFJ has per-object locks only; use `acq(x)`/`rel(x)` instead of `lock`/`unlock`", |k| matches!(k, StmtKind::Lock | StmtKind::Unlock))?;
        self.forbid("A2 (tier 1)", "fork/join are the tier-2 extension, outside Theorem 3.9.4", |k| matches!(k, StmtKind::Fork { .. } | StmtKind::Join(_)))?;
        self.forbid("BFJ", "`assume`/`assert` are not part of BFJ", |k| matches!(k, StmtKind::Assume(_) | StmtKind::Assert(_)))?;
        self.forbid("BFJ", "call arguments are variables (a path actual would read the heap without an access)", has_path_actual)?;
        self.forbid("A9", "`x = x.f` reads into its own designator; read into a temporary first", |k| match k {
            StmtKind::Load { dst, src } => {
                let mut same = false;
                src.for_each_var(&mut |v| same |= v == dst);
                same
            }
            _ => false,
        })?;
        let mut seen: BTreeMap<&str, Line> = BTreeMap::new();
        for (_, m) in self.p.all_methods() {
            if seen.insert(&m.name, m.line).is_some() {
                return self.fail("A11", format!("method names are globally unique (no dispatch), but `{}` is declared twice", m.name), Some(m.line));
            }
        }
        for (_, m) in self.p.all_methods() {
            let mut bad = None;
            walk_block(&m.body, &mut |s| {
                let dst = match &s.kind {
                    StmtKind::Assign { dst, .. } | StmtKind::Rename { dst, .. } | StmtKind::New { dst, .. } | StmtKind::NewArray { dst, .. } | StmtKind::Load { dst, .. } => {
                        Some(dst)
                    }
                    StmtKind::Call { dst: Some(dst), .. } => Some(dst),
                    _ => None,
                };
                if let Some(d) = dst {
                    if bad.is_none() && (m.params.contains(d) || d == "this") {
                        bad = Some((format!("method `{}` assigns its parameter `{d}` (BFJ passes parameters by name)", m.name), s.line));
                    }
                }
            });
            if let Some((msg, line)) = bad {
                return self.fail("A10", msg, Some(line));
            }
        }
        self.no_recursion("A11")
    }

    // ===== simplejava / capjava =====

    fn simplejava(&self) -> VResult {
        if self.d == Dialect::SimpleJava {
            if let Some(c) = self.p.classes.iter().find(|c| c.capsule) {
                return self.fail("SimpleJava", format!("capsule classes belong to capjava (class `{}`)", c.name), Some(c.line));
            }
        }
        if self.p.init.is_some() {
            return self.fail("§2.2", "execution starts from an empty heap (no globals); build shared objects in the main thread".into(), None);
        }
        if self.p.threads.len() != 1 {
            return self.fail("§2.2", format!("execution starts with one main thread that forks the others; found {} threads", self.p.threads.len()), None);
        }
        if let Some(m) = self.p.methods.first() {
            return self.fail("§2.1", format!("methods belong to classes (`{}` is top-level)", m.name), Some(m.line));
        }
        self.forbid("§2.1", "SimpleJava values are objects, null and (extension) ints/booleans: no arrays", |k| {
            matches!(k, StmtKind::NewArray { .. } | StmtKind::Load { src: Place::Index { .. }, .. } | StmtKind::Store { dst: Place::Index { .. }, .. })
        })?;
        self.forbid("§1.2", "happens-before has no join edges in this model: `join` is not allowed", |k| matches!(k, StmtKind::Join(_)))?;
        self.forbid("§2.1", "locks are per object (`acq`/`rel`/`sync`), not the global `lock`", |k| matches!(k, StmtKind::Lock | StmtKind::Unlock))?;
        self.forbid("§2.1", "calls need a receiver object (`x.m(..)`)", |k| {
            matches!(k, StmtKind::Call { recv: None, .. } | StmtKind::Fork { target: ForkTarget::Call { recv: None, .. }, .. })
        })?;
        self.forbid("§2.1", "call arguments are values, not heap paths (load the field into a local first)", has_path_actual)?;
        self.forbid("§2.1", "`check`, `assume` and `<-` are not part of SimpleJava", |k| matches!(k, StmtKind::Check(_) | StmtKind::Assume(_) | StmtKind::Rename { .. }))?;
        self.forbid("§2.1", "a path through more than one field; load each step into a local", |k| match k {
            StmtKind::Load { src: Place::Field { fields, .. }, .. } | StmtKind::Store { dst: Place::Field { fields, .. }, .. } => fields.len() > 1,
            _ => false,
        })
    }
}
