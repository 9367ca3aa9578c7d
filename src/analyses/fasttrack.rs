//! FastTrack (Flanagan and Freund, PLDI 2009), the epoch/vector-clock data-race detector:
//! docs/spec/bigfoot.md §1.6, whose rules this module follows line by line (READ, WRITE, ACQ,
//! REL, FORK, JOIN). It is the precise per-access baseline of BigFoot's evaluation, and a
//! system under test of its own: `fasttrack-precise` (spec §9.1, O0) checks that on every
//! trace it reports exactly the racy locations of the ground truth.
//!
//! State: a vector clock `C_t` per thread and `L_m` per lock; per location a last-write
//! epoch `W_x` and a read state `R_x` that is an epoch, or a vector clock once reads are
//! shared (concurrent). An epoch `c@t` is `⪯ V` iff `c ≤ V[t]`; `⊥e` is below everything.
//!
//! What it reports (spec §1.6 \[D\]): the verdicts for location x depend only on the
//! operations on x and, up to the first race on x, agree with the full vector-clock
//! algorithm; processing goes on after a report, so the *set of locations with a report*
//! is exact. Racing pairs and report positions are not (so `fasttrack-precise` compares
//! location sets only).
//!
//! Events: heap accesses (`Access`), or, run on checks ([`FastTrackFactory::on_checks`]), the
//! `check` events of a placed program instead (spec §7: DynamicBF runs FastTrack's
//! operations at each field check; this is that core without footprints, proxies or
//! compression). Capsule entries and exits add no happens-before edge
//! (escape_capsule.md §1.2) and are ignored. A reentrant lock's inner release publishes a clock that the outer
//! release overwrites before anyone can acquire, so treating every release alike is exact.
//!
//! Atomics and fences (docs/spec/atomics.md §4.2) are the `atomics` submodule's part: C++20's
//! synchronization on the same thread clocks, and the per-address clocks of atomic accesses
//! that races between atomic and plain accesses need (`fasttrack-precise-atomics` judges it).
//! The seeded bugs are the `bugs` submodule's table.
//!
//! Independence from the ground truth (docs/design.md): the clocks here are this module's own;
//! nothing here calls the ground truth's race logic.

use std::collections::HashMap;

use race_oracles::lang::AccessKind;
use race_oracles::machine::{Addr, Event, EventIdx, EventKind, LockId, ThreadId};
use race_oracles::rule_cases;
use race_oracles::theorems::rules::{fire, recording};
use race_oracles::theorems::{DetectorFactory, DetectorReport, DynamicDetector, Reported};

mod atomics;
mod bugs;

use atomics::Atomics;
pub use atomics::{FtAtomicRule, FASTTRACK_ATOMIC_RULES};
pub use bugs::{FastTrackBug, SEEDED};

rule_cases! {
    /// The cases of FastTrack's rules (docs/spec/bigfoot.md §1.6), one per line of READ and WRITE
    /// that ends the rule, and one per synchronization rule.
    pub enum FtRule in FASTTRACK_RULES = "FastTrack", "bigfoot.md §1.6" {
        /// `R_x == E(t)`: the same-epoch fast path.
        ReadSameEpoch => "READ same epoch", "§1.6 READ line 1";
        /// `R_x` is a vector clock already holding `C_t[t]`.
        ReadSharedSameEpoch => "READ shared, same epoch", "§1.6 READ line 2";
        /// `W_x` not below `C_t`: a write-read race.
        ReadRace => "READ write-read race", "§1.6 READ line 3";
        /// `R_x` is a vector clock: `R_x[t] := C_t[t]`.
        ReadShared => "READ shared", "§1.6 READ line 4";
        /// `R_x` is `⊥e`: the first read of the location.
        ReadFirst => "READ first (R_x = ⊥e)", "§1.6 READ line 5";
        /// `R_x ⪯ C_t`: an exclusive read replaces the epoch.
        ReadExclusive => "READ exclusive", "§1.6 READ line 5";
        /// Concurrent reads: the epoch inflates to a vector clock.
        ReadShare => "READ share (epoch to VC)", "§1.6 READ line 6";
        /// `W_x == E(t)`: the same-epoch fast path.
        WriteSameEpoch => "WRITE same epoch", "§1.6 WRITE line 1";
        /// `W_x` not below `C_t`: a write-write race.
        WriteRace => "WRITE write-write race", "§1.6 WRITE line 2";
        /// `R_x` an epoch not below `C_t`: a read-write race.
        WriteReadRace => "WRITE read-write race (epoch)", "§1.6 WRITE line 3";
        /// `R_x` a vector clock not below `C_t`: a read-write race against shared reads.
        WriteSharedRace => "WRITE read-write race (shared)", "§1.6 WRITE line 4";
        /// Shared reads all before the write: `R_x := ⊥e`.
        WriteSharedReset => "WRITE after shared reads (R_x := ⊥e)", "§1.6 WRITE line 4";
        /// `W_x := E(t)` after every check passed or reported.
        WriteExclusive => "WRITE exclusive", "§1.6 WRITE line 5";
        /// ACQ of a lock released before: `C_t := C_t ⊔ L_m`.
        AcquireJoin => "ACQ after a release", "§1.6 ACQ";
        /// ACQ of a lock never released (`L_m = ⊥`).
        AcquireFirst => "ACQ first", "§1.6 ACQ";
        /// REL: `L_m := C_t; C_t[t] += 1`.
        Release => "REL", "§1.6 REL";
        /// FORK: `C_u := C_u ⊔ C_t; C_t[t] += 1`.
        Fork => "FORK", "§1.6 FORK";
        /// JOIN: `C_t := C_t ⊔ C_u; C_u[u] += 1`.
        Join => "JOIN", "§1.6 JOIN";
    }
}

/// Makes a fresh FastTrack per trace (with the same seeded bug and input, if any).
#[derive(Clone, Copy, Debug, Default)]
pub struct FastTrackFactory {
    /// The seeded bug.
    pub bug: Option<FastTrackBug>,
    /// Whether it runs on `check` events instead of accesses.
    pub on_checks: bool,
}

impl DetectorFactory for FastTrackFactory {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        Box::new(FastTrack { on_checks: self.on_checks, ..FastTrack::new(self.bug) })
    }
}

/// A vector clock, indexed by thread number (missing entries are 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Vc(Vec<u32>);

impl Vc {
    fn get(&self, t: u32) -> u32 {
        self.0.get(t as usize).copied().unwrap_or(0)
    }

    fn set(&mut self, t: u32, c: u32) {
        if self.0.len() <= t as usize {
            self.0.resize(t as usize + 1, 0);
        }
        self.0[t as usize] = c;
    }

    pub(crate) fn join(&mut self, o: &Vc) {
        for (t, &c) in o.0.iter().enumerate() {
            if c > self.get(t as u32) {
                self.set(t as u32, c);
            }
        }
    }

    /// `self ⊑ o`, pointwise.
    pub(crate) fn below(&self, o: &Vc) -> bool {
        self.0.iter().enumerate().all(|(t, &c)| c <= o.get(t as u32))
    }
}

/// An epoch `c@t`, with the event that set it (for explanations only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Epoch {
    clock: u32,
    thread: u32,
    event: EventIdx,
}

impl Epoch {
    /// `self ⪯ v`.
    fn below(&self, v: &Vc) -> bool {
        self.clock <= v.get(self.thread)
    }

    /// `c@t`, for explanations.
    pub(crate) fn text(&self) -> String {
        format!("{}@T{}", self.clock, self.thread)
    }
}

/// A location's read state.
#[derive(Clone, Debug, Default)]
enum Reads {
    #[default]
    None,
    Epoch(Epoch),
    /// Shared reads: each thread's last read clock, and the events (parallel, by thread).
    Shared(Vc, Vec<Option<EventIdx>>),
}

/// A race FastTrack's READ or WRITE found: its kind (`write-read`, `write-write`,
/// `read-write`) and the earlier events it holds responsible.
pub(crate) type Race = (&'static str, Vec<EventIdx>);

/// One shadow location: the last-write epoch `W_x` and the read state `R_x` (spec §1.6).
/// DynamicBF keeps one per (object, field proxy group) and per array index group; the
/// default is the initial `W_x = R_x = ⊥e`. Cloning it is how an array group's state is
/// copied into the groups it splits into (spec §5.3.1).
#[derive(Clone, Debug, Default)]
pub(crate) struct Shadow {
    write: Option<Epoch>,
    reads: Reads,
}

/// The thread and lock clocks: `C_t` per thread, created as `inc_t(⊥)` on first use, and
/// `L_m` per lock (spec §1.6), with the rules that touch them (ACQ, REL, FORK, JOIN) and
/// the per-location READ and WRITE, which read the thread's clock.
#[derive(Clone, Debug, Default)]
pub(crate) struct Clocks {
    threads: Vec<Vc>,
    locks: HashMap<LockId, Vc>,
}

impl Clocks {
    /// `C_t`, created as `inc_t(⊥)` on first use.
    fn clock(&mut self, t: ThreadId) -> &mut Vc {
        let i = t.0 as usize;
        while self.threads.len() <= i {
            let mut c = Vc::default();
            c.set(self.threads.len() as u32, 1);
            self.threads.push(c);
        }
        &mut self.threads[i]
    }

    /// `C_t`, read-only (created on first use).
    pub(crate) fn current(&mut self, t: ThreadId) -> &Vc {
        self.clock(t)
    }

    fn tick(&mut self, t: ThreadId) {
        let c = self.clock(t);
        let v = c.get(t.0) + 1;
        c.set(t.0, v);
    }

    /// `E(t)`, stamped with the event that performs the operation.
    pub(crate) fn epoch(&mut self, t: ThreadId, event: EventIdx) -> Epoch {
        Epoch { clock: self.clock(t).get(t.0), thread: t.0, event }
    }

    /// ACQ, REL, FORK or JOIN for a synchronization event (`kind`), with FastTrack's seeded
    /// clock bugs; any other event kind leaves the clocks alone.
    pub(crate) fn sync(&mut self, t: ThreadId, kind: EventKind, bug: Option<FastTrackBug>) {
        match kind {
            EventKind::Access(..) | EventKind::Check(..) | EventKind::Enter(_) | EventKind::Exit(_) => {}
            // Atomics and fences (docs/spec/atomics.md §4.2) are the `atomics` submodule's business: FastTrack
            // calls it; DynamicBF's programs have none (its placement declines them).
            EventKind::Atomic(..) | EventKind::Fence(_) => {}
            EventKind::Acquire(m) => {
                self.clock(t);
                fire(if self.locks.contains_key(&m) { FtRule::AcquireJoin } else { FtRule::AcquireFirst });
                if let (Some(lm), true) = (self.locks.get(&m), bug != Some(FastTrackBug::AcquireNoJoin)) {
                    self.threads[t.0 as usize].join(lm);
                }
            }
            EventKind::Release(m) => {
                fire(FtRule::Release);
                self.clock(t);
                // `clone_from` reuses the lock's clock buffer after the first release.
                self.locks.entry(m).or_default().clone_from(&self.threads[t.0 as usize]);
                if bug != Some(FastTrackBug::ReleaseNoTick) {
                    self.tick(t);
                }
            }
            EventKind::Fork(u) => {
                fire(FtRule::Fork);
                let ct = self.clock(t).clone();
                self.clock(u).join(&ct);
                if bug != Some(FastTrackBug::ForkNoTick) {
                    self.tick(t);
                }
            }
            EventKind::Join(u) => {
                fire(FtRule::Join);
                let cu = self.clock(u).clone();
                if bug != Some(FastTrackBug::JoinNoJoin) {
                    self.clock(t).join(&cu);
                }
                self.tick(u);
            }
        }
    }

    /// FastTrack's READ or WRITE (by `kind`) by thread `t` on shadow `s`, at `event`: the
    /// race it reports, if any. The thread's clock is borrowed, not cloned: the race-free
    /// path allocates nothing.
    pub(crate) fn access(&mut self, s: &mut Shadow, kind: AccessKind, t: ThreadId, event: EventIdx, bug: Option<FastTrackBug>) -> Option<Race> {
        let e = self.epoch(t, event);
        let ct = &self.threads[t.0 as usize];
        match kind {
            AccessKind::Read => read(s, e, ct, bug),
            AccessKind::Write => write(s, e, ct, bug),
        }
    }
}

/// READ (spec §1.6) of the thread whose epoch is `e` and clock `ct`.
fn read(s: &mut Shadow, e: Epoch, ct: &Vc, bug: Option<FastTrackBug>) -> Option<Race> {
    let t = e.thread;
    match &s.reads {
        Reads::Epoch(r) if r.clock == e.clock && r.thread == e.thread => {
            fire(FtRule::ReadSameEpoch);
            return None;
        }
        Reads::Epoch(r) if bug == Some(FastTrackBug::SameThreadSkip) && r.thread == e.thread => return None,
        Reads::Shared(v, _) if v.get(t) == e.clock => {
            fire(FtRule::ReadSharedSameEpoch);
            return None;
        }
        _ => {}
    }
    let race = s.write.filter(|w| !w.below(ct)).map(|w| ("write-read", vec![w.event]));
    if race.is_some() {
        fire(FtRule::ReadRace);
    }
    s.reads = match std::mem::take(&mut s.reads) {
        Reads::None => {
            fire(FtRule::ReadFirst);
            Reads::Epoch(e)
        }
        Reads::Shared(mut v, mut evs) => {
            fire(FtRule::ReadShared);
            v.set(t, e.clock);
            set_event(&mut evs, t, e.event);
            Reads::Shared(v, evs)
        }
        Reads::Epoch(r) if r.below(ct) => {
            fire(FtRule::ReadExclusive);
            Reads::Epoch(e)
        }
        Reads::Epoch(r) => {
            fire(FtRule::ReadShare);
            let (mut v, mut evs) = (Vc::default(), vec![]);
            v.set(r.thread, r.clock);
            set_event(&mut evs, r.thread, r.event);
            v.set(t, e.clock);
            set_event(&mut evs, t, e.event);
            Reads::Shared(v, evs)
        }
    };
    race
}

/// WRITE (spec §1.6) of the thread whose epoch is `e` and clock `ct`.
fn write(s: &mut Shadow, e: Epoch, ct: &Vc, bug: Option<FastTrackBug>) -> Option<Race> {
    if s.write.is_some_and(|w| w.clock == e.clock && w.thread == e.thread) {
        fire(FtRule::WriteSameEpoch);
        return None;
    }
    let mut race = s.write.filter(|w| !w.below(ct)).map(|w| ("write-write", vec![w.event]));
    if race.is_some() {
        fire(FtRule::WriteRace);
    }
    match &s.reads {
        Reads::None => {}
        Reads::Epoch(r) => {
            if race.is_none() && !r.below(ct) {
                fire(FtRule::WriteReadRace);
                race = Some(("read-write", vec![r.event]));
            }
        }
        Reads::Shared(v, evs) => {
            // One comparison of the shared reads with `C_t` on the campaign's path; with a
            // write-write race already reported, only rule coverage needs it.
            if race.is_none() {
                if v.below(ct) {
                    fire(FtRule::WriteSharedReset);
                } else {
                    fire(FtRule::WriteSharedRace);
                    let partners = (0..v.0.len() as u32).filter(|&u| v.get(u) > ct.get(u)).filter_map(|u| evs.get(u as usize).copied().flatten()).collect();
                    race = Some(("read-write", partners));
                }
            } else if recording() && v.below(ct) {
                fire(FtRule::WriteSharedReset);
            }
            if bug != Some(FastTrackBug::SharedReadsKept) {
                s.reads = Reads::None;
            }
        }
    }
    fire(FtRule::WriteExclusive);
    s.write = Some(e);
    race
}

/// The FastTrack detector over one trace (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct FastTrack {
    bug: Option<FastTrackBug>,
    /// Runs on `check` events, ignoring accesses.
    on_checks: bool,
    clocks: Clocks,
    /// The atomics' clocks (docs/spec/atomics.md §4.1) and per-address atomic clocks.
    atomics: Atomics,
    shadows: HashMap<Addr, Shadow>,
    /// Why each reported event was reported: the kind of race and the partners.
    reports: HashMap<EventIdx, Race>,
    /// Shadow operations: one per access (or check) event processed, the "same epoch" fast
    /// paths included, so that per-access checking's ratio is exactly 1 (spec §7.2).
    operations: u64,
}

impl FastTrack {
    /// A fresh detector on accesses, with a seeded bug or not.
    pub fn new(bug: Option<FastTrackBug>) -> FastTrack {
        FastTrack { bug, ..FastTrack::default() }
    }
}

fn set_event(evs: &mut Vec<Option<EventIdx>>, t: u32, e: EventIdx) {
    if evs.len() <= t as usize {
        evs.resize(t as usize + 1, None);
    }
    evs[t as usize] = Some(e);
}

impl DynamicDetector for FastTrack {
    fn on_event(&mut self, e: &Event) -> Result<(), Reported> {
        let race = match (e.kind, self.on_checks) {
            (EventKind::Access(k, x), false) | (EventKind::Check(k, x), true) => {
                self.operations += 1;
                let s = self.shadows.entry(x).or_default();
                let race = self.clocks.access(s, k, e.thread, e.idx, self.bug);
                // After the plain check, which may take a same-epoch fast path: the atomic
                // clocks are checked anyway, and a plain write ends the release sequences.
                let atomic = self.atomics.plain(&mut self.clocks, k, x, e.thread, self.bug);
                race.or(atomic)
            }
            (EventKind::Atomic(_, x), false) => {
                self.operations += 1;
                let s = self.shadows.entry(x).or_default();
                self.atomics.access(&mut self.clocks, s, e, self.bug)
            }
            (EventKind::Fence(o), _) => {
                self.atomics.fence(&mut self.clocks, e.thread, o, self.bug);
                None
            }
            (kind, _) => {
                self.clocks.sync(e.thread, kind, self.bug);
                None
            }
        };
        match race {
            Some(r) => {
                self.reports.insert(e.idx, r);
                Err(Reported)
            }
            None => Ok(()),
        }
    }

    fn name(&self) -> String {
        if self.on_checks { "FastTrack on checks" } else { "FastTrack" }.into()
    }

    fn shadow_operations(&self) -> Option<u64> {
        Some(self.operations)
    }

    fn explain(&self, _trace: &[Event], at: EventIdx) -> DetectorReport {
        match self.reports.get(&at) {
            Some((kind, partners)) => DetectorReport {
                at,
                partners: partners.clone(),
                reason: format!("FastTrack: {kind} race (the earlier access's epoch is not ⪯ the thread's clock)"),
                locations: vec![],
            },
            None => DetectorReport { at, partners: vec![], reason: "FastTrack reported nothing here".into(), locations: vec![] },
        }
    }
}

#[cfg(test)]
mod tests {
    use race_oracles::machine::{FieldId, ObjId};

    use super::*;

    const X: Addr = Addr::Field(ObjId(0), FieldId(0));
    const M: LockId = LockId::Obj(ObjId(1));

    fn ev(i: u32, t: u32, kind: EventKind) -> Event {
        Event::plain(EventIdx(i), ThreadId(t), 1, kind)
    }

    fn run(bug: Option<FastTrackBug>, kinds: &[(u32, EventKind)]) -> Vec<u32> {
        let mut d = FastTrack::new(bug);
        kinds.iter().enumerate().filter(|(i, (t, k))| d.on_event(&ev(*i as u32, *t, *k)).is_err()).map(|(i, _)| i as u32).collect()
    }

    const R: EventKind = EventKind::Access(AccessKind::Read, X);
    const W: EventKind = EventKind::Access(AccessKind::Write, X);

    #[test]
    fn unordered_conflicts_race_and_locked_ones_do_not() {
        assert_eq!(run(None, &[(0, W), (1, R)]), vec![1]);
        assert_eq!(run(None, &[(0, R), (1, W)]), vec![1]);
        assert_eq!(run(None, &[(0, R), (1, R)]), Vec::<u32>::new());
        let locked = [(0, EventKind::Acquire(M)), (0, W), (0, EventKind::Release(M)), (1, EventKind::Acquire(M)), (1, W), (1, EventKind::Release(M))];
        assert_eq!(run(None, &locked), Vec::<u32>::new());
        // The seeded bugs break exactly that.
        assert_eq!(
            run(Some(FastTrackBug::ReleaseNoTick), &[(0, EventKind::Acquire(M)), (0, EventKind::Release(M)), (0, W), (1, EventKind::Acquire(M)), (1, W)]),
            Vec::<u32>::new()
        );
        assert_eq!(run(Some(FastTrackBug::AcquireNoJoin), &locked), vec![4]);
    }

    #[test]
    fn shared_reads_are_checked_by_a_later_write_then_forgotten() {
        // T0 and T1 read concurrently (shared), T2 writes after neither: a read-write race
        // with both readers as partners.
        let mut d = FastTrack::new(None);
        let trace = [ev(0, 0, R), ev(1, 1, R), ev(2, 2, W)];
        let got: Vec<bool> = trace.iter().map(|e| d.on_event(e).is_err()).collect();
        assert_eq!(got, [false, false, true]);
        assert_eq!(d.explain(&trace, EventIdx(2)).partners, vec![EventIdx(0), EventIdx(1)]);
        // Fork orders the parent's earlier accesses before the child's.
        assert_eq!(run(None, &[(0, W), (0, EventKind::Fork(ThreadId(1))), (1, W), (1, R)]), Vec::<u32>::new());
        assert_eq!(run(None, &[(1, W), (0, EventKind::Join(ThreadId(1))), (0, W)]), Vec::<u32>::new());
        // The parent's write after the fork races with the child's, unless FORK forgets to
        // tick; the joiner's write after the join does not, unless JOIN forgets to join.
        let after_fork = [(0, EventKind::Fork(ThreadId(1))), (0, W), (1, W)];
        assert_eq!(run(None, &after_fork), vec![2]);
        assert_eq!(run(Some(FastTrackBug::ForkNoTick), &after_fork), Vec::<u32>::new());
        assert_eq!(run(Some(FastTrackBug::JoinNoJoin), &[(1, W), (0, EventKind::Join(ThreadId(1))), (0, W)]), vec![2]);
    }
}
