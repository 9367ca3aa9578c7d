//! Wakeup trees (J.ACM 2017, §6: Def. 6.1 weak initials, the operation `insert[E](v, w)`;
//! spec/dpor.md, algorithm 4): the ordered tree of event sequences still to explore from
//! a prefix, to which each reversed race adds the sequence that leads to its new class.
//!
//! **Deviation: closure choices.** A tree node is an event with the closure choices it
//! was seen with, but exploring a thread runs every alternative of its closure (see
//! "Choices" in the parent module), each under the subtree of the child with its choices
//! or, if there is none, as a leaf. So the children of one thread act as one group:
//! weak initials are decided by thread ([`weak_initial`]), and [`insert`] then follows
//! the child with the sequence's own choices
//! (`tests/regress/dpor_choice_after_access.race`).
//!
//! **Deviation: blocking.** An absent section-beginning event is never a weak initial (see
//! "Blocking" in the parent module).

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
pub(super) fn weak_initial(c: &Label, v: &[Rc<Label>]) -> bool {
    match v.iter().position(|e| e.thread == c.thread) {
        Some(k) => !v[..k].iter().any(|e| dependent(e, &v[k])),
        // A section-beginning event (an acquire, a capsule entry) absent from `v` is not a
        // weak initial of it: `v` may go on to disable it (someone takes the lock and keeps
        // it), and the executions where it never runs are not among those that begin with it.
        None => !matches!(c.sync, Sync::Begin(_)) && v.iter().all(|e| !dependent(c, e)),
    }
}

/// `insert[E](v, wut(E))`: walks down the leftmost children that are weak initials of `v`;
/// a leaf reached means `v` is covered already, otherwise the rest of `v` becomes the new
/// rightmost branch. The leftmost weak initial is found by thread; `v` then follows the
/// child with its own closure choices, and is covered already when there is none, since
/// exploring the thread runs that alternative as a leaf (see the module docs).
pub(super) fn insert(mut children: &mut Vec<WNode>, mut v: Vec<Rc<Label>>) {
    loop {
        if v.is_empty() {
            return;
        }
        let Some(k) = children.iter().position(|c| weak_initial(&c.label, &v)) else {
            let mut chain: Option<WNode> = None;
            for label in v.into_iter().rev() {
                chain = Some(WNode { label, children: chain.into_iter().collect() });
            }
            children.extend(chain);
            return;
        };
        let t = children[k].label.thread;
        // Absent from `v` (and independent of all of it): every alternative's branch runs
        // `v` unchanged after it, so the leftmost child serves.
        let k = match v.iter().position(|e| e.thread == t) {
            None => k,
            Some(i) => {
                let e = v.remove(i);
                let Some(k) = children.iter().position(|c| c.label.thread == t && (c.label.attempt || e.attempt || c.label.alts == e.alts)) else {
                    return;
                };
                k
            }
        };
        let c = &mut children[k];
        if c.children.is_empty() {
            return;
        }
        children = &mut c.children;
    }
}

