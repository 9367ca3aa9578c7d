//! DPOR's race detection (J.ACM 2017, the relation `e ⋖_E e'` of §3; spec/dpor.md,
//! algorithm 4): which pairs of events of an execution are reversible races, and the
//! happens-before relation of its events that the reversal needs (`notdep(e, E)`).
//! Used by the search at each maximal (or sleep-set blocked) execution.
//!
//! **Deviation: which races are reversible.** The paper's events are all reversible; ours
//! are only where the reversal is possible: between two heap touches (the later one not
//! happening-before-ordered after the earlier through any other path), and between two
//! critical sections of one lock (or occupancies of one capsule): the acquire of a lock
//! races with the acquire that began the previous critical section of another thread,
//! unless that acquire happens before the later thread's other predecessors (a release
//! and the next acquire cannot be swapped; the critical sections
//! can). Forks and joins only order events. At the end of an execution, a thread whose
//! next step is an acquire or a capsule entry it cannot take ([`Machine::next_sync`](crate::machine::Machine::next_sync)) adds
//! that attempt as a pending event, racing with every earlier section of another thread
//! that is not ordered before it: that is how a lock-order deadlock (a held lock) and a
//! CapJava capFree fault (an exit not ordered before the entry) are reached. An attempt
//! never ran, so its closure choices are unknown: it matches a wakeup-tree event of its
//! thread with any choices (`Label::attempt`; without that, a `while *` after the acquire
//! made DPOR re-run the thread's every alternative on a second branch,
//! `tests/regress/dpor_attempt_with_choices.race`).

use std::collections::HashMap;
use std::rc::Rc;

use super::events::{Label, Res, Sync};

/// Happens-before of one execution's events, by vector clocks over interned threads.
pub(super) struct Hb {
    clock: Vec<Vec<u32>>,
    /// 1-based position of each event among its thread's events.
    pos: Vec<u32>,
}

impl Hb {
    /// Whether event `i` happens before (or is) event `k`.
    pub(super) fn before(&self, events: &[Rc<Label>], i: usize, k: usize) -> bool {
        self.clock[k][events[i].thread as usize] >= self.pos[i]
    }
}

/// The reversible races of a maximal execution `E` (J.ACM 2017, `e ⋖_E e'`; see the module
/// docs for which pairs are reversible), as index pairs, with the happens-before relation.
///
/// `pending` are the attempts of threads that cannot step at the end (a blocked acquire, an
/// entry refused by capFree): each is treated as an event after `E` that begins a section,
/// so that the section which disables it can be reversed (lock-order deadlocks are found
/// this way). Races with a pending event have `j ≥ events.len()`.
pub(super) fn races(events: &[Rc<Label>], pending: &[Rc<Label>]) -> (Vec<(usize, usize)>, Hb) {
    let nt = events.iter().chain(pending).map(|e| e.thread as usize + 1).max().unwrap_or(0);
    let mut hb = Hb { clock: Vec::with_capacity(events.len()), pos: Vec::with_capacity(events.len()) };
    let mut last_of: HashMap<u32, usize> = HashMap::new();
    // Per resource: the last write, and the reads since.
    let mut table: HashMap<Res, (Option<usize>, Vec<usize>)> = HashMap::new();
    // Per lock or capsule: where the current section began, and where the earlier ones did.
    let mut sections: HashMap<Res, (Option<usize>, Vec<usize>)> = HashMap::new();
    let mut out = vec![];
    let n = events.len();
    for (j, e) in events.iter().chain(pending).enumerate() {
        let attempt = j >= n;
        let mut direct: Vec<(usize, Res)> = vec![];
        if let Some(&p) = last_of.get(&e.thread) {
            direct.push((p, Res::Thread(e.thread)));
        }
        for &(r, w) in &e.fp {
            if let Some((lw, rs)) = table.get(&r) {
                direct.extend(lw.map(|x| (x, r)));
                if w {
                    direct.extend(rs.iter().map(|&x| (x, r)));
                }
            }
        }
        let mut c = vec![0u32; nt];
        for &(d, _) in &direct {
            for (a, b) in c.iter_mut().zip(&hb.clock[d]) {
                *a = (*a).max(*b);
            }
        }
        let p = last_of.get(&e.thread).map_or(0, |&x| hb.pos[x]) + 1;
        c[e.thread as usize] = p;
        // `d` does not happen before `d2`.
        let not_before = |d: usize, d2: usize| hb.clock[d2][events[d].thread as usize] < hb.pos[d];
        for &(d, r) in &direct {
            if matches!(r, Res::Cell(..) | Res::Elem(..)) && events[d].thread != e.thread && direct.iter().all(|&(d2, _)| d2 == d || not_before(d, d2)) {
                out.push((d, j));
            }
        }
        if let Sync::Begin(r) = e.sync {
            let s = sections.entry(r).or_default();
            // An attempt that cannot step may be disabled by any earlier section (a held
            // lock, or for capFree an exit that does not happen before it); a step that
            // ran follows the previous section only.
            let candidates: Vec<usize> = if attempt { s.1.iter().copied().chain(s.0).collect() } else { s.1.last().copied().into_iter().collect() };
            for a1 in candidates {
                if events[a1].thread != e.thread && direct.iter().all(|&(d2, via)| via == r || not_before(a1, d2)) {
                    out.push((a1, j));
                }
            }
            if attempt {
                continue;
            }
            s.0 = Some(j);
        } else if attempt {
            continue;
        }
        if let Sync::End(r) = e.sync {
            let s = sections.entry(r).or_default();
            s.1.extend(s.0.take());
        }
        for &(r, w) in &e.fp {
            let slot = table.entry(r).or_default();
            if w {
                *slot = (Some(j), vec![]);
            } else {
                slot.1.push(j);
            }
        }
        hb.clock.push(c);
        hb.pos.push(p);
        last_of.insert(e.thread, j);
    }
    out.sort_unstable();
    out.dedup();
    (out, hb)
}
