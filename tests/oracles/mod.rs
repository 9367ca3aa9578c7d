//! One module per oracle (or family), mirroring `oracles/src/theorems/`, and the mutant hunts
//! of every SUT ([`hunt`]). A toy oracle that shows how one is added is in `tests/extending.rs`.

mod bigfoot;
mod escape;
mod explorer_agree;
mod fasttrack;
mod filters;
mod hunt;
mod ldrf;
mod ldrf_sound;
mod naik_aiken;
mod racerdx;

use proptest::test_runner::{RngAlgorithm, TestRng};
use race_oracles::lang::Program;
use race_oracles::theorems::{Registry, Verdict};
use racefuzz::suts::{self, Subject};

/// A quickcheck result for an oracle's verdict: an inconclusive case is discarded.
fn quickcheck_result(v: Verdict) -> quickcheck::TestResult {
    match v {
        Verdict::Pass => quickcheck::TestResult::passed(),
        Verdict::Fail => quickcheck::TestResult::failed(),
        Verdict::Inconclusive => quickcheck::TestResult::discard(),
    }
}

/// Counts a verdict of a quickcheck property: a pass is judged, an inconclusive is not (a
/// failure stops the run anyway).
fn count_verdict(v: Verdict, judged: &std::sync::atomic::AtomicUsize, inconclusive: &std::sync::atomic::AtomicUsize) {
    use std::sync::atomic::Ordering;
    match v {
        Verdict::Pass => judged.fetch_add(1, Ordering::Relaxed),
        Verdict::Inconclusive => inconclusive.fetch_add(1, Ordering::Relaxed),
        Verdict::Fail => 0,
    };
}

/// The vacuity floor of a property run: something judged, and at least `pct` percent of the
/// programs checked judged rather than inconclusive.
fn assert_judged(judged: usize, inconclusive: usize, pct: usize) {
    assert!(judged > 0 && judged * 100 >= (judged + inconclusive) * pct, "vacuous: {judged} programs judged, {inconclusive} inconclusive (floor {pct}% judged)");
}

/// Runs `prop` under quickcheck with the suite's fixed seed: `QUICKCHECK_TESTS` cases (300
/// by default), at least five sixths of them conclusive.
fn quickcheck<A: quickcheck::Arbitrary + std::fmt::Debug>(prop: fn(A) -> quickcheck::TestResult) {
    let tests = std::env::var("QUICKCHECK_TESTS").ok().and_then(|v| v.parse().ok()).unwrap_or(300);
    quickcheck::QuickCheck::new().rng(quickcheck::Gen::from_size_and_seed(64, 7)).tests(tests).max_tests(tests * 2).min_tests_passed(tests * 5 / 6).quickcheck(prop);
}

/// The first program of the oracle's generator on which it fails for `mutant` (none: the real
/// SUT, for a negative control), and how many
/// programs that took: program i is built from `min_len + i % spread` bytes of a ChaCha
/// stream seeded with `seed` (fixed, so a hunt is reproducible and its count a snapshot).
fn hunt(mutant: Option<&str>, id: &str, budget: usize, seed: u8, min_len: usize, spread: usize) -> Option<(usize, Program)> {
    use proptest::prelude::Rng;
    let o = *Registry::builtin().find(id).unwrap();
    let s = Subject::for_oracle(&o, mutant).unwrap();
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]);
    (1..=budget).find_map(|i| {
        let mut bytes = vec![0u8; min_len + i % spread];
        rng.fill_bytes(&mut bytes);
        let p = o.program(&bytes, s.relax());
        (suts::check(&o, &p, &s, suts::campaign_bounds()).verdict == Verdict::Fail).then_some((i, p))
    })
}
