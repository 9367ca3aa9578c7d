//! `ldrf-agree` (issue 13; spec/ldrf.md §4, §6.3 C1–C4): on a race-free program, the
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
//! | C11 | simultaneous enabledness and the trace-level happens-before check (Def. 4, [`races_stateful`]) agree on racy or not, and the first's pairs are among the second's | both sets |
//!
//! The theorems assume race freedom (A2): E-STD classifies the program first, and on a racy
//! one C1-C7 are not judged (they belong to the negative controls, C9): the result is
//! inconclusive unless C10 or C11, which need no hypothesis, fail. Both searches are
//! exhaustive over a finite state space, so a pass has no bound but K and the state budget.
//! The system under test is the L-DRF semantics itself, with or without a seeded bug
//! ([`LdrfBug`]).

use std::collections::{BTreeMap, BTreeSet};

use super::registry::{Budget, Oracle, Sut, SutKind};
use super::result::{Item, ItemStatus, OracleResult};
use crate::explore::Config;
use crate::gen;
use crate::lang::{Dialect, Program};
use crate::ldrf::cart::{cart, Cart, Mix};
use crate::ldrf::cfg::{complete, Cfg, Ix, Node};
use crate::ldrf::hb::races_stateful;
use crate::ldrf::local::{inadmissible, region_split, Ldrf, LdrfBug, LocalReach, LocalState, Sync, VEnv};
use crate::ldrf::reduction::{reduce, Reduction};
use crate::ldrf::standard::{observed_sw, path_to, reach, region_races, Reach, StdState};

/// The values of every engine are taken mod this K (spec §6.2).
pub const MODULUS: i64 = 4;

/// `ldrf-agree`.
pub const ORACLE: Oracle = Oracle {
    id: "ldrf-agree",
    claim: "on race-free programs the thread-local L-DRF semantics agrees with the standard one: admissible states, the same states under χ, exact relevant values (Lemma 6, Thms 7-8, C1-C4)",
    spec: "spec/ldrf.md §2, §4, §6.3 C1-C4",
    dialect: Dialect::Ldrf,
    sut: SutKind::ThreadLocal,
    item_kind: "property",
    negative_control: false,
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
        let (l1, l2) = (cfg.edges[e1].line.0, cfg.edges[e2].line.0);
        let note = format!("precondition unmet: the program races on `{}` (lines {l1} and {l2}); C1-C7 assume race freedom (A2)", cfg.vars[usize::from(x)]);
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

/// Every partition of `vars` into blocks, the all-singletons one excluded (that is L-DRF),
/// as complete partitions of the program's variables; `None` when there are too many
/// (more than five shared variables: Bell(6) = 203).
fn coarsenings(cfg: &Cfg, vars: &[Ix]) -> Option<Vec<Vec<Vec<Ix>>>> {
    if vars.len() > 5 {
        return None;
    }
    let mut all: Vec<Vec<Vec<Ix>>> = vec![vec![]];
    for &x in vars {
        let mut next = vec![];
        for p in all {
            for i in 0..p.len() {
                let mut q = p.clone();
                q[i].push(x);
                next.push(q);
            }
            let mut q = p;
            q.push(vec![x]);
            next.push(q);
        }
        all = next;
    }
    Some(all.into_iter().filter(|p| p.iter().any(|b| b.len() > 1)).map(|p| complete(p, cfg.vars.len())).collect())
}

/// C5: C1-C4 with E-RDRF, and the region form of Lemma 6, for every partition of the shared
/// variables (and the declared one) under which the program is region-race-free (spec §3,
/// §6.3 C5).
fn c5(cfg: &Cfg, std: &Reach, rel: &Relevant, bug: Option<LdrfBug>, bounds: &Config) -> Result<Item, String> {
    // Err: why C5 does not apply to this program (no item: nothing was judged).
    let subject = "C5 R-DRF agrees for every region-race-free partition (Thms 7, 8 for R-DRF; regions share versions)";
    let Some(mut partitions) = coarsenings(cfg, &cfg.shared_vars()) else {
        return Ok(Item {
            subject: subject.into(),
            status: ItemStatus::Unknown,
            explanation: vec!["more than five shared variables: the partitions are not enumerated".into()],
            witness: None,
        });
    };
    // The declared partition too, which may group private variables with shared ones.
    let normal = |q: &[Vec<Ix>]| -> Vec<Vec<Ix>> {
        let mut q: Vec<Vec<Ix>> = q.iter().map(|r| r.iter().copied().collect::<BTreeSet<Ix>>().into_iter().collect()).collect();
        q.sort();
        q
    };
    if cfg.regions.iter().any(|r| r.len() > 1) && !partitions.iter().any(|q| normal(q) == normal(&cfg.regions)) {
        partitions.push(cfg.regions.clone());
    }
    let mut judged = vec![];
    for partition in partitions.iter().filter(|q| region_races(cfg, std, q).is_empty()) {
        let engine = Ldrf::new(cfg, Sync::Full).with_bug(bug).with_regions(partition);
        let local = engine.reach(bounds);
        if let Some(cut) = local.cut {
            return Ok(unknown(subject, &cut));
        }
        let regions = cfg.partition_name(partition).unwrap_or_default();
        let j = Judge { cfg, engine: &engine, std, rel, local: &local, partition: Some(partition) };
        let region_mix = cart(cfg, &Sync::Full, &Mix::Region(partition.clone()), bounds.max_states);
        if let Some(cut) = region_mix.cut {
            return Ok(unknown(subject, &cut));
        }
        let mut judged_items = j.c1_to_c4("");
        judged_items.push(j.c7(&region_mix, "C7 Thm 10 for R-DRF: every copy and buffer is in ⟦P⟧× with the region mix"));
        if let Some(bad) = first_violation(subject, &format!("with regions {regions} (region-race-free)"), judged_items) {
            return Ok(bad);
        }
        judged.push(format!("{regions} ({} R-DRF states)", local.states.len()));
    }
    if judged.is_empty() {
        return Err("C5 not judged: no partition coarser than singletons is region-race-free".into());
    }
    let explanation = format!("holds for {} partition(s): {}", judged.len(), judged.join("; "));
    Ok(Item { subject: subject.into(), status: ItemStatus::Holds, explanation: vec![explanation], witness: None })
}

/// C6: Remark 9: C1-C4 with G restricted to the synchronizes-with pairs E-STD observes, and
/// Thm 10 for that G (E-CART with the same refined sync-CFG).
fn c6(cfg: &Cfg, std: &Reach, rel: &Relevant, bug: Option<LdrfBug>, bounds: &Config) -> Item {
    let subject = "C6 Remark 9: C1-C4 and C7 with G refined to the observed synchronizes-with pairs";
    let (pairs, cut) = observed_sw(cfg, bounds);
    if let Some(cut) = cut {
        return unknown(subject, &cut);
    }
    let shown: Vec<String> = pairs.iter().map(|&(r, a)| format!("{}→{}", cfg.node_name(r), cfg.node_name(a))).collect();
    let sync = Sync::Pairs(pairs);
    let engine = Ldrf::new(cfg, sync.clone()).with_bug(bug);
    let local = engine.reach(bounds);
    if let Some(cut) = local.cut {
        return unknown(subject, &cut);
    }
    let refined = cart(cfg, &sync, &Mix::Var, bounds.max_states);
    if let Some(cut) = refined.cut {
        return unknown(subject, &cut);
    }
    let j = Judge { cfg, engine: &engine, std, rel, local: &local, partition: None };
    let pairs = if shown.is_empty() { "∅".to_string() } else { shown.join(" ") };
    let mut judged = j.c1_to_c4("");
    judged.push(j.c7(&refined, "C7 Thm 10 with the refined G: every copy and buffer is in ⟦P⟧× (var mix)"));
    if let Some(bad) = first_violation(subject, &format!("with G = the observed pairs {pairs}"), judged) {
        return bad;
    }
    Item { subject: subject.into(), status: ItemStatus::Holds, explanation: vec![format!("holds with G = {pairs} ({} L-DRF states)", local.states.len())], witness: None }
}

/// The partition C10 reduces: the declared one, or all shared variables in one region when
/// none is declared (the partition with the most region races).
fn c10_partition(cfg: &Cfg) -> Vec<Vec<Ix>> {
    if cfg.regions.iter().any(|r| r.len() > 1) {
        return cfg.regions.clone();
    }
    complete(vec![cfg.shared_vars()].into_iter().filter(|r| !r.is_empty()).collect(), cfg.vars.len())
}

/// C10: Remark 13's reduction (with the k = 0 fix) finds exactly Def. 12's region races.
fn c10(cfg: &Cfg, std: &Reach, bounds: &Config) -> Item {
    let subject = "C10 Remark 13: region races by reduction to ghost data races = Def. 12 directly";
    let partition = c10_partition(cfg);
    let direct = region_races(cfg, std, &partition);
    let reduced = reduce(cfg, &partition, Reduction::Fixed);
    let r = reach(&reduced.cfg, bounds);
    if let Some(cut) = r.cut {
        return unknown(subject, &cut);
    }
    let via = reduced.region_races(&r.races);
    let regions = cfg.partition_name(&partition).unwrap_or_else(|| "all singletons".into());
    let show = |set: &BTreeSet<(usize, usize, usize)>| -> String {
        if set.is_empty() {
            return "none".into();
        }
        set.iter().map(|&(a, b, r)| format!("lines {}/{} on {}", cfg.edges[a].line.0, cfg.edges[b].line.0, cfg.region_name(&partition[r]))).collect::<Vec<_>>().join(", ")
    };
    if direct != via {
        let explanation = vec![
            format!("regions {regions}:"),
            format!("  Def. 12: {}", show(&direct)),
            format!("  reduction: {}", show(&via)),
            format!("  missing: {}; extra: {}", show(&direct.difference(&via).copied().collect()), show(&via.difference(&direct).copied().collect())),
        ];
        return Item { subject: subject.into(), status: ItemStatus::Violated, explanation, witness: None };
    }
    Item { subject: subject.into(), status: ItemStatus::Holds, explanation: vec![format!("holds (regions {regions}: {})", show(&direct))], witness: None }
}

/// C11: E-STD's simultaneous enabledness and the trace-level happens-before check agree on
/// whether the program races, and every simultaneously enabled conflicting pair is a
/// happens-before race (the two run one after the other, unordered).
///
/// Not pair by pair: the spec's proof sketch (§1.3 \[D\]) moves hb-unordered events freely,
/// but a racy read can feed a branch, so an hb race may be between instructions that are
/// never enabled together (t1 `x = 1; y = 1` ∥ t2 spinning on `b = y` and then reading x:
/// the read of x is hb-unordered with `x = 1` yet comes only after t2 has seen `y = 1`).
/// The equivalence holds for the first race of a trace, so the racy verdicts agree.
fn c11(cfg: &Cfg, std: &Reach, bounds: &Config) -> Item {
    let subject = "C11 race checks agree: simultaneous enabledness and happens-before (Def. 4) find the same racy programs";
    let (hb, cut) = races_stateful(cfg, bounds);
    if let Some(cut) = cut {
        return unknown(subject, &cut);
    }
    let show = |set: &BTreeSet<(usize, usize, Ix)>| -> String {
        if set.is_empty() {
            return "none".into();
        }
        set.iter().map(|&(a, b, x)| format!("lines {}/{} on `{}`", cfg.edges[a].line.0, cfg.edges[b].line.0, cfg.vars[usize::from(x)])).collect::<Vec<_>>().join(", ")
    };
    if !std.races.is_subset(&hb) || hb.is_empty() != std.races.is_empty() {
        let explanation = vec![
            format!("simultaneous enabledness: {}", show(&std.races)),
            format!("happens-before: {}", show(&hb)),
            format!("enabled together but hb-ordered: {}", show(&std.races.difference(&hb).copied().collect())),
        ];
        return Item { subject: subject.into(), status: ItemStatus::Violated, explanation, witness: None };
    }
    let mut explanation = vec![format!("holds ({})", show(&std.races))];
    let later: BTreeSet<_> = hb.difference(&std.races).copied().collect();
    if !later.is_empty() {
        explanation.push(format!("happens-before also finds races never enabled together (after a racy read): {}", show(&later)));
    }
    Item { subject: subject.into(), status: ItemStatus::Holds, explanation, witness: None }
}

/// What every C3/C4 judgement reads of the program and of the standard semantics, computed
/// once per program (C1-C4 run again for each C5 partition and for C6): Acc(n) per location,
/// and per location the standard states' values on it.
struct Relevant {
    acc: Vec<Vec<Ix>>,
    truth: BTreeMap<Node, BTreeSet<Vec<i64>>>,
}

impl Relevant {
    fn of(cfg: &Cfg, std: &Reach) -> Relevant {
        let acc: Vec<Vec<Ix>> = (0..cfg.owner.len()).map(|n| cfg.relevant(Node::try_from(n).unwrap_or(Node::MAX))).collect();
        let mut truth: BTreeMap<Node, BTreeSet<Vec<i64>>> = BTreeMap::new();
        for s in std.states.keys() {
            for &n in &s.pc {
                truth.entry(n).or_default().insert(acc[n as usize].iter().map(|&x| s.env[usize::from(x)]).collect());
            }
        }
        Relevant { acc, truth }
    }
}

struct Judge<'a, 'c> {
    cfg: &'a Cfg,
    engine: &'a Ldrf<'c>,
    std: &'a Reach,
    rel: &'a Relevant,
    local: &'a LocalReach,
    /// E-RDRF's partition, whose region form of Lemma 6 C1 also checks.
    partition: Option<&'a [Vec<Ix>]>,
}

fn item(subject: &str, found: Option<Vec<String>>, bounds: &str) -> Item {
    match found {
        Some(explanation) => Item { subject: subject.into(), status: ItemStatus::Violated, explanation, witness: None },
        None => Item { subject: subject.into(), status: ItemStatus::Holds, explanation: vec![format!("holds ({bounds})")], witness: None },
    }
}

/// A deterministic order over states, so that counterexamples are reproducible.
fn sorted<'s, S: Ord + 's>(it: impl Iterator<Item = &'s S>) -> Vec<&'s S> {
    let mut v: Vec<&S> = it.collect();
    v.sort();
    v
}

impl Judge<'_, '_> {
    fn c1_to_c4(&self, bounds: &str) -> Vec<Item> {
        vec![self.c1(bounds), self.c2(bounds), self.c3(bounds), self.c4(bounds)]
    }

    /// C7 (Thm 10, checked against L-DRF, stronger than against STD): the *full* copies.
    fn c7(&self, a: &Cart, subject: &str) -> Item {
        let values = |env: &VEnv| env.iter().map(|c| c.0).collect::<Vec<i64>>();
        let points = self.cfg.all_release_points();
        for s in sorted(self.local.states.keys()) {
            let threads = s.theta.iter().enumerate().map(|(t, env)| (format!("Θ(t{})", t + 1), s.pc[t], env));
            let buffers = s.lambda.iter().zip(&points).flat_map(|(b, &n)| b.iter().map(move |env| (format!("Λ({})", self.cfg.node_name(n)), n, env)));
            for (who, n, env) in threads.chain(buffers) {
                let v = values(env);
                if !a.contains(n, &v) {
                    let shown: Vec<String> = self.cfg.vars.iter().zip(&v).map(|(x, v)| format!("{x}={v}")).collect();
                    let mut ex = vec![format!(
                        "{who} = {{{}}} is not in ⟦P⟧×({}) ({} environments there), in {}",
                        shown.join(", "),
                        self.cfg.node_name(n),
                        a.at[n as usize].len(),
                        self.local_state(s)
                    )];
                    ex.extend(self.local_path(s));
                    return item(subject, Some(ex), "");
                }
            }
        }
        Item { subject: subject.into(), status: ItemStatus::Holds, explanation: vec![format!("holds ({} E-CART environments)", a.size())], witness: None }
    }

    fn std_state(&self, s: &StdState) -> String {
        let pcs: Vec<String> = s.pc.iter().map(|&n| self.cfg.node_name(n)).collect();
        let env: Vec<String> = self.cfg.vars.iter().zip(&s.env).map(|(x, v)| format!("{x}={v}")).collect();
        format!("[{}] {{{}}}", pcs.join(", "), env.join(", "))
    }

    fn local_state(&self, s: &LocalState) -> String {
        let pcs: Vec<String> = s.pc.iter().map(|&n| self.cfg.node_name(n)).collect();
        let envs: Vec<String> = s
            .theta
            .iter()
            .enumerate()
            .map(|(t, env)| {
                let vals: Vec<String> = self.cfg.vars.iter().zip(env).map(|(x, (v, n))| format!("{x}={v}^{n}")).collect();
                format!("Θ(t{}) = {{{}}}", t + 1, vals.join(", "))
            })
            .collect();
        format!("[{}] {}", pcs.join(", "), envs.join("; "))
    }

    /// The instructions from σ_ent to an L-DRF state, as lines.
    fn local_path(&self, s: &LocalState) -> Vec<String> {
        self.path_lines(if self.partition.is_some() { "R-DRF path" } else { "L-DRF path" }, &path_to(&self.local.states, s))
    }

    fn path_lines(&self, what: &str, path: &[usize]) -> Vec<String> {
        let mut out = vec![format!("{what} ({} steps):", path.len())];
        for &e in path {
            let edge = &self.cfg.edges[e];
            out.push(format!("  t{} line {}: {}", self.cfg.owner[edge.src as usize] + 1, edge.line.0, edge.text));
        }
        out
    }

    fn c1(&self, bounds: &str) -> Item {
        let subject = "C1 Lemma 6: admissible states, one import, writer at max";
        if let Some((e, s)) = self.local.writer_not_max.first() {
            let mut ex = vec![format!("line {}: a write by a thread not holding the newest version, from {}", self.cfg.edges[*e].line.0, self.local_state(s))];
            ex.extend(self.local_path(s));
            return item(subject, Some(ex), bounds);
        }
        if let Some((e, s)) = self.local.ambiguous_acquires.first() {
            let mut ex = vec![format!("line {}: the acquire's import is not unique (newest copies disagree), from {}", self.cfg.edges[*e].line.0, self.local_state(s))];
            ex.extend(self.local_path(s));
            return item(subject, Some(ex), bounds);
        }
        for s in sorted(self.local.states.keys()) {
            if let Some(x) = inadmissible(s) {
                let mut ex = vec![format!("inadmissible: two copies of `{}` share a version but not a value in {}", self.cfg.vars[x], self.local_state(s))];
                ex.extend(self.local_path(s));
                return item(subject, Some(ex), bounds);
            }
            if let Some(r) = self.partition.and_then(|q| region_split(s, q).map(|r| &q[r])) {
                let mut ex = vec![format!("region {} splits: a copy gives its variables different versions in {}", self.cfg.region_name(r), self.local_state(s))];
                ex.extend(self.local_path(s));
                return item(subject, Some(ex), bounds);
            }
        }
        item(subject, None, bounds)
    }

    fn c2(&self, bounds: &str) -> Item {
        let subject = "C2 χ(Reach_LDRF) = Reach_STD (Thms 7, 8)";
        let chi: BTreeMap<StdState, &LocalState> = sorted(self.local.states.keys()).into_iter().rev().map(|s| (self.engine.extract(s), s)).collect();
        for s in sorted(self.std.states.keys()) {
            if !chi.contains_key(s) {
                let mut ex = vec![format!("missing (Thm 7): the standard state {} is no χ-image of an L-DRF state", self.std_state(s))];
                ex.extend(self.path_lines("standard path", &path_to(&self.std.states, s)));
                return item(subject, Some(ex), bounds);
            }
        }
        for (image, s) in &chi {
            if !self.std.states.contains_key(image) {
                let mut ex = vec![format!("extra (Thm 8): χ({}) = {} is not a standard state", self.local_state(s), self.std_state(image))];
                ex.extend(self.local_path(s));
                return item(subject, Some(ex), bounds);
            }
        }
        item(subject, None, bounds)
    }

    fn c3(&self, bounds: &str) -> Item {
        let subject = "C3 local exactness at relevant variables";
        for s in sorted(self.local.states.keys()) {
            let chi = self.engine.extract(s);
            for (t, &n) in s.pc.iter().enumerate() {
                for &x in &self.rel.acc[n as usize] {
                    let xi = usize::from(x);
                    if s.theta[t][xi].0 != chi.env[xi] {
                        let mut ex = vec![format!(
                            "thread t{} at {} reads `{}` = {} from its copy, but χ says {} in {}",
                            t + 1,
                            self.cfg.node_name(n),
                            self.cfg.vars[xi],
                            s.theta[t][xi].0,
                            chi.env[xi],
                            self.local_state(s)
                        )];
                        ex.extend(self.local_path(s));
                        return item(subject, Some(ex), bounds);
                    }
                }
            }
        }
        item(subject, None, bounds)
    }

    fn c4(&self, bounds: &str) -> Item {
        let subject = "C4 relevant-point equality (the most precise sync-CFG analysis)";
        let (acc, truth) = (&self.rel.acc, &self.rel.truth);
        let mut local: BTreeMap<Node, BTreeSet<Vec<i64>>> = BTreeMap::new();
        for s in self.local.states.keys() {
            for (t, &n) in s.pc.iter().enumerate() {
                local.entry(n).or_default().insert(acc[n as usize].iter().map(|&x| s.theta[t][usize::from(x)].0).collect());
            }
        }
        for n in truth.keys().chain(local.keys()).collect::<BTreeSet<_>>() {
            let (a, b) = (truth.get(n).cloned().unwrap_or_default(), local.get(n).cloned().unwrap_or_default());
            if a != b {
                let vars: Vec<&str> = acc[*n as usize].iter().map(|&x| self.cfg.vars[usize::from(x)].as_str()).collect();
                let show = |set: &BTreeSet<Vec<i64>>| if set.is_empty() { "none".to_string() } else { set.iter().map(|v| format!("{v:?}")).collect::<Vec<_>>().join(" ") };
                return item(
                    subject,
                    Some(vec![
                        format!("at {} over ({}):", self.cfg.node_name(*n), vars.join(", ")),
                        format!("  standard: {}", show(&a)),
                        format!("  L-DRF:    {}", show(&b)),
                        format!("  missing: {}; extra: {}", show(&a.difference(&b).cloned().collect()), show(&b.difference(&a).cloned().collect())),
                    ]),
                    bounds,
                );
            }
        }
        item(subject, None, bounds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig1() -> Cfg {
        let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/paper/ldrf/fig1_sync_cfg.race")).expect("the corpus file");
        Cfg::of(&crate::lang::parse(&src).expect("parses"), MODULUS)
    }

    /// C6's mutation control (spec §6.3 C6, A15): on Fig. 1, G refined to the observed pairs
    /// keeps C1-C4; dropping the real pair 7→10 keeps C2 (χ) but breaks C3 at line 11,
    /// where t2 then sees only (0, 0).
    #[test]
    fn dropping_an_observed_sw_pair_breaks_c3_not_c2() {
        let cfg = fig1();
        let b = Config::default();
        let std = reach(&cfg, &b);
        let (pairs, cut) = observed_sw(&cfg, &b);
        assert!(cut.is_none());
        let names: Vec<String> = pairs.iter().map(|&(r, a)| format!("{}→{}", cfg.node_name(r), cfg.node_name(a))).collect();
        assert_eq!(names, ["t1@end→t2@16", "t2@end→t1@6"], "spec §8 R1: observed 7→10 and 13→1");
        let judge = |pairs: BTreeSet<(Node, Node)>| {
            let engine = Ldrf::new(&cfg, Sync::Pairs(pairs));
            let local = engine.reach(&b);
            let j = Judge { cfg: &cfg, engine: &engine, std: &std, rel: &Relevant::of(&cfg, &std), local: &local, partition: None };
            j.c1_to_c4("").into_iter().map(|i| i.status).collect::<Vec<_>>()
        };
        assert!(judge(pairs.clone()).iter().all(|&s| s == ItemStatus::Holds));
        let t1_end = pairs.iter().find(|&&(r, _)| cfg.owner[r as usize] == 0).copied().expect("7→10");
        let dropped: BTreeSet<_> = pairs.into_iter().filter(|&p| p != t1_end).collect();
        assert_eq!(judge(dropped), [ItemStatus::Holds, ItemStatus::Holds, ItemStatus::Violated, ItemStatus::Violated]);
    }

    /// R7 through the oracle: C10 on `x := 1 ∥ y := 1` with region {x, y} holds (the fixed
    /// reduction finds the region race); the literal one would not (`reduction`'s tests).
    #[test]
    fn c10_on_r7() {
        let p = crate::lang::parse("dialect ldrf\nregions { x, y }\nthread {\nx = 1\n}\nthread {\ny = 1\n}\n").expect("parses");
        let cfg = Cfg::of(&p, MODULUS);
        let std = reach(&cfg, &Config::default());
        let i = c10(&cfg, &std, &Config::default());
        assert_eq!(i.status, ItemStatus::Holds);
        assert_eq!(i.explanation, ["holds (regions {x, y}: lines 4/7 on {x, y})"]);
    }
}
