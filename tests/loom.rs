//! loom under test (`racefuzz::loom`): the whole-program claim, "loom reports a causality
//! violation iff the program has a data race", on tiny programs of each kind and on
//! generated ones against the ground truth.
//!
//! Only cargo is needed (always there), and crates.io on the first run: the first test to
//! ask builds loom 0.7.3's driver into racefuzz's cache (`~/.cache/racefuzz`, or
//! `$RACEFUZZ_CACHE`), about 2.5 minutes on two cores; later runs reuse it. Older versions
//! are built only by the ignored `every_version_fares_as_recorded`
//! (`cargo test --test integration loom -- --ignored`), tens of seconds per version.

use race_oracles::explore::Config;
use race_oracles::gen::threads::swarm_detectors;
use race_oracles::lang::{print, Relax};
use race_oracles::theorems::{whole_program, Budget, Sut, Verdict};
use race_oracles::truth::ground_truth;
use racefuzz::loom::{Loom, LoomVerdict, Support, VERSIONS};
use racefuzz::score::limitations::KNOWN;

use super::cli::{racefuzz, temp_dir};

/// The version CI builds.
const CI_VERSION: &str = "0.7.3";

fn loom(version: &str) -> Loom {
    Loom::new(version).unwrap_or_else(|e| panic!("{e}"))
}

fn verdict(l: &Loom, program: &str) -> LoomVerdict {
    l.run(program).unwrap_or_else(|e| panic!("loom {}: {e}\n{program}", l.version))
}

/// Two threads write one field without a lock; the same under a lock; a write ordered
/// before and after a forked write by fork and join; and six threads, beyond every
/// version's thread limit.
const RACY: &str = "dialect bfj\ninit { o = new }\nthread { o.f = 1 }\nthread { o.f = 2 }\n";
const LOCKED: &str = "dialect bfj\ninit { o = new; l = new }\nthread { acq(l); o.f = 1; rel(l) }\nthread { acq(l); t = o.f; rel(l) }\n";
const FORK_JOIN: &str = "dialect bfj2\ninit { o = new }\nthread { o.f = 1; h = fork { o.f = 2 }; join(h); t = o.f }\n";
const TOO_MANY: &str = "dialect bfj\ninit { o = new }\nthread { o.f = 1 }\nthread { o.g = 1 }\nthread { o.h = 1 }\nthread { o.i = 1 }\nthread { o.j = 1 }\nthread { o.k = 1 }\n";
/// The race is only on the `else` side of a choice: loom must see the other alternative.
const RACY_ELSE: &str = "dialect bfj\ninit { o = new }\nthread { if * { skip } else { o.f = 1 } }\nthread { t = o.f }\n";

/// The race is on `n1.h`, which thread 1 reaches through the prefix `o1.f` only if it reads
/// that prefix after thread 2 published `n1` there (a prefix read is not an access).
const RACY_BEHIND_A_PREFIX: &str = "dialect bfj2\nclass C { fields f, g, h }\ninit { o1 = new C; o2 = new C; o1.f = o2; m0 = new C }\nthread { sync(m0) { o1.f.h = 0 } }\nthread { n1 = new C; o1.f = n1; n1.h = 2 }\n";

/// A write after an unordered read (loom 0.2.0 to 0.2.2 record no reads).
const READ_THEN_WRITE: &str = "dialect bfj\ninit { o = new }\nthread { t = o.f }\nthread { o.f = 1 }\n";
/// A write after joining a forked reader, against a read under a lock in another thread's
/// child: loom 0.2.3 to 0.2.14 miss it (generated: `racefuzz gen fasttrack-precise --count
/// 200 --seed 7`, program 141).
const FORKED_READERS: &str =
    "dialect bfj2\ninit { o = new; m = new }\nthread { h1 = fork { r = o.h }; r = o.h; join(h1); o.h = 0 }\nthread { h2 = fork { acq(m); r = o.h; rel(m) }; join(h2) }\n";

fn check_tiny_programs(l: &Loom) {
    assert!(matches!(verdict(l, READ_THEN_WRITE), LoomVerdict::Race { .. }), "loom {}", l.version);
    assert!(matches!(verdict(l, FORKED_READERS), LoomVerdict::Race { .. }), "loom {}", l.version);
    assert!(matches!(verdict(l, RACY_BEHIND_A_PREFIX), LoomVerdict::Race { address, .. } if address.ends_with(".h")));
    let racy = verdict(l, RACY);
    assert!(matches!(&racy, LoomVerdict::Race { address, line: 3 | 4, .. } if address == "o.f"), "{racy:?}");
    assert!(matches!(verdict(l, LOCKED), LoomVerdict::NoRace { executions } if executions > 1));
    assert!(matches!(verdict(l, FORK_JOIN), LoomVerdict::NoRace { .. }));
    assert!(matches!(verdict(l, TOO_MANY), LoomVerdict::BeyondBounds { why } if why.contains("threads")));
    assert!(matches!(verdict(l, RACY_ELSE), LoomVerdict::Race { .. }));
}

#[test]
fn loom_judges_the_tiny_programs() {
    check_tiny_programs(&loom(CI_VERSION));
}

#[test]
fn a_program_loom_cannot_run_is_an_error_or_beyond_never_no_race() {
    let l = loom(CI_VERSION);
    assert!(matches!(l.run("dialect bfj\nthread { o.f = }\n"), Err(racefuzz::loom::LoomError::BadProgram(_))));
    let deadlock = "dialect bfj\ninit { a = new; b = new }\nthread { acq(a); acq(b); rel(b); rel(a) }\nthread { acq(b); acq(a); rel(a); rel(b) }\n";
    assert!(matches!(verdict(&l, deadlock), LoomVerdict::BeyondBounds { why } if why.contains("deadlock")));
    let racerdx = "dialect racerdx\nmethod m(arg1) { t = arg1.g.h; skip }\n";
    assert!(matches!(verdict(&l, racerdx), LoomVerdict::BeyondBounds { why } if why.contains("racerdx")));
    let spin = "dialect bfj\ninit { o = new }\nthread { while (true) { skip } }\n";
    let short = Loom { bounds: racefuzz::loom::Bounds { max_steps: 1_000, ..l.bounds }, ..l.clone() };
    assert!(matches!(verdict(&short, spin), LoomVerdict::BeyondBounds { why } if why.contains("steps")));
    let slow = Loom { timeout: std::time::Duration::from_millis(300), bounds: racefuzz::loom::Bounds { max_steps: u64::MAX, ..l.bounds }, ..l };
    assert!(matches!(slow.run(spin), Err(racefuzz::loom::LoomError::Timeout { .. })), "a timeout is an error, never a verdict");
}

#[test]
fn a_version_that_does_not_exist_is_an_error() {
    assert!(Loom::new("0.9.0").is_err());
    let e = loom("0.7.99").driver().unwrap_err();
    assert!(matches!(e, racefuzz::loom::LoomError::NoSuchVersion { .. }), "{e}");
}

/// A fixed-seed byte stream (xorshift64*), so the programs are the same on every run.
fn bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.max(1);
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

/// loom 0.7.3 against the ground truth on the detector oracles' generated programs
/// (`fasttrack-precise`'s, BFJ2 thread programs with locks, forks, joins and choices):
/// every verdict loom gives equals the ground truth's, and enough are given.
#[test]
fn loom_agrees_with_the_ground_truth_on_generated_programs() {
    let l = loom(CI_VERSION);
    let (mut compared, mut racy, mut beyond) = (0, 0, vec![]);
    for seed in 1..=30u64 {
        let p = swarm_detectors(&bytes(seed, 96), Relax::default());
        let runs = ground_truth(&p, &Config::default(), None).unwrap();
        let truth = &runs[0];
        if !truth.executions.complete {
            continue;
        }
        let text = print(&p);
        match verdict(&l, &text) {
            LoomVerdict::BeyondBounds { why } => beyond.push(why),
            v => {
                let says = matches!(v, LoomVerdict::Race { .. });
                assert_eq!(says, truth.racy, "loom says {v:?}, the ground truth {:?} on\n{text}", truth.racy_addresses);
                if let LoomVerdict::Race { address, .. } = &v {
                    assert!(truth.racy_addresses.contains(address), "loom's {address} is not among {:?}\n{text}", truth.racy_addresses);
                }
                compared += 1;
                racy += usize::from(says);
            }
        }
    }
    eprintln!("loom {CI_VERSION}: {compared} programs compared ({racy} racy), {} beyond bounds: {beyond:?}", beyond.len());
    assert!(compared >= 20 && racy >= 5 && compared - racy >= 5, "vacuous: {compared} compared, {racy} racy; beyond: {beyond:?}");
}

/// Every version [`VERSIONS`] lists fares as it says: those that agree pass the tiny
/// programs, those that deviate still build and answer, the unsupported ones are refused.
/// Tens of seconds per version on a first run (race-oracles is built once, in the shared
/// target folder): `cargo test --test integration loom -- --ignored`.
#[test]
#[ignore = "builds every published loom version (minutes in all)"]
fn every_version_fares_as_recorded() {
    for (v, support) in VERSIONS {
        match support {
            Support::Agrees => check_tiny_programs(&loom(v)),
            Support::Deviates(_) => assert!(loom(v).run(RACY).is_ok(), "loom {v} no longer builds or runs"),
            Support::Unsupported(_) => assert!(Loom::new(v).is_err(), "loom {v}"),
        }
    }
}

/// The atomics litmus tests (`corpus/litmus/atomics/`, docs/spec/atomics.md §8) through loom
/// 0.7.3, measured: loom's answer (the driver's line: `race`, `race-non-sc` after a load
/// returned an older store, `no-race`) and `whole-program-exact-atomics`' verdict
/// (spec §3.4). The deviations are spec §5.3's: L9 (all seq_cst, race-free by DRF-SC) is
/// reported after both loads read the initial value, a false positive; L12 (SC fences
/// only) is missed: fences are no scheduling points, so loom runs one execution, F1 before
/// F2, whose global SC-fence clock orders the accesses. L10 is a possible weak-memory race
/// (inconclusive), and the race-free L11 and L13 have weak orders (inconclusive, SC
/// executions only).
const LITMUS: &[(&str, &str, Verdict)] = &[
    ("L1_mp_rel_acq", "race-non-sc o.d", Verdict::Pass),
    ("L2_mp_relaxed_load", "race-non-sc o.d", Verdict::Pass),
    ("L2b_mp_relaxed_store", "race-non-sc o.d", Verdict::Pass),
    ("L3_mp_fence_fence", "race-non-sc o.d", Verdict::Pass),
    ("L4_mp_fence_atomic", "race-non-sc o.d", Verdict::Pass),
    ("L5_mp_atomic_fence", "race-non-sc o.d", Verdict::Pass),
    ("L5b_mp_relaxed_fence", "race-non-sc o.d", Verdict::Pass),
    ("L6_release_sequence_rmw", "race-non-sc o.d", Verdict::Pass),
    ("L7_release_sequence_cut", "race-non-sc o.d", Verdict::Pass),
    ("L8_same_thread_relaxed_store", "race-non-sc o.d", Verdict::Pass),
    ("L9_sb_seq_cst", "race-non-sc o.d", Verdict::Fail),
    ("L10_sb_rel_acq", "race-non-sc o.d", Verdict::Inconclusive),
    ("L11_cas_spinlock", "no-race", Verdict::Inconclusive),
    ("L11b_cas_spinlock_relaxed_unlock", "race o.d", Verdict::Pass),
    ("L11c_cas_spinlock_relaxed_lock", "race o.d", Verdict::Pass),
    ("L12_sc_fences_only", "no-race", Verdict::Fail),
    ("L13_failed_cas_plain_read", "no-race", Verdict::Inconclusive),
    ("L13b_successful_cas_plain_read", "race o.x", Verdict::Pass),
    ("L14_fence_hypothetical_release_sequence", "race-non-sc o.d", Verdict::Pass),
    ("L15_fence_own_reads_only", "race-non-sc o.d", Verdict::Pass),
];

#[test]
fn loom_on_the_atomics_litmus_tests_is_as_measured() {
    let l = loom(CI_VERSION);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/litmus/atomics");
    let budget = Budget { explore: Config::default(), relax: Default::default() };
    let mut got = vec![];
    for (name, _, _) in LITMUS {
        let text = std::fs::read_to_string(dir.join(format!("{name}.race"))).unwrap();
        let says = match verdict(&l, &text) {
            LoomVerdict::Race { address, .. } => format!("race {address}"),
            LoomVerdict::RaceNonSc { address, .. } => format!("race-non-sc {address}"),
            LoomVerdict::NoRace { .. } => "no-race".to_string(),
            other => format!("{other:?}"),
        };
        let p = race_oracles::lang::parse(&text).unwrap();
        let judged = whole_program::ATOMICS.check(&p, &Sut::ModelChecker(&l), &budget).verdict;
        got.push((*name, says, judged));
    }
    let want: Vec<(&str, String, Verdict)> = LITMUS.iter().map(|(n, s, v)| (*n, s.to_string(), *v)).collect();
    assert_eq!(got, want);
    let files = std::fs::read_dir(&dir).unwrap().filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "race"))).count();
    assert_eq!(files, LITMUS.len(), "a litmus test without a row");
}

/// Atomics the driver refuses, never a no-race: a plain write to an atomically used field
/// (loom's `with_mut` needs `&mut`).
#[test]
fn a_plain_write_to_an_atomic_field_is_beyond_loom() {
    let l = loom(CI_VERSION);
    let p = "dialect bfj2\nclass C { fields d, f }\ninit { o = new C; o.f = 1 }\nthread { o.f.store(2, release) }\nthread { o.f = 3 }\n";
    assert!(matches!(verdict(&l, p), LoomVerdict::BeyondBounds { why } if why.contains("plain write to the atomically used field `f`")));
    // `init` may write it: the atomic starts with that value, which the CAS compares with
    // (from 0 it would fail, and nothing would race).
    let q = "dialect bfj2\nclass C { fields d, f }\ninit { o = new C; o.f = 5 }\nthread { ok = o.f.cas(5, 6, seq_cst, seq_cst); if ok { o.d = 1 } }\nthread { t = o.d }\n";
    assert!(matches!(verdict(&l, q), LoomVerdict::Race { address, .. } if address == "o.d"));
}

/// `loom@V` as a SUT of `racefuzz`: judged by `whole-program-exact` on a file, named in
/// `racefuzz detectors`, refused at a version racefuzz cannot drive (exit 2).
#[test]
fn loom_is_a_sut_named_by_version() {
    let dir = temp_dir("loom-sut");
    for (name, text, says) in [("racy", RACY, "race on o.f"), ("locked", LOCKED, "no race in")] {
        let file = dir.join(format!("{name}.race"));
        std::fs::write(&file, text).unwrap();
        let (code, out, err) = racefuzz(&["check", "whole-program-exact", file.to_str().unwrap(), "--sut", &format!("loom@{CI_VERSION}")]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(&format!("with loom {CI_VERSION}: PASS")) && out.contains(says), "{out}");
    }
    let (code, out, err) = racefuzz(&["detectors", &format!("loom@{CI_VERSION}")]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("loom@{CI_VERSION}  {CI_VERSION}")), "{out}");
    let (code, _, err) = racefuzz(&["fuzz", "--sut", "loom@0.9.9", "--max-programs", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("loom has no version `0.9.9`"), "{err}");
}

/// The campaign of `fuzz --sut loom@V` runs the oracle that judges it: loom 0.7.3 agrees
/// with the ground truth on 200 programs, and loom 0.2.2, whose cell records no reads
/// (`VERSIONS`), is caught missing a race, shrunk to a read against a write: the
/// deviation of a real version stands in for a seeded bug.
#[test]
fn a_campaign_catches_the_loom_version_that_misses_races() {
    let dir = temp_dir("loom-campaign");
    let out_dir = dir.to_str().unwrap();
    // Named: `--sut loom@V` alone also runs `whole-program-exact-atomics`, which fails on
    // loom's SC-fence deviation (L12, `loom_on_the_atomics_litmus_tests_is_as_measured`).
    let (code, out, err) = racefuzz(&["fuzz", "whole-program-exact", "--sut", &format!("loom@{CI_VERSION}"), "--max-programs", "200", "--seed", "1", "--out", out_dir]);
    assert_eq!(code, 0, "{out}{err}");
    let row = out.lines().find(|l| l.starts_with("whole-program-exact")).unwrap_or_else(|| panic!("{out}"));
    let counts: Vec<u64> = row.split_whitespace().skip(1).take(4).map(|n| n.parse().unwrap()).collect();
    assert_eq!(counts[0], 200, "{row}");
    assert!(counts[1] >= 180 && counts[2] == 0, "loom {CI_VERSION}: {row}");
    let (code, out, err) = racefuzz(&["fuzz", "whole-program-exact", "--sut", "loom@0.2.2", "--max-programs", "100", "--seed", "1", "--shrink", "--out", out_dir]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("FAIL whole-program-exact [MISSED RACE]"), "{out}");
    let shrunk: Vec<String> = walk(&dir).into_iter().filter(|p| p.contains("shrunk")).collect();
    let text = shrunk.iter().map(|p| std::fs::read_to_string(p).unwrap()).find(|t| t.contains("MISSED RACE")).unwrap_or_else(|| panic!("no shrunk finding in {shrunk:?}\n{out}"));
    assert!(text.contains("// sut: loom@0.2.2"), "{text}");
    assert!(text.contains("init {\n  o1 = new C\n}\nthread {\n  r = o1.g\n}\nthread {\n  o1.g = 0\n}\n"), "shrunk to a read and a write:\n{text}");
}

fn walk(d: &std::path::Path) -> Vec<String> {
    let mut found = vec![];
    for e in std::fs::read_dir(d).unwrap().flatten() {
        if e.path().is_dir() {
            found.extend(walk(&e.path()));
        } else {
            found.push(e.path().to_string_lossy().into_owned());
        }
    }
    found
}

/// A campaign of `whole-program-exact-atomics` on loom: every inconclusive program is so by
/// the label `SC executions only` alone (docs/spec/atomics.md §3.4), counted apart in the
/// summary and its JSON; no program is lost to what loom cannot express (its generator
/// draws no plain write to an atomic field). Its failures are loom's SC fences (L12).
#[test]
fn an_atomics_campaign_on_loom_is_inconclusive_only_by_the_sc_label() {
    let dir = temp_dir("loom-atomics-campaign");
    let args = ["fuzz", "whole-program-exact-atomics", "--sut", &format!("loom@{CI_VERSION}"), "--max-programs", "300", "--seed", "1", "--out", dir.to_str().unwrap()];
    let (_, out, err) = racefuzz(&args);
    assert!(out.contains("of the inconclusive, by the label `SC executions only` (docs/spec/atomics.md §3.4): whole-program-exact-atomics "), "{out}{err}");
    let (_, json, err) = racefuzz(&[&args[..], &["--json"]].concat());
    let run: serde_json::Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}{err}"));
    let row = &run["per_oracle"][0];
    assert_eq!(row["checked"], 300, "{row}");
    assert!(row["inconclusive"].as_u64().unwrap() > 0, "{row}");
    assert_eq!(row["inconclusive"], row["sc_executions_only"], "{row}");
    for s in run["signatures"].as_array().unwrap() {
        assert!(s["signature"].as_str().unwrap().starts_with("whole-program-exact-atomics [MISSED RACE]"), "{s}");
    }
}

/// loom sits on a board beside the detectors, on the same programs, one row per version,
/// at program granularity only (it names one race per program: no location or event
/// counts). loom 0.7.3 is exact there; loom 0.2.2's missed races are a documented
/// limitation, citing the loom changelog entry that fixed them.
#[test]
fn loom_versions_sit_on_a_board_at_program_granularity() {
    let (code, out, err) = racefuzz(&["score", "--sut", &format!("loom@{CI_VERSION}"), "--sut", "loom@0.2.2", "--sut", "fasttrack", "--programs", "30", "--classes", "--json"]);
    assert_eq!(code, 0, "{err}");
    let board: serde_json::Value = serde_json::from_str(&out).unwrap();
    let entries = board["entries"].as_array().unwrap();
    let card = |i: usize| &entries[i]["card"];
    let counts = |i: usize| (card(i)["program"]["tp"].as_u64().unwrap(), card(i)["program"]["fp"].as_u64().unwrap(), card(i)["program"]["fn"].as_u64().unwrap());
    for i in 0..2 {
        assert_eq!(
            (card(i)["claim"].as_str(), card(i)["location"].is_null(), card(i)["event"].is_null(), card(i)["failed_traces"].as_u64()),
            (Some("whole-program"), true, true, Some(0)),
            "{out}"
        );
    }
    let (tp, fp, fn_) = counts(0);
    assert!(tp >= 10 && (fp, fn_) == (0, 0), "loom {CI_VERSION}: {out}");
    assert_eq!(entries[0]["deviations"].as_array().map(Vec::len), Some(0), "{out}");
    assert_eq!(counts(1).0 + counts(1).2, tp, "the same racy programs");
    assert!(counts(1).2 > 0, "loom 0.2.2 misses races: {out}");
    for d in entries[1]["deviations"].as_array().unwrap() {
        assert_eq!((d["mistake"].as_str(), d["granularity"].as_str()), (Some("false negative"), Some("program")), "{d}");
        assert!(d["class"]["citation"].as_str().is_some_and(|c| c.contains("(#42)")), "{d}");
    }
    assert_eq!(card(2)["program"]["tp"].as_u64(), Some(tp), "fasttrack on the same programs: {out}");
}

/// The loom versions the scoreboard's limitations name (`racefuzz::score::limitations`)
/// are exactly those `VERSIONS` records as deviating: the two tables say the same thing
/// about each version, so neither can drift from the other. No loom is built.
#[test]
fn the_limitations_name_exactly_the_deviating_loom_versions() {
    let mut compared = 0;
    for (version, support) in VERSIONS {
        let documented = KNOWN.iter().any(|l| l.detector == "loom" && l.versions.contains(version));
        assert_eq!(documented, matches!(support, Support::Deviates(_)), "loom {version}: {support:?}");
        compared += 1;
    }
    assert_eq!(compared, 41, "every version on crates.io");
}
