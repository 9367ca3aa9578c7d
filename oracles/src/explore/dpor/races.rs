//! DPOR's race detection (J.ACM 2017, the relation `e ⋖_E e'` of §3; docs/spec/dpor.md,
//! algorithm 4): which pairs of events of an execution are reversible races, and the
//! happens-before relation of its events that the reversal needs (`notdep(e, E)`).
//! Used by the search at each maximal (or sleep-set blocked) execution, incrementally
//! ([`Races`]: the executions of one search share long prefixes).
//!
//! **Deviation: which races are reversible.** The paper's events are all reversible; ours
//! are only where the reversal is possible: between two heap touches or two `seq_cst` fences (docs/spec/atomics.md §7; the later one not
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

use super::events::{Label, Res, Sync, GLOBAL};
use super::fx::FxMap;

/// Happens-before of one execution's events: per event, its vector clock indexed by DPOR's
/// interned thread numbers (`Label::thread`), as one row of a matrix. The rows are one flat
/// vector, `width` entries each, rather than a clock allocated per event: the search reads
/// them for every race at every leaf (`notdep`), and a row is pushed and popped with its
/// event, without an allocation.
#[derive(Default)]
pub(super) struct Hb {
    width: usize,
    rows: Vec<u32>,
    /// 1-based position of each event among its thread's events.
    pos: Vec<u32>,
}

impl Hb {
    /// Entry `t` of event `k`'s clock.
    fn at(&self, k: usize, t: u32) -> u32 {
        if (t as usize) < self.width {
            self.rows[k * self.width + t as usize]
        } else {
            0
        }
    }

    /// Whether event `i` happens before (or is) event `k`.
    pub(super) fn before(&self, events: &[Rc<Label>], i: usize, k: usize) -> bool {
        self.at(k, events[i].thread) >= self.pos[i]
    }

    /// The events after `i` that `i` does not happen before, in order (`notdep(e_i, E)`).
    pub(super) fn notdep<'a>(&'a self, events: &[Rc<Label>], i: usize) -> impl Iterator<Item = usize> + 'a {
        let (t, p) = (events[i].thread, self.pos[i]);
        (i + 1..events.len().min(self.pos.len())).filter(move |&k| self.at(k, t) < p)
    }

    /// Appends the clock of an event of thread `t` at position `p`: the join of its direct
    /// predecessors' clocks, with `p` at `t`.
    fn push(&mut self, preds: impl Iterator<Item = usize>, t: u32, p: u32) {
        if t as usize >= self.width {
            self.widen(t as usize + 1);
        }
        let (k, w) = (self.pos.len(), self.width);
        self.rows.resize((k + 1) * w, 0);
        for d in preds {
            for x in 0..w {
                self.rows[k * w + x] = self.rows[k * w + x].max(self.rows[d * w + x]);
            }
        }
        self.rows[k * w + t as usize] = p;
        self.pos.push(p);
    }

    /// Makes every row `width` wide (a thread met for the first time).
    fn widen(&mut self, width: usize) {
        let old = self.width;
        let mut rows = vec![0; self.pos.len() * width];
        if old > 0 {
            for (k, row) in self.rows.chunks_exact(old).enumerate() {
                rows[k * width..k * width + old].copy_from_slice(row);
            }
        }
        self.rows = rows;
        self.width = width;
    }

    /// Drops the last event's clock.
    fn pop(&mut self) {
        self.pos.pop();
        self.rows.truncate(self.pos.len() * self.width);
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

/// No entry (the end of a list in [`Races::links`]).
const NIL: u32 = u32::MAX;

/// A resource's last write and the reads since (the newest first, a list in
/// [`Races::links`]); for a lock or capsule, where its current section began and the
/// earlier ones did (the latest first). All `Copy`, so that an event's changes are undone
/// by putting old values back.
#[derive(Clone, Copy)]
struct Slot {
    last: Option<usize>,
    list: u32,
}

const EMPTY: Slot = Slot { last: None, list: NIL };

/// How to take back one change an event made to the tables: the old value.
enum Undo {
    LastOf(u32, Option<usize>),
    Table(u32, Slot),
    Section(u32, Slot),
}

/// The race detection of [`races`], kept for a prefix of the current execution and
/// extended by the events after it, so that each event is processed once per prefix
/// rather than once per execution (the search calls it at every leaf, where the
/// executions share all but their last few events). [`Races::extend`] first cuts back to
/// the longest prefix it still shares with the events it is given (by identity), so it
/// stays in step with the search's stack without being told about backtracking.
///
/// Resources are numbered densely as they are first met (`ids`), so that the tables are
/// vectors: one hash per footprint entry and event, and no allocation once the tables
/// have grown.
#[derive(Default)]
pub(super) struct Races {
    hb: Hb,
    /// Labels of events cut back that nobody else held, for the search to reuse.
    pub(super) free: Vec<Rc<Label>>,
    /// The events processed, and the races among them (`(i, j)`: the earlier event `i`
    /// races with `j`), in the order of `j`.
    seen: Vec<Rc<Label>>,
    pairs: Vec<(usize, usize)>,
    /// The changes of every event in order, and where each event's begin (in `undo`,
    /// `links` and `pairs`).
    undo: Vec<Undo>,
    undo_from: Vec<(usize, usize, usize)>,
    /// A buffer for an event's partners.
    partners: Vec<usize>,
    /// Buffers: an event's direct predecessors, and its footprint's resource numbers.
    direct: Vec<(usize, Res)>,
    fp_ids: Vec<u32>,
    /// Resource numbers: per thread; per object, of its lock, capsule and cells (by
    /// field); of the others (array elements, the global lock).
    by_thread: Vec<u32>,
    by_object: Vec<Vec<u32>>,
    ids: FxMap<Res, u32>,
    /// Per thread (interned number): its last event.
    last_of: Vec<Option<usize>>,
    /// Per resource: the last write, and the reads since.
    table: Vec<Slot>,
    /// Per lock or capsule: where the current section began, and where the earlier ones did.
    sections: Vec<Slot>,
    /// The lists of `table` and `sections`: an event, and the next entry.
    links: Vec<(usize, u32)>,
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
            let Some(e) = self.seen.pop() else { break };
            // Only here while the search has dropped it: free for another event.
            if Rc::strong_count(&e) == 1 && Rc::weak_count(&e) == 0 {
                self.free.push(e);
            }
            self.hb.pop();
            let (from, links, pairs) = self.undo_from.pop().unwrap_or((0, 0, 0));
            self.links.truncate(links);
            self.pairs.truncate(pairs);
            while self.undo.len() > from {
                let Some(u) = self.undo.pop() else { break };
                match u {
                    Undo::LastOf(t, old) => self.last_of[t as usize] = old,
                    Undo::Table(r, old) => self.table[r as usize] = old,
                    Undo::Section(r, old) => self.sections[r as usize] = old,
                }
            }
        }
    }

    /// The number of resource `r`, numbering it if it is new (with empty slots).
    fn id(&mut self, r: Res) -> u32 {
        // OK since a resource is a thread, object, field or index of one execution's
        // events, far fewer than u32::MAX.
        let next = u32::try_from(self.table.len()).unwrap_or(NIL - 1);
        let id = match self.dense(r) {
            Some(slot) => {
                if *slot == NIL {
                    *slot = next;
                }
                *slot
            }
            None => *self.ids.entry(r).or_insert(next),
        };
        if id == next {
            self.table.push(EMPTY);
            self.sections.push(EMPTY);
        }
        id
    }

    /// The number of resource `r`, if it has one.
    fn find(&self, r: Res) -> Option<u32> {
        let id = match r {
            Res::Thread(t) => self.by_thread.get(t as usize).copied(),
            Res::Cell(o, f) => self.by_object.get(o as usize).and_then(|row| row.get(2 + usize::from(f.0))).copied(),
            Res::Lock(o) if o != GLOBAL => self.by_object.get(o as usize).and_then(|row| row.first()).copied(),
            Res::Capsule(o) => self.by_object.get(o as usize).and_then(|row| row.get(1)).copied(),
            _ => self.ids.get(&r).copied(),
        };
        id.filter(|&i| i != NIL)
    }

    /// Where the number of `r` is kept, when it is kept in the dense tables (threads, and
    /// an object's lock, capsule and cells; the others are hashed).
    fn dense(&mut self, r: Res) -> Option<&mut u32> {
        fn at(v: &mut Vec<u32>, i: usize) -> &mut u32 {
            if v.len() <= i {
                v.resize(i + 1, NIL);
            }
            &mut v[i]
        }
        let (o, column) = match r {
            Res::Thread(t) => return Some(at(&mut self.by_thread, t as usize)),
            Res::Lock(o) if o != GLOBAL => (o, 0),
            Res::Capsule(o) => (o, 1),
            Res::Cell(o, f) => (o, 2 + usize::from(f.0)),
            _ => return None,
        };
        if self.by_object.len() <= o as usize {
            self.by_object.resize(o as usize + 1, vec![]);
        }
        Some(at(&mut self.by_object[o as usize], column))
    }

    /// The events of list `l`, the newest first.
    fn list(&self, mut l: u32) -> impl Iterator<Item = usize> + '_ {
        std::iter::from_fn(move || {
            let &(e, next) = self.links.get(l as usize)?;
            l = next;
            Some(e)
        })
    }

    /// `d` does not happen before `d2`.
    fn not_before(&self, events: &[Rc<Label>], d: usize, d2: usize) -> bool {
        !self.hb.before(events, d, d2)
    }

    /// The events `e` directly depends on, with the resource that makes it so: its thread's
    /// previous event, and per resource it touches the last write (and, if it writes, the
    /// reads since). `ids` are the numbers of `e`'s footprint (`None`: not yet numbered,
    /// so untouched).
    fn direct(&self, e: &Label, ids: impl Iterator<Item = Option<u32>>, direct: &mut Vec<(usize, Res)>) {
        direct.clear();
        if let Some(&Some(p)) = self.last_of.get(e.thread as usize) {
            direct.push((p, Res::Thread(e.thread)));
        }
        for (&(r, w), id) in e.fp.iter().zip(ids) {
            let Some(slot) = id.map(|i| self.table[i as usize]) else { continue };
            direct.extend(slot.last.map(|x| (x, r)));
            if w {
                direct.extend(self.list(slot.list).map(|x| (x, r)));
            }
        }
    }

    /// The heap races of `e` (at `j`) with the events processed.
    fn heap_races(&self, events: &[Rc<Label>], e: &Label, direct: &[(usize, Res)], out: &mut Vec<usize>) {
        for &(d, r) in direct {
            // Two seq_cst fences race like two writes of one cell: fences never block, so
            // either order is feasible (docs/spec/atomics.md §7).
            if matches!(r, Res::Cell(..) | Res::Elem(..) | Res::ScFences) && events[d].thread != e.thread && direct.iter().all(|&(d2, _)| d2 == d || self.not_before(events, d, d2))
            {
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
        let mut ids = std::mem::take(&mut self.fp_ids);
        ids.clear();
        for &(r, _) in &e.fp {
            ids.push(self.id(r));
        }
        let mut direct = std::mem::take(&mut self.direct);
        self.direct(e, ids.iter().map(|&i| Some(i)), &mut direct);
        let t = e.thread as usize;
        if self.last_of.len() <= t {
            self.last_of.resize(t + 1, None);
        }
        let p = self.last_of[t].map_or(0, |x| self.hb.pos[x]) + 1;
        // A predecessor through several resources is joined once (they come one after another).
        let preds = direct.iter().map(|&(d, _)| d).enumerate().filter(|&(k, d)| k == 0 || direct[k - 1].0 != d).map(|(_, d)| d);
        self.hb.push(preds, e.thread, p);
        let mut partners = std::mem::take(&mut self.partners);
        partners.clear();
        self.heap_races(events, e, &direct, &mut partners);
        self.undo_from.push((self.undo.len(), self.links.len(), self.pairs.len()));
        if let Sync::Begin(r) = e.sync {
            let id = self.id(r);
            if let Some(s) = self.sections.get(id as usize).copied() {
                // A step that ran follows the previous section only.
                let previous = self.list(s.list).next();
                self.section_races(events, e, r, &direct, previous.into_iter(), &mut partners);
                self.undo.push(Undo::Section(id, s));
                self.sections[id as usize].last = Some(j);
            }
        }
        if let Sync::End(r) = e.sync {
            let id = self.id(r);
            if let Some(s) = self.sections.get(id as usize).copied() {
                self.undo.push(Undo::Section(id, s));
                if let Some(moved) = s.last {
                    self.links.push((moved, s.list));
                    // OK since `links` holds at most a few entries per event of one execution.
                    self.sections[id as usize] = Slot { last: None, list: u32::try_from(self.links.len() - 1).unwrap_or(NIL) };
                }
            }
        }
        for (&(_, w), &id) in e.fp.iter().zip(&ids) {
            let old = self.table[id as usize];
            self.undo.push(Undo::Table(id, old));
            self.table[id as usize] = if w {
                Slot { last: Some(j), list: NIL }
            } else {
                self.links.push((j, old.list));
                // OK since `links` holds at most a few entries per event of one execution.
                Slot { last: old.last, list: u32::try_from(self.links.len() - 1).unwrap_or(NIL) }
            };
        }
        self.undo.push(Undo::LastOf(e.thread, self.last_of[t]));
        self.last_of[t] = Some(j);
        self.seen.push(e.clone());
        self.pairs.extend(partners.iter().map(|&d| (d, j)));
        self.partners = partners;
        self.direct = direct;
        self.fp_ids = ids;
    }

    /// The races of the events processed (`events`, as given to [`Races::extend`]) and of
    /// the `pending` attempts after them (see [`races`]), sorted.
    pub(super) fn races(&self, events: &[Rc<Label>], pending: &[Rc<Label>]) -> Vec<(usize, usize)> {
        let mut out = self.pairs.clone();
        for (k, e) in pending.iter().enumerate() {
            let j = events.len() + k;
            let mut direct = vec![];
            self.direct(e, e.fp.iter().map(|&(r, _)| self.find(r)), &mut direct);
            let mut partners = vec![];
            self.heap_races(events, e, &direct, &mut partners);
            if let Sync::Begin(r) = e.sync {
                // An attempt that cannot step may be disabled by any earlier section (a held
                // lock, or for capFree an exit that does not happen before it).
                if let Some(s) = self.find(r).map(|i| self.sections[i as usize]) {
                    self.section_races(events, e, r, &direct, self.list(s.list).chain(s.last), &mut partners);
                }
            }
            out.extend(partners.into_iter().map(|d| (d, j)));
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}
