//! Synchronization: every rule about locks and capsules, in one place.
//! - RacerDX's global lock (docs/spec/racerdx.md §2.3, §7.2): reentrant; `lock` by thread i is
//!   enabled only when every other thread's depth is 0; `unlock` at depth 0 is stuck.
//! - Object locks of BFJ, SimpleJava and CapJava (docs/spec/bigfoot.md §2.3 ACQ/REL;
//!   docs/spec/escape_capsule.md §7.3): `acq(x)` and the entry of `sync(x)` block while the lock
//!   is held, even by the acquirer (not reentrant); `rel(x)` by a non-holder is stuck
//!   (CapJava's REL; we use it for SimpleJava too [C]); a capsule is never a lock.
//! - Capsules (docs/spec/escape_capsule.md §7.3): a call on a capsule enters it and the return
//!   exits; a capsule's fields may be accessed only while the innermost executing capsule is
//!   that object (CAPREAD/CAPWRITE); a capsule cannot be entered twice (a second thread
//!   blocks, a re-entrant call is stuck).
//! - CapJava's `capFree` (§7.4): an enter needs every earlier exit from the capsule to
//!   happen-before it.
//!
//! Deviations from the papers:
//! 1. `capFree` is enforced with vector clocks kept in the state for CapJava programs only
//!    ([`Semantics::cap_free`]): an enter whose capsule has an earlier exit that does not
//!    happen-before it is stuck (a capsule violation), as in the formal model.
//! 2. `break`/`return` may not leave a `sync` body (the validator rejects it), so unwinding
//!    never releases: the release at the end of a body is the only implicit one.

use super::*;
use crate::lang::{Line, Stmt};

/// CapJava's `capFree` (docs/spec/escape_capsule.md §7.4): a thread may enter capsule k only if
/// every earlier exit from k happens-before the enter. Happens-before comes from
/// [`Clocks`] (the same rules that stamp traces); `exits[k]` is the join of the clocks
/// of all exits from k, and an enter needs `exits[k] ⊑ C_t` ([REC] in §7.4).
#[derive(Clone, Debug, Default)]
pub(super) struct CapFree {
    pub(super) clocks: Clocks,
    pub(super) exits: std::collections::BTreeMap<ObjId, crate::clock::VClock>,
}

impl CapFree {
    /// Whether every earlier exit from `k` happens-before the current point of `t`.
    pub(super) fn may_enter(&self, t: ThreadId, k: ObjId) -> bool {
        self.exits.get(&k).is_none_or(|x| self.clocks.below(x, t))
    }

    /// Advances the clocks over `t`'s event `ev`, recording capsule exits.
    pub(super) fn apply(&mut self, t: ThreadId, ev: EventKind) {
        self.clocks.before(t, ev);
        if let EventKind::Exit(k) = ev {
            let c = self.clocks.clock(t).clone();
            self.exits.entry(k).or_default().join(&c);
        }
        self.clocks.after(t, ev);
    }
}

impl State<'_> {
    /// The innermost capsule the thread executes in (CapJava's `executor`), if any.
    pub(super) fn executor(&self, t: ThreadId) -> Option<ObjId> {
        self.threads[idx_t(t)].frames.iter().rev().find_map(|f| f.capsule)
    }
}

impl<'p> Machine<'p> {
    // ===== the global lock =====

    /// `lock`: enabled only when no other thread holds the global lock; reentrant.
    pub(super) fn lock(&self, st: &mut State<'p>, t: ThreadId) -> Step<Option<EventKind>> {
        if let Some(u) = st.threads.iter().enumerate().find(|(i, u)| u.depth > 0 && *i != idx_t(t)) {
            return Err(Disabled::Blocked(format!("global lock held by {}", u.1.name)));
        }
        st.advance(t);
        st.threads[idx_t(t)].depth += 1;
        Ok(Some(EventKind::Acquire(LockId::Global)))
    }

    /// `unlock`: stuck at depth 0.
    pub(super) fn unlock(&self, st: &mut State<'p>, t: ThreadId) -> Step<Option<EventKind>> {
        if st.threads[idx_t(t)].depth == 0 {
            return fault("unlock at lock depth 0");
        }
        st.advance(t);
        st.threads[idx_t(t)].depth -= 1;
        Ok(Some(EventKind::Release(LockId::Global)))
    }

    // ===== object locks =====

    /// The acquire rule of `acq(x)` and `sync(x)`: `x` holds an object that is not a capsule
    /// and whose lock is free (not reentrant: held by `t` itself blocks too). Takes the lock
    /// and moves past the statement.
    fn acquire(&self, st: &mut State<'p>, t: ThreadId, x: &str) -> Step<ObjId> {
        let o = st.obj_of(t, x)?;
        if self.is_capsule(st, o) {
            return fault("a capsule cannot be used as a lock");
        }
        match st.objects[idx(o)].lock_owner {
            None => {}
            Some(u) if u == t => return Err(Disabled::Blocked(format!("acq({x}) of a lock it already holds (locks are not reentrant)"))),
            Some(u) => return Err(Disabled::Blocked(format!("lock {} held by {}", st.objects[idx(o)].name, st.threads[idx_t(u)].name))),
        }
        st.advance(t);
        st.objects[idx(o)].lock_owner = Some(t);
        Ok(o)
    }

    /// `acq(x)`.
    pub(super) fn acq(&self, st: &mut State<'p>, t: ThreadId, x: &str) -> Step<Option<EventKind>> {
        let o = self.acquire(st, t, x)?;
        Ok(Some(EventKind::Acquire(LockId::Obj(o))))
    }

    /// `sync(x) { body }`: acquire, run the body, then release (a `Release` continuation).
    pub(super) fn sync(&self, st: &mut State<'p>, t: ThreadId, x: &str, body: &'p [Stmt], line: Line) -> Step<Option<EventKind>> {
        let o = self.acquire(st, t, x)?;
        let fr = st.frame_mut(t);
        fr.conts.push(Cont::Release { lock: o, line });
        fr.conts.push(Cont::Seq { block: body, pc: 0 });
        Ok(Some(EventKind::Acquire(LockId::Obj(o))))
    }

    /// `rel(x)`: only the holder may release.
    pub(super) fn rel(&self, st: &mut State<'p>, t: ThreadId, x: &str) -> Step<Option<EventKind>> {
        let o = st.obj_of(t, x)?;
        if self.is_capsule(st, o) {
            return fault("a capsule cannot be used as a lock");
        }
        if st.objects[idx(o)].lock_owner != Some(t) {
            return fault(format!("rel({x}) of a lock the thread does not hold"));
        }
        st.advance(t);
        st.objects[idx(o)].lock_owner = None;
        Ok(Some(EventKind::Release(LockId::Obj(o))))
    }

    /// The release at the end of a `sync` body.
    pub(super) fn sync_release(&self, st: &mut State<'p>, t: ThreadId, lock: ObjId) -> Step<Option<EventKind>> {
        if st.objects[idx(lock)].lock_owner != Some(t) {
            return fault("release of a lock the thread does not hold");
        }
        st.objects[idx(lock)].lock_owner = None;
        st.frame_mut(t).conts.pop();
        Ok(Some(EventKind::Release(LockId::Obj(lock))))
    }

    // ===== capsules =====

    /// Whether `o` is an instance of a capsule class.
    pub(super) fn is_capsule(&self, st: &State<'p>, o: ObjId) -> bool {
        st.objects[idx(o)].class.is_some_and(|c| self.program.classes[c].capsule)
    }

    /// Whether `o` is a capsule and `t`'s innermost executing capsule is not `o` (an access
    /// to `o`'s fields would break encapsulation, object-based: spec A18).
    pub(super) fn outside_capsule(&self, st: &State<'p>, t: ThreadId, o: ObjId) -> bool {
        self.is_capsule(st, o) && st.executor(t) != Some(o)
    }

    /// CAPREAD/CAPWRITE: a capsule's fields are accessed only from inside it.
    /// (In the operational mode the access goes ahead, marked by [`Machine::observe`].)
    pub(super) fn capsule_guard(&self, st: &State<'p>, t: ThreadId, o: ObjId) -> Step<()> {
        if !self.sem.operational && self.outside_capsule(st, t, o) {
            return fault(format!("capsule violation: field of capsule {} accessed from outside it", st.objects[idx(o)].name));
        }
        Ok(())
    }

    /// Thread `t` enters capsule `k` (a call on it, or a forked thread's start): `capFree`
    /// where the semantics asks for it, then the capsule must be free. In the operational
    /// mode the enter goes ahead whatever these checks say (marked by [`Machine::observe`]);
    /// the capsule then records its latest occupant.
    pub(super) fn enter(&self, st: &mut State<'p>, t: ThreadId, k: ObjId) -> Step<()> {
        if self.sem.operational {
            st.objects[idx(k)].capsule_holder = Some(t);
            return Ok(());
        }
        if let Some(cf) = &st.capfree {
            if !cf.may_enter(t, k) {
                return fault(format!("capsule violation (capFree): an earlier exit from {} does not happen-before this enter", st.objects[idx(k)].name));
            }
        }
        match st.objects[idx(k)].capsule_holder {
            None => {
                st.objects[idx(k)].capsule_holder = Some(t);
                Ok(())
            }
            Some(u) if u == t => fault(format!("re-entrant call into capsule {}", st.objects[idx(k)].name)),
            Some(u) => Err(Disabled::Blocked(format!("capsule {} is occupied by {}", st.objects[idx(k)].name, st.threads[idx_t(u)].name))),
        }
    }

    /// A forked thread's pending entry into the capsule its method runs in.
    pub(super) fn forked_enter(&self, st: &mut State<'p>, t: ThreadId, k: ObjId) -> Step<Option<EventKind>> {
        self.enter(st, t, k)?;
        st.frame_mut(t).conts.pop();
        st.frame_mut(t).capsule = Some(k);
        Ok(Some(EventKind::Enter(k)))
    }

    /// The exit from a capsule whose method body is done (`return_from` frees the capsule).
    pub(super) fn exit(&self, st: &mut State<'p>, t: ThreadId, k: ObjId) -> Step<Option<EventKind>> {
        st.return_from(t, Value::Null);
        Ok(Some(EventKind::Exit(k)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{parse, AccessKind};

    fn blocked(msg: &str) -> Step<Option<EventKind>> {
        Err(Disabled::Blocked(msg.into()))
    }

    fn f(msg: &str) -> Step<Option<EventKind>> {
        Err(Disabled::Fault(msg.into()))
    }

    #[test]
    fn the_global_lock_is_reentrant_and_excludes_other_threads() {
        let p = parse("dialect racerdx\nmethod a(arg1) { lock; lock; unlock; unlock; unlock }\nmethod b(arg1) { lock; unlock }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.method_threads(&["a", "b"], vec![], &[]).unwrap();
        let (ta, tb) = (thread_id(0), thread_id(1));
        let (acq, rel) = (Ok(Some(EventKind::Acquire(LockId::Global))), Ok(Some(EventKind::Release(LockId::Global))));
        assert_eq!(m.step(&mut st, ta, 0), acq);
        assert_eq!(m.step(&mut st, ta, 0), acq, "reentrant");
        assert_eq!(st.threads[0].depth, 2);
        assert_eq!(m.step(&mut st.clone(), tb, 0), blocked("global lock held by T1"));
        assert_eq!(m.step(&mut st, ta, 0), rel);
        assert_eq!(m.step(&mut st.clone(), tb, 0), blocked("global lock held by T1"), "one unlock of two still holds the lock");
        assert_eq!(m.step(&mut st, ta, 0), rel);
        assert_eq!(m.step(&mut st.clone(), tb, 0), acq, "enabled once every other depth is 0");
        assert_eq!(m.step(&mut st, ta, 0), f("unlock at lock depth 0"));
    }

    #[test]
    fn object_locks_are_not_reentrant_and_release_needs_the_holder() {
        let p = parse("dialect bfj\ninit { m = new }\nthread { acq(m); acq(m) }\nthread { rel(m); acq(m) }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let (t1, t2) = (thread_id(0), thread_id(1));
        assert_eq!(m.step(&mut st, t1, 0), Ok(Some(EventKind::Acquire(LockId::Obj(ObjId(0))))));
        assert_eq!(st.objects[0].lock_owner, Some(t1));
        assert_eq!(m.step(&mut st.clone(), t1, 0), blocked("acq(m) of a lock it already holds (locks are not reentrant)"));
        assert_eq!(m.step(&mut st, t2, 0), f("rel(m) of a lock the thread does not hold"));
    }

    #[test]
    fn a_sync_block_releases_at_its_end_and_excludes_others_meanwhile() {
        let p = parse("dialect bfj\ninit { m = new; o = new }\nthread { sync(m) { o.f = 1 } }\nthread { acq(m) }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let (t1, t2) = (thread_id(0), thread_id(1));
        assert_eq!(m.step(&mut st, t1, 0), Ok(Some(EventKind::Acquire(LockId::Obj(ObjId(0))))));
        assert_eq!(m.step(&mut st.clone(), t2, 0), blocked("lock m held by T1"));
        assert!(matches!(m.step(&mut st, t1, 0), Ok(Some(EventKind::Access(AccessKind::Write, _)))));
        assert_eq!(m.next_line(&st, t1), Some(3), "the release is an action of its own, at the `sync` line");
        assert_eq!(m.step(&mut st, t1, 0), Ok(Some(EventKind::Release(LockId::Obj(ObjId(0))))));
        assert_eq!((st.objects[0].lock_owner, st.threads[0].status.clone()), (None, Status::Done));
        assert_eq!(m.step(&mut st, t2, 0), Ok(Some(EventKind::Acquire(LockId::Obj(ObjId(0))))));
    }

    const CAPSULE: &str = "capsule class K { fields f; method m() { this.f = 1 } method again() { this.again() } }\ninit { k = new K }\n";

    #[test]
    fn a_capsule_is_no_lock_and_is_entered_by_one_thread_at_a_time() {
        let src = format!("dialect capjava\n{CAPSULE}thread {{ k.m() }}\nthread {{ k.m() }}\nthread {{ acq(k) }}\nthread {{ k.f = 2 }}\nthread {{ k.again() }}\n");
        let p = parse(&src).unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let t = thread_id;
        assert_eq!(m.step(&mut st.clone(), t(2), 0), f("a capsule cannot be used as a lock"));
        assert_eq!(m.step(&mut st.clone(), t(3), 0), f("capsule violation: field of capsule k accessed from outside it"));
        assert_eq!(m.step(&mut st, t(0), 0), Ok(Some(EventKind::Enter(ObjId(0)))));
        assert_eq!((st.executor(t(0)), st.objects[0].capsule_holder), (Some(ObjId(0)), Some(t(0))));
        assert_eq!(m.step(&mut st.clone(), t(1), 0), blocked("capsule k is occupied by T1"));
        assert!(matches!(m.step(&mut st, t(0), 0), Ok(Some(EventKind::Access(AccessKind::Write, _)))), "inside, the fields are accessible");
        assert_eq!(m.step(&mut st, t(0), 0), Ok(Some(EventKind::Exit(ObjId(0)))));
        assert_eq!(st.objects[0].capsule_holder, None);
        // A re-entrant call into the capsule one is running in is stuck.
        let mut st = m.initial_state().unwrap();
        assert_eq!(m.step(&mut st, t(4), 0), Ok(Some(EventKind::Enter(ObjId(0)))));
        assert_eq!(m.step(&mut st, t(4), 0), f("re-entrant call into capsule k"));
    }

    #[test]
    fn cap_free_needs_earlier_exits_to_happen_before_an_enter() {
        let violation = f("capsule violation (capFree): an earlier exit from k does not happen-before this enter");
        for (dialect, second) in [("capjava", violation), ("simplejava", Ok(Some(EventKind::Enter(ObjId(0)))))] {
            let p = parse(&format!("dialect {dialect}\n{CAPSULE}thread {{ k.m() }}\nthread {{ k.m() }}\n")).unwrap();
            let m = Machine::new(&p, 2);
            let mut st = m.initial_state().unwrap();
            for _ in 0..3 {
                m.step(&mut st, thread_id(0), 0).unwrap();
            }
            assert_eq!(st.threads[0].status, Status::Done);
            assert_eq!(m.step(&mut st, thread_id(1), 0), second, "{dialect}");
        }
    }
}
