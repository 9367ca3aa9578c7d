//! How a system under test meets a program with atomic operations and fences
//! (docs/spec/atomics.md): it models them, it runs them strengthened, or it refuses them.
//! Never a verdict on what it does not see.

use race_oracles::lang::Program;
use race_oracles::theorems::{Oracle, OracleResult};

use super::Subject;

/// A SUT's stance on atomics ([`super::SutEntry::atomics`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Atomics {
    /// It does not model them: a program with them is `inconclusive`, naming the
    /// assumption (`refusal`).
    Refused,
    /// It models them: its own implementation does (FastTrack, spec §4.2) or its replay
    /// performs them (the C replay of ThreadSanitizer, Helgrind and DRD, §6.1; Miri's, §6.2).
    Modelled,
    /// Its atomics are all sequentially consistent (Go's `sync/atomic`, spec §5.5): it runs
    /// and is judged on `strengthen(p)` ([`Program::strengthened`], spec §6.3), every order
    /// `seq_cst` and every fence dropped; what it says of `p` itself is out of its reach.
    Strengthened,
}

impl Atomics {
    /// Whether it judges programs with atomics at all.
    pub fn judges(self) -> bool {
        self != Atomics::Refused
    }

    /// The program the SUT is judged on in place of `p`: `strengthen(p)` for
    /// [`Atomics::Strengthened`] when `p` has atomics, else none (`p` itself).
    pub fn judged_program(self, p: &Program) -> Option<Program> {
        (self == Atomics::Strengthened && p.has_atomics()).then(|| p.strengthened())
    }
}

/// What a result says when its SUT was judged on `strengthen(p)`: shown beside a failure,
/// with the program it was judged on.
pub fn strengthened_context(judged: &Program) -> String {
    format!(
        "judged on strengthen(p) (docs/spec/atomics.md §6.3): every order seq_cst, every fence a skip, as the SUT's atomics are sequentially consistent:\n{}",
        race_oracles::lang::print(judged)
    )
}

/// The refusal of a program with atomics by a SUT that does not model them
/// ([`Atomics::Refused`]): `inconclusive`, naming the assumption (and the SUT by its catalogue
/// name; `super::check` adds the mutant, as to every result).
pub fn refusal(oracle: &Oracle, p: &Program, subject: &Subject) -> Option<OracleResult> {
    if subject.entry().atomics.judges() || !p.has_atomics() {
        return None;
    }
    let note = format!(
        "precondition unmet: atomics: {} does not model atomic operations and fences yet (docs/spec/atomics.md), so programs with them are refused, not judged",
        subject.entry().name
    );
    Some(OracleResult::inconclusive(oracle.id, subject.entry().name.to_string(), oracle.item_kind, note))
}
