//! BigFoot (spec/bigfoot.md; seed 003 ch. 3, PLDI 2017): static check placement
//! ([`placement`], over the analysis contexts of [`context`]) and its run-time checker,
//! DynamicBF ([`dynamic`], §7).

pub mod context;
pub mod dynamic;
pub mod placement;
