//! The small-step semantics: one thread step at a time, no scheduling (that is `explore`).
//!
//! One [`Machine::step`] executes the next action of one thread and yields at most one
//! [`EventKind`]. The rules follow, per dialect:
//! - RacerDX (docs/spec/racerdx.md §2.2–2.3, §7.1–7.2): `new` makes every field a self-loop; a
//!   store needs an existing cell; `unlock` at depth 0 is stuck; `lock` by thread i is enabled
//!   only when every other thread's depth is 0 (reentrant).
//! - BFJ (docs/spec/bigfoot.md §2.3): `acq` blocks while the lock is held, even by the acquirer
//!   (non-reentrant); `rel` by a non-holder is stuck; fields and array slots start at 0 (A25, §9.3).
//! - SimpleJava / CapJava (docs/spec/escape_capsule.md §2.2, §7.3): fields start at `null`; locks
//!   as in BFJ (CapJava's REL needs the holder; we use that for SimpleJava too \[C\]); capsule
//!   fields may be accessed only while the innermost executing capsule is that object, and a
//!   capsule cannot be locked or entered twice.
//!
//! The code is split by concept, as Miri splits its concurrency code:
//! - [`semantics`](Semantics): the per-dialect parameters; every dialect difference the
//!   rules know is a field or method of [`Semantics`];
//! - `value`: runtime values and why a step is disabled ([`Value`], [`Disabled`]);
//! - `heap`: cells, objects, allocation, writes and the lazy initial heap;
//! - `thread`: threads, frames, continuations and the next action of a thread;
//! - `state`: the [`Machine`] (program and parameters) and the [`State`], initial states;
//! - `cow`: the copy-on-write vectors of threads and objects that make a state cheap to clone;
//! - `eval`: expressions, places, the cells a heap access reads;
//! - `sync`: locks, capsules and CapJava's `capFree`: the whole acquire rule;
//! - `call`: calls, returns, `fork` and `join`;
//! - `atomic`: atomic operations and fences (docs/spec/atomics.md §1.1), one step each;
//! - `step`: the step function, one small function per statement kind;
//! - `next`: what the explorer asks about a thread's next step without taking it;
//! - `observe`: the values a step moves and the capsule violation it is (operational mode);
//! - `key`: a state's identity for the stateful explorer's visited set;
//! - `liveness`: loads whose value nobody reads (they need not fix lazy initial values);
//! - [`event`]: what a step yields.
//!
//! Layering: [`State`] owns the data and has data-only helpers (locals, frames, cells); the
//! rules are methods of [`Machine`], which holds the program, and take the state as an
//! argument. `State` never calls into `Machine`, except that the public
//! [`State::resolve_lazy`] and [`State::addr_name`] read the machine's field table.

mod atomic;
mod call;
mod cow;
mod eval;
pub mod event;
mod heap;
mod key;
mod liveness;
mod next;
mod observe;
mod semantics;
mod state;
mod step;
mod sync;
mod thread;
mod value;

pub use cow::CowVec;
pub use event::*;
pub use heap::{Cell, LazyRef, Object};
pub use semantics::{FieldInit, Semantics};
pub use state::{Machine, SetupError, State};
pub use thread::{thread_id, Status, Thread};
pub use value::{Disabled, Value};

use heap::*;
use sync::*;
use thread::*;
use value::*;
