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
//! A **data race** is a pair i < j of accesses to the same address by different threads, at
//! least one a write, not ordered by hb (docs/spec/escape_capsule.md §1.3). A **check race** is
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
    races_by(trace, |e| e.access(), true)
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

    /// Transitive closure of the hb edges, computed the slow way.
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
}
