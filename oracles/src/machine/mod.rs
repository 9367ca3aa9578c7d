//! The small-step semantics: one thread step at a time, no scheduling (that is `explore`),
//! split by concept as Miri splits its concurrency code: [`value`] (values, cells, objects,
//! per-dialect [`Semantics`]), [`thread`] (threads, frames, continuations), [`state`] (the
//! machine, the whole state, initial states and lazy initial heaps), [`eval`] (expressions
//! and places), [`sync`] (locks, capsules, capFree) and [`step`] (the step function);
//! [`event`] is what a step yields.

mod eval;
pub mod event;
mod state;
mod step;
mod sync;
mod thread;
mod value;

pub use event::*;
pub use state::*;
use sync::*;
pub use thread::*;
pub use value::*;
