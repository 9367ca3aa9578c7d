//! `ldrf-sound` (docs/spec/ldrf.md §5, §6.3 C8, C9, C12): analyses over the sync-CFG
//! are sound at relevant points of race-free programs. Judged against E-STD
//! ([`crate::ldrf::standard`]), values mod K = [`MODULUS`], one item per domain:
//!
//! | claim | where | counterexample |
//! |---|---|---|
//! | C8: γ(A(n))\|Acc(n) ⊇ {φ\|Acc(n) : s ∈ Reach_STD, pc(tid n) = n} | every location n, on Acc(n) only | the `missing` tuple, the thread, n, Acc(n), the claimed fact, a standard trace to a state with that tuple (§6.5) |
//! | C8: a proved assert never fails | every assert the domain claims proved | the assert, the claimed fact, a standard trace to a failing state |
//! | C12: interval ⊑ value-set ⊑ region on proved asserts | reported in the context, never failed on | |
//!
//! Which facts are judged follows the domain's [`Mix`]: a per-variable mix always (the
//! program is race free), a region mix only when the program is region-race-free under its
//! partition (Def. 12 via [`region_races`]; otherwise the item says it is not applicable and
//! names the region race), the naive union never. Irrelevant points and variables are not
//! judged: a sync-CFG analysis promises nothing there (C9: at Fig. 1's line 9 every
//! analysis claims x = y = 0 while the truth has (1, 0)).
//!
//! E-STD classifies the program first: a racy program is inconclusive (A2), and so is a
//! search cut by its budget. The state space is finite (mod K), so a pass is exhaustive.
//!
//! Three negative controls (C9), each judged on race-free programs and each expected to fail
//! somewhere the fuzzer must find on its own:
//! - [`NAIVE`] (`ldrf-sound-naive`): the naive union judged like a sound mix (R5);
//! - [`REGION_RACY`] (`ldrf-sound-region-racy`): the region mix judged even when the
//!   partition has a region race (R5 with `regions { x, y }`);
//! - [`EVERYWHERE`] (`ldrf-sound-everywhere`): facts judged at every location on every
//!   variable (Fig. 1, line 9): why C8 must not look at irrelevant points.

use std::collections::{BTreeMap, BTreeSet};

use super::ldrf_agree::MODULUS;
use super::result::{Item, ItemStatus, OracleResult};
use super::sync_cfg::{Facts, Mix};
use super::{Budget, Oracle, Reads, Sut, SutKind};
use crate::gen;
use crate::lang::{Dialect, Program};
use crate::ldrf::cfg::{complete, Cfg, Cmd, Edge, Node, Var};
use crate::ldrf::standard::{path_to, reach, region_races, Reach, StdState};

/// `ldrf-sound`.
pub const ORACLE: Oracle = Oracle {
    id: "ldrf-sound",
    claim: "on race-free programs, sync-CFG analyses (value-set, interval, region mix on region-race-free partitions) over-approximate the standard semantics at relevant points, and every assert they prove holds (C8)",
    spec: "spec/ldrf.md §5, §6.3 C8, C12",
    dialect: Dialect::Ldrf,
    sut: SutKind::SyncCfg,
    item_kind: "domain",
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

/// `ldrf-sound-naive`, a negative control (C9, false: R5).
pub const NAIVE: Oracle = Oracle {
    id: "ldrf-sound-naive",
    claim: "NEGATIVE CONTROL (false, R5): a fully relational analysis that joins whole environments at acquires is sound at relevant points of race-free programs (C9)",
    spec: "spec/ldrf.md §5.2, §6.3 C9, §8 R5",
    negative_control: true,
    check: check_naive,
    ..ORACLE
};

/// `ldrf-sound-region-racy`, a negative control (C9, false: R5 with `regions { x, y }`).
pub const REGION_RACY: Oracle = Oracle {
    id: "ldrf-sound-region-racy",
    claim: "NEGATIVE CONTROL (false, R5 with regions {x, y}): the region mix is sound even when the partition has a region race (C9)",
    spec: "spec/ldrf.md §3, §5.2, §6.3 C9, §8 R5",
    negative_control: true,
    check: check_region_racy,
    ..ORACLE
};

/// `ldrf-sound-everywhere`, a negative control (C9, false: Fig. 1 line 9).
pub const EVERYWHERE: Oracle = Oracle {
    id: "ldrf-sound-everywhere",
    claim: "NEGATIVE CONTROL (false, Fig. 1 line 9): sync-CFG facts hold at every location on every variable, irrelevant ones included (C9)",
    spec: "spec/ldrf.md §2 (relevant point), §6.3 C9, §8 R1",
    negative_control: true,
    check: check_everywhere,
    ..ORACLE
};

/// Which claims an oracle of this module judges, and where.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// C8: sound mixes, relevant points.
    Sound,
    /// The naive union, relevant points.
    Naive,
    /// Region mixes whatever their partition, relevant points.
    RegionRacy,
    /// Sound mixes, every location, every variable.
    Everywhere,
}

fn check(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    run(&ORACLE, Mode::Sound, p, sut, b)
}

fn check_naive(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    run(&NAIVE, Mode::Naive, p, sut, b)
}

fn check_region_racy(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    run(&REGION_RACY, Mode::RegionRacy, p, sut, b)
}

fn check_everywhere(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    run(&EVERYWHERE, Mode::Everywhere, p, sut, b)
}

/// Whether a domain's facts are judged under a mode.
enum Judged {
    Yes,
    /// Not judged, with the item's explanation.
    No(String),
    /// Not judged and not listed.
    Hidden,
}

fn run(o: &Oracle, mode: Mode, p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::SyncCfg(analyses) = sut else { return o.wrong_sut(sut) };
    let name = format!("sync-CFG [{}]", analyses.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "));
    let inconclusive = |note: String| OracleResult::inconclusive(o.id, name.clone(), o.item_kind, note);
    if let Some(note) = o.unmet(p, b.relax) {
        return inconclusive(note);
    }
    let cfg = Cfg::of(p, MODULUS);
    let std = reach(&cfg, &b.explore);
    if let Some(cut) = std.cut.clone().or_else(|| b.cut_short(true, 0)) {
        return inconclusive(cut);
    }
    if let Some(&(e1, e2, x)) = std.races.iter().next() {
        let (l1, l2) = (cfg.edge(e1).line.0, cfg.edge(e2).line.0);
        return inconclusive(format!(
            "precondition unmet: the program races on `{}` (lines {l1} and {l2}); the sync-CFG analyses are claimed sound for race-free programs only (A2)",
            cfg.vars[x.index()]
        ));
    }
    let j = Judge { cfg: &cfg, std: &std, truth: truth(&cfg, &std, mode == Mode::Everywhere) };
    let bounds = format!("values mod {MODULUS}; {} standard states", std.states.len());
    let (mut items, mut proofs, mut skipped) = (vec![], vec![], vec![]);
    for a in analyses.iter() {
        let f = a.analyze(&cfg);
        let subject = format!("C8 {} ({})", a.name(), mix_name(&cfg, &f.mix));
        match j.judged(mode, &f.mix) {
            Judged::Yes => {
                items.push(j.judge(&subject, &f, &bounds));
                proofs.push((a.name(), f.proved.clone()));
            }
            // Not an item: nothing was judged, so nothing may count as holding.
            Judged::No(why) => skipped.push(format!("{subject}: {why}")),
            Judged::Hidden => {}
        }
    }
    let note = items.is_empty().then(|| format!("no domain of this SUT is judged here by {}{}", o.id, skipped.iter().map(|w| format!("; {w}")).collect::<String>()));
    let mut r = OracleResult::from_items(o.id, name, o.item_kind, items, note);
    r.context = [vec![bounds, j.c12(&proofs)], skipped].concat();
    r
}

fn mix_name(cfg: &Cfg, m: &Mix) -> String {
    match m {
        Mix::Var => "per-variable mix".into(),
        Mix::Region(part) => match cfg.partition_name(part) {
            Some(regions) => format!("region mix, regions {regions}"),
            None => "region mix, singleton regions".into(),
        },
        Mix::Naive => "naive union".into(),
    }
}

/// The truth per location: its judged variables (Acc(n), or all), and each projection of
/// a reachable state with its thread at n, with the first such state in sorted order (the
/// witness).
type Truth = BTreeMap<Node, (Vec<Var>, BTreeMap<Vec<i64>, StdState>)>;

fn truth(cfg: &Cfg, std: &Reach, everywhere: bool) -> Truth {
    let all: Vec<Var> = (0..cfg.vars.len()).map(crate::ldrf::cfg::Var::new).collect();
    let mut states: Vec<&StdState> = std.states.keys().collect();
    states.sort();
    let mut out = Truth::new();
    for s in states {
        for &n in &s.pc {
            let (vars, tuples) = out.entry(n).or_insert_with(|| (if everywhere { all.clone() } else { cfg.relevant(n) }, BTreeMap::new()));
            let tuple: Vec<i64> = vars.iter().map(|&x| s.env[x.index()]).collect();
            tuples.entry(tuple).or_insert_with(|| s.clone());
        }
    }
    out
}

struct Judge<'a> {
    cfg: &'a Cfg,
    std: &'a Reach,
    truth: Truth,
}

impl Judge<'_> {
    fn judged(&self, mode: Mode, mix: &Mix) -> Judged {
        match (mode, mix) {
            (Mode::Sound | Mode::Everywhere, Mix::Var) | (Mode::Naive, Mix::Naive) | (Mode::RegionRacy, Mix::Region(_)) => Judged::Yes,
            (Mode::Sound | Mode::Everywhere, Mix::Region(part)) => {
                // Variables the partition leaves out are regions of their own (`Mix::Region`).
                let full = complete(part.clone(), self.cfg.vars.len());
                match region_races(self.cfg, self.std, &full).into_iter().next() {
                    None => Judged::Yes,
                    Some((e1, e2, r)) => Judged::No(format!(
                        "not applicable: the partition has a region race on {} (lines {} and {}); the region mix is claimed sound only for region-race-free programs (§3, C8)",
                        self.cfg.region_name(&full[r]),
                        self.cfg.edge(e1).line.0,
                        self.cfg.edge(e2).line.0
                    )),
                }
            }
            (Mode::Sound, Mix::Naive) => Judged::No("not judged: the naive union is claimed sound by no theorem (§5.2); the negative control ldrf-sound-naive judges it".into()),
            _ => Judged::Hidden,
        }
    }

    fn path(&self, s: &StdState) -> Vec<String> {
        let path = path_to(&self.std.states, s);
        let mut out = vec![format!("standard trace ({} steps):", path.len())];
        for e in path {
            let edge = self.cfg.edge(e);
            out.push(format!("  t{} line {}: {}", self.cfg.owner[edge.src.index()] + 1, edge.line.0, edge.text));
        }
        out
    }

    fn names(&self, vars: &[Var]) -> String {
        vars.iter().map(|&x| self.cfg.vars[x.index()].as_str()).collect::<Vec<_>>().join(", ")
    }

    /// One domain's facts against the truth: the first missing tuple, else the first proved
    /// assert that fails.
    fn judge(&self, subject: &str, f: &Facts, bounds: &str) -> Item {
        let violated = |explanation: Vec<String>| Item { subject: subject.into(), status: ItemStatus::Violated, explanation, witness: None };
        if let Some(bad) = f.malformed(self.cfg) {
            return violated(vec![format!("malformed facts: {bad}")]);
        }
        let mut tuples = 0;
        for (&n, (vars, seen)) in &self.truth {
            for (tuple, s) in seen {
                tuples += 1;
                if f.covers(n, vars, tuple) {
                    continue;
                }
                let t = self.cfg.owner[n.index()] + 1;
                let values: Vec<String> = vars.iter().zip(tuple).map(|(&x, v)| format!("{}={v}", self.cfg.vars[x.index()])).collect();
                let mut ex = vec![
                    format!(
                        "missing: thread t{t} at {} (location {n}), Acc = ({}): the standard semantics reaches ({})",
                        self.cfg.node_name(n),
                        self.names(vars),
                        values.join(", ")
                    ),
                    format!("claimed: {}", f.show(self.cfg, n, vars)),
                ];
                ex.extend(self.path(s));
                return violated(ex);
            }
        }
        for &e in &f.proved {
            if !self.std.failed_asserts.contains(&e) {
                continue;
            }
            let edge = self.cfg.edge(e);
            let mut ex = vec![
                format!("assert at line {} (`{}`) is claimed proved, but it fails in the standard semantics", edge.line.0, edge.text),
                format!("claimed at {}: {}", self.cfg.node_name(edge.src), f.show(self.cfg, edge.src, &self.cfg.relevant(edge.src))),
            ];
            if let Some(s) = self.failing_state(e) {
                ex.extend(self.path(s));
            }
            return violated(ex);
        }
        let lines: Vec<String> = f.proved.iter().map(|&e| self.cfg.edge(e).line.0.to_string()).collect();
        let proves = match lines.as_slice() {
            [] => "proves no assert".to_string(),
            [one] => format!("proves the assert at line {one}"),
            _ => format!("proves the asserts at lines {}", lines.join(", ")),
        };
        Item {
            subject: subject.into(),
            status: ItemStatus::Holds,
            explanation: vec![format!("sound at {} locations, {tuples} standard tuples; {proves} ({bounds})", self.truth.len())],
            witness: None,
        }
    }

    /// The first state (in sorted order) in which the assert `e` fails.
    fn failing_state(&self, e: Edge) -> Option<&StdState> {
        let edge = self.cfg.edge(e);
        let Cmd::Assert(b) = &edge.cmd else { return None };
        let mut states: Vec<&StdState> = self.std.states.keys().filter(|s| s.pc.contains(&edge.src) && !self.cfg.holds(b, &|x| s.env[x.index()])).collect();
        states.sort();
        states.first().copied()
    }

    /// C12 (heuristic): each judged domain, in the SUT's order, proves every assert the ones
    /// before it prove. Reported, never failed on.
    fn c12(&self, proofs: &[(String, BTreeSet<Edge>)]) -> String {
        let show = |p: &BTreeSet<Edge>| format!("{{{}}}", p.iter().map(|&e| self.cfg.edge(e).line.0.to_string()).collect::<Vec<_>>().join(", "));
        let chain: Vec<String> = proofs.iter().map(|(n, p)| format!("{n} {}", show(p))).collect();
        let broken = proofs.windows(2).find_map(|w| {
            let lost: BTreeSet<Edge> = w[0].1.difference(&w[1].1).copied().collect();
            (!lost.is_empty()).then(|| format!("not monotone: {} proves lines {} that {} does not", w[0].0, show(&lost), w[1].0))
        });
        format!("C12 proved asserts (lines): {}; {}", chain.join(" ⊑ "), broken.unwrap_or_else(|| "monotone".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::Config;
    use crate::lang::parse;
    use crate::theorems::sync_cfg::{Block, Notation, SyncCfgAnalysis};
    use crate::theorems::Verdict;

    /// An analysis that claims ⊤ (every value) everywhere, or ⊥ everywhere, and proves
    /// every assert.
    struct Fixed {
        top: bool,
        mix: Mix,
    }

    impl SyncCfgAnalysis for Fixed {
        fn name(&self) -> String {
            "fixed".into()
        }
        fn analyze(&self, cfg: &Cfg) -> Facts {
            let top: Vec<Block> = (0..cfg.vars.len()).map(|x| Block { vars: vec![Var::try_from(x).unwrap()], tuples: (0..cfg.modulus).map(|v| vec![v]).collect() }).collect();
            let proved = cfg.edge_ids().filter(|&e| matches!(cfg.edge(e).cmd, Cmd::Assert(_))).collect();
            Facts { domain: "fixed".into(), mix: self.mix.clone(), notation: Notation::Sets, at: vec![self.top.then(|| top.clone()); cfg.owner.len()], proved }
        }
    }

    fn judge(src: &str, a: Fixed, b: &Budget) -> OracleResult {
        let analyses: Vec<Box<dyn SyncCfgAnalysis>> = vec![Box::new(a)];
        ORACLE.check(&parse(src).unwrap(), &Sut::SyncCfg(&analyses), b)
    }

    const NONDET: &str = "dialect ldrf\nthread {\nx = nondet{0..1}\nassert x == 0\n}\n";

    #[test]
    fn a_proved_assert_that_fails_is_a_violation_with_a_trace() {
        let r = judge(NONDET, Fixed { top: true, mix: Mix::Var }, &Budget::default());
        assert_eq!(r.verdict, Verdict::Fail);
        let ex = r.items[0].explanation.join("\n");
        assert!(ex.starts_with("assert at line 4 (`assert x == 0`) is claimed proved, but it fails in the standard semantics"), "{ex}");
        assert!(ex.ends_with("standard trace (1 steps):\n  t1 line 3: x = nondet{0..1}"), "{ex}");
    }

    #[test]
    fn an_unreachable_claim_at_a_reached_location_is_missing() {
        let r = judge(NONDET, Fixed { top: false, mix: Mix::Var }, &Budget::default());
        assert_eq!(r.verdict, Verdict::Fail);
        assert!(r.items[0].explanation[0].starts_with("missing: thread t1 at t1@3 (location 0), Acc = (x): the standard semantics reaches (x=0)"), "{:?}", r.items[0].explanation);
        assert_eq!(r.items[0].explanation[1], "claimed: ⊥");
    }

    #[test]
    fn malformed_facts_cuts_and_racy_programs_are_never_a_pass() {
        struct Short;
        impl SyncCfgAnalysis for Short {
            fn name(&self) -> String {
                "short".into()
            }
            fn analyze(&self, _: &Cfg) -> Facts {
                Facts { domain: "short".into(), mix: Mix::Var, notation: Notation::Sets, at: vec![], proved: BTreeSet::new() }
            }
        }
        let analyses: Vec<Box<dyn SyncCfgAnalysis>> = vec![Box::new(Short)];
        let r = ORACLE.check(&parse(NONDET).unwrap(), &Sut::SyncCfg(&analyses), &Budget::default());
        assert_eq!(r.verdict, Verdict::Fail);
        assert!(r.items[0].explanation[0].starts_with("malformed facts: claims are given at 0 locations"));
        let tiny = Budget { explore: Config { max_states: 2, ..Config::default() }, ..Budget::default() };
        assert_eq!(judge(NONDET, Fixed { top: true, mix: Mix::Var }, &tiny).verdict, Verdict::Inconclusive);
        let racy = "dialect ldrf\nthread {\nx = 1\n}\nthread {\ny = x\n}\n";
        assert_eq!(judge(racy, Fixed { top: true, mix: Mix::Var }, &Budget::default()).verdict, Verdict::Inconclusive);
        assert_eq!(ORACLE.check(&parse(NONDET).unwrap(), &Sut::ThreadLocal(None), &Budget::default()).verdict, Verdict::Inconclusive);
    }

    /// The naive union is not judged by `ldrf-sound` (the context says so; with nothing else
    /// judged the result is inconclusive, never a vacuous pass) and is by its control.
    #[test]
    fn each_oracle_judges_its_mixes() {
        let r = judge(NONDET, Fixed { top: false, mix: Mix::Naive }, &Budget::default());
        assert_eq!(r.verdict, Verdict::Inconclusive);
        assert!(r.items.is_empty() && r.note.as_deref().is_some_and(|n| n.contains("not judged")));
        let analyses: Vec<Box<dyn SyncCfgAnalysis>> = vec![Box::new(Fixed { top: false, mix: Mix::Naive })];
        assert_eq!(NAIVE.check(&parse(NONDET).unwrap(), &Sut::SyncCfg(&analyses), &Budget::default()).verdict, Verdict::Fail);
        let r = REGION_RACY.check(&parse(NONDET).unwrap(), &Sut::SyncCfg(&analyses), &Budget::default());
        assert_eq!((r.items.len(), r.verdict), (0, Verdict::Inconclusive));
    }
}
