//! What a dialect violation is ([`DialectError`]: the dialect, the paper's name for the
//! assumption, what and where) and which assumptions a caller may lift on purpose
//! ([`Relax`]). The checks themselves are in `dialect`.

use std::fmt;

use super::ast::Dialect;

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
}
