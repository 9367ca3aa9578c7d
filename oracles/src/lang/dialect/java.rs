//! SimpleJava and CapJava ([Rhodes 2019] ch. 4–5, docs/spec/escape_capsule.md §2, §7): an empty
//! initial heap and one main thread (§2.2), methods in classes called on receivers, values
//! without arrays, per-object locks, no `join`, one field per access (§2.1); capsule
//! classes only in CapJava.
//!
//! Deviation, a choice [C]: SimpleJava's int/bool values, `if` and `while` are accepted (the
//! extensions of spec §2.3 [REC], which keep the theorem).

use super::*;

impl Validator<'_> {
    pub(super) fn simplejava(&self) -> VResult {
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
        self.forbid("§2.2", "a fork is `fork y`, which runs `y.run()` (no block, no other method, no arguments)", |k| match k {
            StmtKind::Fork { target: ForkTarget::Call { recv: Some(_), method, args }, .. } => method != "run" || !args.is_empty(),
            StmtKind::Fork { .. } => true,
            _ => false,
        })?;
        self.forbid("§2.1", "call arguments are values, not heap paths (load the field into a local first)", has_path_actual)?;
        self.forbid("§2.1", "`check`, `assume` and `<-` are not part of SimpleJava", |k| matches!(k, StmtKind::Check(_) | StmtKind::Assume(_) | StmtKind::Rename { .. }))?;
        self.forbid("§2.1", "a path through more than one field; load each step into a local", |k| match k {
            StmtKind::Load { src: Place::Field { fields, .. }, .. } | StmtKind::Store { dst: Place::Field { fields, .. }, .. } => fields.len() > 1,
            _ => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::violation;

    const K: &str = "capsule class K { fields f; method run() { this.f = 1 } }\nthread { k = new K; fork k }\n";

    #[test]
    fn simplejava_and_capjava_assumptions() {
        assert_eq!(violation(&format!("dialect capjava\n{K}")), None);
        assert_eq!(violation(&format!("dialect simplejava\n{K}")).map(|(a, l, _)| (a, l)), Some(("SimpleJava", Some(2))));
        let v = |src: &str| violation(&format!("dialect simplejava\nclass R {{ fields f; method run() {{ skip }} method m() {{ skip }} }}\n{src}")).map(|(a, l, _)| (a, l));
        assert_eq!(v("thread { r = new R; h = fork r }\n"), None);
        assert_eq!(v("thread { skip }\nthread { skip }\n"), Some(("§2.2", None)));
        assert_eq!(v("thread { r = new R; h = fork r; join(h) }\n"), Some(("§1.2", Some(3))));
        assert_eq!(v("thread { r = new R; s = new R; t = r.f; x = t.f; r.f = x; s.f = r }\n"), None);
        assert_eq!(v("thread { r = new R; t = r.f.g }\n"), Some(("§2.1", Some(3))));
        assert_eq!(v("thread { fork { skip } }\n"), Some(("§2.2", Some(3))));
        assert_eq!(v("thread { r = new R; fork r.m() }\n"), Some(("§2.2", Some(3))));
    }
}
