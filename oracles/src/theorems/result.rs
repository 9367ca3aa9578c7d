//! The one result type every oracle returns ([`OracleResult`]): a verdict, and the items the
//! oracle judged (reports, methods, traces), each with its status, its explanation and,
//! where there is one, a structured witness. The SUT crate renders it in one place
//! (its `render` module), as text for people and as JSON for machines.

use super::Verdict;
use crate::explore::Witness;

/// What an oracle found on one program.
#[derive(Clone, Debug, serde::Serialize)]
pub struct OracleResult {
    /// The oracle's id (`racerdx-tp`).
    pub oracle: &'static str,
    /// The system under test, as it names itself (`RacerDX`), with its mutant if any.
    pub sut: String,
    /// Pass, fail or inconclusive. Invariant: `fail` iff some item is [`ItemStatus::Violated`];
    /// otherwise `inconclusive` iff `note` is set or some item is [`ItemStatus::Unknown`].
    pub verdict: Verdict,
    /// What the items are (`report`, `method`), for headings.
    pub item_kind: &'static str,
    /// The judged items, in the oracle's order.
    pub items: Vec<Item>,
    /// Why the whole program is inconclusive: an unmet hypothesis (naming the assumption)
    /// or a budget (naming the flag to raise).
    pub note: Option<String>,
    /// What a person needs beside the items to understand a failure (e.g. the analysis's
    /// summaries); shown only when the verdict is `fail`.
    pub context: Vec<String>,
}

/// The status of one judged item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemStatus {
    /// The property holds for this item.
    Holds,
    /// A counterexample.
    Violated,
    /// A budget stopped the check of this item.
    Unknown,
}

/// One judged item.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Item {
    /// What was judged (a report, a method), as one line.
    pub subject: String,
    /// Its status.
    pub status: ItemStatus,
    /// Why, one line each (`true positive, directed …`, `FALSE POSITIVE: …`).
    pub explanation: Vec<String>,
    /// A racing execution that supports the explanation, if any.
    pub witness: Option<Witness>,
}

/// How the note of a model checker's race-freedom that only SC executions back begins
/// (docs/spec/atomics.md §3.4): inconclusive by the spec's label, not by a budget or an unmet
/// hypothesis, so a campaign counts it apart ([`OracleResult::sc_executions_only`]).
pub const SC_EXECUTIONS_ONLY: &str = "SC executions only";

impl OracleResult {
    /// Whether the result is inconclusive by the label `SC executions only` alone.
    pub fn sc_executions_only(&self) -> bool {
        self.verdict == Verdict::Inconclusive && self.note.as_deref().is_some_and(|n| n.starts_with(SC_EXECUTIONS_ONLY))
    }

    /// A result with no items: inconclusive, because of `note`.
    pub fn inconclusive(oracle: &'static str, sut: String, item_kind: &'static str, note: String) -> OracleResult {
        OracleResult { oracle, sut, verdict: Verdict::Inconclusive, item_kind, items: vec![], note: Some(note), context: vec![] }
    }

    /// A result whose verdict follows from its items and note (the invariant on `verdict`).
    pub fn from_items(oracle: &'static str, sut: String, item_kind: &'static str, items: Vec<Item>, note: Option<String>) -> OracleResult {
        let verdict = if items.iter().any(|i| i.status == ItemStatus::Violated) {
            Verdict::Fail
        } else if note.is_some() || items.iter().any(|i| i.status == ItemStatus::Unknown) {
            Verdict::Inconclusive
        } else {
            Verdict::Pass
        };
        OracleResult { oracle, sut, verdict, item_kind, items, note, context: vec![] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(status: ItemStatus) -> Item {
        Item { subject: "x".into(), status, explanation: vec![], witness: None }
    }

    #[test]
    fn verdict_follows_items() {
        let r = |items, note| OracleResult::from_items("o", "s".into(), "item", items, note).verdict;
        assert_eq!(r(vec![item(ItemStatus::Holds)], None), Verdict::Pass);
        assert_eq!(r(vec![item(ItemStatus::Holds), item(ItemStatus::Unknown)], None), Verdict::Inconclusive);
        assert_eq!(r(vec![item(ItemStatus::Unknown), item(ItemStatus::Violated)], None), Verdict::Fail);
        assert_eq!(r(vec![item(ItemStatus::Holds)], Some("budget".into())), Verdict::Inconclusive);
        // No items and no note: vacuous, but nothing failed and nothing was cut.
        assert_eq!(r(vec![], None), Verdict::Pass);
    }
}
