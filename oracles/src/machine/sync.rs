//! Synchronization: lock acquisition and release (RacerDX's reentrant global lock, the
//! non-reentrant object locks of BFJ and SimpleJava), capsule occupancy and CapJava's
//! `capFree` (spec/racerdx.md §2.3; spec/bigfoot.md §2.3; spec/escape_capsule.md §7.3–7.4).

use super::*;

/// CapJava's `capFree` (spec/escape_capsule.md §7.4): a thread may enter capsule k only if
/// every earlier exit from k happens-before the enter. Happens-before comes from
/// `race::Clocks` (the same rules that stamp traces); `exits[k]` is the join of the clocks
/// of all exits from k, and an enter needs `exits[k] ⊑ C_t` ([REC] in §7.4).
#[derive(Clone, Debug, Default)]
pub(super) struct CapFree {
    pub(super) clocks: crate::race::Clocks,
    pub(super) exits: std::collections::BTreeMap<ObjId, crate::race::VClock>,
}

impl CapFree {
    /// Whether every earlier exit from `k` happens-before the current point of `t`.
    pub(super) fn may_enter(&mut self, t: ThreadId, k: ObjId) -> bool {
        let exits = self.exits.get(&k).cloned().unwrap_or_default();
        exits.le(self.clocks.clock(t))
    }

    pub(super) fn apply(&mut self, t: ThreadId, ev: EventKind) {
        self.clocks.before(t, ev);
        if let EventKind::Exit(k) = ev {
            let c = self.clocks.clock(t).clone();
            self.exits.entry(k).or_default().join(&c);
        }
        self.clocks.after(t, ev);
    }
}

impl<'p> State<'p> {
    /// The innermost capsule the thread executes in (CapJava's `executor`), if any.
    pub(super) fn executor(&self, t: ThreadId) -> Option<ObjId> {
        self.threads[idx_t(t)].frames.iter().rev().find_map(|f| f.capsule)
    }

    pub(super) fn enter_capsule(&mut self, t: ThreadId, k: ObjId) -> Step<()> {
        if let Some(cf) = &mut self.capfree {
            if !cf.may_enter(t, k) {
                return fault(format!("capsule violation (capFree): an earlier exit from {} does not happen-before this enter", self.objects[idx(k)].name));
            }
        }
        match self.objects[idx(k)].capsule_holder {
            None => {
                self.objects[idx(k)].capsule_holder = Some(t);
                Ok(())
            }
            Some(u) if u == t => fault(format!("re-entrant call into capsule {}", self.objects[idx(k)].name)),
            Some(u) => Err(Disabled::Blocked(format!("capsule {} is occupied by {}", self.objects[idx(k)].name, self.threads[idx_t(u)].name))),
        }
    }

    /// The object in `x`, if its lock is free (locks are not reentrant in BFJ/SimpleJava/CapJava).
    pub(super) fn lockable(&self, m: &Machine<'p>, t: ThreadId, x: &str) -> Step<ObjId> {
        let o = self.obj_of(t, x)?;
        if m.is_capsule(self, o) {
            return fault("a capsule cannot be used as a lock");
        }
        match self.objects[idx(o)].lock_owner {
            None => Ok(o),
            Some(u) if u == t => Err(Disabled::Blocked(format!("acq({x}) of a lock it already holds (locks are not reentrant)"))),
            Some(u) => Err(Disabled::Blocked(format!("lock {} held by {}", self.objects[idx(o)].name, self.threads[idx_t(u)].name))),
        }
    }
}

impl<'p> Machine<'p> {
    pub(super) fn is_capsule(&self, st: &State<'p>, o: ObjId) -> bool {
        st.objects[idx(o)].class.is_some_and(|c| self.program.classes[c].capsule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;

    #[test]
    fn object_locks_are_not_reentrant_and_release_needs_the_holder() {
        let p = parse("dialect bfj\ninit { m = new }\nthread { acq(m); acq(m) }\nthread { rel(m) }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        assert!(matches!(m.step(&mut st, thread_id(0), 0), Ok(Some(EventKind::Acquire(LockId::Obj(_))))));
        // BFJ's acq blocks while the lock is held, even by the acquirer.
        assert!(matches!(m.step(&mut st.clone(), thread_id(0), 0), Err(Disabled::Blocked(_))));
        // A release by a thread that does not hold the lock is stuck.
        assert!(matches!(m.step(&mut st, thread_id(1), 0), Err(Disabled::Fault(_))));
    }

    #[test]
    fn the_global_lock_is_reentrant_and_excludes_other_threads() {
        let p = parse("dialect racerdx\nmethod a(arg1) { lock; lock; unlock; unlock }\nmethod b(arg1) { lock; unlock }\n").unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.method_threads(&["a", "b"], vec![], &[]).unwrap();
        let (ta, tb) = (thread_id(0), thread_id(1));
        assert_eq!(m.step(&mut st, ta, 0), Ok(Some(EventKind::Acquire(LockId::Global))));
        assert_eq!(m.step(&mut st, ta, 0), Ok(Some(EventKind::Acquire(LockId::Global))));
        assert!(matches!(m.step(&mut st.clone(), tb, 0), Err(Disabled::Blocked(_))));
        assert_eq!(m.step(&mut st, ta, 0), Ok(Some(EventKind::Release(LockId::Global))));
        assert!(matches!(m.step(&mut st.clone(), tb, 0), Err(Disabled::Blocked(_))), "one unlock of two still holds the lock");
        assert_eq!(m.step(&mut st, ta, 0), Ok(Some(EventKind::Release(LockId::Global))));
        assert_eq!(m.step(&mut st, tb, 0), Ok(Some(EventKind::Acquire(LockId::Global))));
    }
}
