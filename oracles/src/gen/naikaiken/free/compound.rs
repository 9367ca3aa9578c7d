//! The compound items of a free Naik-Aiken program (docs/spec/naik_aiken.md §4.1): labelled loops
//! (lists carried through an iteration, §6 R7), `if *`, anonymous and thread-object forks
//! within the thread budget of §4.4 (B = 2: a fork inside a loop counts twice), and `sync`
//! blocks whose variable stays put (A5) except in the `Relax::sync_reassign` mutation test.

use std::collections::BTreeSet;

use super::{Free, St};
use crate::gen::naikaiken::write::{fork, wl};
use crate::gen::toolkit::{if_star, sync};

impl Free<'_, '_> {
    /// `while @w * { .. }`: sometimes a list (`t.next = p; p = t` with `p` carried), a fill of
    /// a container, or a free body.
    pub(super) fn lp(&mut self, st: &mut St, out: &mut Vec<String>) {
        if st.loops >= 2 || (st.loops >= 1 && !self.g.k.nested) {
            return self.data(st, out);
        }
        let w = self.g.w();
        self.stmts += 1;
        let mut inner = st.clone();
        inner.loops += 1;
        inner.mult *= 2;
        // Every variable live at the entry stays put (the next iteration relies on it).
        inner.frozen.extend(st.live.iter().cloned());
        let mut body = vec![];
        let list = self.g.coin(35) && self.room() >= 4;
        if list {
            // `p` is carried: live at the entry, assigned only live objects in the body.
            let carried = st.live.iter().find(|x| st.may_assign(x) && !st.containers.contains(*x)).cloned();
            let p = match carried {
                Some(p) => p,
                None => {
                    let Some(p) = self.target(st) else { return };
                    let h = self.g.h();
                    self.emit(out, format!("{p} = new {h}"));
                    st.live.insert(p.clone());
                    p
                }
            };
            inner = st.clone();
            inner.loops += 1;
            inner.mult *= 2;
            inner.frozen.extend(st.live.iter().filter(|x| **x != p).cloned());
            inner.carried.insert(p.clone());
            inner.linked.retain(|(v, _)| *v != p);
            let Some(t) = self.target(&inner) else { return };
            let h = self.g.h();
            inner.kill(&t);
            self.emit(&mut body, format!("{t} = new {h}"));
            inner.live.insert(t.clone());
            if self.g.coin(50) && self.room() >= 2 {
                let mut st2 = inner.clone();
                st2.frozen.insert(t.clone());
                if let Some(u) = self.target(&st2) {
                    let h = self.g.h();
                    inner.kill(&u);
                    self.emit(&mut body, format!("{u} = new {h}"));
                    self.emit(&mut body, format!("{t}.f = {u}"));
                    inner.live.insert(u);
                    inner.linked.insert((t.clone(), "f"));
                }
            }
            self.emit(&mut body, format!("{t}.next = {p}"));
            inner.linked.insert((t.clone(), "next"));
            self.block(&mut inner, &mut body, 2);
            self.emit(&mut body, format!("{p} = {t}"));
            inner.linked.retain(|(v, _)| *v != p);
        } else {
            self.block(&mut inner, &mut body, 4);
        }
        if body.is_empty() {
            self.emit(&mut body, "skip".into());
        }
        // Facts after the loop: those of its entry (0 iterations) that its exit keeps.
        let mut after = st.clone();
        for p in &inner.carried {
            after.linked.retain(|(v, _)| v != p);
        }
        after.meet(&inner);
        after.forked |= inner.forked;
        *st = after;
        out.push(wl(&w, &body));
    }

    pub(super) fn branch(&mut self, st: &mut St, out: &mut Vec<String>) {
        self.stmts += 1;
        let (mut a, mut b) = (st.clone(), st.clone());
        let (mut ta, mut tb) = (vec![], vec![]);
        self.block(&mut a, &mut ta, 2);
        self.block(&mut b, &mut tb, 2);
        if ta.is_empty() {
            self.emit(&mut ta, "skip".into());
        }
        a.meet(&b);
        a.forked |= b.forked;
        *st = a;
        out.push(if_star(&ta, &tb));
    }

    /// The state a child starts from: a copy of the parent's (its own locals, the shared
    /// heap), nothing frozen.
    pub(super) fn child_state(&self, st: &St) -> St {
        St { frozen: BTreeSet::new(), carried: BTreeSet::new(), unshared: BTreeSet::new(), child: true, ..st.clone() }
    }

    pub(super) fn can_fork(&self, st: &St) -> bool {
        self.threads + st.mult <= self.g.k.threads
    }

    /// `fork { .. }`: the child accesses shared objects, under locks or not.
    pub(super) fn fork_anon(&mut self, st: &mut St, out: &mut Vec<String>) {
        if !self.can_fork(st) || self.roots(st).is_empty() {
            return self.data(st, out);
        }
        self.threads += st.mult;
        self.stmts += 1;
        let mut c = self.child_state(st);
        let mut body = vec![];
        self.child_body(&mut c, &mut body);
        st.unshared.clear();
        st.forked = true;
        out.push(fork(None, &body));
        self.after_fork(st, out);
    }

    /// `fork(t) { .. }`: the child accesses paths rooted at `self`.
    pub(super) fn fork_obj(&mut self, st: &mut St, out: &mut Vec<String>) {
        let roots: Vec<String> = self.roots(st).into_iter().filter(|x| x != "self").collect();
        if !self.can_fork(st) || roots.is_empty() {
            return self.data(st, out);
        }
        // Prefer a thread object with a linked field, so that `self.f.g` appears.
        let linked: Vec<String> = roots.iter().filter(|x| st.linked.iter().any(|(v, _)| v == *x)).cloned().collect();
        let t = if linked.is_empty() { self.choose(&roots) } else { self.choose(&linked) };
        let Some(t) = t else { return };
        self.threads += st.mult;
        self.stmts += 1;
        let mut c = self.child_state(st);
        c.has_self = true;
        let facts: Vec<(String, &'static str)> = st.linked.iter().filter(|(v, _)| *v == t).map(|(_, f)| ("self".to_string(), *f)).collect();
        c.linked.extend(facts);
        let mut body = vec![];
        // First an access rooted at `self`, then whatever fits.
        let a = self.access(&c, "self");
        self.emit(&mut body, a);
        if self.g.coin(25) && self.can_fork(&c) && self.room() >= 2 {
            // An anonymous fork inside `fork(x)`: it sees `self` but has no thread object.
            self.threads += c.mult;
            self.stmts += 1;
            let a = self.access(&c, "self");
            body.insert(0, fork(None, &[a]));
            self.stmts += 1;
        }
        self.child_body(&mut c, &mut body);
        st.unshared.clear();
        st.forked = true;
        out.push(fork(Some(&t), &body));
        self.after_fork(st, out);
    }

    pub(super) fn child_body(&mut self, c: &mut St, body: &mut Vec<String>) {
        let before = body.len();
        self.block(c, body, 3);
        if body.len() == before {
            let roots = self.roots(c);
            if let Some(r) = self.choose(&roots) {
                let a = self.access(c, &r);
                self.emit(body, a);
            } else {
                self.emit(body, "skip".into());
            }
        }
    }

    /// The main thread right after a fork: sometimes an access to a shared object.
    pub(super) fn after_fork(&mut self, st: &mut St, out: &mut Vec<String>) {
        if !st.child && self.g.k.main_after_fork && self.room() > 0 && self.g.coin(40) {
            let roots = self.roots(st);
            if let Some(r) = self.choose(&roots) {
                let a = self.access(st, &r);
                self.emit(out, a);
            }
        }
    }

    /// `sync(x) { x.f.g = k }` (the lock a prefix of the path), `sync(x) { x.g = k }`, a lock
    /// on another object than the path's root, or, under `Relax::sync_reassign`, a body that
    /// first reassigns `x`.
    pub(super) fn sync(&mut self, st: &mut St, out: &mut Vec<String>) {
        let roots = self.roots(st);
        let Some(l) = self.choose(&roots) else { return self.data(st, out) };
        self.stmts += 1;
        let mut inner = st.clone();
        inner.held.insert(l.clone());
        let mut body = vec![];
        if l != "self" && st.may_assign(&l) && self.g.reassign() {
            // The mutation test of A5: the lock variable is reassigned inside its block.
            let others: Vec<String> = roots.iter().filter(|x| **x != l && *x != "self").cloned().collect();
            if let Some(y) = self.choose(&others) {
                self.emit(&mut body, format!("{l} = {y}"));
                let facts: Vec<(String, &'static str)> = inner.linked.iter().filter(|(v, _)| *v == y).map(|(_, f)| (l.clone(), *f)).collect();
                inner.linked.retain(|(v, _)| *v != l);
                inner.linked.extend(facts);
            }
        }
        let root = if self.g.coin(75) || roots.len() < 2 { l.clone() } else { self.choose(&roots).unwrap_or_else(|| l.clone()) };
        let a = self.access(&inner, &root);
        self.emit(&mut body, a);
        if self.g.coin(30) {
            self.block(&mut inner, &mut body, 1);
        }
        inner.held = st.held.clone();
        *st = inner;
        if body.iter().any(|b| b.starts_with(&format!("{l} = "))) {
            st.kill(&l);
        }
        out.push(sync(&l, &body));
    }
}
