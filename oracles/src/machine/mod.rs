//! The small-step semantics: one thread step at a time, no scheduling (that is `explore`).

pub mod event;
pub mod state;

pub use event::*;
pub use state::*;
