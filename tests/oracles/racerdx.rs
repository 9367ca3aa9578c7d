//! `racerdx-tp` and `racerdx-complete`: the paper's examples as snapshots, the §6.3 negative
//! tests against their mutants, property suites on generated programs (proptest and
//! quickcheck, fixed seeds), and every theorem-breaking mutant caught within a fixed budget.

use std::path::Path;

use proptest::test_runner::{RngAlgorithm, TestRng};
use race_oracles::gen::racerdx::build;
use race_oracles::gen::{racerdx_program, RacerDxInput, RacerDxKnobs};
use race_oracles::lang::{parse, print, Program, Relax};
use race_oracles::theorems::racerdx_complete;
use race_oracles::theorems::racerdx_tp::{self, ReportOutcome, TpConfig};
use race_oracles::theorems::{StaticRaceAnalysis, Verdict};
use racefuzz::analyses::racerdx::{summaries_text, Options, RacerDx};
use racefuzz::mutants::{self, Prediction, MUTANTS};

fn load(rel: &str) -> Program {
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap();
    parse(&src).unwrap()
}

fn tp(p: &Program, a: &RacerDx, relax: Relax) -> racerdx_tp::TpResult {
    racerdx_tp::check(p, a, &TpConfig { relax, ..TpConfig::default() })
}

/// What a person reads about one program: summaries, reports of RacerDX and RacerD-like,
/// and the oracle's verdict on each with the witness or the reason.
fn describe(p: &Program) -> String {
    let mut out = String::new();
    for a in [RacerDx::default(), RacerDx::new(Options::racerd_like())] {
        out.push_str(&format!("== {}\n{}", a.name(), summaries_text(&a, p)));
        let r = tp(p, &a, Relax::default());
        out.push_str(&format!("racerdx-tp: {:?}\n", r.verdict));
        for (rep, o) in &r.reports {
            out.push_str(&format!("  {rep}\n"));
            match o {
                ReportOutcome::Confirmed { how, witness } => out.push_str(&format!("    true positive, {how}; {} on {}\n", witness.definition, witness.address)),
                ReportOutcome::Refuted { reason } => out.push_str(&format!("    FALSE POSITIVE: {reason}\n")),
                ReportOutcome::Unknown { reason } => out.push_str(&format!("    unknown: {reason}\n")),
            }
        }
        out.push_str(&format!("racerdx-complete: {:?}\n", racerdx_complete::check(p, &a, 1, Relax::default()).verdict));
    }
    out
}

#[test]
fn paper_examples() {
    for f in ["fig1_dodo", "fig2_burble", "fig3_wurble", "fig3_wurble_variant_a", "fig3_wurble_variant_b", "fig3_wurble_variant_b_stable"] {
        let p = load(&format!("corpus/paper/racerdx/{f}.race"));
        // RacerDX never reports what the ground truth calls race-free (the TPT) ...
        let r = tp(&p, &RacerDx::default(), Relax::default());
        assert_eq!(r.verdict, Verdict::Pass, "{f}");
        insta::assert_snapshot!(f, describe(&p));
    }
    // ... while RacerD-like reports the Burble and Wurble-B false races.
    for f in ["fig2_burble", "fig3_wurble_variant_b"] {
        let p = load(&format!("corpus/paper/racerdx/{f}.race"));
        assert_eq!(tp(&p, &RacerDx::new(Options::racerd_like()), Relax::default()).verdict, Verdict::Fail, "{f}");
    }
}

#[test]
fn witness_is_readable() {
    let p = load("corpus/paper/racerdx/fig1_dodo.race");
    let r = tp(&p, &RacerDx::default(), Relax::default());
    let text: String = r
        .reports
        .iter()
        .map(|(rep, o)| match o {
            ReportOutcome::Confirmed { witness, .. } => format!("{rep}\n{}", racefuzz::render::witness(witness)),
            _ => String::new(),
        })
        .collect();
    insta::assert_snapshot!(text);
}

/// spec/racerdx.md §6.3(a)–(c): each negative program states the mutants that must fail on
/// it (`// mutant-fails ORACLE: M`); the real analysis must not fail.
#[test]
fn negative_tests_catch_their_mutants() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/negative/racerdx");
    let mut checked = 0;
    for f in racefuzz::corpus::race_files(&dir) {
        let src = std::fs::read_to_string(&f).unwrap();
        let p = parse(&src).unwrap();
        for line in src.lines().filter_map(|l| l.strip_prefix("// mutant-fails ")) {
            let (oracle, mutant) = line.split_once(": ").unwrap();
            let (opts, relax) = mutants::racerdx(Some(mutant)).unwrap();
            let verdict = |a: &RacerDx, relax| match oracle {
                "racerdx-tp" => tp(&p, a, relax).verdict,
                "racerdx-complete" => racerdx_complete::check(&p, a, 1, relax).verdict,
                o => panic!("unknown oracle {o}"),
            };
            assert_eq!(verdict(&RacerDx::new(opts), relax), Verdict::Fail, "{}: {mutant} under {oracle}", f.display());
            assert_ne!(verdict(&RacerDx::default(), Relax::default()), Verdict::Fail, "{}: real analysis under {oracle}", f.display());
            checked += 1;
        }
    }
    assert!(checked >= 4, "only {checked} negative checks");
}

fn seeded_bytes(rng: &mut TestRng, len: usize) -> Vec<u8> {
    use proptest::prelude::Rng;
    let mut b = vec![0u8; len];
    rng.fill_bytes(&mut b);
    b
}

/// The first generated program (fixed seed) on which `oracle` fails for `mutant`, and how
/// many programs that took.
fn hunt(mutant: &str, oracle: usize, budget: usize) -> Option<(usize, Program)> {
    let (opts, relax) = mutants::racerdx(Some(mutant)).unwrap();
    let a = RacerDx::new(opts);
    let knobs = RacerDxKnobs { unmatched_unlock: relax.balanced_locking, ..RacerDxKnobs::default() };
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[11; 32]);
    for i in 1..=budget {
        let len = 8 + (i % 40);
        let p = build(&seeded_bytes(&mut rng, len), knobs);
        let v = if oracle == 0 { tp(&p, &a, relax).verdict } else { racerdx_complete::check(&p, &a, 1, relax).verdict };
        if v == Verdict::Fail {
            return Some((i, p));
        }
    }
    None
}

/// Every mutant the spec says breaks a theorem is caught by that theorem's oracle within a
/// fixed budget of generated programs; every mutant it calls equivalent is not.
#[test]
fn mutants_are_caught_as_predicted() {
    const BUDGET: usize = 400;
    let mut table = String::new();
    for m in MUTANTS {
        for (i, oracle) in ["racerdx-tp", "racerdx-complete"].iter().enumerate() {
            let found = hunt(m.name, i, BUDGET);
            match (m.predicted[i], &found) {
                (Prediction::BreaksTheorem, None) => panic!("{} not caught by {oracle} in {BUDGET} programs", m.name),
                (Prediction::Equivalent, Some((n, p))) => panic!("{} predicted equivalent under {oracle}, but program {n} fails:\n{}", m.name, print(p)),
                _ => {}
            }
            let seen = found.map_or_else(|| format!("not caught in {BUDGET}"), |(n, _)| format!("caught at program {n}"));
            table.push_str(&format!("{:<30} {:<17} {:<15} {seen}\n", m.name, oracle, format!("{:?}", m.predicted[i])));
        }
    }
    insta::assert_snapshot!(table);
}

/// The real analysis passes both oracles on a larger budget (proptest, fixed seed), and
/// the runs are not vacuous: most are conclusive and many programs have confirmed reports.
#[test]
fn real_analysis_passes_generated_programs() {
    let a = RacerDx::default();
    let (conclusive, confirmed) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    crate::runner(600)
        .run(&racerdx_program(RacerDxKnobs::default()), |p| {
            let r = tp(&p, &a, Relax::default());
            proptest::prop_assert_ne!(r.verdict, Verdict::Fail, "{}\n{:#?}", print(&p), r.reports);
            confirmed.set(confirmed.get() + usize::from(r.verdict == Verdict::Pass && !r.reports.is_empty()));
            let c = racerdx_complete::check(&p, &a, 1, Relax::default());
            proptest::prop_assert_ne!(c.verdict, Verdict::Fail, "{}\n{:#?}", print(&p), c.methods);
            conclusive.set(conclusive.get() + usize::from(c.verdict == Verdict::Pass));
            Ok(())
        })
        .unwrap();
    assert!(conclusive.get() > 500 && confirmed.get() > 100, "vacuous: {} conclusive, {} with confirmed reports", conclusive.get(), confirmed.get());
}

/// The same completeness property driven by quickcheck (second generator family; seeded).
#[test]
fn quickcheck_completeness() {
    fn prop(input: RacerDxInput) -> quickcheck::TestResult {
        match racerdx_complete::check(&input.program, &RacerDx::default(), 1, Relax::default()).verdict {
            Verdict::Pass => quickcheck::TestResult::passed(),
            Verdict::Fail => quickcheck::TestResult::failed(),
            Verdict::Inconclusive => quickcheck::TestResult::discard(),
        }
    }
    let tests = std::env::var("QUICKCHECK_TESTS").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    quickcheck::QuickCheck::new().rng(quickcheck::Gen::from_size_and_seed(64, 7)).tests(tests).quickcheck(prop as fn(RacerDxInput) -> quickcheck::TestResult);
}
