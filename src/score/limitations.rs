//! The deviations a tool documents: a [`Deviation`] of a detector is a *limitation* when a
//! row of [`KNOWN`] matches it, with the tool's own documentation or tracker as citation,
//! and a *suspected bug* otherwise (until a citation is found, or the bug is reported).
//!
//! A row matches by the detector's SUT name (`tsan` matches every `tsan@…`; `*` every
//! detector), the mistake, the granularity and a fragment of the category; every row cites
//! where the tool or the project's spec says so.

use super::{Deviation, Granularity};

/// A documented limitation of a tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limitation {
    /// The SUT name it applies to (without version; `*`: every detector).
    pub detector: &'static str,
    /// The versions it applies to (`0.2.2`); empty: every version.
    pub versions: &'static [&'static str],
    /// `false positive` or `false negative`.
    pub mistake: &'static str,
    /// The granularity.
    pub granularity: Granularity,
    /// A fragment of the category (empty: any).
    pub category: &'static str,
    /// What the tool does, in a line.
    pub why: &'static str,
    /// Where the tool documents it.
    pub citation: &'static str,
}

/// What a deviation is.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "class")]
pub enum Class {
    /// Documented by the tool.
    Limitation {
        /// What the tool does.
        why: &'static str,
        /// Where it says so.
        citation: &'static str,
    },
    /// A bug of the tool, confirmed from its source ([`BUGS`]): not documented by it, but
    /// no longer a suspicion either.
    KnownBug {
        /// What the tool does wrong.
        why: &'static str,
        /// Where the mechanism is shown.
        citation: &'static str,
    },
    /// No documented limitation or known bug matches: a bug until shown otherwise.
    SuspectedBug,
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Class::Limitation { why, citation } => write!(f, "documented limitation: {why} ({citation})"),
            Class::KnownBug { why, citation } => write!(f, "known bug: {why} ({citation})"),
            Class::SuspectedBug => f.write_str("suspected bug: no documented limitation matches"),
        }
    }
}

/// Miri's first data race is undefined behaviour, where it stops (its claim is `first-race`).
const MIRI_STOPS: &str = "Miri stops at the first undefined behaviour it finds, and a data race is one: a trace's races after the one it reports are never run under its detector";
const MIRI_STOPS_CITED: &str =
    "Miri src/eval.rs, eval_entry: the first error ends the interpretation and is reported (report_error, src/diagnostics.rs); docs/spec/atomics.md §5.4";

/// Every documented limitation racefuzz knows of. Rows are added only with a citation
/// checked against the tool's documentation or the project's specs.
pub const KNOWN: &[Limitation] = &[
    Limitation {
        detector: "*",
        versions: &[],
        mistake: "false negative",
        granularity: Granularity::Event,
        category: "on a location reported earlier in the trace",
        why: "a detector of racy locations (FT(α) = DR(α)) need not report a location's later races: FastTrack's same-epoch rules skip them, and the reference FastTrack deviates alike on the same traces",
        citation: "docs/spec/bigfoot.md §1.6 [D]",
    },
    Limitation { detector: "miri", versions: &[], mistake: "false negative", granularity: Granularity::Location, category: "after the race it stopped at", why: MIRI_STOPS, citation: MIRI_STOPS_CITED },
    Limitation { detector: "miri", versions: &[], mistake: "false negative", granularity: Granularity::Event, category: "after the race it stopped at", why: MIRI_STOPS, citation: MIRI_STOPS_CITED },
    Limitation { detector: "tsan", versions: &[], mistake: "false negative", granularity: Granularity::Location, category: "behind 4 or more accesses", why: TSAN_HISTORY, citation: TSAN_CELLS },
    Limitation { detector: "tsan", versions: &[], mistake: "false negative", granularity: Granularity::Event, category: "behind 4 or more accesses", why: TSAN_HISTORY, citation: TSAN_CELLS },
    Limitation { detector: "go-race", versions: &[], mistake: "false negative", granularity: Granularity::Location, category: "behind 4 or more accesses", why: TSAN_HISTORY, citation: TSAN_CELLS },
    Limitation { detector: "go-race", versions: &[], mistake: "false negative", granularity: Granularity::Event, category: "behind 4 or more accesses", why: TSAN_HISTORY, citation: TSAN_CELLS },
    Limitation { detector: "loom", versions: &["0.2.0", "0.2.1", "0.2.2"], mistake: "false negative", granularity: Granularity::Program, category: "", why: LOOM_READS, citation: LOOM_READS_FIXED },
    Limitation {
        detector: "loom",
        versions: &["0.2.3", "0.2.4", "0.2.5", "0.2.6", "0.2.7", "0.2.8", "0.2.9", "0.2.10", "0.2.11", "0.2.12", "0.2.13", "0.2.14"],
        mistake: "false negative",
        granularity: Granularity::Program,
        category: "",
        why: LOOM_SEQ_CST,
        citation: LOOM_SEQ_CST_FIXED,
    },
    // Atomics (docs/spec/atomics.md §4.4, §5): what ThreadSanitizer, Helgrind and DRD are
    // documented to do with them, at both granularities a scorecard counts.
    Limitation { detector: "tsan", versions: &[], mistake: "false positive", granularity: Granularity::Location, category: "only through a fence", why: TSAN_FENCES, citation: TSAN_FENCES_CITED },
    Limitation { detector: "tsan", versions: &[], mistake: "false positive", granularity: Granularity::Event, category: "only through a fence", why: TSAN_FENCES, citation: TSAN_FENCES_CITED },
    Limitation { detector: "tsan", versions: &[], mistake: "false positive", granularity: Granularity::Location, category: "failed CAS", why: TSAN_CAS, citation: TSAN_CAS_CITED },
    Limitation { detector: "tsan", versions: &[], mistake: "false positive", granularity: Granularity::Event, category: "failed CAS", why: TSAN_CAS, citation: TSAN_CAS_CITED },
    Limitation { detector: "tsan", versions: &[], mistake: "false negative", granularity: Granularity::Location, category: "plain store ended a release sequence", why: TSAN_RELEASE_SEQUENCE, citation: TSAN_RELEASE_SEQUENCE_CITED },
    Limitation { detector: "tsan", versions: &[], mistake: "false negative", granularity: Granularity::Event, category: "plain store ended a release sequence", why: TSAN_RELEASE_SEQUENCE, citation: TSAN_RELEASE_SEQUENCE_CITED },
    // gcc 11's libtsan (compiler-rt of November 2020) and a failed CAS's failure order.
    Limitation { detector: "tsan", versions: &["gcc-11"], mistake: "false positive", granularity: Granularity::Location, category: MIXED_CAS, why: TSAN_FMO_IGNORED, citation: TSAN_FMO_CITED },
    Limitation { detector: "tsan", versions: &["gcc-11"], mistake: "false positive", granularity: Granularity::Event, category: MIXED_CAS, why: TSAN_FMO_IGNORED, citation: TSAN_FMO_CITED },
    Limitation { detector: "tsan", versions: &["gcc-11"], mistake: "false negative", granularity: Granularity::Location, category: MIXED_CAS, why: TSAN_FMO_IGNORED, citation: TSAN_FMO_CITED },
    Limitation { detector: "tsan", versions: &["gcc-11"], mistake: "false negative", granularity: Granularity::Event, category: MIXED_CAS, why: TSAN_FMO_IGNORED, citation: TSAN_FMO_CITED },
    // SC fences as one global clock (docs/spec/atomics.md §5.3, §5.4, L12).
    Limitation { detector: "loom", versions: &[], mistake: "false negative", granularity: Granularity::Program, category: "across a seq_cst fence in each thread", why: SC_FENCES_GLOBAL, citation: LOOM_SC_FENCES_CITED },
    Limitation { detector: "miri", versions: &[], mistake: "false negative", granularity: Granularity::Location, category: "across a seq_cst fence in each thread", why: SC_FENCES_GLOBAL, citation: MIRI_SC_FENCES_CITED },
    Limitation { detector: "miri", versions: &[], mistake: "false negative", granularity: Granularity::Event, category: "across a seq_cst fence in each thread", why: SC_FENCES_GLOBAL, citation: MIRI_SC_FENCES_CITED },
    // Go's race runtime is ThreadSanitizer's, and runs strengthened programs (spec §5.5, §6.3):
    // no fences, but the same compare-exchange and the same release clock.
    Limitation { detector: "go-race", versions: &[], mistake: "false positive", granularity: Granularity::Location, category: "failed CAS", why: TSAN_CAS, citation: GO_CAS_CITED },
    Limitation { detector: "go-race", versions: &[], mistake: "false positive", granularity: Granularity::Event, category: "failed CAS", why: TSAN_CAS, citation: GO_CAS_CITED },
    Limitation { detector: "go-race", versions: &[], mistake: "false negative", granularity: Granularity::Location, category: "plain store ended a release sequence", why: TSAN_RELEASE_SEQUENCE, citation: GO_RELEASE_SEQUENCE_CITED },
    Limitation { detector: "go-race", versions: &[], mistake: "false negative", granularity: Granularity::Event, category: "plain store ended a release sequence", why: TSAN_RELEASE_SEQUENCE, citation: GO_RELEASE_SEQUENCE_CITED },
    Limitation { detector: "helgrind", versions: &[], mistake: "false positive", granularity: Granularity::Location, category: "through a", why: VALGRIND_ATOMICS, citation: HELGRIND_CITED },
    Limitation { detector: "helgrind", versions: &[], mistake: "false positive", granularity: Granularity::Event, category: "through a", why: VALGRIND_ATOMICS, citation: HELGRIND_CITED },
    Limitation { detector: "helgrind", versions: &[], mistake: "false positive", granularity: Granularity::Location, category: "atomic accesses never race", why: VALGRIND_ATOMICS, citation: HELGRIND_CITED },
    Limitation { detector: "helgrind", versions: &[], mistake: "false positive", granularity: Granularity::Event, category: "atomic accesses never race", why: VALGRIND_ATOMICS, citation: HELGRIND_CITED },
    Limitation { detector: "helgrind", versions: &[], mistake: "false negative", granularity: Granularity::Location, category: "atomic", why: VALGRIND_LOCKED_READ, citation: HELGRIND_CITED },
    Limitation { detector: "helgrind", versions: &[], mistake: "false negative", granularity: Granularity::Event, category: "atomic", why: VALGRIND_LOCKED_READ, citation: HELGRIND_CITED },
    Limitation { detector: "drd", versions: &[], mistake: "false positive", granularity: Granularity::Location, category: "through a", why: VALGRIND_ATOMICS, citation: DRD_CITED },
    Limitation { detector: "drd", versions: &[], mistake: "false positive", granularity: Granularity::Event, category: "through a", why: VALGRIND_ATOMICS, citation: DRD_CITED },
    Limitation { detector: "drd", versions: &[], mistake: "false positive", granularity: Granularity::Location, category: "atomic accesses never race", why: VALGRIND_ATOMICS, citation: DRD_CITED },
    Limitation { detector: "drd", versions: &[], mistake: "false positive", granularity: Granularity::Event, category: "atomic accesses never race", why: VALGRIND_ATOMICS, citation: DRD_CITED },
    Limitation { detector: "drd", versions: &[], mistake: "false negative", granularity: Granularity::Location, category: "atomic", why: VALGRIND_LOCKED_READ, citation: DRD_CITED },
    Limitation { detector: "helgrind", versions: &[], mistake: "false positive", granularity: Granularity::Location, category: "failed CAS", why: VALGRIND_CMPXCHG, citation: VALGRIND_CMPXCHG_CITED },
    Limitation { detector: "helgrind", versions: &[], mistake: "false positive", granularity: Granularity::Event, category: "failed CAS", why: VALGRIND_CMPXCHG, citation: VALGRIND_CMPXCHG_CITED },
    Limitation { detector: "drd", versions: &[], mistake: "false positive", granularity: Granularity::Location, category: "failed CAS", why: VALGRIND_CMPXCHG, citation: VALGRIND_CMPXCHG_CITED },
    Limitation { detector: "drd", versions: &[], mistake: "false positive", granularity: Granularity::Event, category: "failed CAS", why: VALGRIND_CMPXCHG, citation: VALGRIND_CMPXCHG_CITED },
    Limitation { detector: "drd", versions: &[], mistake: "false negative", granularity: Granularity::Event, category: "atomic", why: VALGRIND_LOCKED_READ, citation: DRD_CITED },
];

/// ThreadSanitizer and fences.
const TSAN_FENCES: &str = "ThreadSanitizer does not model atomic_thread_fence, so synchronization through a fence is unseen";

/// Where it is documented.
const TSAN_FENCES_CITED: &str = "google/sanitizers#1415 (open); compiler-rt tsan_interface_atomic.cpp, OpFence: \"FIXME(dvyukov): not implemented\"; gcc's -Wtsan (GCC 11, google/sanitizers#1352); docs/spec/atomics.md §5.1";

/// ThreadSanitizer and a failed CAS.
const TSAN_CAS: &str = "ThreadSanitizer records a compare-exchange as an atomic write before it compares, so a CAS that fails (a read) conflicts with plain reads";

/// Where it is documented.
const TSAN_CAS_CITED: &str = "compiler-rt tsan_interface_atomic.cpp, OpCAS: MemoryAccess(.., kAccessWrite | kAccessAtomic) before the compare; docs/spec/atomics.md §5.1";

/// ThreadSanitizer and release sequences.
const TSAN_RELEASE_SEQUENCE: &str =
    "a relaxed atomic store, and a plain store (no atomic operation at all), leave the location's release clock alone, so a release sequence they end (C++20) still synchronizes";

/// Where it is documented.
const TSAN_RELEASE_SEQUENCE_CITED: &str =
    "compiler-rt tsan_interface_atomic.cpp, AtomicStore: \"Strictly saying even relaxed store cuts off release sequence, so must reset the clock.\" (a plain store never reaches that code: tsan_rtl_access.cpp touches only shadow memory); docs/spec/atomics.md §5.1";

/// The category fragment of a failed CAS with two orders (`category::past_mixed_cas`).
const MIXED_CAS: &str = "past a failed CAS whose success order synchronizes more than its failure order";

/// gcc 11's libtsan and a failed CAS.
const TSAN_FMO_IGNORED: &str = "gcc 11's libtsan ignores a compare-exchange's failure order: a failed CAS does the clock work of its success order, so it releases, or acquires, where its failure order says it does not";

/// Where it is shown, and fixed.
const TSAN_FMO_CITED: &str = "gcc 11 libsanitizer/tsan/tsan_interface_atomic.cpp (LLVM 6e7dd1e3, 2020-11), AtomicCAS: \"(void)fmo; // Unused because llvm does not pass it yet.\"; google/sanitizers#970, fixed upstream by LLVM D99434 (2021-05); reproduced by hand on gcc 11.3; docs/spec/atomics.md §5.1";

/// loom and Miri and SC fences.
const SC_FENCES_GLOBAL: &str =
    "seq_cst fences are run as one global clock, so a thread's SC fence synchronizes with every later SC fence of another thread, which C11 does not say: the race across them is missed when the first's fence runs first";

/// Where loom does so.
const LOOM_SC_FENCES_CITED: &str =
    "loom rt/atomic.rs and rt/thread.rs, seq_cst_fence (PR #220), and fences are no scheduling points, so only one order of the two fences runs; docs/spec/atomics.md §5.3, L12";

/// Where Miri does so.
const MIRI_SC_FENCES_CITED: &str =
    "Miri concurrency/data_race.rs: an SC fence acts \"like an RMW on the global fence location\" and \"rules out many legal behaviors\"; docs/spec/atomics.md §5.4, L12";

/// Where Go's race runtime does what [`TSAN_CAS`] says.
const GO_CAS_CITED: &str = "Go runtime/race_amd64.s: sync/atomic.CompareAndSwapInt64 calls __tsan_go_atomic64_compare_exchange, compiler-rt's AtomicCAS (tsan_interface_atomic.cpp, OpCAS); measured with Go 1.19 (a failed CAS is a `Previous write`); docs/spec/atomics.md §5.5";

/// Where Go's race runtime does what [`TSAN_RELEASE_SEQUENCE`] says.
const GO_RELEASE_SEQUENCE_CITED: &str =
    "Go's race runtime is compiler-rt's (AtomicStore resets the release clock; a plain store, instrumented as racewrite, touches shadow memory only: tsan_rtl_access.cpp); docs/spec/atomics.md §5.1, §5.5";

/// Helgrind and DRD and atomics.
const VALGRIND_ATOMICS: &str = "Helgrind and DRD do not model C11 atomics: an atomic load or a plain-instruction store is a plain access and adds no happens-before";

/// Helgrind and DRD and LOCK-prefixed instructions.
const VALGRIND_LOCKED_READ: &str =
    "Helgrind and DRD take a LOCK-prefixed instruction (an RMW, a CAS, a seq_cst store on x86-64) for a read, so its race with a plain read goes unseen";

/// Helgrind and DRD and a failed CAS.
const VALGRIND_CMPXCHG: &str =
    "Helgrind and DRD see the instruction: x86-64's lock cmpxchg writes its destination even when the comparison fails, so a failed CAS is a write to them and conflicts with plain reads";

/// Where the instruction's write is documented.
const VALGRIND_CMPXCHG_CITED: &str = "Intel SDM Vol. 2A, CMPXCHG (\"the destination operand is written back if the comparison fails\"); docs/spec/atomics.md §5.2";

/// Where Helgrind documents it.
const HELGRIND_CITED: &str =
    "Valgrind user manual §7.5 (Helgrind models pthreads and \"partially handles\" LOCK-prefixed instructions, no C11 atomics); measured on the litmus corpus (tests/litmus_real.rs); docs/spec/atomics.md §5.2";

/// Where DRD documents it.
const DRD_CITED: &str = "drd_main.c, Ist_CAS: \"Treat compare-and-swap as a read. [..] Conflicts between atomic operations and non-atomic write operations are still reported\"; Valgrind user manual §8.2.9; docs/spec/atomics.md §5.2";

/// loom before 0.2.3: its cell ignores reads.
const LOOM_READS: &str = "loom's CausalCell did not check a read against a concurrent write (and before 0.2.2 compared causality wrongly), fixed in 0.2.3";

/// Where loom says so (`racefuzz::loom::versions` measures it).
const LOOM_READS_FIXED: &str =
    "loom CHANGELOG.md, 0.2.3: \"CausalCell failed to detect concurrent immutable/mutable access (#42)\"; 0.2.2: \"incorrect causality comparison (#38)\"";

/// loom 0.2.3 to 0.2.14: every mutex operation joined one global clock.
const LOOM_SEQ_CST: &str = "loom's Mutex synchronized through a global sequentially consistent clock (rt/thread.rs `seq_cst`), so any two critical sections, of any locks, ordered the threads, hiding races; 0.2.15 removed it";

/// Where loom says so.
const LOOM_SEQ_CST_FIXED: &str = "loom CHANGELOG.md, 0.2.15: \"avoid global happens-before with SeqCst ordering (#108)\"";

/// ThreadSanitizer's bounded history (Go's race runtime is ThreadSanitizer's).
const TSAN_HISTORY: &str =
    "ThreadSanitizer keeps a bounded history per 8 bytes (4 shadow cells); once they are full a new access replaces one, and a race with the access replaced goes unseen";

/// Where ThreadSanitizer documents it.
const TSAN_CELLS: &str = "github.com/google/sanitizers/wiki/ThreadSanitizerAlgorithm, \"Shadow State\": N shadow words per 8-byte word (kShadowCnt = 4 in tsan_defs.h)";

/// The class of `d`, a deviation of the detector named `sut` (`tsan@gcc-12`).
pub fn classify(sut: &str, d: &Deviation) -> Class {
    let (name, version) = sut.split_once('@').unwrap_or((sut, ""));
    let matches = |l: &&Limitation| {
        (l.detector == name || l.detector == "*")
            && (l.versions.is_empty() || l.versions.contains(&version))
            && l.mistake == d.mistake
            && l.granularity == d.granularity
            && d.example.category.contains(l.category)
    };
    if let Some(l) = KNOWN.iter().find(matches) {
        return Class::Limitation { why: l.why, citation: l.citation };
    }
    BUGS.iter().find(matches).map_or(Class::SuspectedBug, |l| Class::KnownBug { why: l.why, citation: l.citation })
}

/// Bugs found by racefuzz and confirmed from the tool's source, in the shape of
/// [`KNOWN`]'s rows (`why` says what goes wrong).
pub const BUGS: &[Limitation] = &[
    Limitation {
        detector: "tsan",
        versions: &[],
        mistake: "false negative",
        granularity: Granularity::Location,
        category: "after its writer's own plain read",
        why: TSAN_SHADOW_REPLACED,
        citation: TSAN_SHADOW_REPLACED_CITED,
    },
    Limitation {
        detector: "tsan",
        versions: &[],
        mistake: "false negative",
        granularity: Granularity::Event,
        category: "after its writer's own plain read",
        why: TSAN_SHADOW_REPLACED,
        citation: TSAN_SHADOW_REPLACED_CITED,
    },
];

/// ThreadSanitizer's shadow-slot replacement (docs/spec/atomics.md §5.1).
const TSAN_SHADOW_REPLACED: &str = "a thread's plain read of the same bytes overwrites the shadow slot of its own earlier atomic write, which ranks as weaker, so another thread's plain read that races with the write finds only a read";

/// Where the mechanism is.
const TSAN_SHADOW_REPLACED_CITED: &str =
    "compiler-rt tsan_rtl_access.cpp, CheckRaces: same sid and byte mask and old.IsRWWeakerOrEqual(typ) → StoreShadow; tsan_shadow.h, IsRWWeakerOrEqual compares the atomic bit before the read bit; the v2 runtime's tsan_update_shadow_word_inl.h alike; docs/spec/atomics.md §5.1";
