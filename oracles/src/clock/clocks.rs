//! The vector clocks of threads and locks as a trace unfolds (DJIT+, docs/spec/bigfoot.md §1.6).
//!
//! Happens-before (docs/design.md; docs/spec/bigfoot.md §1.2; docs/spec/escape_capsule.md §1.2) is the
//! smallest transitive relation containing program order, release → later acquire of the
//! same lock, fork → every event of the child, and every event of a thread → the join of it.
//! Each of the four edges is one method here; a caller stamps an event with its thread's
//! clock between the incoming edges (`acquire`, `join`) and the outgoing ones (`release`,
//! `fork`), which start a new epoch.
//!
//! Atomics and fences add C++20's synchronizes-with (docs/spec/atomics.md §2.3), computed by
//! the rules of docs/spec/atomics.md §4.2 over three more clocks (§4.1): `W[m]`, the sync
//! clock of the last write to address `m` (⊥ if none, or if that write was non-atomic);
//! `Frel[t]`, `C_t` at `t`'s last release fence; `Facq[t]`, the join of `W` over everything
//! `t` has read atomically. Incoming: [`Clocks::atomic_read`], [`Clocks::fence_acquire`];
//! outgoing: [`Clocks::atomic_store`], [`Clocks::atomic_rmw`], [`Clocks::plain_write`],
//! [`Clocks::fence_release`]. `race::literal` is the slow literal definition they are
//! tested against (spec §4.3).

use std::collections::BTreeMap;

use super::{ThreadId, VClock};

/// The clocks of threads, of locks of type `L`, and of the atomics on addresses of type `A`
/// (docs/spec/atomics.md §4.1; `()` where there are none).
///
/// Invariant: a thread not seen yet is at `t:1` (its own first epoch), whether it is asked
/// for ([`Clocks::clock`]) or only compared against ([`Clocks::below`]). A missing `W`,
/// `Frel` or `Facq` entry is ⊥.
#[derive(Clone, Debug)]
pub struct Clocks<L, A = ()> {
    threads: BTreeMap<ThreadId, VClock>,
    locks: BTreeMap<L, VClock>,
    /// `W[m]` (spec §4.1).
    writes: BTreeMap<A, VClock>,
    /// `Frel[t]`.
    fence_rel: BTreeMap<ThreadId, VClock>,
    /// `Facq[t]`.
    fence_acq: BTreeMap<ThreadId, VClock>,
}

impl<L, A> Default for Clocks<L, A> {
    fn default() -> Self {
        Clocks { threads: BTreeMap::new(), locks: BTreeMap::new(), writes: BTreeMap::new(), fence_rel: BTreeMap::new(), fence_acq: BTreeMap::new() }
    }
}

impl<L: Ord, A: Ord> Clocks<L, A> {
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

    /// Incoming edge of `t`'s atomic read of `m` (an atomic load, the read half of an RMW, a
    /// failed CAS; docs/spec/atomics.md §4.2): `Facq[t] ⊔= W[m]`, and if the read acquires,
    /// `C_t ⊔= W[m]` (sw rule 1, and rule 3 through `Frel ⊑ W`).
    pub fn atomic_read(&mut self, t: ThreadId, m: &A, acquires: bool) {
        let Some(w) = self.writes.get(m).cloned() else { return };
        self.fence_acq.entry(t).or_default().join(&w);
        if acquires {
            self.clock(t).join(&w);
        }
    }

    /// Outgoing edge of `t`'s atomic store to `m` (spec §4.2): a release store heads a new
    /// release sequence, `W[m] := C_t`, then `t` starts a new epoch; a relaxed one heads only
    /// a hypothetical one, `W[m] := Frel[t]` (⊥ without a release fence before it).
    pub fn atomic_store(&mut self, t: ThreadId, m: A, releases: bool) {
        if releases {
            let c = self.clock(t).clone();
            self.writes.insert(m, c);
            self.clock(t).tick(t);
        } else {
            match self.fence_rel.get(&t).cloned() {
                Some(f) => self.writes.insert(m, f),
                None => self.writes.remove(&m),
            };
        }
    }

    /// Outgoing edge of `t`'s atomic RMW of `m` (after [`Clocks::atomic_read`], spec §4.2): an
    /// RMW continues the release sequences of the write it read, and adds its own:
    /// `W[m] ⊔= C_t` (then a new epoch) if it releases, `W[m] ⊔= Frel[t]` if not.
    pub fn atomic_rmw(&mut self, t: ThreadId, m: A, releases: bool) {
        let add = if releases { Some(self.clock(t).clone()) } else { self.fence_rel.get(&t).cloned() };
        if let Some(add) = add {
            self.writes.entry(m).or_default().join(&add);
        }
        if releases {
            self.clock(t).tick(t);
        }
    }

    /// Outgoing edge of a non-atomic write of `m` (spec §1.3, §4.2): it ends every release
    /// sequence on `m` and releases nothing, `W[m] := ⊥`.
    pub fn plain_write(&mut self, m: &A) {
        self.writes.remove(m);
    }

    /// Incoming edge of `t`'s acquire fence (spec §4.2; sw rules 2 and 4): `C_t ⊔= Facq[t]`.
    pub fn fence_acquire(&mut self, t: ThreadId) {
        if let Some(f) = self.fence_acq.get(&t).cloned() {
            self.clock(t).join(&f);
        }
    }

    /// Outgoing edge of `t`'s release fence (spec §4.2): `Frel[t] := C_t`, then a new epoch.
    /// An acq_rel or seq_cst fence acquires first, so what it publishes includes what it
    /// acquired.
    pub fn fence_release(&mut self, t: ThreadId) {
        let c = self.clock(t).clone();
        self.fence_rel.insert(t, c);
        self.clock(t).tick(t);
    }
}

/// The clock of a thread before any edge reaches it: `t:1`.
fn first_epoch(t: ThreadId) -> VClock {
    let mut c = VClock::default();
    c.tick(t);
    c
}
