//! `naik-aiken-sound` (docs/spec/naik_aiken.md §3, §4.3 T1–T7): Naik and Aiken's
//! effect typing abstracts every reachable state of the threaded program, and no pair its
//! phase-2 stages prune has a concrete race. Judged against the instrumented semantics
//! ([`crate::instrumented`]) over every schedule and `*` choice within the loop bound:
//!
//! | item | claim | where it is checked |
//! |---|---|---|
//! | T1 | C ⪯ K (Cor 3.4, Fig. 7(b)), prefix and threaded form | each effect of each reachable state |
//! | T2 | `W ⊢ (π, ρ) ⪯ (Π, Γ)` (Lemma 3.3, Fig. 7(c) clauses 1, 2, 3a, 3b) | each thread of each reachable state, at its point |
//! | T3 | C⁺ ⪯ K⁺ (Lemma 4.3, the union over n of Cⁿ ⪯ Kⁿ) | each final state |
//! | T4 | h ∈ DR_K(H) ⇒ h ∈ DR_C(H) (Thm 4.4), H of one or two sites | each final state |
//! | T5–T7 | a pair pruned by local-lock, global-lock or local-thread has no concrete race (§5.1.2) | the races of every reachable state |
//! | P | precision: reported pairs with no race found (informative, never fails) | |
//!
//! C only grows along a run and every run ends in a final state (every thread done, blocked
//! or stuck), so T3 and T4 at final states cover every prefix (A15). The search is bounded
//! by the loop bound B only: *a race found is conclusive, a race not found is a pass within
//! B*; a search cut by its state budget is inconclusive. Π is λw.1 (A2 \[C\]), so clause 3a
//! fixes k = π(w), the thread's own counter. The loop counters are the analysis's declared
//! semantics ([`super::MustNotAliasAnalysis::counters`]): R10's shared counter is what a mutant
//! declares.
//!
//! [`UNLIKELY`] (`naik-aiken-unlikely`, T9) is a negative control: PLDI'06's "unlikely"
//! pairs (one thread context, or one singleton lock site) do race (R9), and the fuzzer must
//! find that on its own.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::ControlFlow;

use super::must_not_alias::{AbsEffect, AbsEnv, AbsSite, AbsType, Corr, Stage, Typing};
use super::result::{Item, ItemStatus, OracleResult};
use super::{Budget, Oracle, Reads, Sut, SutKind};
use crate::gen;
use crate::instrumented::code::{Code, Ix};
use crate::instrumented::disjoint_reachability as reach;
use crate::instrumented::search::{replay, search, Step};
use crate::instrumented::state::{Next, ObjId, Stamp, State, Val};
use crate::lang::labels::{unordered, AccessLabel, Labels};
use crate::lang::{Dialect, Program};

/// `naik-aiken-sound`.
pub const ORACLE: Oracle = Oracle {
    id: "naik-aiken-sound",
    claim: "the effect typing abstracts every reachable state (T1-T4) and no pair pruned by local-lock, global-lock or local-thread races (T5-T7)",
    spec: "spec/naik_aiken.md §3, §4.3 T1-T7",
    dialect: Dialect::NaikAiken,
    sut: SutKind::MustNotAlias,
    item_kind: "property",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[],
    scorecard: false,
    operational: None,
    generate: gen::naikaiken::swarm_naikaiken,
    grammar: &gen::naikaiken::GRAMMAR_NAIKAIKEN,
    check,
};

/// `naik-aiken-unlikely`, a negative control (T9: false, R9).
pub const UNLIKELY: Oracle = Oracle {
    id: "naik-aiken-unlikely",
    claim: "NEGATIVE CONTROL (false, R9): no pair PLDI'06 marks unlikely (one thread context, or one singleton lock site) races (T9)",
    spec: "spec/naik_aiken.md §2.5, §4.3 T9, §6 R9",
    negative_control: true,
    check: check_unlikely,
    ..ORACLE
};

/// What identifies a final state for T3 and T4: its effects and its objects' stamps.
type FinalKey = (Vec<(ObjId, ObjId)>, Vec<Stamp>);

/// What one search found, before it is judged.
#[derive(Default)]
struct Findings {
    /// The first path to a state where each label pair races.
    races: BTreeMap<(AccessLabel, AccessLabel), Vec<Step>>,
    /// The first counterexample to T1–T4, by item index, with the path to it.
    broken: [Option<(Vec<String>, Vec<Step>)>; 4],
}

/// The judge's view of one program: its code, labels, the analysis's result and the
/// search's findings.
struct Judge<'a, 'p> {
    labels: &'a Labels<'p>,
    code: &'a Code,
    typing: &'a Typing,
    /// Site indices of the DR_K facts, resolved once.
    facts: Vec<(Ix, BTreeSet<Ix>, String)>,
}

fn check(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    run(&ORACLE, p, sut, b)
}

fn check_unlikely(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    run(&UNLIKELY, p, sut, b)
}

fn run(o: &Oracle, p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::MustNotAlias(analysis) = sut else { return o.wrong_sut(sut) };
    let name = analysis.name();
    if let Some(note) = o.unmet(p, b.relax) {
        return OracleResult::inconclusive(o.id, name, o.item_kind, note);
    }
    let labels = Labels::of(p);
    let typing = match analysis.analyze(p, &labels) {
        Ok(t) => t,
        Err(e) => return OracleResult::inconclusive(o.id, name, o.item_kind, format!("the analysis declines the program: {e}")),
    };
    if let Some(bad) = malformed(&typing, &labels) {
        let item = Item { subject: "the analysis's result".into(), status: ItemStatus::Violated, explanation: vec![bad], witness: None };
        return OracleResult::from_items(o.id, name, o.item_kind, vec![item], None);
    }
    let code = Code::of(p, &labels);
    let facts = typing
        .disjoint
        .iter()
        .filter_map(|(h, hs)| {
            let site = |s: &String| labels.sites.iter().position(|x| x == s).and_then(|i| Ix::try_from(i).ok());
            let set: Option<BTreeSet<Ix>> = hs.iter().map(site).collect();
            Some((site(h)?, set?, format!("{h} ∈ DR_K({{{}}})", hs.iter().cloned().collect::<Vec<_>>().join(", "))))
        })
        .collect();
    let judge = Judge { labels: &labels, code: &code, typing: &typing, facts };
    let counters = analysis.counters();
    let mut f = Findings::default();
    let mut effects_seen: HashSet<(Stamp, Stamp)> = HashSet::new();
    // T3 and T4 depend on C and on each object's stamp only; object numbers are creation
    // order, which differs between interleavings, so the key has both.
    let mut finals_seen: HashSet<FinalKey> = HashSet::new();
    let only_races = o.id == UNLIKELY.id;
    let cov = search(&code, counters, &b.explore, &mut |s, path, is_final| {
        for pair in s.races(&code) {
            f.races.entry(pair).or_insert_with(|| path.to_vec());
        }
        if only_races {
            return ControlFlow::Continue(());
        }
        let mut note = |i: usize, lines: Option<Vec<String>>| {
            if let (None, Some(l)) = (&f.broken[i], lines) {
                f.broken[i] = Some((l, path.to_vec()));
            }
        };
        for &(a, c) in &s.effects {
            let key = (s.objs[a.index()].stamp.clone(), s.objs[c.index()].stamp.clone());
            if effects_seen.insert(key) {
                note(0, judge.effect_abstracted(s, (a, c), &typing.effects, "K"));
            }
        }
        note(1, judge.envs_abstracted(s));
        if is_final && finals_seen.insert((s.effects.clone(), s.objs.iter().map(|o| o.stamp.clone()).collect())) {
            let plus = reach::closure(s);
            note(2, plus.iter().find_map(|&e| judge.effect_abstracted(s, e, &typing.closure, "K⁺")));
            note(3, judge.disjointness(s, &plus));
        }
        ControlFlow::Continue(())
    });
    let bound = format!("loop bound {}, {} states, {} final", b.explore.loop_bound, cov.states, cov.finals);
    let cut = cov.cut.clone().or_else(|| b.cut_short(true, cov.states));
    let replayed = |path: &[Step]| -> Vec<String> {
        let mut lines = vec![format!("schedule ({} steps):", path.len())];
        match replay(&code, counters, b.explore.loop_bound, path) {
            Some((end, steps)) => {
                lines.extend(steps.into_iter().map(|l| format!("  {l}")));
                for t in 0..end.threads.len() {
                    if let Some(a) = end.next_access(&code, t) {
                        let verb = if a.kind == crate::lang::AccessKind::Write { "write" } else { "read" };
                        let field = code.fields.get(a.field.index()).map_or("?", String::as_str);
                        lines.push(format!(
                            "  then {} is about to {verb} {}.{field} (line {})",
                            end.threads[t].name,
                            end.obj_name(&code, a.obj),
                            code.lines[a.label.point.index()].0
                        ));
                    }
                }
            }
            None => lines.push("  racefuzz internal bug: the path does not replay".into()),
        }
        lines
    };
    let mut items = vec![];
    if only_races {
        let pairs: Vec<(AccessLabel, AccessLabel)> = typing.unlikely.iter().copied().map(unordered).collect();
        items.push(judge.pairs_item("T9 unlikely pairs (PLDI'06)", &pairs, &f, cut.as_deref(), &bound, &replayed, |_| String::new()));
    } else {
        let subjects = ["T1 C ⪯ K (Cor 3.4)", "T2 W ⊢ (π, ρ) ⪯ (Π, Γ) at every point (Lemma 3.3)", "T3 C⁺ ⪯ K⁺ (Lemma 4.3)", "T4 DR_K(H) ⇒ DR_C(H) (Thm 4.4)"];
        for (i, subject) in subjects.iter().enumerate() {
            items.push(match &f.broken[i] {
                Some((lines, path)) => {
                    let mut ex = lines.clone();
                    ex.extend(replayed(path));
                    Item { subject: (*subject).into(), status: ItemStatus::Violated, explanation: ex, witness: None }
                }
                None => within(subject, cut.as_deref(), &bound),
            });
        }
        for (stage, t) in [(Stage::LocalLock, "T5"), (Stage::GlobalLock, "T6"), (Stage::LocalThread, "T7")] {
            let pruned: Vec<_> = typing.pruned.iter().filter(|x| x.stage == stage).collect();
            let pairs: Vec<(AccessLabel, AccessLabel)> = pruned.iter().map(|x| unordered(x.pair)).collect();
            let why = |pair: (AccessLabel, AccessLabel)| pruned.iter().find(|x| unordered(x.pair) == pair).map_or(String::new(), |x| x.why.clone());
            items.push(judge.pairs_item(&format!("{t} pruned by {}", stage.name()), &pairs, &f, cut.as_deref(), &bound, &replayed, why));
        }
        items.push(judge.precision(&f, cut.is_some()));
    }
    let mut r = OracleResult::from_items(o.id, name, o.item_kind, items, cut.map(|c| format!("inconclusive: {c}")));
    r.context = vec![format!("bounds: {bound}")];
    r
}

/// An item that held within the bounds, or is unknown because the search was cut.
fn within(subject: &str, cut: Option<&str>, bound: &str) -> Item {
    let (status, why) = match cut {
        Some(c) => (ItemStatus::Unknown, format!("no counterexample before the search stopped: {c}")),
        None => (ItemStatus::Holds, format!("holds on every reachable state ({bound})")),
    };
    Item { subject: subject.into(), status, explanation: vec![why], witness: None }
}

/// Why a result does not fit the program (an analysis bug the judge cannot read past).
fn malformed(t: &Typing, l: &Labels<'_>) -> Option<String> {
    if t.envs.len() != l.points.len() {
        return Some(format!("Γ is given at {} points; the program has {}", t.envs.len(), l.points.len()));
    }
    let types = t.envs.iter().flat_map(|e| e.values()).chain(t.effects.iter().chain(&t.closure).flat_map(|(a, b)| [a, b]));
    for ty in types {
        if ty.pi.len() != l.loops.len() {
            return Some(format!("type {ty} has {} loop entries; the program has {} loops", ty.pi.len(), l.loops.len()));
        }
    }
    None
}

impl Judge<'_, '_> {
    fn stamp_name(&self, s: &State, o: ObjId) -> String {
        s.obj_name(self.code, o)
    }

    /// ō ⪯ τ̄ (Fig. 7(a)).
    fn obj_le(&self, st: &Stamp, ty: &AbsType) -> bool {
        let site_ok = match &ty.site {
            AbsSite::Top => true,
            AbsSite::Site(h) => self.code.sites.get(st.site.index()) == Some(h),
        };
        site_ok
            && st.pi.iter().zip(&ty.pi).all(|(&n, c)| match c {
                Corr::Zero => n == 0,
                Corr::One => n > 0,
                Corr::Top => true,
            })
    }

    /// Some effect of `k` abstracts the concrete effect `e` (Fig. 7(b)); otherwise the lines
    /// of a counterexample.
    fn effect_abstracted(&self, s: &State, (a, c): (ObjId, ObjId), k: &BTreeSet<AbsEffect>, kname: &str) -> Option<Vec<String>> {
        let (sa, sc) = (&s.objs[a.index()].stamp, &s.objs[c.index()].stamp);
        let ok = k
            .iter()
            .any(|(t1, t2)| self.obj_le(sa, t1) && self.obj_le(sc, t2) && (0..t1.pi.len()).all(|w| !(t1.pi[w] == Corr::One && t2.pi[w] == Corr::One) || sa.pi[w] == sc.pi[w]));
        if ok {
            return None;
        }
        let ks: Vec<String> = k.iter().map(|(x, y)| format!("{x} |>= {y}")).collect();
        Some(vec![format!("the effect {} |> {} has no abstraction in {kname}", self.stamp_name(s, a), self.stamp_name(s, c)), format!("{kname} = {{{}}}", ks.join(", "))])
    }

    /// Fig. 7(c) for every thread at a point; the first failed clause.
    fn envs_abstracted(&self, s: &State) -> Option<Vec<String>> {
        for t in 0..s.threads.len() {
            let Next::At(p) = s.next(self.code, t) else { continue };
            let empty = AbsEnv::new();
            let gamma = self.typing.env(p).unwrap_or(&empty);
            if let Some(why) = self.env_le(s, t, p.index(), gamma) {
                let th = &s.threads[t];
                let line = self.code.lines[p.index()].0;
                let env: Vec<String> = gamma.iter().map(|(x, ty)| format!("{x}: {ty}")).collect();
                return Some(vec![format!("thread {} at line {line}: {why}", th.name), format!("Γ = [{}]", env.join(", "))]);
            }
        }
        None
    }

    fn env_le(&self, s: &State, t: usize, p: usize, gamma: &AbsEnv) -> Option<String> {
        let pi = s.pi(t);
        let loop_name = |w: usize| format!("@{}", self.code.loops[w]);
        for (w, &inside) in self.code.enclosing[p].iter().enumerate() {
            if inside && pi[w] == 0 {
                return Some(format!("clause 1: π({}) = 0 inside the loop", loop_name(w)));
            }
        }
        for (x, name) in self.code.vars.iter().enumerate() {
            let Val::Obj(o) = s.threads[t].env[x] else { continue };
            let st = &s.objs[o.index()].stamp;
            let Some(ty) = gamma.get(name) else {
                return Some(format!("clause 2: {name} holds {} but Γ({name}) = ⊥", self.stamp_name(s, o)));
            };
            if !self.obj_le(st, ty) {
                return Some(format!("clause 2: {name} holds {} ⋠ Γ({name}) = {ty}", self.stamp_name(s, o)));
            }
            for (w, (&own, &now)) in st.pi.iter().zip(pi).enumerate() {
                if ty.pi.get(w) == Some(&Corr::One) && own != now {
                    return Some(format!(
                        "clause 3b: Γ({name}) = {ty} has 1 at {} but {name} holds {}, from iteration {own} while the current one is {now}",
                        loop_name(w),
                        self.stamp_name(s, o)
                    ));
                }
            }
        }
        None
    }

    /// T4 at a final state: every DR_K fact holds of its C⁺.
    fn disjointness(&self, s: &State, plus: &BTreeSet<(ObjId, ObjId)>) -> Option<Vec<String>> {
        for (h, hs, fact) in &self.facts {
            if let Err(e) = reach::disjoint(s, plus, *h, hs) {
                let chain = |from: ObjId| format!("{} |>+ {}", self.stamp_name(s, from), self.stamp_name(s, e.target));
                return Some(vec![
                    format!("the analysis claims {fact}, but {} is reachable from two objects of H", self.stamp_name(s, e.target)),
                    format!("{} and {}", chain(e.sources.0), chain(e.sources.1)),
                ]);
            }
        }
        None
    }

    fn describe(&self, pair: (AccessLabel, AccessLabel)) -> String {
        let a = |l: AccessLabel| self.labels.access(l).map_or_else(|| format!("{l:?}"), ToString::to_string);
        format!("{} / {}", a(pair.0), a(pair.1))
    }

    /// An item for a set of pairs claimed race-free: violated by the first that races.
    #[allow(clippy::too_many_arguments)]
    fn pairs_item(
        &self,
        subject: &str,
        pairs: &[(AccessLabel, AccessLabel)],
        f: &Findings,
        cut: Option<&str>,
        bound: &str,
        replayed: &dyn Fn(&[Step]) -> Vec<String>,
        why: impl Fn((AccessLabel, AccessLabel)) -> String,
    ) -> Item {
        for &pair in pairs {
            if let Some(path) = f.races.get(&pair) {
                let mut ex = vec![format!("{} race, yet the pair is claimed race-free", self.describe(pair))];
                let w = why(pair);
                if !w.is_empty() {
                    ex.push(format!("pruned because: {w}"));
                }
                ex.extend(replayed(path));
                return Item { subject: subject.into(), status: ItemStatus::Violated, explanation: ex, witness: None };
            }
        }
        let mut it = within(&format!("{subject} ({} pairs)", pairs.len()), cut, bound);
        if cut.is_none() {
            it.explanation = vec![format!("none of the {} pairs races ({bound})", pairs.len())];
        }
        it
    }

    /// P: the reported pairs with no race found.
    fn precision(&self, f: &Findings, cut: bool) -> Item {
        let pruned: BTreeSet<(AccessLabel, AccessLabel)> = self.typing.pruned.iter().map(|x| unordered(x.pair)).collect();
        let reported: Vec<_> = self.labels.conflicting_pairs().into_iter().filter(|p| !pruned.contains(p)).collect();
        let racy = reported.iter().filter(|p| f.races.contains_key(p)).count();
        let fp = reported.len() - racy;
        let share = if reported.is_empty() { 0.0 } else { 100.0 * fp as f64 / reported.len() as f64 };
        let line = format!(
            "{} pairs in all, {} pruned, {} reported: {racy} race, {fp} without a race found (P = {share:.0}%){}",
            reported.len() + pruned.len(),
            pruned.len(),
            reported.len(),
            if cut { ", search cut" } else { "" }
        );
        Item { subject: "P precision (informative)".into(), status: ItemStatus::Holds, explanation: vec![line], witness: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::labels::PointId;
    use crate::lang::parse;
    use crate::theorems::must_not_alias::TypingError;
    use crate::theorems::must_not_alias::{MustNotAliasAnalysis, Pruned};
    use crate::theorems::Verdict;

    /// An analysis that returns a fixed result.
    struct Fixed(Typing);

    impl MustNotAliasAnalysis for Fixed {
        fn name(&self) -> String {
            "fixed".into()
        }
        fn analyze(&self, _: &Program, _: &Labels<'_>) -> Result<Typing, TypingError> {
            Ok(self.0.clone())
        }
    }

    /// `<(1,0),h1>` from "1,0" and "h1" ("T" for ⊤).
    fn ty(pi: &str, h: &str) -> AbsType {
        let c = |x: &str| match x {
            "0" => Corr::Zero,
            "1" => Corr::One,
            _ => Corr::Top,
        };
        AbsType { pi: pi.split(',').filter(|x| !x.is_empty()).map(c).collect(), site: if h == "T" { AbsSite::Top } else { AbsSite::Site(h.into()) } }
    }

    fn env(vars: &[(&str, AbsType)]) -> AbsEnv {
        vars.iter().map(|(x, t)| ((*x).to_string(), t.clone())).collect()
    }

    fn judge(src: &str, t: Typing) -> OracleResult {
        let p = parse(src).unwrap();
        ORACLE.check(&p, &Sut::MustNotAlias(&Fixed(t)), &Budget::default())
    }

    fn status(r: &OracleResult) -> Vec<(String, ItemStatus)> {
        r.items.iter().map(|i| (i.subject.split(' ').next().unwrap_or("").to_string(), i.status)).collect()
    }

    const R2: &str = "dialect naikaiken\nthread {\nwhile @w1 * {\nx = new @h1\nwhile @w2 * { y = new @h2; x.f = y }\n}\n}\n";

    /// R2's typing with `y` at the outer head as given (Kleene: `<(T,1),h2>`; the paper: `<(1,1),h2>`).
    fn r2(y_at_head: AbsType) -> Typing {
        let top = ty("T,T", "T");
        let head = env(&[("x", ty("1,0", "h1")), ("y", y_at_head)]);
        let anyw = env(&[("x", top.clone()), ("y", top)]);
        let k: BTreeSet<AbsEffect> = [(ty("1,0", "h1"), ty("1,1", "h2"))].into();
        Typing {
            envs: vec![head, anyw.clone(), anyw.clone(), anyw.clone(), anyw],
            effects: k.clone(),
            closure: k,
            disjoint: [("h2".to_string(), BTreeSet::from(["h1".to_string()]))].into(),
            ..Typing::default()
        }
    }

    #[test]
    fn r2_the_papers_environment_is_rejected_by_t2_and_kleenes_is_not() {
        let r = judge(R2, r2(ty("T,1", "h2")));
        assert_eq!(r.verdict, Verdict::Pass, "{:#?}", r.items);
        let r = judge(R2, r2(ty("1,1", "h2")));
        assert_eq!(r.verdict, Verdict::Fail);
        assert_eq!(status(&r)[..4], [("T1".into(), ItemStatus::Holds), ("T2".into(), ItemStatus::Violated), ("T3".into(), ItemStatus::Holds), ("T4".into(), ItemStatus::Holds)]);
        let why = &r.items[1].explanation[0];
        assert!(why.starts_with("thread T1 at line 3: clause 3b: Γ(y) = <(1,1),h2> has 1 at @w1 but y holds h2(1,1), from iteration 1 while the current one is 2"), "{why}");
    }

    #[test]
    fn r3_a_wrong_disjointness_claim_breaks_t4_and_a_missing_effect_breaks_t1() {
        let src = R2.replace("x.f = y", "y.f = x");
        let mut t = r2(ty("T,1", "h2"));
        t.effects = [(ty("1,1", "h2"), ty("1,0", "h1"))].into();
        t.closure = t.effects.clone();
        t.disjoint = [("h1".to_string(), BTreeSet::from(["h2".to_string()]))].into();
        let r = judge(&src, t.clone());
        assert_eq!(status(&r)[3], ("T4".into(), ItemStatus::Violated));
        assert!(r.items[3].explanation[0].contains("h1 ∈ DR_K({h2})"), "{:?}", r.items[3].explanation);
        t.effects.clear();
        let r = judge(&src, t);
        assert_eq!(status(&r)[0], ("T1".into(), ItemStatus::Violated));
    }

    #[test]
    fn a_pruned_pair_that_races_fails_with_a_replayable_schedule() {
        let src = "dialect naikaiken\nthread {\nx = new @h1\nfork { x.g = 1 }\nx.g = 2\n}\n";
        let p = parse(src).unwrap();
        let l = Labels::of(&p);
        let (a, b) = (l.accesses[0].label, l.accesses[1].label);
        let top = env(&[("x", ty("", "h1"))]);
        let t = Typing {
            envs: vec![AbsEnv::new(), top.clone(), top.clone(), top],
            pruned: vec![Pruned { pair: (a, b), stage: Stage::GlobalLock, why: "made up".into() }],
            unlikely: vec![(a, a)],
            ..Typing::default()
        };
        let r = judge(src, t.clone());
        assert_eq!(status(&r)[5], ("T6".into(), ItemStatus::Violated));
        let ex = r.items[5].explanation.join("\n");
        assert!(ex.starts_with("write x.g (line 4) / write x.g (line 5) race, yet the pair is claimed race-free\npruned because: made up"), "{ex}");
        assert!(
            ex.ends_with(
                "schedule (2 steps):\n  T1 line 3: x = new @h1\n  T1 line 4: fork T1.1\n  then T1 is about to write h1.g (line 5)\n  then T1.1 is about to write h1.g (line 4)"
            ),
            "{ex}"
        );
        assert_eq!(a.point, PointId(2));
        // The negative control judges only the unlikely pairs: (a, a) never races here.
        let r = UNLIKELY.check(&p, &Sut::MustNotAlias(&Fixed(t)), &Budget::default());
        assert_eq!(r.verdict, Verdict::Pass, "{:#?}", r.items);
    }
}
