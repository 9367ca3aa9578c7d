//! FastTrack's seeded bugs (`--mutant NAME`): mistakes docs/spec/bigfoot.md §9.4 or the
//! FastTrack paper warns about, and, for atomics, the rules of docs/spec/atomics.md §4.2 that
//! detectors get wrong (spec §4.4, §5), each tied to the litmus test of spec §8 it breaks.
//!
//! The atomic bugs are judged by `fasttrack-precise-atomics` (whose generator writes
//! atomics); `fasttrack-precise`'s programs have none, so it never runs the code they are
//! in. The lock and fork/join bugs are not judged under `fasttrack-precise-atomics`, whose
//! generator writes no lock, fork or join.

use crate::seeded::{Predicted, Seeded};

/// Seeded bugs, each a mistake docs/spec/bigfoot.md §9.4 or the FastTrack paper warns about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FastTrackBug {
    /// WRITE leaves a shared read vector clock in place instead of resetting it to `⊥e`.
    SharedReadsKept,
    /// REL publishes the clock but does not increment `C_t[t]`.
    ReleaseNoTick,
    /// ACQ does not join the lock's clock.
    AcquireNoJoin,
    /// READ skips whenever the last read epoch is by the same thread, whatever its clock
    /// (the "same epoch" fast path taken too broadly).
    SameThreadSkip,
    /// FORK hands the parent's clock to the child but does not increment `C_t[t]`: the
    /// parent's accesses after the fork carry an epoch the child already knows.
    ForkNoTick,
    /// JOIN does not join the child's clock into the joiner's: the child's accesses look
    /// concurrent with everything the joiner does after the join.
    JoinNoJoin,
    /// Fences do nothing (ThreadSanitizer, spec §5.1): L3 (fence/fence message passing) is
    /// reported.
    FencesIgnored,
    /// An RMW replaces `W[m]` as a store does, so the release sequence ends at it instead of
    /// running through it (spec §2.2): L6 is reported.
    RmwCutsSequence,
    /// A relaxed store leaves `W[m]` alone (ThreadSanitizer, spec §5.1): another thread's
    /// relaxed store does not cut the release sequence (C++20 says it does, spec §2.2), L7
    /// is missed.
    RelaxedStoreKeepsSequence,
    /// A relaxed load acquires: L2 (relaxed message passing) is missed.
    RelaxedLoadAcquires,
    /// A failed CAS is checked as a write (ThreadSanitizer, spec §5.1): L13's failed CAS
    /// races with the plain read.
    FailedCasWrites,
    /// seq_cst fences join one global clock (Miri, loom; spec §4.4, §5.3, §5.4): L12 is
    /// missed when the first fence comes first.
    ScFencesGlobal,
    /// A plain write leaves `W[m]` alone instead of ending every release sequence on m (spec
    /// §1.3): an acquire load that reads the plain write synchronizes with the release
    /// store before it.
    PlainWriteKeepsSequence,
}

/// Its seeded bugs (`--mutant NAME`), with what the spec predicts under each oracle
/// (the seeded-bug catalogue lists them).
pub const SEEDED: &[Seeded<FastTrackBug>] = &[
    Seeded {
        name: "ft-shared-reads-kept",
        oracle: "fasttrack-precise",
        description: "WRITE keeps a shared read vector clock instead of resetting it to ⊥e",
        // Equivalent on location sets, whatever spec §9.4 suggests: the kept reads all
        // happen before the write that kept them (or that write reported x), and a later
        // write to x is ordered after that write (or reports x itself), so by transitivity
        // the stale reads are below its clock too. Measured: not caught in 6,000 programs.
        predicted: Predicted::equivalent(&["fasttrack-precise", "fasttrack-precise-atomics"]),
        spec: "spec/bigfoot.md §1.6 WRITE, §9.4 (read-shared VC not reset on a write)",
        bug: FastTrackBug::SharedReadsKept,
    },
    Seeded {
        name: "ft-release-no-tick",
        oracle: "fasttrack-precise",
        description: "REL publishes the thread's clock without incrementing it: accesses after a release look ordered before the next acquirer",
        predicted: Predicted::breaks(&["fasttrack-precise"]).unexercised_by(&["fasttrack-precise-atomics"]),
        spec: "spec/bigfoot.md §1.6 REL",
        bug: FastTrackBug::ReleaseNoTick,
    },
    Seeded {
        name: "ft-acquire-no-join",
        oracle: "fasttrack-precise",
        description: "ACQ does not join the lock's clock: lock-protected accesses look concurrent",
        predicted: Predicted::breaks(&["fasttrack-precise"]).unexercised_by(&["fasttrack-precise-atomics"]),
        spec: "spec/bigfoot.md §1.6 ACQ",
        bug: FastTrackBug::AcquireNoJoin,
    },
    Seeded {
        name: "ft-same-thread-skip",
        oracle: "fasttrack-precise",
        description: "READ takes the same-epoch fast path whenever the last read is the same thread's, whatever its clock",
        // Not hunted under fasttrack-precise-atomics: the bug needs a thread that reads one
        // location twice in one epoch beside a writer ordered between the reads, a shape the
        // atomic generator does not write (not caught in 1,000 of its programs).
        predicted: Predicted::breaks(&["fasttrack-precise"]).unexercised_by(&["fasttrack-precise-atomics"]),
        spec: "spec/bigfoot.md §1.6 READ, §9.4 (same-epoch handling)",
        bug: FastTrackBug::SameThreadSkip,
    },
    Seeded {
        name: "ft-fork-no-tick",
        oracle: "fasttrack-precise",
        description: "FORK hands the parent's clock to the child without incrementing the parent's entry: the parent's accesses after the fork look ordered before the child's",
        predicted: Predicted::breaks(&["fasttrack-precise"]).unexercised_by(&["fasttrack-precise-atomics"]),
        spec: "spec/bigfoot.md §1.6 FORK (FORK was never run by fasttrack-precise before the detector generator forked)",
        bug: FastTrackBug::ForkNoTick,
    },
    Seeded {
        name: "ft-join-no-join",
        oracle: "fasttrack-precise",
        description: "JOIN does not join the child's clock: the joiner's accesses after the join look concurrent with the child's",
        predicted: Predicted::breaks(&["fasttrack-precise"]).unexercised_by(&["fasttrack-precise-atomics"]),
        spec: "spec/bigfoot.md §1.6 JOIN (JOIN was never run by fasttrack-precise before the detector generator joined)",
        bug: FastTrackBug::JoinNoJoin,
    },
    Seeded {
        name: "ft-fences-ignored",
        oracle: "fasttrack-precise-atomics",
        description: "fences do nothing (ThreadSanitizer): fence/fence message passing (L3) looks racy",
        predicted: Predicted::breaks(&["fasttrack-precise-atomics"]).unexercised_by(&["fasttrack-precise"]),
        spec: "spec/atomics.md §4.2 Fence, §5.1, §8 L3-L5, L14",
        bug: FastTrackBug::FencesIgnored,
    },
    Seeded {
        name: "ft-rmw-cuts-sequence",
        oracle: "fasttrack-precise-atomics",
        description: "an RMW replaces W[m] as a store does: the release sequence ends at it (L6 looks racy)",
        predicted: Predicted::breaks(&["fasttrack-precise-atomics"]).unexercised_by(&["fasttrack-precise"]),
        spec: "spec/atomics.md §2.2, §4.2 ARmw, §8 L6",
        bug: FastTrackBug::RmwCutsSequence,
    },
    Seeded {
        name: "ft-relaxed-store-keeps-sequence",
        oracle: "fasttrack-precise-atomics",
        description: "a relaxed store leaves W[m] alone (ThreadSanitizer): another thread's relaxed store does not cut the release sequence (L7 missed)",
        predicted: Predicted::breaks(&["fasttrack-precise-atomics"]).unexercised_by(&["fasttrack-precise"]),
        spec: "spec/atomics.md §2.2 (C++20), §4.2 AStore, §5.1, §8 L7, L8",
        bug: FastTrackBug::RelaxedStoreKeepsSequence,
    },
    Seeded {
        name: "ft-relaxed-load-acquires",
        oracle: "fasttrack-precise-atomics",
        description: "a relaxed load acquires: relaxed message passing (L2) looks race-free",
        predicted: Predicted::breaks(&["fasttrack-precise-atomics"]).unexercised_by(&["fasttrack-precise"]),
        spec: "spec/atomics.md §2.3, §4.2 atomic read, §8 L2",
        bug: FastTrackBug::RelaxedLoadAcquires,
    },
    Seeded {
        name: "ft-failed-cas-writes",
        oracle: "fasttrack-precise-atomics",
        description: "a failed CAS is checked as a write (ThreadSanitizer): it races with a concurrent plain read (L13)",
        predicted: Predicted::breaks(&["fasttrack-precise-atomics"]).unexercised_by(&["fasttrack-precise"]),
        spec: "spec/atomics.md §1.1, §1.3, §5.1, §8 L13",
        bug: FastTrackBug::FailedCasWrites,
    },
    Seeded {
        name: "ft-sc-fences-global",
        oracle: "fasttrack-precise-atomics",
        description: "seq_cst fences join one global clock (Miri, loom): two SC fences order the plain accesses around them (L12 missed)",
        predicted: Predicted::breaks(&["fasttrack-precise-atomics"]).unexercised_by(&["fasttrack-precise"]),
        spec: "spec/atomics.md §2.3 (S creates no sw), §4.4, §5.3, §5.4, §8 L12",
        bug: FastTrackBug::ScFencesGlobal,
    },
    Seeded {
        name: "ft-plain-write-keeps-sequence",
        oracle: "fasttrack-precise-atomics",
        description: "a plain write leaves W[m] alone: an acquire load that reads it synchronizes with the release store before it",
        predicted: Predicted::breaks(&["fasttrack-precise-atomics"]).unexercised_by(&["fasttrack-precise"]),
        spec: "spec/atomics.md §1.3 (a plain write ends every release sequence), §4.2",
        bug: FastTrackBug::PlainWriteKeepsSequence,
    },
];
