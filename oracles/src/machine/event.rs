//! Events: what one step of one thread does that matters for races.
//!
//! The action sets of the papers (docs/spec/racerdx.md §2.5 accesses; docs/spec/bigfoot.md §1.1
//! `acc/check/acq/rel`; docs/spec/escape_capsule.md §2.1, §7.1 `read/write/acq/rel/fork/enter/exit`)
//! are united here. Dereferencing the prefix of a path is *not* an access (Def. 3.1/3.6), and
//! allocation is not an access (E-NEW).

use std::fmt;

use super::Value;
use crate::lang::{AccessKind, Order};

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
    /// An atomic access of an address (docs/spec/atomics.md §1.1): one step, whatever the
    /// operation.
    Atomic(AtomicKind, Addr),
    /// A fence (docs/spec/atomics.md §1.1): touches no address.
    Fence(Order),
}

/// What an atomic access does (docs/spec/atomics.md §1.1), with its orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum AtomicKind {
    /// `ALoad(o, a)`: `r = x.f.load(o)`.
    Load(Order),
    /// `AStore(o, a)`: `x.f.store(v, o)`.
    Store(Order),
    /// `ARmw(o, a)`: `fetch_add`, `xchg`, or a compare-exchange that stored (with its success
    /// order).
    Rmw(Order),
    /// A compare-exchange that failed: an atomic *load* with the failure order, marked
    /// `cas_failed` (\[T\] `[atomics.types.operations]`).
    CasFailed {
        /// The success order it would have had.
        success: Order,
        /// The failure order it has.
        failure: Order,
    },
}

impl AtomicKind {
    /// Whether it reads the address (every kind but a store).
    pub fn reads(self) -> bool {
        !matches!(self, AtomicKind::Store(_))
    }

    /// Whether it writes the address (store, RMW; a failed CAS is a read, spec §1.3).
    pub fn writes(self) -> bool {
        matches!(self, AtomicKind::Store(_) | AtomicKind::Rmw(_))
    }

    /// The order of the access (a failed CAS: the failure order).
    pub fn order(self) -> Order {
        match self {
            AtomicKind::Load(o) | AtomicKind::Store(o) | AtomicKind::Rmw(o) => o,
            AtomicKind::CasFailed { failure, .. } => failure,
        }
    }

    /// Whether it is an *acquire read* (docs/spec/atomics.md §2.3): a read whose order acquires.
    pub fn acquire_read(self) -> bool {
        self.reads() && self.order().acquires()
    }

    /// Whether it is a *release write* (docs/spec/atomics.md §2.2): a write whose order releases.
    pub fn release_write(self) -> bool {
        self.writes() && self.order().releases()
    }

    /// Whether it is a compare-exchange (whatever its outcome), which DPOR and the class
    /// counter take as a write (docs/spec/atomics.md §7 \[C\]). A successful CAS is an RMW
    /// and is a write anyway.
    pub fn is_failed_cas(self) -> bool {
        matches!(self, AtomicKind::CasFailed { .. })
    }

    /// Its name in traces and witnesses (`load(acquire)`, `cas-failed(acquire, relaxed)`).
    pub fn describe(self) -> String {
        match self {
            AtomicKind::Load(o) => format!("load({o})"),
            AtomicKind::Store(o) => format!("store({o})"),
            AtomicKind::Rmw(o) => format!("rmw({o})"),
            AtomicKind::CasFailed { success, failure } => format!("cas-failed({success}, {failure})"),
        }
    }
}

/// A memory access of an event, plain or atomic, as the race definition sees it
/// (docs/spec/atomics.md §0 (decision 3), §1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemAccess {
    /// The address.
    pub addr: Addr,
    /// Whether it writes (plain writes, atomic stores and RMWs).
    pub write: bool,
    /// Whether it is atomic.
    pub atomic: bool,
}

impl MemAccess {
    /// Whether `self` and `other` conflict for the race definition: the same address, at
    /// least one writes, at least one is non-atomic (spec §0 (decision 3), §1.3; two atomic accesses
    /// never race, \[T\] `[intro.races]/21`).
    pub fn races_with(self, other: MemAccess) -> bool {
        self.addr == other.addr && (self.write || other.write) && !(self.atomic && other.atomic)
    }
}

/// The values an event moves (docs/spec/escape_capsule.md §2.1 `t:write l v`, `t:read l v`,
/// `t:fork p t'`; §7.1 `t:enter k v̄`, `t:exit k v`): what a dynamic escape or capsule
/// analysis sees besides the addresses, as RoadRunner's instrumentation does. Recorded
/// where [`super::Semantics::values`] is set, and for atomic events in every dialect
/// (docs/spec/atomics.md §6.1); [`Moved::Nothing`] elsewhere, and on DPOR's traces.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum Moved {
    /// No value (synchronization, or a dialect that does not record values).
    #[default]
    Nothing,
    /// The value read or written, the thread object of a fork (`p` of `p.run()`), or the
    /// value a capsule method returns at its exit.
    One(Value),
    /// The arguments of a capsule method, at its enter; for an atomic RMW, the value read
    /// and the value written.
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

    /// The address and kind, if the event is a plain (non-atomic) heap access.
    pub fn access(&self) -> Option<(AccessKind, Addr)> {
        match self.kind {
            EventKind::Access(k, a) => Some((k, a)),
            _ => None,
        }
    }

    /// The memory access of the event, plain or atomic (docs/spec/atomics.md §1.3).
    pub fn mem_access(&self) -> Option<MemAccess> {
        self.kind.mem_access()
    }
}

impl EventKind {
    /// The memory access of the event, plain or atomic (docs/spec/atomics.md §1.3); checks are
    /// not memory accesses.
    pub fn mem_access(self) -> Option<MemAccess> {
        match self {
            EventKind::Access(k, addr) => Some(MemAccess { addr, write: k == AccessKind::Write, atomic: false }),
            EventKind::Atomic(k, addr) => Some(MemAccess { addr, write: k.writes(), atomic: true }),
            _ => None,
        }
    }

    /// Whether the event is an atomic access or a fence (docs/spec/atomics.md §1.1).
    pub fn is_atomic(self) -> bool {
        matches!(self, EventKind::Atomic(..) | EventKind::Fence(_))
    }
}

/// The vector clocks of threads, locks and atomics as a trace unfolds: the one
/// implementation of the happens-before rules ([`crate::clock`]; atomics and fences by
/// docs/spec/atomics.md §4.2), keyed by this machine's locks and addresses. Used to stamp
/// traces (`race::Hb`) and by the machine where the semantics itself needs happens-before
/// (CapJava's `capFree`).
pub type Clocks = crate::clock::Clocks<LockId, Addr>;

impl Clocks {
    /// The incoming edges of an event by `t` (acquire, join, an atomic read, an acquire
    /// fence): they count before the event.
    pub fn before(&mut self, t: ThreadId, ev: EventKind) {
        match ev {
            EventKind::Acquire(l) => self.acquire(t, &l),
            EventKind::Join(u) => self.join(t, u),
            EventKind::Atomic(k, m) if k.reads() => self.atomic_read(t, &m, k.acquire_read()),
            EventKind::Fence(o) if o.acquires() => self.fence_acquire(t),
            _ => {}
        }
    }

    /// The outgoing edges of an event by `t` (release, fork, a release write, a release
    /// fence; and a plain or relaxed write's effect on `W`): they count after the event,
    /// and a releasing one starts a new epoch.
    pub fn after(&mut self, t: ThreadId, ev: EventKind) {
        match ev {
            EventKind::Release(l) => self.release(t, l),
            EventKind::Fork(u) => self.fork(t, u),
            EventKind::Access(AccessKind::Write, m) => self.plain_write(&m),
            EventKind::Atomic(AtomicKind::Store(o), m) => self.atomic_store(t, m, o.releases()),
            EventKind::Atomic(AtomicKind::Rmw(o), m) => self.atomic_rmw(t, m, o.releases()),
            EventKind::Fence(o) if o.releases() => self.fence_release(t),
            _ => {}
        }
    }
}
