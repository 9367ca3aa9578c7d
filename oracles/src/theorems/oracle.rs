//! An oracle: a published claim, checked against the ground truth ([`Oracle`]), and the
//! bounds it runs under ([`Budget`]). Each oracle module declares one as a `pub const`; the
//! [`super::Registry`] lists them.
//!
//! An oracle names the *kind* of SUT it needs ([`SutKind`]) and receives one ([`Sut`]); the
//! SUT crate supplies it, together with the assumptions a seeded bug relaxes
//! ([`Budget::relax`]).
//!
//! What the SUT crate needs to know about an oracle is declared on it, in this crate's
//! terms (ids, kinds, rule-table names), never as lists of ids over there: what it reads
//! from its SUT ([`Oracle::reads`]), the rule tables it never exercises
//! ([`Oracle::unexercised`]), whether it is the scorecard oracle of its kind
//! ([`Oracle::scorecard`]) and its operational variant ([`Oracle::operational`]).

use super::result::OracleResult;
use super::sut::{Sut, SutKind};
use crate::explore::Config;
use crate::gen::grammar::Grammar;
use crate::lang::{Dialect, Program, Relax};

/// The bounds an oracle runs under.
#[derive(Clone, Copy, Debug, Default)]
pub struct Budget {
    /// Exploration bounds (and the campaign's deadline).
    pub explore: Config,
    /// Hypotheses of the theorem not checked, because a seeded bug feeds programs outside
    /// them on purpose (docs/spec/racerdx.md §6.3(b)).
    pub relax: Relax,
}

impl Budget {
    /// Why an enumeration that showed no counterexample proves nothing: the campaign's
    /// deadline passed during it, or it stopped at its execution budget after `traces`
    /// traces. `None` when it covered everything within the bounds.
    pub fn cut_short(&self, complete: bool, traces: u64) -> Option<String> {
        if self.explore.deadline.is_some_and(|d| std::time::Instant::now() > d) {
            Some("the campaign's deadline passed during the check".to_string())
        } else {
            (!complete).then(|| format!("the enumeration hit its budget after {traces} traces (raise --max-executions)"))
        }
    }
}

/// What an oracle reads from the SUT it judges.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// What every implementation of its seam answers (a static analysis's reports, a
    /// detector's races, a placer's program, an explorer's outcomes): any SUT of its kind
    /// can be judged, one in another process too.
    Answers,
    /// A static analysis's method summaries ([`super::StaticRaceAnalysis::summary`], which
    /// only a summary-based analysis gives), never its reports: an analysis that gives
    /// reports only (one in another process) cannot be judged.
    Summaries,
}

/// A rule table of its SUT (`theorems::rules`) that an oracle never exercises, and why:
/// its cases would read 0% by construction, so coverage reports print the reason instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unexercised {
    /// The table, by its name ([`super::rules::Rules::sut`]: `RacerDX reporting`).
    pub table: &'static str,
    /// Why the oracle never reaches its cases.
    pub why: &'static str,
}

/// One oracle: a published claim, checked against the ground truth.
#[derive(Clone, Copy)]
pub struct Oracle {
    /// Its id on the command line and in files (`racerdx-tp`).
    pub id: &'static str,
    /// The claim, one line (`every RacerDX report is a true race (Theorem 6.10)`).
    pub claim: &'static str,
    /// Where the spec states it.
    pub spec: &'static str,
    /// The dialect of the programs it judges.
    pub dialect: Dialect,
    /// The kind of SUT it judges.
    pub sut: SutKind,
    /// What its items are (`report`, `method`).
    pub item_kind: &'static str,
    /// A negative control: a claim the papers show false (escape elision is not address
    /// precise, Fig. 4.2), kept to show that the fuzzer has teeth. Expected to fail;
    /// campaigns over all oracles leave it out unless named.
    pub negative_control: bool,
    /// Whether its programs have atomics and fences (docs/spec/atomics.md): it judges only the
    /// SUTs that model them, and a campaign over another SUT's oracles leaves it out.
    pub atomics: bool,
    /// What it reads from its SUT: what every SUT of its kind answers, or more.
    pub reads: Reads,
    /// The rule tables of its SUTs that it never exercises, with why (none for most).
    pub unexercised: &'static [Unexercised],
    /// Whether it is the scorecard oracle of its kind: its generator draws the corpus on
    /// which `racefuzz score` counts a SUT of [`Oracle::sut`]'s true and false positives,
    /// and the scorecard runs the SUT as it does. At most one oracle per kind
    /// (`fasttrack-precise` for dynamic detectors, `bigfoot-precise` for check placers,
    /// `whole-program-exact` for model checkers).
    pub scorecard: bool,
    /// The id of its operational variant, which `--operational` picks instead of it: the
    /// claim on the operational semantics, where the formal one has no run-time violations
    /// (`capsule-first-race` → `capsule-first-race-operational`). The variant names itself.
    pub operational: Option<&'static str>,
    /// Its generator: a program of `dialect` from any bytes (swarm knobs first, then the
    /// program), honouring the relaxed assumptions. Deterministic in its input. Its lines
    /// are not the printed text's: draw programs with [`Oracle::program`].
    pub generate: fn(&[u8], Relax) -> Program,
    /// The grammar of `dialect` that `generate` must cover: every production in at least
    /// 1% of programs at default settings (`crate::gen::grammar`, enforced by `tests/gen.rs`).
    pub grammar: &'static Grammar,
    /// Checks one program. A SUT of another kind, or a program outside the dialect, is
    /// `inconclusive` with a note, never a panic.
    pub check: fn(&Program, &Sut<'_>, &Budget) -> OracleResult,
}

impl std::fmt::Debug for Oracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oracle").field("id", &self.id).field("dialect", &self.dialect).field("sut", &self.sut).finish_non_exhaustive()
    }
}

impl Oracle {
    /// The program its generator makes of `bytes`, numbered as printed
    /// ([`crate::lang::as_printed`]): what every campaign, fuzz target and property test
    /// checks, so that a failure is the failure of the finding file it writes.
    pub fn program(&self, bytes: &[u8], relax: Relax) -> Program {
        crate::lang::as_printed(&(self.generate)(bytes, relax))
    }

    /// Checks `p` with `sut`: the one dispatch.
    pub fn check(&self, p: &Program, sut: &Sut<'_>, budget: &Budget) -> OracleResult {
        (self.check)(p, sut, budget)
    }

    /// Why `p` is outside this oracle's hypotheses, if it is: another dialect, or a program
    /// the dialect's validator rejects (with the assumptions `relax` lifts). Such a program
    /// is `inconclusive` with this note, never judged.
    pub fn unmet(&self, p: &Program, relax: Relax) -> Option<String> {
        if !self.dialect.contains(p.dialect) {
            return Some(format!("{} applies to {} programs only", self.id, self.dialect));
        }
        crate::lang::validate_relaxed(p, relax).err().map(|e| format!("precondition unmet: {e}"))
    }

    /// The result for a SUT of the wrong kind (a caller's mistake, reported as data).
    pub fn wrong_sut(&self, sut: &Sut<'_>) -> OracleResult {
        OracleResult::inconclusive(self.id, String::new(), self.item_kind, format!("racefuzz internal bug: {} needs a {:?} SUT, got a {:?}", self.id, self.sut, sut.kind()))
    }
}
