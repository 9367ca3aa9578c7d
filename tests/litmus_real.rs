//! The atomics litmus corpus (`corpus/litmus/atomics/`, docs/spec/atomics.md §8) through the
//! real detectors of the C replay (docs/spec/atomics.md §6.1): ThreadSanitizer under gcc 12
//! and clang 19, Helgrind and DRD, and through Go's (§6.3), Go's race detector on each test
//! strengthened, each on one trace per Mazurkiewicz class, against the
//! table of predicted deviations that the book prints
//! (`docs/book/src/own-tool/real-detectors.md`, "Atomics: the litmus tests"), derived from
//! spec §4.4 and §5. A changed tool, replay or ground truth shows up as a changed row.
//! Also the replay's tripwires: L3 (fence message passing) keeps ThreadSanitizer's false
//! positive (were fences modelled, the replay's turns would need to hide them too, §6.1
//! "Fence caveat"), and a replay made to diverge from its trace exits with its own status
//! and is no answer.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::Path;

use race_oracles::explore::{Config, ExplorerKind};
use race_oracles::lang::parse;
use race_oracles::machine::Machine;
use race_oracles::race::data_races;
use race_oracles::theorems::detector::reported_locations;
use race_oracles::theorems::{Registry, Sut};
use racefuzz::sut_spec::SutSpec;
use racefuzz::suts::Subject;

/// A litmus test, and the deviations predicted for ThreadSanitizer, for Valgrind's tools and
/// for Go's race detector.
type Row = (&'static str, &'static str, &'static str, &'static str);

/// Per litmus test: the predicted deviations of ThreadSanitizer (both compilers), of
/// Helgrind and DRD, and of Go's race detector on the test strengthened (docs/spec/atomics.md
/// §6.3: judged against the strengthened test's ground truth), over the test's classes: `=`
/// (exact on every class), `FP` the locations reported on some class where they do not race,
/// `FN` those missed on some class where they race. The book's table is this one.
pub const PREDICTED: &[Row] = &[
    ("L1_mp_rel_acq", "=", "FP o.d, o.f", "="),
    ("L2_mp_relaxed_load", "=", "FP o.f", "="),
    ("L2b_mp_relaxed_store", "=", "FP o.f", "="),
    ("L3_mp_fence_fence", "FP o.d", "FP o.d, o.f", "="),
    ("L4_mp_fence_atomic", "FP o.d", "FP o.d, o.f", "="),
    ("L5_mp_atomic_fence", "FP o.d", "FP o.d, o.f", "="),
    ("L5b_mp_relaxed_fence", "=", "FP o.f", "="),
    ("L6_release_sequence_rmw", "=", "FP o.d, o.f", "="),
    ("L7_release_sequence_cut", "FN o.d", "FP o.d, o.f", "="),
    ("L8_same_thread_relaxed_store", "FN o.d", "FP o.d, o.f", "="),
    ("L9_sb_seq_cst", "=", "=", "="),
    ("L10_sb_rel_acq", "=", "FP o.x, o.y", "="),
    ("L11_cas_spinlock", "=", "FP o.d, o.l", "="),
    ("L11b_cas_spinlock_relaxed_unlock", "=", "FP o.l", "="),
    ("L11c_cas_spinlock_relaxed_lock", "=", "FP o.l", "="),
    ("L12_sc_fences_only", "=", "=", "="),
    ("L13_failed_cas_plain_read", "FP o.x", "=", "FP o.x"),
    ("L13b_successful_cas_plain_read", "=", "FN o.x", "="),
    ("L14_fence_hypothetical_release_sequence", "FP o.d", "FP o.d, o.f", "="),
    ("L15_fence_own_reads_only", "=", "FP o.f, o.y", "="),
];

/// The real detector `sut`, as `fasttrack-precise` judges it (one per test: its replay is
/// compiled once).
fn subject(sut: &str) -> Subject {
    let reg = Registry::builtin();
    Subject::new(reg.find("fasttrack-precise").unwrap(), &SutSpec::catalogued(Some(sut), None).unwrap()).unwrap()
}

/// The deviations of `sut` on the litmus test `name`, over one trace per class, as
/// [`PREDICTED`] writes them.
fn deviations(sut: &Subject, name: &str) -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/litmus/atomics").join(format!("{name}.race"));
    let p = parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    // What the SUT is judged on: strengthen(p) for Go (spec §6.3), else the test itself.
    let p = sut.entry().atomics.judged_program(&p).unwrap_or(p);
    let Sut::Detector(factory) = sut.sut() else { panic!("{} is no detector", sut.entry().name) };
    let sut = sut.entry().name;
    let factory = factory.for_program(&p);
    let cfg = Config { explorer: ExplorerKind::Dpor, ..racefuzz::suts::campaign_bounds() };
    let m = Machine::new(&p, cfg.loop_bound);
    let (mut fp, mut fn_, mut classes) = (BTreeSet::new(), BTreeSet::new(), 0);
    let stats = cfg.explorer.get().explore(&m, m.initial_state().unwrap(), &cfg, &mut |ex| {
        classes += 1;
        let name = |a| ex.state.addr_name(&m, a);
        let racy: BTreeSet<String> = data_races(ex.trace).iter().map(|r| name(r.addr)).collect();
        let run = reported_locations(factory.as_ref(), ex.trace, &name).unwrap_or_else(|e| panic!("{sut} on {name}: no answer: {e}", name = file.display()));
        let reported: BTreeSet<String> = run.locations.into_keys().collect();
        fp.extend(reported.difference(&racy).cloned());
        fn_.extend(racy.difference(&reported).cloned());
        ControlFlow::Continue(())
    });
    assert!(stats.complete && classes > 0, "{name}: {classes} classes, complete: {}", stats.complete);
    let list = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
    match (fp.is_empty(), fn_.is_empty()) {
        (true, true) => "=".into(),
        (false, true) => format!("FP {}", list(&fp)),
        (true, false) => format!("FN {}", list(&fn_)),
        (false, false) => format!("FP {}; FN {}", list(&fp), list(&fn_)),
    }
}

/// Every litmus test has a row, and every row a test.
#[test]
fn the_prediction_table_covers_the_litmus_corpus() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/litmus/atomics");
    let mut files: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path().file_stem().unwrap().to_string_lossy().into_owned()).collect();
    files.sort();
    let mut rows: Vec<String> = PREDICTED.iter().map(|r| r.0.to_string()).collect();
    rows.sort();
    assert_eq!(files, rows);
}

/// The detectors' actual deviations, test by test, against [`PREDICTED`].
fn check_predictions(sut: &str, column: fn(&Row) -> &'static str) {
    let subject = subject(sut);
    let wrong: Vec<String> = PREDICTED
        .iter()
        .filter_map(|row| {
            let got = deviations(&subject, row.0);
            (got != column(row)).then(|| format!("{}: predicted `{}`, got `{got}`", row.0, column(row)))
        })
        .collect();
    assert!(wrong.is_empty(), "{sut} deviates from the table:\n{}", wrong.join("\n"));
}

#[test]
fn tsan_gcc_deviates_on_the_litmus_tests_as_predicted() {
    needs!(Tsan);
    check_predictions("tsan@gcc-12", |r| r.1);
}

#[test]
fn tsan_clang_deviates_on_the_litmus_tests_as_predicted() {
    needs!(Clang);
    check_predictions("tsan@clang-19", |r| r.1);
}

#[test]
fn helgrind_deviates_on_the_litmus_tests_as_predicted() {
    needs!(Valgrind);
    check_predictions("helgrind", |r| r.2);
}

#[test]
fn drd_deviates_on_the_litmus_tests_as_predicted() {
    needs!(Valgrind);
    check_predictions("drd", |r| r.2);
}

#[test]
fn go_race_deviates_on_the_strengthened_litmus_tests_as_predicted() {
    needs!(Go);
    check_predictions("go-race", |r| r.3);
}

/// docs/spec/atomics.md §6.1 "Fence caveat": ThreadSanitizer ignores fences, so the replay's
/// turns may sit next to a program's fences; the day it models them, L3's false positive
/// goes and this test says the turns' ignore-sync region must cover fences too.
#[test]
fn l3_tripwire_tsan_still_ignores_fences() {
    needs!(Tsan);
    assert_eq!(
        deviations(&subject("tsan"), "L3_mp_fence_fence"),
        "FP o.d",
        "ThreadSanitizer now models fences: make the replay's ignore-sync region cover them (docs/spec/atomics.md §6.1)"
    );
}

/// A replay given a trace whose atomic read names another write exits with its own status,
/// which is `ReplayError::Diverged`, never an answer.
#[test]
fn a_replay_that_diverges_from_its_trace_is_no_answer() {
    let p = parse("dialect bfj2\nclass C { fields f }\ninit { o = new C }\nthread { o.f.store(1, release) }\nthread { r = o.f.load(acquire) }\n").unwrap();
    let cc = racefuzz::replay::cc();
    let dir = std::env::temp_dir().join(format!("racefuzz-diverge-test-{}", std::process::id()));
    let binary =
        racefuzz::replay::run::compile(&racefuzz::replay::export::c_program(&p, "", "test", None), &racefuzz::replay::Compiler::c(cc, &["-std=c11", "-O1", "-pthread"]), &dir)
            .unwrap();
    let run = |trace: &str| {
        let mut c = std::process::Command::new(&binary);
        c.arg(trace);
        racefuzz::replay::run::run(c, std::time::Duration::from_secs(10))
    };
    // Event 0 stores 1 (event 0's own value), event 1 loads it: the value 1.
    assert!(run("2 0.S.4.0.0.3.0.0 1.L.5.0.0.2.0.1").is_ok());
    // The same trace, claiming the load reads the initial value.
    let diverged = run("2 0.S.4.0.0.3.0.0 1.L.5.0.0.2.0.0");
    assert!(matches!(diverged, Err(racefuzz::replay::ReplayError::Diverged(_))), "{diverged:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
