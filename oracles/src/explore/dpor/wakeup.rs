//! Wakeup trees (J.ACM 2017, §6: Def. 6.1 weak initials, the operation `insert[E](v, w)`;
//! docs/spec/dpor.md, algorithm 4): the ordered tree of event sequences still to explore from
//! a prefix, to which each reversed race adds the sequence that leads to its new class.
//!
//! **Deviation: closure choices.** A tree node is an event with the closure choices it
//! was seen with, but exploring a thread runs every alternative of its closure (see
//! "Choices" in the parent module), each under the subtree of the child with its choices,
//! or under an empty one if there is none. So the children of one thread act as one group,
//! explored where its first child is: weak initials are decided by thread
//! ([`weak_initial`]), and [`insert`] then follows the child with the sequence's own
//! choices, or adds one to the group. Both halves matter: a sequence for another
//! alternative that skipped the group became a branch after it, where the thread ran
//! again (`tests/regress/dpor_choice_after_access.race`); one taken as covered by the
//! group's empty subtree lost classes (an alternative without a child runs with no
//! wakeup sequence, which covers nothing: 21 of 400 generated programs of the issue's
//! family lost classes that way).
//!
//! **Deviation: blocking.** An absent section-beginning event is never a weak initial (see
//! "Blocking" in the parent module).

use std::borrow::Borrow;
use std::rc::Rc;

use super::events::{dependent, Label, Sync};

/// A node of a wakeup tree: an event, and what to run after it.
#[derive(Debug)]
pub(super) struct WNode {
    pub(super) label: Rc<Label>,
    pub(super) children: Vec<WNode>,
}

/// Whether `c`'s thread is a weak initial of `v` (J.ACM 2017, Def. 6.1 `WI`): `v` has an
/// event of `c`'s thread with no earlier dependent event in `v`, or `c`'s thread is absent
/// from `v` and independent of all of it. Closure choices do not count: exploring a thread
/// runs all of them.
pub(super) fn weak_initial<L: Borrow<Rc<Label>>>(c: &Label, v: &[L]) -> bool {
    match v.iter().position(|e| label(e).thread == c.thread) {
        Some(k) => !v[..k].iter().any(|e| dependent(label(e), label(&v[k]))),
        // A section-beginning event (an acquire, a capsule entry) absent from `v` is not a
        // weak initial of it: `v` may go on to disable it (someone takes the lock and keeps
        // it), and the executions where it never runs are not among those that begin with it.
        None => !matches!(c.sync, Sync::Begin(_)) && v.iter().all(|e| !dependent(c, label(e))),
    }
}

/// The label a sequence's element stands for (owned, or borrowed from the execution).
fn label<L: Borrow<Rc<Label>>>(e: &L) -> &Label {
    e.borrow()
}

/// `insert[E](v, wut(E))`: walks down the leftmost children that are weak initials of `v`;
/// a leaf reached means `v` is covered already, otherwise the rest of `v` becomes the new
/// rightmost branch. The leftmost weak initial is found by thread; when its thread's
/// event in `v` has choices that no child of the group has, the rest of `v` becomes a new
/// child of the group, for those choices (see the module docs). `by_choices` seeds the
/// bug this deviation fixes (`DporBug::WeakInitialByChoices`): a child counts as the
/// leftmost weak initial only if it also has the sequence's choices.
///
/// `v` is taken by reference so that the search can pass borrowed labels in a buffer it
/// reuses (a leaf reverses several races, each with a sequence as long as the execution):
/// it is left in no particular state, and a label is cloned only where it becomes a node.
pub(super) fn insert<L: Borrow<Rc<Label>>>(mut children: &mut Vec<WNode>, v: &mut Vec<L>, by_choices: bool) {
    let same_choices = |c: &WNode, e: &Label| c.label.attempt || e.attempt || super::events::same_alts(&c.label.alts, &e.alts);
    let chain = |v: &mut Vec<L>| {
        let mut chain: Option<WNode> = None;
        for label in v.drain(..).rev() {
            chain = Some(WNode { label: Rc::clone(label.borrow()), children: chain.into_iter().collect() });
        }
        chain
    };
    loop {
        if v.is_empty() {
            return;
        }
        let covers = |c: &WNode| weak_initial(&c.label, v) && (!by_choices || v.iter().find(|&e| label(e).thread == c.label.thread).is_none_or(|e| same_choices(c, label(e))));
        let Some(k) = children.iter().position(covers) else {
            children.extend(chain(v));
            return;
        };
        let t = children[k].label.thread;
        // Absent from `v` (and independent of all of it): the leftmost child serves.
        let k = match v.iter().position(|e| label(e).thread == t) {
            None => k,
            Some(i) => {
                let e = v.remove(i);
                match children.iter().position(|c| c.label.thread == t && same_choices(c, label(&e))) {
                    Some(k) => k,
                    None => {
                        // The thread's group gets a child for this alternative: `e` first
                        // (an initial of `v`), then the rest of `v`.
                        let rest = chain(v);
                        children.push(WNode { label: Rc::clone(e.borrow()), children: rest.into_iter().collect() });
                        return;
                    }
                }
            }
        };
        let c = &mut children[k];
        if c.children.is_empty() {
            return;
        }
        children = &mut c.children;
    }
}

/// Algorithm 2, lines 5–6: `v` goes into the wakeup tree `wut` of a node unless an event of
/// its sleep set `sleep` is a weak initial of it.
pub(super) fn offer<L: Borrow<Rc<Label>>>(sleep: &[Rc<Label>], wut: &mut Vec<WNode>, v: &mut Vec<L>, by_choices: bool) {
    if !sleep.iter().any(|s| weak_initial(s, v)) {
        insert(wut, v, by_choices);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::dpor::events::Res;

    /// A write of cell `cell` by thread `thread`, with closure choices `alts`.
    fn write(thread: u32, cell: u32, alts: &[u8]) -> Rc<Label> {
        let fp = vec![(Res::Thread(thread), true), (Res::Cell(cell, crate::machine::FieldId(0)), true)];
        Rc::new(Label { thread, alts: alts.to_vec(), fp, sync: Sync::None, addressing: vec![], wild: false, attempt: false })
    }

    fn shape(children: &[WNode]) -> Vec<String> {
        children.iter().map(|c| format!("T{}{:?}{:?}", c.label.thread, c.label.alts, shape(&c.children))).collect()
    }

    /// A regression a campaign found, at the root: after T1 wrote `a`, T2's write of `a` with choice
    /// 0 was reversed (`[T2/0]`), then with choice 1 behind T3's independent write of `b`
    /// (`[T3, T2/1]`). T2 is an initial of the second sequence, so it goes under T2's
    /// group, as the subtree of choice 1; it used to become a branch `T3 → T2/1` after T2,
    /// where T2 ran again.
    #[test]
    fn another_choice_of_a_thread_in_the_tree_joins_its_group() {
        let (a, b) = (0, 1);
        let mut wut = vec![];
        insert(&mut wut, &mut vec![write(2, a, &[0])], false);
        insert(&mut wut, &mut vec![write(3, b, &[]), write(2, a, &[1])], false);
        assert_eq!(shape(&wut), ["T2[0][]", "T2[1][\"T3[][]\"]"]);
        // Now with that alternative's child: it is followed, and its leaf covers.
        insert(&mut wut, &mut vec![write(2, a, &[1]), write(3, b, &[])], false);
        insert(&mut wut, &mut vec![write(2, a, &[1]), write(3, b, &[]), write(1, a, &[])], false);
        assert_eq!(shape(&wut), ["T2[0][]", "T2[1][\"T3[][]\"]"]);
    }

    /// The leftmost weak initial is found by thread, before a later child whose choices
    /// match: T3's node comes after T2's group, so `[T3, T2/1]` joins T2's group and does
    /// not go down T3's leaf (which would run T2 again after T3).
    #[test]
    fn the_leftmost_group_wins_over_a_later_match() {
        let (a, b) = (0, 1);
        let mut wut = vec![];
        insert(&mut wut, &mut vec![write(2, a, &[0]), write(1, a, &[])], false);
        // (T3's node as a sequence whose T3 event writes `a` left it: T2 is no weak
        // initial of that one; a node's own footprint is not read when its thread is in `v`.)
        insert(&mut wut, &mut vec![write(3, a, &[])], false);
        insert(&mut wut, &mut vec![write(3, b, &[]), write(2, a, &[1])], false);
        assert_eq!(shape(&wut), ["T2[0][\"T1[][]\"]", "T3[][]", "T2[1][\"T3[][]\"]"]);
    }
}
