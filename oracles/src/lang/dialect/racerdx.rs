//! RacerDX ([Gorogiannis et al. 2019], docs/spec/racerdx.md §1.2): IL's one class of pointer fields (A1), the
//! single balanced global lock and exactly two threads (A2, refined in §5.2.1), formals
//! `arg1, arg2, …` assigned before use (A3), no return values or recursion (A5),
//! nondeterministic conditions (A6), and administrative normal form (Def. 5.12).

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::lang::print::place;

impl Validator<'_> {
    pub(super) fn racerdx(&self) -> VResult {
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
                    let j = crate::lang::formal_index(n);
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
                    bad = Some((format!("`{} = {v}` stores a formal into the heap in method {}; copy it into a local first (`t = {v}`)", place(dst), m.name), s.line));
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
        // Each method's balance is computed once, callees first (the call graph is acyclic:
        // A5 is checked before), so that deep or branching call chains cost linear time and
        // no recursion per call.
        let mut memo: Balances<'_> = BTreeMap::new();
        for m in self.callees_first() {
            let net = self.balance(m, &m.body, &memo);
            memo.insert(m.name.as_str(), net);
        }
        for m in &self.p.methods {
            let net = memo[m.name.as_str()].clone()?;
            if net != 0 {
                return self.fail("A2", format!("{net} `lock` without a matching `unlock` in method {}", m.name), Some(m.line));
            }
        }
        Ok(())
    }

    /// The top-level methods, each after every method it calls (an iterative post-order).
    fn callees_first(&self) -> Vec<&Method> {
        let callees = |m: &Method| {
            let mut out = vec![];
            walk_block(&m.body, &mut |s| {
                if let StmtKind::Call { method, .. } = &s.kind {
                    out.extend(self.p.method(method));
                }
            });
            out.into_iter()
        };
        let mut order = vec![];
        let mut seen = BTreeSet::new();
        for root in &self.p.methods {
            if !seen.insert(root.name.as_str()) {
                continue;
            }
            let mut todo = vec![(root, callees(root))];
            while let Some((m, next)) = todo.last_mut() {
                match next.next() {
                    Some(c) if seen.insert(c.name.as_str()) => todo.push((c, callees(c))),
                    Some(_) => {}
                    None => {
                        order.push(*m);
                        todo.pop();
                    }
                }
            }
        }
        order
    }

    /// The net number of `lock`s of `b` (in method `m`), given the balances of its callees.
    fn balance(&self, m: &Method, b: &Block, callees: &Balances<'_>) -> Result<i64, DialectError> {
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
                        if self.balance(m, br, callees)? != 0 {
                            self.fail("A2", format!("locking is unbalanced inside a branch of `if` in method {}", m.name), Some(s.line))?;
                        }
                    }
                }
                StmtKind::While { body, .. } if self.balance(m, body, callees)? != 0 => {
                    self.fail("A2", format!("locking is unbalanced inside a loop body in method {}", m.name), Some(s.line))?;
                }
                StmtKind::Call { method, .. } => {
                    if let Some(callee) = self.p.method(method) {
                        // OK since `callees_first` put every callee before its callers.
                        let net = callees.get(callee.name.as_str()).expect("racefuzz internal bug: callee balanced after its caller");
                        if net.clone()? != 0 {
                            self.fail("A2", format!("callee `{method}` leaves the lock unbalanced, called from method {}", m.name), Some(s.line))?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(depth)
    }
}

/// Each method's net balance, or its first violation of A2.
type Balances<'a> = BTreeMap<&'a str, Result<i64, DialectError>>;

#[cfg(test)]
mod tests {
    use super::super::tests::violation;

    fn v(body: &str) -> Option<(&'static str, Option<u32>)> {
        violation(&format!("dialect racerdx\nmethod m(arg1, arg2) {{\n  {body}\n}}\n")).map(|(a, l, _)| (a, l))
    }

    #[test]
    fn racerdx_assumptions() {
        assert_eq!(v("t = arg1.f; lock; arg2.g = t; unlock"), None);
        assert_eq!(v("x = 1"), Some(("A1", Some(3))));
        assert_eq!(v("acq(arg1)"), Some(("A2", Some(3))));
        assert_eq!(v("lock"), Some(("A2", Some(2))), "unbalanced: blamed on the method");
        assert_eq!(v("unlock; lock"), Some(("A2", Some(3))));
        assert_eq!(v("t = arg3.f"), Some(("A3", Some(3))));
        assert_eq!(v("arg1.f = u"), Some(("A3", Some(3))));
        assert_eq!(v("if * { u = new } else { skip }; arg1.f = u"), Some(("A3", Some(3))));
        assert_eq!(v("return"), Some(("A5", Some(3))));
        assert_eq!(v("if arg1 == arg2 { skip }"), Some(("A6", Some(3))));
        assert_eq!(v("arg1.f = arg2"), Some(("ANF (Def. 5.12)", Some(3))));
        assert_eq!(violation("dialect racerdx\nmethod m(a) { skip }\n").map(|(a, l, _)| (a, l)), Some(("A3", Some(2))));
    }

    /// Each method's balance is computed once: deep chains do not recurse per call, and
    /// chains that call the next method twice are not exponential.
    #[test]
    fn balancing_long_and_branching_call_chains() {
        let chain = |n: usize, body: &str, last: &str| {
            let mut src = String::from("dialect racerdx\n");
            for i in 0..n {
                src.push_str(&format!("method m{i}(arg1) {{ {} }}\n", body.replace("NEXT", &format!("m{}(arg1)", i + 1))));
            }
            src.push_str(&format!("method m{n}(arg1) {{ {last} }}\n"));
            violation(&src)
        };
        assert_eq!(chain(10_000, "NEXT", "skip"), None);
        let e = chain(100, "lock; NEXT; NEXT; unlock", "lock").unwrap();
        assert_eq!((e.0, e.1, e.2.as_str()), ("A2", Some(101), "callee `m100` leaves the lock unbalanced, called from method m99"));
    }
}
