//! ThreadSanitizer under test (`racefuzz::tsan`): the C replay of a witness makes TSan
//! report the witness's race at its `.race` lines, and TSan as a SUT agrees with the ground
//! truth on the racy locations of every trace. These tests need a C compiler with
//! ThreadSanitizer (`cc -fsanitize=thread`: gcc with libtsan) and declare it
//! (`needs!(Tsan)`): without one they are skipped, and listed at the end of the run, or
//! fail under `RACEFUZZ_REQUIRE_TOOLS=1`, as in `.ci/run`.

use std::path::Path;
use std::process::Command;

use race_oracles::theorems::Registry;
use racefuzz::score::{score, Corpus};
use racefuzz::suts::Subject;

use super::cli::racefuzz;

/// Builds `c` with ThreadSanitizer and runs it as a user would (symbolized reports): its
/// standard error.
fn build_and_run(c: &str, name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("racefuzz-tsan-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (source, binary) = (dir.join(format!("{name}.c")), dir.join(name));
    std::fs::write(&source, c).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(&cc).args(["-std=c11", "-fsanitize=thread", "-O1", "-g", "-pthread", "-o"]).arg(&binary).arg(&source).output();
    let built = built.unwrap_or_else(|e| panic!("racefuzz's TSan tests need a C compiler with ThreadSanitizer (`{cc} -fsanitize=thread`; gcc with libtsan): {e}"));
    assert!(built.status.success(), "`{cc} -fsanitize=thread` failed (is libtsan installed?): {}", String::from_utf8_lossy(&built.stderr));
    let run = Command::new(&binary).env("TSAN_OPTIONS", "exitcode=0").output().unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    String::from_utf8_lossy(&run.stderr).into_owned()
}

/// The `.race` lines of each access of each TSan report: `(write line, earlier read line)`.
fn reported_lines(stderr: &str) -> Vec<Vec<String>> {
    stderr
        .split("WARNING: ThreadSanitizer: data race")
        .skip(1)
        .map(|r| r.lines().filter_map(|l| l.trim().strip_prefix("#0 line")).map(|l| l.split_whitespace().next().unwrap_or("").to_string()).collect())
        .collect()
}

#[test]
fn a_witness_exported_as_c_makes_tsan_report_its_race_at_its_lines() {
    needs!(Tsan);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The book's FastTrack witness: o.g read at line 13, written at line 19.
    let file = root.join("examples/walkthrough/ordered_and_not.race");
    let (code, c, err) = racefuzz(&["export", "c", file.to_str().unwrap(), "--schedule", "1,1,1,1,2,2,2,2"]);
    assert_eq!(code, 0, "{err}");
    assert!(c.contains(">> event 3 (T1, line 13: read o.g)") && c.contains(">> event 7 (T2, line 19: write o.g)"), "{c}");
    assert_eq!(reported_lines(&build_and_run(&c, "ordered_and_not")), vec![vec!["19_w".to_string(), "13_r".to_string()]]);
    // The default execution is the first racy one; Fig. 3.3's races on b.f, line 10 after 9.
    let file = root.join("corpus/paper/bigfoot/fig3_3_anticipation.race");
    let (code, c, err) = racefuzz(&["export", "c", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let reports = reported_lines(&build_and_run(&c, "fig3_3"));
    assert!(!reports.is_empty() && reports.iter().all(|r| r.len() == 2 && r.iter().all(|l| l.starts_with("9_") || l.starts_with("10_"))), "{reports:?}");
}

#[test]
fn export_refuses_what_it_cannot_replay() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let racerdx = racefuzz::corpus::race_files(&root.join("corpus/paper/racerdx")).into_iter().next().unwrap();
    let (code, _, err) = racefuzz(&["export", "c", racerdx.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("export c takes a thread program (bfj, bfj2, simplejava, capjava); this one is racerdx"), "{err}");
    let file = root.join("examples/walkthrough/ordered_and_not.race");
    let (code, _, err) = racefuzz(&["export", "c", file.to_str().unwrap(), "--schedule", "3"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn tsan_reports_exactly_the_racy_locations_of_every_class() {
    needs!(Tsan);
    let o = *Registry::builtin().find("fasttrack-precise").unwrap();
    let tsan = Subject::new(&o, &racefuzz::sut_spec::SutSpec::catalogued(Some("tsan"), None).unwrap()).unwrap();
    let card = score(&|| tsan.sut(), tsan.relax(), Corpus { programs: 40, seed: 5, classes: true, ..Corpus::new(0, 0) }, 2, &|| {}).unwrap();
    assert_eq!(card.failed_traces, 0, "{card}");
    assert_eq!((card.location.unwrap().fp, card.location.unwrap().fn_, card.program.fp, card.program.fn_), (0, 0, 0, 0), "{card}");
    assert!(card.location.unwrap().tp >= 50 && card.program.tp >= 10, "{card}");
    // Through the oracle too, on one trace per class of a program with a lock, and with
    // --all-traces on every interleaving.
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/walkthrough/ordered_and_not.race");
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", file.to_str().unwrap(), "--sut", "tsan"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("4 trace(s) (one per Mazurkiewicz class), 4 racy; racy locations: o.g"), "{out}");
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", file.to_str().unwrap(), "--sut", "tsan", "--all-traces"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("10 trace(s), 10 racy; racy locations: o.g"), "{out}");
}

#[test]
fn a_failing_check_writes_its_witness_as_a_reproducer_that_tsan_confirms() {
    needs!(Tsan);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/walkthrough/ordered_and_not.race");
    let scratch = std::env::temp_dir().join(format!("racefuzz-reproducer-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_racefuzz"))
        .args(["check", "fasttrack-precise", file.to_str().unwrap(), "--mutant", "ft-release-no-tick", "--reproducer", "c"])
        .current_dir(&scratch)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("wrote .racefuzz/reproducers/ordered_and_not.c (schedule 1,1,1,1,2,2,2,2)"), "{err}");
    let c = std::fs::read_to_string(scratch.join(".racefuzz/reproducers/ordered_and_not.c")).unwrap();
    // The mutant missed the race on o.g; TSan reports it, at lines 19 and 13.
    assert_eq!(reported_lines(&build_and_run(&c, "reproducer")), vec![vec!["19_w".to_string(), "13_r".to_string()]]);
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn tsan_misses_a_race_whose_read_is_evicted_from_its_shadow_cells() {
    needs!(Tsan);
    // examples/tsan/eviction.race: eight joined readers fill the word's four shadow cells
    // and evict T1's racing read (the file's header explains it from TSan's source). The
    // eviction slot depends on each thread's trace position, which the replay's spinning
    // perturbs, so one miss in three runs is asked (gcc 12's libtsan: 20 misses in 20).
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/tsan/eviction.race");
    let runs: Vec<(i32, String)> = (0..3)
        .map(|_| {
            let (code, out, err) = racefuzz(&["check", "fasttrack-precise", file.to_str().unwrap(), "--sut", "tsan", "--max-executions", "1"]);
            (code, format!("{out}{err}"))
        })
        .collect();
    assert!(
        runs.iter().any(|(code, out)| *code == 1 && out.contains("MISSED racy location(s): o.f")),
        "TSan reported the evicted race in every run (a runtime that keeps the read?): {runs:?}"
    );
}
