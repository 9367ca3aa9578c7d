//! FastTrack's atomics and fences (docs/spec/atomics.md §4): the synchronization of C++20
//! atomics on top of the thread and lock clocks of [`super::Clocks`], and the per-address
//! clocks of atomic accesses that races between atomic and non-atomic accesses need
//! (spec §4.4, last paragraph).
//!
//! The FastTrack paper treats volatiles as synchronization (a volatile write releases to
//! every later volatile read); that is join-all, which misses the release-sequence cut of
//! C++20 (spec §4.4: false negatives on L7 and L8). So every order, seq_cst included,
//! follows spec §4.2's clocks here: seq_cst adds to happens-before exactly what acq_rel
//! adds (spec §2.3, notes), and the state is spec §4.1's:
//! - `W[m]`: the sync clock of the last write to m (⊥ when none, or when it was a plain
//!   write, which ends every release sequence, spec §1.3);
//! - `Frel[t]`: `C_t` at t's last release fence; `Facq[t]`: the join of `W` over every
//!   atomic read of t so far.
//!
//! Every clock published (a release write, a release fence) is followed by a tick of the
//! publisher's entry, so an epoch `c@t` still names a stretch of t's events with the same
//! outgoing edges, and the epoch comparisons of READ and WRITE stay exact (spec
//! bigfoot.md §1.6).
//!
//! Races (spec §0 decision 3, §1.3): two conflicting accesses, at least one non-atomic. An
//! atomic access is checked against the location's plain state (`W_x`, `R_x`) and never
//! changes it; a plain access is also checked against the location's atomic clocks (each
//! thread's latest atomic read and write: program order orders its earlier ones before).
//! Two atomic accesses never race.

use std::collections::HashMap;

use race_oracles::lang::{AccessKind, Order};
use race_oracles::machine::{Addr, AtomicKind, Event, EventIdx, EventKind, ThreadId};
use race_oracles::rule_cases;
use race_oracles::theorems::rules::fire;

use super::{set_event, Clocks, FastTrackBug, Race, Reads, Shadow, Vc};

rule_cases! {
    /// The cases of FastTrack's atomics and fences (docs/spec/atomics.md §4.2, §1.3), one per
    /// row of the rule table and per kind of race between atomic and plain accesses.
    pub enum FtAtomicRule in FASTTRACK_ATOMIC_RULES = "FastTrack atomics", "atomics.md §4.2" {
        /// An atomic read whose order acquires: `C_t ⊔= W[m]` (and `Facq[t] ⊔= W[m]`).
        ReadAcquire => "atomic read, acquiring (C_t ⊔= W[m])", "§4.2 atomic read";
        /// A relaxed atomic read: `Facq[t] ⊔= W[m]` only.
        ReadRelaxed => "atomic read, relaxed (Facq[t] ⊔= W[m])", "§4.2 atomic read";
        /// A release store heads a release sequence: `W[m] := C_t`, then tick.
        StoreRelease => "release store (W[m] := C_t)", "§4.2 AStore";
        /// A relaxed store heads only a hypothetical one: `W[m] := Frel[t]`.
        StoreRelaxed => "relaxed store (W[m] := Frel[t])", "§4.2 AStore";
        /// A release RMW continues and heads: `W[m] := W[m] ⊔ C_t`, then tick.
        RmwRelease => "release RMW (W[m] ⊔= C_t)", "§4.2 ARmw";
        /// A relaxed RMW continues: `W[m] := W[m] ⊔ Frel[t]`.
        RmwRelaxed => "relaxed RMW (W[m] ⊔= Frel[t])", "§4.2 ARmw";
        /// An acquire fence: `C_t ⊔= Facq[t]`.
        FenceAcquire => "acquire fence (C_t ⊔= Facq[t])", "§4.2 Fence";
        /// A release fence: `Frel[t] := C_t`, then tick.
        FenceRelease => "release fence (Frel[t] := C_t)", "§4.2 Fence";
        /// A plain write ends every release sequence on its address: `W[m] := ⊥`.
        PlainWriteCuts => "plain write (W[m] := ⊥)", "§1.3, §4.2";
        /// An atomic access races with an earlier plain one.
        AtomicAfterPlain => "race: atomic access after a plain one", "§1.3";
        /// A plain access races with an earlier atomic one.
        PlainAfterAtomic => "race: plain access after an atomic one", "§1.3";
    }
}

/// The atomic clocks of one address: each thread's latest atomic read and write clock, and
/// the events (for explanations), by thread.
#[derive(Clone, Debug, Default)]
struct Cell {
    reads: Vc,
    read_events: Vec<Option<EventIdx>>,
    writes: Vc,
    write_events: Vec<Option<EventIdx>>,
}

/// The state spec §4.1 adds to the clocks, and the atomic clocks per address.
#[derive(Clone, Debug, Default)]
pub(crate) struct Atomics {
    /// `W[m]`; a missing entry is ⊥.
    sync: HashMap<Addr, Vc>,
    /// `Frel[t]`; missing is ⊥.
    frel: HashMap<u32, Vc>,
    /// `Facq[t]`; missing is ⊥.
    facq: HashMap<u32, Vc>,
    /// The clock of every seq_cst fence so far (the `ft-sc-fences-global` bug only).
    global: Vc,
    cells: HashMap<Addr, Cell>,
}

impl Atomics {
    /// An atomic access `ev` (of some `m`, by some `t`): its incoming edges, its race
    /// check against the plain state `s` (stamped with `C_t` between its edges, spec §4.2),
    /// its entry in `m`'s atomic clocks, and its outgoing edges.
    pub(crate) fn access(&mut self, clocks: &mut Clocks, s: &Shadow, ev: &Event, bug: Option<FastTrackBug>) -> Option<Race> {
        let EventKind::Atomic(k, m) = ev.kind else { return None };
        let (t, event, o) = (ev.thread, ev.idx, k.order());
        if k.reads() {
            let acquires = o.acquires() || (bug == Some(FastTrackBug::RelaxedLoadAcquires) && matches!(k, AtomicKind::Load(_)));
            fire(if acquires { FtAtomicRule::ReadAcquire } else { FtAtomicRule::ReadRelaxed });
            if let Some(w) = self.sync.get(&m) {
                self.facq.entry(t.0).or_default().join(w);
                if acquires {
                    clocks.clock(t).join(w);
                }
            }
        }
        // A failed CAS is a read (spec §1.3); the seeded bug checks it as a write, as
        // ThreadSanitizer does (spec §5.1, L13).
        let writes = k.writes() || (bug == Some(FastTrackBug::FailedCasWrites) && k.is_failed_cas());
        let e = clocks.epoch(t, event);
        let race = plain_race(s, clocks.clock(t), writes);
        if race.is_some() {
            fire(FtAtomicRule::AtomicAfterPlain);
        }
        let cell = self.cells.entry(m).or_default();
        if writes {
            cell.writes.set(t.0, e.clock);
            set_event(&mut cell.write_events, t.0, event);
        } else {
            cell.reads.set(t.0, e.clock);
            set_event(&mut cell.read_events, t.0, event);
        }
        match k {
            AtomicKind::Store(o) => self.store(clocks, m, t, o, bug),
            AtomicKind::Rmw(o) => self.rmw(clocks, m, t, o, bug),
            AtomicKind::Load(_) | AtomicKind::CasFailed { .. } => {}
        }
        race
    }

    /// The outgoing edge of an atomic store (spec §4.2 AStore).
    fn store(&mut self, clocks: &mut Clocks, m: Addr, t: ThreadId, o: Order, bug: Option<FastTrackBug>) {
        if o.releases() {
            fire(FtAtomicRule::StoreRelease);
            self.sync.insert(m, clocks.clock(t).clone());
            clocks.tick(t);
        } else {
            fire(FtAtomicRule::StoreRelaxed);
            // The seeded bug leaves `W[m]` alone: ThreadSanitizer's C++11-like release
            // sequences, which another thread's relaxed store does not cut (spec §2.2, L7).
            if bug == Some(FastTrackBug::RelaxedStoreKeepsSequence) {
                return;
            }
            match self.frel.get(&t.0) {
                Some(f) => self.sync.insert(m, f.clone()),
                None => self.sync.remove(&m),
            };
        }
    }

    /// The outgoing edge of an atomic RMW (spec §4.2 ARmw): it continues the release
    /// sequences of the write it read, and adds its own.
    fn rmw(&mut self, clocks: &mut Clocks, m: Addr, t: ThreadId, o: Order, bug: Option<FastTrackBug>) {
        // The seeded bug replaces `W[m]` as a store does: the release sequence ends at the RMW
        // (spec §2.2, L6).
        if bug == Some(FastTrackBug::RmwCutsSequence) {
            return self.store(clocks, m, t, o, bug);
        }
        fire(if o.releases() { FtAtomicRule::RmwRelease } else { FtAtomicRule::RmwRelaxed });
        let add = if o.releases() { Some(clocks.clock(t).clone()) } else { self.frel.get(&t.0).cloned() };
        if let Some(add) = add {
            self.sync.entry(m).or_default().join(&add);
        }
        if o.releases() {
            clocks.tick(t);
        }
    }

    /// A fence of `t` with order `o` (spec §4.2 Fence): an acq_rel or seq_cst fence acquires,
    /// then releases, so what it publishes includes what it acquired.
    pub(crate) fn fence(&mut self, clocks: &mut Clocks, t: ThreadId, o: Order, bug: Option<FastTrackBug>) {
        if bug == Some(FastTrackBug::FencesIgnored) {
            return;
        }
        if o.acquires() {
            fire(FtAtomicRule::FenceAcquire);
            if let Some(f) = self.facq.get(&t.0) {
                clocks.clock(t).join(f);
            }
        }
        // The seeded bug orders seq_cst fences by one global clock, as Miri and loom do
        // (spec §4.4, §5.3, §5.4): C++20 gives seq_cst fences no edge of their own (L12).
        if o == Order::SeqCst && bug == Some(FastTrackBug::ScFencesGlobal) {
            clocks.clock(t).join(&self.global);
            self.global.join(clocks.clock(t));
        }
        if o.releases() {
            fire(FtAtomicRule::FenceRelease);
            self.frel.insert(t.0, clocks.clock(t).clone());
            clocks.tick(t);
        }
    }

    /// A plain access of `m` by `t`: ends the release sequences on
    /// `m` if it writes (spec §1.3), and its race with an earlier atomic access of `m`, if
    /// any.
    pub(crate) fn plain(&mut self, clocks: &mut Clocks, k: AccessKind, m: Addr, t: ThreadId, bug: Option<FastTrackBug>) -> Option<Race> {
        if k == AccessKind::Write && bug != Some(FastTrackBug::PlainWriteKeepsSequence) && self.sync.remove(&m).is_some() {
            fire(FtAtomicRule::PlainWriteCuts);
        }
        let cell = self.cells.get(&m)?;
        let ct = clocks.clock(t);
        let after = |v: &Vc, evs: &[Option<EventIdx>]| -> Vec<EventIdx> {
            (0..v.0.len() as u32).filter(|&u| v.get(u) > ct.get(u)).filter_map(|u| evs.get(u as usize).copied().flatten()).collect()
        };
        let mut race = None;
        let writes = after(&cell.writes, &cell.write_events);
        if !writes.is_empty() {
            race = Some((if k == AccessKind::Write { "atomic-write/write" } else { "atomic-write/read" }, writes));
        } else if k == AccessKind::Write {
            let reads = after(&cell.reads, &cell.read_events);
            if !reads.is_empty() {
                race = Some(("atomic-read/write", reads));
            }
        }
        if race.is_some() {
            fire(FtAtomicRule::PlainAfterAtomic);
        }
        race
    }
}

/// The race of an atomic access (clock `ct`; a write or not) with the earlier
/// plain accesses of its location, `W_x` and `R_x` (spec §1.3: a race needs one plain
/// access, and these are the plain ones).
fn plain_race(s: &Shadow, ct: &Vc, writes: bool) -> Option<Race> {
    if let Some(w) = s.write.filter(|w| !w.below(ct)) {
        return Some((if writes { "write/atomic-write" } else { "write/atomic-read" }, vec![w.event]));
    }
    if !writes {
        return None;
    }
    match &s.reads {
        Reads::None => None,
        Reads::Epoch(r) => (!r.below(ct)).then(|| ("read/atomic-write", vec![r.event])),
        Reads::Shared(v, evs) => {
            let partners: Vec<EventIdx> = (0..v.0.len() as u32).filter(|&u| v.get(u) > ct.get(u)).filter_map(|u| evs.get(u as usize).copied().flatten()).collect();
            (!partners.is_empty()).then_some(("read/atomic-write", partners))
        }
    }
}

#[cfg(test)]
mod tests {
    use race_oracles::machine::{FieldId, ObjId};

    use super::super::{FastTrack, FastTrackBug};
    use super::*;
    use race_oracles::theorems::DynamicDetector;

    const D: Addr = Addr::Field(ObjId(0), FieldId(0));
    const F: Addr = Addr::Field(ObjId(0), FieldId(1));

    fn run(bug: Option<FastTrackBug>, kinds: &[(u32, EventKind)]) -> Vec<u32> {
        let mut d = FastTrack::new(bug);
        let ev = |i: usize, t: u32, k: EventKind| Event::plain(EventIdx(i as u32), ThreadId(t), 1, k);
        kinds.iter().enumerate().filter(|(i, (t, k))| d.on_event(&ev(*i, *t, *k)).is_err()).map(|(i, _)| i as u32).collect()
    }

    fn mp(store: Order, load: Order) -> [(u32, EventKind); 4] {
        [
            (0, EventKind::Access(AccessKind::Write, D)),
            (0, EventKind::Atomic(AtomicKind::Store(store), F)),
            (1, EventKind::Atomic(AtomicKind::Load(load), F)),
            (1, EventKind::Access(AccessKind::Read, D)),
        ]
    }

    /// Message passing (spec §8 L1, L2): release/acquire orders the plain accesses; relaxed
    /// does not, unless the seeded bug makes the relaxed load acquire.
    #[test]
    fn message_passing_synchronizes_only_release_to_acquire() {
        assert_eq!(run(None, &mp(Order::Release, Order::Acquire)), Vec::<u32>::new());
        assert_eq!(run(None, &mp(Order::SeqCst, Order::SeqCst)), Vec::<u32>::new());
        assert_eq!(run(None, &mp(Order::Release, Order::Relaxed)), vec![3]);
        assert_eq!(run(None, &mp(Order::Relaxed, Order::Acquire)), vec![3]);
        assert_eq!(run(Some(FastTrackBug::RelaxedLoadAcquires), &mp(Order::Release, Order::Relaxed)), Vec::<u32>::new());
    }

    /// Races between atomic and plain accesses (spec §1.3): a plain write then an
    /// unordered atomic load races, and so does an atomic store then a plain read; two
    /// atomic accesses never race, and a failed CAS is a read.
    #[test]
    fn mixed_accesses_race_and_atomic_ones_do_not() {
        let store = EventKind::Atomic(AtomicKind::Store(Order::Relaxed), F);
        let load = EventKind::Atomic(AtomicKind::Load(Order::Relaxed), F);
        let failed = EventKind::Atomic(AtomicKind::CasFailed { success: Order::Relaxed, failure: Order::Relaxed }, F);
        assert_eq!(run(None, &[(0, EventKind::Access(AccessKind::Write, F)), (1, load)]), vec![1]);
        assert_eq!(run(None, &[(0, store), (1, EventKind::Access(AccessKind::Read, F))]), vec![1]);
        assert_eq!(run(None, &[(0, store), (1, store), (1, load), (0, load)]), Vec::<u32>::new());
        assert_eq!(run(None, &[(0, EventKind::Access(AccessKind::Read, F)), (1, failed)]), Vec::<u32>::new());
        assert_eq!(run(Some(FastTrackBug::FailedCasWrites), &[(0, EventKind::Access(AccessKind::Read, F)), (1, failed)]), vec![1]);
    }
}
