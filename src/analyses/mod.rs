//! The systems under test. Each implements a trait from `race_oracles::theorems` and may use
//! the IR and the machine's events, never the ground truth's explorer or race logic.

pub mod bigfoot;
pub mod capsule;
pub mod escape;
pub mod fasttrack;
pub mod ldrf;
pub mod naik_aiken;
pub mod object_graph;
pub mod per_access;
pub mod racerdx;
