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
//!
//! The theorems assume race freedom (A2): E-STD classifies the program first, and a racy one
//! is inconclusive here (it belongs to the negative controls, C9). Both searches are
//! exhaustive over a finite state space, so a pass has no bound but K and the state budget.
//! The system under test is the L-DRF semantics itself, with or without a seeded bug
//! ([`LdrfBug`]).

use std::collections::{BTreeMap, BTreeSet};

use super::registry::{Budget, Oracle, Sut, SutKind};
use super::result::{Item, ItemStatus, OracleResult};
use crate::gen;
use crate::lang::{Dialect, Program};
use crate::ldrf::cfg::{Cfg, Ix, Node};
#[cfg(doc)]
use crate::ldrf::local::LdrfBug;
use crate::ldrf::local::{inadmissible, Ldrf, LocalReach, LocalState, Sync};
use crate::ldrf::standard::{path_to, reach, Reach, StdState};

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
    if let (Some(&(e1, e2, x)), false) = (std.races.iter().next(), o.negative_control) {
        let (l1, l2) = (cfg.edges[e1].line.0, cfg.edges[e2].line.0);
        return inconclusive(format!("precondition unmet: the program races on `{}` (lines {l1} and {l2}); the theorems assume race freedom (A2)", cfg.vars[usize::from(x)]));
    }
    let engine = Ldrf::new(&cfg, Sync::Full).with_bug(*bug);
    let local = engine.reach(&b.explore);
    if let Some(cut) = &local.cut {
        return inconclusive(cut.clone());
    }
    let j = Judge { cfg: &cfg, engine: &engine, std: &std, local: &local };
    let bounds = format!("values mod {MODULUS}; {} standard states, {} L-DRF states", std.states.len(), local.states.len());
    let items = vec![j.c1(&bounds), j.c2(&bounds), j.c3(&bounds), j.c4(&bounds)];
    let mut r = OracleResult::from_items(o.id, name, o.item_kind, items, None);
    r.context = vec![bounds];
    r
}

struct Judge<'a, 'c> {
    cfg: &'a Cfg,
    engine: &'a Ldrf<'c>,
    std: &'a Reach,
    local: &'a LocalReach,
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
        self.path_lines("L-DRF path", &path_to(&self.local.states, s))
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
                for x in self.cfg.relevant(n) {
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
        let project = |env: &dyn Fn(Ix) -> i64, n: Node| -> Vec<i64> { self.cfg.relevant(n).into_iter().map(env).collect() };
        let mut truth: BTreeMap<Node, BTreeSet<Vec<i64>>> = BTreeMap::new();
        for s in self.std.states.keys() {
            for &n in &s.pc {
                truth.entry(n).or_default().insert(project(&|x| s.env[usize::from(x)], n));
            }
        }
        let mut local: BTreeMap<Node, BTreeSet<Vec<i64>>> = BTreeMap::new();
        for s in self.local.states.keys() {
            for (t, &n) in s.pc.iter().enumerate() {
                local.entry(n).or_default().insert(project(&|x| s.theta[t][usize::from(x)].0, n));
            }
        }
        for n in truth.keys().chain(local.keys()).collect::<BTreeSet<_>>() {
            let (a, b) = (truth.get(n).cloned().unwrap_or_default(), local.get(n).cloned().unwrap_or_default());
            if a != b {
                let vars: Vec<&str> = self.cfg.relevant(*n).into_iter().map(|x| self.cfg.vars[usize::from(x)].as_str()).collect();
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
