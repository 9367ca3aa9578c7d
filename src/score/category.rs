//! The category of a detector's mistake (see the module docs of [`super`]): what kind of
//! situation fooled it, computed from the trace. A false positive's category says what
//! orders the flagged access after every conflicting access of another thread (a fence,
//! atomics, a lock, or fork/join alone), or that there is none; a false negative's, the
//! kinds of the missed race, and whether a bounded history or a relaxed store that ended a
//! release sequence (docs/spec/atomics.md §2.2, §5.1) could explain it. Limitations
//! (`super::limitations`) match these categories by fragment.

use race_oracles::lang::{AccessKind, Order};
use race_oracles::machine::{AtomicKind, Event, EventKind};
use race_oracles::race::limits::{between, SHADOW_CELLS};
use race_oracles::race::{Hb, Race};

/// The location an access or a check touches.
pub(super) fn addr_of(e: &Event) -> Option<race_oracles::machine::Addr> {
    match e.kind {
        EventKind::Access(_, a) | EventKind::Check(_, a) | EventKind::Atomic(_, a) => Some(a),
        _ => None,
    }
}

pub(super) fn kind_word(e: &Event) -> &'static str {
    match e.kind {
        EventKind::Access(AccessKind::Read, _) => "read",
        EventKind::Access(AccessKind::Write, _) => "write",
        EventKind::Check(AccessKind::Read, _) => "read check",
        EventKind::Check(AccessKind::Write, _) => "write check",
        EventKind::Atomic(AtomicKind::Load(_), _) => "atomic load",
        EventKind::Atomic(AtomicKind::Store(_), _) => "atomic store",
        EventKind::Atomic(AtomicKind::Rmw(_), _) => "atomic RMW",
        EventKind::Atomic(AtomicKind::CasFailed { .. }, _) => "failed CAS",
        _ => "synchronization event",
    }
}

/// `a` or `an` before `word`.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// The category of a missed race: the kinds of its two accesses, and whether a bounded
/// history could have lost the earlier one: at least `SHADOW_CELLS` accesses of the
/// location by threads other than the earlier access's between the two
/// (`race_oracles::race::limits::between`; ThreadSanitizer's 4 shadow cells per 8 bytes,
/// `score::limitations`).
pub(super) fn missed(trace: &[Event], r: &Race) -> String {
    let (first, second) = (&trace[r.first.0 as usize], &trace[r.second.0 as usize]);
    let history = if between(trace, r) >= SHADOW_CELLS { format!(" behind {SHADOW_CELLS} or more accesses of other threads") } else { String::new() };
    let cut = if store_cut(trace, r) { " where a relaxed or plain store ended a release sequence" } else { "" };
    let fenced = if sc_fenced(trace, r) { " across a seq_cst fence in each thread" } else { "" };
    let erased = if read_after_own_atomic_write(trace, r) { " after its writer's own plain read" } else { "" };
    let cas = past_mixed_cas(trace, r.first.0 as usize, r.second.0 as usize);
    format!("{} {}-{} race{history}{cut}{fenced}{erased}{cas}", article(kind_word(first)), kind_word(first), kind_word(second))
}

/// A category's note that a failed CAS whose success order synchronizes more than its
/// failure order (it releases, which no failure order does, or acquires where the failure
/// order does not) runs at event `i` or before `j`: a tool that does the success order's
/// clock work on failure (gcc 11's libtsan, docs/spec/atomics.md §5.1) releases or acquires
/// there when it should not. Empty otherwise.
fn past_mixed_cas(trace: &[Event], i: usize, j: usize) -> &'static str {
    let more = |s: Order, f: Order| s.releases() || s.acquires() != f.acquires();
    let mixed = (i..j).any(|k| matches!(trace[k].kind, EventKind::Atomic(AtomicKind::CasFailed { success, failure }, _) if more(success, failure)));
    if mixed {
        " past a failed CAS whose success order synchronizes more than its failure order"
    } else {
        ""
    }
}

/// Whether the race `r` ends in a plain read, and before it some other thread made an atomic
/// write (a store or an RMW) of the address and then read it plainly itself: the shape in
/// which ThreadSanitizer's own-thread shadow replacement loses the write
/// (docs/spec/atomics.md §5.1). The racing write may be that one, or an earlier one that it
/// succeeded in the shadow (a write ordered before it).
fn read_after_own_atomic_write(trace: &[Event], r: &Race) -> bool {
    let j = r.second.0 as usize;
    let plain_read = |k: usize| matches!(trace[k].kind, EventKind::Access(AccessKind::Read, a) if a == r.addr);
    let atomic_write = |k: usize| matches!(trace[k].kind, EventKind::Atomic(w, a) if w.writes() && a == r.addr);
    plain_read(j) && (0..j).any(|k| trace[k].thread != trace[j].thread && atomic_write(k) && (k + 1..j).any(|m| trace[m].thread == trace[k].thread && plain_read(m)))
}

/// Whether each thread of the race `r` has a `seq_cst` fence between its access and the
/// other's: after the first access in its thread, before the second in its own. Two such
/// fences order nothing in C11 (docs/spec/atomics.md §2.3, L12), but a tool that runs SC
/// fences as one global clock (loom, Miri: spec §5.3, §5.4) orders the threads through them
/// whenever the first's fence runs first. Either order counts: the shape is the program's.
fn sc_fenced(trace: &[Event], r: &Race) -> bool {
    let (i, j) = (r.first.0 as usize, r.second.0 as usize);
    let (t1, t2) = (trace[i].thread, trace[j].thread);
    let sc_fence = |k: usize, t| trace[k].thread == t && matches!(trace[k].kind, EventKind::Fence(Order::SeqCst));
    (i + 1..trace.len()).any(|k| sc_fence(k, t1)) && (0..j).any(|k| sc_fence(k, t2))
}

/// Whether the race `r` would be ordered if relaxed or plain stores did not end release
/// sequences (C++11's rule for a store of the same thread, and ThreadSanitizer's for every
/// relaxed store and every plain one, which leave the location's release clock alone,
/// docs/spec/atomics.md §2.2, §5.1): between its accesses, the second's thread makes an
/// acquire read of a relaxed or plain store (directly, or through RMWs that continue it)
/// that comes after a release write, to the same address, by the first's thread after the
/// first access.
fn store_cut(trace: &[Event], r: &Race) -> bool {
    let (i, j) = (r.first.0 as usize, r.second.0 as usize);
    let (t1, t2) = (trace[i].thread, trace[j].thread);
    (i + 1..j).any(|k| {
        let EventKind::Atomic(read, a) = trace[k].kind else { return false };
        if trace[k].thread != t2 || !read.acquire_read() {
            return false;
        }
        // The write it reads: the last write to `a` before it; through RMWs, which continue
        // a release sequence, back to the write they continue.
        let last_write = |before: usize| (0..before).rev().find(|&w| trace[w].mem_access().is_some_and(|m| m.addr == a && m.write));
        let Some(mut w) = last_write(k) else { return false };
        while matches!(trace[w].kind, EventKind::Atomic(AtomicKind::Rmw(_), _)) {
            let Some(before) = last_write(w) else { return false };
            w = before;
        }
        let relaxed_store =
            matches!(trace[w].kind, EventKind::Atomic(AtomicKind::Store(o), _) if !o.releases()) || matches!(trace[w].kind, EventKind::Access(AccessKind::Write, _));
        relaxed_store && (i + 1..w).any(|h| trace[h].thread == t1 && matches!(trace[h].kind, EventKind::Atomic(k, b) if b == a && k.release_write()))
    })
}

/// Happens-before of a trace, and of the trace without some of its events: whether the
/// ordering of two events needs a fence, atomics, or a lock, or fork/join alone gives it.
pub(super) struct Orders {
    all: Hb,
    /// Without fences.
    no_fences: Without,
    /// Without atomics and fences.
    no_atomics: Without,
    /// Without atomics, fences, acquires and releases: fork/join alone.
    no_sync: Without,
}

/// Happens-before of a trace without the events a filter drops, and each event's position
/// there (`None` for a dropped one).
struct Without {
    hb: Hb,
    position: Vec<Option<usize>>,
}

impl Without {
    fn new(trace: &[Event], keep: impl Fn(&EventKind) -> bool) -> Without {
        let kept: Vec<Event> = trace.iter().filter(|e| keep(&e.kind)).cloned().collect();
        let mut next = 0;
        let position = trace
            .iter()
            .map(|e| {
                keep(&e.kind).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        Without { hb: Hb::new(&kept), position }
    }

    /// Whether `i` happens before `j` here (a dropped event is ordered with nothing).
    fn ordered(&self, i: usize, j: usize) -> bool {
        matches!((self.position[i], self.position[j]), (Some(x), Some(y)) if self.hb.ordered(x, y))
    }
}

impl Orders {
    pub(super) fn new(trace: &[Event]) -> Orders {
        let lock = |k: &EventKind| matches!(k, EventKind::Acquire(_) | EventKind::Release(_));
        Orders {
            all: Hb::new(trace),
            no_fences: Without::new(trace, |k| !matches!(k, EventKind::Fence(_))),
            no_atomics: Without::new(trace, |k| !k.is_atomic()),
            no_sync: Without::new(trace, |k| !k.is_atomic() && !lock(k)),
        }
    }

    /// What fooled a detector that flagged `e`, which completes no race: the conflicting
    /// accesses of other threads before it, and what orders them all before it: a fence, an
    /// atomic, a lock, or fork/join alone. Atomics count as C++ has them
    /// (docs/spec/atomics.md §1.3): two atomic accesses never race, a failed CAS is a read.
    pub(super) fn false_positive(&self, trace: &[Event], e: &Event) -> String {
        let Some(a) = addr_of(e) else { return format!("a report on a {}", kind_word(e)) };
        let j = e.idx.0 as usize;
        let word = kind_word(e);
        let other = |f: &&Event| f.thread != e.thread && addr_of(f) == Some(a);
        if let EventKind::Atomic(k, _) = e.kind {
            let plain = trace[..j].iter().filter(other).any(|f| matches!(f.kind, EventKind::Access(..)));
            if k.is_failed_cas() {
                return "a report on a failed CAS (a failed CAS is a read: it races with no plain read)".to_string();
            }
            if !plain {
                return format!("a report on {} {word} whose conflicting accesses of other threads are all atomic (atomic accesses never race with each other)", article(word));
            }
        }
        let write = matches!(e.kind, EventKind::Access(AccessKind::Write, _) | EventKind::Check(AccessKind::Write, _)) || matches!(e.kind, EventKind::Atomic(k, _) if k.writes());
        let conflicting: Vec<usize> = trace[..j].iter().filter(other).filter(|f| f.mem_access().is_some_and(|m| write || m.write)).map(|f| f.idx.0 as usize).collect();
        // A failed CAS of another thread before a plain access, with nothing else to conflict
        // with or not ordered before it: a tool that takes a CAS for a write before it
        // compares sees a conflict there, whatever orders the rest.
        let failed_cas = |f: &&Event| matches!(f.kind, EventKind::Atomic(k, _) if k.is_failed_cas());
        let mut cas_before = trace[..j].iter().filter(other).filter(failed_cas);
        let plain_e = !matches!(e.kind, EventKind::Atomic(..));
        if plain_e && (if conflicting.is_empty() { cas_before.next().is_some() } else { cas_before.any(|f| !self.all.ordered(f.idx.0 as usize, j)) }) {
            return format!("{} {word} after a failed CAS of another thread (a failed CAS is a read)", article(word));
        }
        if conflicting.is_empty() {
            return format!("{} {word} with no conflicting access of another thread before it", article(word));
        }
        if !conflicting.iter().all(|&i| self.all.ordered(i, j)) {
            // An atomic whose unordered conflicting accesses are all atomic, or a check, which
            // completes no data race of its own.
            if matches!(e.kind, EventKind::Atomic(..)) && conflicting.iter().filter(|&&i| !self.all.ordered(i, j)).all(|&i| matches!(trace[i].kind, EventKind::Atomic(..))) {
                return format!("a report on {} {word} whose unordered conflicting accesses are all atomic (atomic accesses never race with each other)", article(word));
            }
            return format!("{} {word} after an unordered conflicting access", article(word));
        }
        let cas = conflicting.iter().min().map_or("", |&i| past_mixed_cas(trace, i, j));
        if !conflicting.iter().all(|&i| self.no_fences.ordered(i, j)) {
            format!("{} {word} ordered after a conflicting access only through a fence{cas}", article(word))
        } else if !conflicting.iter().all(|&i| self.no_atomics.ordered(i, j)) {
            format!("{} {word} ordered after a conflicting access through atomics{cas}", article(word))
        } else if conflicting.iter().all(|&i| self.no_sync.ordered(i, j)) {
            format!("{} {word} ordered after every conflicting access by fork/join", article(word))
        } else {
            format!("{} {word} ordered after a conflicting access by a lock", article(word))
        }
    }
}
