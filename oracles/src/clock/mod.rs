//! Vector clocks and the happens-before rules they compute (docs/spec/bigfoot.md §1.6, the DJIT+
//! algorithm): the one implementation of happens-before, plain and always checked.
//!
//! This is a leaf of the crate (it uses no other module), so that both the machine (CapJava's
//! `capFree` needs happens-before inside the semantics, docs/spec/escape_capsule.md §7.4) and the
//! race definitions above it (`race::Hb`) use the same clocks without a cycle.
//!
//! Two choices keep it a leaf:
//! - [`ThreadId`] is defined here, not in `machine`: a vector clock is indexed by thread, and
//!   the machine numbers its threads with the same id. The machine re-exports it, so
//!   `machine::ThreadId` is the path users write; this is where it lives.
//! - [`Clocks`] is generic over the lock identity, so it needs no machine type; the machine
//!   maps its events (acquire, release, fork, join) onto the four edges.

mod clocks;
mod vclock;

pub use clocks::Clocks;
pub use vclock::VClock;

use std::fmt;

/// A thread, numbered in creation order within one execution (0-based); the index of a
/// vector clock's entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct ThreadId(pub u32);

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}
