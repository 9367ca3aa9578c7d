//! `bigfoot-precise`, through the oracle registry: BigFoot places the checks of the paper's
//! figures exactly where docs/spec/bigfoot.md §4.9 puts them (the corpus files carry the spec's
//! placements); the figures judged on every interleaving, as a snapshot of verdicts, check
//! ratios and racy locations; and every seeded bug of BigFoot and of the per-access placer
//! caught within a fixed budget of generated programs.

use std::path::Path;

use race_oracles::lang::{parse, print};
use race_oracles::theorems::{CheckPlacer, Registry, Verdict};
use racefuzz::analyses::bigfoot::placement::BigFoot;
use racefuzz::render;
use racefuzz::suts::{self, Subject};

/// Spec §4.9 Ex. A–D and §9.3 Ex. 1–4: the placement of every figure, from the figure
/// without its checks, is the spec's (the file's own checks), statement for statement.
#[test]
fn bigfoot_places_the_papers_checks() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/bigfoot");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut text = String::new();
    for f in &files {
        let spec = parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        let placed = BigFoot::default().place(&spec.without_checks()).unwrap();
        assert_eq!(print(&placed.without_lines()), print(&spec.without_lines()), "{}", f.display());
        text.push_str(&format!("// {}\n{}\n", f.file_name().unwrap().to_string_lossy(), print(&placed)));
    }
    assert!(files.len() >= 7, "only {} figures", files.len());
    insta::assert_snapshot!(text);
}

#[test]
fn paper_figures_keep_precise_checks() {
    let o = *Registry::builtin().find("bigfoot-precise").unwrap();
    let s = Subject::for_oracle(&o, None).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/bigfoot");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut text = String::new();
    let mut passed = 0;
    for f in &files {
        let p = parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        let r = suts::check(&o, &p, &s, suts::campaign_bounds());
        assert_ne!(r.verdict, Verdict::Fail, "{}", render::result_brief(&r));
        passed += usize::from(r.verdict == Verdict::Pass);
        text.push_str(&render::result_full(&r, &f.file_name().unwrap().to_string_lossy()));
        text.push('\n');
    }
    assert!(passed >= 5, "only {passed} figures conclusive");
    insta::assert_snapshot!(text);
}

/// A program none of whose traces ends (every one is stuck on a null dereference) gives the
/// precision properties nothing to judge: inconclusive, never a vacuous pass.
#[test]
fn a_program_with_no_ended_trace_is_inconclusive() {
    let o = *Registry::builtin().find("bigfoot-precise").unwrap();
    let s = Subject::for_oracle(&o, None).unwrap();
    let p = parse("dialect bfj\nclass C { fields f }\ninit { o = null }\nthread { r = o.f }\n").unwrap();
    let r = suts::check(&o, &p, &s, suts::campaign_bounds());
    assert_eq!(r.verdict, Verdict::Inconclusive, "{}", render::result_brief(&r));
}

/// BigFoot + DynamicBF under quickcheck (the second generator family; seeded): the BFJ
/// generator on quickcheck's byte vectors. An inconclusive case is discarded, and at least
/// 250 of the 300 must be conclusive. (Under `bf-range-under-approx` it fails at once.)
#[test]
fn quickcheck_bigfoot_precise() {
    fn prop(bytes: Vec<u8>) -> quickcheck::TestResult {
        let o = *Registry::builtin().find("bigfoot-precise").unwrap();
        let s = Subject::for_oracle(&o, None).unwrap();
        super::quickcheck_result(suts::check(&o, &o.program(&bytes, s.relax()), &s, suts::campaign_bounds()).verdict)
    }
    super::quickcheck(prop as fn(Vec<u8>) -> quickcheck::TestResult);
}

/// BigFoot + DynamicBF on the generator's densest fixed setting (every form on, five
/// operations per thread), through the proptest strategy: never a failure, mostly
/// conclusive.
#[test]
fn proptest_bigfoot_precise_at_the_default_knobs() {
    use race_oracles::gen::bfj::{bfj_program, BfjKnobs};
    let o = *Registry::builtin().find("bigfoot-precise").unwrap();
    let s = Subject::for_oracle(&o, None).unwrap();
    let conclusive = std::cell::Cell::new(0);
    crate::runner(150)
        .run(&bfj_program(BfjKnobs::default()), |p| {
            let r = suts::check(&o, &p, &s, suts::campaign_bounds());
            proptest::prop_assert_ne!(r.verdict, Verdict::Fail, "{}\n{}", print(&p), render::result_brief(&r));
            conclusive.set(conclusive.get() + usize::from(r.verdict == Verdict::Pass));
            Ok(())
        })
        .unwrap();
    assert!(conclusive.get() >= 120, "vacuous: {} of 150 conclusive", conclusive.get());
}
