//! Dialect validators: each rejects what its paper's theorem assumes away, naming the assumption.
//!
//! | dialect | paper | what is rejected |
//! |---|---|---|
//! | `racerdx` | [Gorogiannis et al. 2019], docs/spec/racerdx.md §1.2 | A1 (classes, ints, arrays), A2 (several locks, unbalanced `lock`/`unlock`, threads), A3 (formal names, use before assignment), A5 (recursion, return values), A6 (data-dependent conditions), ANF (Def. 5.12) |
//! | `bfj` | [Rhodes 2019] ch. 3, docs/spec/bigfoot.md §2, §10 | the global lock, fork/join (tier 2, outside Thm 3.9.4, A2), recursion (A11), methods assigning their parameters (A10), `x = x.f` (A9) |
//! | `bfj2` | docs/spec/bigfoot.md A2 (tier 2) | as `bfj`, but `fork` and `join` are allowed |
//! | `simplejava` | [Rhodes 2019] ch. 4, docs/spec/escape_capsule.md §2 | globals/`init`, several initial threads, arrays, `join`, the global lock, receiver-less calls, capsules |
//! | `capjava` | [Rhodes 2019] ch. 5, docs/spec/escape_capsule.md §7 | as `simplejava`, but capsule classes are allowed |
//! | `ldrf` | [Mukherjee et al. 2017], docs/spec/ldrf.md §1.1, §6.4 | classes, methods, `init`, heap and object statements, `join`, `fork`, `break`, assume/branch conditions on shared variables, lock names used as variables, locks acquired while held |
//! | `naikaiken` | [Naik-Aiken 2007], docs/spec/naik_aiken.md §4.1, §4.4 | classes, methods, `init`, several initial threads, conditions other than `*`, ints other than data writes, explicit locks, `join`, duplicate site or loop labels, unlabelled loops or allocations, a `sync` variable assigned in its body, `self` outside `fork(x)` or assigned |
//!
//! One file per dialect (`racerdx`, `bfj`, `java` for SimpleJava and CapJava), each with
//! its deviations from the paper; `common` holds the checks every dialect makes, and
//! `declared` those of the names a class declares (fields, methods) wherever a receiver's
//! class is known. The checks
//! are methods of one `Validator`, whose helpers (`forbid`, `fail`) name the assumption.

use std::fmt;

use super::ast::*;

mod bfj;
mod common;
mod declared;
mod java;
pub mod ldrf;
pub mod naikaiken;
mod racerdx;

/// A program outside its dialect's assumptions.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct DialectError {
    /// The dialect whose assumption failed.
    pub dialect: Dialect,
    /// The assumption's name in the paper (`A2`, `ANF`, …).
    pub assumption: &'static str,
    /// What is wrong and where.
    pub message: String,
    /// Source line, when one statement is to blame.
    pub line: Option<u32>,
}

impl fmt::Display for DialectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} dialect, {}: {}", self.dialect, self.assumption, self.message)?;
        if let Some(l) = self.line {
            write!(f, " (line {l})")?;
        }
        Ok(())
    }
}

/// Assumptions a caller may ask to skip, to study what happens without them (seeded bugs
/// such as `unlock-clamp-unbalanced` feed programs outside A2 to an oracle on purpose).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Relax {
    /// Skip RacerDX's balanced-locking check (A2 as refined in §5.2.1).
    pub balanced_locking: bool,
    /// Skip Naik-Aiken's A5: a `sync` variable may be assigned in its body (docs/spec/naik_aiken.md
    /// A5 suggests such programs as a mutation test of the lock-prefix reasoning).
    pub sync_reassign: bool,
}

/// Checks `p` against the assumptions of its dialect (and program-wide well-formedness).
///
/// # Errors
/// The first violated assumption, in source order.
pub fn validate(p: &Program) -> Result<(), DialectError> {
    validate_relaxed(p, Relax::default())
}

/// [`validate`], skipping the assumptions `relax` names.
///
/// # Errors
/// The first violated assumption that is not skipped.
pub fn validate_relaxed(p: &Program, relax: Relax) -> Result<(), DialectError> {
    let v = Validator { p, d: p.dialect, relax };
    v.common()?;
    v.declared()?;
    match p.dialect {
        Dialect::RacerDx => v.racerdx(),
        Dialect::Bfj => v.bfj(false),
        Dialect::Bfj2 => v.bfj(true),
        Dialect::SimpleJava | Dialect::CapJava => v.simplejava(),
        Dialect::NaikAiken => v.naikaiken(),
        Dialect::Ldrf => v.ldrf(),
    }
}

/// Whether a call or fork passes a heap path as an actual (RacerDX only).
fn has_path_actual(k: &StmtKind) -> bool {
    match k {
        StmtKind::Call { args, .. } | StmtKind::Fork { target: ForkTarget::Call { args, .. }, .. } => args.iter().any(|a| matches!(a, Expr::Path(_))),
        _ => false,
    }
}

/// One validation of one program: the per-dialect checks are its methods, in the dialect's
/// module.
struct Validator<'a> {
    p: &'a Program,
    d: Dialect,
    relax: Relax,
}

/// The result of a check: the first violated assumption.
type VResult = Result<(), DialectError>;

impl<'a> Validator<'a> {
    /// A violation of `assumption` (the paper's name), with a message and a line.
    fn fail(&self, assumption: &'static str, message: String, line: Option<Line>) -> VResult {
        Err(DialectError { dialect: self.d, assumption, message, line: line.map(|l| l.0) })
    }

    /// Every statement of the program with the name of its enclosing method or thread.
    fn bodies(&self) -> Vec<(String, &'a Block)> {
        let mut out: Vec<(String, &Block)> = self.p.all_methods().map(|(_, m)| (format!("method {}", m.name), &m.body)).collect();
        if let Some(i) = &self.p.init {
            out.push(("init".into(), i));
        }
        for (k, t) in self.p.threads.iter().enumerate() {
            out.push((format!("thread T{}", k + 1), t));
        }
        out
    }

    /// The first statement, in source order, whose kind satisfies `pred`.
    fn any_stmt(&self, pred: impl Fn(&StmtKind) -> bool) -> Option<(String, &'a Stmt)> {
        for (owner, b) in self.bodies() {
            let mut found = None;
            walk_block(b, &mut |s| {
                if found.is_none() && pred(&s.kind) {
                    found = Some(s);
                }
            });
            if let Some(s) = found {
                return Some((owner, s));
            }
        }
        None
    }

    /// Rejects every statement whose kind satisfies `pred`, as a violation of `assumption`.
    fn forbid(&self, assumption: &'static str, what: &str, pred: impl Fn(&StmtKind) -> bool) -> VResult {
        if let Some((owner, s)) = self.any_stmt(pred) {
            return self.fail(assumption, format!("{what}, in {owner}"), Some(s.line));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    /// The violation `src` has: (assumption, line), and the message.
    pub(super) fn violation(src: &str) -> Option<(&'static str, Option<u32>, String)> {
        let e = validate(&parse(src).unwrap()).err()?;
        Some((e.assumption, e.line, e.message))
    }

    #[test]
    fn errors_name_the_dialect_the_assumption_and_the_line() {
        let e = validate(&parse("dialect bfj\nthread { lock }\n").unwrap()).unwrap_err();
        assert_eq!(e.to_string(), "bfj dialect, BFJ: BFJ has per-object locks only; use `acq(x)`/`rel(x)` instead of `lock`/`unlock`, in thread T1 (line 2)");
        assert_eq!(violation("dialect bfj\nthread { skip }\n"), None);
    }

    #[test]
    fn relax_skips_only_what_it_names() {
        let p = parse("dialect racerdx\nmethod m(arg1) { lock }\n").unwrap();
        assert_eq!(validate(&p).unwrap_err().assumption, "A2");
        assert_eq!(validate_relaxed(&p, Relax { balanced_locking: true, ..Relax::default() }), Ok(()));
    }
}
