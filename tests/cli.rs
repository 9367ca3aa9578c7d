//! The command line: exit codes, caret errors, `--json` keys, replay.

use std::process::Command;

pub(crate) fn racefuzz(args: &[&str]) -> (i32, String, String) {
    racefuzz_env(args, &[])
}

/// [`racefuzz`] with extra environment variables.
pub(crate) fn racefuzz_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_racefuzz")).args(args).envs(env.iter().copied()).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn temp_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("racefuzz-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn explore_prints_witness_and_no_race() {
    let (code, out, _) = racefuzz(&["explore", "corpus/paper/bigfoot/fig3_6b_loop.race"]);
    assert_eq!(code, 0);
    assert!(out.contains("RACE on a[1]") && out.contains(">>"), "{out}");
    let (code, out, _) = racefuzz(&["explore", "corpus/paper/bigfoot/fig3_6a_if_else.race"]);
    assert_eq!(code, 0);
    assert!(out.contains("no race"), "{out}");
}

#[test]
fn analyze_prints_the_placed_checks_and_declines_by_line() {
    let (code, out, _) = racefuzz(&["analyze", "per-access", "corpus/paper/bigfoot/fig3_6a_if_else.race"]);
    assert_eq!(code, 0);
    assert!(out.contains("per-access checks on") && out.contains("check(W: b.g)"), "{out}");
    let f = temp_file("long_path.race", "dialect bfj\nclass C { fields f }\ninit { o = new C; o.f = o }\nthread { r = o.f.f }\n");
    let (code, _, err) = racefuzz(&["analyze", "per-access", &f]);
    assert_eq!(code, 2);
    assert!(err.contains(":4:") && err.contains("A-normal form"), "{err}");
    let (code, _, err) = racefuzz(&["analyze", "per-access", "corpus/paper/racerdx/fig1_dodo.race"]);
    assert_eq!(code, 2, "{err}");
    let (code, out, _) = racefuzz(&["analyze", "bigfoot", "corpus/paper/bigfoot/fig3_6b_loop.race"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("BigFoot on") && out.contains("  }\n  check(R: b.f, W: a[0..i])\n}"), "{out}");
    let (code, out, _) = racefuzz(&["analyze", "bigfoot", "--mutant", "bf-range-under-approx", "corpus/paper/bigfoot/fig3_6b_loop.race"]);
    assert_eq!(code, 0);
    assert!(out.contains("(mutant bf-range-under-approx)") && out.contains("check(R: b.f, W: a[0..i - 1])"), "{out}");
    let (code, _, err) = racefuzz(&["analyze", "bigfoot", "--mutant", "pa-write-checked-as-read", "corpus/paper/bigfoot/fig3_6b_loop.race"]);
    assert_eq!(code, 2, "another SUT's mutant: {err}");
    let f = temp_file("while_break.race", "dialect bfj\nthread {\n  while * {\n    break\n  }\n}\n");
    let (code, _, err) = racefuzz(&["analyze", "bigfoot", &f]);
    assert!(code == 2 && err.contains(":4:") && err.contains("while"), "{err}");
}

#[test]
fn bad_input_exits_2_with_position() {
    let f = temp_file("bad.race", "dialect bfj\nthread { t = b.f + 1 }\n");
    let (code, _, err) = racefuzz(&["explore", &f]);
    assert_eq!(code, 2);
    assert!(err.contains(":2:18") && err.contains('^'), "{err}");
    let f = temp_file("unbalanced.race", "dialect racerdx\nmethod m(arg1) {\n  unlock\n}\n");
    let (code, _, err) = racefuzz(&["explore", &f]);
    assert_eq!(code, 2);
    assert!(err.contains("A2: unlock without a matching lock in method m (line 3)"), "{err}");
    let (code, _, err) = racefuzz(&["explore", "no/such/file.race"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = racefuzz(&["explore", "corpus/paper/racerdx/fig1_dodo.race", "--pair", "zap,nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no method `nope`"), "{err}");
    let (code, _, _) = racefuzz(&["explore", "--loop-bound", "x", "corpus/paper/racerdx/fig1_dodo.race"]);
    assert_eq!(code, 2);
}

#[test]
fn json_has_the_documented_keys() {
    let (code, out, _) = racefuzz(&["explore", "--json", "corpus/paper/racerdx/fig1_dodo.race", "--pair", "zap,zup"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for k in ["executions", "racy", "racy_addresses", "witness"] {
        assert!(v.get(k).is_some(), "missing {k}");
    }
    assert_eq!(v["racy"], true);
    assert_eq!(v["racy_addresses"], serde_json::json!(["l1.dee"]));
}

#[test]
fn budget_overrun_exits_3() {
    let (code, out, _) = racefuzz(&["explore", "corpus/paper/bigfoot/fig3_6b_loop.race", "--max-executions", "5"]);
    assert_eq!(code, 3);
    assert!(out.contains("INCOMPLETE"), "{out}");
}

#[test]
fn check_reads_a_cargo_fuzz_artifact_and_prints_its_program() {
    // A slow unit cargo fuzz wrote for racerdx_complete: raw bytes for the generator. Which
    // program they make may change with the generator; that check shows it may not.
    let bytes: Vec<u8> = (0..8).flat_map(|i| [0x42 + i, 0xd3, 0x36, 0x56, 0xde, 0xbe, 0x94, 0x94]).collect();
    let dir = temp_dir("artifact");
    let file = dir.join("slow-unit-1");
    std::fs::write(&file, &bytes).unwrap();
    let (code, out, err) = racefuzz(&["check", "racerdx-complete", file.to_str().unwrap()]);
    assert!([0, 3].contains(&code), "{code} {out} {err}");
    assert!(out.starts_with("// the program racerdx-complete's generator makes of ") && out.contains("dialect racerdx\nmethod m1("), "{out}");
    assert!(out.contains("racerdx-complete on ") && out.contains("with RacerDX: "), "{out}");
    let (code, out, _) = racefuzz(&["check", "racerdx-complete", file.to_str().unwrap(), "--json"]);
    assert!([0, 3].contains(&code) && out.trim_start().starts_with('{'), "{out}");
}

#[test]
fn an_external_detector_is_judged_and_its_failures_are_findings() {
    needs!(Python3);
    let p = "tests/regress/dpor_fork_renumbers.race";
    // The happens-before example answers like FastTrack, through the persistent protocol.
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", p, "--persistent", "--detector-cmd", "python3 examples/detectors/hb.py --persistent"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASS") && out.contains("3 trace(s) (one per Mazurkiewicz class), 0 racy"), "{out}");
    // A command runs on one trace per class unless told otherwise: here on all 504.
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", p, "--persistent", "--detector-cmd", "python3 examples/detectors/hb.py --persistent", "--all-traces"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASS") && out.contains("504 trace(s), 0 racy"), "{out}");
    // In batches: one process per program, on a folder of its traces.
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", p, "--batch", "--detector-cmd", "python3 examples/detectors/hb.py --batch {}", "--all-traces"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("PASS") && out.contains("504 trace(s), 0 racy"), "{out}");
    // LockSet knows no fork or join: a false alarm, with the trace as a witness.
    let (code, out, _) = racefuzz(&["check", "fasttrack-precise", p, "--detector-cmd", "python3 examples/detectors/lockset.py {}"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FALSE ALARM on race-free location(s): o1.f") && out.contains("witness: an execution with no data race"), "{out}");
    // A crash, a timeout and garbage are failures of the detector, not of racefuzz.
    for (flags, says) in [
        (vec!["--detector-cmd", "exit 7 # {}"], "DETECTOR FAILED: exited with exit status: 7"),
        (vec!["--detector-cmd", "sleep 5 # {}", "--detector-timeout", "200ms"], "DETECTOR FAILED: no answer within 0.2s (killed)"),
        (vec!["--persistent", "--detector-cmd", "echo hello"], "DETECTOR FAILED: output that does not parse"),
        (vec!["--detector-cmd", "echo 'T0|w(V1)|999' # {}"], "loc 999 names no event of the trace"),
    ] {
        let (code, out, err) = racefuzz(&[&["check", "fasttrack-precise", p][..], &flags].concat());
        assert_eq!(code, 1, "{flags:?}: {out}{err}");
        assert!(out.contains(says), "{flags:?}: {out}");
    }
    // Claims: the happens-before example flags every racy event; LockSet misses one.
    let fig = "corpus/paper/bigfoot/fig3_3_anticipation.race";
    let (code, out, _) = racefuzz(&["check", "fasttrack-precise", fig, "--persistent", "--detector-cmd", "python3 examples/detectors/hb.py --persistent", "--claim", "events"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("racy events of every trace") && out.contains("8 trace(s) (one per Mazurkiewicz class), 6 racy"), "{out}");
    let (code, out, _) =
        racefuzz(&["check", "fasttrack-precise", fig, "--persistent", "--detector-cmd", "python3 examples/detectors/lockset.py --persistent", "--claim", "events"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("MISSED racy event(s): event 6 (T2, line 10: write b.f)"), "{out}");
    // Without a command, --claim holds the catalogued detector (FastTrack) to it instead.
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", fig, "--claim", "events"]);
    assert!(code != 2 && out.contains("racy events of every trace"), "{out}{err}");
    // Bad input.
    for (flags, says) in [
        (vec!["fasttrack-precise", p, "--detector-cmd", "python3 examples/detectors/hb.py"], "has no `{}` for the trace file"),
        (vec!["bigfoot-precise", "corpus/paper/bigfoot/fig3_6b_loop.race", "--detector-cmd", "x {}"], "--detector-cmd applies to fasttrack-precise"),
        (vec!["fasttrack-precise", p, "--detector-cmd", "x {}", "--report-pattern", "race"], "must contain `{loc}` exactly once"),
        (vec!["fasttrack-precise", p, "--detector-cmd", "x {}", "--mutant", "ft-no-join-edge"], "takes no --sut or --mutant"),
        (vec!["racerdx-tp", "corpus/paper/racerdx/fig1_dodo.race", "--all-traces"], "--all-traces: racerdx is no dynamic detector"),
        (vec!["fasttrack-precise", p, "--batch", "--persistent", "--detector-cmd", "x {}"], "cannot be used with"),
        (vec!["fasttrack-precise", p, "--batch", "--detector-cmd", "x"], "has no `{}`"),
    ] {
        let (code, _, err) = racefuzz(&[&["check"][..], &flags].concat());
        assert_eq!(code, 2, "{flags:?}: {err}");
        assert!(err.contains(says), "{flags:?}: {err}");
    }
    let (code, _, err) = racefuzz(&["score", "--programs", "1", "--all-traces"]);
    assert!(code == 2 && err.contains("score runs every interleaving unless --classes"), "{err}");
}

/// An external static analysis is judged by the oracles that judge reports: the naive
/// example passes on Dodo and reports Burble's false race; a crash, a timeout, garbage and
/// an answer naming a line that is no access are findings of their own (exit 1).
#[test]
fn an_external_analysis_is_judged_and_its_failures_are_findings() {
    needs!(Python3);
    let (dodo, burble) = ("corpus/paper/racerdx/fig1_dodo.race", "corpus/paper/racerdx/fig2_burble.race");
    let naive = ["--analysis-cmd", "python3 examples/analyzers/naive.py {}"];
    let persistent = ["--persistent", "--analysis-cmd", "python3 examples/analyzers/naive.py --persistent"];
    for (oracle, flags) in [("racerdx-tp", &naive[..]), ("racerdx-reports", &naive[..]), ("racerdx-tp", &persistent[..])] {
        let (code, out, err) = racefuzz(&[&["check", oracle, dodo][..], flags].concat());
        assert_eq!(code, 0, "{oracle} {flags:?}: {out}{err}");
        assert!(out.contains(": PASS ("), "{out}");
    }
    let (code, out, _) = racefuzz(&[&["check", "racerdx-tp", dodo][..], &naive].concat());
    assert!(code == 0 && out.contains("report 1: zap: R arg1.dee at lock level 1 (line 8)  ∥  zup: W arg1.dee at lock level 0 (line 9)"), "{out}");
    let (code, out, _) = racefuzz(&[&["check", "racerdx-tp", burble][..], &persistent].concat());
    assert_eq!(code, 1, "{out}");
    assert_eq!(out.matches("FALSE POSITIVE").count(), 3, "{out}");
    // The book's example answer is the true race it says, through a call.
    let section = std::fs::read_to_string("docs/book/src/own-tool/analyzers.md").expect("the book's chapter \"A static analyzer\"");
    let example = section.split("```json\n").nth(1).and_then(|b| b.split("```").next()).expect("a JSON example");
    let file = temp_dir("analysis-example").join("answer.json");
    std::fs::write(&file, example).unwrap();
    let cat = format!("cat '{}' # {{}}", file.display());
    let (code, out, _) = racefuzz(&["check", "racerdx-tp", "corpus/paper/racerdx/fig3_wurble_variant_b_stable.race", "--analysis-cmd", &cat]);
    assert!(code == 0 && out.contains("report 1: qwop: W arg1.x.g.f at lock level 0 (line 9 via 7)  ∥  gwap: R arg1.x.g.f at lock level 1 (line 8)\n  true positive"), "{out}");
    let bad_line = r#"echo '{"version":1,"reports":[{"sides":[{"method":"zup","kind":"w","path":"arg1.dee","level":0,"lines":[5]},{"method":"zup","kind":"w","path":"arg1.dee","level":0,"lines":[8]}]}]}' # {}"#;
    for (flags, says) in [
        (vec!["--analysis-cmd", "exit 7 # {}"], "ANALYSIS FAILED: exited with exit status: 7"),
        (vec!["--analysis-cmd", "sleep 5 # {}", "--detector-timeout", "200ms"], "ANALYSIS FAILED: no answer within 0.2s (killed)"),
        (vec!["--analysis-cmd", "echo hello # {}"], "ANALYSIS FAILED: output that does not parse"),
        (vec!["--persistent", "--analysis-cmd", "echo hello"], "ANALYSIS FAILED: output that does not parse"),
        (vec!["--analysis-cmd", bad_line], "ANALYSIS FAILED: report 1 (of 1): site [5]: line 5 is no access in zup"),
    ] {
        for oracle in ["racerdx-tp", "racerdx-reports"] {
            let (code, out, err) = racefuzz(&[&["check", oracle, dodo][..], &flags].concat());
            assert_eq!(code, 1, "{oracle} {flags:?}: {out}{err}");
            assert!(out.contains(says) && out.contains(": FAIL ("), "{oracle} {flags:?}: {out}");
        }
    }
    // Bad input.
    for (flags, says) in [
        (vec!["racerdx-tp", dodo, "--analysis-cmd", "python3 examples/analyzers/naive.py"], "has no `{}` for the program file"),
        (
            vec!["racerdx-complete", dodo, "--analysis-cmd", "x {}"],
            "racerdx-complete judges a static analysis's method summaries, which an external analysis does not give; --analysis-cmd applies to racerdx-tp, racerdx-reports",
        ),
        (
            vec!["fasttrack-precise", "corpus/paper/bigfoot/fig3_3_anticipation.race", "--analysis-cmd", "x {}"],
            "fasttrack-precise judges a DynamicDetector, not a static race analysis",
        ),
        (vec!["racerdx-tp", dodo, "--analysis-cmd", "x {}", "--mutant", "no-stability-filter"], "--analysis-cmd is the SUT; it takes no --sut or --mutant"),
        (vec!["racerdx-tp", dodo, "--analysis-cmd", "x {}", "--detector-cmd", "y {}"], "cannot be used with"),
    ] {
        let (code, _, err) = racefuzz(&[&["check"][..], &flags].concat());
        assert_eq!(code, 2, "{flags:?}: {err}");
        assert!(err.contains(says), "{flags:?}: {err}");
    }
}

/// `fuzz` and `shrink` take the external analysis too: an analysis that crashes on every
/// program with a lock gives `ANALYSIS FAILED` findings that name the command, and
/// `shrink FILE` rebuilds it from the header and shrinks to a program that still has one.
#[test]
fn fuzz_and_shrink_an_external_analysis() {
    let dir = temp_dir("external-analysis-fuzz");
    let crashy = ["--analysis-cmd", r#"grep -q lock {} && exit 3; echo '{"version":1,"reports":[]}'"#];
    let out_dir = dir.display().to_string();
    let (code, out, err) = racefuzz(&[&["fuzz", "racerdx-tp", "--max-programs", "20", "--seed", "1", "--out", &out_dir][..], &crashy].concat());
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("[ANALYSIS FAILED]"), "{out}");
    let mut found: Vec<_> = std::fs::read_dir(dir.join("racerdx-tp")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "race")).collect();
    found.sort();
    assert!(!found.is_empty());
    let text = std::fs::read_to_string(&found[0]).unwrap();
    assert!(text.contains(&format!("// sut: external-analysis\n// analysis-cmd: {}\n// analysis-mode: per-program\n", crashy[1])), "{text}");
    let (code, out, err) = racefuzz(&["shrink", &found[0].display().to_string()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("  lock\n") && out.matches("\nmethod ").count() == 1, "{out}");
    let (code, _, err) = racefuzz(&["shrink", &found[0].display().to_string(), "--into-test", "x", "--root-cause", "y"]);
    assert_eq!(code, 2, "{err}");
}

/// `fuzz` and `shrink` take the external detector too: LockSet misses a read-after-write
/// race; its finding names the command, and shrinks to two threads only when given it again.
#[test]
fn fuzz_and_shrink_an_external_detector() {
    needs!(Python3);
    let dir = temp_dir("external-fuzz");
    let lockset = ["--persistent", "--detector-cmd", "python3 examples/detectors/lockset.py --persistent"];
    let out_dir = dir.display().to_string();
    let (code, out, err) = racefuzz(&[&["fuzz", "--max-programs", "30", "--seed", "1", "--out", &out_dir][..], &lockset].concat());
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("fasttrack-precise") && out.contains("[MISSED]"), "{out}");
    // The findings, not the witness pages beside them.
    let mut found: Vec<_> = std::fs::read_dir(dir.join("fasttrack-precise")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "race")).collect();
    found.sort();
    assert!(!found.is_empty());
    let file = found[0].display().to_string();
    let text = std::fs::read_to_string(&found[0]).unwrap();
    assert!(text.contains("// sut: external\n// detector-cmd: python3 examples/detectors/lockset.py --persistent\n// detector-mode: persistent\n// claim: locations\n"), "{text}");
    // The header rebuilds the detector; flags give it anew.
    for flags in [&[][..], &lockset[..]] {
        let (code, out, err) = racefuzz(&[&["shrink", &file][..], flags].concat());
        assert_eq!(code, 0, "{out}{err}");
        assert_eq!(out.matches("\nthread {").count(), 2, "{out}");
    }
    let (code, _, err) = racefuzz(&["shrink", &file, "--into-test", "x"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = racefuzz(&[&["shrink", &file, "--into-test", "x"][..], &lockset].concat());
    assert_eq!(code, 2, "{err}");
}

#[test]
fn replay_reproduces_the_witness() {
    let (_, out, _) = racefuzz(&["explore", "--json", "corpus/paper/bigfoot/fig3_3_anticipation.race"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let schedule = v["witness"]["schedule"].as_str().unwrap().to_string();
    let (code, out, err) = racefuzz(&["replay", "corpus/paper/bigfoot/fig3_3_anticipation.race", "--schedule", &schedule]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("happens-before races on: b.f"), "{out}");
    let (code, _, err) = racefuzz(&["replay", "corpus/paper/bigfoot/fig3_3_anticipation.race", "--schedule", "9"]);
    assert_eq!(code, 2);
    assert!(err.contains("diverges"), "{err}");
}

/// `analyze escape|capsule` prints the filter's decision per event (the pre-publication
/// write of Fig. 4.2 elided) and checks its input: a program of another dialect, a schedule
/// that does not fit, `--operational` on an oracle other than capsule-first-race (exit 2);
/// `check` with a seeded capsule bug fails Fig. 5.2 (exit 1); `--json` has the table's rows.
#[test]
fn filters_analyze_and_check_the_papers_figures() {
    let fig4_2 = "corpus/paper/escape/fig4_2_not_address_precise.race";
    let fig5_2 = "corpus/paper/escape/fig5_2_leaky_capsules.race";
    let (code, out, err) = racefuzz(&["analyze", "escape", fig4_2]);
    assert_eq!(code, 0, "{err}");
    let rf: Vec<&str> = out.lines().filter(|l| l.contains(": write r1@") && l.trim_end().ends_with(".f)")).collect();
    assert_eq!(rf.len(), 2, "T1's and T2's writes of r1.f\n{out}");
    assert!(rf[0].trim_start().starts_with("elide") && rf[1].trim_start().starts_with("keep"), "{out}");
    assert!(out.contains("β races on p@T1.o; first race: event"), "{out}");

    let (code, _, err) = racefuzz(&["analyze", "escape", "corpus/paper/bigfoot/fig3_6b_loop.race"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("simplejava") && err.contains("is bfj"), "{err}");
    let (code, _, err) = racefuzz(&["analyze", "capsule", fig5_2, "--schedule", "9,9,9"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--schedule 9,9,9") && err.contains("diverges"), "{err}");
    let (code, _, err) = racefuzz(&["check", "escape-trace-precise", fig4_2, "--operational"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--operational applies to capsule-first-race only"), "{err}");

    let (code, out, _) = racefuzz(&["check", "capsule-first-race", fig5_2]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = racefuzz(&["check", "capsule-first-race", fig5_2, "--mutant", "cap-exit-leaks-nothing"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL") && out.contains("FIRST RACE LOST"), "{out}");

    let (code, out, err) = racefuzz(&["analyze", "capsule", "--json", fig5_2]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rows = v["table"]["rows"].as_array().unwrap_or_else(|| panic!("no table.rows array: {out}"));
    assert!(rows.iter().any(|r| r["decision"] == "elide") && rows.iter().any(|r| r["first_race"] == true), "{out}");
    for k in ["event", "access", "decision", "why", "violation", "first_race"] {
        assert!(rows.iter().all(|r| r.get(k).is_some()), "a row lacks {k}: {out}");
    }
    assert_eq!(v["table"]["racy"][0], serde_json::json!(["n@T1.g"]), "{out}");
}

pub(crate) fn temp_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("racefuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A campaign against a theorem-breaking mutant writes a counterexample and exits 1; the
/// same campaign on the real analysis exits 0; the finding shrinks to a small program
/// that `--into-test` turns into a regression file. Budgets are program counts, not time.
#[test]
fn fuzz_finds_shrinks_and_keeps_a_counterexample() {
    let out = temp_dir("found");
    let o = out.display().to_string();
    let (code, stdout, _) = racefuzz(&["fuzz", "racerdx-tp", "--mutant", "no-stability-filter", "--time", "1h", "--max-programs", "300", "--out", &o]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.contains("racerdx-tp") && stdout.contains("programs/s"), "{stdout}");
    let found = racefuzz::corpus::race_files(&out);
    assert!(!found.is_empty());
    // The finding's explanation names the file's own lines.
    let text = std::fs::read_to_string(&found[0]).unwrap();
    assert!(text.contains("// verdict: fail") && text.contains("FALSE POSITIVE"), "{text}");
    let (code, stdout, _) = racefuzz(&["fuzz", "racerdx-tp", "--time", "1h", "--max-programs", "300", "--out", &o]);
    assert_eq!(code, 0, "{stdout}");

    let work = temp_dir("regress");
    let f = found[0].display().to_string();
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_racefuzz")).args(args).current_dir(&work).output().unwrap();
    // A regression needs its root cause.
    let out = run(&["shrink", &f, "--into-test", "shrunk"]);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let out = run(&["shrink", &f, "--into-test", "shrunk", "--root-cause", "RacerD-like reports a write to a formal it just replaced with a fresh object"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("FALSE POSITIVE") && stdout.contains("cargo insta"), "{stdout}");
    let src = std::fs::read_to_string(work.join("tests/regress/shrunk.race")).unwrap();
    assert!(src.contains("// root cause: RacerD-like reports"), "{src}");
    let p = race_oracles::lang::parse(&src).unwrap();
    let (stmts, methods) = race_oracles::gen::shrink::counts(&p);
    assert!(methods <= 2 && stmts <= 8, "{src}");
    // The snapshot is recorded through insta by `cargo test`, never written by hand.
    assert!(!work.join("tests/snapshots").exists());
}

/// A campaign groups its failures by signature: `--json` lists each signature with its
/// count and written programs (the first `--keep`, then smaller ones), every file on disk is
/// listed, `--shrink` writes a shrunk program per signature that is no larger, and the same
/// seed and budget give the same signatures.
#[test]
fn fuzz_groups_failures_by_signature_and_shrinks_one_of_each() {
    let run = |out: &std::path::Path, extra: &[&str]| {
        let o = out.display().to_string();
        let mut args = vec!["fuzz", "racerdx-tp", "racerdx-reports", "--mutant", "no-stability-filter", "--max-programs", "300", "--keep", "2", "--json", "--out", &o];
        args.extend(extra);
        let (code, stdout, stderr) = racefuzz(&args);
        assert_eq!(code, 1, "{stderr}");
        assert!(stderr.starts_with("racefuzz fuzz: racerdx-tp, racerdx-reports, 300 programs per oracle and job, seed 0"), "{stderr}");
        let v: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
        (v, stdout)
    };
    let out = temp_dir("signatures");
    let (v, text) = run(&out, &["--shrink"]);
    // Keys in a fixed order (serde_json's Value sorts them, so the text is read).
    let at: Vec<usize> = ["\"oracles\"", "\"seed\"", "\"jobs\"", "\"mutant\"", "\"programs\"", "\"signatures\""].iter().map(|k| text.find(k).unwrap_or(usize::MAX)).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]) && at[5] < usize::MAX, "key order: {at:?}\n{text}");
    assert_eq!(v["programs"], 600);
    assert_eq!(v["stopped_by"], "max-programs");
    let sigs = v["signatures"].as_array().unwrap();
    assert!(sigs.len() >= 2, "{v}");
    let (mut written, mut failing) = (0, 0);
    for s in sigs {
        let files = s["written"].as_array().unwrap();
        let count = s["count"].as_u64().unwrap();
        assert!(!files.is_empty() && files.len() as u64 <= count, "{s}");
        written += files.len();
        failing += count;
        let smallest = s["smallest"].as_str().unwrap();
        assert!(files.iter().any(|f| f == smallest), "{s}");
        let shrunk = s["shrunk"].as_str().unwrap_or_else(|| panic!("not shrunk: {s}"));
        let text = std::fs::read_to_string(shrunk).unwrap();
        assert!(text.contains("// verdict: fail") && text.contains("shrunk from"), "{text}");
        assert!(s["shrunk_statements"].as_u64() <= s["smallest_statements"].as_u64(), "{s}");
    }
    assert_eq!(v["failing_programs"], failing);
    assert_eq!(v["written"], written);
    // Every file on disk is a listed finding or a shrunk one.
    let on_disk = racefuzz::corpus::race_files(&out);
    assert_eq!(on_disk.len(), written + sigs.len(), "{on_disk:?}");
    // The same seed and budget, one job: the same signatures and counts.
    let (again, _) = run(&temp_dir("signatures-again"), &[]);
    let strip = |v: &serde_json::Value| v["signatures"].as_array().unwrap().iter().map(|s| (s["signature"].clone(), s["count"].clone())).collect::<Vec<_>>();
    assert_eq!(strip(&v), strip(&again));
}

/// `--stop-after N` stops at the N-th distinct signature; `--max-programs` alone has no
/// time limit, and the header says so.
#[test]
fn fuzz_stops_after_distinct_failures() {
    let out = temp_dir("stop-after");
    let (code, stdout, _) =
        racefuzz(&["fuzz", "racerdx-tp", "--mutant", "no-stability-filter", "--max-programs", "100000", "--stop-after", "1", "--out", &out.display().to_string()]);
    assert_eq!(code, 1, "{stdout}");
    assert!(stdout.starts_with("racefuzz fuzz: racerdx-tp, 100000 programs per oracle and job, seed 0") && !stdout.contains("for 60s"), "{stdout}");
    assert!(stdout.contains("\n1 distinct failure(s) in 1 failing program(s); 1 file(s) written\n"), "{stdout}");
}

/// SIGINT stops a campaign at the next program: the summary is printed, the exit code is
/// that of a finished campaign, and the status line goes to stderr when it is no terminal.
#[cfg(unix)]
#[test]
fn sigint_stops_a_campaign_with_its_summary() {
    use std::io::{BufRead, Read};
    let out = temp_dir("sigint");
    let mut child = Command::new(env!("CARGO_BIN_EXE_racefuzz"))
        .args(["fuzz", "racerdx-tp", "--time", "60s", "--status-interval", "1s", "--out", &out.display().to_string()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut header = String::new();
    stdout.read_line(&mut header).unwrap();
    assert!(header.starts_with("racefuzz fuzz: racerdx-tp for 60s"), "{header}");
    // One status line on stderr (at 1 s) shows the campaign is running.
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut status = String::new();
    stderr.read_line(&mut status).unwrap();
    assert!(status.contains("programs/s") || status.contains(" programs, "), "{status}");
    let kill = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let code = child.wait().unwrap().code();
    assert_eq!(code, Some(0), "{rest}");
    assert!(rest.contains(" programs in ") && rest.contains("stopped by a signal") && rest.contains("no counterexample"), "{rest}");
}

/// SIGTERM stops any other command at once, with exit 130, and removes its scratch
/// folders first: here the per-trace folder of a detector command that is running.
#[cfg(unix)]
#[test]
fn sigterm_leaves_no_scratch_folder_behind() {
    let dir = temp_dir("sigterm");
    let marker = dir.join("running");
    let command = format!("touch '{}'; sleep 5 # {{}}", marker.display());
    let file = format!("{}/examples/walkthrough/ordered_and_not.race", env!("CARGO_MANIFEST_DIR"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_racefuzz"))
        .args(["check", "fasttrack-precise", &file, "--detector-cmd", &command])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let prefix = format!("racefuzz-detector-{}-", child.id());
    let scratch = || std::fs::read_dir(std::env::temp_dir()).unwrap().flatten().filter(|e| e.file_name().to_string_lossy().starts_with(&prefix)).count();
    // The detector runs once its trace file is in the scratch folder.
    while !marker.exists() {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(scratch(), 1);
    let kill = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(kill.success());
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert_eq!(scratch(), 0, "a scratch folder outlived the signal");
}

/// An analysis that only drops reports fails the default campaign (every oracle),
/// through `racerdx-reports`; before it, both racerdx oracles passed such a bug.
#[test]
fn a_campaign_fails_an_analysis_that_drops_reports() {
    for mutant in ["reports-nothing", "drop-0-1-pairs"] {
        let out = temp_dir(mutant);
        let (code, stdout, _) = racefuzz(&["fuzz", "--mutant", mutant, "--time", "1h", "--max-programs", "200", "--out", &out.display().to_string()]);
        assert_eq!(code, 1, "{mutant}: {stdout}");
        let found = racefuzz::corpus::race_files(&out.join("racerdx-reports"));
        assert!(!found.is_empty(), "{mutant}: no racerdx-reports finding\n{stdout}");
        assert!(racefuzz::corpus::race_files(&out.join("racerdx-tp")).is_empty(), "{mutant}: racerdx-tp cannot see a dropped report");
        let text = std::fs::read_to_string(&found[0]).unwrap();
        assert!(text.contains("MISSING"), "{text}");
    }
}

/// A campaign whose output folder cannot be written stops with an error that carries the
/// finding; nothing is lost.
#[test]
fn unwritable_output_fails_loudly_and_keeps_the_finding() {
    let dir = temp_dir("unwritable");
    let file = dir.join("a-file");
    std::fs::write(&file, "not a folder").unwrap();
    let out = file.join("found").display().to_string();
    let (code, _, err) = racefuzz(&["fuzz", "racerdx-tp", "--mutant", "no-stability-filter", "--time", "1h", "--max-programs", "300", "--out", &out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot write a finding") && err.contains("// oracle: racerdx-tp") && err.contains("FALSE POSITIVE"), "{err}");
}

/// A finding's witness page that cannot be written is said (a note on the output), and the
/// finding is kept: the same campaign run again, with a folder standing where each page
/// went, writes its findings and notes each page.
#[test]
fn an_unwritable_witness_page_is_a_note_and_the_finding_is_kept() {
    let dir = temp_dir("page");
    let out = dir.display().to_string();
    let args = ["fuzz", "fasttrack-precise", "--mutant", "ft-join-no-join", "--max-programs", "60", "--seed", "1", "--jobs", "1", "--out", &out];
    let (code, first, err) = racefuzz(&args);
    assert_eq!(code, 1, "{first}{err}");
    assert!(!first.contains("note: cannot write the witness page"), "{first}");
    let found = dir.join("fasttrack-precise");
    let pages: Vec<std::path::PathBuf> = std::fs::read_dir(&found).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "html")).collect();
    assert!(!pages.is_empty(), "no witness page in {}", found.display());
    for p in &pages {
        std::fs::remove_file(p).unwrap();
        std::fs::create_dir(p).unwrap();
    }
    let (code, again, err) = racefuzz(&args);
    assert_eq!(code, 1, "{again}{err}");
    for p in &pages {
        let finding = p.with_extension("race");
        assert!(
            again.contains(&format!("note: cannot write the witness page {}: ", p.display())) && again.contains(&format!("; the finding {} is kept", finding.display())),
            "{again}"
        );
        assert!(finding.is_file() && p.is_dir(), "{}", finding.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The first hour (the book's "Fuzz"): a campaign with the default output folder writes
/// nowhere the tests read, and git ignores it.
#[test]
fn default_findings_stay_out_of_the_tests() {
    let out = racefuzz::campaign::DEFAULT_OUT;
    assert!(racefuzz::corpus::CURATED.iter().all(|c| !out.starts_with(c) && !out.starts_with("tests")));
    let ignore = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l.trim_end_matches('/') == ".racefuzz"), "{ignore}");
}

/// User numbers are checked, long lists capped, deep nesting refused: exit 2, never a panic.
#[test]
fn hostile_numbers_and_sizes_are_bad_input() {
    let (code, _, err) = racefuzz(&["fuzz", "--time", "18446744073709551615s", "--max-programs", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--time"), "{err}");
    let (code, _, err) = racefuzz(&["fuzz", "--time", "99999999999999h"]);
    assert_eq!(code, 2, "{err}");
    let methods: String = (0..20_000).map(|i| format!("method m{i}(arg1) {{ skip }}\n")).collect();
    let f = temp_file("many.race", &format!("dialect racerdx\n{methods}"));
    let (code, _, err) = racefuzz(&["explore", &f, "--pair", "m0,nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("(20000 in all)") && err.len() < 400, "{}", &err[..err.len().min(400)]);
    let deep = format!("dialect bfj\nthread {{ {} skip {} }}\n", "if * { ".repeat(10_000), "} ".repeat(10_000));
    let f = temp_file("deep.race", &deep);
    let (code, _, err) = racefuzz(&["explore", &f]);
    assert_eq!(code, 2, "{}", &err[..err.len().min(400)]);
    let (code, _, err) = racefuzz(&["check", "no-such-oracle", "corpus/paper/racerdx/fig1_dodo.race"]);
    assert_eq!(code, 2);
    assert!(err.contains("racerdx-tp"), "{err}");
}

/// Programs too large for the engines' fixed-width indices are bad input (exit 2, the limit
/// named), never aliased: 65 ldrf threads (64-bit thread sets), 40,000 ldrf variables
/// (16-bit indices with room for a ghost each), a naikaiken path of 256 fields (8-bit
/// positions).
#[test]
fn programs_over_the_engines_limits_are_bad_input() {
    let threads: String = (0..65).map(|i| format!("thread {{ x{i} = 1 }}\n")).collect();
    let vars: String = (0..40_000).map(|i| format!("v{i} = 1\n")).collect();
    let path = vec!["f"; 256].join(".");
    for (name, src, limit) in [
        ("threads.race", format!("dialect ldrf\n{threads}"), "at most 64"),
        ("vars.race", format!("dialect ldrf\nthread {{\n{vars}}}\n"), "at most 32768"),
        ("path.race", format!("dialect naikaiken\nthread {{\nx = new @h\nread x.{path}\n}}\n"), "at most 255"),
    ] {
        let f = temp_file(name, &src);
        for cmd in [&["explore", &f][..], &["check", if name == "path.race" { "naik-aiken-sound" } else { "ldrf-agree" }, &f]] {
            let (code, _, err) = racefuzz(cmd);
            assert_eq!(code, 2, "{cmd:?}: {}", &err[..err.len().min(400)]);
            assert!(err.contains("size: ") && err.contains(limit), "{cmd:?}: {}", &err[..err.len().min(400)]);
        }
    }
}

/// Findings are on disk before they are reported, written whole (temp file + rename): a
/// campaign killed with SIGKILL leaves only complete `.race` files.
#[test]
fn killed_campaign_keeps_its_findings() {
    let out = temp_dir("killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_racefuzz"))
        .args(["fuzz", "racerdx-tp", "--mutant", "lock-sum-2", "--time", "1h", "--out", &out.display().to_string()])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for two findings; the cap only keeps a broken build from hanging the suite.
    for _ in 0..600 {
        if racefuzz::corpus::race_files(&out).len() >= 2 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let files = racefuzz::corpus::race_files(&out);
    assert!(!files.is_empty(), "no finding");
    for f in files {
        let src = std::fs::read_to_string(&f).unwrap();
        assert!(race_oracles::lang::parse(&src).is_ok() && src.contains("// oracle: racerdx-tp"), "{}", f.display());
    }
}

/// `analyze naikaiken` on Fig. 1 with L = x (docs/spec/naik_aiken.md §6 R4): the whole text is a
/// snapshot (Γ per point, K, K⁺, DR_K, the g pair pruned by local-lock); a program of another
/// dialect and one outside A5 are bad input (exit 2, the line named); the mutant that keeps
/// a reassigned lock held accepts the latter; `--json` carries the typing and the pairs.
#[test]
fn analyze_naikaiken_prints_the_typing_and_the_verdicts() {
    let r4 = "corpus/paper/naikaiken/r4_fig1_lock_x.race";
    let (code, out, err) = racefuzz(&["analyze", "naikaiken", r4]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("analyze_naikaiken_r4_lock_x", out);

    let (code, _, err) = racefuzz(&["analyze", "naikaiken", "corpus/paper/bigfoot/fig3_6b_loop.race"]);
    assert!(code == 2 && err.contains("naikaiken programs") && err.contains("is bfj"), "{err}");
    let f = temp_file("reassigned.race", "dialect naikaiken\nthread {\n  x = new @h1\n  sync(x) {\n    x = null\n  }\n}\n");
    let (code, _, err) = racefuzz(&["analyze", "naikaiken", &f]);
    assert!(code == 2 && err.contains("A5") && err.contains("(line 5)"), "{err}");
    let (code, out, err) = racefuzz(&["analyze", "naikaiken", "--mutant", "na-reassigned-lock-held", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(mutant na-reassigned-lock-held)"), "{out}");

    let (code, out, err) = racefuzz(&["analyze", "naikaiken", "--json", r4]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["typing"]["effects"].as_array().map(Vec::len), Some(2), "{out}");
    let pairs = v["pairs"].as_array().unwrap_or_else(|| panic!("no pairs array: {out}"));
    assert!(pairs.iter().any(|p| p["pruned"]["stage"] == "local-lock"), "{out}");
}

/// `analyze ldrf`: the sync-CFG analyses' facts per relevant location and their proved
/// asserts (Fig. 1 with regions: only the region mix proves x == y); `check ldrf-sound`
/// passes there; a file of another dialect and an unknown mutant are bad input.
#[test]
fn analyze_ldrf_prints_facts_and_proved_asserts() {
    let fig1 = "corpus/paper/ldrf/fig1_regions.race";
    let (code, out, err) = racefuzz(&["analyze", "ldrf", fig1]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("sync-CFG analyses on corpus/paper/ldrf/fig1_regions.race (values mod 4, G full, regions {x, y})"), "{out}");
    assert!(out.contains("t2@20 (x, y): interval x∈[0,3] y∈[0,3] · value-set x∈{0,1,2,3} y∈{0,1,2,3} · region {x,y}∈{(0,0),(1,1),(2,2),(3,3)}"), "{out}");
    assert!(out.contains("  value-set: line 18 (assert z == 1)\n  region: line 13 (assert x == y), line 18 (assert z == 1), line 20 (assert x == y)"), "{out}");
    let (code, out, err) = racefuzz(&["analyze", "ldrf", "--json", fig1]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["proved"]["region"].as_array().map(Vec::len), Some(3), "{out}");
    assert_eq!(v["locations"][0]["relevant"], serde_json::json!(["x", "y"]), "{out}");
    let (code, out, err) = racefuzz(&["analyze", "ldrf", "--mutant", "sync-acquire-ignores-buffers", fig1]);
    assert!(code == 0 && out.contains("mutant sync-acquire-ignores-buffers"), "{err}");
    let (code, _, err) = racefuzz(&["analyze", "ldrf", "--mutant", "nope", fig1]);
    assert!(code == 2 && err.contains("no mutant `nope`"), "{err}");
    let (code, _, err) = racefuzz(&["analyze", "ldrf", "corpus/paper/bigfoot/fig3_6b_loop.race"]);
    assert!(code == 2 && err.contains("ldrf programs") && err.contains("is bfj"), "{err}");
    let (code, out, err) = racefuzz(&["check", "ldrf-sound", fig1]);
    assert!(code == 0 && out.contains("PASS"), "{out}{err}");
}

/// `gen naikaiken`: the generator of `naik-aiken-sound`; `--stats` adds the Naik-Aiken
/// shapes and the ground truth of the instrumented semantics.
#[test]
fn gen_runs_the_naikaiken_generator() {
    let (code, stdout, stderr) = racefuzz(&["gen", "naikaiken", "--count", "2", "--seed", "3"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.matches("dialect naikaiken").count(), 2, "{stdout}");
    let (code, stdout, stderr) = racefuzz(&["gen", "naikaiken", "--stats", "--count", "300"]);
    assert_eq!(code, 0, "{stderr}");
    for line in
        ["300 naikaiken programs", "threads at run time", "with a fork in a loop", "lock-prefix access", "ground truth (enabled conflicting pairs, spec/naik_aiken.md §4.2)"]
    {
        assert!(stdout.contains(line), "no `{line}`:\n{stdout}");
    }
    assert!(!stdout.contains("BELOW FLOOR"), "{stdout}");
}

/// `gen limits` and `gen histories`: the scorecard's generators aimed at detector limits
/// (`score --generator`); `--stats` says which limit shapes their traces reach.
#[test]
fn gen_runs_the_detector_limit_generators() {
    let (code, stdout, stderr) = racefuzz(&["gen", "histories", "--count", "2", "--seed", "3"]);
    assert_eq!((code, stdout.matches("dialect bfj2").count()), (0, 2), "{stdout}{stderr}");
    let (code, stdout, stderr) = racefuzz(&["gen", "limits", "--stats", "--count", "12", "--seed", "1"]);
    assert_eq!(code, 0, "{stderr}");
    for line in ["12 programs from the limits generator", "detector-limit coverage", "race behind 4 accesses", "reuse after join", "ground truth (happens-before)"] {
        assert!(stdout.contains(line), "no `{line}`:\n{stdout}");
    }
}

/// `explore` on an ldrf program (docs/spec/ldrf.md §6.1, §8 R1): Fig. 1's E-STD view (32 states,
/// no race, the truth per relevant location), its E-LDRF view (33 states, the copies with
/// version ranks) and E-CART's sizes, as one snapshot; the default view is its E-STD part.
/// `--json` carries the same counts; `--pair`, `--ldrf` on another dialect and `replay` are
/// bad input (exit 2); a state budget is exit 3.
#[test]
fn explore_ldrf_prints_the_standard_and_thread_local_views() {
    let fig1 = "corpus/paper/ldrf/fig1_sync_cfg.race";
    let (code, out, err) = racefuzz(&["explore", "--ldrf", "--cart", fig1]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("explore_ldrf_fig1_sync_cfg", out);
    let (code, plain, err) = racefuzz(&["explore", fig1]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(&plain) && plain.contains("32 states") && !plain.contains("E-LDRF"), "{plain}");

    let (code, out, err) = racefuzz(&["explore", "--json", "--ldrf", fig1]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!((v["standard"]["states"].as_u64(), v["ldrf"]["states"].as_u64(), v["standard"]["racy"].as_bool()), (Some(32), Some(33), Some(false)), "{out}");
    let (code, out, _) = racefuzz(&["explore", "--json", "corpus/paper/ldrf/r6a_racy_read.race"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["standard"]["races"], serde_json::json!([{ "var": "x", "lines": [6, 9] }]), "{out}");

    let (code, _, err) = racefuzz(&["explore", fig1, "--pair", "a,b"]);
    assert!(code == 2 && err.contains("--pair applies to racerdx"), "{err}");
    let (code, _, err) = racefuzz(&["explore", "--ldrf", "corpus/paper/bigfoot/fig3_6b_loop.race"]);
    assert!(code == 2 && err.contains("ldrf programs only"), "{err}");
    let (code, _, err) = racefuzz(&["replay", fig1, "--schedule", "1"]);
    assert!(code == 2 && err.contains("ldrf programs run on the L-DRF engines"), "{err}");
    let (code, out, err) = racefuzz(&["explore", "--ldrf", "--cart", "--max-states", "5", fig1]);
    assert!(code == 3 && out.contains("INCOMPLETE") && out.contains("--max-states"), "{out}{err}");
}

/// `--sut` picks another SUT of the oracle's kind and dialect (bigfoot-precise judges the
/// per-access placer); a name that is not one of them is bad input naming the SUTs. A
/// finding records the SUT, and `shrink` picks it up from there.
#[test]
fn sut_picks_another_placer_for_bigfoot_precise() {
    let fig = "corpus/paper/bigfoot/fig3_6b_loop.race";
    let (code, out, err) = racefuzz(&["check", "bigfoot-precise", fig, "--sut", "per-access"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("per-access checks"), "{out}");
    for bad in ["nope", "fasttrack"] {
        let (code, _, err) = racefuzz(&["check", "bigfoot-precise", fig, "--sut", bad]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("no SUT `{bad}` for bigfoot-precise")) && err.contains("bigfoot, per-access"), "{err}");
        let (code, _, err) = racefuzz(&["fuzz", "bigfoot-precise", "--sut", bad, "--max-programs", "1"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("--sut") && err.contains("bigfoot, per-access"), "{err}");
    }
    let out = temp_dir("sut");
    let o = out.display().to_string();
    let (code, stdout, _) = racefuzz(&["fuzz", "bigfoot-precise", "--sut", "per-access", "--time", "1h", "--max-programs", "50", "--out", &o]);
    assert_eq!(code, 0, "{stdout}");
    assert!(stdout.contains("SUT per-access"), "{stdout}");
    let (code, stdout, _) =
        racefuzz(&["fuzz", "bigfoot-precise", "--sut", "per-access", "--mutant", "pa-write-checked-as-read", "--time", "1h", "--max-programs", "300", "--out", &o]);
    assert_eq!(code, 1, "{stdout}");
    let found = racefuzz::corpus::race_files(&out);
    let text = std::fs::read_to_string(&found[0]).unwrap();
    assert!(text.contains("// sut: per-access\n// mutant: pa-write-checked-as-read"), "{text}");
    let (code, stdout, err) = racefuzz(&["shrink", &found[0].display().to_string()]);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.contains("per-access checks"), "{stdout}");
}

/// A mutant that no oracle of the run judges could not run: `check`, `fuzz` and a fuzz
/// target refuse it (exit 2), naming the oracles that judge it. Without oracles named,
/// `fuzz --mutant M` runs the default oracles that judge M, and only those.
#[test]
fn a_mutant_that_cannot_run_is_refused() {
    let judges = "the oracles that judge it: racerdx-tp, racerdx-complete, racerdx-reports";
    let fig = "corpus/paper/bigfoot/fig3_3_anticipation.race";
    let (code, _, err) = racefuzz(&["check", "bigfoot-precise", fig, "--mutant", "no-stability-filter"]);
    assert!(code == 2 && err.contains("mutant `no-stability-filter` breaks racerdx, which bigfoot-precise does not judge") && err.contains(judges), "{err}");
    let (code, out, err) = racefuzz(&["fuzz", "bigfoot-precise", "--mutant", "no-stability-filter", "--max-programs", "1"]);
    assert!(code == 2 && err.contains(judges) && out.is_empty(), "{out}{err}");
    let (code, _, err) = racefuzz(&["fuzz", "racerdx-tp", "--mutant", "bf-check-after-acquire", "--max-programs", "1"]);
    assert!(code == 2 && err.contains("which racerdx-tp does not judge; the oracles that judge it: bigfoot-precise"), "{err}");
    let (code, _, err) = racefuzz(&["fuzz", "--mutant", "nope", "--max-programs", "1"]);
    assert!(code == 2 && err.contains("no mutant `nope`"), "{err}");
    let out = temp_dir("judging");
    let (code, stdout, err) = racefuzz(&["fuzz", "--mutant", "bf-check-after-acquire", "--time", "1h", "--max-programs", "2", "--out", &out.display().to_string()]);
    assert!(code == 0 || code == 1, "{stdout}{err}");
    assert!(stdout.starts_with("racefuzz fuzz: bigfoot-precise, 2 programs per oracle and job or 3600s") && stdout.contains("mutant bf-check-after-acquire"), "{stdout}");
    let mutant = |m: &'static str| move |k: &str| (k == "RACEFUZZ_MUTANT").then(|| m.to_string());
    let e = racefuzz::fuzz_subject("racerdx-tp", &mutant("bf-check-after-acquire")).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e.starts_with("RACEFUZZ_MUTANT: mutant `bf-check-after-acquire` breaks bigfoot"), "{e}");
    assert!(racefuzz::fuzz_subject("racerdx-tp", &mutant("")).is_ok() && racefuzz::fuzz_subject("racerdx-tp", &mutant("no-stability-filter")).is_ok());
}

/// `shrink` reads its file before anything else; `--into-test` refuses a name a regression
/// (or its snapshot) already has unless `--force`, and says when the shrunk program already
/// is a regression, refusing to write the same test twice.
#[test]
fn shrink_into_test_keeps_existing_regressions() {
    let (code, _, err) = racefuzz(&["shrink", "/nonexistent.race"]);
    assert!(code == 2 && err.starts_with("error: cannot read /nonexistent.race: "), "{err}");
    let work = temp_dir("into-test");
    std::fs::create_dir_all(work.join("tests/regress")).unwrap();
    std::fs::create_dir_all(work.join("tests/snapshots")).unwrap();
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/regress/bf_check_after_acquire.race")).unwrap();
    std::fs::write(work.join("tests/regress/old.race"), &src).unwrap();
    std::fs::write(work.join("tests/snapshots/integration__regress__snapped.snap"), "recorded").unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_racefuzz")).args(args).current_dir(&work).output().unwrap();
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let cause = ["--root-cause", "the read's check lands after the acquire that ends its window"];
    let f = "tests/regress/old.race";
    for taken in ["old", "snapped"] {
        let (code, out, err) = run(&[&["shrink", f, "--into-test", taken][..], &cause].concat());
        assert!(code == 2 && out.is_empty() && err.contains("already exists") && err.contains("--force"), "{taken}: {out}{err}");
    }
    assert_eq!(std::fs::read_to_string(work.join("tests/regress/old.race")).unwrap(), src);
    let (code, out, err) = run(&[&["shrink", f, "--into-test", "again"][..], &cause].concat());
    assert!(code == 2 && err.contains("tests/regress/old.race already is this regression (oracle bigfoot-precise, mutant bf-check-after-acquire)"), "{out}{err}");
    assert!(out.contains("the shrunk program is the program of tests/regress/old.race"), "{out}");
    assert!(!work.join("tests/regress/again.race").exists());
    let (code, out, err) = run(&[&["shrink", f, "--into-test", "old", "--force"][..], &cause].concat());
    assert!(code == 0 && out.contains("wrote tests/regress/old.race"), "{out}{err}");
    let (code, _, err) = run(&["shrink", f, "--force"]);
    assert_eq!(code, 2, "--force without --into-test: {err}");
}

/// A field or method the receiver's class does not declare is a dialect error naming the
/// line (exit 2) in every command that loads a program, never a stuck state that explores
/// to "no race".
#[test]
fn undeclared_names_are_dialect_errors() {
    let f = temp_file("typo.race", "dialect bfj\nclass C { fields f }\ninit { o = new C }\nthread { o.g = 1 }\n");
    for cmd in [&["explore", &f][..], &["check", "bigfoot-precise", &f], &["check", "fasttrack-precise", &f], &["analyze", "bigfoot", &f]] {
        let (code, out, err) = racefuzz(cmd);
        assert_eq!(code, 2, "{cmd:?}: {out}{err}");
        assert!(err.contains("bfj dialect, declared: `o.g`: class `C` declares no field `g` (its fields: f), in thread T1 (line 4)"), "{cmd:?}: {err}");
    }
    let f = temp_file("typo_method.race", "dialect simplejava\nclass R { fields f; method run() { this.g = 1 } }\nthread { r = new R; fork r }\n");
    let (code, _, err) = racefuzz(&["explore", &f]);
    assert!(code == 2 && err.contains("class `R` declares no field `g`") && err.contains("(line 2)"), "{err}");
}

#[test]
fn trace_writes_std_and_races_reads_it_back() {
    let fig = "corpus/paper/escape/fig4_2_not_address_precise.race";
    let dir = std::env::temp_dir().join(format!("racefuzz-cli-trace-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = dir.display().to_string();
    // Every class to a folder: one STD file and one loc table per trace, the names, the index.
    let (code, stdout, err) = racefuzz(&["trace", fig, "--classes", "--out", &out]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("2 trace(s), one execution per Mazurkiewicz class") && stdout.contains("names.json (3 threads, 4 variables, 0 locks)"), "{stdout}");
    let index: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    let traces = index["traces"].as_array().unwrap();
    assert_eq!((traces.len(), index["complete"].as_bool(), traces[0]["file"].as_str()), (2, Some(true), Some("trace-0001.std")));
    let std1 = std::fs::read_to_string(dir.join("trace-0001.std")).unwrap();
    assert!(std1.starts_with("T0|w(V3)|1\nT0|w(V4)|2\nT0|fork(T1)|3\n"), "{std1}");
    // One schedule on stdout is the same trace.
    let schedule = traces[0]["schedule"].as_str().unwrap();
    let (code, one, err) = racefuzz(&["trace", fig, "--schedule", schedule]);
    assert_eq!((code, one.as_str()), (0, std1.as_str()), "{err}");
    // `races` sees what the index says the ground truth sees.
    let path = dir.join("trace-0001.std").display().to_string();
    let (code, json, _) = racefuzz(&["races", &path, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!((code, &v["races"]), (0, &traces[0]["races"]));
    let (code, text, _) = racefuzz(&["races", &path, "--names", &dir.join("names.json").display().to_string()]);
    assert!(code == 0 && text.contains("racy variables: V1 (p@T1.o), V2 (r1@T1.1.f)") && text.contains("first race: loc 9 on V1 (p@T1.o), with 7"), "{text}");
    // A non-empty folder needs --force; --force replaces racefuzz's files.
    let (code, _, err) = racefuzz(&["trace", fig, "--out", &out]);
    assert!(code == 2 && err.contains("is not empty; pass --force"), "{err}");
    let (code, _, err) = racefuzz(&["trace", fig, "--out", &out, "--force", "--max-executions", "3"]);
    assert!(code == 3 && err.contains("inconclusive: the enumeration stopped early (--max-executions 3"), "{err}");
    let index: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("index.json")).unwrap()).unwrap();
    assert_eq!((index["traces"].as_array().map(Vec::len), index["complete"].as_bool()), (Some(3), Some(false)));
    assert!(!dir.join("trace-0004.std").exists());
    // Refusals: several STD traces on stdout, a dialect STD is not written for, an explorer flag.
    let (code, _, err) = racefuzz(&["trace", fig]);
    assert!(code == 2 && err.contains("20 traces, and STD has no separator"), "{err}");
    let (code, _, err) = racefuzz(&["trace", "corpus/paper/racerdx/fig1_dodo.race"]);
    assert!(code == 2 && err.contains("does not write racerdx programs"), "{err}");
    let (code, _, err) = racefuzz(&["trace", fig, "--dpor"]);
    assert!(code == 2 && err.contains("--dpor does not apply"), "{err}");
    // A malformed trace: its line, exit 2.
    let bad = temp_file("bad.std", "T0|w(V1)|1\nT1|begin(T1)|2\n");
    let (code, _, err) = racefuzz(&["races", &bad]);
    assert!(code == 2 && err.contains("bad.std: line 2: `begin` (a transaction boundary) is not supported"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A finding written before the SUT had one description (`tests/findings/`, written by
/// 2b71fc3 with `--sut per-access --mutant pa-write-checked-as-read`) shrinks today: its
/// header still names the SUT and the mutant it failed.
#[test]
fn a_finding_written_before_sut_spec_shrinks() {
    let (code, out, err) = racefuzz(&["shrink", "tests/findings/per_access_written_by_2b71fc3.race"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("shrunk per-access checks + FastTrack on checks (mutant pa-write-checked-as-read) failing bigfoot-precise from"), "{out}");
}
