//! Oracle `racerdx-reports`: RacerDX reports exactly the pairs that the paper's reporting
//! rule (docs/spec/racerdx.md §3.4) selects from the true summaries, the summaries being α of
//! the bounded syntactic traces (Theorem 5.15, computed here as `racerdx-complete` does).
//!
//! **Why this oracle.** `racerdx-tp` judges only the reports that exist, and
//! `racerdx-complete` only the summaries; an analysis whose summaries are right but whose
//! reporting step drops pairs (in the extreme, reports nothing) passes both (we
//! measured it: the only sign was a coverage figure). The paper claims no completeness for
//! races: RacerDX misses races by design (accesses through locals, unstable paths, lock
//! levels (0, 2)), so "a race with no report" cannot be a failure. What the paper does fix
//! is *which* pairs are reported: §3.4 is a definition over summaries, and Theorem 5.15
//! pins the summaries to α. So this oracle claims nothing beyond the paper: it applies
//! §3.4 to α, with its own code for every step (same field sequence, a write, `L1 + L2 ≤
//! 1`, stability as "no wobbly expression is a proper prefix", Def. 6.1), and compares the
//! report sets pair of methods by pair of methods. A missing report fails, and so does an
//! extra one.
//!
//! Rejected alternatives, and why: a *recall floor* (ground-truth races on pairs that meet
//! the reporting preconditions, against reports) is a statistic, so a bug that drops a tenth
//! of the reports stays above any floor loose enough for the generator's variance; the
//! *metamorphic relation* with RacerD-like ("RacerDX = RacerD-like's stable reports") runs
//! the SUT's own reporting loop on both sides, so a bug in that loop cancels out. The
//! curated corpus pins the paper's examples' reports as well (`// report` lines, checked by
//! `racefuzz corpus`).
//!
//! **Witness.** A missing report is, by the True Positives Theorem, a true race that RacerDX
//! should have reported; the oracle builds its Def. 3.6 witness the way `racerdx-tp` does
//! (the Lemma B.7 state, then the bounded search), so a failure shows the race RacerDX
//! missed, not only a set difference. Sites come from the traces of α: the call lines,
//! then the access line.
//!
//! Levels: α counts locks with plain arithmetic; RacerDX caps them at L̂ ≥ the nesting
//! depth (§3.3), which changes no level, so levels compare directly. A lower cap is the
//! `lock-bound-1` seeded bug, which this oracle rightly rejects.

use std::collections::{BTreeMap, BTreeSet};

use super::racerdx_complete::{alpha_with_sites, Bound, Sites};
use super::racerdx_tp::{Confirmer, ReportOutcome};
use super::result::{Item, ItemStatus, OracleResult};
use super::static_race::{Access, AccessPath, RaceReport, ReportSide, Summary};
use super::{Budget, Oracle, Reads, Sut, SutKind};
use crate::lang::{AccessKind, Dialect, Program};

/// The registry entry.
pub const ORACLE: Oracle = Oracle {
    id: "racerdx-reports",
    claim: "RacerDX reports exactly the §3.4 pairs of the true summaries (α, Theorem 5.15)",
    spec: "spec/racerdx.md §3.4, §4.2",
    dialect: Dialect::RacerDx,
    sut: SutKind::StaticRaceAnalysis,
    item_kind: "method pair",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[],
    scorecard: false,
    operational: None,
    generate: crate::gen::racerdx::swarm,
    grammar: &crate::gen::racerdx::GRAMMAR,
    check: check_entry,
};

/// One side of a report without its sites: what §3.4 decides on.
type Side = (String, Access);

/// A report as an unordered pair of sides (the smaller first).
type Key = (Side, Side);

fn key(a: Side, b: Side) -> Key {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

fn check_entry(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::Static(a) = sut else { return ORACLE.wrong_sut(sut) };
    let inconclusive = |note: String| OracleResult::inconclusive(ORACLE.id, a.name(), ORACLE.item_kind, note);
    if let Some(note) = ORACLE.unmet(p, b.relax) {
        return inconclusive(note);
    }
    // Asked first, so that an analysis that gives no answer is a finding even where α
    // would be cut short.
    let reports = match a.reports(p) {
        Ok(r) => r,
        Err(failure) => return OracleResult::from_items(ORACLE.id, a.name(), ORACLE.item_kind, vec![failure.item(&a.name())], None),
    };
    let mut alphas = vec![];
    for m in &p.methods {
        match alpha_with_sites(p, m, 1, Bound::of(b)) {
            Ok(x) => alphas.push((m.name.as_str(), x)),
            Err(cut) => return inconclusive(cut.to_string()),
        }
    }
    let expected = rule(&alphas);
    let mut actual: BTreeMap<Key, &RaceReport> = BTreeMap::new();
    for r in &reports {
        let side = |s: &ReportSide| (s.method.clone(), (s.kind, s.path.clone(), s.level));
        actual.insert(key(side(&r.sides[0]), side(&r.sides[1])), r);
    }
    // Built only when a report is missing: the usual program needs no witness.
    let mut confirmer = None;
    let sites: BTreeMap<&str, &Sites> = alphas.iter().map(|(m, (_, s))| (*m, s)).collect();
    let mut items = vec![];
    for (i, (m1, _)) in alphas.iter().enumerate() {
        for (m2, _) in &alphas[i..] {
            let on_pair = |k: &&Key| {
                let ms = [k.0 .0.as_str(), k.1 .0.as_str()];
                ms == [*m1, *m2] || ms == [*m2, *m1]
            };
            let missing: Vec<&Key> = expected.iter().filter(on_pair).filter(|k| !actual.contains_key(*k)).collect();
            let extra: Vec<&Key> = actual.keys().filter(on_pair).filter(|k| !expected.contains(*k)).collect();
            let agreed = expected.iter().filter(on_pair).count() - missing.len();
            let subject = format!("{m1} ∥ {m2}");
            if missing.is_empty() && extra.is_empty() {
                let explanation = vec![format!("{agreed} report(s), as §3.4 on α selects")];
                items.push(Item { subject, status: ItemStatus::Holds, explanation, witness: None });
                continue;
            }
            let mut explanation = vec![];
            let mut witness = None;
            for k in &missing {
                let r = report(k, &sites);
                match confirmer.get_or_insert_with(|| Confirmer::new(p, b.explore)).confirm(&r) {
                    ReportOutcome::Confirmed { witness: w, .. } => {
                        explanation.push(format!("MISSING {r}: §3.4 reports it on α, and it is a true race (witness below)"));
                        witness.get_or_insert(w);
                    }
                    ReportOutcome::Refuted { reason } | ReportOutcome::Unknown { reason } => {
                        explanation.push(format!("MISSING {r}: §3.4 reports it on α (no witness: {reason})"));
                    }
                }
            }
            for k in &extra {
                explanation.push(format!("EXTRA {}: §3.4 does not report it on α", actual[*k]));
            }
            explanation.push(format!("{agreed} other report(s) agree"));
            items.push(Item { subject, status: ItemStatus::Violated, explanation, witness });
        }
    }
    let mut out = OracleResult::from_items(ORACLE.id, a.name(), ORACLE.item_kind, items, None);
    if out.verdict == super::Verdict::Fail {
        out.context = alphas.iter().map(|(m, (s, _))| format!("α({m}) = {s}")).chain(super::static_race::summaries(*a, p).into_iter().map(|s| format!("analysis: {s}"))).collect();
    }
    out
}

/// §3.4 on the summaries: every unordered pair of accesses of two methods (a method with
/// itself included, an access with itself included) with equal field sequences, at least
/// one write, `L1 + L2 ≤ 1`, and both paths stable in their own method's W.
fn rule(alphas: &[(&str, (Summary, Sites))]) -> BTreeSet<Key> {
    // Def. 6.1's ≺ written out, rather than `AccessPath::proper_prefix_of`, which the SUT
    // uses too: a bug there must not cancel out.
    let stable = |w: &BTreeSet<AccessPath>, pi: &AccessPath| w.iter().all(|e| !(e.root == pi.root && e.fields.len() < pi.fields.len() && pi.fields.starts_with(&e.fields)));
    let mut out = BTreeSet::new();
    for (i, (m1, (s1, _))) in alphas.iter().enumerate() {
        for (m2, (s2, _)) in &alphas[i..] {
            for a1 @ (k1, p1, l1) in &s1.a {
                for a2 @ (k2, p2, l2) in &s2.a {
                    let write = *k1 == AccessKind::Write || *k2 == AccessKind::Write;
                    if p1.fields == p2.fields && write && l1 + l2 <= 1 && stable(&s1.w, p1) && stable(&s2.w, p2) {
                        out.insert(key((m1.to_string(), a1.clone()), (m2.to_string(), a2.clone())));
                    }
                }
            }
        }
    }
    out
}

/// The report §3.4 would make for `k`, with α's sites.
fn report(k: &Key, sites: &BTreeMap<&str, &Sites>) -> RaceReport {
    let side = |(m, a): &Side| ReportSide {
        method: m.clone(),
        kind: a.0,
        path: a.1.clone(),
        level: a.2,
        sites: sites.get(m.as_str()).and_then(|s| s.get(a)).cloned().unwrap_or_default(),
    };
    RaceReport { sides: [side(&k.0), side(&k.1)] }
}
