//! The judgements C1-C4 and C7 of `ldrf-agree` (docs/spec/ldrf.md §6.3) against one engine's
//! reachable states: Lemma 6's admissibility (C1), χ(Reach_LDRF) = Reach_STD (C2, Thms 7
//! and 8), local exactness (C3), relevant-point equality (C4) and Thm 10 against L-DRF
//! (C7). [`Judge`] runs them for L-DRF and, again, for each of C5's partitions and C6's G;
//! counterexamples name the state and the path to it, in a deterministic order.

use std::collections::{BTreeMap, BTreeSet};

use crate::ldrf::cart::Cart;
use crate::ldrf::cfg::{Cfg, Edge, Node, Var};
use crate::ldrf::local::{inadmissible, region_split, Ldrf, LocalReach, LocalState, VEnv};
use crate::ldrf::standard::{path_to, Reach, StdState};
use crate::theorems::result::{Item, ItemStatus};

/// What every C3/C4 judgement reads of the program and of the standard semantics, computed
/// once per program (C1-C4 run again for each C5 partition and for C6): Acc(n) per location,
/// and per location the standard states' values on it.
pub(super) struct Relevant {
    /// Acc(n), per location n.
    acc: Vec<Vec<Var>>,
    /// Per location, the standard states' values on Acc(n).
    truth: BTreeMap<Node, BTreeSet<Vec<i64>>>,
}

impl Relevant {
    /// Acc(n) and the standard values on it, for every location of `cfg`.
    pub(super) fn of(cfg: &Cfg, std: &Reach) -> Relevant {
        let acc: Vec<Vec<Var>> = (0..cfg.owner.len()).map(|n| cfg.relevant(crate::ldrf::cfg::Node::new(n))).collect();
        let mut truth: BTreeMap<Node, BTreeSet<Vec<i64>>> = BTreeMap::new();
        for s in std.states.keys() {
            for &n in &s.pc {
                truth.entry(n).or_default().insert(acc[n.index()].iter().map(|&x| s.env[x.index()]).collect());
            }
        }
        Relevant { acc, truth }
    }
}

/// One engine's reachable states, judged against the standard ones.
pub(super) struct Judge<'a, 'c> {
    /// The sync-CFG of the program.
    pub(super) cfg: &'a Cfg,
    /// The thread-local engine (L-DRF, or R-DRF with a partition).
    pub(super) engine: &'a Ldrf<'c>,
    /// E-STD's reachable states.
    pub(super) std: &'a Reach,
    /// What C3 and C4 read of the standard semantics.
    pub(super) rel: &'a Relevant,
    /// The engine's reachable states.
    pub(super) local: &'a LocalReach,
    /// E-RDRF's partition, whose region form of Lemma 6 C1 also checks.
    pub(super) partition: Option<&'a [Vec<Var>]>,
}

/// Whose copy C7 checks: a thread's Θ(t) or the buffer Λ(n̄) of a post-release point.
enum Holder {
    Thread(usize),
    Buffer(Node),
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
    /// C1, C2, C3 and C4, in that order.
    pub(super) fn c1_to_c4(&self, bounds: &str) -> Vec<Item> {
        vec![self.c1(bounds), self.c2(bounds), self.c3(bounds), self.c4(bounds)]
    }

    /// C7 (Thm 10, checked against L-DRF, stronger than against STD): the *full* copies.
    pub(super) fn c7(&self, a: &Cart, subject: &str) -> Item {
        let values = |env: &VEnv| env.iter().map(|c| c.0).collect::<Vec<i64>>();
        let points = self.cfg.all_release_points();
        for s in sorted(self.local.states.keys()) {
            // Who holds the copy, named only for a counterexample.
            let threads = s.theta.iter().enumerate().map(|(t, env)| (Holder::Thread(t), s.pc[t], env));
            let buffers = s.lambda.iter().zip(&points).flat_map(|(b, &n)| b.iter().map(move |env| (Holder::Buffer(n), n, env)));
            for (holder, n, env) in threads.chain(buffers) {
                let v = values(env);
                if !a.contains(n, &v) {
                    let who = match holder {
                        Holder::Thread(t) => format!("Θ(t{})", t + 1),
                        Holder::Buffer(b) => format!("Λ({})", self.cfg.node_name(b)),
                    };
                    let shown: Vec<String> = self.cfg.vars.iter().zip(&v).map(|(x, v)| format!("{x}={v}")).collect();
                    let mut ex = vec![format!(
                        "{who} = {{{}}} is not in ⟦P⟧×({}) ({} environments there), in {}",
                        shown.join(", "),
                        self.cfg.node_name(n),
                        a.at[n.index()].len(),
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
        let env: Vec<String> = self.cfg.vars.iter().zip(s.env.iter()).map(|(x, v)| format!("{x}={v}")).collect();
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

    fn path_lines(&self, what: &str, path: &[Edge]) -> Vec<String> {
        let mut out = vec![format!("{what} ({} steps):", path.len())];
        for &e in path {
            let edge = self.cfg.edge(e);
            out.push(format!("  t{} line {}: {}", self.cfg.owner[edge.src.index()] + 1, edge.line.0, edge.text));
        }
        out
    }

    fn c1(&self, bounds: &str) -> Item {
        let subject = "C1 Lemma 6: admissible states, one import, writer at max";
        if let Some((e, s)) = self.local.writer_not_max.first() {
            let mut ex = vec![format!("line {}: a write by a thread not holding the newest version, from {}", self.cfg.edge(*e).line.0, self.local_state(s))];
            ex.extend(self.local_path(s));
            return item(subject, Some(ex), bounds);
        }
        if let Some((e, s)) = self.local.ambiguous_acquires.first() {
            let mut ex = vec![format!("line {}: the acquire's import is not unique (newest copies disagree), from {}", self.cfg.edge(*e).line.0, self.local_state(s))];
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
                for &x in &self.rel.acc[n.index()] {
                    let xi = x.index();
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
                local.entry(n).or_default().insert(acc[n.index()].iter().map(|&x| s.theta[t][x.index()].0).collect());
            }
        }
        for n in truth.keys().chain(local.keys()).collect::<BTreeSet<_>>() {
            let (a, b) = (truth.get(n).cloned().unwrap_or_default(), local.get(n).cloned().unwrap_or_default());
            if a != b {
                let vars: Vec<&str> = acc[n.index()].iter().map(|&x| self.cfg.vars[x.index()].as_str()).collect();
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
