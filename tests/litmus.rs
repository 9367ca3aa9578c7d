//! The golden litmus tests of atomics and fences (docs/spec/atomics.md §8, `corpus/litmus/atomics/`):
//! each file's header gives its Mazurkiewicz class count under spec §7's dependence, the
//! race set of each class (as pairs of source lines) and its whole-program verdict label
//! (spec §3.4). Checked under every explorer:
//! - naive: the classes (`explore::classes`), one race set per class (the ground-truth race
//!   set is constant on a class, spec §7 \[V\]), and on every trace the vector clocks
//!   (spec §4.2) against the literal definition (spec §2, `race::literal`);
//! - optimal DPOR: exactly one execution per naive class, with the same race set;
//! - stateful search: the same final states;
//! - the `explorer-agree` oracle passes on each, and the whole-program verdict of
//!   `truth::ground_truth` carries the header's label.
//!
//! A header:
//! ```text
//! // classes: 3
//! // class-races: 1 {}
//! // class-races: 2 {11-16}
//! // verdict: racy
//! ```
//! `class-races: N {L1-L2 …}`: N classes race exactly on those pairs of lines.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use race_oracles::explore::classes::{class_key, final_state};
use race_oracles::explore::dpor::Dpor;
use race_oracles::explore::stateful::Stateful;
use race_oracles::explore::{Config, ExplorerKind, Outcome};
use race_oracles::lang::{parse, validate, Program};
use race_oracles::machine::{Event, Machine};
use race_oracles::race::{clocks_agree_with_literal, data_races};
use race_oracles::theorems::{explorer_agree, Budget, Sut, Verdict};
use race_oracles::truth::ground_truth;

type RaceSet = BTreeSet<(u32, u32)>;

/// What a litmus file's header expects.
#[derive(Debug, Default)]
struct Expected {
    classes: u64,
    groups: BTreeMap<RaceSet, u64>,
    verdict: String,
}

fn expected(src: &str) -> Expected {
    let mut e = Expected::default();
    for line in src.lines() {
        if let Some(n) = line.strip_prefix("// classes: ") {
            e.classes = n.trim().parse().unwrap();
        } else if let Some(g) = line.strip_prefix("// class-races: ") {
            let (n, set) = g.split_once(' ').unwrap();
            let set = set.trim().trim_start_matches('{').trim_end_matches('}');
            let pairs: RaceSet = set
                .split_whitespace()
                .map(|p| {
                    let (a, b) = p.split_once('-').unwrap();
                    (a.parse().unwrap(), b.parse().unwrap())
                })
                .collect();
            *e.groups.entry(pairs).or_default() += n.parse::<u64>().unwrap();
        } else if let Some(v) = line.strip_prefix("// verdict: ") {
            e.verdict = v.trim().to_string();
        }
    }
    e
}

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/litmus/atomics");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "race")).collect();
    out.sort();
    out
}

/// The races of a trace as pairs of source lines.
fn race_lines(trace: &[Event]) -> RaceSet {
    data_races(trace).iter().map(|r| (trace[r.first.0 as usize].line, trace[r.second.0 as usize].line)).map(|(a, b)| (a.min(b), a.max(b))).collect()
}

/// Per class (by key): its race set, and how many executions the explorer ran in it.
fn classes(p: &Program, explorer: ExplorerKind) -> (BTreeMap<u64, (RaceSet, u64)>, BTreeSet<String>) {
    let cfg = Config { explorer, ..Config::default() };
    let m = Machine::new(p, cfg.loop_bound);
    let mut out: BTreeMap<u64, (RaceSet, u64)> = BTreeMap::new();
    let mut finals = BTreeSet::new();
    let stats = explorer.get().explore(&m, m.initial_state().unwrap(), &cfg, &mut |ex| {
        if *ex.outcome != Outcome::Merged {
            finals.insert(final_state(&m, ex));
        }
        if explorer != ExplorerKind::Stateful {
            if let Err(e) = clocks_agree_with_literal(ex.trace) {
                panic!("{e}, on the trace {:?}", ex.trace.iter().map(|e| (e.thread.0, e.line)).collect::<Vec<_>>());
            }
            let races = race_lines(ex.trace);
            let slot = out.entry(class_key(&m, ex)).or_insert_with(|| (races.clone(), 0));
            assert_eq!(slot.0, races, "the race set is not constant on a class");
            slot.1 += 1;
        }
        ControlFlow::Continue(())
    });
    assert!(stats.complete && stats.deadlocked == 0 && stats.stuck == 0, "{stats:?}");
    (out, finals)
}

#[test]
fn litmus_golden_classes_races_and_verdicts() {
    let files = files();
    assert!(files.len() >= 20, "only {} litmus files", files.len());
    let mut kinds = BTreeSet::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let src = std::fs::read_to_string(f).unwrap();
        let p = parse(&src).unwrap_or_else(|e| panic!("{}", e.render(&name)));
        validate(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want = expected(&src);
        // Naive: classes and their race sets.
        let (naive, finals) = classes(&p, ExplorerKind::Naive);
        let mut groups: BTreeMap<RaceSet, u64> = BTreeMap::new();
        for (races, _) in naive.values() {
            *groups.entry(races.clone()).or_default() += 1;
        }
        assert_eq!((naive.len() as u64, &groups), (want.classes, &want.groups), "{name}: (classes, race sets per class)");
        // DPOR: one execution per class, the same classes and race sets.
        let (dpor, dpor_finals) = classes(&p, ExplorerKind::Dpor);
        assert_eq!(dpor.keys().collect::<Vec<_>>(), naive.keys().collect::<Vec<_>>(), "{name}: DPOR's classes");
        assert!(dpor.values().all(|(_, n)| *n == 1), "{name}: DPOR ran a class twice");
        assert!(dpor.iter().all(|(k, (r, _))| naive[k].0 == *r), "{name}: DPOR's race sets");
        // Stateful: the same final states.
        let (_, stateful_finals) = classes(&p, ExplorerKind::Stateful);
        assert_eq!((&dpor_finals, &stateful_finals), (&finals, &finals), "{name}: final states");
        // The explorer-agree oracle.
        let explorers = explorer_agree::FastExplorers { name: "explorers", stateful: &Stateful::REAL, dpor: &Dpor::REAL };
        let r = explorer_agree::ORACLE.check(&p, &Sut::Explorers(explorers), &Budget { explore: Config::default(), relax: Default::default() });
        assert_eq!(r.verdict, Verdict::Pass, "{name}: explorer-agree: {:?} {:?}", r.note, r.items.iter().map(|i| &i.explanation).collect::<Vec<_>>());
        // The whole-program verdict and its label (spec §3.4).
        let run = &ground_truth(&p, &Config::default(), None).unwrap()[0];
        assert_eq!(run.classes, Some(want.classes), "{name}");
        assert_eq!(run.verdict.to_string(), want.verdict, "{name}: whole-program verdict");
        kinds.insert(want.verdict);
    }
    assert_eq!(kinds.len(), 3, "every label is exercised: {kinds:?}");
}

/// One statement of a generated atomic program (valid orders only, spec §1.2).
fn atomic_stmt() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let field = || proptest::sample::select(&["f", "x"][..]);
    let load = proptest::sample::select(&["relaxed", "acquire", "seq_cst"][..]);
    let store = proptest::sample::select(&["relaxed", "release", "seq_cst"][..]);
    let rmw = proptest::sample::select(&["relaxed", "acquire", "release", "acq_rel", "seq_cst"][..]);
    let fence = proptest::sample::select(&["acquire", "release", "acq_rel", "seq_cst"][..]);
    let pairs = proptest::sample::select(&[("seq_cst", "seq_cst"), ("acq_rel", "acquire"), ("release", "relaxed"), ("acquire", "acquire"), ("relaxed", "relaxed")][..]);
    prop_oneof![
        3 => (any::<bool>(), proptest::sample::select(&["d", "d", "f"][..])).prop_map(|(w, f)| if w { format!("o.{f} = 1") } else { format!("t = o.{f}") }),
        2 => (field(), load).prop_map(|(f, o)| format!("r = o.{f}.load({o})")),
        2 => (field(), 1i64..3, store).prop_map(|(f, v, o)| format!("o.{f}.store({v}, {o})")),
        1 => (field(), rmw.clone()).prop_map(|(f, o)| format!("r = o.{f}.fetch_add(1, {o})")),
        1 => (field(), rmw).prop_map(|(f, o)| format!("r = o.{f}.xchg(2, {o})")),
        1 => (field(), 0i64..2, pairs).prop_map(|(f, e, (s, fl))| format!("ok = o.{f}.cas({e}, 2, {s}, {fl})")),
        1 => fence.prop_map(|o| format!("fence({o})")),
        // Message passing halves, so that synchronization decides some races.
        1 => proptest::sample::select(&["release", "seq_cst", "relaxed"][..]).prop_map(|o| format!("o.d = 1\n  o.f.store(1, {o})")),
        1 => proptest::sample::select(&["acquire", "seq_cst", "relaxed"][..]).prop_map(|o| format!("r = o.f.load({o})\n  t = o.d")),
    ]
}

/// Small bfj2 programs with atomics and fences: two or three threads, at most eight
/// statements in all, over one plain and two atomic fields.
fn atomic_program() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let threads = proptest::collection::vec(proptest::collection::vec(atomic_stmt(), 1..4), 2..4);
    // At most 8 statements in all, so that the naive enumeration stays small.
    threads.prop_filter("at most 8 statements", |ts| ts.iter().flatten().map(|s| s.lines().count()).sum::<usize>() <= 8).prop_map(|threads| {
        let mut src = String::from("dialect bfj2\nclass C { fields d, f, x }\ninit { o = new C }\n");
        for t in threads {
            src.push_str(&format!("thread {{\n  {}\n}}\n", t.join("\n  ")));
        }
        src
    })
}

/// `explorer-agree` on generated atomic programs: DPOR runs one execution of every naive
/// class with its race set, the stateful search reaches the same final states, the race set
/// is constant on each class, and on every trace the vector clocks (spec §4.2) agree with
/// the literal definition (spec §2). Counts what it compared.
#[test]
fn explorers_and_clocks_agree_on_generated_atomic_programs() {
    let (compared, racy, synchronized) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
    crate::runner(400)
        .run(&atomic_program(), |src| {
            let p = parse(&src).unwrap();
            validate(&p).map_err(|e| proptest::test_runner::TestCaseError::fail(format!("{e}\n{src}")))?;
            let (naive, finals) = classes(&p, ExplorerKind::Naive);
            let (dpor, dpor_finals) = classes(&p, ExplorerKind::Dpor);
            let (_, stateful_finals) = classes(&p, ExplorerKind::Stateful);
            proptest::prop_assert_eq!(dpor.keys().collect::<Vec<_>>(), naive.keys().collect::<Vec<_>>(), "DPOR's classes\n{}", src);
            proptest::prop_assert!(dpor.values().all(|(_, n)| *n == 1), "DPOR ran a class twice\n{}", src);
            proptest::prop_assert!(dpor.iter().all(|(k, (r, _))| naive[k].0 == *r), "DPOR's race sets\n{}", src);
            proptest::prop_assert_eq!(&dpor_finals, &finals, "DPOR final states\n{}", src);
            proptest::prop_assert_eq!(&stateful_finals, &finals, "stateful final states\n{}", src);
            let explorers = explorer_agree::FastExplorers { name: "explorers", stateful: &Stateful::REAL, dpor: &Dpor::REAL };
            let r = explorer_agree::ATOMICS.check(&p, &Sut::Explorers(explorers), &Budget { explore: Config::default(), relax: Default::default() });
            proptest::prop_assert_eq!(r.verdict, Verdict::Pass, "explorer-agree: {:?}\n{}", r.note, src);
            compared.set(compared.get() + 1);
            racy.set(racy.get() + usize::from(naive.values().any(|(r, _)| !r.is_empty())));
            // Some class is race-free though a plain access conflicts across threads: synchronization did it.
            synchronized.set(synchronized.get() + usize::from(naive.values().any(|(r, _)| r.is_empty()) && naive.values().any(|(r, _)| !r.is_empty())));
            Ok(())
        })
        .unwrap();
    let (compared, racy, synchronized) = (compared.get(), racy.get(), synchronized.get());
    eprintln!("atomics: {compared} programs compared, {racy} racy, {synchronized} racy in some classes only");
    assert!(compared >= 300 && racy > 60 && synchronized > 5, "vacuous: {compared} compared, {racy} racy, {synchronized} racy in some classes only");
}

/// The whole-program label in the text `explore` prints and the exit code of an invalid
/// order (spec §1.2, §3.4).
#[test]
fn labels_and_order_errors_on_the_command_line() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/litmus/atomics");
    let (code, out, _) = crate::cli::racefuzz(&["explore", dir.join("L10_sb_rel_acq.race").to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no race over SC executions: inconclusive (SC executions only)"), "{out}");
    let (_, out, _) = crate::cli::racefuzz(&["explore", dir.join("L9_sb_seq_cst.race").to_str().unwrap()]);
    assert!(out.contains("  no race\n"), "{out}");
    let bad = std::env::temp_dir().join(format!("racefuzz-bad-order-{}.race", std::process::id()));
    std::fs::write(&bad, "dialect bfj2\nclass C { fields f }\ninit { o = new C }\nthread {\n  o.f.store(1, acquire)\n}\n").unwrap();
    let (code, _, err) = crate::cli::racefuzz(&["explore", bad.to_str().unwrap()]);
    let _ = std::fs::remove_file(&bad);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("atomics §1.2: store does not accept order `acquire`") && err.contains("(line 5)"), "{err}");
}

/// FastTrack with atomics (`racefuzz::analyses::fasttrack`, spec §4.2) on every trace of
/// `p` (the naive explorer): the traces compared, the racy ones, and the first trace whose
/// reported locations differ from the ground truth's racy locations, if any.
fn fasttrack_on_every_trace(p: &Program, mutant: Option<racefuzz::analyses::fasttrack::FastTrackBug>) -> (u64, u64, Option<String>) {
    use race_oracles::theorems::claim::Claim;
    let factory = racefuzz::analyses::fasttrack::FastTrackFactory { bug: mutant, on_checks: false };
    let cfg = Config { explorer: ExplorerKind::Naive, ..Config::default() };
    let m = Machine::new(p, cfg.loop_bound);
    let (mut traces, mut racy, mut mismatch) = (0, 0, None);
    let stats = ExplorerKind::Naive.get().explore(&m, m.initial_state().unwrap(), &cfg, &mut |ex| {
        traces += 1;
        let races = data_races(ex.trace);
        racy += u64::from(!races.is_empty());
        let lines = Claim::Locations.mismatches(&factory, ex.trace, &races, &|a| format!("{a:?}"), &|i| format!("event {}", i.0)).unwrap();
        if lines.is_empty() {
            return ControlFlow::Continue(());
        }
        mismatch = Some(format!("{} on the trace {:?}", lines.join("; "), ex.trace.iter().map(|e| (e.thread.0, e.line)).collect::<Vec<_>>()));
        ControlFlow::Break(())
    });
    assert!(mismatch.is_some() || stats.complete, "{stats:?}");
    (traces, racy, mismatch)
}

/// FastTrack is precise on every trace of every litmus test (spec §4.2, §8), and each of
/// its seeded atomic bugs breaks the litmus test the spec names for it (its row in
/// `analyses::fasttrack::SEEDED`).
#[test]
fn fasttrack_is_precise_on_the_litmus_tests_and_its_atomic_bugs_break_them() {
    use racefuzz::analyses::fasttrack::FastTrackBug as B;
    let (mut traces, mut racy) = (0, 0);
    let mut programs = BTreeMap::new();
    for f in files() {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let p = parse(&std::fs::read_to_string(&f).unwrap()).unwrap();
        let (n, r, mismatch) = fasttrack_on_every_trace(&p, None);
        assert_eq!(mismatch, None, "{name}");
        (traces, racy) = (traces + n, racy + r);
        programs.insert(name.split('_').next().unwrap().to_string(), p);
    }
    assert!(traces >= 500 && racy >= 200, "vacuous: {traces} traces, {racy} racy");
    let broken = [
        (B::FencesIgnored, "L3"),
        (B::RmwCutsSequence, "L6"),
        (B::RelaxedStoreKeepsSequence, "L7"),
        (B::RelaxedLoadAcquires, "L2"),
        (B::FailedCasWrites, "L13"),
        (B::ScFencesGlobal, "L12"),
    ];
    for (bug, litmus) in broken {
        assert!(fasttrack_on_every_trace(&programs[litmus], Some(bug)).2.is_some(), "{bug:?} passes {litmus}");
    }
    // A plain write ends the release sequence (spec §1.3); no §8 test has one.
    let src = "dialect bfj2\nclass C { fields d, f }\ninit { o = new C }\nthread { o.d = 1; o.f.store(1, release); o.f = 2 }\nthread { r = o.f.load(acquire); t = o.d }\n";
    let p = parse(src).unwrap();
    assert_eq!(fasttrack_on_every_trace(&p, None).2, None);
    assert!(fasttrack_on_every_trace(&p, Some(B::PlainWriteKeepsSequence)).2.is_some());
}

/// FastTrack with atomics on every trace of generated atomic programs (spec §4.2): its racy
/// locations are the ground truth's. Counts the traces compared and fails on vacuity.
#[test]
fn fasttrack_is_precise_on_generated_atomic_programs() {
    let (traces, racy, programs) = (std::cell::Cell::new(0u64), std::cell::Cell::new(0u64), std::cell::Cell::new(0u64));
    crate::runner(300)
        .run(&atomic_program(), |src| {
            let p = parse(&src).unwrap();
            let (n, r, mismatch) = fasttrack_on_every_trace(&p, None);
            proptest::prop_assert!(mismatch.is_none(), "{}\n{}", mismatch.unwrap_or_default(), src);
            traces.set(traces.get() + n);
            racy.set(racy.get() + r);
            programs.set(programs.get() + 1);
            Ok(())
        })
        .unwrap();
    let (traces, racy, programs) = (traces.get(), racy.get(), programs.get());
    eprintln!("fasttrack on atomics: {programs} programs, {traces} traces compared, {racy} racy");
    assert!(programs >= 250 && traces >= 5_000 && racy >= 1_000 && racy < traces, "vacuous: {programs} programs, {traces} traces, {racy} racy");
}
