//! Happens-before of one trace and its data races.
//!
//! Definition (docs/design.md; docs/spec/bigfoot.md §1.2; docs/spec/escape_capsule.md §1.2): the smallest
//! transitive relation containing program order, release → later acquire of the same lock,
//! fork → every event of the child, and every event of a thread → the join of it. Capsule
//! enter/exit add no edge (escape_capsule §1.2 \[D\]); checks add none.
//!
//! Computed with vector clocks (DJIT+): each event is stamped with its thread's clock; event
//! i happens-before a later event j of another thread iff `C_i[t_i] ≤ C_j[t_i]`.
//! `tests::vc_agrees_with_closure` checks this against the transitive closure of the edges.
//!
//! Atomics and fences (docs/spec/atomics.md §2) add C++20's synchronizes-with; the clocks
//! compute it by the rules of spec §4.2, and `tests::vc_agrees_with_closure` checks them
//! against the literal definition of §2 ([`super::literal`]).
//!
//! A **data race** is a pair i < j of accesses to the same address by different threads, at
//! least one a write, not ordered by hb (docs/spec/escape_capsule.md §1.3), and at least one
//! non-atomic (docs/spec/atomics.md §0, decision 3: two atomic accesses never race). On a trace with
//! atomics, [`data_races`] uses the literal definition ([`super::literal`]): the ground truth of
//! the new rules is the one written as the standard states them; the clocks agree with it
//! on every test trace. A **check race** is
//! the same over `check` events; `typed = false` drops the write condition (BFJ's formal
//! model, docs/spec/bigfoot.md §1.3).

use crate::clock::VClock;
use crate::lang::AccessKind;
use crate::machine::*;

/// Vector-clock stamps of a trace.
#[derive(Clone, Debug)]
pub struct Hb {
    stamps: Vec<VClock>,
    threads: Vec<ThreadId>,
}

impl Hb {
    /// Stamps every event of `trace`.
    pub fn new(trace: &[Event]) -> Hb {
        let mut clocks = Clocks::default();
        let stamps = trace
            .iter()
            .map(|e| {
                clocks.before(e.thread, e.kind);
                let stamp = clocks.clock(e.thread).clone();
                clocks.after(e.thread, e.kind);
                stamp
            })
            .collect();
        Hb { stamps, threads: trace.iter().map(|e| e.thread).collect() }
    }

    /// Whether event `i` happens-before event `j` (i < j).
    pub fn ordered(&self, i: usize, j: usize) -> bool {
        assert!(i < j, "racefuzz internal bug: hb query out of order");
        let ti = self.threads[i];
        ti == self.threads[j] || self.stamps[i].get(ti) <= self.stamps[j].get(ti)
    }
}

/// A racing pair: event indices `first < second`, on `addr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Race {
    /// The earlier event.
    pub first: EventIdx,
    /// The later event.
    pub second: EventIdx,
    /// The address.
    pub addr: Addr,
}

/// Every data race of `trace`, sorted by (second, first).
pub fn data_races(trace: &[Event]) -> Vec<Race> {
    if trace.iter().any(|e| e.kind.is_atomic()) {
        let race = |(i, j): (usize, usize)| trace[j].mem_access().map(|b| Race { first: trace[i].idx, second: trace[j].idx, addr: b.addr });
        return super::literal::races(trace).into_iter().filter_map(race).collect();
    }
    races_by(trace, |e| e.access(), true)
}

/// Every data race of `trace` by the vector clocks ([`Hb`], spec §4.2 for atomics), sorted by
/// (second, first): what [`data_races`] computes on traces without atomics, and equal to it
/// on every trace (tested).
pub fn data_races_by_clocks(trace: &[Event]) -> Vec<Race> {
    let hb = Hb::new(trace);
    let acc: Vec<(usize, MemAccess)> = trace.iter().enumerate().filter_map(|(i, e)| e.mem_access().map(|a| (i, a))).collect();
    let mut out = vec![];
    for (jx, &(j, b)) in acc.iter().enumerate() {
        for &(i, a) in &acc[..jx] {
            if a.races_with(b) && trace[i].thread != trace[j].thread && !hb.ordered(i, j) {
                out.push(Race { first: trace[i].idx, second: trace[j].idx, addr: b.addr });
            }
        }
    }
    out
}

/// The cross-check of the clocks against the plain definition (design.md: an optimization is
/// checked against the plain version): [`Hb`] orders exactly the pairs that
/// `race::literal::happens_before` orders (spec §4.3), and [`data_races_by_clocks`] finds the
/// races [`data_races`] finds. The first disagreement, by event index, is the error.
pub fn clocks_agree_with_literal(trace: &[Event]) -> Result<(), String> {
    let hb = Hb::new(trace);
    for (i, row) in super::literal::happens_before(trace).iter().enumerate() {
        for (j, &ordered) in row.iter().enumerate().skip(i + 1) {
            if hb.ordered(i, j) != ordered {
                return Err(format!("events {i}, {j}: clocks say {}, the literal definition {ordered}", hb.ordered(i, j)));
            }
        }
    }
    if data_races(trace) != data_races_by_clocks(trace) {
        return Err("the race sets differ".into());
    }
    Ok(())
}

/// Every check race of `trace` (`typed`: at least one `W` check; untyped: any two checks).
pub fn check_races(trace: &[Event], typed: bool) -> Vec<Race> {
    races_by(
        trace,
        |e| match e.kind {
            EventKind::Check(k, a) => Some((k, a)),
            _ => None,
        },
        typed,
    )
}

fn races_by(trace: &[Event], sel: impl Fn(&Event) -> Option<(AccessKind, Addr)>, typed: bool) -> Vec<Race> {
    let hb = Hb::new(trace);
    let acc: Vec<(usize, AccessKind, Addr)> = trace.iter().enumerate().filter_map(|(i, e)| sel(e).map(|(k, a)| (i, k, a))).collect();
    let mut out = vec![];
    for (jx, &(j, kj, aj)) in acc.iter().enumerate() {
        for &(i, ki, ai) in &acc[..jx] {
            let conflict = !typed || ki == AccessKind::Write || kj == AccessKind::Write;
            if ai == aj && conflict && trace[i].thread != trace[j].thread && !hb.ordered(i, j) {
                out.push(Race { first: trace[i].idx, second: trace[j].idx, addr: aj });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(i: u32, t: u32, kind: EventKind) -> Event {
        Event::plain(EventIdx(i), ThreadId(t), 0, kind)
    }

    /// Transitive closure of the lock and fork/join hb edges, computed the slow way (the
    /// literal definition with atomics, `race::literal`, must agree on such traces).
    fn closure(trace: &[Event]) -> Vec<Vec<bool>> {
        let n = trace.len();
        let mut r = vec![vec![false; n]; n];
        for j in 0..n {
            for i in 0..j {
                let (a, b) = (&trace[i], &trace[j]);
                let edge = a.thread == b.thread
                    || matches!((a.kind, b.kind), (EventKind::Release(l), EventKind::Acquire(m)) if l == m)
                    || matches!(a.kind, EventKind::Fork(u) if u == b.thread)
                    || matches!(b.kind, EventKind::Join(u) if u == a.thread);
                r[i][j] = edge;
            }
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    if r[i][k] && r[k][j] {
                        r[i][j] = true;
                    }
                }
            }
        }
        r
    }

    #[test]
    fn vc_agrees_with_closure() {
        let a = Addr::Field(ObjId(0), FieldId(0));
        let l = LockId::Obj(ObjId(1));
        let trace = vec![
            ev(0, 0, EventKind::Access(AccessKind::Write, a)),
            ev(1, 0, EventKind::Fork(ThreadId(2))),
            ev(2, 1, EventKind::Acquire(l)),
            ev(3, 1, EventKind::Access(AccessKind::Write, a)),
            ev(4, 1, EventKind::Release(l)),
            ev(5, 2, EventKind::Access(AccessKind::Read, a)),
            ev(6, 0, EventKind::Acquire(l)),
            ev(7, 0, EventKind::Access(AccessKind::Read, a)),
            ev(8, 2, EventKind::Access(AccessKind::Write, a)),
            ev(9, 0, EventKind::Join(ThreadId(2))),
            ev(10, 0, EventKind::Access(AccessKind::Write, a)),
            ev(11, 1, EventKind::Access(AccessKind::Read, a)),
        ];
        let hb = Hb::new(&trace);
        let cl = closure(&trace);
        assert_eq!(upper(&cl), upper(&crate::race::literal::happens_before(&trace)), "the literal definition keeps the old edges");
        for (i, row) in cl.iter().enumerate() {
            for (j, &ordered) in row.iter().enumerate().skip(i + 1) {
                assert_eq!(hb.ordered(i, j), ordered, "pair ({i},{j})");
            }
        }
        let races: Vec<(u32, u32)> = data_races(&trace).iter().map(|r| (r.first.0, r.second.0)).collect();
        // Hand-checked: T1 is unrelated to T0 except through 4 → 6; T2 is forked after 0
        // and joined at 9.
        assert_eq!(races, vec![(0, 3), (3, 5), (3, 8), (7, 8), (0, 11), (8, 11), (10, 11)]);
        // Check races: the same definition over check events; untyped ignores R/W.
        let checks = vec![ev(0, 0, EventKind::Check(AccessKind::Read, a)), ev(1, 1, EventKind::Check(AccessKind::Read, a)), ev(2, 1, EventKind::Access(AccessKind::Write, a))];
        assert!(check_races(&checks, true).is_empty());
        assert_eq!(check_races(&checks, false).len(), 1);
        assert!(data_races(&checks).is_empty());
    }

    /// The pairs i < j of a relation.
    fn upper(r: &[Vec<bool>]) -> Vec<(usize, usize)> {
        (0..r.len()).flat_map(|j| (0..j).map(move |i| (i, j))).filter(|&(i, j)| r[i][j]).collect()
    }

    use crate::lang::Order::{self, *};
    use crate::machine::AtomicKind as K;

    fn at(k: K, f: u16) -> EventKind {
        EventKind::Atomic(k, Addr::Field(ObjId(0), FieldId(f)))
    }

    fn plain(w: bool, f: u16) -> EventKind {
        EventKind::Access(if w { AccessKind::Write } else { AccessKind::Read }, Addr::Field(ObjId(0), FieldId(f)))
    }

    fn trace_of(evs: &[(u32, EventKind)]) -> Vec<Event> {
        evs.iter().enumerate().map(|(i, &(t, k))| ev(i as u32, t, k)).collect()
    }

    /// The races of a trace as (first, second) index pairs.
    fn race_pairs(trace: &[Event]) -> Vec<(u32, u32)> {
        data_races(trace).iter().map(|r| (r.first.0, r.second.0)).collect()
    }

    /// Hand-checked traces of each sw rule (field 0 is the flag `f`, field 1 the data `d`).
    #[test]
    fn vc_agrees_with_closure_on_atomics() {
        let (d, f) = (1, 0);
        // Rule 1: MP rel/acq, the load reading the release store: no race.
        let mp = trace_of(&[(0, plain(true, d)), (0, at(K::Store(Release), f)), (1, at(K::Load(Acquire), f)), (1, plain(false, d))]);
        assert_eq!((clocks_agree_with_literal(&mp), race_pairs(&mp)), (Ok(()), vec![]));
        // Relaxed load: a race on d; the atomic pair never races.
        let mp2 = trace_of(&[(0, plain(true, d)), (0, at(K::Store(Release), f)), (1, at(K::Load(Relaxed), f)), (1, plain(false, d))]);
        assert_eq!((clocks_agree_with_literal(&mp2), race_pairs(&mp2)), (Ok(()), vec![(0, 3)]));
        // Rule 2: fence/fence.
        let ff = trace_of(&[
            (0, plain(true, d)),
            (0, EventKind::Fence(Release)),
            (0, at(K::Store(Relaxed), f)),
            (1, at(K::Load(Relaxed), f)),
            (1, EventKind::Fence(Acquire)),
            (1, plain(false, d)),
        ]);
        assert_eq!((clocks_agree_with_literal(&ff), race_pairs(&ff)), (Ok(()), vec![]));
        // Rule 3: fence/acquire load; rule 4: release store/acquire fence.
        let fa = trace_of(&[(0, plain(true, d)), (0, EventKind::Fence(Release)), (0, at(K::Store(Relaxed), f)), (1, at(K::Load(Acquire), f)), (1, plain(false, d))]);
        assert_eq!((clocks_agree_with_literal(&fa), race_pairs(&fa)), (Ok(()), vec![]));
        let af = trace_of(&[(0, plain(true, d)), (0, at(K::Store(Release), f)), (1, at(K::Load(Relaxed), f)), (1, EventKind::Fence(Acquire)), (1, plain(false, d))]);
        assert_eq!((clocks_agree_with_literal(&af), race_pairs(&af)), (Ok(()), vec![]));
        // A release sequence through another thread's relaxed RMW (L6), cut by a relaxed
        // store (L7), and by the releasing thread's own relaxed store (L8, C++20).
        let l6 = trace_of(&[(0, plain(true, d)), (0, at(K::Store(Release), f)), (1, at(K::Rmw(Relaxed), f)), (2, at(K::Load(Acquire), f)), (2, plain(false, d))]);
        assert_eq!((clocks_agree_with_literal(&l6), race_pairs(&l6)), (Ok(()), vec![]));
        let l7 = trace_of(&[(0, plain(true, d)), (0, at(K::Store(Release), f)), (1, at(K::Store(Relaxed), f)), (2, at(K::Load(Acquire), f)), (2, plain(false, d))]);
        assert_eq!((clocks_agree_with_literal(&l7), race_pairs(&l7)), (Ok(()), vec![(0, 4)]));
        let l8 = trace_of(&[(0, plain(true, d)), (0, at(K::Store(Release), f)), (0, at(K::Store(Relaxed), f)), (1, at(K::Load(Acquire), f)), (1, plain(false, d))]);
        assert_eq!((clocks_agree_with_literal(&l8), race_pairs(&l8)), (Ok(()), vec![(0, 4)]));
        // A plain write ends the release sequence and releases nothing; a failed CAS is a
        // read: it races with a plain write, not with a plain read (L13).
        let pw = trace_of(&[(0, plain(true, d)), (0, at(K::Store(Release), f)), (1, plain(true, f)), (2, at(K::Load(Acquire), f)), (2, plain(false, d))]);
        assert_eq!((clocks_agree_with_literal(&pw), race_pairs(&pw)), (Ok(()), vec![(1, 2), (2, 3), (0, 4)]));
        let cas = K::CasFailed { success: Relaxed, failure: Relaxed };
        let l13 = trace_of(&[(0, at(cas, f)), (1, plain(false, f)), (1, plain(true, f)), (0, at(cas, f))]);
        assert_eq!((clocks_agree_with_literal(&l13), race_pairs(&l13)), (Ok(()), vec![(0, 2), (2, 3)]));
        // A fence uses only its own thread's reads (L15).
        let l15 = trace_of(&[
            (0, plain(true, d)),
            (0, at(K::Store(Release), f)),
            (1, at(K::Load(Relaxed), f)),
            (1, at(K::Store(Release), 2)),
            (2, at(K::Load(Acquire), 2)),
            (2, EventKind::Fence(Acquire)),
            (2, plain(false, d)),
        ]);
        assert_eq!((clocks_agree_with_literal(&l15), race_pairs(&l15)), (Ok(()), vec![(0, 6)]));
    }

    fn order() -> impl proptest::strategy::Strategy<Value = Order> {
        proptest::sample::select(&Order::ALL[..])
    }

    fn event_kind() -> impl proptest::strategy::Strategy<Value = EventKind> {
        use proptest::prelude::*;
        let field = 0u16..3;
        prop_oneof![
            (any::<bool>(), field.clone()).prop_map(|(w, f)| plain(w, f)),
            (order(), field.clone()).prop_map(|(o, f)| at(K::Load(o), f)),
            (order(), field.clone()).prop_map(|(o, f)| at(K::Store(o), f)),
            (order(), field.clone()).prop_map(|(o, f)| at(K::Rmw(o), f)),
            (order(), order(), field).prop_map(|(success, failure, f)| at(K::CasFailed { success, failure }, f)),
            order().prop_map(EventKind::Fence),
        ]
    }

    /// Random SC traces of atomics, fences and plain accesses over three threads and
    /// three addresses (any order is an SC trace: rf and mo are read off it): the clocks and
    /// the literal definition agree (spec §4.3's test plan). Orders need not be valid ones:
    /// the rules are defined for every order.
    #[test]
    fn vc_agrees_with_closure_on_random_atomic_traces() {
        use proptest::prelude::*;
        let cfg = ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() };
        let traces = proptest::collection::vec((0u32..3, event_kind()), 0..14);
        proptest::test_runner::TestRunner::new(cfg)
            .run(&traces, |evs| {
                let t = trace_of(&evs);
                clocks_agree_with_literal(&t).map_err(|e| TestCaseError::fail(format!("{e}\n{evs:?}")))
            })
            .unwrap();
    }
}
