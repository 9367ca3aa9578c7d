//! BFJ ([Rhodes 2019] ch. 3, docs/spec/bigfoot.md §2, §10): per-object locks only, no fork/join in
//! tier 1 (A2), no `x = x.f` (A9), methods do not assign their parameters (A10), unique
//! method names and no recursion (A11).
//!
//! Deviations, each a choice [C]:
//! 1. BFJ freshness and renaming (docs/spec/bigfoot.md §4.6) are *not* enforced here: they constrain
//!    the check placer's input, and a placer may normalize a program into fresh form itself.
//!    Only A9's `x = x.f` is rejected, because it cannot be normalized without a new temporary
//!    and the message says how to write it.
//! 2. BFJ `while c { s }` is accepted and runs as `if c { loop { s; if !c break } }` would (A7);
//!    the semantics of the two are identical, so no rewriting is needed for the ground truth.

use std::collections::BTreeMap;

use super::*;

impl Validator<'_> {
    /// BFJ's checks; `tier2` (the `bfj2` dialect) allows `fork` and `join` (spec A2).
    pub(super) fn bfj(&self, tier2: bool) -> VResult {
        if let Some(c) = self.p.classes.iter().find(|c| c.capsule) {
            return self.fail("BFJ", format!("capsule classes belong to capjava (class `{}`)", c.name), Some(c.line));
        }
        if self.p.threads.is_empty() {
            return self.fail("BFJ", "a program is classes plus threads `s1 || … || sn`; declare at least one `thread`".into(), None);
        }
        self.forbid("BFJ", "BFJ has per-object locks only; use `acq(x)`/`rel(x)` instead of `lock`/`unlock`", |k| matches!(k, StmtKind::Lock | StmtKind::Unlock))?;
        if !tier2 {
            self.forbid("A2 (tier 1)", "fork/join are the tier-2 extension, outside Theorem 3.9.4 (dialect bfj2 has them)", |k| {
                matches!(k, StmtKind::Fork { .. } | StmtKind::Join(_))
            })?;
        }
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
                if let Some(d) = s.kind.assigned() {
                    if bad.is_none() && (m.params.iter().any(|x| x == d) || d == "this") {
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
}

#[cfg(test)]
mod tests {
    use super::super::tests::violation;

    fn v(src: &str) -> Option<(&'static str, Option<u32>)> {
        violation(&format!("dialect bfj\n{src}")).map(|(a, l, _)| (a, l))
    }

    #[test]
    fn bfj_assumptions() {
        assert_eq!(v("init { m = new }\nthread { acq(m); t = m.f; rel(m) }\n"), None);
        assert_eq!(v("class C { fields f }\n"), Some(("BFJ", None)), "no thread");
        assert_eq!(v("thread { h = fork { skip } }\n"), Some(("A2 (tier 1)", Some(2))));
        assert_eq!(v("init { x = new }\nthread { x = x.f }\n"), Some(("A9", Some(3))));
        let tier2 = |src: &str| violation(&format!("dialect bfj2\n{src}")).map(|(a, l, _)| (a, l));
        assert_eq!(tier2("thread { h = fork { skip }; join(h) }\n"), None);
        assert_eq!(tier2("init { x = new }\nthread { h = fork { x = x.f }; join(h) }\n"), Some(("A9", Some(3))), "the rest of BFJ holds in tier 2");
        assert_eq!(v("class C { method m(a) { a = 1 } }\nthread { skip }\n"), Some(("A10", Some(2))));
        assert_eq!(v("class C { method m() { skip } }\nclass D { method m() { skip } }\nthread { skip }\n"), Some(("A11", Some(3))));
    }
}
