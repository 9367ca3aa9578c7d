//! The seeded-bug catalogue: deliberately broken variants of the systems under test, each
//! selectable by name (`--mutant NAME`), with what the spec predicts under each oracle (by
//! oracle id, never by position). A mutant predicted to break a theorem must be caught by
//! that theorem's oracle within a fixed budget (`tests/oracles/racerdx.rs`); that is how we
//! know the fuzzer has teeth. A mutant belongs to one SUT (`crate::suts`), which applies it.

use race_oracles::lang::Relax;

use race_oracles::explore::dpor::{Dpor, DporBug};
use race_oracles::explore::stateful::{Stateful, StatefulBug};
use race_oracles::ldrf::local::LdrfBug;

use crate::analyses::bigfoot::dynamic::DynamicBfBug;
use crate::analyses::bigfoot::placement::PlacementBug;
use crate::analyses::capsule::CapsuleBug;
use crate::analyses::escape::EscapeBug;
use crate::analyses::fasttrack::FastTrackBug;
use crate::analyses::ldrf::SyncCfgBug;
use crate::analyses::naik_aiken::NaikAikenBug;
use crate::analyses::per_access::PerAccessBug;
use crate::analyses::racerdx::{Join, LockRule, Options};

/// What the spec predicts for a mutant under its oracle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Prediction {
    /// The theorem breaks: the oracle must find a counterexample.
    BreaksTheorem,
    /// Observationally equivalent on programs that meet the theorem's hypotheses.
    Equivalent,
    /// The spec does not claim an outcome (exploratory).
    Unknown,
}

/// One seeded bug.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Mutant {
    /// Its name on the command line.
    pub name: &'static str,
    /// The SUT it breaks (`crate::suts::SutEntry::name`).
    pub sut: &'static str,
    /// The oracle whose theorem it targets.
    pub oracle: &'static str,
    /// What is broken.
    pub description: &'static str,
    /// The spec's prediction under each oracle that judges its SUT, by oracle id.
    pub predicted: &'static [(&'static str, Prediction)],
    /// Where the spec discusses it.
    pub spec: &'static str,
}

/// Every mutant. (The DPOR mutants have no prediction under `explorer-agree-racerdx`:
/// DPOR is not compared on racerdx pairs. A visited set keyed without lock holders and
/// depths is no mutant at all: under balanced locking the lock state is a function of the
/// threads' control positions, so that part of the key is redundant; measured: not caught
/// in 600 programs of either oracle.)
pub const MUTANTS: &[Mutant] = &[
    Mutant {
        sut: "explorers",
        name: "dpor-forgets-locks",
        oracle: "explorer-agree",
        description: "DPOR's dependence forgets locks: critical sections are never reordered as wholes",
        predicted: &[("explorer-agree", Prediction::BreaksTheorem)],
        spec: "dpor.md (dependence: same lock); explore::dpor",
    },
    Mutant {
        sut: "explorers",
        name: "dpor-sleep-kept-whole",
        oracle: "explorer-agree",
        description: "DPOR hands a child its parent's whole sleep set (never cleared by a dependent step)",
        predicted: &[("explorer-agree", Prediction::BreaksTheorem)],
        spec: "dpor.md algorithm 1 (sleep sets); J.ACM 2017 Alg. 2 line 13",
    },
    Mutant {
        sut: "explorers",
        name: "dpor-no-prefix-reads",
        oracle: "explorer-agree",
        description: "DPOR's footprints are the events only: a path's prefix read conflicts with nothing",
        predicted: &[("explorer-agree", Prediction::BreaksTheorem)],
        spec: "racerdx.md Def. 3.1 (prefixes are no accesses); explore::dpor",
    },
    Mutant {
        sut: "explorers",
        name: "dpor-no-blocked-attempts",
        oracle: "explorer-agree",
        description: "DPOR does not reverse the section that blocks an attempt at the end of an execution",
        predicted: &[("explorer-agree", Prediction::BreaksTheorem)],
        spec: "explore::dpor (lock-order deadlocks)",
    },
    Mutant {
        sut: "explorers",
        name: "dpor-weak-initial-by-choices",
        oracle: "explorer-agree",
        description: "DPOR's wakeup-tree insertion matches the closure choices when it looks for the leftmost weak initial (the paper's insert, read literally with an event as thread + choices): a sequence for another alternative of a thread passes the thread's group by and becomes a branch after it, where the thread runs again (issue 24's repeated classes, as before c608c44)",
        // A thread between two others accesses what the one before it accesses, then chooses,
        // with an access in one alternative to what the one after it accesses: the thread
        // generator's choice-heavy programs (issue 24 item 5).
        predicted: &[("explorer-agree", Prediction::BreaksTheorem)],
        spec: "dpor.md algorithm 4 (optimal DPOR: wakeup trees); J.ACM 2017 §6 insert; explore::dpor::wakeup (closure choices)",
    },
    Mutant {
        sut: "explorers",
        name: "stateful-key-without-locals",
        oracle: "explorer-agree-racerdx",
        description: "the stateful search keys its visited set without the threads' locals",
        // Thread programs' locals rarely reach the heap after their last write, and final
        // states leave locals out: measured not caught in 600 programs.
        predicted: &[("explorer-agree", Prediction::Equivalent), ("explorer-agree-racerdx", Prediction::BreaksTheorem)],
        spec: "issue 9 item 1; machine::key",
    },
    Mutant {
        sut: "explorers",
        name: "stateful-key-without-heap",
        oracle: "explorer-agree",
        description: "the stateful search keys its visited set without the heap's cells",
        predicted: &[("explorer-agree", Prediction::BreaksTheorem), ("explorer-agree-racerdx", Prediction::BreaksTheorem)],
        spec: "issue 9 item 1; machine::key",
    },
    Mutant {
        sut: "racerdx",
        name: "no-stability-filter",
        oracle: "racerdx-tp",
        description: "report unstable paths too (RacerD-like); Burble's meps ∥ beps becomes a report",
        predicted: &[("racerdx-tp", Prediction::BreaksTheorem), ("racerdx-complete", Prediction::Equivalent), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §6.3(e), §6.1 Burble",
    },
    Mutant {
        sut: "racerdx",
        name: "lock-bound-1",
        oracle: "racerdx-tp",
        description: "L̂ = 1 whatever the nesting depth: `lock; lock; unlock` saturates and drops a level",
        predicted: &[("racerdx-tp", Prediction::BreaksTheorem), ("racerdx-complete", Prediction::BreaksTheorem), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §6.3(a), §3.3",
    },
    Mutant {
        sut: "racerdx",
        name: "min-join",
        oracle: "racerdx-tp",
        description: "join lock levels with min instead of max",
        predicted: &[("racerdx-tp", Prediction::Equivalent), ("racerdx-complete", Prediction::Equivalent), ("racerdx-reports", Prediction::Equivalent)],
        spec: "racerdx.md §6.3(c): only branch-unbalanced locking (outside A2) shows it",
    },
    Mutant {
        sut: "racerdx",
        name: "unlock-clamp-unbalanced",
        oracle: "racerdx-tp",
        description: "accept programs with an unmatched unlock (A2 (ii) unchecked); the analysis clamps decr(0) = 0",
        predicted: &[("racerdx-tp", Prediction::BreaksTheorem), ("racerdx-complete", Prediction::BreaksTheorem), ("racerdx-reports", Prediction::Unknown)],
        spec: "racerdx.md §6.3(b); §6.3(d): without A2 the max join also breaks completeness",
    },
    Mutant {
        sut: "racerdx",
        name: "no-call-prefix-rule",
        oracle: "racerdx-complete",
        description: "omit Pre(ē) from W at call sites",
        predicted: &[("racerdx-tp", Prediction::Unknown), ("racerdx-complete", Prediction::BreaksTheorem), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §6.3(f) (exploratory for the TPT); Fig. 8 push row for α",
    },
    Mutant {
        sut: "racerdx",
        name: "substitution-not-simultaneous",
        oracle: "racerdx-complete",
        description: "apply θ = [arg1 ↦ e1, arg2 ↦ e2] one binding at a time",
        predicted: &[("racerdx-tp", Prediction::Unknown), ("racerdx-complete", Prediction::BreaksTheorem), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §3.2 (θ must be simultaneous)",
    },
    Mutant {
        sut: "racerdx",
        name: "lock-sum-2",
        oracle: "racerdx-tp",
        description: "report when L1 + L2 ≤ 2, so two protected accesses are reported",
        predicted: &[("racerdx-tp", Prediction::BreaksTheorem), ("racerdx-complete", Prediction::Equivalent), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §3.4 item 3",
    },
    Mutant {
        sut: "racerdx",
        name: "reports-nothing",
        oracle: "racerdx-reports",
        description: "the reporting step returns no report at all (summaries intact)",
        predicted: &[
            // No report is no false positive, and the summaries are untouched.
            ("racerdx-tp", Prediction::Equivalent),
            ("racerdx-complete", Prediction::Equivalent),
            ("racerdx-reports", Prediction::BreaksTheorem),
        ],
        spec: "racerdx.md §3.4 (issue 8: a bug that only removes reports)",
    },
    Mutant {
        sut: "racerdx",
        name: "drop-0-1-pairs",
        oracle: "racerdx-reports",
        description: "report only pairs at lock levels (0, 0): one protected side drops the pair",
        predicted: &[("racerdx-tp", Prediction::Equivalent), ("racerdx-complete", Prediction::Equivalent), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §3.4 item 3 (L1 + L2 ≤ 1 admits (0, 1))",
    },
    Mutant {
        sut: "racerdx",
        name: "no-self-pairs",
        oracle: "racerdx-reports",
        description: "never pair a method with itself (Dodo's zup ∥ zup is lost)",
        predicted: &[("racerdx-tp", Prediction::Equivalent), ("racerdx-complete", Prediction::Equivalent), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §3.4 (every pair, a method with itself included)",
    },
    Mutant {
        sut: "racerdx",
        name: "write-write-only",
        oracle: "racerdx-reports",
        description: "report write/write pairs only, dropping read/write",
        predicted: &[("racerdx-tp", Prediction::Equivalent), ("racerdx-complete", Prediction::Equivalent), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §3.4 item 2 (at least one write)",
    },
    Mutant {
        sut: "racerdx",
        name: "stability-non-strict",
        oracle: "racerdx-reports",
        description: "judge stability with ≼ instead of ≺, so touching π itself destabilizes π (nearly every report goes)",
        predicted: &[("racerdx-tp", Prediction::Equivalent), ("racerdx-complete", Prediction::Equivalent), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §3.1 (stable iff no element of W is a *proper* prefix)",
    },
    Mutant {
        sut: "racerdx",
        name: "copy-not-wobbly",
        oracle: "racerdx-complete",
        description: "`x := y` adds neither variable to W, so `arg1 := x` leaves arg1's paths stable",
        predicted: &[("racerdx-tp", Prediction::BreaksTheorem), ("racerdx-complete", Prediction::BreaksTheorem), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §3.2 (wobbly W (x := e) = W ∪ fml{x, e}); issue 8: copies were never generated",
    },
    Mutant {
        sut: "racerdx",
        name: "new-not-wobbly",
        oracle: "racerdx-tp",
        description: "`arg_i := new()` adds nothing to W, so paths through a fresh object are reported",
        predicted: &[("racerdx-tp", Prediction::BreaksTheorem), ("racerdx-complete", Prediction::BreaksTheorem), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §3.2 (wobbly W (x := new()) = W ∪ fml{x})",
    },
    Mutant {
        sut: "racerdx",
        name: "no-fml-after-call",
        oracle: "racerdx-complete",
        description: "keep a callee's accesses whose substituted path is rooted at a caller local (a local actual)",
        predicted: &[("racerdx-tp", Prediction::BreaksTheorem), ("racerdx-complete", Prediction::BreaksTheorem), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §3.2 (fml after substitution); issue 8: local actuals were never generated",
    },
    Mutant {
        sut: "racerdx",
        name: "prefix-rule-symmetric",
        oracle: "racerdx-complete",
        description: "Pre(ē) symmetric as Lemma 5.13's WB(ē): the longer actual is wobbly too",
        predicted: &[
            // More wobbly paths only remove reports; no false positive can appear.
            ("racerdx-tp", Prediction::Equivalent),
            ("racerdx-complete", Prediction::BreaksTheorem),
            // W grows but no report changes: the extra e_j has e_i ≼ e_j already in W, so
            // every path e_j makes unstable (e_j ≺ π) was unstable (e_i ≺ π); substitution
            // and fml keep the prefix relation.
            ("racerdx-reports", Prediction::Equivalent),
        ],
        spec: "racerdx.md §3.2 and §7 item 4 (the one-sided Pre of Fig. 8)",
    },
    Mutant {
        sut: "racerdx",
        name: "call-level-not-added",
        oracle: "racerdx-tp",
        description: "a callee's accesses keep the callee's lock level, forgetting the caller's (a call under lock looks unprotected)",
        predicted: &[("racerdx-tp", Prediction::BreaksTheorem), ("racerdx-complete", Prediction::BreaksTheorem), ("racerdx-reports", Prediction::BreaksTheorem)],
        spec: "racerdx.md §3.2 (A ∪ fml{⟨c[θ], add(L, L')⟩})",
    },
    Mutant {
        sut: "racerdx",
        name: "loop-single-pass",
        oracle: "racerdx-complete",
        description: "analyse a loop body once instead of iterating to the fixpoint",
        predicted: &[
            // Under A2 the body leaves L unchanged and A depends only on L, so the second
            // iteration adds nothing: one pass is the fixpoint (the proof of Lemma 5.11).
            ("racerdx-tp", Prediction::Equivalent),
            ("racerdx-complete", Prediction::Equivalent),
            ("racerdx-reports", Prediction::Equivalent),
        ],
        spec: "racerdx.md §3.2 (under A2 one iteration suffices)",
    },
    Mutant {
        sut: "fasttrack",
        name: "ft-shared-reads-kept",
        oracle: "fasttrack-precise",
        description: "WRITE keeps a shared read vector clock instead of resetting it to ⊥e",
        // Equivalent on location sets, whatever spec §9.4 suggests: the kept reads all
        // happen before the write that kept them (or that write reported x), and a later
        // write to x is ordered after that write (or reports x itself), so by transitivity
        // the stale reads are below its clock too. Measured: not caught in 6,000 programs.
        predicted: &[("fasttrack-precise", Prediction::Equivalent)],
        spec: "bigfoot.md §1.6 WRITE, §9.4 (read-shared VC not reset on a write)",
    },
    Mutant {
        sut: "fasttrack",
        name: "ft-release-no-tick",
        oracle: "fasttrack-precise",
        description: "REL publishes the thread's clock without incrementing it: accesses after a release look ordered before the next acquirer",
        predicted: &[("fasttrack-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §1.6 REL",
    },
    Mutant {
        sut: "fasttrack",
        name: "ft-acquire-no-join",
        oracle: "fasttrack-precise",
        description: "ACQ does not join the lock's clock: lock-protected accesses look concurrent",
        predicted: &[("fasttrack-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §1.6 ACQ",
    },
    Mutant {
        sut: "fasttrack",
        name: "ft-same-thread-skip",
        oracle: "fasttrack-precise",
        description: "READ takes the same-epoch fast path whenever the last read is the same thread's, whatever its clock",
        predicted: &[("fasttrack-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §1.6 READ, §9.4 (same-epoch handling)",
    },
    Mutant {
        sut: "fasttrack",
        name: "ft-fork-no-tick",
        oracle: "fasttrack-precise",
        description: "FORK hands the parent's clock to the child without incrementing the parent's entry: the parent's accesses after the fork look ordered before the child's",
        predicted: &[("fasttrack-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §1.6 FORK (issue 24: FORK was never run by fasttrack-precise before the detector generator forked)",
    },
    Mutant {
        sut: "fasttrack",
        name: "ft-join-no-join",
        oracle: "fasttrack-precise",
        description: "JOIN does not join the child's clock: the joiner's accesses after the join look concurrent with the child's",
        predicted: &[("fasttrack-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §1.6 JOIN (issue 24: JOIN was never run by fasttrack-precise before the detector generator joined)",
    },
    Mutant {
        sut: "per-access",
        name: "pa-write-checked-as-read",
        oracle: "bigfoot-precise",
        description: "a write gets a read check, which does not cover it",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §3.3, §9.2 row 10 (missed race)",
    },
    Mutant {
        sut: "per-access",
        name: "pa-read-checked-as-write",
        oracle: "bigfoot-precise",
        description: "a read gets a write check, which is not legitimate for it",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §3.3, §9.2 row 9 (false alarm)",
    },
    Mutant {
        sut: "per-access",
        name: "pa-no-checks-in-sync",
        oracle: "bigfoot-precise",
        description: "accesses inside sync blocks get no check",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §3.1 (every access needs a covering check)",
    },
    Mutant {
        sut: "bigfoot",
        name: "bf-check-after-acquire",
        oracle: "bigfoot-precise",
        description: "the checks owed at an acquire are placed after it",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §9.2 row 1, §9.4 (missed race)",
    },
    Mutant {
        sut: "bigfoot",
        name: "bf-release-keeps-accesses",
        oracle: "bigfoot-precise",
        description: "a release forgets past checks but not past accesses, which are checked again after it",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §4.5 [REL], §9.4 row 1 (false alarm)",
    },
    Mutant {
        sut: "bigfoot",
        name: "bf-anticipation-through-acquire",
        oracle: "bigfoot-precise",
        description: "anticipated accesses flow backward through an acquire and excuse checks before an earlier release",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §4.5 [ACQ], §9.2 row 7 (missed race)",
    },
    Mutant {
        sut: "bigfoot",
        name: "bf-range-over-approx",
        oracle: "bigfoot-precise",
        description: "coalescing two ranges adds one element past their union",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §5.1, §9.2 row 12 (false alarm)",
    },
    Mutant {
        sut: "bigfoot",
        name: "bf-range-under-approx",
        oracle: "bigfoot-precise",
        description: "coalescing two ranges drops the last element of their union",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §5.1, §9.4 (missed race)",
    },
    Mutant {
        sut: "bigfoot",
        name: "bf-call-kill-sets-empty",
        oracle: "bigfoot-precise",
        description: "every callee has empty kill sets: checks are deferred past calls that synchronize",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §4.5 [CALL], §9.2 row 11",
    },
    Mutant {
        sut: "bigfoot",
        name: "dbf-footprint-after-sync",
        oracle: "bigfoot-precise",
        description: "DynamicBF commits a thread's array footprint after its synchronization operation instead of before",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §7.1 [D], §9.4 (missed race after an acquire, false alarm after a release)",
    },
    Mutant {
        sut: "bigfoot",
        name: "dbf-asymmetric-proxy",
        oracle: "bigfoot-precise",
        description: "DynamicBF shares one shadow among fields related by the one-way proxy relation",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §5.2 footnote 2, §9.2 row 14 (false alarm on the field that did not race)",
    },
    Mutant {
        sut: "bigfoot",
        name: "dbf-refine-without-copy",
        oracle: "bigfoot-precise",
        description: "refining an array's partition gives the split-off groups empty shadows instead of the parent's",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §5.3.1, §9.4 (missed race)",
    },
    Mutant {
        sut: "bigfoot",
        name: "dbf-no-commit-at-end",
        oracle: "bigfoot-precise",
        description: "DynamicBF drops the footprints still pending when the trace ends",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §7.1 [C], §9.4 (footprints not committed at thread exit: missed race)",
    },
    Mutant {
        sut: "bigfoot",
        name: "dbf-group-race-first-index",
        oracle: "bigfoot-precise",
        description: "a race on a compressed array group is reported on the group's first index only, not on each member",
        predicted: &[("bigfoot-precise", Prediction::BreaksTheorem)],
        spec: "bigfoot.md §5.3.1 [D] (a race on a group's shadow is a race on each of its indices: missed racy locations)",
    },
    Mutant {
        sut: "escape",
        name: "esc-non-transitive",
        oracle: "escape-trace-precise",
        description: "a write into an escaped object marks only the value, not everything it reaches",
        predicted: &[("escape-trace-precise", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-E1",
    },
    Mutant {
        sut: "escape",
        name: "esc-fork-marks-thread-object",
        oracle: "escape-trace-precise",
        description: "a fork marks only the thread object, not what it reaches",
        predicted: &[("escape-trace-precise", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-E2",
    },
    Mutant {
        sut: "escape",
        name: "esc-owner-until-shared",
        oracle: "escape-trace-precise",
        description: "access-based ownership, decided after the fact: an object's accesses are elided until a second thread accesses it",
        predicted: &[("escape-trace-precise", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-E3",
    },
    Mutant {
        sut: "escape",
        name: "esc-value-based",
        oracle: "escape-trace-precise",
        description: "a write of a not-yet-escaped value is elided even into an escaped object (the value decides, not the target)",
        predicted: &[("escape-trace-precise", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-E5",
    },
    Mutant {
        sut: "escape",
        name: "esc-per-site",
        oracle: "escape-trace-precise",
        description: "per-site caching: a line whose first access was elided is elided from then on",
        predicted: &[("escape-trace-precise", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-E6",
    },
    Mutant {
        sut: "escape",
        name: "esc-elides-local-sync",
        oracle: "escape-trace-precise",
        description: "acquire and release of a not-escaped lock object are elided too",
        predicted: &[("escape-trace-precise", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-E8 (new races in β)",
    },
    Mutant {
        sut: "escape",
        name: "esc-read-cached-per-object",
        oracle: "escape-trace-precise",
        description: "per-object read caching: an object whose first read was elided (not yet escaped) has its later reads elided too, after it escapes",
        predicted: &[("escape-trace-precise", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §3.2 (read, p ∉ G decided per event)",
    },
    Mutant {
        sut: "capsule",
        name: "cap-exit-enter-edge",
        oracle: "capsule-first-race-operational",
        description: "a capsule's exit happens-before a later enter (as if a lock): capFree always passes",
        predicted: &[("capsule-first-race", Prediction::Equivalent), ("capsule-first-race-operational", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-C1",
    },
    Mutant {
        sut: "capsule",
        name: "cap-no-occupancy-check",
        oracle: "capsule-first-race-operational",
        description: "an enter into an occupied capsule is not a violation (only the exits' clock is checked)",
        predicted: &[("capsule-first-race", Prediction::Equivalent), ("capsule-first-race-operational", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-C2",
    },
    Mutant {
        sut: "capsule",
        name: "cap-class-based-encapsulation",
        oracle: "capsule-first-race-operational",
        description: "the encapsulation check compares classes, not objects (Fig. 5.8)",
        predicted: &[("capsule-first-race", Prediction::Equivalent), ("capsule-first-race-operational", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-C3",
    },
    Mutant {
        sut: "capsule",
        name: "cap-exit-leaks-nothing",
        oracle: "capsule-first-race",
        description: "a capsule method's exit does not leak its return value",
        predicted: &[("capsule-first-race", Prediction::BreaksTheorem), ("capsule-first-race-operational", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-C4, Fig. 5.2",
    },
    Mutant {
        sut: "capsule",
        name: "cap-enter-leaks-nothing",
        oracle: "capsule-first-race",
        description: "a capsule method's enter does not leak its arguments",
        predicted: &[("capsule-first-race", Prediction::BreaksTheorem), ("capsule-first-race-operational", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-C5, Fig. 5.2",
    },
    Mutant {
        sut: "capsule",
        name: "cap-non-transitive-leak",
        oracle: "capsule-first-race",
        description: "a leak marks the value only, not what is accessible from it",
        predicted: &[("capsule-first-race", Prediction::BreaksTheorem), ("capsule-first-race-operational", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §14 M-C6",
    },
    Mutant {
        sut: "capsule",
        name: "cap-nested-enter-skips-capfree",
        oracle: "capsule-first-race-operational",
        description: "an enter from inside another capsule skips the capFree check, as if the outer capsule serialized every enter it makes",
        predicted: &[("capsule-first-race", Prediction::Equivalent), ("capsule-first-race-operational", Prediction::BreaksTheorem)],
        spec: "escape_capsule.md §7.4 (CAPMETHOD: capFree for every enter, nested or not), §9.4",
    },
    Mutant {
        sut: "naikaiken",
        name: "na-shared-counter",
        oracle: "naik-aiken-sound",
        description: "the analysis is judged under one shared loop vector π (every thread increments it), not frozen per-thread copies",
        predicted: NA_PREDICTED,
        spec: "naik_aiken.md §6 R10, A7, §3 ingredient (ii)",
    },
    Mutant {
        sut: "naikaiken",
        name: "na-loopback-keeps-one",
        oracle: "naik-aiken-sound",
        description: "the loopback Γ^{w+} does not demote 1 to ⊤ at w: values from an earlier iteration stay correlated",
        predicted: NA_PREDICTED,
        spec: "naik_aiken.md §2.1 (Def. 3.2), R2",
    },
    Mutant {
        sut: "naikaiken",
        name: "na-join-keeps-one",
        oracle: "naik-aiken-sound",
        description: "join(1, 0) = 1 instead of ⊤",
        predicted: NA_PREDICTED,
        spec: "naik_aiken.md §2.1 (Def. 3.1)",
    },
    Mutant {
        sut: "naikaiken",
        name: "na-dr-over-k",
        oracle: "naik-aiken-sound",
        description: "DR_K is computed over K instead of K⁺ (multi-step reachability is ignored)",
        predicted: NA_PREDICTED,
        spec: "naik_aiken.md §2.4 (Fig. 9 eq. 2), R7",
    },
    Mutant {
        sut: "naikaiken",
        name: "na-local-lock-no-prefix",
        oracle: "naik-aiken-sound",
        description: "local-lock prunes under any held locks whose DR fact covers the accessed bases' sites, without checking that the lock is a prefix of the path",
        predicted: NA_PREDICTED,
        spec: "naik_aiken.md §2.5 local-lock, R9",
    },
    Mutant {
        sut: "naikaiken",
        name: "na-reassigned-lock-held",
        oracle: "naik-aiken-sound",
        description: "a sync(x) whose body assigns x still counts as holding x's lock after the assignment (programs outside A5 are generated)",
        predicted: NA_PREDICTED,
        spec: "naik_aiken.md A5, §3 ingredient (iii)",
    },
    Mutant {
        sut: "naikaiken",
        name: "na-chain-half-link",
        oracle: "naik-aiken-sound",
        description: "K⁺ keeps a 1–1 correlation through a middle link that is 1 on one side only (Def. 4.2 needs τ̄2 and τ̄3 both 1)",
        predicted: NA_PREDICTED,
        spec: "naik_aiken.md §2.3 (Def. 4.2)",
    },
    Mutant {
        sut: "ldrf",
        name: "ldrf-whole-snapshot",
        oracle: "ldrf-agree",
        description: "an acquire copies one newest snapshot whole instead of taking each variable from a copy newest in it",
        predicted: &[("ldrf-agree", Prediction::BreaksTheorem)],
        spec: "ldrf.md §2 updEnv, §8 R3",
    },
    Mutant {
        sut: "ldrf",
        name: "ldrf-append-buffer",
        oracle: "ldrf-agree",
        description: "a release appends its snapshot to the buffer instead of overwriting it (older snapshots never hold a newest version, so the import is unchanged: more states, same χ-images)",
        predicted: &[("ldrf-agree", Prediction::Equivalent)],
        spec: "ldrf.md §2 Release",
    },
    Mutant {
        sut: "ldrf",
        name: "ldrf-acquire-ignores-g",
        oracle: "ldrf-agree",
        description: "an acquire reads the buffers of every release point, of every lock, ignoring G (C1-C4 miss it on race-free programs, where what it imports is never read; C7 sees the whole copy leave ⟦P⟧× once a program has two locks)",
        predicted: &[("ldrf-agree", Prediction::Unknown)],
        spec: "ldrf.md §2 Acquire, Remark 9",
    },
    Mutant {
        sut: "ldrf",
        name: "ldrf-no-version-bump",
        oracle: "ldrf-agree",
        description: "a write does not increment the writer's version, so an acquire may keep a stale copy",
        predicted: &[("ldrf-agree", Prediction::BreaksTheorem)],
        spec: "ldrf.md §2 Assign",
    },
    Mutant {
        sut: "ldrf",
        name: "ldrf-chi-prefers-buffers",
        oracle: "ldrf-agree",
        description: "χ reads every variable from a defined buffer before the threads (buffers are old copies)",
        predicted: &[("ldrf-agree", Prediction::BreaksTheorem)],
        spec: "ldrf.md Def. 5",
    },
    Mutant {
        sut: "ldrf",
        name: "ldrf-release-no-snapshot",
        oracle: "ldrf-agree",
        description: "a release leaves no snapshot in its buffer, so no acquire ever imports",
        predicted: &[("ldrf-agree", Prediction::BreaksTheorem)],
        spec: "ldrf.md §2 Release",
    },
    Mutant {
        sut: "ldrf",
        name: "ldrf-region-bump-one",
        oracle: "ldrf-agree",
        description: "R-DRF: a write bumps the version of the written variable only, not of its whole region",
        predicted: &[("ldrf-agree", Prediction::BreaksTheorem)],
        spec: "ldrf.md §3 R-DRF semantics",
    },
    Mutant {
        sut: "ldrf-analyses",
        name: "sync-acquire-ignores-buffers",
        oracle: "ldrf-sound",
        description: "an acquire reads only its own source: the sync-CFG has no release → acquire edges (every domain)",
        predicted: SYNC_PREDICTED,
        spec: "ldrf.md §5.1 (the sync-CFG), §8 R1",
    },
    Mutant {
        sut: "ldrf-analyses",
        name: "sync-release-feeds-nothing",
        oracle: "ldrf-sound",
        description: "a release edge does not feed its post-release point: neither the thread's continuation nor any acquire sees it (every domain)",
        predicted: SYNC_PREDICTED,
        spec: "ldrf.md §5.1 (release: a(n') ∪= a(n))",
    },
    Mutant {
        sut: "ldrf-analyses",
        name: "sync-interval-saturates",
        oracle: "ldrf-sound",
        description: "interval addition saturates at K-1 instead of going to ⊤ when it would wrap (interval domain)",
        predicted: SYNC_PREDICTED,
        spec: "ldrf.md §6.2 (a), A14",
    },
    Mutant {
        sut: "ldrf-analyses",
        name: "sync-value-set-loop-head-keeps-old",
        oracle: "ldrf-sound",
        description: "the value-set join at a loop head keeps the head's old value and drops the back edge's (value-set domain)",
        predicted: SYNC_PREDICTED,
        spec: "ldrf.md §5.2 (value-set, [9])",
    },
    Mutant {
        sut: "ldrf-analyses",
        name: "sync-interval-hull-of-corners",
        oracle: "ldrf-sound",
        description: "`%` (no interval rule) takes the hull of its results at the corners of the operands' intervals, as if it were monotone (interval domain)",
        predicted: SYNC_PREDICTED,
        spec: "ldrf.md §5.2 (A5: the hull of the concrete results)",
    },
];

/// Every sync-CFG mutant breaks C8; the negative controls make no prediction.
const SYNC_PREDICTED: &[(&str, Prediction)] = &[("ldrf-sound", Prediction::BreaksTheorem)];

/// Every Naik-Aiken mutant breaks the soundness claim; the "unlikely" control makes no
/// prediction.
const NA_PREDICTED: &[(&str, Prediction)] = &[("naik-aiken-sound", Prediction::BreaksTheorem)];

/// Looks a mutant up by name.
pub fn find(name: &str) -> Option<&'static Mutant> {
    MUTANTS.iter().find(|m| m.name == name)
}

impl Mutant {
    /// The spec's prediction under `oracle` (`None`: the oracle does not judge this SUT).
    pub fn prediction(&self, oracle: &str) -> Option<Prediction> {
        self.predicted.iter().find(|(o, _)| *o == oracle).map(|(_, p)| *p)
    }
}

impl Prediction {
    /// `breaks-theorem`, `equivalent`, `unknown`.
    pub fn name(self) -> &'static str {
        match self {
            Prediction::BreaksTheorem => "breaks-theorem",
            Prediction::Equivalent => "equivalent",
            Prediction::Unknown => "unknown",
        }
    }
}

/// The RacerDX options and oracle relaxations the named mutants select (none: the real
/// analysis); `None` if a name is not a RacerDX mutant. Mutants combine
/// (`min-join+unlock-clamp-unbalanced` shows §6.3(c), which needs both the min join and a
/// program outside A2).
pub fn racerdx(names: &[&str]) -> Option<(Options, Relax)> {
    let mut opts = Options::default();
    let mut relax = Relax::default();
    for name in names {
        match *name {
            "no-stability-filter" => opts.stability = false,
            "lock-bound-1" => opts.lock_bound = Some(1),
            "min-join" => opts.join = Join::Min,
            "unlock-clamp-unbalanced" => relax.balanced_locking = true,
            "no-call-prefix-rule" => opts.call_prefix_rule = false,
            "substitution-not-simultaneous" => opts.simultaneous = false,
            "lock-sum-2" => opts.lock_rule = LockRule::SumAtMostTwo,
            "reports-nothing" => opts.bugs.reports_nothing = true,
            "drop-0-1-pairs" => opts.bugs.drop_0_1_pairs = true,
            "no-self-pairs" => opts.bugs.no_self_pairs = true,
            "write-write-only" => opts.bugs.write_write_only = true,
            "stability-non-strict" => opts.bugs.stability_non_strict = true,
            "copy-not-wobbly" => opts.bugs.copy_not_wobbly = true,
            "new-not-wobbly" => opts.bugs.new_not_wobbly = true,
            "no-fml-after-call" => opts.bugs.no_fml_after_call = true,
            "prefix-rule-symmetric" => opts.bugs.prefix_rule_symmetric = true,
            "call-level-not-added" => opts.bugs.call_level_not_added = true,
            "loop-single-pass" => opts.bugs.loop_single_pass = true,
            _ => return None,
        }
    }
    Some((opts, relax))
}

/// The FastTrack bug the named mutant selects (none named: the real detector); `None` if a
/// name is not a FastTrack mutant, or two are named (one bug at a time).
pub fn fasttrack(names: &[&str]) -> Option<Option<FastTrackBug>> {
    one_bug(
        names,
        &[
            ("ft-shared-reads-kept", FastTrackBug::SharedReadsKept),
            ("ft-release-no-tick", FastTrackBug::ReleaseNoTick),
            ("ft-acquire-no-join", FastTrackBug::AcquireNoJoin),
            ("ft-same-thread-skip", FastTrackBug::SameThreadSkip),
            ("ft-fork-no-tick", FastTrackBug::ForkNoTick),
            ("ft-join-no-join", FastTrackBug::JoinNoJoin),
        ],
    )
}

/// The per-access placer bug the named mutant selects, as [`fasttrack`] does.
pub fn per_access(names: &[&str]) -> Option<Option<PerAccessBug>> {
    one_bug(
        names,
        &[
            ("pa-write-checked-as-read", PerAccessBug::WriteCheckedAsRead),
            ("pa-read-checked-as-write", PerAccessBug::ReadCheckedAsWrite),
            ("pa-no-checks-in-sync", PerAccessBug::NoChecksInSync),
        ],
    )
}

/// A seeded bug of BigFoot: in its placement or in DynamicBF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BigFootBug {
    /// A placement bug.
    Placement(PlacementBug),
    /// A DynamicBF bug.
    Dynamic(DynamicBfBug),
}

/// The BigFoot bug the named mutant selects, as [`fasttrack`] does.
pub fn bigfoot(names: &[&str]) -> Option<Option<BigFootBug>> {
    use BigFootBug::{Dynamic, Placement};
    one_bug(
        names,
        &[
            ("bf-check-after-acquire", Placement(PlacementBug::CheckAfterAcquire)),
            ("bf-release-keeps-accesses", Placement(PlacementBug::ReleaseKeepsAccesses)),
            ("bf-anticipation-through-acquire", Placement(PlacementBug::AnticipationThroughAcquire)),
            ("bf-range-over-approx", Placement(PlacementBug::RangeOverApprox)),
            ("bf-range-under-approx", Placement(PlacementBug::RangeUnderApprox)),
            ("bf-call-kill-sets-empty", Placement(PlacementBug::CallKillSetsEmpty)),
            ("dbf-footprint-after-sync", Dynamic(DynamicBfBug::FootprintCommittedAfterSync)),
            ("dbf-asymmetric-proxy", Dynamic(DynamicBfBug::AsymmetricProxy)),
            ("dbf-refine-without-copy", Dynamic(DynamicBfBug::RefineWithoutCopy)),
            ("dbf-no-commit-at-end", Dynamic(DynamicBfBug::NoCommitAtEnd)),
            ("dbf-group-race-first-index", Dynamic(DynamicBfBug::GroupRaceOnFirstIndex)),
        ],
    )
}

/// The escape-filter bug the named mutant selects, as [`fasttrack`] does.
pub fn escape(names: &[&str]) -> Option<Option<EscapeBug>> {
    one_bug(
        names,
        &[
            ("esc-non-transitive", EscapeBug::NonTransitive),
            ("esc-fork-marks-thread-object", EscapeBug::ForkMarksOnlyThreadObject),
            ("esc-owner-until-shared", EscapeBug::OwnerUntilShared),
            ("esc-value-based", EscapeBug::ValueBased),
            ("esc-per-site", EscapeBug::PerSiteCaching),
            ("esc-elides-local-sync", EscapeBug::ElidesLocalSync),
            ("esc-read-cached-per-object", EscapeBug::ReadCachedPerObject),
        ],
    )
}

/// The capsule-filter bug the named mutant selects, as [`fasttrack`] does.
pub fn capsule(names: &[&str]) -> Option<Option<CapsuleBug>> {
    one_bug(
        names,
        &[
            ("cap-exit-enter-edge", CapsuleBug::ExitEnterEdge),
            ("cap-no-occupancy-check", CapsuleBug::NoOccupancyCheck),
            ("cap-class-based-encapsulation", CapsuleBug::ClassBasedEncapsulation),
            ("cap-exit-leaks-nothing", CapsuleBug::ExitLeaksNothing),
            ("cap-enter-leaks-nothing", CapsuleBug::EnterLeaksNothing),
            ("cap-non-transitive-leak", CapsuleBug::NonTransitiveLeak),
            ("cap-nested-enter-skips-capfree", CapsuleBug::NestedSkipsCapFree),
        ],
    )
}

/// The L-DRF engine bug the named mutant selects, as [`fasttrack`] does.
pub fn ldrf(names: &[&str]) -> Option<Option<LdrfBug>> {
    one_bug(
        names,
        &[
            ("ldrf-whole-snapshot", LdrfBug::WholeSnapshot),
            ("ldrf-append-buffer", LdrfBug::AppendBuffer),
            ("ldrf-acquire-ignores-g", LdrfBug::AcquireIgnoresG),
            ("ldrf-no-version-bump", LdrfBug::NoVersionBump),
            ("ldrf-chi-prefers-buffers", LdrfBug::ChiPrefersBuffers),
            ("ldrf-release-no-snapshot", LdrfBug::ReleaseNoSnapshot),
            ("ldrf-region-bump-one", LdrfBug::RegionBumpOne),
        ],
    )
}

/// The sync-CFG analyses' bug the named mutant selects, as [`fasttrack`] does.
pub fn sync_cfg(names: &[&str]) -> Option<Option<SyncCfgBug>> {
    one_bug(
        names,
        &[
            ("sync-acquire-ignores-buffers", SyncCfgBug::AcquireIgnoresBuffers),
            ("sync-release-feeds-nothing", SyncCfgBug::ReleaseFeedsNothing),
            ("sync-interval-saturates", SyncCfgBug::IntervalSaturates),
            ("sync-value-set-loop-head-keeps-old", SyncCfgBug::ValueSetLoopHeadKeepsOld),
            ("sync-interval-hull-of-corners", SyncCfgBug::IntervalHullOfCorners),
        ],
    )
}

/// The Naik-Aiken bug the named mutant selects, as [`fasttrack`] does, with what it relaxes:
/// `na-reassigned-lock-held` needs programs that assign a sync variable in its body (A5).
pub fn naikaiken(names: &[&str]) -> Option<(Option<NaikAikenBug>, Relax)> {
    let bug = one_bug(
        names,
        &[
            ("na-shared-counter", NaikAikenBug::SharedCounter),
            ("na-loopback-keeps-one", NaikAikenBug::LoopbackKeepsOne),
            ("na-join-keeps-one", NaikAikenBug::JoinKeepsOne),
            ("na-dr-over-k", NaikAikenBug::DrOverK),
            ("na-local-lock-no-prefix", NaikAikenBug::LocalLockNoPrefix),
            ("na-reassigned-lock-held", NaikAikenBug::ReassignedLockHeld),
            ("na-chain-half-link", NaikAikenBug::ChainHalfLink),
        ],
    )?;
    let relax = Relax { sync_reassign: bug == Some(NaikAikenBug::ReassignedLockHeld), ..Relax::default() };
    Some((bug, relax))
}

/// The one bug of `table` that `names` selects: `Some(None)` for no name, `None` for a name
/// not in the table or for more than one name.
fn one_bug<T: Copy>(names: &[&str], table: &[(&str, T)]) -> Option<Option<T>> {
    match names {
        [] => Some(None),
        [one] => table.iter().find(|(n, _)| n == one).map(|&(_, b)| Some(b)),
        _ => None,
    }
}

/// The fast explorers with the explorer mutants named; `None` if a name is not one of
/// theirs.
pub fn explorers(names: &[&str]) -> Option<(Stateful, Dpor)> {
    let (mut stateful, mut dpor) = (Stateful::REAL, Dpor::REAL);
    for name in names {
        match *name {
            "dpor-forgets-locks" => dpor.seeded = Some(DporBug::ForgetsLocks),
            "dpor-sleep-kept-whole" => dpor.seeded = Some(DporBug::SleepKeptWhole),
            "dpor-no-prefix-reads" => dpor.seeded = Some(DporBug::NoPrefixReads),
            "dpor-no-blocked-attempts" => dpor.seeded = Some(DporBug::NoBlockedAttempts),
            "dpor-weak-initial-by-choices" => dpor.seeded = Some(DporBug::WeakInitialByChoices),
            "stateful-key-without-locals" => stateful.seeded = Some(StatefulBug::KeyWithoutLocals),
            "stateful-key-without-heap" => stateful.seeded = Some(StatefulBug::KeyWithoutHeap),
            _ => return None,
        }
    }
    Some((stateful, dpor))
}
