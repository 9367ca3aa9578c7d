//! The model-checker seam: a tool that judges a whole program at once, exploring its
//! executions itself, and answers whether it has a data race (loom; a user's own model
//! checker). Judged by [`super::whole_program`].
//!
//! Invariant of an implementation: [`ModelVerdict::NoRace`] only after the tool covered
//! every execution within the bounds it was given; anything it could not cover is
//! [`ModelVerdict::BeyondBounds`], and any failure of the tool itself (a crash, a timeout,
//! output it cannot read) is [`ModelVerdict::Failed`], never `NoRace`.

use crate::lang::Program;

/// What a model checker says of a whole program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelVerdict {
    /// It found a data race.
    Race {
        /// The location it names (`o1.f`, the ground truth's name for it).
        location: String,
        /// The program line it stopped at (0: none named).
        line: u32,
        /// The tool's own account (the accesses involved, its message).
        detail: String,
    },
    /// It found a data race in an execution that is not (or may not be) sequentially
    /// consistent: a weak-memory tool (loom) whose load returned an older store than the
    /// newest one. A race of *some* execution, but perhaps of none that the SC ground truth
    /// enumerates (docs/spec/atomics.md §3.4: `inconclusive (possible weak-memory race)`,
    /// and a false positive in a program whose atomics are all `seq_cst`, by DRF-SC).
    RaceNonSc {
        /// The location it names.
        location: String,
        /// The program line it stopped at (0: none named).
        line: u32,
        /// The tool's own account.
        detail: String,
    },
    /// It covered every execution and found no race.
    NoRace {
        /// Executions it ran.
        executions: u64,
    },
    /// The program is beyond its bounds (threads, branches, preemptions): no answer.
    BeyondBounds(String),
    /// The tool failed (crashed, hung, answered nonsense): no answer, and a finding.
    Failed(String),
}

/// A model checker: a whole program in, a [`ModelVerdict`] out.
pub trait ModelChecker: Sync {
    /// Its name in results (`loom 0.7.3`).
    fn name(&self) -> String;
    /// Its verdict on `p`, with each `while *` unrolled at most `loop_bound` times (the
    /// ground truth's bound, so that both judge the same executions).
    fn verdict(&self, p: &Program, loop_bound: u32) -> ModelVerdict;
}
