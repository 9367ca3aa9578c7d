//! One trace as the Miri driver's arguments (`drivers/miri/src/main.rs` documents them), and
//! the layout they give the replay: every cell of every object is one `AtomicI64` of a
//! single allocation, so the offset in a Miri report is the cell's index
//! (docs/spec/atomics.md §6.2: cells are atomics, plain accesses go through `as_ptr`).

use std::collections::{BTreeMap, BTreeSet};

use race_oracles::lang::{AccessKind, Order};
use race_oracles::machine::{Addr, AtomicKind, Event, EventKind, LockId, ThreadId};

/// Why a trace has no replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// An array cell below 0 (the machine faults first; kept as a value all the same).
    #[error("event {0} accesses a negative array index")]
    NegativeIndex(usize),
}

/// A trace as the driver replays it: its arguments and each cell's index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// The driver's arguments, one item each.
    pub args: Vec<String>,
    /// Each address the trace touches, by its index in the cells' allocation.
    pub cells: Vec<Addr>,
}

/// The trace's addresses, sorted: a cell's index in the replay's allocation.
fn cells(trace: &[Event]) -> Vec<Addr> {
    trace.iter().filter_map(|e| e.mem_access()).map(|m| m.addr).collect::<BTreeSet<_>>().into_iter().collect()
}

/// The trace's locks, sorted: a lock's index in the replay.
fn locks(trace: &[Event]) -> Vec<LockId> {
    let lock = |e: &Event| match e.kind {
        EventKind::Acquire(l) | EventKind::Release(l) => Some(l),
        _ => None,
    };
    trace.iter().filter_map(lock).collect::<BTreeSet<_>>().into_iter().collect()
}

/// An order as the driver reads it (`r a c R s`).
fn order(o: Order) -> char {
    match o {
        Order::Relaxed => 'r',
        Order::Acquire => 'a',
        Order::Release => 'c',
        Order::AcqRel => 'R',
        Order::SeqCst => 's',
    }
}

/// The driver's arguments for `trace`: the counts, the threads `main` starts (those no
/// event forks, by number), then one item per event in trace order.
///
/// # Errors
/// [`EncodeError::NegativeIndex`].
pub fn encode(trace: &[Event]) -> Result<Encoded, EncodeError> {
    if let Some(e) = trace.iter().find(|e| matches!(e.mem_access(), Some(m) if matches!(m.addr, Addr::Index(_, i) if i < 0))) {
        return Err(EncodeError::NegativeIndex(e.idx.0 as usize));
    }
    let cells = cells(trace);
    let locks = locks(trace);
    let index: BTreeMap<Addr, usize> = cells.iter().enumerate().map(|(i, a)| (*a, i)).collect();
    let lock: BTreeMap<LockId, usize> = locks.iter().enumerate().map(|(i, l)| (*l, i)).collect();
    let forked: BTreeSet<ThreadId> = trace.iter().filter_map(|e| if let EventKind::Fork(t) = e.kind { Some(t) } else { None }).collect();
    let threads: BTreeSet<ThreadId> = trace.iter().map(|e| e.thread).chain(forked.iter().copied()).collect();
    let count = threads.iter().map(|t| t.0 as usize + 1).max().unwrap_or(0);
    let mut args = vec![format!("cells {}", cells.len()), format!("locks {}", locks.len()), format!("threads {count}")];
    args.extend(threads.iter().filter(|t| !forked.contains(t)).map(|t| format!("start {}", t.0)));
    for e in trace {
        let op = match e.kind {
            EventKind::Access(AccessKind::Read, a) => format!("r {}", index[&a]),
            EventKind::Access(AccessKind::Write, a) => format!("w {}", index[&a]),
            EventKind::Atomic(AtomicKind::Load(o), a) => format!("L {} {}", index[&a], order(o)),
            EventKind::Atomic(AtomicKind::Store(o), a) => format!("S {} {}", index[&a], order(o)),
            EventKind::Atomic(AtomicKind::Rmw(o), a) => format!("X {} {}", index[&a], order(o)),
            EventKind::Atomic(AtomicKind::CasFailed { success, failure }, a) => format!("K {} {} {}", index[&a], order(success), order(failure)),
            EventKind::Fence(o) => format!("F {}", order(o)),
            EventKind::Acquire(l) => format!("a {}", lock[&l]),
            EventKind::Release(l) => format!("l {}", lock[&l]),
            EventKind::Fork(t) => format!("f {}", t.0),
            EventKind::Join(t) => format!("j {}", t.0),
            EventKind::Check(..) | EventKind::Enter(_) | EventKind::Exit(_) => "n".into(),
        };
        args.push(format!("{} {op}", e.thread.0));
    }
    Ok(Encoded { args, cells })
}
