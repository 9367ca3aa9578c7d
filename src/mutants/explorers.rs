//! The seeded bugs of the fast explorers (the stateful search and optimal DPOR of
//! `race_oracles::explore`), which racefuzz judges as a SUT against the naive enumeration.
//! They live in the ground-truth crate, so their table lives here rather than under
//! `analyses/` (which may not reach the explorer).

use race_oracles::explore::dpor::{Dpor, DporBug};
use race_oracles::explore::stateful::{Stateful, StatefulBug};

use crate::seeded::{select, Predicted, Seeded};

/// A seeded bug of one of the fast explorers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplorerBug {
    /// A DPOR bug.
    Dpor(DporBug),
    /// A stateful-search bug.
    Stateful(StatefulBug),
}

/// What the spec predicts for a DPOR bug: `explorer-agree` catches it, and
/// `explorer-agree-racerdx` makes no prediction, because it never runs DPOR (DPOR is not
/// compared on racerdx pairs).
const DPOR: Predicted = Predicted::breaks(&["explorer-agree"]).unexercised_by(&["explorer-agree-racerdx"]);

/// A DPOR bug in what only lock sections or path prefixes exercise: `explorer-agree-atomics`
/// never runs that part either, since the atomic generator writes no lock statement (its
/// spinlocks are CAS loops) and no path longer than a field (measured: not caught in 600
/// programs).
const DPOR_LOCKS_OR_PATHS: Predicted = Predicted::breaks(&["explorer-agree"]).unexercised_by(&["explorer-agree-racerdx", "explorer-agree-atomics"]);

/// The explorers' seeded bugs: DPOR's predicted alike (`DPOR`), or as
/// `DPOR_LOCKS_OR_PATHS` where the atomic generator cannot reach the bug. (A visited set keyed
/// without lock holders and depths is no mutant at all: under balanced locking the lock state
/// is a function of the threads' control positions, so that part of the key is redundant;
/// measured: not caught in 600 programs of either oracle.)
pub const SEEDED: &[Seeded<ExplorerBug>] = &[
    Seeded {
        name: "dpor-forgets-locks",
        oracle: "explorer-agree",
        description: "DPOR's dependence forgets locks: critical sections are never reordered as wholes",
        predicted: DPOR_LOCKS_OR_PATHS,
        spec: "spec/dpor.md (dependence: same lock); explore::dpor",
        bug: ExplorerBug::Dpor(DporBug::ForgetsLocks),
    },
    Seeded {
        name: "dpor-sleep-kept-whole",
        oracle: "explorer-agree",
        description: "DPOR hands a child its parent's whole sleep set (never cleared by a dependent step)",
        predicted: Predicted::breaks(&["explorer-agree", "explorer-agree-atomics"]).unexercised_by(&["explorer-agree-racerdx"]),
        spec: "spec/dpor.md algorithm 1 (sleep sets); J.ACM 2017 Alg. 2 line 13",
        bug: ExplorerBug::Dpor(DporBug::SleepKeptWhole),
    },
    Seeded {
        name: "dpor-no-prefix-reads",
        oracle: "explorer-agree",
        description: "DPOR's footprints are the events only: a path's prefix read conflicts with nothing",
        predicted: DPOR_LOCKS_OR_PATHS,
        spec: "spec/racerdx.md Def. 3.1 (prefixes are no accesses); explore::dpor",
        bug: ExplorerBug::Dpor(DporBug::NoPrefixReads),
    },
    Seeded {
        name: "dpor-no-blocked-attempts",
        oracle: "explorer-agree",
        description: "DPOR does not reverse the section that blocks an attempt at the end of an execution",
        predicted: DPOR_LOCKS_OR_PATHS,
        spec: "explore::dpor (lock-order deadlocks)",
        bug: ExplorerBug::Dpor(DporBug::NoBlockedAttempts),
    },
    Seeded {
        name: "dpor-weak-initial-by-choices",
        oracle: "explorer-agree",
        description: "DPOR's wakeup-tree insertion matches the closure choices when it looks for the leftmost weak initial (the paper's insert, read literally with an event as thread + choices): a sequence for another alternative of a thread passes the thread's group by and becomes a branch after it, where the thread runs again (repeated classes, as before c608c44)",
        // A thread between two others accesses what the one before it accesses, then chooses,
        // with an access in one alternative to what the one after it accesses: the thread
        // generator's choice-heavy programs.
        predicted: DPOR,
        spec: "spec/dpor.md algorithm 4 (optimal DPOR: wakeup trees); J.ACM 2017 §6 insert; explore::dpor::wakeup (closure choices)",
        bug: ExplorerBug::Dpor(DporBug::WeakInitialByChoices),
    },
    Seeded {
        name: "stateful-key-without-locals",
        oracle: "explorer-agree-racerdx",
        description: "the stateful search keys its visited set without the threads' locals",
        // Thread programs' locals rarely reach the heap after their last write, and final
        // states leave locals out: measured not caught in 600 programs. Atomic programs branch
        // on what a CAS or a load put in a local (spinlocks, flags), so there they matter.
        predicted: Predicted::breaks(&["explorer-agree-racerdx", "explorer-agree-atomics"]).and_equivalent(&["explorer-agree"]),
        spec: "the stateful search's visited set; machine::key",
        bug: ExplorerBug::Stateful(StatefulBug::KeyWithoutLocals),
    },
    Seeded {
        name: "stateful-key-without-heap",
        oracle: "explorer-agree",
        description: "the stateful search keys its visited set without the heap's cells",
        predicted: Predicted::breaks(&["explorer-agree", "explorer-agree-racerdx", "explorer-agree-atomics"]),
        spec: "the stateful search's visited set; machine::key",
        bug: ExplorerBug::Stateful(StatefulBug::KeyWithoutHeap),
    },
];

/// The fast explorers with the named mutants applied (they combine); `None` if a name is not
/// one of [`SEEDED`].
pub fn explorers(names: &[&str]) -> Option<(Stateful, Dpor)> {
    let (mut stateful, mut dpor) = (Stateful::REAL, Dpor::REAL);
    for bug in select(SEEDED, names)? {
        match bug {
            ExplorerBug::Dpor(b) => dpor.seeded = Some(b),
            ExplorerBug::Stateful(b) => stateful.seeded = Some(b),
        }
    }
    Some((stateful, dpor))
}
