//! RacerDX's race definition, Definition 3.6 (docs/spec/racerdx.md §2.5): a state races when two
//! threads' *next* statements are conflicting accesses to the same address (both enabled in
//! that state, at least one a write). It is a property of states, not of traces, so the
//! explorer (the module above this one) evaluates it at every branching state through its
//! state-predicate hook (`Config::state_predicate`); this module only says what a racing
//! state is.
//!
//! Deviations from the paper: none. The initial state counts too (the paper's bodies start
//! with `skip`, which makes it reachable after one step); `tests/explore.rs`
//! (`def36_agrees_with_happens_before`) pins the relation with the happens-before verdict.

use crate::lang::AccessKind;
use crate::machine::{thread_id, Addr, Machine, State, ThreadId};

/// One side of an enabled conflicting pair: who, what, where, and from which call chain.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EnabledAccess {
    /// The thread whose next statement makes the access.
    pub thread: ThreadId,
    /// Read or write.
    pub kind: AccessKind,
    /// The address.
    pub addr: Addr,
    /// The access statement's line.
    pub line: u32,
    /// The call-statement lines on the thread's stack, then the access line.
    pub site: Vec<u32>,
}

/// Two conflicting accesses enabled together in one state (Def. 3.6). Invariant: same
/// address, different threads, at least one write.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EnabledPair(pub [EnabledAccess; 2]);

/// Every Def. 3.6 race of a state: each pair of threads whose next statements are
/// conflicting accesses to one address. Threads in thread order; the lower thread first.
pub fn enabled_pairs<'p>(m: &Machine<'p>, st: &State<'p>) -> Vec<EnabledPair> {
    let next: Vec<EnabledAccess> = (0..st.threads.len())
        .filter_map(|i| {
            let t = thread_id(i);
            m.next_access(st, t).map(|(kind, addr, line)| {
                let mut site = m.call_sites(st, t);
                site.push(line);
                EnabledAccess { thread: t, kind, addr, line, site }
            })
        })
        .collect();
    let mut out = vec![];
    for (i, a) in next.iter().enumerate() {
        for b in &next[i + 1..] {
            if a.addr == b.addr && (a.kind == AccessKind::Write || b.kind == AccessKind::Write) {
                out.push(EnabledPair([a.clone(), b.clone()]));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::parse;
    use crate::machine::Machine;

    #[test]
    fn conflicting_next_accesses_race_and_reads_do_not() {
        let p = parse("dialect racerdx\nmethod w(arg1) { v = new; arg1.f = v }\nmethod r(arg1) { t = arg1.f }\n").unwrap();
        let m = Machine::new(&p, 2);
        let heap = vec![m.record("l0".into(), Some(crate::machine::Value::Obj(crate::machine::ObjId(0))))];
        let formals = vec![vec![Some(crate::machine::Value::Obj(crate::machine::ObjId(0)))]; 2];
        // Two readers: no race.
        let st = m.method_threads(&["r", "r"], heap.clone(), &formals).unwrap();
        assert!(enabled_pairs(&m, &st).is_empty());
        // A reader and a writer at its store: one race on l0.f.
        let mut st = m.method_threads(&["r", "w"], heap, &formals).unwrap();
        m.step(&mut st, thread_id(1), 0).unwrap();
        let pairs = enabled_pairs(&m, &st);
        assert_eq!(pairs.len(), 1);
        assert_eq!(pairs[0].0[0].kind, AccessKind::Read);
        assert_eq!(pairs[0].0[1].kind, AccessKind::Write);
        assert_eq!(st.addr_name(&m, pairs[0].0[0].addr), "l0.f");
    }
}
