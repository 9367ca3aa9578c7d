//! The seam for static check placement (BigFoot, docs/spec/bigfoot.md §4–5): a placer takes a
//! program without checks and returns it with `check(…)` statements inserted (and, for
//! BigFoot, coalesced), which the machine executes as `Check` events. The oracle
//! `bigfoot-precise` (Theorem 3.9.4) arrives with the BigFoot issue: it runs the placed
//! program under a [`super::DetectorFactory`] and compares the racy locations with
//! per-access checking on every trace.

use crate::lang::Program;

/// A placement the placer cannot make, naming the construct (exit 2 when the program is the
/// user's; an internal bug when a generator produced it).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{placer} cannot place checks at line {line}: {reason}")]
pub struct PlaceError {
    /// Which placer.
    pub placer: String,
    /// The statement's line.
    pub line: u32,
    /// Why.
    pub reason: String,
}

/// A static check placer under test. Two required methods.
pub trait CheckPlacer {
    /// A short name for messages (`BigFoot`).
    fn name(&self) -> String;

    /// The program with checks placed.
    ///
    /// # Errors
    /// [`PlaceError`] for a construct the placer does not handle.
    fn place(&self, p: &Program) -> Result<Program, PlaceError>;
}
