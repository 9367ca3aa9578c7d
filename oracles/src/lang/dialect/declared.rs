//! Names a class declares, checked where the class of a receiver is known statically: a
//! field access `x.g` or a call `x.m(..)` on a variable that holds objects of class `C` only
//! must name a field or method `C` declares (an object of a class has only its declared
//! fields, docs/spec/bigfoot.md §2.1, docs/spec/escape_capsule.md §2.1). Without this check
//! such a program is well formed and gets stuck at run time ("no field `g`"), so a typo
//! explores to "no race".
//!
//! The class of a variable is known, flow-insensitively, when every assignment to it in
//! its scope is `x = new C` with one class `C`; `this` in a method of `C` is a `C` unless
//! assigned. A scope is one method's body, or `init` with every thread (a thread starts
//! with a copy of `init`'s locals, and a forked block with a copy of its parent's). Any
//! other assignment (a load, a call's result, a classless `new`, a parameter) makes the
//! class unknown, and nothing is checked on it: the check never rejects a program that
//! runs, only some that cannot. Only the first field of a path is checked (the class of
//! what it holds is not tracked); `check` statements are the placers' and left alone.

use std::collections::BTreeMap;

use super::*;

/// What a scope's assignments say about each variable: `Some(C)` if every one is
/// `new C`, `None` once any is something else.
type Classes<'a> = BTreeMap<&'a str, Option<&'a str>>;

/// Records every assignment of `b` (nested blocks and forked blocks included) in `out`.
fn assignments<'a>(b: &'a Block, out: &mut Classes<'a>) {
    walk_block(b, &mut |s| {
        let (dst, class) = match &s.kind {
            StmtKind::New { dst, class, .. } => (dst.as_str(), class.as_deref()),
            StmtKind::Fork { dst: Some(h), .. } => (h.as_str(), None),
            k => match k.assigned() {
                Some(d) => (d, None),
                None => return,
            },
        };
        let slot = out.entry(dst).or_insert(class);
        if *slot != class {
            *slot = None;
        }
    });
}

impl Validator<'_> {
    /// Every field access and receiver call on a variable of known class names a field or
    /// method that class declares (with the arity called).
    pub(super) fn declared(&self) -> VResult {
        if self.p.classes.is_empty() {
            return Ok(());
        }
        let mut global = Classes::new();
        if let Some(i) = &self.p.init {
            assignments(i, &mut global);
        }
        for t in &self.p.threads {
            assignments(t, &mut global);
        }
        for (class, m) in self.p.all_methods() {
            let mut scope = Classes::new();
            if let Some(c) = class {
                scope.insert("this", Some(c.name.as_str()));
            }
            for x in &m.params {
                scope.insert(x, None);
            }
            assignments(&m.body, &mut scope);
            self.declared_in(&format!("method {}", m.name), &m.body, &scope)?;
        }
        if let Some(i) = &self.p.init {
            self.declared_in("init", i, &global)?;
        }
        for (k, t) in self.p.threads.iter().enumerate() {
            self.declared_in(&format!("thread T{}", k + 1), t, &global)?;
        }
        Ok(())
    }

    /// [`Validator::declared`] on one body, whose variables' classes are `classes`.
    fn declared_in(&self, owner: &str, b: &Block, classes: &Classes<'_>) -> VResult {
        let class_of = |x: &str| classes.get(x).copied().flatten().and_then(|c| self.p.class(c));
        let mut err = None;
        walk_block(b, &mut |s| {
            if err.is_some() {
                return;
            }
            let place = match &s.kind {
                StmtKind::Load { src: p, .. } | StmtKind::Store { dst: p, .. } | StmtKind::Read(p) => Some(p),
                _ => None,
            };
            let call = match &s.kind {
                StmtKind::Call { recv: Some(x), method, args, .. } | StmtKind::Fork { target: ForkTarget::Call { recv: Some(x), method, args }, .. } => {
                    Some((x, method, args.len()))
                }
                _ => None,
            };
            err = match (place, call) {
                (Some(Place::Field { base, fields }), _) => class_of(base).zip(fields.first()).filter(|(c, f)| !c.fields.contains(f)).map(|(c, f)| {
                    let known = if c.fields.is_empty() { "it declares no fields".to_string() } else { format!("its fields: {}", c.fields.join(", ")) };
                    format!("`{base}.{}`: class `{}` declares no field `{f}` ({known}), in {owner}", fields.join("."), c.name)
                }),
                (Some(Place::Index { base, .. }), _) => class_of(base).map(|c| format!("`{base}[…]`: `{base}` holds `{}` objects, not arrays, in {owner}", c.name)),
                (None, Some((x, method, n))) => class_of(x).and_then(|c| match c.methods.iter().find(|m| &m.name == method) {
                    None => Some(format!("`{x}.{method}(…)`: class `{}` declares no method `{method}`, in {owner}", c.name)),
                    Some(m) if m.params.len() != n => {
                        Some(format!("`{x}.{method}(…)`: `{}.{method}` takes {} argument(s) but is called with {n}, in {owner}", c.name, m.params.len()))
                    }
                    Some(_) => None,
                }),
                _ => None,
            }
            .map(|msg| (msg, s.line));
        });
        match err {
            Some((msg, line)) => self.fail("declared", msg, Some(line)),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::violation;

    fn v(src: &str) -> Option<(&'static str, Option<u32>, String)> {
        violation(&format!("dialect bfj\nclass C {{ fields f; method m(a) {{ this.f = a }} }}\n{src}"))
    }

    #[test]
    fn names_a_known_class_does_not_declare_are_errors_with_the_line() {
        let (a, l, msg) = v("init { o = new C }\nthread { o.g = 1 }\n").unwrap();
        assert_eq!((a, l), ("declared", Some(4)));
        assert_eq!(msg, "`o.g`: class `C` declares no field `g` (its fields: f), in thread T1");
        assert_eq!(v("init { o = new C }\nthread {\n  t = o.f\n  u = o.h\n}\n").map(|(a, l, _)| (a, l)), Some(("declared", Some(6))));
        let other = "class D { method n(a) { skip } }\ninit { o = new C }\nthread { o.n(1) }\n";
        assert_eq!(v(other).map(|(_, l, m)| (l, m)), Some((Some(5), "`o.n(…)`: class `C` declares no method `n`, in thread T1".into())), "D's method is not C's");
        let with_method = "dialect bfj\nclass C { fields f; method m(a) { t = this.g } }\ninit { o = new C }\nthread { o.m(1) }\n";
        assert_eq!(violation(with_method).map(|(a, l, _)| (a, l)), Some(("declared", Some(2))), "`this` is a C");
        assert_eq!(v("init { o = new C }\nthread { t = o[0] }\n").map(|(a, l, _)| (a, l)), Some(("declared", Some(4))));
    }

    /// Where the class is not known, nothing is checked: a classless object has every
    /// field; a variable assigned twice differently, a parameter or a loaded value may hold
    /// anything.
    #[test]
    fn unknown_classes_are_not_checked() {
        assert_eq!(v("init { o = new }\nthread { o.g = 1 }\n"), None);
        assert_eq!(v("class D { fields g }\ninit { o = new C; o = new D }\nthread { o.g = 1 }\n"), None);
        assert_eq!(v("init { o = new C; p = new C; o.f = p }\nthread { q = o.f; q.g = 1 }\n"), None);
        assert_eq!(v("init { o = new C }\nthread { o.m(1); o.f = 2 }\n"), None);
        assert_eq!(violation("dialect bfj\nclass C { fields f; method m(a) { a.g = 1 } }\ninit { o = new C }\nthread { o.m(o) }\n"), None);
    }
}
