//! `ldrf-agree` (docs/spec/ldrf.md §4, §6.3 C1–C7, C10, C11): on a race-free program, the
//! thread-local L-DRF semantics agrees with the standard one. Judged by running both
//! engines ([`crate::ldrf`]) to every reachable state, values mod K = 4:
//!
//! | item | claim | counterexample |
//! |---|---|---|
//! | C1 | Lemma 6: every reachable L-DRF state is admissible; updEnv is a singleton; the writer of x holds its newest version | the state (and the instruction) |
//! | C2 | χ(Reach_LDRF) = Reach_STD on whole states (Thm 7 ⊇, Thm 8 ⊆) | a `missing` standard state or an `extra` χ-image, with its path |
//! | C3 | local exactness: at every reachable L-DRF state, a thread's copy agrees with χ on Acc(n) | the state, the thread, the variable |
//! | C4 | relevant-point equality: per location n, the thread's copies restricted to Acc(n) are exactly the standard projections | the location and a tuple on one side only |
//! | C5 | C1-C4 and C7 with E-RDRF (§3) for every partition of the shared variables under which the program is region-race-free, and every copy giving a region's variables one version | the partition and the C1-C4 counterexample |
//! | C6 | Remark 9: C1-C4 (and C7) with G restricted to the synchronizes-with pairs E-STD observes | the pairs and the C1-C4 or C7 counterexample |
//! | C7 | Thm 10 against L-DRF: every reachable thread copy Θ(t)φ is in ⟦P⟧×(pc(t)) and every buffer Λ(n̄)φ in ⟦P⟧×(n̄) (E-CART, var mix, G full); under C5, E-RDRF against the region mix | the state, the copy and where it is missing |
//! | C10 | Remark 13 (with the k = 0 fix) finds exactly Def. 12's region races, for the declared partition (all shared variables in one region if none is declared) | the races on one side only |
//! | C11 | simultaneous enabledness and the trace-level happens-before check (Def. 4, [`races_stateful`](crate::ldrf::hb::races_stateful)) agree on racy or not, and the first's pairs are among the second's | both sets |
//!
//! The theorems assume race freedom (A2): E-STD classifies the program first, and on a racy
//! one C1-C7 are not judged (they belong to the negative controls, C9): the result is
//! inconclusive unless C10 or C11, which need no hypothesis, fail. Both searches are
//! exhaustive over a finite state space, so a pass has no bound but K and the state budget.
//! The system under test is the L-DRF semantics itself, with or without a seeded bug
//! ([`LdrfBug`](crate::ldrf::local::LdrfBug)).
//!
//! The parts, one concept each: this module (the oracles and the run), `judge` (C1-C4 and
//! C7 against one engine's reachable states), `regions` (C5, E-RDRF for every
//! region-race-free partition), `observed_sw` (C6, Remark 9's refined G) and `races` (the
//! race checks C10 and C11).

mod judge;
mod observed_sw;
mod races;
mod regions;

use judge::{Judge, Relevant};
use observed_sw::c6;
use races::{c10, c11};
use regions::c5;

use super::result::{Item, ItemStatus, OracleResult};
use super::{Budget, Oracle, Reads, Sut, SutKind};
use crate::gen;
use crate::lang::{Dialect, Program};
use crate::ldrf::cart::{cart, Mix};
use crate::ldrf::cfg::Cfg;
use crate::ldrf::local::{Ldrf, Sync};
use crate::ldrf::standard::reach;

/// Re-exported from the engines, which define it.
pub use crate::ldrf::MODULUS;

/// `ldrf-agree`.
pub const ORACLE: Oracle = Oracle {
    id: "ldrf-agree",
    claim: "on race-free programs the thread-local L-DRF semantics agrees with the standard one: admissible states, the same states under χ, exact relevant values (Lemma 6, Thms 7-8, C1-C4), with regions (C5), the observed synchronizes-with (Remark 9, C6) and the cartesian abstraction (Thm 10, C7); on every program the region-race and happens-before race checks agree (C10, C11)",
    spec: "spec/ldrf.md §2, §3, §4, §6.3 C1-C7, C10, C11",
    dialect: Dialect::Ldrf,
    sut: SutKind::ThreadLocal,
    item_kind: "property",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[],
    scorecard: false,
    operational: None,
    generate: gen::ldrf::swarm_ldrf,
    grammar: &gen::ldrf::GRAMMAR_LDRF,
    check,
};

/// `ldrf-agree-racy`, a negative control (C9, false: R6): the agreement holds on racy
/// programs too. It judges every program, racy or not, so a failure is a racy program on
/// which the L-DRF semantics and the standard one disagree.
pub const RACY: Oracle = Oracle {
    id: "ldrf-agree-racy",
    claim: "NEGATIVE CONTROL (false, R6): the L-DRF semantics agrees with the standard one on racy programs too (C9)",
    spec: "spec/ldrf.md §6.3 C9, §8 R6, A2",
    negative_control: true,
    // Its programs must race: the generator with races in every program's knobs.
    generate: gen::ldrf::swarm_ldrf_racy,
    check: check_racy,
    ..ORACLE
};

fn check(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    run(&ORACLE, p, sut, b)
}

fn check_racy(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    run(&RACY, p, sut, b)
}

fn run(o: &Oracle, p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::ThreadLocal(bug) = sut else { return o.wrong_sut(sut) };
    let name = match bug {
        None => "L-DRF".to_string(),
        Some(bug) => format!("L-DRF[{bug:?}]"),
    };
    let inconclusive = |note: String| OracleResult::inconclusive(o.id, name.clone(), o.item_kind, note);
    if let Some(note) = o.unmet(p, b.relax) {
        return inconclusive(note);
    }
    let cfg = Cfg::of(p, MODULUS);
    let std = reach(&cfg, &b.explore);
    if let Some(cut) = &std.cut {
        return inconclusive(cut.clone());
    }
    // The race checks (C10, C11) need no hypothesis: they are judged on racy programs too.
    if let (Some(&(e1, e2, x)), false) = (std.races.iter().next(), o.negative_control) {
        let (l1, l2) = (cfg.edge(e1).line.0, cfg.edge(e2).line.0);
        let note = format!("precondition unmet: the program races on `{}` (lines {l1} and {l2}); C1-C7 assume race freedom (A2)", cfg.vars[x.index()]);
        let checks = vec![c10(&cfg, &std, &b.explore), c11(&cfg, &std, &b.explore)];
        return OracleResult::from_items(o.id, name, o.item_kind, checks, Some(note));
    }
    let engine = Ldrf::new(&cfg, Sync::Full).with_bug(*bug);
    let local = engine.reach(&b.explore);
    if let Some(cut) = &local.cut {
        return inconclusive(cut.clone());
    }
    let rel = Relevant::of(&cfg, &std);
    let j = Judge { cfg: &cfg, engine: &engine, std: &std, rel: &rel, local: &local, partition: None };
    let mut context = vec![format!("values mod {MODULUS}; {} standard states, {} L-DRF states", std.states.len(), local.states.len())];
    let mut items = j.c1_to_c4(&context[0]);
    if !o.negative_control {
        let c7 = "C7 Thm 10: every L-DRF copy and buffer is in ⟦P⟧× (var mix, G full)";
        let var = cart(&cfg, &Sync::Full, &Mix::Var, b.explore.max_states);
        match c5(&cfg, &std, &rel, *bug, &b.explore) {
            Ok(item) => items.push(item),
            Err(why) => context.push(why),
        }
        items.push(c6(&cfg, &std, &rel, *bug, &b.explore));
        items.push(match &var.cut {
            Some(cut) => unknown(c7, cut),
            None => j.c7(&var, c7),
        });
        items.extend([c10(&cfg, &std, &b.explore), c11(&cfg, &std, &b.explore)]);
        context[0].push_str(&format!(", {} E-CART environments (var mix)", var.size()));
    }
    let mut r = OracleResult::from_items(o.id, name, o.item_kind, items, None);
    r.context = context;
    r
}

/// The first violated item of a judgement run in another setting (C5's partitions, C6's
/// G), as a violation of `subject` that names the setting.
fn first_violation(subject: &str, setting: &str, items: Vec<Item>) -> Option<Item> {
    let bad = items.into_iter().find(|i| i.status == ItemStatus::Violated)?;
    let mut explanation = vec![format!("{setting}: {}:", bad.subject)];
    explanation.extend(bad.explanation);
    Some(Item { subject: subject.into(), status: ItemStatus::Violated, explanation, witness: None })
}

/// An item a budget stopped: unknown, naming the budget.
fn unknown(subject: &str, cut: &str) -> Item {
    Item { subject: subject.into(), status: ItemStatus::Unknown, explanation: vec![cut.to_string()], witness: None }
}
