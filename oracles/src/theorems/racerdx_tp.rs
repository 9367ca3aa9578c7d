//! Oracle `racerdx-tp`: every RacerDX report is a true race (True Positives Theorem 6.10,
//! docs/spec/racerdx.md §4.4).
//!
//! For each report, the oracle first builds the **directed witness** of the theorem's proof
//! (§4.5): the Lemma B.7 initial state (a sink ℓ0 and a chain ℓ1 → … → ℓn along the
//! reported field sequence, both reported roots at ℓ1, every other variable at ℓ0, lock
//! depths (0,0)); a control path of the lock-free side `a` up to the reported access (at
//! concrete lock depth `L_a`, on address (ℓn, fn)), run first; then a control path of side
//! `b` up to its access at depth `L_b`. In that state both accesses are enabled on the same
//! address: a race under Definition 3.6. The two accesses are identified by kind and site:
//! the access line with the chain of call lines above it (the report carries the sites of
//! the statements that make it), so that a statement reached through another call site
//! cannot stand in for the reported one.
//!
//! If the directed witness cannot be built, the oracle searches every interleaving of the
//! two methods from a bounded family of small well-behaved initial heaps (all aliasing
//! patterns, up to `Config::heap_bound` objects) for a state that enables the two reported
//! accesses (same kinds, same sites) together on one address. Found: the report is a true positive (and the
//! witness builder, or the spec's proof, has a gap worth a look: `how` says so). Not found
//! in a complete search: `fail`, with the report, the summaries and why. Search cut by a
//! budget: `inconclusive`.
//!
//! Preconditions (the theorem's hypotheses): the program is in the racerdx dialect (A1–A6,
//! ANF, balanced locking). A program outside them is `inconclusive`, naming the assumption.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use super::result::{Item, ItemStatus, OracleResult};
use super::static_race::{AnalysisFailure, RaceReport, ReportSide, StaticRaceAnalysis};
use super::Verdict;
use super::{Budget, Oracle, Reads, Sut, SutKind};
use crate::explore::witness::{def36_rows, Names, RaceDefinition};
use crate::explore::{replay_filling_heap, search_thread, Config, ExplorerKind, Property, Reached, Schedule, ThreadSearch, Witness};
use crate::lang::{validate_relaxed, AccessKind, Dialect, Program, Relax};
use crate::machine::*;
use crate::race::def36::{self, EnabledAccess, EnabledPair};

/// The registry entry.
pub const ORACLE: Oracle = Oracle {
    id: "racerdx-tp",
    claim: "every RacerDX report is a true race (True Positives Theorem 6.10)",
    spec: "spec/racerdx.md §4.4–4.5",
    dialect: Dialect::RacerDx,
    sut: SutKind::StaticRaceAnalysis,
    item_kind: "report",
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

fn check_entry(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::Static(a) = sut else { return ORACLE.wrong_sut(sut) };
    let sut = a.name();
    let r = match check(p, *a, &TpConfig { explore: b.explore, relax: b.relax }) {
        Ok(r) => r,
        // No reports: one violated item, a finding (never a pass) that says why.
        Err(failure) => return OracleResult::from_items(ORACLE.id, sut.clone(), ORACLE.item_kind, vec![failure.item(&sut)], None),
    };
    if let Some(pre) = r.precondition {
        return OracleResult::inconclusive(ORACLE.id, sut, ORACLE.item_kind, format!("precondition unmet: {pre}"));
    }
    let items = r
        .reports
        .into_iter()
        .map(|(rep, o)| {
            let subject = rep.to_string();
            match o {
                ReportOutcome::Confirmed { how, witness } => {
                    Item { subject, status: ItemStatus::Holds, explanation: vec![format!("true positive, {how}")], witness: Some(witness) }
                }
                ReportOutcome::Refuted { reason } => Item { subject, status: ItemStatus::Violated, explanation: vec![format!("FALSE POSITIVE: {reason}")], witness: None },
                ReportOutcome::Unknown { reason } => Item { subject, status: ItemStatus::Unknown, explanation: vec![format!("unknown: {reason}")], witness: None },
            }
        })
        .collect();
    let mut out = OracleResult::from_items(ORACLE.id, sut, ORACLE.item_kind, items, None);
    if out.verdict == Verdict::Fail {
        out.context = super::static_race::summaries(*a, p);
    }
    out
}

/// How a report was confirmed, or why not.
#[derive(Clone, Debug, serde::Serialize)]
#[serde(tag = "status", rename_all = "lowercase")]
pub enum ReportOutcome {
    /// A Def. 3.6 race between the two reported accesses.
    Confirmed {
        /// `directed` (Lemma B.7 state, §4.5) or `search` (bounded heap family).
        how: String,
        /// The racing execution prefix.
        witness: Witness,
    },
    /// No state of any explored execution enables both accesses: a false positive.
    Refuted {
        /// Why.
        reason: String,
    },
    /// The search hit a budget before finding a witness.
    Unknown {
        /// Which budget.
        reason: String,
    },
}

/// The oracle's result on one program.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TpResult {
    /// Pass, fail or inconclusive.
    pub verdict: Verdict,
    /// Every report with its outcome.
    pub reports: Vec<(RaceReport, ReportOutcome)>,
    /// Set when a precondition is unmet (the verdict is then inconclusive).
    pub precondition: Option<String>,
}

/// Options of the oracle.
#[derive(Clone, Copy, Debug)]
pub struct TpConfig {
    /// Bounds of the directed search and of the fallback search.
    pub explore: Config,
    /// Assumptions to skip (seeded bugs that feed programs outside the theorem).
    pub relax: Relax,
}

impl Default for TpConfig {
    fn default() -> TpConfig {
        TpConfig { explore: Config { heap_bound: 3, max_executions: 100_000, ..Config::default() }, relax: Relax::default() }
    }
}

/// Checks every report of `analysis` on `p`.
///
/// # Errors
/// The analysis's [`AnalysisFailure`] when it gave no reports.
pub fn check(p: &Program, analysis: &dyn StaticRaceAnalysis, cfg: &TpConfig) -> Result<TpResult, AnalysisFailure> {
    if p.dialect != Dialect::RacerDx {
        return Ok(TpResult { verdict: Verdict::Inconclusive, reports: vec![], precondition: Some("racerdx-tp applies to racerdx programs only".into()) });
    }
    if let Err(e) = validate_relaxed(p, cfg.relax) {
        return Ok(TpResult { verdict: Verdict::Inconclusive, reports: vec![], precondition: Some(e.to_string()) });
    }
    let mut confirmer = Confirmer::new(p, cfg.explore);
    let reports: Vec<_> = analysis.reports(p)?.into_iter().map(|r| (r.clone(), confirmer.confirm(&r))).collect();
    let verdict = if reports.iter().any(|(_, o)| matches!(o, ReportOutcome::Refuted { .. })) {
        Verdict::Fail
    } else if reports.iter().any(|(_, o)| matches!(o, ReportOutcome::Unknown { .. })) {
        Verdict::Inconclusive
    } else {
        Verdict::Pass
    };
    Ok(TpResult { verdict, reports, precondition: None })
}

/// Confirms reports one by one: the directed witness first, then the fallback search, which
/// explores each method pair once whatever the number of reports on it.
///
/// The fallback first runs on a machine that skips dead loads (`machine::liveness`: the
/// same Def. 3.6 race sides, far fewer lazy heaps), which is what refuting a false report
/// costs. Its schedules do not replay on the plain machine, so when it finds the reported
/// race, the plain machine's search is run for a replayable witness. The fast machine (and
/// its liveness analysis) is built only when a report needs the fallback.
pub(crate) struct Confirmer<'p> {
    m: Machine<'p>,
    fast: std::cell::OnceCell<Machine<'p>>,
    cfg: Config,
    searched: BTreeMap<(String, String), PairSearch>,
    plain: BTreeMap<(String, String), PairSearch>,
}

impl<'p> Confirmer<'p> {
    pub(crate) fn new(p: &'p Program, cfg: Config) -> Self {
        Confirmer { m: Machine::new(p, cfg.loop_bound), fast: std::cell::OnceCell::new(), cfg, searched: BTreeMap::new(), plain: BTreeMap::new() }
    }

    /// Whether `r` is a true race (Def. 3.6), with its witness.
    pub(crate) fn confirm(&mut self, r: &RaceReport) -> ReportOutcome {
        let why = match directed(&self.m, r, &self.cfg) {
            Ok(w) => return ReportOutcome::Confirmed { how: "directed (Lemma B.7 state, spec §4.5)".into(), witness: w },
            Err(why) => why,
        };
        let key = (r.sides[0].method.clone(), r.sides[1].method.clone());
        let (m, cfg) = (&self.m, &self.cfg);
        let fast = self.fast.get_or_init(|| Machine::new(m.program, m.loop_bound).skipping_dead_loads());
        let quick = self.searched.entry(key.clone()).or_insert_with(|| search_pair(fast, &r.sides[0].method, &r.sides[1].method, cfg));
        match judge(quick, r, cfg, &why) {
            ReportOutcome::Confirmed { how, witness } => {
                if let Some(w) = self.replayable(r, &witness) {
                    return ReportOutcome::Confirmed { how, witness: w };
                }
                let plain = self.plain.entry(key).or_insert_with(|| search_pair(m, &r.sides[0].method, &r.sides[1].method, cfg));
                match judge(plain, r, cfg, &why) {
                    ReportOutcome::Refuted { reason } => {
                        ReportOutcome::Unknown { reason: format!("racefuzz internal bug: the search that skips dead loads found this race, the plain search did not ({reason})") }
                    }
                    o => o,
                }
            }
            o => o,
        }
    }
}

impl Confirmer<'_> {
    /// The fast search's witness as a witness of the plain machine: its schedule completed
    /// with the values the plain machine fixes at dead loads, replayed, and the racing pair
    /// found again in the state it reaches (`None` if any of that fails).
    fn replayable(&self, r: &RaceReport, w: &Witness) -> Option<Witness> {
        let methods = [r.sides[0].method.as_str(), r.sides[1].method.as_str()];
        let init = self.m.method_threads(&methods, vec![], &[]).ok()?;
        let reached = replay_filling_heap(&self.m, self.fast.get()?, init, &self.cfg, &w.schedule).ok()?;
        let side = |i: usize, a: &EnabledAccess| a.thread == thread_id(i) && a.kind == r.sides[i].kind && r.sides[i].sites.contains(&a.site);
        let pair = def36::enabled_pairs(&self.m, &reached.state).into_iter().find(|EnabledPair([a, b])| (side(0, a) && side(1, b)) || (side(0, b) && side(1, a)))?;
        Some(witness(&self.m, &reached, &pair, &methods, RaceDefinition::Def36BySearch))
    }
}

/// Lemma B.7: the sink `l0` and the chain `l1 … ln` for the field sequence `fields`.
fn b7_heap(m: &Machine<'_>, fields: &[String]) -> Result<Vec<Object>, String> {
    let n = fields.len();
    let mut objs: Vec<Object> = (0..=n).map(|i| m.record(format!("l{i}"), Some(Value::Obj(ObjId(0))))).collect();
    for (j, f) in fields.iter().enumerate().take(n.saturating_sub(1)) {
        let fid = m.field(f).ok_or_else(|| format!("field `{f}` is not in the program"))?;
        // OK since j + 2 counts the fields of one path of the program text, far below 2³².
        objs[j + 1].fields[fid.0 as usize] = Cell::Val(Value::Obj(ObjId(u32::try_from(j + 2).unwrap_or(u32::MAX))));
    }
    Ok(objs)
}

/// Formals of a method: the reported root at `l1`, every other formal at the sink `l0`.
fn b7_formals(p: &Program, method: &str, root: &str) -> Vec<Option<Value>> {
    let params = p.method(method).map(|m| m.params.clone()).unwrap_or_default();
    params.iter().map(|x| Some(Value::Obj(ObjId(if x == root { 1 } else { 0 })))).collect()
}

/// The concrete access matching one side of a report, if thread `t` stands at it.
fn at_access(m: &Machine<'_>, st: &State<'_>, t: ThreadId, side: &ReportSide, addr: Addr) -> bool {
    match m.next_access(st, t) {
        Some((k, a, line)) => {
            let mut site = m.call_sites(st, t);
            site.push(line);
            k == side.kind && side.sites.contains(&site) && st.threads[t.0 as usize].depth == side.level && a == addr
        }
        None => false,
    }
}

/// The directed witness of §4.5, or why it cannot be built.
fn directed(m: &Machine<'_>, r: &RaceReport, cfg: &Config) -> Result<Witness, String> {
    let p = m.program;
    let [s0, s1] = &r.sides;
    if s0.path.fields != s1.path.fields {
        return Err("the two paths have different field sequences".into());
    }
    let fields = &s0.path.fields;
    let heap = b7_heap(m, fields)?;
    let last = m.field(fields.last().ok_or("empty path")?).ok_or("unknown field")?;
    // OK since this counts the fields of one path of the program text, far below 2³².
    let target = Addr::Field(ObjId(u32::try_from(fields.len()).unwrap_or(u32::MAX)), last);
    let formals = [b7_formals(p, &s0.method, &s0.path.root), b7_formals(p, &s1.method, &s1.path.root)];
    let init = m.method_threads(&[&s0.method, &s1.method], heap, &formals).map_err(|e| e.to_string())?;
    // Run the lock-free side first (L_a = 0; at least one side is 0 when L1 + L2 ≤ 1).
    let (a, b) = if s0.level == 0 { (0usize, 1usize) } else { (1, 0) };
    let (ta, tb) = (thread_id(a), thread_id(b));
    let sa = &r.sides[a];
    let sb = &r.sides[b];
    let start = Reached { state: init, choices: vec![], trace: vec![] };
    // A search cut by its state budget shows nothing: said so, never "never reaches".
    fn within<'p>(what: String, max: u64, r: ThreadSearch<'p>) -> Result<Reached<'p>, String> {
        match r {
            ThreadSearch::Found(r) => Ok(r),
            ThreadSearch::Absent => Err(format!("{what} never reaches")),
            ThreadSearch::Exhausted => Err(format!("{what} does not reach, within {max} states,")),
        }
    }
    let tail = |s: &crate::theorems::static_race::ReportSide| format!("{} {} on {} at lock depth {}", s.kind.letter(), s.path, addr_text(fields), s.level);
    let ra = within(format!("from the Lemma B.7 state, T{} ({})", a + 1, sa.method), cfg.max_states, search_thread(m, start, ta, cfg, &mut |st| at_access(m, st, ta, sa, target)))
        .map_err(|e| format!("{e} {}", tail(sa)))?;
    let rb =
        within(format!("after T{}'s prefix, T{} ({})", a + 1, b + 1, sb.method), cfg.max_states, search_thread(m, ra.clone(), tb, cfg, &mut |st| at_access(m, st, tb, sb, target)))
            .map_err(|e| format!("{e} {}", tail(sb)))?;
    let pair = def36::enabled_pairs(m, &rb.state).into_iter().find(|p| p.0.iter().any(|x| x.thread == ta) && p.0.iter().any(|x| x.thread == tb));
    match pair {
        Some(EnabledPair([x, y])) => {
            // Rows in the order the directed search ran the threads: the lock-free side first.
            let pair = if x.thread == ta { EnabledPair([x, y]) } else { EnabledPair([y, x]) };
            Ok(witness(m, &rb, &pair, &[&s0.method, &s1.method], RaceDefinition::Def36FromLemmaB7))
        }
        None => Err("the two accesses are not enabled together on one address".into()),
    }
}

fn addr_text(fields: &[String]) -> String {
    format!("l{}.{}", fields.len(), fields.last().map_or("?", |f| f.as_str()))
}

fn witness(m: &Machine<'_>, r: &Reached<'_>, pair: &EnabledPair, methods: &[&str], definition: RaceDefinition) -> Witness {
    Witness {
        schedule: Schedule(r.choices.clone()),
        threads: methods.iter().enumerate().map(|(i, m)| format!("T{} ({m})", i + 1)).collect(),
        initial_heap: r.state.initial_facts.clone(),
        events: def36_rows(&r.trace, pair),
        address: Some(pair.0[0].addr),
        definition,
        names: Names::of(m, &r.state),
        sut: None,
    }
}

/// One side of an enabled pair, as reports name it: thread, kind, site (call chain + line).
type SideKey = (ThreadId, AccessKind, Vec<u32>);

/// Every state of the bounded heap family's executions that enables two conflicting
/// accesses, for one method pair: the distinct (thread, kind, line) pairs, each with the
/// first witness.
struct PairSearch {
    races: Vec<([SideKey; 2], Witness)>,
    executions: u64,
    states: u64,
    complete: bool,
    error: Option<String>,
}

/// The fallback: every interleaving of `m1 ∥ m2` from the bounded heap family.
fn search_pair(m: &Machine<'_>, m1: &str, m2: &str, cfg: &Config) -> PairSearch {
    let init = match m.method_threads(&[m1, m2], vec![], &[]) {
        Ok(s) => s,
        Err(e) => return PairSearch { races: vec![], executions: 0, states: 0, complete: false, error: Some(e.to_string()) },
    };
    // Def. 3.6 is a property of states: the stateful explorer answers it exactly.
    let cfg = Config { state_predicate: Some(def36::enabled_pairs), explorer: ExplorerKind::fastest_for(&[Property::StateRaces]), ..*cfg };
    let mut races: Vec<([SideKey; 2], Witness)> = vec![];
    let stats = cfg.explorer.get().explore(m, init, &cfg, &mut |ex| {
        for d in ex.state_races {
            let key = d.pair.0.clone().map(|EnabledAccess { thread, kind, site, .. }| (thread, kind, site));
            if !races.iter().any(|(k, _)| *k == key) {
                let mut reached = Reached { state: ex.state.clone(), choices: ex.schedule[..d.choices].to_vec(), trace: ex.trace[..d.at].to_vec() };
                reached.state.initial_facts.truncate(d.facts);
                races.push((key, witness(m, &reached, &d.pair, &[m1, m2], RaceDefinition::Def36BySearch)));
            }
        }
        ControlFlow::Continue(())
    });
    PairSearch { races, executions: stats.executions, states: stats.states, complete: stats.complete, error: None }
}

/// Whether the pair search found a state enabling the two reported statements together.
fn judge(s: &PairSearch, r: &RaceReport, cfg: &Config, directed_failure: &str) -> ReportOutcome {
    if let Some(e) = &s.error {
        return ReportOutcome::Unknown { reason: e.clone() };
    }
    let side = |i: usize, (t, k, site): &SideKey| *t == thread_id(i) && *k == r.sides[i].kind && r.sides[i].sites.contains(site);
    let found = s.races.iter().find(|([a, b], _)| (side(0, a) && side(1, b)) || (side(0, b) && side(1, a)));
    match found {
        Some((_, w)) => ReportOutcome::Confirmed { how: format!("search over initial heaps (the directed witness failed: {directed_failure})"), witness: w.clone() },
        None if s.complete => ReportOutcome::Refuted {
            reason: format!(
                "{directed_failure}; and none of the {} reachable states from initial heaps with ≤ {} objects (loop bound {}) enables both accesses together",
                s.states, cfg.heap_bound, cfg.loop_bound
            ),
        },
        None => ReportOutcome::Unknown {
            reason: format!(
                "{directed_failure}; the search hit a budget after {} states and {} executions (raise --max-states, --max-executions or --max-steps)",
                s.states, s.executions
            ),
        },
    }
}
