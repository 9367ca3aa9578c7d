//! `explorer-agree` (docs/design.md principle 1; docs/spec/dpor.md): the fast
//! explorers answer what the naive enumeration answers, on every property each of them
//! claims to preserve ([`ExplorerKind::preserves`]).
//!
//! The systems under test are the fast explorers ([`FastExplorers`]): the stateful search
//! and optimal DPOR, real or with a seeded bug ([`super::super::explore::stateful::StatefulBug`],
//! [`super::super::explore::dpor::DporBug`]). The naive explorer is the reference and is
//! never mutated. Two entries, one per kind of program:
//! - [`ORACLE`] on tier-2 BFJ (`bfj2`, with fork and join) thread programs (`gen::threads`): DPOR visits an execution of every
//!   Mazurkiewicz class the naive explorer finds, and at most one per class (where classes
//!   see every dependence: programs without silent reads, `Program::reads_silently`); both
//!   fast explorers reach the same final states and outcomes (terminated, stuck,
//!   deadlocked), and DPOR the same happens-before racy addresses. Programs with atomics and
//!   fences (docs/spec/atomics.md §7) are judged the same way: the classes use spec §7's
//!   dependence, and `tests/litmus.rs` runs this oracle on the §8 litmus tests.
//! - [`ATOMICS`], the same on programs of the atomic generator.
//! - [`RACERDX`] on racerdx method pairs (the racerdx generator): the stateful search finds
//!   the same Def. 3.6 racy addresses and reaches the same final states (heaps and thread
//!   statuses; the lazily fixed initial facts are a log, not state: `machine::key`) as the
//!   naive enumeration, for every pair. DPOR runs the naive enumeration on
//!   these programs (lazily fixed heaps), so it is not compared there.
//!
//! The naive enumeration must finish within the budget (at most [`NAIVE_BUDGET`]
//! executions here; [`RACERDX_BUDGET`] per racerdx pair, with loop bound 1 and at most 2
//! initial objects, so
//! that a campaign never stalls on one program); otherwise the item is inconclusive. A fast explorer that stops short where the naive one finished is a
//! violation: it explores no more than the naive one by construction.
//!
//! Each violation names what differs, and a schedule (of the naive explorer) that reaches
//! what the fast explorer missed; `racefuzz replay FILE --schedule S` shows it.

use std::collections::BTreeMap;
use std::ops::ControlFlow;

use super::result::{Item, ItemStatus, OracleResult};
use super::{Budget, Oracle, Reads, Sut, SutKind};
use crate::explore::classes::{class_key, final_state};
use crate::explore::{Config, Execution, Explorer, ExplorerKind, Outcome, Schedule};
use crate::gen;
use crate::lang::{Dialect, Program};
use crate::machine::{Machine, State};
use crate::race::{data_races, def36};

/// The fast explorers judged by `explorer-agree`: one stateful search and one DPOR.
#[derive(Clone, Copy)]
pub struct FastExplorers<'a> {
    /// Its name in results (`explorers`, with a mutant's name added by the SUT crate).
    pub name: &'a str,
    /// The stateful search.
    pub stateful: &'a dyn Explorer,
    /// Optimal DPOR.
    pub dpor: &'a dyn Explorer,
}

/// The most naive executions one check runs (the campaign's own budget if lower).
pub const NAIVE_BUDGET: u64 = 20_000;

/// The most naive executions per racerdx pair.
pub const RACERDX_BUDGET: u64 = 1_000;

/// `explorer-agree` on thread programs.
pub const ORACLE: Oracle = Oracle {
    id: "explorer-agree",
    claim: "stateful search and optimal DPOR agree with the naive enumeration on thread programs",
    spec: "spec/dpor.md; design.md principle 1",
    dialect: Dialect::Bfj2,
    sut: SutKind::Explorers,
    item_kind: "property",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[],
    scorecard: false,
    operational: None,
    generate: gen::threads::swarm,
    grammar: &gen::threads::GRAMMAR,
    check: |p, sut, b| check_threads(&ORACLE, p, sut, b),
};

/// `explorer-agree-atomics`: the same claims on programs with atomics and fences, drawn by
/// the atomic generator ([`gen::threads::swarm_atomics`]: every operation × order, fences
/// on either side, release sequences, CAS spinlocks), whose classes follow spec §7's
/// dependence (docs/spec/atomics.md §7).
pub const ATOMICS: Oracle = Oracle {
    id: "explorer-agree-atomics",
    claim: "stateful search and optimal DPOR agree with the naive enumeration on programs with atomics and fences",
    spec: "spec/dpor.md; spec/atomics.md §7",
    atomics: true,
    generate: gen::threads::swarm_atomics,
    grammar: &gen::threads::GRAMMAR_ATOMICS,
    check: |p, sut, b| check_threads(&ATOMICS, p, sut, b),
    ..ORACLE
};

/// `explorer-agree` on racerdx method pairs.
pub const RACERDX: Oracle = Oracle {
    id: "explorer-agree-racerdx",
    claim: "stateful search agrees with the naive enumeration on racerdx pairs (Def. 3.6, final states)",
    spec: "spec/dpor.md; spec/racerdx.md Def. 3.6",
    dialect: Dialect::RacerDx,
    sut: SutKind::Explorers,
    item_kind: "property",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[],
    scorecard: false,
    operational: None,
    generate: gen::racerdx::swarm_small,
    grammar: &gen::racerdx::GRAMMAR_SMALL,
    check: check_racerdx,
};

/// What one exploration showed.
#[derive(Default)]
struct Seen {
    /// Executions per class key, with the first schedule of each class.
    classes: BTreeMap<u64, (u64, Schedule)>,
    /// Final states (of executions that were not cut short by a merge), with the first
    /// schedule reaching each.
    finals: BTreeMap<String, Schedule>,
    /// Happens-before racy addresses, with a schedule showing each.
    hb: BTreeMap<String, Schedule>,
    /// Def. 3.6 racy addresses, with a schedule reaching each racing state.
    def36: BTreeMap<String, Schedule>,
    executions: u64,
    complete: bool,
}

fn observe<'p>(e: &dyn Explorer, m: &Machine<'p>, init: State<'p>, cfg: &Config, classes: bool) -> Seen {
    let mut seen = Seen::default();
    let stats = e.explore(m, init, cfg, &mut |ex: &Execution<'_, 'p>| {
        let schedule = || Schedule(ex.schedule.to_vec());
        if classes {
            seen.classes.entry(class_key(m, ex)).or_insert_with(|| (0, schedule())).0 += 1;
        }
        if *ex.outcome != Outcome::Merged {
            seen.finals.entry(final_state(m, ex)).or_insert_with(schedule);
        }
        for r in data_races(ex.trace) {
            seen.hb.entry(ex.state.addr_name(m, r.addr)).or_insert_with(schedule);
        }
        for d in ex.state_races {
            seen.def36.entry(ex.state.addr_name(m, d.pair.0[0].addr)).or_insert_with(|| Schedule(ex.schedule[..d.choices].to_vec()));
        }
        ControlFlow::Continue(())
    });
    seen.executions = stats.executions;
    seen.complete = stats.complete;
    seen
}

/// An item comparing one set of the naive explorer with a fast explorer's.
fn same(subject: String, what: &str, naive: &BTreeMap<String, Schedule>, fast: &BTreeMap<String, Schedule>) -> Item {
    let missing: Vec<&String> = naive.keys().filter(|k| !fast.contains_key(*k)).collect();
    let extra: Vec<&String> = fast.keys().filter(|k| !naive.contains_key(*k)).collect();
    if missing.is_empty() && extra.is_empty() {
        return Item { subject, status: ItemStatus::Holds, explanation: vec![format!("{} {what}, as the naive enumeration finds", naive.len())], witness: None };
    }
    let mut explanation = vec![];
    for k in missing.iter().take(3) {
        explanation.push(format!("MISSING {what}: {k} (the naive explorer reaches it with schedule {})", naive[*k]));
    }
    for k in extra.iter().take(3) {
        explanation.push(format!("EXTRA {what}: {k} (schedule {}), which the naive explorer never reaches", fast[*k]));
    }
    if missing.len() + extra.len() > 6 {
        explanation.push(format!("{} missing and {} extra in all", missing.len(), extra.len()));
    }
    Item { subject, status: ItemStatus::Violated, explanation, witness: None }
}

fn complete(subject: String, naive: &Seen, fast: &Seen) -> Option<Item> {
    (!fast.complete).then(|| Item {
        subject,
        status: ItemStatus::Violated,
        explanation: vec![format!("stopped short after {} executions where the naive enumeration finished in {}", fast.executions, naive.executions)],
        witness: None,
    })
}

fn setup<'s>(o: &Oracle, p: &Program, sut: &'s Sut<'_>, b: &Budget) -> Result<(FastExplorers<'s>, Config), Box<OracleResult>> {
    let Sut::Explorers(x) = sut else { return Err(Box::new(o.wrong_sut(sut))) };
    let inconclusive = |note: String| Box::new(OracleResult::inconclusive(o.id, x.name.to_string(), o.item_kind, note));
    if let Some(note) = o.unmet(p, b.relax) {
        return Err(inconclusive(note));
    }
    let cfg = Config { max_executions: b.explore.max_executions.min(NAIVE_BUDGET), explorer: ExplorerKind::Naive, ..b.explore };
    Ok((*x, cfg))
}

/// A campaign's deadline that passed during a check cuts explorations short: that proves
/// nothing about the explorers, so the result is inconclusive whatever it says.
fn past_deadline(o: &Oracle, x: &FastExplorers<'_>, b: &Budget, r: OracleResult) -> OracleResult {
    if b.explore.deadline.is_some_and(|d| std::time::Instant::now() > d) {
        return OracleResult::inconclusive(o.id, x.name.to_string(), o.item_kind, "the campaign's deadline passed during the check".into());
    }
    r
}

fn check_threads(o: &Oracle, p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let (x, cfg) = match setup(o, p, sut, b) {
        Ok(s) => s,
        Err(r) => return *r,
    };
    let r = threads(o, p, &x, &cfg);
    past_deadline(o, &x, b, r)
}

fn threads(o: &Oracle, p: &Program, x: &FastExplorers<'_>, cfg: &Config) -> OracleResult {
    let m = Machine::new(p, cfg.loop_bound);
    let init = match m.initial_state() {
        Ok(s) => s,
        Err(e) => return OracleResult::inconclusive(o.id, x.name.to_string(), o.item_kind, format!("no initial state: {e}")),
    };
    let naive = observe(&crate::explore::Naive, &m, init.clone(), cfg, true);
    if !naive.complete {
        let note = format!("the naive enumeration hit its budget ({} executions)", naive.executions);
        return OracleResult::inconclusive(o.id, x.name.to_string(), o.item_kind, note);
    }
    let dpor = observe(x.dpor, &m, init.clone(), cfg, true);
    let stateful = observe(x.stateful, &m, init, cfg, false);
    let mut items = vec![];
    items.extend(complete("dpor: complete".into(), &naive, &dpor));
    items.extend(complete("stateful: complete".into(), &naive, &stateful));
    // Classes: every one, and (where classes see every dependence) once.
    let missing: Vec<&Schedule> = naive.classes.iter().filter(|(k, _)| !dpor.classes.contains_key(*k)).map(|(_, (_, s))| s).collect();
    let repeated: Vec<&Schedule> = dpor.classes.values().filter(|(n, _)| *n > 1).map(|(_, s)| s).collect();
    let strict = !p.reads_silently();
    let mut explanation = vec![format!("{} class(es); naive {} execution(s), DPOR {}", naive.classes.len(), naive.executions, dpor.executions)];
    if let Some(s) = missing.first() {
        explanation.push(format!("MISSING {} class(es) the naive explorer visits; the first with schedule {s}", missing.len()));
    }
    if let (true, Some(s)) = (strict, repeated.first()) {
        explanation.push(format!("REPEATED {} class(es): DPOR visited more than one execution of each; the first with schedule {s}", repeated.len()));
    }
    if !strict {
        explanation.push("paths read prefixes without events: classes are not checked for repeats".into());
    }
    let bad = !missing.is_empty() || (strict && !repeated.is_empty());
    items.push(Item { subject: "dpor: one execution per class".into(), status: if bad { ItemStatus::Violated } else { ItemStatus::Holds }, explanation, witness: None });
    items.push(same("dpor: racy addresses".into(), "racy address", &naive.hb, &dpor.hb));
    items.push(same("dpor: final states".into(), "final state", &naive.finals, &dpor.finals));
    items.push(same("stateful: final states".into(), "final state", &naive.finals, &stateful.finals));
    OracleResult::from_items(o.id, x.name.to_string(), o.item_kind, items, None)
}

fn check_racerdx(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let (x, cfg) = match setup(&RACERDX, p, sut, b) {
        Ok(s) => s,
        Err(r) => return *r,
    };
    let r = pairs(p, &x, &cfg);
    past_deadline(&RACERDX, &x, b, r)
}

fn pairs(p: &Program, x: &FastExplorers<'_>, cfg: &Config) -> OracleResult {
    // Smaller bounds than a campaign's (loop bound 1, two initial objects): the naive
    // enumeration of a pair explodes with them, and agreement is a claim per bounds.
    let cfg =
        Config { state_predicate: Some(def36::enabled_pairs), loop_bound: 1, heap_bound: cfg.heap_bound.min(2), max_executions: cfg.max_executions.min(RACERDX_BUDGET), ..*cfg };
    let m = Machine::new(p, cfg.loop_bound);
    let names: Vec<&str> = p.methods.iter().map(|m| m.name.as_str()).collect();
    let mut items = vec![];
    let mut skipped = vec![];
    for (i, a) in names.iter().enumerate() {
        for c in &names[i..] {
            let subject = format!("{a} ∥ {c}");
            let init = match m.method_threads(&[a, c], vec![], &[]) {
                Ok(s) => s,
                Err(e) => return OracleResult::inconclusive(RACERDX.id, x.name.to_string(), RACERDX.item_kind, format!("{subject}: no initial state: {e}")),
            };
            let naive = observe(&crate::explore::Naive, &m, init.clone(), &cfg, false);
            if !naive.complete {
                skipped.push(subject);
                continue;
            }
            let stateful = observe(x.stateful, &m, init, &cfg, false);
            items.extend(complete(format!("{subject}: stateful complete"), &naive, &stateful));
            items.push(same(format!("{subject}: Def. 3.6 racy addresses"), "racy address", &naive.def36, &stateful.def36));
            items.push(same(format!("{subject}: final states"), "final state", &naive.finals, &stateful.finals));
        }
    }
    let note = (!skipped.is_empty()).then(|| format!("the naive enumeration hit its budget on {}", skipped.join(", ")));
    OracleResult::from_items(RACERDX.id, x.name.to_string(), RACERDX.item_kind, items, note)
}
