//! The vector clocks of threads and locks as a trace unfolds (DJIT+, docs/spec/bigfoot.md §1.6).
//!
//! Happens-before (docs/design.md; docs/spec/bigfoot.md §1.2; docs/spec/escape_capsule.md §1.2) is the
//! smallest transitive relation containing program order, release → later acquire of the
//! same lock, fork → every event of the child, and every event of a thread → the join of it.
//! Each of the four edges is one method here; a caller stamps an event with its thread's
//! clock between the incoming edges (`acquire`, `join`) and the outgoing ones (`release`,
//! `fork`), which start a new epoch.

use std::collections::BTreeMap;

use super::{ThreadId, VClock};

/// The clocks of threads and of locks of type `L`.
///
/// Invariant: a thread not seen yet is at `t:1` (its own first epoch), whether it is asked
/// for ([`Clocks::clock`]) or only compared against ([`Clocks::below`]).
#[derive(Clone, Debug)]
pub struct Clocks<L> {
    threads: BTreeMap<ThreadId, VClock>,
    locks: BTreeMap<L, VClock>,
}

impl<L> Default for Clocks<L> {
    fn default() -> Self {
        Clocks { threads: BTreeMap::new(), locks: BTreeMap::new() }
    }
}

impl<L: Ord> Clocks<L> {
    /// Thread `t`'s clock (a thread not seen yet starts at `t:1`).
    pub fn clock(&mut self, t: ThreadId) -> &mut VClock {
        self.threads.entry(t).or_insert_with(|| first_epoch(t))
    }

    /// Whether `v ⊑ C_t`, without creating `C_t` (a thread not seen yet is at `t:1`).
    pub fn below(&self, v: &VClock, t: ThreadId) -> bool {
        match self.threads.get(&t) {
            Some(c) => v.le(c),
            None => v.le(&first_epoch(t)),
        }
    }

    /// Incoming edge of `t`'s acquire of `l`: `C_t := C_t ⊔ L_l` (a lock never released adds
    /// nothing).
    pub fn acquire(&mut self, t: ThreadId, l: &L) {
        if let Some(lc) = self.locks.get(l).cloned() {
            self.clock(t).join(&lc);
        }
    }

    /// Incoming edge of `t`'s join of the finished thread `u`: `C_t := C_t ⊔ C_u`.
    pub fn join(&mut self, t: ThreadId, u: ThreadId) {
        let child = self.clock(u).clone();
        self.clock(t).join(&child);
    }

    /// Outgoing edge of `t`'s release of `l`: `L_l := C_t`, then `t` starts a new epoch.
    pub fn release(&mut self, t: ThreadId, l: L) {
        let c = self.clock(t).clone();
        self.locks.insert(l, c);
        self.clock(t).tick(t);
    }

    /// Outgoing edge of `t`'s fork of `u`: `C_u := C_u ⊔ C_t`, and `t` starts a new epoch.
    pub fn fork(&mut self, t: ThreadId, u: ThreadId) {
        let parent = self.clock(t).clone();
        self.clock(t).tick(t);
        self.clock(u).join(&parent);
    }
}

/// The clock of a thread before any edge reaches it: `t:1`.
fn first_epoch(t: ThreadId) -> VClock {
    let mut c = VClock::default();
    c.tick(t);
    c
}
