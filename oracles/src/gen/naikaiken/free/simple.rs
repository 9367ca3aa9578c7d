//! The simple items of a free Naik-Aiken program (docs/spec/naik_aiken.md §4.1): allocations and
//! links, data accesses, heap reads, container appends and picks, and copies, each keeping
//! the builder's facts ([`St`]) true.

use super::{Free, St, PTR};

impl Free<'_, '_> {
    /// `t = new @h` and, often, `u = new @h; t.f = u` (allocate and link) or a link of `t` to
    /// a live object.
    pub(super) fn alloc_link(&mut self, st: &mut St, out: &mut Vec<String>) {
        let Some(t) = self.target(st) else { return self.data(st, out) };
        let h = self.g.h();
        st.kill(&t);
        self.emit(out, format!("{t} = new {h}"));
        st.live.insert(t.clone());
        st.unshared.insert(t.clone());
        if self.room() == 0 {
            return;
        }
        match self.g.pick(5) {
            0 | 1 if self.room() >= 2 => {
                let mut st2 = st.clone();
                st2.frozen.insert(t.clone());
                let Some(u) = self.target(&st2) else { return };
                let h = self.g.h();
                st.kill(&u);
                let f = PTR[usize::from(self.g.coin(20))];
                self.emit(out, format!("{u} = new {h}"));
                self.emit(out, format!("{t}.{f} = {u}"));
                st.live.insert(u.clone());
                st.unshared.insert(u.clone());
                st.linked.insert((t.clone(), f));
                if self.room() >= 2 && self.g.coin(25) {
                    // A chain of two same-iteration links: inside a loop K⁺ composes two
                    // 1–1 effects and keeps the correlation (Def. 4.2).
                    st2.frozen.insert(u.clone());
                    let Some(v) = self.target(&st2) else { return };
                    let h = self.g.h();
                    st.kill(&v);
                    self.emit(out, format!("{v} = new {h}"));
                    self.emit(out, format!("{u}.f = {v}"));
                    st.live.insert(v.clone());
                    st.unshared.insert(v);
                    st.linked.insert((u, "f"));
                }
            }
            2 => {
                let others: Vec<String> = self.roots(st).into_iter().filter(|x| *x != t && x != "self").collect();
                if let Some(y) = self.choose(&others) {
                    let f = PTR[usize::from(self.g.coin(30))];
                    self.emit(out, format!("{t}.{f} = {y}"));
                    st.linked.insert((t, f));
                }
            }
            3 if self.g.coin(30) => {
                let f = PTR[usize::from(self.g.coin(50))];
                self.emit(out, format!("{t}.{f} = null"));
            }
            _ => {}
        }
    }

    /// A data write or read at the end of a path from a live root.
    pub(super) fn data(&mut self, st: &mut St, out: &mut Vec<String>) {
        let roots = self.roots(st);
        match self.choose(&roots) {
            Some(r) => {
                let a = self.access(st, &r);
                self.emit(out, a);
            }
            None => {
                // Nothing is live yet: allocate a shared object.
                if let Some(t) = self.target(st) {
                    let h = self.g.h();
                    st.kill(&t);
                    self.emit(out, format!("{t} = new {h}"));
                    st.live.insert(t);
                }
            }
        }
    }

    /// `x = y.f` (a heap read; `x` is live only if `y.f` is surely linked) or `x = y.f.g`.
    pub(super) fn load(&mut self, st: &mut St, out: &mut Vec<String>) {
        let roots = self.roots(st);
        let Some(y) = self.choose(&roots) else { return self.data(st, out) };
        let Some(x) = self.target(st) else { return self.data(st, out) };
        let links: Vec<&'static str> = PTR.iter().copied().filter(|f| st.linked.contains(&(y.clone(), *f))).collect();
        let two = !links.is_empty() && self.g.coin(35);
        let f = if links.is_empty() { PTR[usize::from(self.g.coin(30))] } else { links[self.g.pick(links.len())] };
        let src = if two { format!("{y}.{f}.f") } else { format!("{y}.{f}") };
        st.kill(&x);
        self.emit(out, format!("{x} = {src}"));
        if !two && links.contains(&f) {
            st.live.insert(x.clone());
            // Heap reads lose the correlation (T); linking the result is R6's shape.
            if self.g.coin(40) && self.room() >= 2 {
                if let Some(u) = self.target(&St { frozen: [x.clone()].into(), ..st.clone() }) {
                    let h = self.g.h();
                    st.kill(&u);
                    self.emit(out, format!("{u} = new {h}"));
                    self.emit(out, format!("{x}.f = {u}"));
                    st.live.insert(u);
                    st.linked.insert((x, "f"));
                }
            }
        }
    }

    /// A container: `a = new @h` (once), `a[+] = y`, `x = a[*]` when surely not empty.
    pub(super) fn container(&mut self, st: &mut St, out: &mut Vec<String>) {
        if !st.containers.contains("a") {
            if st.frozen.contains("a") || st.carried.contains("a") || st.child {
                return self.data(st, out);
            }
            let h = self.g.h();
            self.emit(out, format!("a = new {h}"));
            st.kill("a");
            st.live.insert("a".into());
            st.containers.insert("a".into());
        }
        let elems: Vec<String> = self.roots(st).into_iter().filter(|x| x != "a" && x != "self").collect();
        if st.full.contains("a") && self.g.coin(50) {
            if let Some(x) = self.target(st) {
                st.kill(&x);
                self.emit(out, format!("{x} = a[*]"));
                st.live.insert(x);
                return;
            }
        }
        if let Some(y) = self.choose(&elems) {
            self.emit(out, format!("a[+] = {y}"));
            st.full.insert("a".into());
        } else if self.room() >= 2 {
            let Some(t) = self.target(st) else { return };
            let h = self.g.h();
            st.kill(&t);
            self.emit(out, format!("{t} = new {h}"));
            self.emit(out, format!("a[+] = {t}"));
            st.live.insert(t);
            st.full.insert("a".into());
        }
    }

    /// `x = y` (sharing one object under two names) or, rarely, `x = null` (then, under the
    /// knob [`NaikAikenKnobs::null_uses`](super::super::NaikAikenKnobs), more often and
    /// followed by a use of the null `x`).
    pub(super) fn copy(&mut self, st: &mut St, out: &mut Vec<String>) {
        let roots: Vec<String> = self.roots(st).into_iter().filter(|x| x != "self").collect();
        let Some(x) = self.target(st) else { return self.data(st, out) };
        if self.g.coin(if self.g.k.null_uses { 45 } else { 15 }) || roots.is_empty() {
            st.kill(&x);
            self.emit(out, format!("{x} = null"));
            if self.g.k.null_uses && self.room() > 0 {
                self.null_use(st, out, &x);
            }
            return;
        }
        let Some(y) = self.choose(&roots) else { return };
        if x == y {
            return self.data(st, out);
        }
        st.kill(&x);
        self.emit(out, format!("{x} = {y}"));
        st.live.insert(x.clone());
        let facts: Vec<(String, &'static str)> = st.linked.iter().filter(|(v, _)| *v == y).map(|(_, f)| (x.clone(), *f)).collect();
        st.linked.extend(facts);
    }

    /// A use of the null `x`: `y = x` (rule 13 with Γ(x) = ⊥) or `r.f = x` (rule 15 with
    /// Γ(x) = ⊥). The store goes into a field no fact relies on, and only in the main thread
    /// before its first fork (no other thread can rely on the field then), so that no later
    /// dereference is stuck.
    fn null_use(&mut self, st: &mut St, out: &mut Vec<String>, x: &str) {
        let roots: Vec<String> = self.roots(st).into_iter().filter(|r| r != x).collect();
        let free: Vec<&'static str> = PTR.iter().copied().filter(|f| !st.linked.iter().any(|(_, g)| g == f)).collect();
        if !st.child && !st.forked && !free.is_empty() && self.g.coin(50) {
            if let Some(r) = self.choose(&roots) {
                let f = free[self.g.pick(free.len())];
                return self.emit(out, format!("{r}.{f} = {x}"));
            }
        }
        let Some(y) = self.target(st).filter(|y| y != x) else { return };
        st.kill(&y);
        self.emit(out, format!("{y} = {x}"));
    }
}
