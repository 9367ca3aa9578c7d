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
    /// The SUT name it applies to (without version: every version; `*`: every detector).
    pub detector: &'static str,
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
    mistake: "false negative",
    granularity: Granularity::Event,
    category: "on a location reported earlier in the trace",
    why: "a detector of racy locations (FT(α) = DR(α)) need not report a location's later races: FastTrack's same-epoch rules skip them, and the reference FastTrack deviates alike on the same traces",
    citation: "docs/spec/bigfoot.md §1.6 [D]",
    },
    Limitation { detector: "tsan", mistake: "false negative", granularity: Granularity::Location, category: "behind 4 or more accesses", why: TSAN_HISTORY, citation: TSAN_CELLS },
    Limitation { detector: "tsan", mistake: "false negative", granularity: Granularity::Event, category: "behind 4 or more accesses", why: TSAN_HISTORY, citation: TSAN_CELLS },
    Limitation { detector: "go-race", mistake: "false negative", granularity: Granularity::Location, category: "behind 4 or more accesses", why: TSAN_HISTORY, citation: TSAN_CELLS },
    Limitation { detector: "go-race", mistake: "false negative", granularity: Granularity::Event, category: "behind 4 or more accesses", why: TSAN_HISTORY, citation: TSAN_CELLS },
];

/// ThreadSanitizer's bounded history (Go's race runtime is ThreadSanitizer's).
const TSAN_HISTORY: &str =
    "ThreadSanitizer keeps a bounded history per 8 bytes (4 shadow cells); once they are full a new access replaces one, and a race with the access replaced goes unseen";

/// Where ThreadSanitizer documents it.
const TSAN_CELLS: &str = "github.com/google/sanitizers/wiki/ThreadSanitizerAlgorithm, \"Shadow State\": N shadow words per 8-byte word (kShadowCnt = 4 in tsan_defs.h)";

/// The class of `d`, a deviation of the detector named `sut` (`tsan@gcc-12`).
pub fn classify(sut: &str, d: &Deviation) -> Class {
    let name = sut.split('@').next().unwrap_or(sut);
    KNOWN
        .iter()
        .find(|l| (l.detector == name || l.detector == "*") && l.mistake == d.mistake && l.granularity == d.granularity && d.example.category.contains(l.category))
        .map_or(Class::SuspectedBug, |l| Class::Limitation { why: l.why, citation: l.citation })
}
