//! Events: what one step of one thread does that matters for races.
//!
//! The action sets of the papers (spec/racerdx.md §2.5 accesses; spec/bigfoot.md §1.1
//! `acc/check/acq/rel`; spec/escape_capsule.md §2.1, §7.1 `read/write/acq/rel/fork/enter/exit`)
//! are united here. Dereferencing the prefix of a path is *not* an access (Def. 3.1/3.6), and
//! allocation is not an access (E-NEW).

use std::fmt;

use crate::lang::AccessKind;

/// A thread, numbered in creation order within one execution (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct ThreadId(pub u32);

/// An object, numbered in allocation order within one execution. Not stable across
/// executions: compare objects across executions by their display names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct ObjId(pub u32);

/// An interned field name (index into the program's sorted field table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct FieldId(pub u16);

/// The position of an event in its trace (0-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct EventIdx(pub u32);

/// A heap address: a field of an object or an element of an array (spec/bigfoot.md §2.2 `l`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Addr {
    /// `ρ.f`
    Field(ObjId, FieldId),
    /// `ρ[i]`
    Index(ObjId, i64),
}

impl Addr {
    /// The object the address belongs to.
    pub fn obj(self) -> ObjId {
        match self {
            Addr::Field(o, _) | Addr::Index(o, _) => o,
        }
    }
}

/// A lock: RacerDX's single global lock, or an object's monitor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum LockId {
    /// `lock`/`unlock`
    Global,
    /// `acq(x)`/`rel(x)`/`sync(x)`
    Obj(ObjId),
}

/// What an event does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum EventKind {
    /// A read or write of an address.
    Access(AccessKind, Addr),
    /// Lock acquire (each `lock` of the reentrant global lock is one).
    Acquire(LockId),
    /// Lock release.
    Release(LockId),
    /// This thread forked the given thread.
    Fork(ThreadId),
    /// This thread joined the given (finished) thread.
    Join(ThreadId),
    /// A BFJ race check of one address.
    Check(AccessKind, Addr),
    /// Entry into a capsule method of the given capsule object.
    Enter(ObjId),
    /// Exit from a capsule method.
    Exit(ObjId),
}

/// One event of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Event {
    /// Position in the trace.
    pub idx: EventIdx,
    /// The thread that performed it.
    pub thread: ThreadId,
    /// Source line of the statement that produced it.
    pub line: u32,
    /// What it did.
    pub kind: EventKind,
}

impl Event {
    /// The address and kind, if the event is a heap access.
    pub fn access(&self) -> Option<(AccessKind, Addr)> {
        match self.kind {
            EventKind::Access(k, a) => Some((k, a)),
            _ => None,
        }
    }
}

impl fmt::Display for ThreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}
