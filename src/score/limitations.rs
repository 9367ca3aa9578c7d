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
    /// No documented limitation matches: a bug until shown otherwise.
    SuspectedBug,
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Class::Limitation { why, citation } => write!(f, "documented limitation: {why} ({citation})"),
            Class::SuspectedBug => f.write_str("suspected bug: no documented limitation matches"),
        }
    }
}

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
];

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
    KNOWN
        .iter()
        .find(|l| {
            (l.detector == name || l.detector == "*")
                && (l.versions.is_empty() || l.versions.contains(&version))
                && l.mistake == d.mistake
                && l.granularity == d.granularity
                && d.example.category.contains(l.category)
        })
        .map_or(Class::SuspectedBug, |l| Class::Limitation { why: l.why, citation: l.citation })
}
