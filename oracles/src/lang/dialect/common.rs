//! Checks for every dialect: `init` is straight-line heap building, no `break`/`return`
//! leaves a `sync` body (the machine never releases on unwinding), `new C` names a class,
//! and every call names a method of the right arity; plus the acyclic call graph that
//! RacerDX (A5) and BFJ (A11) assume.

use std::collections::{BTreeMap, BTreeSet};

use super::*;

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

/// Depth-first search from `root` for a back edge, skipping nodes in `done` (finished by an
/// earlier search) and adding the nodes it finishes. The cycle is returned from its first
/// node on the search path, which is closed again at its end (`a → b → a`). Iterative, with
/// an explicit stack: a chain of thousands of calls must not overflow the thread's stack.
fn find_cycle<'s>(root: &'s str, g: &BTreeMap<&'s str, BTreeSet<&'s str>>, done: &mut BTreeSet<&'s str>) -> Option<Vec<&'s str>> {
    if done.contains(root) {
        return None;
    }
    let children = |n: &str| g.get(n).into_iter().flatten();
    let mut path = vec![root];
    let mut on_path = BTreeSet::from([root]);
    let mut todo = vec![children(root)];
    while let Some(next) = todo.last_mut() {
        match next.next() {
            Some(&c) if on_path.contains(c) => {
                let i = path.iter().position(|x| *x == c).unwrap_or(0);
                let mut cyc = path[i..].to_vec();
                cyc.push(c);
                return Some(cyc);
            }
            Some(&c) => {
                if !done.contains(c) {
                    path.push(c);
                    on_path.insert(c);
                    todo.push(children(c));
                }
            }
            None => {
                todo.pop();
                if let Some(n) = path.pop() {
                    on_path.remove(n);
                    done.insert(n);
                }
            }
        }
    }
    None
}

impl Validator<'_> {
    /// Atomics (docs/spec/atomics.md §1.1, §1.2): only in the dialects whose threads share
    /// fields and whose semantics is this crate's machine (BFJ, tier-2 BFJ, SimpleJava,
    /// CapJava), and only with the orders of spec §1.2's table, a CAS's failure order at most
    /// its success order. `init` stays plain (the `init` check above).
    fn atomics(&self) -> VResult {
        let name = self.d.name();
        match self.d {
            Dialect::RacerDx | Dialect::Ldrf | Dialect::NaikAiken => {
                let why = match self.d {
                    Dialect::RacerDx => "a racerdx program is a set of methods, not threads",
                    Dialect::Ldrf => "the L-DRF language has shared integers, not fields",
                    _ => "Naik-Aiken's language has none, and its instrumented semantics does not model them",
                };
                let what = format!("atomic operations and fences belong to the thread dialects with fields (bfj, bfj2, simplejava, capjava): {why} ({name})");
                return self.forbid("atomics", &what, |k| matches!(k, StmtKind::Atomic(_)));
            }
            Dialect::Bfj | Dialect::Bfj2 | Dialect::SimpleJava | Dialect::CapJava => {}
        }
        for (owner, b) in self.bodies() {
            let mut bad = None;
            walk_block(b, &mut |s| {
                if let (None, StmtKind::Atomic(a)) = (&bad, &s.kind) {
                    bad = a.invalid_order().map(|rule| (rule, s.line));
                }
            });
            if let Some((rule, line)) = bad {
                return self.fail("atomics §1.2", format!("{rule}, in {owner}"), Some(line));
            }
        }
        Ok(())
    }

    pub(super) fn common(&self) -> VResult {
        if self.d != Dialect::Ldrf && !self.p.regions.is_empty() {
            return self.fail("regions", "`regions` partitions belong to the ldrf dialect (spec/ldrf.md §3)".into(), None);
        }
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
        self.atomics()?;
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
    pub(super) fn no_recursion(&self, assumption: &'static str) -> VResult {
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
        let mut done = BTreeSet::new();
        for n in calls.keys() {
            if let Some(cyc) = find_cycle(n, &calls, &mut done) {
                let line = self.p.all_methods().find(|(_, m)| m.name == cyc[0]).map(|(_, m)| m.line);
                return self.fail(assumption, format!("methods are non-recursive, but {} calls itself", cyc.join(" → ")), line);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::violation;

    #[test]
    fn checks_every_dialect_makes() {
        let v = |src: &str| violation(src).map(|(a, l, _)| (a, l));
        assert_eq!(v("dialect bfj\ninit { acq(x) }\nthread { skip }\n"), Some(("init", Some(2))));
        assert_eq!(v("dialect bfj\ninit { m = new }\nthread { loop { sync(m) { break } } }\n"), Some(("well-formed", Some(3))));
        assert_eq!(v("dialect bfj\ninit { m = new }\nthread { sync(m) { loop { break } } }\n"), None, "a break inside a nested loop stays in the body");
        assert_eq!(v("dialect bfj\nthread {\n  x = new C\n}\n"), Some(("well-formed", Some(3))));
        let (_, _, msg) = violation("dialect bfj\nclass C { method m(a) { skip } }\ninit { c = new C }\nthread { c.m() }\n").unwrap();
        assert_eq!(msg, "`m` takes 1 argument(s) but is called with 0, in thread T1");
        let (_, _, msg) = violation("dialect racerdx\nmethod a(arg1) { b(arg1) }\nmethod b(arg1) { a(arg1) }\n").unwrap();
        assert_eq!(msg, "methods are non-recursive, but a → b → a calls itself");
    }

    /// docs/spec/atomics.md §1.2: the valid orders, the CAS pair rule, plain `init`, and the
    /// dialects without atomics, each error naming its line and rule.
    #[test]
    fn atomics_orders_and_dialects() {
        let v = |src: &str| violation(src);
        let bfj = |body: &str| format!("dialect bfj\ninit {{ o = new }}\nthread {{\n  {body}\n}}\n");
        for ok in [
            "r = o.f.load(consume)",
            "o.f.store(1, seq_cst)",
            "r = o.f.fetch_add(1, acq_rel)",
            "r = o.f.xchg(2, release)",
            "r = o.f.cas(0, 1, release, acquire)",
            "fence(acq_rel)",
            "fence(consume)",
        ] {
            assert_eq!(v(&bfj(ok)), None, "{ok}");
        }
        let (a, line, msg) = v(&bfj("r = o.f.load(release)")).unwrap();
        assert_eq!((a, line), ("atomics §1.2", Some(4)));
        assert_eq!(msg, "load does not accept order `release` (spec/atomics.md §1.2, the standard's Expects clause), in thread T1");
        for bad in ["o.f.store(1, acquire)", "o.f.store(1, acq_rel)", "o.f.store(1, consume)", "r = o.f.cas(0, 1, seq_cst, release)", "fence(relaxed)"] {
            assert_eq!(v(&bfj(bad)).map(|(a, l, _)| (a, l)), Some(("atomics §1.2", Some(4))), "{bad}");
        }
        let (_, _, msg) = v(&bfj("r = o.f.cas(0, 1, acquire, seq_cst)")).unwrap();
        assert!(msg.starts_with("`cas` failure order `seq_cst` is stronger than its success order `acquire`"), "{msg}");
        assert_eq!(v("dialect bfj\ninit { o = new; o.f.store(1, relaxed) }\nthread { skip }\n").map(|(a, l, _)| (a, l)), Some(("init", Some(2))));
        assert_eq!(v("dialect racerdx\nmethod m(arg1) { fence(seq_cst) }\n").map(|(a, l, _)| (a, l)), Some(("atomics", Some(2))));
        assert_eq!(v("dialect ldrf\nthread { fence(seq_cst) }\n").map(|(a, l, _)| (a, l)), Some(("atomics", Some(2))));
        for d in ["bfj2", "simplejava", "capjava"] {
            let src = format!("dialect {d}\nclass C {{ fields f }}\nthread {{ o = new C; r = o.f.load(acquire); o.f.store(r, release) }}\n");
            assert_eq!(v(&src), None, "{d}");
        }
    }

    /// 10,000 methods in one cycle: found without recursing once per call (the test thread's
    /// stack would not hold that).
    #[test]
    fn long_call_cycles_are_found_without_deep_recursion() {
        let n = 10_000;
        let mut src = String::from("dialect racerdx\n");
        for i in 0..n {
            src.push_str(&format!("method m{i}(arg1) {{ m{}(arg1) }}\n", (i + 1) % n));
        }
        let (a, line, msg) = violation(&src).unwrap();
        assert_eq!((a, line), ("A5", Some(2)));
        assert!(msg.starts_with("methods are non-recursive, but m0 → m1 → m2 → ") && msg.ends_with(" → m9999 → m0 calls itself"), "{}", &msg[..80]);
    }
}
