//! `fasttrack-precise` (docs/spec/bigfoot.md §9.1, oracle O0, and §1.6 \[D\]):
//! a precise dynamic detector reports exactly the racy locations of every trace,
//! `FT(α) = DR(α)`.
//!
//! The system under test is any [`super::DynamicDetector`] (FastTrack, or a user's own
//! through the same seam), fresh per trace. For every execution of a tier-2 BFJ (`bfj2`: fork and join) thread program
//! (the naive explorer: every interleaving, because a detector's state depends on the order
//! of independent events even where the races do not; one per Mazurkiewicz class, by DPOR,
//! for a detector that asks for it, [`super::detector::Traces`], under a claim whose ground
//! truth is the same on every trace of a class), the locations it reports (the
//! address of each reported event) must equal the locations with a happens-before data race
//! in the trace ([`crate::race::data_races`]). Every execution counts, whatever its ending:
//! terminated, stuck, deadlocked or cut by a budget, since a precise detector is precise on
//! every prefix (spec §9.1, O3). Locations are compared, never racing pairs or report
//! positions (spec §1.6 \[D\], §9.1 notes).
//!
//! A mismatch names the trace by its schedule (`racefuzz replay FILE --schedule S` shows
//! it), the missed and falsely reported locations, and the detector's own explanation of a
//! false report. An exploration cut by its budget that showed no mismatch is
//! inconclusive, never a pass, and so is a trace on which the detector's harness gave no
//! answer ([`super::detector::DetectorFailure::no_answer`]: a replay that diverged).

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use super::detector::{detector_view, prepare_batch, Traces};
use super::result::{Item, ItemStatus, OracleResult};
use super::{Budget, Oracle, Reads, Sut, SutKind, Unexercised};
use crate::explore::{Config, Execution, ExplorerKind, Names, Schedule, SutView, Witness};
use crate::gen;
use crate::lang::{Dialect, Program};
use crate::machine::{EventIdx, Machine};
use crate::race::data_races;

/// The most executions one check explores (the campaign's own budget if lower).
pub const BUDGET: u64 = 20_000;

/// `fasttrack-precise`.
pub const ORACLE: Oracle = Oracle {
    id: "fasttrack-precise",
    claim: "a precise detector reports exactly the racy locations of every trace (FT(α) = DR(α))",
    spec: "spec/bigfoot.md §1.6, §9.1 O0",
    dialect: Dialect::Bfj2,
    sut: SutKind::DynamicDetector,
    item_kind: "property",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[Unexercised { table: "FastTrack atomics", why: "its programs have no atomics (fasttrack-precise-atomics covers them)" }],
    scorecard: true,
    operational: None,
    generate: gen::threads::swarm_detectors,
    grammar: &gen::threads::GRAMMAR_DETECTORS,
    check: |p, sut, b| check(&ORACLE, p, sut, b),
};

/// `fasttrack-precise-atomics`: the same claim on programs with atomics and fences, whose
/// happens-before is C++20's (docs/spec/atomics.md §2, §4; a race needs a plain access,
/// §1.3), drawn by the atomic generator ([`gen::threads::swarm_atomics`]: message passing,
/// fences, release sequences, CAS spinlocks; every operation × order). Its programs have no
/// lock, fork or join, so FastTrack's table of those rules is `fasttrack-precise`'s to cover.
pub const ATOMICS: Oracle = Oracle {
    id: "fasttrack-precise-atomics",
    claim: "a precise detector reports exactly the racy locations of every trace of programs with atomics and fences (C++20 happens-before)",
    spec: "spec/bigfoot.md §9.1 O0, spec/atomics.md §2, §4",
    scorecard: false,
    atomics: true,
    unexercised: &[Unexercised { table: "FastTrack", why: "its programs have no lock, fork or join (fasttrack-precise covers FastTrack's rules; this oracle covers its atomics)" }],
    generate: gen::threads::swarm_atomics,
    grammar: &gen::threads::GRAMMAR_ATOMICS,
    check: |p, sut, b| check(&ATOMICS, p, sut, b),
    ..ORACLE
};

fn check(oracle: &Oracle, p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::Detector(factory) = sut else { return oracle.wrong_sut(sut) };
    let name = factory.fresh().name();
    let inconclusive = |note: String| OracleResult::inconclusive(oracle.id, name.clone(), oracle.item_kind, note);
    if let Some(note) = oracle.unmet(p, b.relax) {
        return inconclusive(note);
    }
    // Static facts about the program, once (a detector may need them; FastTrack does not).
    let factory = factory.for_program(p);
    let claim = factory.claim();
    let per_class = factory.traces() == Traces::OnePerClass && claim.class_invariant();
    let explorer = if per_class { ExplorerKind::Dpor } else { ExplorerKind::Naive };
    let cfg = Config { max_executions: b.explore.max_executions.min(BUDGET), explorer, ..b.explore };
    let m = Machine::new(p, cfg.loop_bound);
    let init = match m.initial_state() {
        Ok(s) => s,
        Err(e) => return inconclusive(format!("no initial state: {e}")),
    };
    let (mut traces, mut racy) = (0u64, 0u64);
    let mut locations = BTreeSet::new();
    let mut mismatch = None;
    let mut no_answer = None;
    prepare_batch(factory.as_ref(), explorer.get(), &m, init.clone(), &cfg);
    let stats = explorer.get().explore(&m, init, &cfg, &mut |ex: &Execution<'_, '_>| {
        traces += 1;
        let races = data_races(ex.trace);
        // Names only for a mismatch's message (the cold path).
        let event = |i: EventIdx| ex.trace.get(i.0 as usize).map_or_else(|| format!("event {}", i.0), |e| Names::of(&m, ex.state).event(e));
        let found = claim.mismatches(factory.as_ref(), ex.trace, &races, &|a| ex.state.addr_name(&m, a), &event);
        racy += u64::from(!races.is_empty());
        let schedule = || Schedule(ex.schedule.to_vec());
        let explanation = match found {
            Ok(lines) if lines.is_empty() => None,
            Ok(lines) => Some([vec![format!("trace {traces} (schedule {}) differs:", schedule())], lines].concat()),
            Err(failure) if failure.is_no_answer() => {
                no_answer = Some(format!("trace {traces} (schedule {}): {failure}", schedule()));
                return ControlFlow::Break(());
            }
            Err(failure) => Some(vec![format!("trace {traces} (schedule {}): DETECTOR FAILED: {failure}", schedule())]),
        };
        if let Some(explanation) = explanation {
            let detector = detector_view(factory.as_ref(), claim.property(), ex.trace, ex.trace, &|a| ex.state.addr_name(&m, a));
            mismatch = Some((explanation, Witness::of_execution(&m, ex).with_sut(SutView { detector, ..SutView::default() })));
            return ControlFlow::Break(());
        }
        locations.extend(races.iter().map(|r| ex.state.addr_name(&m, r.addr)));
        ControlFlow::Continue(())
    });
    if let Some(note) = no_answer {
        return inconclusive(note);
    }
    let subject = format!("{name}: {}", claim.property());
    if let Some((explanation, witness)) = mismatch {
        let item = Item { subject, status: ItemStatus::Violated, explanation, witness: Some(witness) };
        return OracleResult::from_items(oracle.id, name, oracle.item_kind, vec![item], None);
    }
    let note = b.cut_short(stats.complete, traces);
    let explanation = vec![format!(
        "{traces} trace(s){}, {racy} racy; racy locations: {}",
        if per_class { " (one per Mazurkiewicz class)" } else { "" },
        if locations.is_empty() { "none".to_string() } else { locations.into_iter().collect::<Vec<_>>().join(", ") }
    )];
    let item = Item { subject, status: if note.is_some() { ItemStatus::Unknown } else { ItemStatus::Holds }, explanation, witness: None };
    OracleResult::from_items(oracle.id, name, oracle.item_kind, vec![item], note)
}
