//! BigFoot (spec/bigfoot.md): its run-time checker, DynamicBF (§7).

pub mod dynamic;
