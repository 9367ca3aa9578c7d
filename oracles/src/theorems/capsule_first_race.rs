//! `capsule-first-race` (docs/spec/escape_capsule.md Theorem 5.4.3, §9.4, §13
//! P-C1–P-C5): filtering capsule accesses and capsule-local accesses loses no first race:
//! on every formal CapJava trace (a capsule violation disables the step), FastTrack on β
//! reports a race iff α has one, at j*(α) with α's partner set, and never a race α
//! lacks; the filter reports no violation (there is none).
//!
//! [`OPERATIONAL`] (`capsule-first-race-operational`; spec A14(b), §9.4, P-C9/P-C10): the
//! machine takes violating steps and marks them. The filter must report its first
//! violation exactly at the semantics' first one (index v), and owes the first race only
//! when `j*(α) < v`; β never races where α does not. Judged on every interleaving
//! ([`super::trace_precision`]).

use super::result::OracleResult;
use super::trace_precision::{self, Property};
use super::{Budget, Oracle, Reads, Sut, SutKind};
use crate::gen;
use crate::lang::{Dialect, Program};

/// `capsule-first-race`.
pub const ORACLE: Oracle = Oracle {
    id: "capsule-first-race",
    claim: "filtering capsule-local accesses loses no first race on formal CapJava traces (Thm 5.4.3)",
    spec: "spec/escape_capsule.md §7–9, §13 P-C1–P-C5",
    dialect: Dialect::CapJava,
    sut: SutKind::Filter,
    item_kind: "property",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[],
    scorecard: false,
    operational: Some("capsule-first-race-operational"),
    generate: gen::java::swarm_capjava,
    grammar: &gen::java::GRAMMAR_CAPJAVA,
    check,
};

fn check(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    trace_precision::check(&ORACLE, p, sut, b, false, Property::TracePrecise)
}

/// `capsule-first-race-operational`.
pub const OPERATIONAL: Oracle = Oracle {
    id: "capsule-first-race-operational",
    claim: "with violations reported and the run going on, the first race before the first violation is kept, and violations are reported where they happen (P-C9, P-C10)",
    spec: "spec/escape_capsule.md §9.4, A14(b), §13 P-C9–P-C10",
    check: check_operational,
    // Its `operational` (inherited) names itself: `--operational` keeps it.
    ..ORACLE
};

fn check_operational(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    trace_precision::check(&OPERATIONAL, p, sut, b, true, Property::TracePrecise)
}
