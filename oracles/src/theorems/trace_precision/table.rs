//! One execution through a filter and a detector, for people (`racefuzz analyze
//! escape|capsule`): every event of α with the filter's decision and reason, α's and β's
//! first races and racy locations, and the detector's first report on β
//! (docs/spec/escape_capsule.md §4.5, §9.4).

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use super::beta::{kept, races_of_beta};
use super::{event, partner_list, sut_name};
use crate::explore::witness::Names;
use crate::explore::{Config, Execution, Explorer, ExplorerKind, Naive, Schedule};
use crate::lang::Program;
use crate::machine::{EventIdx, Machine};
use crate::race::{data_races, first_race, Race};
use crate::theorems::detector::reported;
use crate::theorems::filter::{Classes, Decision};
use crate::theorems::{DetectorFactory, FilterFactory};

/// One event of [`FilterTable`]: what the filter did with it and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FilterRow {
    /// The event, named (`event 7 (T1.1, line 3: write r1@T1.1.f)`).
    pub event: String,
    /// Whether it is a heap access.
    pub access: bool,
    /// The filter's decision.
    pub decision: Decision,
    /// The filter's reason.
    pub why: String,
    /// The capsule violation the semantics marks on it (operational mode).
    pub violation: Option<String>,
    /// Whether it is part of α's first race (its second access or a partner).
    pub first_race: bool,
}

/// A filter on one execution, for people (`racefuzz analyze escape|capsule`).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FilterTable {
    /// The filter and the detector behind it (`escape filter + FastTrack`).
    pub sut: String,
    /// The detector's own name.
    pub detector: String,
    /// The execution's schedule (`racefuzz replay --schedule`).
    pub schedule: String,
    /// Every event of α, in order.
    pub rows: Vec<FilterRow>,
    /// α's first race: its second access and partners, named.
    pub first_race: Option<String>,
    /// β's first race, likewise.
    pub first_race_beta: Option<String>,
    /// The racy locations of α and of β.
    pub racy: (Vec<String>, Vec<String>),
    /// The detector's first report on β.
    pub detector_first: Option<String>,
    /// Accesses, and how many were elided.
    pub accesses: (usize, usize),
}

/// Runs `filter` and `detector` on one execution of `p`: the one `schedule` names, or else
/// the first racy execution in the naive explorer's order (the first execution if none
/// races).
///
/// # Errors
/// A sentence naming the problem: no initial state, or a schedule that does not fit.
pub fn filter_table(
    p: &Program,
    filter: &dyn FilterFactory,
    detector: &dyn DetectorFactory,
    operational: bool,
    cfg: &Config,
    schedule: Option<&Schedule>,
) -> Result<FilterTable, String> {
    let mut m = Machine::new(p, cfg.loop_bound);
    if operational {
        m = m.operational();
    }
    let init = m.initial_state().map_err(|e| e.to_string())?;
    let cfg = Config { explorer: ExplorerKind::Naive, ..*cfg };
    let mut table = None;
    let mut first = None;
    let make = |ex: &Execution<'_, '_>| {
        let names = Names::of(&m, ex.state);
        let mut f = filter.fresh(Classes::of(p, &ex.state.objects));
        let alpha = data_races(ex.trace);
        let fa = first_race(&alpha);
        let in_first = |i: EventIdx| fa.as_ref().is_some_and(|f| f.second == i || f.partners.contains(&i));
        let rows: Vec<FilterRow> = ex
            .trace
            .iter()
            .map(|e| {
                let d = f.on_event(e);
                FilterRow {
                    event: names.event(e),
                    access: e.access().is_some(),
                    decision: d,
                    why: f.explain(e, d),
                    violation: e.violation.map(|v| v.to_string()),
                    first_race: in_first(e.idx),
                }
            })
            .collect();
        let decisions: Vec<Decision> = rows.iter().map(|r| r.decision).collect();
        let races_b = races_of_beta(ex.trace, &decisions, &alpha);
        let describe = |fr: Option<crate::race::FirstRace>| {
            fr.map(|f| format!("{} with {}", event(ex.trace, f.second).map_or_else(String::new, |e| names.event(e)), partner_list(ex.trace, &f.partners, &names)))
        };
        let locs = |rs: &[Race]| rs.iter().map(|r| names.addr(r.addr)).collect::<BTreeSet<String>>().into_iter().collect::<Vec<_>>();
        let detector_first = match reported(detector, kept(ex.trace, &decisions)) {
            Ok(reports) => reports.first().map(|r| r.and_then(|i| event(ex.trace, i)).map_or_else(|| "at the end of the trace".into(), |e| names.event(e))),
            Err(failure) => Some(format!("no answer: {failure}")),
        };
        let accesses = (rows.iter().filter(|r| r.access).count(), rows.iter().filter(|r| r.access && r.decision == Decision::Elide).count());
        FilterTable {
            sut: sut_name(filter, detector),
            detector: detector.fresh().name(),
            schedule: Schedule(ex.schedule.to_vec()).to_string(),
            first_race: describe(fa.clone()),
            first_race_beta: describe(first_race(&races_b)),
            racy: (locs(&alpha), locs(&races_b)),
            rows,
            detector_first,
            accesses,
        }
    };
    match schedule {
        Some(s) => Naive
            .replay(&m, init, &cfg, s, true, &mut |ex| {
                table = Some(make(ex));
            })
            .map_err(|e| format!("--schedule {s}: {e}"))?,
        None => {
            Naive.explore(&m, init, &cfg, &mut |ex| {
                if data_races(ex.trace).is_empty() {
                    if first.is_none() {
                        first = Some(make(ex));
                    }
                    ControlFlow::Continue(())
                } else {
                    table = Some(make(ex));
                    ControlFlow::Break(())
                }
            });
        }
    }
    table.or(first).ok_or_else(|| "the program has no execution".into())
}
