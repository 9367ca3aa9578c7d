//! Precise checks (docs/spec/bigfoot.md §3.1, with the read/write extension of §3.3): the
//! property of a trace under which its check races and its data races are on the same
//! locations (Theorem 3.9.1), and which BigFoot's placement guarantees on every terminated
//! trace (Theorem 3.9.2).
//!
//! For a check `c` and an access `a` by the same thread on the same location:
//! - `c` **covers** `a` iff `c` precedes `a` with no release by the thread between them, or
//!   follows it with no acquire between them; and the kinds fit: a write check covers any
//!   access, a read check only a read;
//! - `c` is **legitimate for** `a` iff `c` precedes `a` with no acquire between them, or
//!   follows it with no release between them; and a write check is legitimate only for a
//!   write, a read check for either.
//!
//! A trace has precise checks iff every access has a covering check and every check is
//! legitimate for some access. "Release" and "acquire" are of *any* lock (§3.1 notes: the
//! thesis's "no intervening rel(l)" is a typo). Forks and joins are sources and sinks of
//! happens-before edges too, so they count as a release and an acquire; BFJ has neither.

use crate::lang::AccessKind;
use crate::machine::{Addr, Event, EventIdx, EventKind, ThreadId};

/// Why a trace does not have precise checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Imprecision {
    /// An access with no covering check.
    Uncovered(EventIdx),
    /// A check legitimate for no access.
    Illegitimate(EventIdx),
}

/// An access or a check of one thread: its position among the thread's events, its kind
/// and its location.
type Site = (usize, AccessKind, Addr);

/// One thread's events of a trace, with what the relations of §3.1 need: how many releases
/// and acquires precede each event (forks count as releases, joins as acquires).
struct Windows<'t> {
    mine: Vec<&'t Event>,
    rels: Vec<usize>,
    acqs: Vec<usize>,
    accesses: Vec<Site>,
    checks: Vec<Site>,
}

impl<'t> Windows<'t> {
    /// Every thread's windows of `trace`, by thread id.
    fn of(trace: &'t [Event]) -> Vec<Windows<'t>> {
        let mut threads: Vec<ThreadId> = trace.iter().map(|e| e.thread).collect();
        threads.sort_unstable();
        threads.dedup();
        threads.into_iter().map(|t| Windows::of_thread(trace, t)).collect()
    }

    fn of_thread(trace: &'t [Event], t: ThreadId) -> Windows<'t> {
        let mine: Vec<&Event> = trace.iter().filter(|e| e.thread == t).collect();
        // Releases and acquires among the thread's first k events.
        let (mut rels, mut acqs) = (vec![0usize], vec![0usize]);
        for e in &mine {
            let (r, a) = match e.kind {
                EventKind::Release(_) | EventKind::Fork(_) => (1, 0),
                EventKind::Acquire(_) | EventKind::Join(_) => (0, 1),
                _ => (0, 0),
            };
            rels.push(rels[rels.len() - 1] + r);
            acqs.push(acqs[acqs.len() - 1] + a);
        }
        let accesses = mine.iter().enumerate().filter_map(|(i, e)| e.access().map(|(k, a)| (i, k, a))).collect();
        let checks = mine
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e.kind {
                EventKind::Check(k, a) => Some((i, k, a)),
                _ => None,
            })
            .collect();
        Windows { mine, rels, acqs, accesses, checks }
    }

    /// No release (`count` = rels) or acquire (acqs) strictly between the thread's events i and j.
    fn none_between(count: &[usize], i: usize, j: usize) -> bool {
        let (lo, hi) = if i < j { (i, j) } else { (j, i) };
        count[hi] == count[lo + 1]
    }

    fn covers(&self, c: &Site, a: &Site) -> bool {
        c.2 == a.2
            && (c.1 == AccessKind::Write || a.1 == AccessKind::Read)
            && if c.0 < a.0 { Self::none_between(&self.rels, c.0, a.0) } else { Self::none_between(&self.acqs, a.0, c.0) }
    }

    fn legitimate(&self, c: &Site, a: &Site) -> bool {
        c.2 == a.2
            && (c.1 == AccessKind::Read || a.1 == AccessKind::Write)
            && if c.0 < a.0 { Self::none_between(&self.acqs, c.0, a.0) } else { Self::none_between(&self.rels, a.0, c.0) }
    }

    fn idx(&self, s: &Site) -> EventIdx {
        self.mine[s.0].idx
    }
}

/// Every imprecision of `trace`, in trace order (empty: the trace has precise checks).
pub fn imprecisions(trace: &[Event]) -> Vec<Imprecision> {
    let mut out = vec![];
    for w in Windows::of(trace) {
        out.extend(w.accesses.iter().filter(|a| !w.checks.iter().any(|c| w.covers(c, a))).map(|a| Imprecision::Uncovered(w.idx(a))));
        out.extend(w.checks.iter().filter(|c| !w.accesses.iter().any(|a| w.legitimate(c, a))).map(|c| Imprecision::Illegitimate(w.idx(c))));
    }
    out.sort_by_key(|i| match i {
        Imprecision::Uncovered(e) | Imprecision::Illegitimate(e) => e.0,
    });
    out
}

/// Each check event of `trace` with the accesses it covers, in trace order.
pub fn coverage(trace: &[Event]) -> Vec<(EventIdx, Vec<EventIdx>)> {
    let mut out: Vec<(EventIdx, Vec<EventIdx>)> =
        Windows::of(trace).iter().flat_map(|w| w.checks.iter().map(move |c| (w.idx(c), w.accesses.iter().filter(|a| w.covers(c, a)).map(|a| w.idx(a)).collect()))).collect();
    out.sort_by_key(|(c, _)| *c);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::{FieldId, LockId, ObjId};

    const X: Addr = Addr::Field(ObjId(0), FieldId(0));
    const M: LockId = LockId::Obj(ObjId(1));

    fn trace(kinds: &[EventKind]) -> Vec<Event> {
        kinds.iter().enumerate().map(|(i, &kind)| Event::plain(EventIdx(i as u32), ThreadId(0), 1, kind)).collect()
    }

    use AccessKind::{Read as R, Write as W};

    #[test]
    fn windows_of_spec_9_2() {
        let (acc, chk) = (|k| EventKind::Access(k, X), |k| EventKind::Check(k, X));
        let (acq, rel) = (EventKind::Acquire(M), EventKind::Release(M));
        // Row 1: a check moved past an acquire no longer covers the access (it is still
        // legitimate: no release between).
        assert_eq!(imprecisions(&trace(&[acc(W), acq, chk(W), rel])), vec![Imprecision::Uncovered(EventIdx(0))]);
        // Row 3: hoisted above an acquire, it covers but is not legitimate.
        assert_eq!(imprecisions(&trace(&[chk(W), acq, acc(W), rel])), vec![Imprecision::Illegitimate(EventIdx(0))]);
        // Row 4: deferred past a release, legitimate no more.
        assert_eq!(imprecisions(&trace(&[acq, acc(W), rel, chk(W)])), vec![Imprecision::Illegitimate(EventIdx(3))]);
        // Row 6: a read anticipated across a release, checked after the later write.
        assert_eq!(imprecisions(&trace(&[acq, acc(R), rel, acc(W), chk(W)])), vec![]);
        // Rows 9 and 10: the kinds.
        assert_eq!(imprecisions(&trace(&[acc(R), chk(W)])), vec![Imprecision::Illegitimate(EventIdx(1))]);
        assert_eq!(imprecisions(&trace(&[acc(W), chk(R)])), vec![Imprecision::Uncovered(EventIdx(0))]);
    }

    #[test]
    fn a_check_covers_the_accesses_of_its_window_whose_kind_fits() {
        let (acc, chk) = (|k| EventKind::Access(k, X), |k| EventKind::Check(k, X));
        let (acq, rel) = (EventKind::Acquire(M), EventKind::Release(M));
        // The write check covers the read before it and the write after it up to the
        // release; the read check at the end covers the reads only (kinds), across the
        // release since a later check needs no acquire between.
        let t = trace(&[acc(R), chk(W), acc(W), rel, acc(R), acc(W), chk(R)]);
        assert_eq!(coverage(&t), vec![(EventIdx(1), vec![EventIdx(0), EventIdx(2)]), (EventIdx(6), vec![EventIdx(0), EventIdx(4)])]);
        assert_eq!(imprecisions(&t), vec![Imprecision::Uncovered(EventIdx(5))]);
        assert_eq!(coverage(&trace(&[acq, acc(W), rel])), vec![]);
    }
}
