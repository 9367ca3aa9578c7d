//! Events: what one step of one thread does that matters for races.
//!
//! The action sets of the papers (docs/spec/racerdx.md §2.5 accesses; docs/spec/bigfoot.md §1.1
//! `acc/check/acq/rel`; docs/spec/escape_capsule.md §2.1, §7.1 `read/write/acq/rel/fork/enter/exit`)
//! are united here. Dereferencing the prefix of a path is *not* an access (Def. 3.1/3.6), and
//! allocation is not an access (E-NEW).

use std::fmt;

use super::Value;
use crate::lang::AccessKind;

/// A thread, numbered in creation order within one execution (0-based). Defined with the
/// vector clocks it indexes (the `clock` module sits below the machine).
pub use crate::clock::ThreadId;

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

/// A heap address: a field of an object or an element of an array (docs/spec/bigfoot.md §2.2 `l`).
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

/// The values an event moves (docs/spec/escape_capsule.md §2.1 `t:write l v`, `t:read l v`,
/// `t:fork p t'`; §7.1 `t:enter k v̄`, `t:exit k v`): what a dynamic escape or capsule
/// analysis sees besides the addresses, as RoadRunner's instrumentation does. Recorded
/// only where [`super::Semantics::values`] is set; [`Moved::Nothing`] elsewhere.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum Moved {
    /// No value (synchronization, or a dialect that does not record values).
    #[default]
    Nothing,
    /// The value read or written, the thread object of a fork (`p` of `p.run()`), or the
    /// value a capsule method returns at its exit.
    One(Value),
    /// The arguments of a capsule method, at its enter.
    Args(Box<[Value]>),
}

impl Moved {
    /// Every value moved, in order.
    pub fn values(&self) -> &[Value] {
        match self {
            Moved::Nothing => &[],
            Moved::One(v) => std::slice::from_ref(v),
            Moved::Args(vs) => vs,
        }
    }
}

/// A capsule violation (docs/spec/escape_capsule.md §7.5, §9.4): a step the formal CapJava
/// semantics disables, taken anyway in the operational mode
/// ([`super::Machine::operational`]) and marked on its event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Violation {
    /// A field of capsule k accessed while the innermost executing capsule is not k
    /// (CAPREAD/CAPWRITE, object-based: spec A18).
    Encapsulation,
    /// An enter into a capsule some thread is inside (the same one included: re-entry).
    Occupied,
    /// An enter that an earlier exit from the capsule does not happen-before (`capFree`).
    CapFree,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Violation::Encapsulation => "a capsule's field accessed from outside the capsule",
            Violation::Occupied => "an enter into a capsule that a thread is inside",
            Violation::CapFree => "an enter that an earlier exit from the capsule does not happen-before (capFree)",
        })
    }
}

/// One event of a trace.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Event {
    /// Position in the trace.
    pub idx: EventIdx,
    /// The thread that performed it.
    pub thread: ThreadId,
    /// Source line of the statement that produced it.
    pub line: u32,
    /// What it did.
    pub kind: EventKind,
    /// The values it moved ([`Moved::Nothing`] where the semantics records none).
    pub moved: Moved,
    /// The capsule violation this step is, in the operational mode.
    pub violation: Option<Violation>,
}

impl Event {
    /// An event that moves no value and is no violation.
    pub fn plain(idx: EventIdx, thread: ThreadId, line: u32, kind: EventKind) -> Event {
        Event { idx, thread, line, kind, moved: Moved::Nothing, violation: None }
    }

    /// The address and kind, if the event is a heap access.
    pub fn access(&self) -> Option<(AccessKind, Addr)> {
        match self.kind {
            EventKind::Access(k, a) => Some((k, a)),
            _ => None,
        }
    }
}

/// The vector clocks of threads and locks as a trace unfolds: the one implementation of the
/// happens-before rules ([`crate::clock`]), keyed by this machine's locks. Used to stamp
/// traces (`race::Hb`) and by the machine where the semantics itself needs happens-before
/// (CapJava's `capFree`).
pub type Clocks = crate::clock::Clocks<LockId>;

impl Clocks {
    /// The incoming edges of an event by `t` (acquire, join): they count before the event.
    pub fn before(&mut self, t: ThreadId, ev: EventKind) {
        match ev {
            EventKind::Acquire(l) => self.acquire(t, &l),
            EventKind::Join(u) => self.join(t, u),
            _ => {}
        }
    }

    /// The outgoing edges of an event by `t` (release, fork): they count after the event,
    /// and the thread starts a new epoch.
    pub fn after(&mut self, t: ThreadId, ev: EventKind) {
        match ev {
            EventKind::Release(l) => self.release(t, l),
            EventKind::Fork(u) => self.fork(t, u),
            _ => {}
        }
    }
}
