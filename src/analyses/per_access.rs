//! Per-access check placement, RoadRunner's default (docs/spec/bigfoot.md §1.8): a check of the
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
use race_oracles::rule_cases;
use race_oracles::theorems::rules::fire;
use race_oracles::theorems::{CheckPlacer, PlaceError};

use crate::seeded::{Predicted, Seeded};

rule_cases! {
    /// The cases of the per-access placement (docs/spec/bigfoot.md §1.8): one check per access
    /// kind and place form, by where the access sits, and the two programs it declines.
    pub enum PerAccessRule in PER_ACCESS_RULES = "per-access placer", "bigfoot.md §1.8, §2.1" {
        /// `x = y.f; check(R: y.f)`.
        FieldRead => "field read checked", "§1.8";
        /// `y.f = x; check(W: y.f)`.
        FieldWrite => "field write checked", "§1.8";
        /// `x = a[i]; check(R: a[i])`.
        IndexRead => "array read checked", "§1.8";
        /// `a[i] = x; check(W: a[i])`.
        IndexWrite => "array write checked", "§1.8";
        /// An access inside a `sync` block.
        InSync => "access inside sync checked", "§1.8";
        /// An access inside a loop or a branch.
        Nested => "access inside a loop or branch checked", "§1.8";
        /// `x = x.f`: declined, the check would name another object.
        OwnBase => "declined: load overwrites its base", "§1.8 (module docs)", rare "bigfoot-precise's generator writes A-normal loads into fresh temporaries";
        /// `x.f.g`: declined, not in A-normal form.
        LongPath => "declined: path not in A-normal form", "§2.1", rare "bigfoot-precise refuses a program outside A-normal form before placing (theorems/bigfoot_precise.rs `not_anf`)";
    }
}

/// Seeded bugs of the per-access placer, each a row of docs/spec/bigfoot.md §9.2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerAccessBug {
    /// A write gets a read check (§9.2 row 10: a read check does not cover a write).
    WriteCheckedAsRead,
    /// A read gets a write check (§9.2 row 9: a write check is not legitimate for a read).
    ReadCheckedAsWrite,
    /// Accesses inside `sync` blocks get no check (coverage fails there).
    NoChecksInSync,
}

/// Its seeded bugs (`--mutant NAME`), with what the spec predicts under each oracle
/// (the seeded-bug catalogue lists them).
pub const SEEDED: &[Seeded<PerAccessBug>] = &[
    Seeded {
        name: "pa-write-checked-as-read",
        oracle: "bigfoot-precise",
        description: "a write gets a read check, which does not cover it",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §3.3, §9.2 row 10 (missed race)",
        bug: PerAccessBug::WriteCheckedAsRead,
    },
    Seeded {
        name: "pa-read-checked-as-write",
        oracle: "bigfoot-precise",
        description: "a read gets a write check, which is not legitimate for it",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §3.3, §9.2 row 9 (false alarm)",
        bug: PerAccessBug::ReadCheckedAsWrite,
    },
    Seeded {
        name: "pa-no-checks-in-sync",
        oracle: "bigfoot-precise",
        description: "accesses inside sync blocks get no check",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §3.1 (every access needs a covering check)",
        bug: PerAccessBug::NoChecksInSync,
    },
];

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
            self.block(b, false, false)?;
        }
        for m in out.methods.iter_mut().chain(out.classes.iter_mut().flat_map(|c| c.methods.iter_mut())) {
            self.block(&mut m.body, false, false)?;
        }
        Ok(out)
    }
}

impl PerAccess {
    fn block(&self, b: &mut Block, in_sync: bool, nested: bool) -> Result<(), PlaceError> {
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
                    Place::Field { base, fields } if fields.len() == 1 => {
                        fire(if kind == AccessKind::Read { PerAccessRule::FieldRead } else { PerAccessRule::FieldWrite });
                        CheckTarget::Fields { base: base.clone(), fields: fields.clone() }
                    }
                    Place::Index { base, index } => {
                        fire(if kind == AccessKind::Read { PerAccessRule::IndexRead } else { PerAccessRule::IndexWrite });
                        CheckTarget::Range { base: base.clone(), lo: index.clone(), hi: None, stride: None }
                    }
                    Place::Field { .. } => {
                        fire(PerAccessRule::LongPath);
                        return Err(PlaceError {
                            placer: self.name(),
                            line: s.line.0,
                            reason: "a path longer than one field is not in A-normal form (spec/bigfoot.md §2.1)".into(),
                        });
                    }
                };
                let kind = match (kind, self.bug) {
                    (AccessKind::Write, Some(PerAccessBug::WriteCheckedAsRead)) => AccessKind::Read,
                    (AccessKind::Read, Some(PerAccessBug::ReadCheckedAsWrite)) => AccessKind::Write,
                    (k, _) => k,
                };
                if matches!(&s.kind, StmtKind::Load { dst, src: Place::Field { base, .. } | Place::Index { base, .. } } if dst == base) {
                    fire(PerAccessRule::OwnBase);
                    return Err(PlaceError {
                        placer: self.name(),
                        line: s.line.0,
                        reason: "the load overwrites its own base, so a check after it would name another object".into(),
                    });
                }
                if in_sync {
                    fire(PerAccessRule::InSync);
                } else if nested {
                    fire(PerAccessRule::Nested);
                }
                if !(in_sync && self.bug == Some(PerAccessBug::NoChecksInSync)) {
                    after = Some(Stmt { kind: StmtKind::Check(vec![CheckItem { kind, target }]), line: s.line });
                }
            }
            match &mut s.kind {
                StmtKind::Sync { body, .. } => self.block(body, true, nested)?,
                StmtKind::If { then_b, else_b, .. } => {
                    self.block(then_b, in_sync, true)?;
                    self.block(else_b, in_sync, true)?;
                }
                StmtKind::While { body, .. } | StmtKind::Loop { body, .. } => self.block(body, in_sync, true)?,
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
