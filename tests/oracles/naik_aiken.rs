//! Naik-Aiken's conditional must-not-alias analysis (docs/spec/naik_aiken.md) through the oracle
//! registry: `naik-aiken-sound` (T1–T7) on the spec's regression programs (§6, in
//! `corpus/paper/naikaiken`) with their verdicts as a snapshot; the negative control
//! `naik-aiken-unlikely` (T9) failing exactly on the racy programs PLDI'06 calls unlikely
//! and rediscovered from scratch; every seeded bug caught within a fixed budget; the
//! theorem on generated programs under proptest and quickcheck (fixed seeds, never
//! vacuous); and the precision figure P per generator setting.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use race_oracles::explore::Config;
use race_oracles::gen::naikaiken::{build_naikaiken, NaikAikenInput, NaikAikenKnobs};
use race_oracles::gen::shrink::{shrink, size};
use race_oracles::instrumented;
use race_oracles::lang::labels::{unordered, Labels};
use race_oracles::lang::{parse, print, Program, Relax};
use race_oracles::theorems::must_not_alias::Counters;
use race_oracles::theorems::{ItemStatus, OracleResult, Registry, Verdict};
use racefuzz::render;
use racefuzz::suts::{self, Subject};

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/naikaiken");
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

fn load(f: &Path) -> (Program, Relax) {
    let src = std::fs::read_to_string(f).unwrap();
    (parse(&src).unwrap_or_else(|e| panic!("{}: {e}", f.display())), racefuzz::corpus::relax(&src).unwrap())
}

/// Oracle `id` on `p` against the real analysis or `mutant`, with the file's relaxations.
fn judge(id: &str, p: &Program, relax: Relax, mutant: Option<&str>) -> OracleResult {
    let o = *Registry::builtin().find(id).unwrap();
    let s = Subject::for_oracle(&o, mutant).unwrap();
    o.check(
        p,
        &s.sut(),
        &race_oracles::theorems::Budget { explore: suts::campaign_bounds(), relax: Relax { sync_reassign: relax.sync_reassign || s.relax().sync_reassign, ..s.relax() } },
    )
}

/// Spec §6: the real analysis passes T1–T7 on every regression program; the negative
/// control fails on every racy program whose race is between two threads of one fork site
/// (t1 = t2, PLDI'06's "unlikely"): R9's two controls, and also Fig. 1 without the lock,
/// R5, R8 hoisted, R11 and the reassigned lock. It holds on R8's main-writes variant, whose
/// race is between the main thread and a child. One snapshot.
#[test]
fn naik_aiken_regression_programs() {
    let files = programs();
    assert_eq!(files.len(), 18, "{files:?}");
    let mut text = String::new();
    let mut unlikely_fails = vec![];
    for f in &files {
        let (p, relax) = load(f);
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let r = judge("naik-aiken-sound", &p, relax, None);
        assert_eq!(r.verdict, Verdict::Pass, "{name}: {}", render::result_brief(&r));
        let _ = writeln!(text, "// {name}");
        text.push_str(&render::result_brief(&r));
        let u = judge("naik-aiken-unlikely", &p, relax, None);
        assert_ne!(u.verdict, Verdict::Inconclusive, "{name}");
        if u.verdict == Verdict::Fail {
            unlikely_fails.push(name.clone());
            text.push_str(&render::result_brief(&u));
        }
    }
    let want = ["r11_field_must_alias", "r4_fig1_no_sync", "r5_shared_h3", "r8_hoisted", "r9_same_thread_context", "r9_unlikely", "reassigned_lock"];
    assert_eq!(unlikely_fails, want.map(|n| format!("{n}.race")));
    insta::assert_snapshot!(text);
}

/// T9 (negative control): the generator finds a racing "unlikely" pair on its own, and the
/// shrunk witness is no larger than R9.
#[test]
fn unlikely_negative_control_is_rediscovered_no_larger_than_r9() {
    let o = *Registry::builtin().find("naik-aiken-unlikely").unwrap();
    assert!(o.negative_control);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/naikaiken");
    let (r9, _) = load(&dir.join("r9_unlikely.race"));
    let s = Subject::for_oracle(&o, None).unwrap();
    let fails = |p: &Program| suts::check(&o, p, &s, suts::campaign_bounds()).verdict == Verdict::Fail;
    assert!(fails(&r9));
    let (n, found) = super::hunt(None, o.id, 300, 43, 16, 48).unwrap_or_else(|| panic!("T9 not rediscovered in 300 programs"));
    let shrunk = shrink(&found, s.relax(), 3000, fails);
    assert!(fails(&shrunk.program));
    assert!(size(&shrunk.program) <= size(&r9), "shrunk to size {} > R9's {}:\n{}", size(&shrunk.program), size(&r9), print(&shrunk.program));
    insta::assert_snapshot!(format!("// naik-aiken-unlikely: program {n} of the hunt, shrunk to size {} (R9: {})\n{}", size(&shrunk.program), size(&r9), print(&shrunk.program)));
}

/// How many pruned pairs a result judged (T5–T7 items' `(N pairs)`), for vacuity checks.
fn pruned_pairs(r: &OracleResult) -> usize {
    r.items
        .iter()
        .filter(|i| i.subject.starts_with("T5") || i.subject.starts_with("T6") || i.subject.starts_with("T7"))
        .filter_map(|i| i.explanation.first()?.strip_prefix("none of the ")?.split(' ').next()?.parse::<usize>().ok())
        .sum()
}

/// T1–T7 on the swarm generator (proptest, fixed seed): never a failure, at least 95%
/// conclusive, and the pruning stages judged on hundreds of pairs.
#[test]
fn proptest_naik_aiken_sound() {
    const CASES: u32 = 300;
    let o = *Registry::builtin().find("naik-aiken-sound").unwrap();
    let s = Subject::for_oracle(&o, None).unwrap();
    let counts = std::cell::RefCell::new((0usize, 0usize));
    crate::runner(CASES)
        .run(&race_oracles::gen::swarm_strategy(race_oracles::gen::naikaiken::swarm_naikaiken, Relax::default()), |p| {
            let r = suts::check(&o, &p, &s, suts::campaign_bounds());
            proptest::prop_assert_ne!(r.verdict, Verdict::Fail, "{}\n{}", print(&p), render::result_brief(&r));
            if r.verdict == Verdict::Pass {
                let mut c = counts.borrow_mut();
                c.0 += 1;
                c.1 += pruned_pairs(&r);
            }
            Ok(())
        })
        .unwrap();
    let (conclusive, pruned) = counts.into_inner();
    assert!(conclusive * 100 >= CASES as usize * 95, "vacuous: {conclusive} of {CASES} conclusive");
    assert!(pruned >= 100, "only {pruned} pruned pairs judged");
}

/// T1–T7 under quickcheck (seeded; `NaikAikenInput`, the swarm generator's quickcheck form,
/// which shrinks through its bytes).
#[test]
fn quickcheck_naik_aiken_sound() {
    fn prop(input: NaikAikenInput) -> quickcheck::TestResult {
        let o = *Registry::builtin().find("naik-aiken-sound").unwrap();
        let s = Subject::for_oracle(&o, None).unwrap();
        super::quickcheck_result(suts::check(&o, &input.program, &s, suts::campaign_bounds()).verdict)
    }
    super::quickcheck(prop as fn(NaikAikenInput) -> quickcheck::TestResult);
}

/// P (spec §4.3): reported pairs with no race found, per generator setting (the §6 idioms,
/// the free swarm programs), over 200 programs each; a snapshot, so a change in precision
/// is reviewed. Every program's search is complete, so "no race found" is within B = 2.
/// The analysis starts from every conflicting pair (A13: phase 1 is skipped), so P is also
/// given without the pairs whose two accesses are both in the main thread's own code, the
/// cheapest part of what phase 1's may-happen-in-parallel stage removes.
#[test]
fn precision_per_generator_setting() {
    let s = Subject::named("naikaiken", None).unwrap().unwrap();
    let analysis = s.must_not_alias().unwrap();
    let mut text = String::new();
    for (setting, idiom) in [("idioms (spec §6 shapes)", true), ("free swarm programs", false)] {
        let (mut reported, mut racy, mut pruned, mut programs, mut main_only) = (0usize, 0usize, 0usize, 0usize, 0usize);
        for i in 0u32..200 {
            let bytes: Vec<u8> = (0..40u32).map(|j| u8::try_from((i * 7919 + j * 104_729 + (i * j) % 251) % 251).unwrap()).collect();
            let knobs = NaikAikenKnobs { idiom, ..NaikAikenKnobs::swarm([bytes[0], bytes[1], bytes[2], bytes[3]], Relax::default()) };
            let p = build_naikaiken(&bytes[4..], knobs);
            let labels = Labels::of(&p);
            let Ok(t) = analysis.analyze(&p, &labels) else { continue };
            let (races, cov) = instrumented::races(&p, Counters::PerThread, &Config { max_states: 100_000, ..Config::default() });
            assert!(cov.cut.is_none(), "{}", print(&p));
            let cut: BTreeSet<_> = t.pruned.iter().map(|x| unordered(x.pair)).collect();
            let rep: Vec<_> = labels.conflicting_pairs().into_iter().filter(|q| !cut.contains(q)).collect();
            programs += 1;
            pruned += cut.len();
            reported += rep.len();
            racy += rep.iter().filter(|q| races.contains(q)).count();
            main_only += rep.iter().filter(|(a, b)| labels.point(a.point).forks.is_empty() && labels.point(b.point).forks.is_empty()).count();
        }
        assert!(reported > 100 && pruned > 20, "{setting}: vacuous ({reported} reported, {pruned} pruned)");
        let fp = reported - racy;
        let _ = writeln!(
            text,
            "{setting}: {programs} programs, {pruned} pairs pruned, {reported} reported, {racy} race, {fp} no race found: P = {:.1}%",
            100.0 * fp as f64 / reported as f64
        );
        let (r2, fp2) = (reported - main_only, fp - main_only);
        let _ = writeln!(text, "  without the {main_only} main-thread-only pairs: {r2} reported, {fp2} no race found: P = {:.1}%", 100.0 * fp2 as f64 / r2 as f64);
    }
    insta::assert_snapshot!(text);
}

/// The items every result has, in order: T1–T7, then P.
#[test]
fn results_name_every_property() {
    let (p, relax) = load(&programs()[0]);
    let r = judge("naik-aiken-sound", &p, relax, None);
    let subjects: Vec<&str> = r.items.iter().map(|i| i.subject.split(' ').next().unwrap_or("")).collect();
    assert_eq!(subjects, ["T1", "T2", "T3", "T4", "T5", "T6", "T7", "P"]);
    assert!(r.items.iter().all(|i| i.status == ItemStatus::Holds));
}
