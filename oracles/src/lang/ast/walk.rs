//! Traversals of `.race` programs, and the views of a program derived from them: the
//! variables a block mentions, the field table the machine interns, whether some step reads
//! the heap silently (docs/spec/racerdx.md Def. 3.1/3.6), and the program without its checks
//! (docs/spec/bigfoot.md §4) or without its source lines.

use super::{Block, CheckTarget, Cond, Expr, ForkTarget, Line, Place, Program, Stmt, StmtKind};

/// Calls `f` on every statement of `block`, nested ones included, in source order.
pub fn walk_block<'a>(block: &'a [Stmt], f: &mut impl FnMut(&'a Stmt)) {
    for s in block {
        f(s);
        for b in s.kind.sub_blocks() {
            walk_block(b, f);
        }
    }
}

/// The variables the statements of `block` mention, nested ones included: in conditions,
/// operands and as the assigned variable (not lock names, not heap paths).
pub fn mentioned_vars(block: &[Stmt]) -> std::collections::BTreeSet<&str> {
    let mut vs = std::collections::BTreeSet::new();
    walk_block(block, &mut |s| {
        match &s.kind {
            StmtKind::Assign { src: e, .. }
            | StmtKind::Assume(e)
            | StmtKind::Assert(e)
            | StmtKind::If { cond: Cond::Expr(e), .. }
            | StmtKind::While { cond: Cond::Expr(e), .. } => e.for_each_var(&mut |v| {
                vs.insert(v);
            }),
            StmtKind::Atomic(a) => a.operands().into_iter().for_each(|e| {
                e.for_each_var(&mut |v| {
                    vs.insert(v);
                })
            }),
            _ => {}
        }
        vs.extend(s.kind.assigned());
    });
    vs
}

impl Program {
    /// The program's field table: every field name its classes declare, its field paths
    /// access or pass, and its checks name, once each, sorted. The machine interns field
    /// `i` of this table as `FieldId(i)`, so a system under test that needs field ids
    /// before running (DynamicBF's proxy groups) takes them from here.
    pub fn field_names(&self) -> Vec<String> {
        let mut fields: Vec<String> = vec![];
        let mut add = |f: &str| {
            if !fields.iter().any(|g| g == f) {
                fields.push(f.to_string());
            }
        };
        for c in &self.classes {
            c.fields.iter().for_each(|f| add(f));
        }
        let mut bodies: Vec<&Block> = self.all_methods().map(|(_, m)| &m.body).collect();
        bodies.extend(self.init.iter());
        bodies.extend(self.threads.iter());
        for b in bodies {
            walk_block(b, &mut |s| {
                let mut place = |p: &Place| {
                    if let Place::Field { fields, .. } = p {
                        fields.iter().for_each(|f| add(f));
                    }
                };
                match &s.kind {
                    StmtKind::Load { src, .. } | StmtKind::Read(src) => place(src),
                    StmtKind::Store { dst, .. } => place(dst),
                    StmtKind::Atomic(a) => a.place().into_iter().for_each(place),
                    StmtKind::Call { args, .. } | StmtKind::Fork { target: ForkTarget::Call { args, .. }, .. } => args.iter().for_each(|a| {
                        if let Expr::Path(p) = a {
                            place(p)
                        }
                    }),
                    StmtKind::Check(items) => items.iter().for_each(|i| {
                        if let CheckTarget::Fields { fields, .. } = &i.target {
                            fields.iter().for_each(|f| add(f));
                        }
                    }),
                    _ => {}
                }
            });
        }
        fields.sort();
        fields
    }

    /// Every atomic statement of the program (docs/spec/atomics.md §1.1), in source order:
    /// methods, then `init`, then threads.
    pub fn atomics(&self) -> Vec<&super::Atomic> {
        let mut out = vec![];
        let mut bodies: Vec<&Block> = self.all_methods().map(|(_, m)| &m.body).collect();
        bodies.extend(self.init.iter());
        bodies.extend(self.threads.iter());
        for b in bodies {
            walk_block(b, &mut |s| {
                if let StmtKind::Atomic(a) = &s.kind {
                    out.push(a);
                }
            });
        }
        out
    }

    /// Whether a whole-program "race-free" verdict over SC interleavings is exact: every
    /// atomic operation and fence is `seq_cst` (a CAS in both orders), or there are none
    /// (DRF-SC, docs/spec/atomics.md §3.3). Decided from the program text alone (spec §3.4).
    pub fn race_freedom_is_exact(&self) -> bool {
        self.atomics().iter().all(|a| a.orders().iter().all(|o| *o == super::Order::SeqCst))
    }

    /// Whether the program has an atomic operation or a fence (docs/spec/atomics.md §1.1).
    pub fn has_atomics(&self) -> bool {
        !self.atomics().is_empty()
    }

    /// Whether some step reads the heap without an event of its own: a path of two or more
    /// fields reads its prefix (`x.f` of `x.f.g`), and a path actual reads its whole path
    /// (Def. 3.1/3.6: neither is an access). Mazurkiewicz classes read off the events
    /// (`explore::classes`) cannot see these reads; DPOR does (`explore::dpor`).
    pub fn reads_silently(&self) -> bool {
        let multi = |p: &Place| matches!(p, Place::Field { fields, .. } if fields.len() > 1);
        let mut found = false;
        let mut bodies: Vec<&Block> = self.all_methods().map(|(_, m)| &m.body).collect();
        bodies.extend(self.init.iter());
        bodies.extend(self.threads.iter());
        for b in bodies {
            walk_block(b, &mut |s| {
                found |= match &s.kind {
                    StmtKind::Load { src: p, .. } | StmtKind::Store { dst: p, .. } | StmtKind::Read(p) => multi(p),
                    StmtKind::Atomic(a) => a.place().is_some_and(multi),
                    StmtKind::Call { args, .. } | StmtKind::Fork { target: ForkTarget::Call { args, .. }, .. } => args.iter().any(|a| matches!(a, Expr::Path(_))),
                    StmtKind::Check(items) => items.iter().any(|i| matches!(&i.target, CheckTarget::Fields { fields, .. } if fields.len() > 1)),
                    _ => false,
                };
            });
        }
        found
    }

    /// The same program without its `check` statements: what a check placer starts from
    /// (docs/spec/bigfoot.md §4: placement infers every check).
    #[must_use]
    pub fn without_checks(&self) -> Program {
        fn block(b: &mut Block) {
            b.retain(|s| !matches!(s.kind, StmtKind::Check(_)));
            for s in b {
                for sub in s.kind.sub_blocks_mut() {
                    block(sub);
                }
            }
        }
        let mut p = self.clone();
        for m in p.methods.iter_mut().chain(p.classes.iter_mut().flat_map(|c| c.methods.iter_mut())) {
            block(&mut m.body);
        }
        p.init.iter_mut().chain(p.threads.iter_mut()).for_each(block);
        p
    }

    /// The same program with every line set to 0: compare two programs modulo source
    /// positions (the printer/parser round trip) with `a.without_lines() == b.without_lines()`.
    #[must_use]
    pub fn without_lines(&self) -> Program {
        fn block(b: &mut Block) {
            for s in b {
                s.line = Line(0);
                for sub in s.kind.sub_blocks_mut() {
                    block(sub);
                }
            }
        }
        let mut p = self.clone();
        for m in p.methods.iter_mut().chain(p.classes.iter_mut().flat_map(|c| c.methods.iter_mut())) {
            m.line = Line(0);
            block(&mut m.body);
        }
        for c in &mut p.classes {
            c.line = Line(0);
        }
        p.init.iter_mut().chain(p.threads.iter_mut()).for_each(block);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    #[test]
    fn lines_count_in_equality_and_without_lines_forgets_them() {
        let a = parse("dialect bfj\nclass C { fields f; method m() { skip } }\nthread { if * { skip } }\n").unwrap();
        let b = parse("dialect bfj\n\nclass C { fields f\n method m() {\n skip } }\nthread {\n if * {\n skip } }\n").unwrap();
        assert_ne!(a, b, "the same program at other lines");
        assert_ne!(a.threads[0][0], b.threads[0][0]);
        assert_eq!(a.without_lines(), b.without_lines());
        let bare = a.without_lines();
        let mut lines = vec![bare.classes[0].line, bare.classes[0].methods[0].line];
        walk_block(&bare.threads[0], &mut |s| lines.push(s.line));
        assert_eq!(lines, [Line(0); 4]);
        assert_ne!(a.without_lines(), parse("dialect bfj\nclass C { fields f; method m() { skip } }\nthread { if * { skip } else { skip } }\n").unwrap().without_lines());
    }
}
