//! Happens-before of one SC trace, the slow literal way (docs/spec/atomics.md §2): the
//! candidate execution the trace denotes (sb, rf, mo; §2.1), C++20 release sequences (§2.2),
//! the four synchronizes-with rules (§2.3) plus locks, fork and join, and the transitive
//! closure `hb = (sb ∪ sw)⁺`, as a boolean matrix.
//!
//! Nothing here is clever: each rule is written as the standard states it, over every pair
//! of events, and the closure is Floyd–Warshall. It is the reference the vector clocks of §4
//! ([`super::Hb`], `clock::Clocks`) are tested against (`hb::tests`, `tests/explore.rs` on
//! every trace of the §8 litmus tests), and the definition [`super::data_races`] uses on a
//! trace with atomics (those traces are small: the cost is O(n³) per trace).
//!
//! Two accesses race when they conflict (same address, one writes), at least one is
//! non-atomic (§0, decision 3), they are in different threads and neither happens-before the other.

use crate::machine::{AtomicKind, Event, EventKind};

/// The happens-before matrix of `trace`: `hb[i][j]` for i < j iff event i happens-before
/// event j (the relation is computed for i < j only: in an SC trace every edge points
/// forward, §2.3, which [`happens_before`] asserts).
pub fn happens_before(trace: &[Event]) -> Vec<Vec<bool>> {
    let n = trace.len();
    let rf = reads_from(trace);
    let mut r = vec![vec![false; n]; n];
    for (a, row) in r.iter_mut().enumerate() {
        for (b, cell) in row.iter_mut().enumerate() {
            if a == b {
                continue;
            }
            let s = sw(trace, &rf, a, b);
            assert!(!s || a < b, "racefuzz internal bug: a synchronizes-with edge points backward in an SC trace (docs/spec/atomics.md §2.3)");
            *cell = a < b && (s || sb(trace, a, b) || old_edge(&trace[a], &trace[b]));
        }
    }
    for k in 0..n {
        let via = r[k].clone();
        for row in r.iter_mut() {
            if row[k] {
                for (cell, &kj) in row.iter_mut().zip(&via) {
                    *cell |= kj;
                }
            }
        }
    }
    r
}

/// Every (i, j), i < j, of racing memory accesses (§0 (decision 3), §1.3), in (j, i) order.
pub fn races(trace: &[Event]) -> Vec<(usize, usize)> {
    let hb = happens_before(trace);
    let mut out = vec![];
    for j in 0..trace.len() {
        for i in 0..j {
            let (Some(a), Some(b)) = (trace[i].mem_access(), trace[j].mem_access()) else { continue };
            if a.races_with(b) && trace[i].thread != trace[j].thread && !hb[i][j] {
                out.push((i, j));
            }
        }
    }
    out
}

/// sb: program order, the order of events within one thread.
fn sb(trace: &[Event], a: usize, b: usize) -> bool {
    a < b && trace[a].thread == trace[b].thread
}

/// The edges that existed before atomics: a lock release → a later acquire of the same
/// lock; a fork → every event of the child; every event of a thread → its join.
fn old_edge(a: &Event, b: &Event) -> bool {
    a.idx < b.idx
        && (matches!((a.kind, b.kind), (EventKind::Release(l), EventKind::Acquire(m)) if l == m)
            || matches!(a.kind, EventKind::Fork(u) if u == b.thread)
            || matches!(b.kind, EventKind::Join(u) if u == a.thread))
}

/// rf (§2.1): for each atomic read, the last write (plain or atomic) to its address before
/// it, or `None` for the `init` value.
fn reads_from(trace: &[Event]) -> Vec<Option<usize>> {
    trace
        .iter()
        .enumerate()
        .map(|(j, e)| match e.kind {
            EventKind::Atomic(k, m) if k.reads() => (0..j).rev().find(|&i| trace[i].mem_access().is_some_and(|w| w.write && w.addr == m)),
            _ => None,
        })
        .collect()
}

/// Whether `w` is in the (hypothetical) release sequence headed by the atomic write `h`
/// (§2.2, C++20): the same address, `h` no later than `w` in modification order (trace
/// order), and every write to the address after `h` up to `w` an atomic RMW.
fn in_release_sequence(trace: &[Event], h: usize, w: usize) -> bool {
    let (Some(EventKind::Atomic(_, m)), true) = (trace.get(h).map(|e| e.kind), atomic_write(&trace[h])) else { return false };
    if w < h || !trace[w].mem_access().is_some_and(|x| x.write && x.addr == m) {
        return false;
    }
    (h + 1..=w).filter(|&i| trace[i].mem_access().is_some_and(|x| x.write && x.addr == m)).all(|i| matches!(trace[i].kind, EventKind::Atomic(AtomicKind::Rmw(_), _)))
}

fn atomic_write(e: &Event) -> bool {
    matches!(e.kind, EventKind::Atomic(k, _) if k.writes())
}

fn atomic_read(e: &Event) -> bool {
    matches!(e.kind, EventKind::Atomic(k, _) if k.reads())
}

/// A release write: an atomic store or RMW whose order releases (§2.2).
fn release_write(e: &Event) -> bool {
    matches!(e.kind, EventKind::Atomic(k, _) if k.release_write())
}

/// An acquire read (§2.3): an atomic read (load, RMW, failed CAS) whose order acquires.
fn acquire_read(e: &Event) -> bool {
    matches!(e.kind, EventKind::Atomic(k, _) if k.acquire_read())
}

fn release_fence(e: &Event) -> bool {
    matches!(e.kind, EventKind::Fence(o) if o.releases())
}

fn acquire_fence(e: &Event) -> bool {
    matches!(e.kind, EventKind::Fence(o) if o.acquires())
}

fn addr(e: &Event) -> Option<crate::machine::Addr> {
    e.mem_access().map(|x| x.addr)
}

/// `a` synchronizes-with `b` by one of the four rules of §2.3.
fn sw(trace: &[Event], rf: &[Option<usize>], a: usize, b: usize) -> bool {
    let (ea, eb) = (&trace[a], &trace[b]);
    let n = trace.len();
    // Atomic writes X on `m` sb-after `a`; atomic reads Y sb-before `b`.
    let writes_after = |a: usize| (a + 1..n).filter(move |&x| sb(trace, a, x) && atomic_write(&trace[x]));
    let reads_before = |b: usize| (0..b).filter(move |&y| sb(trace, y, b) && atomic_read(&trace[y]));
    let rf_in_rs = |read: usize, head: usize| rf[read].is_some_and(|w| in_release_sequence(trace, head, w));
    // Rule 1, [atomics.order]/2: a release write, an acquire read of the same address
    // reading from its release sequence.
    if release_write(ea) && acquire_read(eb) && addr(ea) == addr(eb) && rf_in_rs(b, a) {
        return true;
    }
    // Rule 2, [atomics.fences]/2: a release fence, an acquire fence, through an atomic
    // write X after a and an atomic read Y before b of one address, Y reading from X's
    // hypothetical release sequence.
    if release_fence(ea) && acquire_fence(eb) && writes_after(a).any(|x| reads_before(b).any(|y| addr(&trace[x]) == addr(&trace[y]) && rf_in_rs(y, x))) {
        return true;
    }
    // Rule 3, [atomics.fences]/3: a release fence, an acquire read reading from the
    // hypothetical release sequence of an atomic write X after a.
    if release_fence(ea) && acquire_read(eb) && writes_after(a).any(|x| addr(&trace[x]) == addr(eb) && rf_in_rs(b, x)) {
        return true;
    }
    // Rule 4, [atomics.fences]/4: a release write, an acquire fence, through an atomic read
    // X before b reading from a's release sequence.
    release_write(ea) && acquire_fence(eb) && reads_before(b).any(|x| addr(&trace[x]) == addr(ea) && rf_in_rs(x, a))
}
