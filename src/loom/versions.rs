//! Every published loom version, how it fares with racefuzz's driver (measured), and the
//! dependencies an old one would need pinned.

/// How a loom version fares on rustc 1.95 ([`VERSIONS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Builds, and agrees with the ground truth on the tiny programs of `tests/loom.rs` and
    /// on 200 generated programs (below).
    Agrees,
    /// Builds and runs, but its verdicts deviate from the ground truth (a finding about
    /// that version, not a failure of the driver): why.
    Deviates(&'static str),
    /// Not driven: why.
    Unsupported(&'static str),
}

/// Every one of the 41 versions of loom on crates.io, tried on rustc 1.95 with this driver,
/// newest first. None needed a pinned dependency (`generator` 0.6–0.8 still build). First
/// builds took 5–70 s each with race-oracles already built in the shared target folder.
pub const VERSIONS: &[(&str, Support)] = {
    use Support::*;
    /// loom 0.2.0 to 0.2.2's `CausalCell` records no reads (and in 0.2.0 and 0.2.1 an access
    /// does not advance the thread's clock), so a write after an unordered read, and more,
    /// goes unreported. Measured on 200 programs of `fasttrack-precise`'s generator (`racefuzz
    /// gen fasttrack-precise --count 200 --seed 7`, 102 racy): 0.2.0 and 0.2.1 miss 54 of them,
    /// 0.2.2 misses 18, 0.2.3 to 0.2.14 miss 2, 0.2.15 and later none.
    const NO_READS: Support = Deviates("misses races: its CausalCell records no reads (54 of 102 racy generated programs missed)");
    const NO_READS_022: Support = Deviates("misses races: its CausalCell records no reads (18 of 102 racy generated programs missed)");
    const BEFORE_0215: Support = Deviates(
        "misses a race fixed in 0.2.15: a write after joining a forked reader, against a read under a lock in another thread's child (2 of 102 racy generated programs missed)",
    );
    const NO_MODEL: Support = Unsupported("the 0.1 API: no loom::model (loom::fuzz::Builder with a runtime choice); no shim");
    &[
        ("0.7.3", Agrees),
        ("0.7.2", Agrees),
        ("0.7.1", Agrees),
        ("0.7.0", Agrees),
        ("0.6.1", Agrees),
        ("0.6.0", Agrees),
        ("0.5.6", Agrees),
        ("0.5.5", Agrees),
        ("0.5.4", Agrees),
        ("0.5.3", Agrees),
        ("0.5.2", Agrees),
        ("0.5.1", Agrees),
        ("0.5.0", Agrees),
        ("0.4.1", Agrees),
        ("0.4.0", Agrees),
        ("0.3.6", Agrees),
        ("0.3.5", Agrees),
        ("0.3.4", Agrees),
        ("0.3.3", Agrees),
        ("0.3.2", Agrees),
        ("0.3.1", Agrees),
        ("0.3.0", Agrees),
        ("0.2.15", Agrees),
        ("0.2.14", BEFORE_0215),
        ("0.2.13", BEFORE_0215),
        ("0.2.12", BEFORE_0215),
        ("0.2.11", BEFORE_0215),
        ("0.2.10", BEFORE_0215),
        ("0.2.9", BEFORE_0215),
        ("0.2.8", BEFORE_0215),
        ("0.2.7", BEFORE_0215),
        ("0.2.6", BEFORE_0215),
        ("0.2.5", BEFORE_0215),
        ("0.2.4", BEFORE_0215),
        ("0.2.3", BEFORE_0215),
        ("0.2.2", NO_READS_022),
        ("0.2.1", NO_READS),
        ("0.2.0", NO_READS),
        ("0.1.1", NO_MODEL),
        ("0.1.0", NO_MODEL),
        ("0.0.1", Unsupported("a placeholder release")),
    ]
};

/// Transitive dependencies an old loom needs pinned to build today, per version prefix:
/// `cargo update -p NAME --precise VERSION` once, when the instance is made. Empty: every
/// version of [`VERSIONS`] resolved and built without one on rustc 1.95; the hook stays
/// for the day a dependency's new release breaks an old loom.
pub const PINS: &[(&str, &[(&str, &str)])] = &[];
