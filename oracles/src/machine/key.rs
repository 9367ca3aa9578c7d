//! The identity of a state for stateful search (issue 9; spec/dpor.md on stateful
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
//!   them) and the fixed initial facts as a set (issue 9: a key without them would merge
//!   states whose initial heaps differ);
//! - whether a loop was cut at its bound, and CapJava's capFree clocks (their debug text,
//!   which is exact; they exist only in that dialect).
//!
//! Object identities are *not* canonicalized: two states equal up to a renaming of objects
//! get different keys. That costs pruning, never soundness. Two different states share a
//! key only on a 128-bit hash collision (two independent 64-bit SipHash runs), which over
//! the at most millions of states of one search has probability below 2⁻⁸⁰.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::*;

impl State<'_> {
    /// The state's key for a visited set (see the module docs).
    pub fn key(&self) -> u128 {
        let (mut a, mut b) = (DefaultHasher::new(), DefaultHasher::new());
        // Two hashers with different prefixes give two independent 64-bit hashes.
        0xa5u8.hash(&mut a);
        0x5au8.hash(&mut b);
        self.feed(&mut a);
        self.feed(&mut b);
        (u128::from(a.finish()) << 64) | u128::from(b.finish())
    }

    fn feed(&self, h: &mut impl Hasher) {
        self.threads.len().hash(h);
        for t in &self.threads {
            t.name.hash(h);
            (t.status == Status::Done).hash(h);
            (t.depth, t.allocs, t.forks).hash(h);
            t.frames.len().hash(h);
            for f in &t.frames {
                feed_frame(f, h);
            }
            match &t.final_locals {
                Some(l) => feed_locals(l, h),
                None => usize::MAX.hash(h),
            }
        }
        self.objects.len().hash(h);
        for o in &self.objects {
            o.name.hash(h);
            (o.class, o.lock_owner, o.capsule_holder, o.initial).hash(h);
            o.fields.len().hash(h);
            for c in &o.fields {
                match c {
                    Cell::Absent => 0u8.hash(h),
                    Cell::Lazy => 1u8.hash(h),
                    Cell::Val(v) => (2u8, v).hash(h),
                }
            }
            o.elems.hash(h);
        }
        self.lazy_objects.hash(h);
        let mut facts: Vec<&String> = self.initial_facts.iter().collect();
        facts.sort_unstable();
        facts.hash(h);
        self.loop_bound_hit.hash(h);
        if let Some(c) = &self.capfree {
            format!("{c:?}").hash(h);
        }
    }
}

fn feed_locals(l: &[(&str, Option<Value>)], h: &mut impl Hasher) {
    l.len().hash(h);
    for (name, v) in l {
        (name, v).hash(h);
    }
}

fn feed_frame(f: &Frame<'_>, h: &mut impl Hasher) {
    feed_locals(&f.locals, h);
    (f.ret, f.capsule, f.line.0).hash(h);
    f.conts.len().hash(h);
    for c in &f.conts {
        match c {
            Cont::Seq { block, pc } => (0u8, block.as_ptr() as usize, block.len(), pc).hash(h),
            Cont::Loop { stmt, iters } => (1u8, std::ptr::from_ref::<crate::lang::Stmt>(stmt) as usize, iters).hash(h),
            Cont::Release { lock, line } => (2u8, lock, line.0).hash(h),
            Cont::Enter { capsule, line } => (3u8, capsule, line.0).hash(h),
            Cont::Checks { rest, line } => (4u8, rest, line.0).hash(h),
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
}
