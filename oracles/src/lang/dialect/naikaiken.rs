//! Naik-Aiken's WHILE language with threads ([Naik-Aiken 2007] Fig. 3, extended as
//! docs/spec/naik_aiken.md §4.1 \[C\] recommends): one main thread over an empty heap; `x = null`,
//! `x = y`, `x = new @h`, `x = y.f…`, `x.f = y`, `x.f… = k` (an integer data write, which
//! makes no effect), `read x.f…`, containers `x[+] = y` and `x = y[*]`, `if *`, labelled
//! `while @w *`, reentrant `sync(x) { }`, `fork { }` and `fork(x) { }` (whose body sees the
//! thread object as `self`).
//!
//! What the theorems assume and this validator enforces (spec §4.4, each error names it):
//! - **stamp uniqueness** (§1.3 \[D\]): every allocation site and loop carries a label, and
//!   no label repeats; there are no procedures, so no recursion (A9);
//! - **lock-prefix** (A5, ingredient (iii)): a `sync` variable is not assigned in its body,
//!   so the held object is the one the lock expression denotes at every access inside;
//! - **thread object** (§4.1): `self` is bound by `fork(x)`, is read only inside such a body,
//!   and is never assigned;
//! - **the formal fragment** (Fig. 3): conditions are `*`; values are objects and `null`,
//!   except the integer a data write stores; no classes, methods, `init`, explicit locks,
//!   `join`, `break`, arrays with indices, checks or assertions;
//! - **size** (\[C\]): at most [`MAX_STATEMENTS`] statements, [`MAX_FIELDS`] field names
//!   and [`MAX_PATH`] fields in one path: the instrumented semantics indexes variables,
//!   fields, sites and loops with 16-bit integers and a path's positions with 8-bit ones
//!   (the instrumented semantics' code, its `Ix`), and an index that did not fit would alias
//!   two of them. This rule rejects such a program (exit 2) before any index is made, so
//!   `Ix`'s checked constructor fails only on an internal bug.

use std::collections::{BTreeMap, BTreeSet};

use super::*;

/// At most this many statements: each names at most three variables, so with `self` the
/// variables, sites and loops all fit 16-bit indices.
pub const MAX_STATEMENTS: usize = 1 << 14;
/// At most this many distinct field names (16-bit indices).
pub const MAX_FIELDS: usize = 1 << 16;
/// At most this many fields in one path (8-bit positions, as access labels number them).
pub const MAX_PATH: usize = 255;

impl Validator<'_> {
    pub(super) fn naikaiken(&self) -> VResult {
        if let Some(c) = self.p.classes.first() {
            return self.fail("Fig. 3", format!("there is one object type and no classes (class `{}`)", c.name), Some(c.line));
        }
        if let Some(m) = self.p.methods.first() {
            return self.fail("A9", format!("no procedures, so stamps stay unique (method `{}`)", m.name), Some(m.line));
        }
        if self.p.init.is_some() {
            return self.fail("§4.1", "execution starts from an empty heap; build shared objects in the main thread".into(), None);
        }
        if self.p.threads.len() != 1 {
            return self.fail("§4.1", format!("execution starts with one main thread that forks the others; found {} threads", self.p.threads.len()), None);
        }
        self.forbid("Fig. 3", "statement outside the Naik-Aiken language (spec §4.1 lists what is allowed)", |k| !allowed(k))?;
        self.forbid("Fig. 3", "conditions are `*`", |k| matches!(k, StmtKind::If { cond: Cond::Expr(_), .. } | StmtKind::While { cond: Cond::Expr(_), .. }))?;
        self.forbid("§1.3", "every loop carries a label (`while @w *`): stamps count iterations per loop", |k| matches!(k, StmtKind::While { label: None, .. }))?;
        self.forbid("§1.3", "every allocation carries a site label and no class (`x = new @h`)", |k| {
            matches!(k, StmtKind::New { site: None, .. } | StmtKind::New { class: Some(_), .. })
        })?;
        self.forbid(
            "Fig. 3",
            "a pointer store writes one field (`x.f = y`); an integer store may write a path",
            |k| matches!(k, StmtKind::Store { dst: Place::Field { fields, .. }, src: Expr::Var(_) | Expr::Null } if fields.len() != 1),
        )?;
        self.forbid(
            "§4.1",
            "a store writes a variable, `null` or an integer literal",
            |k| matches!(k, StmtKind::Store { src, .. } if !matches!(src, Expr::Var(_) | Expr::Null | Expr::Int(_))),
        )?;
        self.forbid(
            "Fig. 3",
            "an assignment copies a variable or `null` (`x = y`, `x = null`)",
            |k| matches!(k, StmtKind::Assign { src, .. } if !matches!(src, Expr::Var(_) | Expr::Null)),
        )?;
        self.forbid("§4.1", "`self` is bound by `fork(x)` and never assigned", |k| k.assigned() == Some("self"))?;
        self.unique_labels()?;
        self.naikaiken_size()?;
        let main = &self.p.threads[0];
        if !self.relax.sync_reassign {
            self.sync_vars_unassigned(main)?;
        }
        self.self_bound(main, false)
    }

    /// The **size** rule: what the instrumented semantics can index.
    fn naikaiken_size(&self) -> VResult {
        let (mut statements, mut fields, mut long) = (0usize, BTreeSet::new(), None);
        walk_block(&self.p.threads[0], &mut |s| {
            statements += 1;
            if let StmtKind::Load { src: Place::Field { fields: f, .. }, .. }
            | StmtKind::Read(Place::Field { fields: f, .. })
            | StmtKind::Store { dst: Place::Field { fields: f, .. }, .. } = &s.kind
            {
                fields.extend(f.iter().map(String::as_str));
                if f.len() > MAX_PATH && long.is_none() {
                    long = Some((f.len(), s.line));
                }
            }
        });
        if let Some((n, line)) = long {
            return self.fail("size", format!("a path of {n} fields; the instrumented semantics admits at most {MAX_PATH}"), Some(line));
        }
        for (n, max, what) in [(statements, MAX_STATEMENTS, "statements"), (fields.len(), MAX_FIELDS, "field names")] {
            if n > max {
                return self.fail("size", format!("{n} {what}; the instrumented semantics admits at most {max}"), None);
            }
        }
        Ok(())
    }

    /// No site and no loop label appears twice (stamp uniqueness, spec §1.3 \[D\]).
    fn unique_labels(&self) -> VResult {
        let mut seen: BTreeMap<(&str, &str), Line> = BTreeMap::new();
        let mut dup = None;
        walk_block(&self.p.threads[0], &mut |s| {
            let label = match &s.kind {
                StmtKind::New { site: Some(h), .. } => Some(("site", h.as_str())),
                StmtKind::While { label: Some(w), .. } => Some(("loop", w.as_str())),
                _ => None,
            };
            if let Some(l) = label {
                if let Some(first) = seen.insert(l, s.line) {
                    dup = dup.or(Some((l, first, s.line)));
                }
            }
        });
        match dup {
            Some(((what, name), first, line)) => self.fail("§1.3", format!("{what} label `@{name}` is used twice (first at line {}): stamps must be unique", first.0), Some(line)),
            None => Ok(()),
        }
    }

    /// A `sync(x)` body never assigns `x` (spec A5, ingredient (iii)).
    fn sync_vars_unassigned(&self, b: &Block) -> VResult {
        for s in b {
            if let StmtKind::Sync { lock, body } = &s.kind {
                let mut bad = None;
                walk_block(body, &mut |t| {
                    if bad.is_none() && t.kind.assigned() == Some(lock.as_str()) {
                        bad = Some(t.line);
                    }
                });
                if let Some(line) = bad {
                    return self.fail("A5", format!("`{lock}` is assigned inside `sync({lock})` (line {}): the lock must stay the held object", s.line.0), Some(line));
                }
            }
            for sub in s.kind.sub_blocks() {
                self.sync_vars_unassigned(sub)?;
            }
        }
        Ok(())
    }

    /// `self` is read only inside a `fork(x)` body.
    fn self_bound(&self, b: &Block, bound: bool) -> VResult {
        for s in b {
            if !bound && reads_var(&s.kind, "self") {
                return self.fail("§4.1", "`self` is read outside a `fork(x) { .. }` body".into(), Some(s.line));
            }
            let inner = bound || matches!(&s.kind, StmtKind::Fork { target: ForkTarget::Block { this: Some(_), .. }, .. });
            for sub in s.kind.sub_blocks() {
                self.self_bound(sub, inner)?;
            }
        }
        Ok(())
    }
}

/// The statement forms of the dialect (their operands are checked separately).
fn allowed(k: &StmtKind) -> bool {
    match k {
        StmtKind::Skip | StmtKind::Assign { .. } | StmtKind::New { .. } | StmtKind::Read(_) | StmtKind::Append { .. } | StmtKind::Pick { .. } => true,
        StmtKind::Load { src, .. } | StmtKind::Store { dst: src, .. } => matches!(src, Place::Field { .. }),
        StmtKind::If { .. } | StmtKind::While { .. } | StmtKind::Sync { .. } => true,
        StmtKind::Fork { dst: None, target: ForkTarget::Block { .. } } => true,
        _ => false,
    }
}

/// Whether the statement itself (not its nested blocks) reads variable `v`.
fn reads_var(k: &StmtKind, v: &str) -> bool {
    match k {
        StmtKind::Assign { src: Expr::Var(y), .. } => y == v,
        StmtKind::Load { src: p, .. } | StmtKind::Read(p) => p.base() == v,
        StmtKind::Store { dst, src } => dst.base() == v || matches!(src, Expr::Var(y) if y == v),
        StmtKind::Append { array, src } => array == v || src == v,
        StmtKind::Pick { array, .. } => array == v,
        StmtKind::Sync { lock, .. } => lock == v,
        StmtKind::Fork { target: ForkTarget::Block { this: Some(x), .. }, .. } => x == v,
        _ => false,
    }
}

#[cfg(test)]
mod size_tests {
    use super::super::tests::violation;

    #[test]
    fn paths_and_programs_fit_the_indices() {
        let path = |n: usize| violation(&format!("dialect naikaiken\nthread {{\nx = new @h\nread x.{}\n}}\n", vec!["f"; n].join(".")));
        assert_eq!(path(super::MAX_PATH), None);
        assert_eq!(path(super::MAX_PATH + 1), Some(("size", Some(4), "a path of 256 fields; the instrumented semantics admits at most 255".into())));
        let many = "skip\n".repeat(super::MAX_STATEMENTS + 1);
        assert_eq!(violation(&format!("dialect naikaiken\nthread {{\n{many}}}\n")).map(|(a, _, _)| a), Some("size"));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::violation;

    fn v(body: &str) -> Option<(&'static str, Option<u32>)> {
        violation(&format!("dialect naikaiken\nthread {{\n{body}\n}}\n")).map(|(a, l, _)| (a, l))
    }

    #[test]
    fn the_papers_examples_are_in_the_dialect() {
        assert_eq!(v("while @w1 * { x = new @h1; y = new @h2; x.f = y }"), None);
        assert_eq!(v("a = new @h1\nwhile @w1 * { t = new @h2; a[+] = t; u = new @h3; t.f = u }\nwhile @w2 * { x = a[*]; fork { sync(x) { x.f.g = 1 } } }"), None);
        assert_eq!(v("while @w1 * { t = new @hT; d = new @hD; t.f = d; fork(t) { read self.f.g; self.f.g = 1 } }"), None);
    }

    #[test]
    fn each_assumption_is_named_with_its_line() {
        assert_eq!(v("x = new @h\ny = new @h"), Some(("§1.3", Some(4))));
        assert_eq!(v("while @w * { skip }\nwhile @w * { skip }"), Some(("§1.3", Some(4))));
        assert_eq!(v("while * { skip }"), Some(("§1.3", Some(3))));
        assert_eq!(v("x = new"), Some(("§1.3", Some(3))));
        assert_eq!(v("x = new @h\nsync(x) {\nx = null\n}"), Some(("A5", Some(5))));
        assert_eq!(v("x = new @h\nsync(x) { fork { x = null } }"), Some(("A5", Some(4))));
        assert_eq!(v("read self.f"), Some(("§4.1", Some(3))));
        assert_eq!(v("x = new @h\nfork(x) { self = null }"), Some(("§4.1", Some(4))));
        assert_eq!(v("x = new @h\nfork(x) { fork { read self.f } }"), None);
        assert_eq!(v("if x == null { skip }"), Some(("Fig. 3", Some(3))));
        assert_eq!(v("x = new @h\nx.f.g = y"), Some(("Fig. 3", Some(4))));
        assert_eq!(v("x = 1"), Some(("Fig. 3", Some(3))));
        assert_eq!(v("acq(x)"), Some(("Fig. 3", Some(3))));
        assert_eq!(v("h = fork { skip }"), Some(("Fig. 3", Some(3))));
        assert_eq!(violation("dialect naikaiken\nthread { skip }\nthread { skip }\n").map(|(a, _, _)| a), Some("§4.1"));
    }
}
