//! BigFoot (docs/spec/bigfoot.md; [Rhodes 2019] ch. 3, PLDI 2017): static check placement
//! ([`placement`], over the analysis contexts of [`context`]) and its run-time checker,
//! DynamicBF ([`dynamic`], §7).

pub mod context;
pub mod dynamic;
pub mod placement;

use self::dynamic::DynamicBfBug;
use self::placement::PlacementBug;
use crate::seeded::{Predicted, Seeded};

/// A seeded bug of BigFoot: in its placement or in DynamicBF.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BigFootBug {
    /// A placement bug.
    Placement(PlacementBug),
    /// A DynamicBF bug.
    Dynamic(DynamicBfBug),
}

/// Its seeded bugs (`--mutant NAME`), with what the spec predicts under each oracle
/// (the seeded-bug catalogue lists them).
pub const SEEDED: &[Seeded<BigFootBug>] = &[
    Seeded {
        name: "bf-check-after-acquire",
        oracle: "bigfoot-precise",
        description: "the checks owed at an acquire are placed after it",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §9.2 row 1, §9.4 (missed race)",
        bug: BigFootBug::Placement(PlacementBug::CheckAfterAcquire),
    },
    Seeded {
        name: "bf-release-keeps-accesses",
        oracle: "bigfoot-precise",
        description: "a release forgets past checks but not past accesses, which are checked again after it",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §4.5 [REL], §9.4 row 1 (false alarm)",
        bug: BigFootBug::Placement(PlacementBug::ReleaseKeepsAccesses),
    },
    Seeded {
        name: "bf-anticipation-through-acquire",
        oracle: "bigfoot-precise",
        description: "anticipated accesses flow backward through an acquire and excuse checks before an earlier release",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §4.5 [ACQ], §9.2 row 7 (missed race)",
        bug: BigFootBug::Placement(PlacementBug::AnticipationThroughAcquire),
    },
    Seeded {
        name: "bf-range-over-approx",
        oracle: "bigfoot-precise",
        description: "coalescing two ranges adds one element past their union",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §5.1, §9.2 row 12 (false alarm)",
        bug: BigFootBug::Placement(PlacementBug::RangeOverApprox),
    },
    Seeded {
        name: "bf-range-under-approx",
        oracle: "bigfoot-precise",
        description: "coalescing two ranges drops the last element of their union",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §5.1, §9.4 (missed race)",
        bug: BigFootBug::Placement(PlacementBug::RangeUnderApprox),
    },
    Seeded {
        name: "bf-call-kill-sets-empty",
        oracle: "bigfoot-precise",
        description: "every callee has empty kill sets: checks are deferred past calls that synchronize",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §4.5 [CALL], §9.2 row 11",
        bug: BigFootBug::Placement(PlacementBug::CallKillSetsEmpty),
    },
    Seeded {
        name: "dbf-footprint-after-sync",
        oracle: "bigfoot-precise",
        description: "DynamicBF commits a thread's array footprint after its synchronization operation instead of before",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §7.1 [D], §9.4 (missed race after an acquire, false alarm after a release)",
        bug: BigFootBug::Dynamic(DynamicBfBug::FootprintCommittedAfterSync),
    },
    Seeded {
        name: "dbf-asymmetric-proxy",
        oracle: "bigfoot-precise",
        description: "DynamicBF shares one shadow among fields related by the one-way proxy relation",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §5.2 footnote 2, §9.2 row 14 (false alarm on the field that did not race)",
        bug: BigFootBug::Dynamic(DynamicBfBug::AsymmetricProxy),
    },
    Seeded {
        name: "dbf-refine-without-copy",
        oracle: "bigfoot-precise",
        description: "refining an array's partition gives the split-off groups empty shadows instead of the parent's",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §5.3.1, §9.4 (missed race)",
        bug: BigFootBug::Dynamic(DynamicBfBug::RefineWithoutCopy),
    },
    Seeded {
        name: "dbf-no-commit-at-end",
        oracle: "bigfoot-precise",
        description: "DynamicBF drops the footprints still pending when the trace ends",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §7.1 [C], §9.4 (footprints not committed at thread exit: missed race)",
        bug: BigFootBug::Dynamic(DynamicBfBug::NoCommitAtEnd),
    },
    Seeded {
        name: "dbf-group-race-first-index",
        oracle: "bigfoot-precise",
        description: "a race on a compressed array group is reported on the group's first index only, not on each member",
        predicted: Predicted::breaks(&["bigfoot-precise"]),
        spec: "spec/bigfoot.md §5.3.1 [D] (a race on a group's shadow is a race on each of its indices: missed racy locations)",
        bug: BigFootBug::Dynamic(DynamicBfBug::GroupRaceOnFirstIndex),
    },
];
