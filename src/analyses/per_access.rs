//! Per-access check placement, RoadRunner's default (spec/bigfoot.md §1.8): a check of the
//! access's kind next to every field and array access. It is the baseline BigFoot is
//! measured against (a check ratio of exactly 1, spec §7) and the first [`CheckPlacer`]
//! under `bigfoot-precise`: a check and its access are adjacent, so the check covers the
//! access and is legitimate for it (§3.1), and every trace has precise checks.
//!
//! RoadRunner checks *before* the access; this placer checks right *after* it,
//! `x = y.f; check(R: y.f)`, as BigFoot defers its checks. Both are precise on terminated
//! traces, but only a check after its access keeps BigFoot's invariant C1 (every check so
//! far has an earlier legitimating access, spec §3.5 D1), on which "no false alarm on any
//! prefix" rests: between a check placed before an access and the access, a check race can
//! exist that no data race backs yet. A load that overwrites its own base (`x = x.f`) would
//! make the later check name another object; the placer declines it.
//!
//! Programs must be in A-normal form (spec §2.1: every path is `x.f` or `x[i]`): a check
//! names its location through a variable, and a longer path's prefix is read without an
//! access that a check could name. Thread bodies and methods get checks; `init` builds the
//! initial heap before any thread runs and gets none.

use race_oracles::lang::{AccessKind, Block, CheckItem, CheckTarget, Place, Program, Stmt, StmtKind};
use race_oracles::theorems::{CheckPlacer, PlaceError};

/// Seeded bugs of the per-access placer, each a row of spec/bigfoot.md §9.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerAccessBug {
    /// A write gets a read check (§9.2 row 10: a read check does not cover a write).
    WriteCheckedAsRead,
    /// A read gets a write check (§9.2 row 9: a write check is not legitimate for a read).
    ReadCheckedAsWrite,
    /// Accesses inside `sync` blocks get no check (coverage fails there).
    NoChecksInSync,
}

/// The per-access placer (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct PerAccess {
    /// The seeded bug, if any.
    pub bug: Option<PerAccessBug>,
}

impl CheckPlacer for PerAccess {
    fn name(&self) -> String {
        "per-access checks".into()
    }

    fn place(&self, p: &Program) -> Result<Program, PlaceError> {
        let mut out = p.clone();
        for b in &mut out.threads {
            self.block(b, false)?;
        }
        for m in out.methods.iter_mut().chain(out.classes.iter_mut().flat_map(|c| c.methods.iter_mut())) {
            self.block(&mut m.body, false)?;
        }
        Ok(out)
    }
}

impl PerAccess {
    fn block(&self, b: &mut Block, in_sync: bool) -> Result<(), PlaceError> {
        let mut out = Vec::with_capacity(b.len() * 2);
        for mut s in std::mem::take(b) {
            let mut after = None;
            let access = match &s.kind {
                StmtKind::Load { src, .. } => Some((AccessKind::Read, src)),
                StmtKind::Store { dst, .. } => Some((AccessKind::Write, dst)),
                _ => None,
            };
            if let Some((kind, place)) = access {
                let target = match place {
                    Place::Field { base, fields } if fields.len() == 1 => CheckTarget::Fields { base: base.clone(), fields: fields.clone() },
                    Place::Index { base, index } => CheckTarget::Range { base: base.clone(), lo: index.clone(), hi: None, stride: None },
                    Place::Field { .. } => {
                        return Err(PlaceError {
                            placer: self.name(),
                            line: s.line.0,
                            reason: "a path longer than one field is not in A-normal form (spec/bigfoot.md §2.1)".into(),
                        })
                    }
                };
                let kind = match (kind, self.bug) {
                    (AccessKind::Write, Some(PerAccessBug::WriteCheckedAsRead)) => AccessKind::Read,
                    (AccessKind::Read, Some(PerAccessBug::ReadCheckedAsWrite)) => AccessKind::Write,
                    (k, _) => k,
                };
                if matches!(&s.kind, StmtKind::Load { dst, src: Place::Field { base, .. } | Place::Index { base, .. } } if dst == base) {
                    return Err(PlaceError {
                        placer: self.name(),
                        line: s.line.0,
                        reason: "the load overwrites its own base, so a check after it would name another object".into(),
                    });
                }
                if !(in_sync && self.bug == Some(PerAccessBug::NoChecksInSync)) {
                    after = Some(Stmt { kind: StmtKind::Check(vec![CheckItem { kind, target }]), line: s.line });
                }
            }
            match &mut s.kind {
                StmtKind::Sync { body, .. } => self.block(body, true)?,
                StmtKind::If { then_b, else_b, .. } => {
                    self.block(then_b, in_sync)?;
                    self.block(else_b, in_sync)?;
                }
                StmtKind::While { body, .. } | StmtKind::Loop { body, .. } => self.block(body, in_sync)?,
                _ => {}
            }
            out.push(s);
            out.extend(after);
        }
        *b = out;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use race_oracles::lang::{parse, print};

    use super::*;

    #[test]
    fn a_check_of_the_access_kind_before_every_access() {
        let p = parse("dialect bfj\nclass C { fields f }\ninit { o = new C; m = new C }\nthread { r = o.f; sync(m) { o.f = 1 } }\n").unwrap();
        let placed = print(&PerAccess::default().place(&p).unwrap());
        assert!(placed.contains("r = o.f\n  check(R: o.f)"), "{placed}");
        assert!(placed.contains("o.f = 1\n    check(W: o.f)"), "{placed}");
        let long = parse("dialect bfj\nclass C { fields f }\ninit { o = new C; o.f = o }\nthread { r = o.f.f }\n").unwrap();
        assert_eq!(PerAccess::default().place(&long).unwrap_err().line, 4);
    }
}
