//! P(e), the points-to sets the phase-2 stages compare (docs/spec/naik_aiken.md §4.3 \[C\]): a
//! flow-insensitive, field-sensitive Andersen analysis over allocation sites, all threads
//! together. A variable name denotes every thread's copy of it (locals are copied at a
//! fork, so merging them is sound); a container's elements are one pseudo-field `[]`; the
//! `self` of a `fork(x)` body is what `x` points to at that fork.

use std::collections::{BTreeMap, BTreeSet};

use race_oracles::lang::{walk_block, Expr, ForkTarget, Place, Program, StmtKind};

/// The container pseudo-field.
const ELEMS: &str = "[]";

/// Sites per variable and per (site, field).
#[derive(Clone, Debug, Default)]
pub struct PointsTo {
    vars: BTreeMap<String, BTreeSet<String>>,
    heap: BTreeMap<(String, String), BTreeSet<String>>,
}

impl PointsTo {
    /// Solves the constraints of `p`'s main thread (fork bodies included).
    pub fn of(p: &Program) -> PointsTo {
        let mut pt = PointsTo::default();
        let Some(main) = p.threads.first() else { return pt };
        loop {
            let mut changed = false;
            walk_block(main, &mut |s| changed |= pt.step(&s.kind));
            if !changed {
                return pt;
            }
        }
    }

    /// Applies one statement's constraint; whether anything grew.
    fn step(&mut self, k: &StmtKind) -> bool {
        match k {
            StmtKind::New { dst, site: Some(h), .. } => self.add_var(dst, [h.clone()].into()),
            StmtKind::Assign { dst, src: Expr::Var(y) } => {
                let s = self.var(y);
                self.add_var(dst, s)
            }
            StmtKind::Load { dst, src: Place::Field { base, fields } } => {
                let s = self.path(base, fields);
                self.add_var(dst, s)
            }
            StmtKind::Pick { dst, array } => {
                let s = self.path(array, &[ELEMS.to_string()]);
                self.add_var(dst, s)
            }
            StmtKind::Store { dst: Place::Field { base, fields }, src: Expr::Var(y) } => match fields.split_last() {
                Some((f, prefix)) => {
                    let (targets, v) = (self.path(base, prefix), self.var(y));
                    self.add_heap(&targets, f, &v)
                }
                None => false,
            },
            StmtKind::Append { array, src } => {
                let (targets, v) = (self.var(array), self.var(src));
                self.add_heap(&targets, ELEMS, &v)
            }
            StmtKind::Fork { target: ForkTarget::Block { this: Some(x), .. }, .. } => {
                let s = self.var(x);
                self.add_var("self", s)
            }
            _ => false,
        }
    }

    fn add_var(&mut self, x: &str, s: BTreeSet<String>) -> bool {
        let e = self.vars.entry(x.to_string()).or_default();
        let before = e.len();
        e.extend(s);
        e.len() != before
    }

    fn add_heap(&mut self, targets: &BTreeSet<String>, f: &str, v: &BTreeSet<String>) -> bool {
        let mut changed = false;
        for o in targets {
            let e = self.heap.entry((o.clone(), f.to_string())).or_default();
            let before = e.len();
            e.extend(v.iter().cloned());
            changed |= e.len() != before;
        }
        changed
    }

    /// P(x).
    pub fn var(&self, x: &str) -> BTreeSet<String> {
        self.vars.get(x).cloned().unwrap_or_default()
    }

    /// P(x.f1….fn): the sites reached from P(x) through the fields, in order.
    pub fn path(&self, x: &str, fields: &[String]) -> BTreeSet<String> {
        self.walk(self.var(x), fields)
    }

    /// The sites reached from `from` through `fields`.
    pub fn walk(&self, from: BTreeSet<String>, fields: &[String]) -> BTreeSet<String> {
        fields.iter().fold(from, |s, f| s.iter().flat_map(|o| self.heap.get(&(o.clone(), f.clone())).into_iter().flatten().cloned()).collect())
    }
}

#[cfg(test)]
mod tests {
    use race_oracles::lang::parse;

    use super::*;

    #[test]
    fn fields_containers_and_self() {
        let p =
            parse("dialect naikaiken\nthread {\na = new @h1\nwhile @w1 * { t = new @h2; a[+] = t; u = new @h3; t.f = u }\nwhile @w2 * { x = a[*]; fork(x) { v = self.f } }\n}\n")
                .unwrap();
        let pt = PointsTo::of(&p);
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<BTreeSet<_>>();
        assert_eq!(pt.var("x"), s(&["h2"]));
        assert_eq!(pt.path("x", &["f".into()]), s(&["h3"]));
        assert_eq!(pt.var("self"), s(&["h2"]));
        assert_eq!(pt.var("v"), s(&["h3"]));
        assert_eq!(pt.path("a", &["f".into()]), s(&[]));
    }
}
