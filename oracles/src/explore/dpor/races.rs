//! DPOR's race detection (J.ACM 2017, the relation `e ⋖_E e'` of §3; docs/spec/dpor.md,
//! algorithm 4): which pairs of events of an execution are reversible races, and the
//! happens-before relation of its events that the reversal needs (`notdep(e, E)`).
//! Used by the search at each maximal (or sleep-set blocked) execution, incrementally
//! ([`Races`]: the executions of one search share long prefixes).
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

use std::rc::Rc;

use super::events::{Label, Res, Sync};
use super::fx::FxMap;
use crate::clock::{ThreadId, VClock};

/// Happens-before of one execution's events, by the crate's vector clocks indexed by
/// DPOR's interned thread numbers (`Label::thread`, used as the `ThreadId` of the clock).
#[derive(Default)]
pub(super) struct Hb {
    clock: Vec<VClock>,
    /// 1-based position of each event among its thread's events.
    pos: Vec<u32>,
}

impl Hb {
    /// Whether event `i` happens before (or is) event `k`.
    pub(super) fn before(&self, events: &[Rc<Label>], i: usize, k: usize) -> bool {
        self.clock[k].get(ThreadId(events[i].thread)) >= self.pos[i]
    }
}

/// The reversible races of a maximal execution `E` (J.ACM 2017, `e ⋖_E e'`; see the module
/// docs for which pairs are reversible), as index pairs, with the happens-before relation.
///
/// `pending` are the attempts of threads that cannot step at the end (a blocked acquire, an
/// entry refused by capFree): each is treated as an event after `E` that begins a section,
/// so that the section which disables it can be reversed (lock-order deadlocks are found
/// this way). Races with a pending event have `j ≥ events.len()`.
#[cfg(test)]
pub(super) fn races(events: &[Rc<Label>], pending: &[Rc<Label>]) -> (Vec<(usize, usize)>, Hb) {
    let mut r = Races::default();
    r.extend(events);
    let out = r.races(events, pending);
    (out, r.hb)
}

/// A resource's last write and the reads since; or a lock's (capsule's) current section
/// and the earlier ones, by where they began.
type Slot = (Option<usize>, Vec<usize>);

/// How to take back one change an event made to the tables (`bool`: whether the
/// resource's slot existed before).
enum Undo {
    LastOf(u32, Option<usize>),
    /// A write replaced the slot.
    Write(Res, Option<Slot>),
    /// A read was appended to the slot.
    Read(Res, bool),
    /// A section began, where the current one had begun.
    Begin(Res, bool, Option<usize>),
    /// A section ended: the current one, if any, moved to the earlier ones.
    End(Res, bool, Option<usize>),
}

/// The race detection of [`races`], kept for a prefix of the current execution and
/// extended by the events after it, so that each event is processed once per prefix
/// rather than once per execution (the search calls it at every leaf, where the
/// executions share all but their last few events). [`Races::extend`] first cuts back to
/// the longest prefix it still shares with the events it is given (by identity), so it
/// stays in step with the search's stack without being told about backtracking.
#[derive(Default)]
pub(super) struct Races {
    hb: Hb,
    /// The events processed, and per event the earlier events it races with and what it
    /// changed in the tables.
    seen: Vec<Rc<Label>>,
    partners: Vec<Vec<usize>>,
    /// The changes of every event in order, and where each event's begin.
    undo: Vec<Undo>,
    undo_from: Vec<usize>,
    /// A buffer for an event's direct predecessors.
    direct: Vec<(usize, Res)>,
    last_of: FxMap<u32, usize>,
    /// Per resource: the last write, and the reads since.
    table: FxMap<Res, Slot>,
    /// Per lock or capsule: where the current section began, and where the earlier ones did.
    sections: FxMap<Res, Slot>,
}

fn restore<K: std::hash::Hash + Eq, V>(map: &mut FxMap<K, V>, k: K, old: Option<V>) {
    match old {
        Some(v) => map.insert(k, v),
        None => map.remove(&k),
    };
}

impl Races {
    /// The happens-before relation of the events processed.
    pub(super) fn hb(&self) -> &Hb {
        &self.hb
    }

    /// Processes `events`, reusing what it shares with the events processed before.
    pub(super) fn extend(&mut self, events: &[Rc<Label>]) {
        let keep = self.seen.iter().zip(events).take_while(|(a, b)| Rc::ptr_eq(a, b)).count();
        self.truncate(keep);
        for j in keep..events.len() {
            self.push(events, j);
        }
    }

    fn truncate(&mut self, n: usize) {
        while self.seen.len() > n {
            self.seen.pop();
            self.partners.pop();
            self.hb.clock.pop();
            self.hb.pos.pop();
            let from = self.undo_from.pop().unwrap_or(0);
            while self.undo.len() > from {
                let Some(u) = self.undo.pop() else { break };
                match u {
                    Undo::LastOf(t, old) => restore(&mut self.last_of, t, old),
                    Undo::Write(r, old) => restore(&mut self.table, r, old),
                    Undo::Read(r, false) => restore(&mut self.table, r, None),
                    Undo::Read(r, true) => {
                        if let Some(slot) = self.table.get_mut(&r) {
                            slot.1.pop();
                        }
                    }
                    Undo::Begin(r, false, _) | Undo::End(r, false, _) => restore(&mut self.sections, r, None),
                    Undo::Begin(r, true, current) => {
                        if let Some(s) = self.sections.get_mut(&r) {
                            s.0 = current;
                        }
                    }
                    Undo::End(r, true, moved) => {
                        if let Some(s) = self.sections.get_mut(&r) {
                            if moved.is_some() {
                                s.1.pop();
                            }
                            s.0 = moved;
                        }
                    }
                }
            }
        }
    }

    /// `d` does not happen before `d2`.
    fn not_before(&self, events: &[Rc<Label>], d: usize, d2: usize) -> bool {
        !self.hb.before(events, d, d2)
    }

    /// The events `e` directly depends on, with the resource that makes it so: its thread's
    /// previous event, and per resource it touches the last write (and, if it writes, the
    /// reads since).
    fn direct(&self, e: &Label, direct: &mut Vec<(usize, Res)>) {
        direct.clear();
        if let Some(&p) = self.last_of.get(&e.thread) {
            direct.push((p, Res::Thread(e.thread)));
        }
        for &(r, w) in &e.fp {
            if let Some((lw, rs)) = self.table.get(&r) {
                direct.extend(lw.map(|x| (x, r)));
                if w {
                    direct.extend(rs.iter().map(|&x| (x, r)));
                }
            }
        }
    }

    /// The heap races of `e` (at `j`) with the events processed.
    fn heap_races(&self, events: &[Rc<Label>], e: &Label, direct: &[(usize, Res)], out: &mut Vec<usize>) {
        for &(d, r) in direct {
            if matches!(r, Res::Cell(..) | Res::Elem(..)) && events[d].thread != e.thread && direct.iter().all(|&(d2, _)| d2 == d || self.not_before(events, d, d2)) {
                out.push(d);
            }
        }
    }

    /// The section races of `e`, which begins a section of `r`, with the sections in
    /// `candidates`.
    fn section_races(&self, events: &[Rc<Label>], e: &Label, r: Res, direct: &[(usize, Res)], candidates: impl Iterator<Item = usize>, out: &mut Vec<usize>) {
        for a1 in candidates {
            if events[a1].thread != e.thread && direct.iter().all(|&(d2, via)| via == r || self.not_before(events, a1, d2)) {
                out.push(a1);
            }
        }
    }

    fn push(&mut self, events: &[Rc<Label>], j: usize) {
        let e = &events[j];
        let mut direct = std::mem::take(&mut self.direct);
        self.direct(e, &mut direct);
        let mut c = VClock::default();
        for &(d, _) in &direct {
            c.join(&self.hb.clock[d]);
        }
        let p = self.last_of.get(&e.thread).map_or(0, |&x| self.hb.pos[x]) + 1;
        c.set(ThreadId(e.thread), p);
        let mut partners = vec![];
        self.heap_races(events, e, &direct, &mut partners);
        self.undo_from.push(self.undo.len());
        if let Sync::Begin(r) = e.sync {
            // A step that ran follows the previous section only.
            let previous = self.sections.get(&r).and_then(|s| s.1.last().copied());
            self.section_races(events, e, r, &direct, previous.into_iter(), &mut partners);
            let existed = self.sections.contains_key(&r);
            let s = self.sections.entry(r).or_default();
            self.undo.push(Undo::Begin(r, existed, s.0.replace(j)));
        }
        if let Sync::End(r) = e.sync {
            let existed = self.sections.contains_key(&r);
            let s = self.sections.entry(r).or_default();
            let moved = s.0.take();
            s.1.extend(moved);
            self.undo.push(Undo::End(r, existed, moved));
        }
        for &(r, w) in &e.fp {
            let existed = self.table.contains_key(&r);
            let slot = self.table.entry(r).or_default();
            if w {
                let old = std::mem::replace(slot, (Some(j), vec![]));
                self.undo.push(Undo::Write(r, existed.then_some(old)));
            } else {
                slot.1.push(j);
                self.undo.push(Undo::Read(r, existed));
            }
        }
        self.hb.clock.push(c);
        self.hb.pos.push(p);
        let previous = self.last_of.insert(e.thread, j);
        self.undo.push(Undo::LastOf(e.thread, previous));
        self.seen.push(e.clone());
        self.partners.push(partners);
        self.direct = direct;
    }

    /// The races of the events processed (`events`, as given to [`Races::extend`]) and of
    /// the `pending` attempts after them (see [`races`]), sorted.
    pub(super) fn races(&self, events: &[Rc<Label>], pending: &[Rc<Label>]) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = self.partners.iter().enumerate().flat_map(|(j, ps)| ps.iter().map(move |&d| (d, j))).collect();
        for (k, e) in pending.iter().enumerate() {
            let j = events.len() + k;
            let mut direct = vec![];
            self.direct(e, &mut direct);
            let mut partners = vec![];
            self.heap_races(events, e, &direct, &mut partners);
            if let Sync::Begin(r) = e.sync {
                // An attempt that cannot step may be disabled by any earlier section (a held
                // lock, or for capFree an exit that does not happen before it).
                if let Some(s) = self.sections.get(&r) {
                    self.section_races(events, e, r, &direct, s.1.iter().copied().chain(s.0), &mut partners);
                }
            }
            out.extend(partners.into_iter().map(|d| (d, j)));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
