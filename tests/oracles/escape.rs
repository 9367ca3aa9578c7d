//! The access filters of docs/spec/escape_capsule.md, through the oracle registry:
//! `escape-trace-precise` with its negative controls `escape-address-precise` and
//! `escape-elided-race-free` on the thesis' Ch. 4 figures (§5), and `capsule-first-race`
//! and `capsule-first-race-operational` on its Ch. 5 figures (§10): verdicts, and the
//! filter's decision on every event of one execution (`filter_table`, what `racefuzz
//! analyze escape|capsule` prints), as snapshots, with the thesis' claims asserted; a
//! seeded capsule bug caught on Fig. 5.2; and both theorems on generated programs under
//! proptest and quickcheck (fixed seeds and case budgets, never vacuous).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use race_oracles::lang::{parse, print, Program};
use race_oracles::theorems::trace_precision::{filter_table, FilterTable};
use race_oracles::theorems::{Decision, OracleResult, Registry, Sut, Verdict};
use racefuzz::render;
use racefuzz::suts::{self, Subject};

/// The paper programs of the chapter whose file names start with `prefix`, sorted.
fn figures(prefix: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/escape");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(prefix)).collect();
    files.sort();
    files
}

fn load(f: &Path) -> Program {
    parse(&std::fs::read_to_string(f).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", f.display()))
}

fn name(f: &Path) -> String {
    f.file_name().unwrap().to_string_lossy().into_owned()
}

/// Oracle `id` on `p`, against the real SUT or `mutant`.
fn judge(id: &str, p: &Program, mutant: Option<&str>) -> OracleResult {
    let o = *Registry::builtin().find(id).unwrap();
    let s = Subject::for_oracle(&o, mutant).unwrap();
    suts::check(&o, p, &s, suts::campaign_bounds())
}

/// The real filter of `sut` (`escape`, `capsule`) on the default execution of `p` (the
/// first racy one in the naive explorer's order), in the formal mode.
fn table(sut: &str, p: &Program) -> FilterTable {
    let s = Subject::named(sut, None).unwrap().unwrap();
    let Sut::Filter(f, d) = s.sut() else { panic!("{sut} is not a filter") };
    filter_table(p, f, d, false, &suts::campaign_bounds(), None).unwrap()
}

/// A filter table as text: what `racefuzz analyze` prints.
fn table_text(t: &FilterTable) -> String {
    render::filter_table(t)
}

/// How many traces of a conclusive check raced (its explanation's `N trace(s), M racy`).
fn racy_traces(r: &OracleResult) -> u64 {
    let line = &r.items.first().unwrap_or_else(|| panic!("no item: {}", render::result_brief(r))).explanation[0];
    let racy = line.split(" trace(s), ").nth(1).and_then(|s| s.split(" racy").next());
    racy.and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("no racy count in {line:?}"))
}

/// Spec §5: on every Ch. 4 figure the escape filter keeps the first race of every trace;
/// the negative controls fail where the thesis says they must (Fig. 4.2, and Fig. 4.1
/// after lock elision, whose r0.f race is lost with the elided pre-publication writes)
/// and hold on the original Fig. 4.1 (r0.f is race-free there). One snapshot: verdicts
/// and the escape filter's table of the default execution.
#[test]
fn escape_paper_figures() {
    let files = figures("fig4_");
    assert_eq!(files.len(), 3, "{files:?}");
    let mut text = String::new();
    for f in &files {
        let (p, n) = (load(f), name(f));
        let _ = writeln!(text, "// {n}");
        let precise = judge("escape-trace-precise", &p, None);
        assert_eq!(precise.verdict, Verdict::Pass, "{n}: {}", render::result_brief(&precise));
        text.push_str(&render::result_brief(&precise));
        let negative = n != "fig4_1_lock_elision.race";
        for id in ["escape-address-precise", "escape-elided-race-free"] {
            let r = judge(id, &p, None);
            let expected = if negative { Verdict::Fail } else { Verdict::Pass };
            assert_eq!(r.verdict, expected, "{n}: {}", render::result_brief(&r));
            text.push_str(&render::result_brief(&r));
        }
        let _ = writeln!(text, "escape filter table:\n{}", table_text(&table("escape", &p)));
    }
    insta::assert_snapshot!(text);
}

/// Spec §5.2's table, asserted: in Fig. 4.2's default execution (main, then T1, then T2)
/// T1's pre-publication write of r1.f is elided, every access of α's first race (the read
/// and write of p.o) is kept, and β races on p.o only: the r1.f race is lost, the first
/// race is not.
#[test]
fn fig4_2_elides_the_prepublication_write_and_keeps_the_first_race() {
    let p = load(&figures("fig4_2")[0]);
    let t = table("escape", &p);
    let text = table_text(&t);
    let is_rf = |s: &str| s.contains("r1@") && (s.ends_with(".f") || s.ends_with(".f)"));
    let rf_writes: Vec<_> = t.rows.iter().filter(|r| r.access && r.event.contains(": write ") && is_rf(&r.event)).collect();
    assert_eq!(rf_writes.len(), 2, "T1's and T2's writes of r1.f\n{text}");
    // α's order: T1's write comes first (before its publication), T2's after its read of p.o.
    assert_eq!(rf_writes[0].decision, Decision::Elide, "T1's pre-publication write of r1.f\n{text}");
    assert!(rf_writes[0].why.contains("not escaped"), "{text}");
    assert_eq!(rf_writes[1].decision, Decision::Keep, "T2's write of r1.f (r1 escaped through p.o)\n{text}");
    let first: Vec<_> = t.rows.iter().filter(|r| r.first_race).collect();
    assert_eq!(first.len(), 2, "the first race is one pair on p.o\n{text}");
    for r in &first {
        assert!(r.access && r.decision == Decision::Keep && r.event.contains("p@") && r.event.contains(".o)"), "{r:?}\n{text}");
    }
    assert_eq!(t.first_race, t.first_race_beta, "{text}");
    assert_eq!(t.detector_first.as_deref(), t.first_race.as_deref().map(|f| f.split(" with ").next().unwrap()), "{text}");
    let (alpha, beta) = &t.racy;
    assert_eq!(alpha.len(), 2, "α races on p.o and r1.f\n{text}");
    assert!(alpha.iter().any(|l| is_rf(l)), "α races on r1.f\n{text}");
    assert!(!beta.iter().any(|l| is_rf(l)), "β must lack the r1.f race\n{text}");
    assert_eq!(beta.len(), 1, "β races on p.o only\n{text}");
    assert!(beta[0].starts_with("p@") && beta[0].ends_with(".o"), "{text}");
}

/// Spec §10: on every Ch. 5 figure the capsule filter keeps the first race on formal
/// traces; in the operational mode it passes too, Fig. 5.3 without its sync included (586
/// executions, each ending at its capFree violation). One snapshot: verdicts and the
/// capsule filter's table (formal mode) of the default execution.
#[test]
fn capsule_paper_figures() {
    let files = figures("fig5_");
    assert_eq!(files.len(), 4, "{files:?}");
    let mut text = String::new();
    let mut operational_pass = 0;
    for f in &files {
        let (p, n) = (load(f), name(f));
        let _ = writeln!(text, "// {n}");
        let formal = judge("capsule-first-race", &p, None);
        assert_eq!(formal.verdict, Verdict::Pass, "{n}: {}", render::result_brief(&formal));
        text.push_str(&render::result_brief(&formal));
        let operational = judge("capsule-first-race-operational", &p, None);
        assert_eq!(operational.verdict, Verdict::Pass, "{n}: {}", render::result_brief(&operational));
        operational_pass += usize::from(operational.verdict == Verdict::Pass);
        text.push_str(&render::result_brief(&operational));
        let t = table("capsule", &p);
        // Fig. 5.2 races on o.g (and keeps it); the others are race-free and filter every access.
        if n.starts_with("fig5_2") {
            assert!(t.first_race.is_some() && t.first_race == t.first_race_beta, "{n}\n{}", table_text(&t));
        } else {
            assert!(t.racy.0.is_empty() && t.accesses.0 > 0 && t.accesses.0 == t.accesses.1, "{n}\n{}", table_text(&t));
        }
        let _ = writeln!(text, "capsule filter table:\n{}", table_text(&t));
    }
    assert_eq!(operational_pass, 4);
    insta::assert_snapshot!(text);
}

/// Spec §10.2 and §14 M-C4: a capsule filter that does not leak the return value at exit
/// filters both writes of o.g on Fig. 5.2 and loses the first race; the real filter keeps it.
#[test]
fn fig5_2_catches_an_exit_that_leaks_nothing() {
    let p = load(&figures("fig5_2")[0]);
    let real = judge("capsule-first-race", &p, None);
    assert_eq!(real.verdict, Verdict::Pass, "{}", render::result_brief(&real));
    assert!(racy_traces(&real) > 0, "{}", render::result_brief(&real));
    let bug = judge("capsule-first-race", &p, Some("cap-exit-leaks-nothing"));
    assert_eq!(bug.verdict, Verdict::Fail, "{}", render::result_brief(&bug));
    let why = render::result_brief(&bug);
    assert!(why.contains("FIRST RACE LOST"), "{why}");
}

/// Runs `ids` on `cases` programs of `strategy` (the deterministic runner): never a
/// failure; returns, per oracle, how many verdicts were conclusive and how many of those
/// judged a program with a racy trace.
fn proptest_filters<S>(strategy: S, ids: &[&str], cases: u32) -> Vec<(usize, usize)>
where
    S: proptest::strategy::Strategy<Value = Program>,
{
    let reg = Registry::builtin();
    let subjects: Vec<_> = ids
        .iter()
        .map(|id| {
            let o = *reg.find(id).unwrap();
            let s = Subject::for_oracle(&o, None).unwrap();
            (o, s)
        })
        .collect();
    let counts = std::cell::RefCell::new(vec![(0, 0); ids.len()]);
    crate::runner(cases)
        .run(&strategy, |p| {
            for (i, (o, s)) in subjects.iter().enumerate() {
                let r = suts::check(o, &p, s, suts::campaign_bounds());
                proptest::prop_assert_ne!(r.verdict, Verdict::Fail, "{}\n{}", print(&p), render::result_brief(&r));
                if r.verdict == Verdict::Pass {
                    let mut c = counts.borrow_mut();
                    c[i].0 += 1;
                    c[i].1 += usize::from(racy_traces(&r) > 0);
                }
            }
            Ok(())
        })
        .unwrap();
    counts.into_inner()
}

/// Theorem 4.5.3 on the SimpleJava generator's default knobs (proptest, fixed seed): never
/// a failure, at least 80% conclusive, and racy programs among them.
#[test]
fn proptest_escape_trace_precise() {
    use race_oracles::gen::java::simplejava_program;
    const CASES: u32 = 400;
    let counts = proptest_filters(simplejava_program(Default::default()), &["escape-trace-precise"], CASES);
    let (conclusive, racy) = counts[0];
    assert!(conclusive * 5 >= CASES as usize * 4, "vacuous: {conclusive} of {CASES} conclusive");
    assert!(racy * 5 >= conclusive, "only {racy} of {conclusive} conclusive programs race");
}

/// Theorem 5.4.3 and P-C9/P-C10 on the CapJava generator's default knobs (proptest, fixed
/// seed): never a failure, at least 80% conclusive in each mode, and racy programs among
/// them.
#[test]
fn proptest_capsule_first_race() {
    use race_oracles::gen::java::capjava_program;
    const CASES: u32 = 200;
    let ids = ["capsule-first-race", "capsule-first-race-operational"];
    let counts = proptest_filters(capjava_program(Default::default()), &ids, CASES);
    for (id, (conclusive, racy)) in ids.iter().zip(counts) {
        assert!(conclusive * 5 >= CASES as usize * 4, "{id} vacuous: {conclusive} of {CASES} conclusive");
        assert!(racy * 10 >= conclusive, "{id}: only {racy} of {conclusive} conclusive programs race");
    }
}

/// Oracle `id` on the registry's (swarm) generator from quickcheck's byte vectors.
fn quickcheck_prop(id: &str, bytes: &[u8]) -> quickcheck::TestResult {
    let o = *Registry::builtin().find(id).unwrap();
    let s = Subject::for_oracle(&o, None).unwrap();
    super::quickcheck_result(suts::check(&o, &o.program(bytes, s.relax()), &s, suts::campaign_bounds()).verdict)
}

/// The escape filter under quickcheck (seeded; the SimpleJava swarm generator): never a
/// failure, at least five sixths conclusive.
#[test]
fn quickcheck_escape_trace_precise() {
    fn prop(bytes: Vec<u8>) -> quickcheck::TestResult {
        quickcheck_prop("escape-trace-precise", &bytes)
    }
    super::quickcheck(prop as fn(Vec<u8>) -> quickcheck::TestResult);
}

/// The capsule filter on formal traces under quickcheck (the CapJava swarm generator).
#[test]
fn quickcheck_capsule_first_race() {
    fn prop(bytes: Vec<u8>) -> quickcheck::TestResult {
        quickcheck_prop("capsule-first-race", &bytes)
    }
    super::quickcheck(prop as fn(Vec<u8>) -> quickcheck::TestResult);
}

/// The capsule filter with violations taken under quickcheck (the CapJava swarm generator).
#[test]
fn quickcheck_capsule_first_race_operational() {
    fn prop(bytes: Vec<u8>) -> quickcheck::TestResult {
        quickcheck_prop("capsule-first-race-operational", &bytes)
    }
    super::quickcheck(prop as fn(Vec<u8>) -> quickcheck::TestResult);
}
