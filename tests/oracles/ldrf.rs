//! The L-DRF semantics (docs/spec/ldrf.md) through the oracle registry: `ldrf-agree` (C1–C4) on
//! the paper's examples (§8, `corpus/paper/ldrf`), with the verdicts as a snapshot; racy
//! controls inconclusive (the theorems assume race freedom); and every seeded bug of the
//! engine judged on those examples as its prediction says.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use race_oracles::lang::{parse, Program};
use race_oracles::theorems::{OracleResult, Registry, Verdict};
use racefuzz::mutants::MUTANTS;
use racefuzz::render;
use racefuzz::seeded::Prediction;
use racefuzz::suts::{self, Subject};

fn programs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/ldrf");
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
}

fn load(f: &Path) -> Program {
    parse(&std::fs::read_to_string(f).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", f.display()))
}

fn judge(p: &Program, mutant: Option<&str>) -> OracleResult {
    judge_with("ldrf-agree", p, mutant)
}

fn judge_with(id: &str, p: &Program, mutant: Option<&str>) -> OracleResult {
    let o = *Registry::builtin().find(id).unwrap();
    let s = Subject::for_oracle(&o, mutant).unwrap();
    suts::check(&o, p, &s, suts::campaign_bounds())
}

/// Spec §8: C1–C4 hold on Fig. 1, Fig. 4 and R5; the racy controls R6(a), R6(b) are outside
/// the theorems' hypothesis (inconclusive, naming the race), and the negative control
/// `ldrf-agree-racy` fails exactly on them: R6(a) loses the standard state where t2 read 1
/// (C2), R6(b) writes from a stale version (C1). One snapshot.
#[test]
fn ldrf_agree_on_the_papers_examples() {
    let mut text = String::new();
    for f in programs() {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let r = judge(&load(&f), None);
        let want = if name.starts_with("r6") { Verdict::Inconclusive } else { Verdict::Pass };
        assert_eq!(r.verdict, want, "{name}: {}", render::result_brief(&r));
        let _ = writeln!(text, "// {name}");
        text.push_str(&render::result_brief(&r));
        let racy = judge_with("ldrf-agree-racy", &load(&f), None);
        assert_eq!(racy.verdict == Verdict::Fail, name.starts_with("r6"), "{name}: {}", render::result_brief(&racy));
        if racy.verdict == Verdict::Fail {
            text.push_str(&render::result_brief(&racy));
        }
    }
    insta::assert_snapshot!(text);
}

/// Every engine mutant on the race-free examples: a theorem-breaking one fails on at least
/// one, an equivalent one on none. The table (which items fail where) is a snapshot.
#[test]
fn ldrf_mutants_on_the_papers_examples() {
    let files: Vec<(String, Program)> = programs()
        .into_iter()
        .filter(|f| !f.file_name().unwrap().to_string_lossy().starts_with("r6"))
        .map(|f| (f.file_name().unwrap().to_string_lossy().into_owned(), load(&f)))
        .collect();
    let mut table = String::new();
    let oracle = *Registry::builtin().find("ldrf-agree").unwrap();
    for m in MUTANTS.iter().filter(|m| m.sut == "ldrf") {
        let mut failing = vec![];
        for (name, p) in &files {
            let r = judge(p, Some(m.name));
            if r.verdict == Verdict::Fail {
                let items: Vec<&str> =
                    r.items.iter().filter(|i| i.status == race_oracles::theorems::ItemStatus::Violated).map(|i| i.subject.split(' ').next().unwrap_or("")).collect();
                failing.push(format!("{name} ({})", items.join(" ")));
            }
        }
        let predicted = suts::prediction(&oracle, m);
        match predicted {
            Some(Prediction::BreaksTheorem) => assert!(!failing.is_empty(), "{} passes every example", m.name),
            Some(Prediction::Equivalent) => assert!(failing.is_empty(), "{} predicted equivalent fails: {failing:?}", m.name),
            _ => {}
        }
        let _ = writeln!(
            table,
            "{:<26} {:<15} {}",
            m.name,
            predicted.map_or("-", Prediction::name),
            if failing.is_empty() { "passes every example".into() } else { failing.join(", ") }
        );
    }
    insta::assert_snapshot!(table);
}

/// C9 (negative control): the generator finds a racy program on which the two semantics
/// disagree, from scratch, and it shrinks to no more than R6(a)'s size.
#[test]
fn racy_negative_control_is_rediscovered_no_larger_than_r6() {
    use race_oracles::gen::shrink::{shrink, size};
    let o = *Registry::builtin().find("ldrf-agree-racy").unwrap();
    assert!(o.negative_control);
    let r6 = load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/ldrf/r6a_racy_read.race"));
    let s = Subject::for_oracle(&o, None).unwrap();
    let fails = |p: &Program| suts::check(&o, p, &s, suts::campaign_bounds()).verdict == Verdict::Fail;
    let (n, found) = super::hunt(None, o.id, 300, 53, 16, 48).unwrap_or_else(|| panic!("C9 not rediscovered in 300 programs"));
    let shrunk = shrink(&found, s.relax(), 3000, fails);
    assert!(fails(&shrunk.program));
    assert!(size(&shrunk.program) <= size(&r6), "shrunk to size {} > R6's {}:\n{}", size(&shrunk.program), size(&r6), race_oracles::lang::print(&shrunk.program));
    insta::assert_snapshot!(format!(
        "// ldrf-agree-racy: program {n} of the hunt, shrunk to size {} (R6a: {})\n{}",
        size(&shrunk.program),
        size(&r6),
        race_oracles::lang::print(&shrunk.program)
    ));
}

/// C1–C4 on the generator's programs (proptest, fixed seed): never a failure, and at least
/// 95% of them judged (racy programs are inconclusive by A2; the generator makes few).
#[test]
fn proptest_ldrf_agree() {
    const CASES: u32 = 200;
    let o = *Registry::builtin().find("ldrf-agree").unwrap();
    let s = Subject::for_oracle(&o, None).unwrap();
    let conclusive = std::cell::Cell::new(0usize);
    crate::runner(CASES)
        .run(&race_oracles::gen::swarm_strategy(race_oracles::gen::ldrf::swarm_ldrf, race_oracles::lang::Relax::default()), |p| {
            let r = suts::check(&o, &p, &s, suts::campaign_bounds());
            proptest::prop_assert_ne!(r.verdict, Verdict::Fail, "{}\n{}", race_oracles::lang::print(&p), render::result_brief(&r));
            conclusive.set(conclusive.get() + usize::from(r.verdict == Verdict::Pass));
            Ok(())
        })
        .unwrap();
    assert!(conclusive.get() * 20 >= CASES as usize * 19, "vacuous: {} of {CASES} conclusive", conclusive.get());
}

/// C1–C4 under quickcheck (seeded; `LdrfInput`, the generator's quickcheck form): never a
/// failure; an inconclusive program is discarded, not passed, and at least 95% are judged.
#[test]
fn quickcheck_ldrf_agree() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Counters of this test only (a `fn` pointer captures nothing).
    static JUDGED: AtomicUsize = AtomicUsize::new(0);
    static INCONCLUSIVE: AtomicUsize = AtomicUsize::new(0);
    fn prop(input: race_oracles::gen::ldrf::LdrfInput) -> quickcheck::TestResult {
        let o = *Registry::builtin().find("ldrf-agree").unwrap();
        let s = Subject::for_oracle(&o, None).unwrap();
        let v = suts::check(&o, &input.program, &s, suts::campaign_bounds()).verdict;
        super::count_verdict(v, &JUDGED, &INCONCLUSIVE);
        super::quickcheck_result(v)
    }
    super::quickcheck(prop as fn(race_oracles::gen::ldrf::LdrfInput) -> quickcheck::TestResult);
    super::assert_judged(JUDGED.load(Ordering::Relaxed), INCONCLUSIVE.load(Ordering::Relaxed), 95);
}
