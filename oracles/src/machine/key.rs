//! The identity of a state for stateful search (docs/spec/dpor.md on stateful
//! exploration): a 128-bit hash of everything that determines what the state can do next
//! and what the explorer reports about it.
//!
//! What goes in, and why each part is needed:
//! - per thread: its name, status, lock depth, allocation and fork counters (they name the
//!   objects and threads it creates next), and every frame: locals, continuations (a
//!   statement position is the address of its block in the program, which is fixed for one
//!   run, and the index in it), the return slot, the capsule and the call line (the sites of
//!   Def. 3.6 races name call lines);
//! - the heap: every object's name, class, cells (undetermined lazy cells included), array
//!   elements, lock holder, capsule holder and whether it is initial;
//! - the lazy initial heap: the number of lazily created objects (the heap bound counts
//!   them); which values are still undetermined is part of the cells and locals above;
//! - whether a loop was cut at its bound, and CapJava's capFree clocks (their debug text,
//!   which is exact; they exist only in that dialect).
//!
//! Atomics (docs/spec/atomics.md §7) add nothing: an atomically accessed cell is a heap cell
//! like any other, already in the key, and the semantics is SC (an atomic read reads the
//! cell), so the heap and the locals determine every future value, CAS outcome and event.
//! The synchronization an atomic or fence creates (`W`, `Frel`, `Facq` of spec §4.1) is
//! trace history, like the clocks of locks: it decides happens-before races, which the
//! stateful explorer does not claim to preserve (`ExplorerKind::preserves`). So a release
//! and a relaxed store of the same value reach states with one key
//! (`tests::atomics_add_no_state`).
//!
//! What stays out: the fixed initial facts (`arg1@T1 = l1`, `l1.f = l2`). They are a log
//! of the lazy choices made on the way, which the semantics never consults: a choice's
//! value is in the heap (or the formal) from then on, and a fact whose cell was overwritten
//! since is history. Two states equal but for their facts have the same futures, so
//! merging them keeps every reachable state, every Def. 3.6 race (its witness replays the
//! path of the first visit, facts included) and every final state (`final_state` leaves
//! facts out for that reason). Measured on the largest racerdx pair of
//! `examples/pair_states.rs`'s programs, facts multiplied the states 5.5-fold (17.6M against 3.2M).
//!
//! Objects and threads are identified by their display names, never by their numbers:
//! names are unique in a state and do not depend on the interleaving (`x@T1` is the object
//! T1's allocation into x made, whichever thread allocated first), numbers are the order
//! of creation, which does. So states that differ only in the order two threads allocated
//! or forked share a key. The lazily created initial objects (`l1`, `l2`) are named in the
//! order threads first needed them, so states equal up to a renaming of those are *not*
//! merged: that costs pruning, never soundness (measured on the first program of
//! `examples/pair_states.rs`, merging them would save 1.0-2.2x). Two different states share a
//! key only on a 128-bit hash collision ([`crate::fingerprint`]), which over
//! the at most millions of states of one search has probability below 2⁻⁸⁰.

use std::hash::{Hash, Hasher};

use super::*;

impl State<'_> {
    /// The state's key for a visited set (see the module docs): the crate's one 128-bit key
    /// ([`crate::fingerprint`]) of the state's walk.
    pub fn key(&self) -> u128 {
        crate::fingerprint::of_stream(|h| self.feed(h))
    }

    /// The key without any thread's locals: the stateful explorer's seeded bug
    /// `KeyWithoutLocals`, which merges states that differ in a local.
    pub(crate) fn key_without_locals(&self) -> u128 {
        let mut s = self.clone();
        for t in &mut s.threads {
            t.final_locals = None;
            t.frames.iter_mut().for_each(|f| f.locals.clear());
        }
        s.key()
    }

    fn feed(&self, h: &mut impl Hasher) {
        let by_name = ByName::of(self);
        let n = &by_name;
        self.threads.len().hash(h);
        for &ti in &n.threads {
            let t = &self.threads[ti];
            t.name.hash(h);
            (t.status == Status::Done).hash(h);
            (t.depth, t.allocs, t.forks).hash(h);
            t.frames.len().hash(h);
            for f in &t.frames {
                feed_frame(f, h, n);
            }
            match &t.final_locals {
                Some(l) => feed_locals(l, h, n),
                None => usize::MAX.hash(h),
            }
        }
        self.objects.len().hash(h);
        for &oi in &n.objects {
            let o = &self.objects[oi];
            o.name.hash(h);
            (o.class, o.initial).hash(h);
            (o.lock_owner.map(|t| n.thread(t)), o.capsule_holder.map(|t| n.thread(t))).hash(h);
            o.fields.len().hash(h);
            for c in &o.fields {
                match c {
                    Cell::Absent => 0u8.hash(h),
                    Cell::Lazy => 1u8.hash(h),
                    Cell::Val(v) => {
                        2u8.hash(h);
                        n.feed_value(v, h);
                    }
                }
            }
            o.elems.as_ref().map(Vec::len).hash(h);
            o.elems.iter().flatten().for_each(|v| n.feed_value(v, h));
        }
        self.lazy_objects.hash(h);
        self.loop_bound_hit.hash(h);
        if let Some(c) = &self.capfree {
            // CapJava's clocks are indexed by thread and object numbers: pin the numbering.
            n.threads.hash(h);
            n.objects.hash(h);
            format!("{c:?}").hash(h);
        }
    }
}

/// Threads and objects (their positions) in the order of their display names.
struct ByName<'s> {
    st: &'s State<'s>,
    threads: Vec<usize>,
    objects: Vec<usize>,
}

impl<'s> ByName<'s> {
    fn of(st: &'s State<'s>) -> ByName<'s> {
        let mut threads: Vec<usize> = (0..st.threads.len()).collect();
        threads.sort_by(|&a, &b| st.threads[a].name.cmp(&st.threads[b].name));
        let mut objects: Vec<usize> = (0..st.objects.len()).collect();
        objects.sort_by(|&a, &b| st.objects[a].name.cmp(&st.objects[b].name));
        let dup_t = threads.windows(2).any(|w| st.threads[w[0]].name == st.threads[w[1]].name);
        let dup_o = objects.windows(2).any(|w| st.objects[w[0]].name == st.objects[w[1]].name);
        if dup_t || dup_o {
            // Names are unique by construction (`fresh_name`); were they not, numbers
            // would be the only identity left, so keep creation order.
            threads.sort_unstable();
            objects.sort_unstable();
        }
        ByName { st, threads, objects }
    }

    fn thread(&self, t: ThreadId) -> &'s str {
        self.st.threads.get(t.0 as usize).map_or("", |x| x.name.as_ref())
    }

    fn object(&self, o: ObjId) -> &'s str {
        self.st.objects.get(o.0 as usize).map_or("", |x| x.name.as_ref())
    }

    fn feed_value(&self, v: &Value, h: &mut impl Hasher) {
        match v {
            Value::Obj(o) => (0u8, self.object(*o)).hash(h),
            Value::Thread(t) => (1u8, self.thread(*t)).hash(h),
            v => (2u8, v).hash(h),
        }
    }

    fn feed_addr(&self, a: &Addr, h: &mut impl Hasher) {
        match a {
            Addr::Field(o, f) => (0u8, self.object(*o), f).hash(h),
            Addr::Index(o, i) => (1u8, self.object(*o), i).hash(h),
        }
    }
}

fn feed_locals(l: &[(&str, Option<Value>)], h: &mut impl Hasher, n: &ByName<'_>) {
    l.len().hash(h);
    for (name, v) in l {
        name.hash(h);
        match v {
            None => 0u8.hash(h),
            Some(v) => {
                1u8.hash(h);
                n.feed_value(v, h);
            }
        }
    }
}

fn feed_frame(f: &Frame<'_>, h: &mut impl Hasher, n: &ByName<'_>) {
    feed_locals(&f.locals, h, n);
    (f.ret, f.capsule.map(|o| n.object(o)), f.line.0).hash(h);
    f.conts.len().hash(h);
    for c in &f.conts {
        match c {
            Cont::Seq { block, pc } => (0u8, block.as_ptr() as usize, block.len(), pc).hash(h),
            Cont::Loop { stmt, iters } => (1u8, std::ptr::from_ref::<crate::lang::Stmt>(stmt) as usize, iters).hash(h),
            Cont::Release { lock, line } => (2u8, n.object(*lock), line.0).hash(h),
            Cont::Enter { capsule, line } => (3u8, n.object(*capsule), line.0).hash(h),
            Cont::Checks { rest, line } => {
                (4u8, rest.len(), line.0).hash(h);
                for (k, a) in rest {
                    k.hash(h);
                    n.feed_addr(a, h);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::lang::parse;
    use crate::machine::{thread_id, Machine};

    #[test]
    fn equal_states_share_a_key_and_a_step_changes_it() {
        let p = parse("dialect bfj\ninit { o = new }\nthread { o.f = 1 }\nthread { o.f = 1 }\n").unwrap();
        let m = Machine::new(&p, 2);
        let init = m.initial_state().unwrap();
        let (mut a, mut b) = (init.clone(), init.clone());
        assert_eq!(a.key(), b.key());
        m.step(&mut a, thread_id(0), 0).unwrap();
        assert_ne!(a.key(), init.key());
        // The same writes in the other order reach the same state.
        m.step(&mut b, thread_id(1), 0).unwrap();
        m.step(&mut a, thread_id(1), 0).unwrap();
        m.step(&mut b, thread_id(0), 0).unwrap();
        assert_eq!(a.key(), b.key());
    }

    /// docs/spec/atomics.md §7: the orders of atomics are history, not state; their values are
    /// state.
    #[test]
    fn atomics_add_no_state() {
        let key = |body: &str| {
            let p = parse(&format!("dialect bfj\ninit {{ o = new }}\nthread {{ {body} }}\n")).unwrap();
            let m = Machine::new(&p, 2);
            let mut st = m.initial_state().unwrap();
            m.step(&mut st, thread_id(0), 0).unwrap();
            st.key()
        };
        assert_eq!(key("o.f.store(1, release)"), key("o.f.store(1, relaxed)"));
        assert_eq!(key("o.f.store(1, seq_cst)"), key("o.f = 1"));
        assert_ne!(key("o.f.store(1, release)"), key("o.f.store(2, release)"));
        assert_ne!(key("fence(seq_cst)"), key("skip; skip"), "a fence moves the thread on");
    }

    /// The key is the crate's fingerprint of the state's walk, and each step of this path reaches a state with a new key.
    #[test]
    fn the_key_is_the_fingerprint_of_the_walk() {
        let p = parse("dialect bfj\ninit { o = new; a = new_array 2 }\nthread { x = new; o.f = x; a[1] = 3 }\nthread { y = 1 }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let mut keys = std::collections::BTreeSet::new();
        for _ in 0..3 {
            assert_eq!(st.key(), crate::fingerprint::of_stream(|h| st.feed(h)));
            assert!(keys.insert(st.key()));
            m.step(&mut st, thread_id(0), 0).unwrap();
        }
    }

    #[test]
    fn the_order_of_allocations_does_not_split_states() {
        let p = parse("dialect bfj\ninit { o = new }\nthread { x = new; o.f = 1 }\nthread { y = new }\n").unwrap();
        let m = Machine::new(&p, 2);
        let init = m.initial_state().unwrap();
        let (mut a, mut b) = (init.clone(), init);
        m.step(&mut a, thread_id(0), 0).unwrap();
        m.step(&mut a, thread_id(1), 0).unwrap();
        m.step(&mut b, thread_id(1), 0).unwrap();
        m.step(&mut b, thread_id(0), 0).unwrap();
        // Object numbers differ, names and contents do not.
        assert_ne!(a.objects[1].name, b.objects[1].name);
        assert_eq!(a.key(), b.key());
        // A write after it still tells them apart from the state before it.
        let before = a.key();
        m.step(&mut a, thread_id(0), 0).unwrap();
        assert_ne!(a.key(), before);
    }
}
