//! DPOR's helpers checked against plain definitions, on every small input of a few
//! alphabets (tests only). The plain definitions are the spec's (docs/spec/dpor.md, "The
//! bound": two sequences are equivalent when one is obtained from the other by swapping
//! adjacent independent events), computed by brute force:
//! - equivalence: every sequence reachable by such swaps (breadth-first);
//! - initials (J.ACM 2017, §3): the threads whose event starts some equivalent sequence;
//!   weak initials (Def. 6.1): the initials of `w`, or of `w . c` where `c`'s thread is
//!   absent from `w`;
//! - happens-before: the transitive closure of dependence in sequence order; a race
//!   (`e ⋖_E e'`): two conflicting heap touches of different threads ordered by
//!   happens-before with no event in between it orders;
//! - wakeup-tree insertion (§6): the tree only grows, by at most one new leaf, and
//!   afterwards some leaf `u` is compatible with the inserted `v` (`u . (v∖u)` equivalent
//!   to `v . (u∖v)`: exploring `u` explores an extension of `v`'s class).
//!
//! The deviations that the modules document are part of the reference where they apply:
//! an absent section-beginning event is never a weak initial (see "Blocking" in the parent
//! module).

use std::collections::{BTreeSet, VecDeque};
use std::rc::Rc;

use super::events::{dependent, Label, Res, Sync};
use super::races::{races, Races};
use super::wakeup::{insert, weak_initial, WNode};
use crate::machine::FieldId;

fn label(thread: u32, res: Res, write: bool, sync: Sync) -> Rc<Label> {
    let fp = vec![(Res::Thread(thread), true), (res, write)];
    Rc::new(Label { thread, alts: vec![], fp, sync, addressing: vec![], wild: false, attempt: false })
}

/// Reads and writes of two cells by three threads, and (with `locks`) each thread's
/// acquire of one lock.
fn alphabet(locks: bool) -> Vec<Rc<Label>> {
    let mut out = vec![];
    for t in 0..3 {
        for c in 0..2 {
            for w in [false, true] {
                out.push(label(t, Res::Cell(c, FieldId(0)), w, Sync::None));
            }
        }
        if locks {
            out.push(label(t, Res::Lock(0), true, Sync::Begin(Res::Lock(0))));
        }
    }
    out
}

/// Every sequence over `alphabet` of length `1..=n`.
fn sequences(alphabet: &[Rc<Label>], n: usize) -> Vec<Vec<Rc<Label>>> {
    let mut out: Vec<Vec<Rc<Label>>> = vec![];
    let mut layer: Vec<Vec<Rc<Label>>> = vec![vec![]];
    for _ in 0..n {
        layer = layer.iter().flat_map(|s| alphabet.iter().map(move |e| [s.clone(), vec![e.clone()]].concat())).collect();
        out.extend(layer.iter().cloned());
    }
    out
}

/// The sequences equivalent to `w` (as orders of its positions), by adjacent swaps of
/// independent events.
fn equivalents(w: &[Rc<Label>]) -> BTreeSet<Vec<usize>> {
    let start: Vec<usize> = (0..w.len()).collect();
    let mut seen = BTreeSet::from([start.clone()]);
    let mut work = VecDeque::from([start]);
    while let Some(p) = work.pop_front() {
        for i in 1..p.len() {
            if !dependent(&w[p[i - 1]], &w[p[i]]) {
                let mut q = p.clone();
                q.swap(i - 1, i);
                if seen.insert(q.clone()) {
                    work.push_back(q);
                }
            }
        }
    }
    seen
}

/// J.ACM 2017 Def. 6.1, by brute force (see the module docs).
fn weak_initial_plain(c: &Rc<Label>, w: &[Rc<Label>]) -> bool {
    if w.iter().any(|e| e.thread == c.thread) {
        return equivalents(w).iter().any(|p| w[p[0]].thread == c.thread);
    }
    if matches!(c.sync, Sync::Begin(_)) {
        return false;
    }
    let wc = [w, std::slice::from_ref(c)].concat();
    equivalents(&wc).iter().any(|p| p[0] == w.len())
}

#[test]
fn weak_initials_are_the_plain_definition() {
    let alphabet = alphabet(true);
    let mut checked = 0;
    for w in sequences(&alphabet, 3) {
        for c in &alphabet {
            assert_eq!(weak_initial(c, &w), weak_initial_plain(c, &w), "T{} in {:?}", c.thread, w.iter().map(|e| (e.thread, &e.fp[1])).collect::<Vec<_>>());
            checked += 1;
        }
    }
    assert_eq!(checked, 15 * (15 + 15 * 15 + 15 * 15 * 15));
}

/// Happens-before of `w`: `hb[i][j]` for `i < j` when a chain of dependent events leads
/// from `w[i]` to `w[j]`.
fn happens_before(w: &[Rc<Label>]) -> Vec<Vec<bool>> {
    let n = w.len();
    let mut hb = vec![vec![false; n]; n];
    for j in 0..n {
        for i in (0..j).rev() {
            hb[i][j] = dependent(&w[i], &w[j]) || (i + 1..j).any(|k| hb[i][k] && hb[k][j]);
        }
    }
    hb
}

#[test]
fn races_and_happens_before_are_the_plain_definitions() {
    // One detection kept across the sequences, as the search keeps it across leaves: it
    // cuts back to the prefix a sequence shares with the previous one.
    let mut kept = Races::default();
    for w in sequences(&alphabet(false), 4) {
        let hb = happens_before(&w);
        let conflict = |a: &Label, b: &Label| a.fp.iter().any(|(r, x)| matches!(r, Res::Cell(..)) && b.fp.iter().any(|(s, y)| r == s && (*x || *y)));
        let mut plain = vec![];
        for j in 0..w.len() {
            for i in 0..j {
                if w[i].thread != w[j].thread && conflict(&w[i], &w[j]) && !(i + 1..j).any(|k| hb[i][k] && hb[k][j]) {
                    plain.push((i, j));
                }
            }
        }
        plain.sort_unstable();
        let (found, h) = races(&w, &[]);
        assert_eq!(found, plain, "{:?}", w.iter().map(|e| (e.thread, &e.fp[1])).collect::<Vec<_>>());
        kept.extend(&w);
        assert_eq!(kept.races(&w, &[]), plain);
        for (i, j) in (0..w.len()).flat_map(|j| (0..=j).map(move |i| (i, j))) {
            assert_eq!(h.before(&w, i, j), i == j || hb[i][j]);
            assert_eq!(kept.hb().before(&w, i, j), i == j || hb[i][j]);
        }
    }
}

/// Every path of a wakeup tree from its root, in the tree's order (a node before its
/// children, children left to right), as positions in `events`; and which are leaves.
fn paths(children: &[WNode], events: &[Rc<Label>], prefix: &[usize], out: &mut Vec<(Vec<usize>, bool)>) {
    for c in children {
        let id = events.iter().position(|e| Rc::ptr_eq(e, &c.label)).expect("a tree holds the events inserted");
        let p = [prefix, &[id]].concat();
        out.push((p.clone(), c.children.is_empty()));
        paths(&c.children, events, &p, out);
    }
}

/// Whether exploring `u` explores an extension of `v`'s class: `u . (v∖u)` is equivalent
/// to `v . (u∖v)` (events are positions in `events`, each thread's in program order).
fn compatible(events: &[Rc<Label>], u: &[usize], v: &[usize]) -> bool {
    let minus = |a: &[usize], b: &[usize]| a.iter().copied().filter(|x| !b.contains(x)).collect::<Vec<_>>();
    let left = [u, &minus(v, u)].concat();
    let right = [v, &minus(u, v)].concat();
    let w: Vec<Rc<Label>> = left.iter().map(|&i| events[i].clone()).collect();
    equivalents(&w).iter().any(|p| p.iter().map(|&k| left[k]).eq(right.iter().copied()))
}

#[test]
fn wakeup_insertion_keeps_the_tree_and_covers_the_sequence() {
    // Three threads' programs; a sequence is an interleaving of prefixes of them.
    let c = |i| Res::Cell(i, FieldId(0));
    let programs = [
        vec![label(0, c(0), true, Sync::None), label(0, c(1), false, Sync::None)],
        vec![label(1, c(1), true, Sync::None), label(1, c(0), false, Sync::None)],
        vec![label(2, c(0), false, Sync::None)],
    ];
    let events: Vec<Rc<Label>> = programs.iter().flatten().cloned().collect();
    let id = |t: usize, k: usize| programs[..t].iter().map(Vec::len).sum::<usize>() + k;
    let mut seqs: Vec<Vec<usize>> = vec![];
    let mut work = vec![(vec![], [0usize; 3])];
    while let Some((s, next)) = work.pop() {
        if !s.is_empty() {
            seqs.push(s.clone());
        }
        for t in 0..3 {
            if next[t] < programs[t].len() {
                let mut n = next;
                n[t] += 1;
                work.push(([s.clone(), vec![id(t, next[t])]].concat(), n));
            }
        }
    }
    let (mut grew, mut covered) = (0, 0);
    for (k, first) in seqs.iter().enumerate() {
        for second in &seqs {
            for third in seqs.iter().skip(k % 7).step_by(7) {
                let mut wut = vec![];
                for v in [first, second, third] {
                    let mut before = vec![];
                    paths(&wut, &events, &[], &mut before);
                    insert(&mut wut, &mut v.iter().map(|&i| events[i].clone()).collect(), false);
                    let mut after = vec![];
                    paths(&wut, &events, &[], &mut after);
                    // The tree only grows: the old paths, in their order, then one new leaf.
                    let old: Vec<&Vec<usize>> = before.iter().map(|(p, _)| p).collect();
                    assert_eq!(after.iter().map(|(p, _)| p).filter(|p| old.contains(p)).collect::<Vec<_>>(), old);
                    let new: Vec<&(Vec<usize>, bool)> = after.iter().filter(|(p, _)| !old.contains(&p)).collect();
                    let leaves: Vec<&Vec<usize>> = new.iter().filter(|(_, leaf)| *leaf).map(|(p, _)| p).collect();
                    assert!(leaves.len() <= 1 && new.iter().all(|(p, _)| leaves.iter().any(|l| l.starts_with(p))));
                    // Some leaf covers `v`; the new one, if any.
                    match leaves.first() {
                        Some(l) => {
                            grew += 1;
                            assert!(compatible(&events, l, v), "new leaf {l:?} for {v:?}");
                        }
                        None => {
                            covered += 1;
                            assert!(after.iter().any(|(u, leaf)| *leaf && compatible(&events, u, v)), "{v:?} not covered by {after:?}");
                        }
                    }
                }
            }
        }
    }
    assert!(grew > 1000 && covered > 1000, "{grew} insertions grew the tree, {covered} were covered");
}
