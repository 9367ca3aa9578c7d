//! The plug-in seam for static race analyses (conventions §6: a small trait the ground-truth
//! crate defines and the systems under test implement; it knows no implementation).
//!
//! A report names two methods run as the two threads (docs/spec/racerdx.md §3.4) and, for each
//! side, the access: kind, access path (a formal and a field sequence), abstract lock level,
//! and the sites of the statements that make the access (call chains down to the access
//! line), so that an oracle can match it with concrete events.

use std::collections::BTreeSet;
use std::fmt;

use crate::lang::{AccessKind, Program};

/// An access path `root.f1.….fn` (n ≥ 0; n = 0 is a bare variable).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct AccessPath {
    /// The root variable.
    pub root: String,
    /// The fields.
    pub fields: Vec<String>,
}

impl AccessPath {
    /// `root.fields…`
    pub fn new(root: &str, fields: &[String]) -> AccessPath {
        AccessPath { root: root.to_string(), fields: fields.to_vec() }
    }

    /// Def. 6.1: `self ≺ other` (a proper prefix; a variable is a proper prefix of every
    /// path rooted at it).
    pub fn proper_prefix_of(&self, other: &AccessPath) -> bool {
        self.root == other.root && self.fields.len() < other.fields.len() && other.fields.starts_with(&self.fields)
    }

    /// Def. 6.1: `self ≼ other`.
    pub fn prefix_of(&self, other: &AccessPath) -> bool {
        self == other || self.proper_prefix_of(other)
    }

    /// Whether the root is a formal `arg<i>` (the `fml` filter).
    pub fn is_formal_rooted(&self) -> bool {
        crate::lang::is_formal(&self.root)
    }
}

impl fmt::Display for AccessPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.root)?;
        for x in &self.fields {
            write!(f, ".{x}")?;
        }
        Ok(())
    }
}

/// An abstract access `⟨c, L⟩` (Def. 4.2): kind, path, lock level.
pub type Access = (AccessKind, AccessPath, u32);

/// One side of a report.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct ReportSide {
    /// The method run by this thread.
    pub method: String,
    /// Read or write.
    pub kind: AccessKind,
    /// The access path, rooted at one of the method's formals.
    pub path: AccessPath,
    /// The abstract lock level at the access.
    pub level: u32,
    /// Where the access happens: each site is the chain of call-statement lines from the
    /// method's body down to the access statement's line (`[access]` when the method makes
    /// it directly). An oracle matches concrete accesses against these, call context
    /// included, so an access reached through another call site does not count.
    pub sites: BTreeSet<Vec<u32>>,
}

impl ReportSide {
    /// The lines of the access statements themselves.
    pub fn lines(&self) -> BTreeSet<u32> {
        self.sites.iter().filter_map(|s| s.last().copied()).collect()
    }
}

/// A reported race: two accesses, one per thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct RaceReport {
    /// The two sides (thread 1, thread 2).
    pub sides: [ReportSide; 2],
}

impl fmt::Display for ReportSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A site reached through calls reads `line 4 via 9` (the access, then the call lines).
        let sites: Vec<String> = self
            .sites
            .iter()
            .map(|s| match s.split_last() {
                Some((last, [])) => last.to_string(),
                Some((last, calls)) => format!("{last} via {}", calls.iter().rev().map(u32::to_string).collect::<Vec<_>>().join(" via ")),
                None => String::new(),
            })
            .collect();
        write!(f, "{}: {} {} at lock level {} (line {})", self.method, self.kind.letter(), self.path, self.level, sites.join(", "))
    }
}

impl fmt::Display for RaceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}  ∥  {}", self.sides[0], self.sides[1])
    }
}

/// A method summary `⟨W, L, A⟩` (docs/spec/racerdx.md §3.1), for oracles that compare summaries.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Wobbly expressions.
    pub w: BTreeSet<AccessPath>,
    /// Lock level at the end.
    pub l: u32,
    /// Accesses: kind, path, level.
    pub a: BTreeSet<Access>,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w: Vec<String> = self.w.iter().map(ToString::to_string).collect();
        let a: Vec<String> = self.a.iter().map(|(k, p, l)| format!("⟨{},{p},{l}⟩", k.letter())).collect();
        write!(f, "⟨{{{}}}, {}, {{{}}}⟩", w.join(", "), self.l, a.join(", "))
    }
}

/// A static race analysis under test.
pub trait StaticRaceAnalysis {
    /// A short name for messages (`RacerDX`, `RacerD-like`).
    fn name(&self) -> String;

    /// Every reported race of a program, or why the analysis gave no answer.
    ///
    /// # Errors
    /// An [`AnalysisFailure`] when the analysis gave no answer (an analysis in another
    /// process that crashed, timed out or printed what does not parse). An in-process
    /// analysis always answers.
    fn reports(&self, p: &Program) -> Result<Vec<RaceReport>, AnalysisFailure>;

    /// The summary of one method, if the analysis is summary-based.
    fn summary(&self, _p: &Program, _method: &str) -> Option<Summary> {
        None
    }
}

/// Why a static analysis gave no answer on a program: an external analysis that crashed,
/// timed out or printed what does not parse. The oracles that ask for reports make it a
/// violated item of its own (`ANALYSIS FAILED: …`: a finding, kept and shrunk like any
/// other), never a pass or a panic, as the dynamic-detector oracles do with a
/// [`super::detector::DetectorFailure`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct AnalysisFailure(pub String);

impl AnalysisFailure {
    /// The oracles' item for it: violated, explained by `ANALYSIS FAILED: …`, about the
    /// reports of `sut`.
    pub(crate) fn item(&self, sut: &str) -> super::result::Item {
        super::result::Item {
            subject: format!("{sut}: its reports"),
            status: super::result::ItemStatus::Violated,
            explanation: vec![format!("ANALYSIS FAILED: {self}")],
            witness: None,
        }
    }
}

/// `Σ(m) = ⟨W, L, A⟩` for every method the analysis summarizes, one line each: the context
/// a person needs to read a failure of a static analysis.
pub fn summaries(a: &dyn StaticRaceAnalysis, p: &Program) -> Vec<String> {
    p.methods.iter().filter_map(|m| a.summary(p, &m.name).map(|s| format!("Σ({}) = {s}", m.name))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theorems::{Budget, ItemStatus, Reads, Registry, Sut, SutKind, Verdict};

    /// An analysis that never answers, as an external one that crashed.
    struct Broken;

    impl StaticRaceAnalysis for Broken {
        fn name(&self) -> String {
            "broken".into()
        }

        fn reports(&self, _: &Program) -> Result<Vec<RaceReport>, AnalysisFailure> {
            Err(AnalysisFailure("exited with exit status: 7".into()))
        }
    }

    /// Every oracle that asks a static analysis for reports makes its failure a violated
    /// item (a finding), never a pass, never a panic; one that reads summaries only
    /// ([`crate::theorems::Reads::Summaries`]) is not asked.
    #[test]
    fn an_analysis_that_gives_no_reports_is_a_finding() {
        let p = crate::lang::parse("dialect racerdx\nmethod zup(arg1) { y = new; arg1.dee = y }\n").expect("parses");
        let mut asked = vec![];
        for o in Registry::builtin().all().iter().filter(|o| o.sut == SutKind::StaticRaceAnalysis) {
            let r = o.check(&p, &Sut::Static(&Broken), &Budget::default());
            if o.reads == Reads::Summaries {
                assert_eq!(r.verdict, Verdict::Inconclusive, "{r:?}");
                continue;
            }
            assert_eq!(r.verdict, Verdict::Fail, "{}: {r:?}", o.id);
            assert_eq!(r.items.len(), 1, "{}: {r:?}", o.id);
            assert_eq!(r.items[0].status, ItemStatus::Violated);
            assert_eq!(r.items[0].explanation, ["ANALYSIS FAILED: exited with exit status: 7"]);
            asked.push(o.id);
        }
        assert_eq!(asked, ["racerdx-tp", "racerdx-reports"]);
    }
}
