//! Atomic operations and fences (docs/spec/atomics.md §1.1): each is one step with one event.
//!
//! An atomic read reads the cell as it is now, the last write to it in the trace (the
//! semantics stays SC, spec §0, decision 2); an RMW reads and writes in the same step, so it reads the
//! write just before it in modification order (spec §2.1). A compare-exchange compares
//! values ([`Value`] equality) and is strong: it fails only when the value differs (spec
//! §1.1 \[C\]). A failed CAS is an atomic load with the failure order
//! ([`AtomicKind::CasFailed`]). A fence touches no address. The values an atomic event moves
//! are recorded in every dialect (`observe`).

use super::*;
use crate::lang::{Atomic, RmwOp};

impl<'p> Machine<'p> {
    /// Executes an atomic statement of thread `t`.
    pub(super) fn atomic(&self, st: &mut State<'p>, t: ThreadId, a: &'p Atomic) -> Step<Option<EventKind>> {
        match a {
            Atomic::Fence(o) => {
                st.advance(t);
                Ok(Some(EventKind::Fence(*o)))
            }
            Atomic::Load { dst, place, order } => {
                let addr = self.resolve(st, t, place)?;
                let v = self.read(st, t, addr)?;
                st.advance(t);
                st.set_local(t, dst, v);
                Ok(Some(EventKind::Atomic(AtomicKind::Load(*order), addr)))
            }
            Atomic::Store { place, val, order } => {
                let v = st.eval(t, val)?;
                let addr = self.resolve(st, t, place)?;
                self.writable(st, t, addr)?;
                st.advance(t);
                st.write(addr, v);
                Ok(Some(EventKind::Atomic(AtomicKind::Store(*order), addr)))
            }
            Atomic::Rmw { dst, op, place, val, order } => {
                let v = st.eval(t, val)?;
                let addr = self.resolve(st, t, place)?;
                let old = self.read(st, t, addr)?;
                let new = match (op, old, v) {
                    (RmwOp::Xchg, _, v) => v,
                    (RmwOp::FetchAdd, Value::Int(x), Value::Int(y)) => Value::Int(x.checked_add(y).ok_or_else(|| Disabled::Fault("integer overflow".into()))?),
                    (RmwOp::FetchAdd, x, y) => return fault(format!("fetch_add of {} to {}, not integers", show_value(y), show_value(x))),
                };
                st.advance(t);
                st.write(addr, new);
                st.set_local(t, dst, old);
                Ok(Some(EventKind::Atomic(AtomicKind::Rmw(*order), addr)))
            }
            Atomic::Cas { dst, place, expected, new, success, failure } => {
                let e = st.eval(t, expected)?;
                let n = st.eval(t, new)?;
                let addr = self.resolve(st, t, place)?;
                let old = self.read(st, t, addr)?;
                st.advance(t);
                st.set_local(t, dst, Value::Bool(old == e));
                if old == e {
                    st.write(addr, n);
                    Ok(Some(EventKind::Atomic(AtomicKind::Rmw(*success), addr)))
                } else {
                    Ok(Some(EventKind::Atomic(AtomicKind::CasFailed { success: *success, failure: *failure }, addr)))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{parse, Order};

    /// Runs thread 0 to the end, returning its events and the final cells of object 0.
    fn run(src: &str) -> (Vec<EventKind>, Vec<Cell>, Status) {
        let p = parse(src).unwrap();
        let m = Machine::new(&p, 2);
        let mut st = m.initial_state().unwrap();
        let mut evs = vec![];
        while st.threads[0].status == Status::Running {
            match m.step(&mut st, thread_id(0), 0) {
                Ok(Some(e)) => evs.push(e),
                Ok(None) => {}
                Err(_) => break,
            }
        }
        (evs, st.objects[0].fields.clone(), st.threads[0].status.clone())
    }

    #[test]
    fn each_atomic_is_one_step_and_a_cas_compares_values() {
        let src = "dialect bfj\ninit { o = new }\nthread {\n  o.f.store(5, release)\n  r = o.f.fetch_add(2, relaxed)\n  ok = o.f.cas(5, 9, acq_rel, acquire)\n  ok2 = o.f.cas(7, 1, seq_cst, relaxed)\n  s = o.f.xchg(ok2, seq_cst)\n  fence(acquire)\n  t = o.f.load(seq_cst)\n  o.g = r + t\n}\n";
        let (evs, cells, status) = run(src);
        let f = Addr::Field(ObjId(0), FieldId(0));
        assert_eq!(
            evs,
            [
                EventKind::Atomic(AtomicKind::Store(Order::Release), f),
                EventKind::Atomic(AtomicKind::Rmw(Order::Relaxed), f),
                EventKind::Atomic(AtomicKind::CasFailed { success: Order::AcqRel, failure: Order::Acquire }, f),
                EventKind::Atomic(AtomicKind::Rmw(Order::SeqCst), f),
                EventKind::Atomic(AtomicKind::Rmw(Order::SeqCst), f),
                EventKind::Fence(Order::Acquire),
                EventKind::Atomic(AtomicKind::Load(Order::SeqCst), f),
            ]
        );
        // r = 5 (old), f = 7 after fetch_add; the first CAS fails (7 ≠ 5), the second stores 1;
        // xchg stores ok2 = true and returns 1; t = true: `r + t` faults, so g was never written.
        assert_eq!(status, Status::Running, "the last statement faults: 5 + true");
        assert_eq!(cells[0], Cell::Val(Value::Bool(true)));
    }

    #[test]
    fn fetch_add_needs_integers() {
        let (evs, _, _) = run("dialect simplejava\nclass C { fields f }\nthread { o = new C; r = o.f.fetch_add(1, relaxed) }\n");
        assert!(evs.is_empty(), "null + 1 faults: {evs:?}");
    }
}
