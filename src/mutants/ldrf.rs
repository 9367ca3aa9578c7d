//! The seeded bugs of the thread-local L-DRF semantics (`race_oracles::ldrf::local`), which
//! racefuzz judges as a SUT against the standard semantics. It lives in the ground-truth
//! crate, so its table lives here rather than under `analyses/` (which may not reach it).

use race_oracles::ldrf::local::LdrfBug;

use crate::seeded::{Predicted, Seeded};

/// Its seeded bugs (`--mutant NAME`), with what the spec predicts under each oracle
/// (the seeded-bug catalogue lists them).
pub const SEEDED: &[Seeded<LdrfBug>] = &[
    Seeded {
        name: "ldrf-whole-snapshot",
        oracle: "ldrf-agree",
        description: "an acquire copies one newest snapshot whole instead of taking each variable from a copy newest in it",
        predicted: Predicted::breaks(&["ldrf-agree"]),
        spec: "spec/ldrf.md §2 updEnv, §8 R3",
        bug: LdrfBug::WholeSnapshot,
    },
    Seeded {
        name: "ldrf-append-buffer",
        oracle: "ldrf-agree",
        description: "a release appends its snapshot to the buffer instead of overwriting it (older snapshots never hold a newest version, so the import is unchanged: more states, same χ-images)",
        predicted: Predicted::equivalent(&["ldrf-agree"]),
        spec: "spec/ldrf.md §2 Release",
        bug: LdrfBug::AppendBuffer,
    },
    Seeded {
        name: "ldrf-acquire-ignores-g",
        oracle: "ldrf-agree",
        description: "an acquire reads the buffers of every release point, of every lock, ignoring G (C1-C4 miss it on race-free programs, where what it imports is never read; C7 sees the whole copy leave ⟦P⟧× once a program has two locks)",
        predicted: Predicted::UNKNOWN,
        spec: "spec/ldrf.md §2 Acquire, Remark 9",
        bug: LdrfBug::AcquireIgnoresG,
    },
    Seeded {
        name: "ldrf-no-version-bump",
        oracle: "ldrf-agree",
        description: "a write does not increment the writer's version, so an acquire may keep a stale copy",
        predicted: Predicted::breaks(&["ldrf-agree"]),
        spec: "spec/ldrf.md §2 Assign",
        bug: LdrfBug::NoVersionBump,
    },
    Seeded {
        name: "ldrf-chi-prefers-buffers",
        oracle: "ldrf-agree",
        description: "χ reads every variable from a defined buffer before the threads (buffers are old copies)",
        predicted: Predicted::breaks(&["ldrf-agree"]),
        spec: "spec/ldrf.md Def. 5",
        bug: LdrfBug::ChiPrefersBuffers,
    },
    Seeded {
        name: "ldrf-release-no-snapshot",
        oracle: "ldrf-agree",
        description: "a release leaves no snapshot in its buffer, so no acquire ever imports",
        predicted: Predicted::breaks(&["ldrf-agree"]),
        spec: "spec/ldrf.md §2 Release",
        bug: LdrfBug::ReleaseNoSnapshot,
    },
    Seeded {
        name: "ldrf-region-bump-one",
        oracle: "ldrf-agree",
        description: "R-DRF: a write bumps the version of the written variable only, not of its whole region",
        predicted: Predicted::breaks(&["ldrf-agree"]),
        spec: "spec/ldrf.md §3 R-DRF semantics",
        bug: LdrfBug::RegionBumpOne,
    },
];
