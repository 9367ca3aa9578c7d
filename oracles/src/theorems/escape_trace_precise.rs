//! `escape-trace-precise` (docs/spec/escape_capsule.md Theorem 4.5.3, §4.5 C1/C4,
//! §13 P-E1–P-E5): partial race-check elision by thread-escape analysis keeps the first
//! race of every trace: with the checks of not-yet-escaped objects elided, FastTrack on β
//! reports a race iff α has one, at α's first-race index j*, with α's partner set, and
//! never a race α lacks. Judged on every interleaving of SimpleJava programs
//! ([`super::trace_precision`]).
//!
//! Two negative controls, claims the thesis shows false (Fig. 4.2), which the fuzzer must
//! rediscover from scratch ([`Oracle::negative_control`]):
//! - [`ADDRESS_PRECISE`] (P-E8): the racy locations of β are those of α;
//! - [`ELIDED_RACE_FREE`] (P-E9): no elided access is part of any race.

use super::result::OracleResult;
use super::trace_precision::{self, Property};
use super::{Budget, Oracle, Reads, Sut, SutKind};
use crate::gen;
use crate::lang::{Dialect, Program};

/// `escape-trace-precise`.
pub const ORACLE: Oracle = Oracle {
    id: "escape-trace-precise",
    claim: "eliding checks on not-yet-escaped objects keeps the first race of every trace (Thm 4.5.3)",
    spec: "spec/escape_capsule.md §3, §4.5, §13 P-E1–P-E5",
    dialect: Dialect::SimpleJava,
    sut: SutKind::Filter,
    item_kind: "property",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[],
    scorecard: false,
    operational: None,
    generate: gen::java::swarm_simplejava,
    grammar: &gen::java::GRAMMAR_SIMPLEJAVA,
    check,
};

fn check(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    trace_precision::check(&ORACLE, p, sut, b, false, Property::TracePrecise)
}

/// `escape-address-precise`, a negative control (P-E8: false, Fig. 4.2).
pub const ADDRESS_PRECISE: Oracle = Oracle {
    id: "escape-address-precise",
    claim: "NEGATIVE CONTROL (false, Fig. 4.2): escape elision keeps every racy location (address precision, P-E8)",
    spec: "spec/escape_capsule.md §5.2, §13 P-E8",
    negative_control: true,
    check: check_address_precise,
    ..ORACLE
};

fn check_address_precise(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    trace_precision::check(&ADDRESS_PRECISE, p, sut, b, false, Property::AddressPrecise)
}

/// `escape-elided-race-free`, a negative control (P-E9: false, Fig. 4.2).
pub const ELIDED_RACE_FREE: Oracle = Oracle {
    id: "escape-elided-race-free",
    claim: "NEGATIVE CONTROL (false, Fig. 4.2): no elided access is ever part of a race (P-E9)",
    spec: "spec/escape_capsule.md §5.2, §13 P-E9",
    negative_control: true,
    check: check_elided_race_free,
    ..ORACLE
};

fn check_elided_race_free(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    trace_precision::check(&ELIDED_RACE_FREE, p, sut, b, false, Property::ElidedRaceFree)
}
