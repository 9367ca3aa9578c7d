//! Syntactic measures of a Naik-Aiken program: its size against the bounds of
//! docs/spec/naik_aiken.md §4.4 (statements, threads at run time with B = 2) and the shapes the
//! local-lock and local-thread stages prune (§2.5). `racefuzz gen naikaiken --stats` prints
//! them beside the ground truth of the instrumented semantics (§4.2).

use super::grammar::data_access;
use crate::lang::*;

/// Syntactic measures of a Naik-Aiken program (what `racefuzz gen naikaiken --stats` prints
/// beside the ground truth).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Shape {
    /// Statements, nested ones included.
    pub stmts: usize,
    /// `fork` statements.
    pub forks: usize,
    /// `fork` statements inside a loop (of their thread or a parent's).
    pub forks_in_loops: usize,
    /// Threads at run time, at most, when loops run at most B = 2 times (main included).
    pub threads: usize,
    /// `sync` statements.
    pub syncs: usize,
    /// The longest path of an access (fields, `x.f.g` is 2).
    pub max_path: usize,
    /// Whether some `sync(x)` body accesses `x.f….g` (the local-lock stage's shape).
    pub lock_prefix: bool,
    /// Whether some `fork(t)` body accesses `self.f….g` (the local-thread stage's shape).
    pub self_prefix: bool,
    /// Whether some `sync(x)` body assigns `x` (only under `Relax::sync_reassign`).
    pub sync_reassign: bool,
}

/// The [`Shape`] of `p`.
pub fn shape(p: &Program) -> Shape {
    fn go(b: &[Stmt], mult: usize, loops: usize, sh: &mut Shape) {
        for s in b {
            sh.stmts += 1;
            match &s.kind {
                StmtKind::Load { src: Place::Field { fields, .. }, .. }
                | StmtKind::Store { dst: Place::Field { fields, .. }, .. }
                | StmtKind::Read(Place::Field { fields, .. }) => {
                    sh.max_path = sh.max_path.max(fields.len());
                }
                StmtKind::Fork { target: ForkTarget::Block { body, this }, .. } => {
                    sh.forks += 1;
                    sh.forks_in_loops += usize::from(loops > 0);
                    sh.threads += mult;
                    if this.is_some() {
                        let mut deep = false;
                        walk_block(body, &mut |t| deep |= matches!(data_access(t), Some(("self", n)) if n >= 2));
                        sh.self_prefix |= deep;
                    }
                    go(body, mult, loops, sh);
                    continue;
                }
                StmtKind::While { body, .. } => {
                    go(body, mult * 2, loops + 1, sh);
                    continue;
                }
                StmtKind::Sync { lock, body } => {
                    sh.syncs += 1;
                    walk_block(body, &mut |t| {
                        sh.lock_prefix |= matches!(data_access(t), Some((r, n)) if r == lock && n >= 2);
                        sh.sync_reassign |= t.kind.assigned() == Some(lock.as_str());
                    });
                }
                _ => {}
            }
            for sub in s.kind.sub_blocks() {
                go(sub, mult, loops, sh);
            }
        }
    }
    let mut sh = Shape { threads: 1, ..Shape::default() };
    for t in &p.threads {
        go(t, 1, 0, &mut sh);
    }
    sh
}
