//! `bigfoot-precise`, through the oracle registry: the paper's BigFoot figures (with their
//! hand-placed checks, plus the per-access placer's) judged on every interleaving, as a
//! snapshot of verdicts, check ratios and racy locations; every seeded bug of the
//! per-access placer caught within a fixed budget of generated programs; and DynamicBF
//! run on the per-access placer's checks (with the figures' coalesced ones) and held to
//! the same oracle before BigFoot's own placer exists.

use std::cell::Cell;
use std::path::Path;

use proptest::test_runner::{RngAlgorithm, TestRng};
use race_oracles::lang::{parse, Program, Relax};
use race_oracles::theorems::{bigfoot_precise, Budget, DetectorFactory, DynamicDetector, Registry, Sut, Verdict};
use racefuzz::analyses::bigfoot::dynamic::{DynamicBfBug, DynamicBfFactory};
use racefuzz::analyses::per_access::PerAccess;
use racefuzz::render;
use racefuzz::suts::{self, Subject};

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

#[test]
fn per_access_mutants_are_caught_as_predicted() {
    let (table, wrong, caught) = super::judge_mutants("per-access", 600, (13, 8, 40), (26, 16));
    assert!(wrong.is_empty(), "{}\n\n{table}", wrong.join("\n"));
    assert!(caught >= 3, "only {caught} caught\n{table}");
    insta::assert_snapshot!(table);
}

/// A detector factory that counts the detectors it makes (one per compared trace), also
/// through the per-program factory the oracle asks it for.
struct Counting<'a, F: ?Sized> {
    inner: &'a F,
    made: &'a Cell<u64>,
}

impl<F: DetectorFactory + ?Sized> DetectorFactory for Counting<'_, F> {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        self.made.set(self.made.get() + 1);
        self.inner.fresh()
    }

    fn for_program(&self, p: &Program) -> Box<dyn DetectorFactory + '_> {
        let inner = self.inner.for_program(p);
        Box::new(Owned { inner, made: self.made })
    }
}

/// [`Counting`] over a per-program factory it owns.
struct Owned<'a> {
    inner: Box<dyn DetectorFactory + 'a>,
    made: &'a Cell<u64>,
}

impl DetectorFactory for Owned<'_> {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        self.made.set(self.made.get() + 1);
        self.inner.fresh()
    }
}

/// DynamicBF (no seeded bug) on the per-access placer's checks, over the paper's figures
/// (whose hand-placed checks include the array range `a[0..i]` and the coalesced fields
/// `this.x/y/z`) and a fixed stream of generated programs: `bigfoot-precise` never fails,
/// and enough traces are compared, some of them racy, for that to mean something.
#[test]
fn dynamic_bf_on_per_access_checks_is_precise() {
    let placer = PerAccess::default();
    let dbf = DynamicBfFactory { bug: None };
    let made = Cell::new(0u64);
    let factory = Counting { inner: &dbf, made: &made };
    let budget = Budget { explore: suts::campaign_bounds(), relax: Relax::default() };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/bigfoot");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut programs: Vec<(String, Program)> = files.iter().map(|f| (f.display().to_string(), parse(&std::fs::read_to_string(f).unwrap()).unwrap())).collect();
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &[17; 32]);
    for i in 0..200 {
        use proptest::prelude::Rng;
        let mut bytes = vec![0u8; 8 + i % 40];
        rng.fill_bytes(&mut bytes);
        programs.push((format!("generated program {i}"), (bigfoot_precise::ORACLE.generate)(&bytes, Relax::default())));
    }
    let (mut passed, mut racy) = (0, 0);
    for (what, p) in &programs {
        let r = bigfoot_precise::ORACLE.check(p, &Sut::Placer(&placer, &factory), &budget);
        assert_ne!(r.verdict, Verdict::Fail, "{what}:\n{}\n{}", render::result_brief(&r), race_oracles::lang::print(p));
        passed += usize::from(r.verdict == Verdict::Pass);
        racy += usize::from(r.items.iter().any(|i| i.explanation.iter().any(|e| e.contains("racy locations:") && !e.ends_with("racy locations: none"))));
    }
    assert!(made.get() >= 10_000, "only {} traces compared", made.get());
    assert!(passed >= 100, "only {passed} of {} programs conclusive", programs.len());
    assert!(racy >= 20, "only {racy} programs with a racy location");
    // And the comparison has teeth: footprints dropped at the end miss fig. 3.6(b)'s race
    // on a[1], which only the commit at the end of the trace finds.
    let dropped = DynamicBfFactory { bug: Some(DynamicBfBug::NoCommitAtEnd) };
    let fig = programs.iter().find(|(w, _)| w.ends_with("fig3_6b_loop.race")).map(|(_, p)| p).unwrap();
    assert_eq!(bigfoot_precise::ORACLE.check(fig, &Sut::Placer(&placer, &dropped), &budget).verdict, Verdict::Fail);
}
