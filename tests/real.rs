//! The real detectors (`racefuzz::real`): the table `racefuzz detectors` prints, a missing
//! detector refused with its install command (exit 2), a detector that crashes, hangs or
//! prints nonsense made a finding (never a pass), and Helgrind, DRD and ThreadSanitizer
//! under each installed compiler, and Go's race detector, agreeing with the ground truth on
//! the racy locations of every trace of generated programs. The runs need Valgrind, clang
//! and Go (`needs!`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use std::ops::ControlFlow;

use race_oracles::explore::{Config, ExplorerKind};
use race_oracles::machine::{Event, EventIdx, Machine};
use race_oracles::theorems::{Budget, DetectorFactory, Registry, Sut, Verdict};
use racefuzz::go_race::GoRace;
use racefuzz::replay::{Compiler, Output, ReplayError, ReplayFactory, ReplayTool, Report, Scheme};
use racefuzz::score::{score, Corpus};
use racefuzz::sut_spec::SutSpec;
use racefuzz::suts::Subject;

use super::cli::{racefuzz, racefuzz_env};

fn walkthrough() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/walkthrough/ordered_and_not.race").to_string_lossy().into_owned()
}

#[test]
fn detectors_lists_every_version_with_its_pin_and_install_line() {
    let (code, out, err) = racefuzz(&["detectors", "--json"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let versions: usize = racefuzz::real::DETECTORS.iter().map(|d| d.versions.len()).sum();
    assert_eq!(rows.len(), versions);
    for r in &rows {
        let apt = r["install"].as_str().is_some_and(|i| i.starts_with("apt-get install "));
        let rustup = r["install"].as_str().is_some_and(|i| i.contains("https://sh.rustup.rs") || i == "rustup component add miri rust-src --toolchain nightly");
        let rust = r["sut"].as_str().is_some_and(|s| s.starts_with("loom") || s == "miri");
        assert!(r["pin"].as_str().is_some_and(|p| !p.is_empty()) && (apt || rust && rustup), "{r}");
        // Installed (with a version) or not (with why), never neither.
        assert!(r["version"].is_string() != r["missing"].is_string(), "{r}");
    }
    let names: Vec<&str> = rows.iter().filter_map(|r| r["sut"].as_str()).collect();
    for n in ["drd", "miri", "go-race", "go-race@1.19", "helgrind", "loom", "loom@0.7.3", "loom@0.2.0", "tsan", "tsan@gcc-11", "tsan@gcc-12", "tsan@clang-14", "tsan@clang-19"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let (code, _, err) = racefuzz(&["detectors", "tsan@gcc-99"]);
    assert_eq!((code, err.trim()), (2, "error: tsan has no version `gcc-99` (its versions: gcc-11, gcc-12, clang-13, clang-14, clang-15, clang-16, clang-19)"));
}

#[test]
fn a_missing_detector_is_exit_2_with_its_install_command_never_a_pass() {
    let file = walkthrough();
    // ThreadSanitizer through a compiler that is not there.
    let (code, out, err) = racefuzz_env(&["check", "fasttrack-precise", &file, "--sut", "tsan"], &[("CC", "racefuzz-no-such-cc")]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("tsan is not installed here: `racefuzz-no-such-cc` cannot run") && err.contains("install it with `apt-get install gcc`"), "{err}");
    // Valgrind's tools on a PATH without valgrind.
    let empty = std::env::temp_dir().join(format!("racefuzz-empty-path-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    for tool in ["helgrind", "drd"] {
        let (code, out, err) = racefuzz_env(&["check", "fasttrack-precise", &file, "--sut", tool], &[("PATH", empty.to_str().unwrap())]);
        assert_eq!(code, 2, "{out}{err}");
        assert!(err.contains(&format!("{tool} is not installed here: `valgrind` cannot run")) && err.contains("install it with `apt-get install valgrind`"), "{err}");
        let (code, _, err) = racefuzz_env(&["detectors", tool], &[("PATH", empty.to_str().unwrap())]);
        assert_eq!(code, 2, "{err}");
    }
    // Go's race detector on a PATH without go.
    let (code, out, err) = racefuzz_env(&["check", "fasttrack-precise", &file, "--sut", "go-race"], &[("PATH", empty.to_str().unwrap())]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("go-race is not installed here: `go` cannot run") && err.contains("install it with `apt-get install golang-go`"), "{err}");
    let _ = std::fs::remove_dir_all(&empty);
}

/// A replay tool that misbehaves in one way: its command line, run in place of the replay
/// (and, with a second one, in place of its server).
#[derive(Debug)]
struct Broken(&'static str, Option<&'static str>);

impl ReplayTool for Broken {
    fn name(&self) -> String {
        format!("broken ({})", self.0)
    }

    fn compiler(&self) -> Compiler {
        Compiler::c(std::env::var("CC").unwrap_or_else(|_| "cc".into()), &["-std=c11", "-pthread"])
    }

    fn command(&self, _: &Path, _: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", self.0]);
        c
    }

    fn reports(&self, out: &Output) -> Result<Vec<Report>, ReplayError> {
        if out.stdout.contains("nonsense") {
            return Err(ReplayError::Parse(format!("cannot read `{}`", out.stdout.trim())));
        }
        racefuzz::tsan::parse(&out.stderr)
    }

    fn server(&self, _: &Path) -> Option<Command> {
        let mut c = Command::new("sh");
        c.args(["-c", self.1?]);
        Some(c)
    }
}

#[test]
fn a_detector_that_crashes_hangs_or_prints_nonsense_is_a_finding_never_a_pass() {
    let o = *Registry::builtin().find("fasttrack-precise").unwrap();
    let p = race_oracles::lang::parse(&std::fs::read_to_string(walkthrough()).unwrap()).unwrap();
    let cases = [
        ("kill -SEGV $$", "the replay exited with signal: 11"),
        ("sleep 30", "no answer within 0.3s (killed)"),
        ("echo nonsense", "cannot read `nonsense`"),
        ("exit 3", "the replay exited with exit status: 3"),
    ];
    // A server whose child crashes or fails, a server that dies, hangs or answers nonsense.
    let served = [
        ("read l; echo racefuzz-done 11 >&2; sleep 30", "the replay exited with signal: 11"),
        ("read l; echo oops >&2; echo racefuzz-done 768 >&2; sleep 30", "the replay exited with exit status: 3: oops"),
        ("read l; kill -SEGV $$", "the replay exited with signal: 11"),
        ("sleep 30", "no answer within 0.3s (killed)"),
        ("read l; echo nonsense >&2; echo racefuzz-done 0 >&2; sleep 30", "cannot read `nonsense`"),
        ("read l; echo racefuzz-done zero >&2", "the replay server answered `racefuzz-done zero`"),
    ];
    let cases = cases.iter().map(|&(c, says)| (Broken(c, None), says)).chain(served.iter().map(|&(c, says)| (Broken("exit 0", Some(c)), says)));
    for (tool, says) in cases {
        let command = format!("{tool:?}");
        let factory = ReplayFactory::with_timeout(Arc::new(tool), Duration::from_millis(300));
        let budget = Budget { explore: racefuzz::suts::campaign_bounds(), relax: Default::default() };
        let r = o.check(&p, &Sut::Detector(&factory), &budget);
        assert_eq!(r.verdict, Verdict::Fail, "{command}: {r:?}");
        let text = format!("{r:?}");
        assert!(text.contains("DETECTOR FAILED") && text.contains(says), "{command}: {text}");
    }
}

/// The scorecard of `sut` on `programs` generated programs (one trace per class): no
/// failed trace, no false positive or negative, and enough races to mean something.
fn agrees_on_generated_programs(sut: &str, programs: u64) {
    let o = *Registry::builtin().find("fasttrack-precise").unwrap();
    let subject = Subject::new(&o, &SutSpec::catalogued(Some(sut), None).unwrap()).unwrap();
    let card = score(&|| subject.sut(), subject.relax(), Corpus { programs, seed: 5, classes: true, ..Corpus::new(0, 0) }, 2, &|| {}).unwrap();
    assert_eq!(card.failed_traces, 0, "{sut}: {card}");
    assert_eq!((card.location.unwrap().fp, card.location.unwrap().fn_, card.program.fp, card.program.fn_), (0, 0, 0, 0), "{sut}: {card}");
    assert!(card.location.unwrap().tp >= programs && card.program.tp >= programs / 4, "{sut}: too few races to mean anything: {card}");
}

#[test]
fn helgrind_and_drd_report_exactly_the_racy_locations_of_every_class() {
    needs!(Valgrind);
    agrees_on_generated_programs("helgrind", 8);
    agrees_on_generated_programs("drd", 8);
    // Through the command line too, naming the tool.
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", &walkthrough(), "--sut", "helgrind"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("with Helgrind: PASS") && out.contains("4 trace(s) (one per Mazurkiewicz class), 4 racy; racy locations: o.g"), "{out}");
}

/// `--claim` beside `--sut` holds a real detector to another claim than its own
/// (locations): Helgrind, which names both accesses of a report, fails the pairs claim on
/// the first trace of `eviction.race`, naming as the earlier access a read the write is
/// ordered after (the book's "Claims"; its racy location is right, so the locations claim
/// holds there, but showing it on every interleaving, over 200,000, would take hours under
/// Helgrind). A SUT that is no detector has no claim: exit 2.
#[test]
fn a_real_detector_is_held_to_the_claim_named() {
    needs!(Valgrind);
    let eviction = format!("{}/examples/tsan/eviction.race", env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", &eviction, "--sut", "helgrind", "--claim", "pairs"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("property 1: Helgrind: every reported pair of accesses is a race of the trace")
            && out.contains("WRONG PAIR: the report at event 25 (T2, line 54: write o.f) names event"),
        "{out}"
    );
    let (code, _, err) = racefuzz(&["check", "racerdx-tp", &walkthrough(), "--sut", "racerdx", "--claim", "pairs"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--claim pairs: racerdx is no dynamic detector"), "{err}");
}

#[test]
fn tsan_under_clang_reports_exactly_the_racy_locations_of_every_class() {
    needs!(Clang);
    agrees_on_generated_programs("tsan@clang-19", 20);
    // The scorecard takes the versioned name too.
    let (code, out, err) = racefuzz(&["score", "--sut", "tsan@clang-19", "--classes", "--programs", "3"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("ThreadSanitizer (clang-19) (claim: locations) on 3 programs"), "{out}");
}

/// A `.race` file in the system's temporary directory: its path.
fn temp_race(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("racefuzz-real-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn go_race_reports_exactly_the_racy_locations_of_every_class() {
    needs!(Go);
    agrees_on_generated_programs("go-race", 8);
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", &walkthrough(), "--sut", "go-race"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("with Go race detector (go): PASS") && out.contains("4 trace(s) (one per Mazurkiewicz class), 4 racy; racy locations: o.g"), "{out}");
}

/// Go's `sync/atomic` is sequentially consistent only (docs/spec/atomics.md §6.3): Go runs,
/// and is judged on, the program strengthened, and a failure says so with the program it was
/// judged on; its replay refuses a trace with another order or a fence rather than
/// strengthening it in silence.
#[test]
fn go_race_is_judged_on_the_strengthened_program_and_its_replay_refuses_weaker_orders() {
    needs!(Go);
    let l13 = format!("{}/corpus/litmus/atomics/L13_failed_cas_plain_read.race", env!("CARGO_MANIFEST_DIR"));
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise-atomics", &l13, "--sut", "go-race"]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("judged on strengthen(p)") && out.contains("ok = o.x.cas(5, 7, seq_cst, seq_cst)"), "{out}");
    let p = race_oracles::lang::parse("dialect bfj2\nclass C { fields f }\ninit { o = new C }\nthread { o.f.store(1, release) }\nthread { fence(acquire) }\n").unwrap();
    let tool = racefuzz::go_race::GoRace { go: "go".into() };
    let dir = std::env::temp_dir().join(format!("racefuzz-go-orders-{}", std::process::id()));
    let binary = racefuzz::replay::run::compile(&racefuzz::replay::go::go_program(&p, "", "test", None), &racefuzz::replay::ReplayTool::compiler(&tool), &dir).unwrap();
    let run = |trace: &str| racefuzz::replay::run::run(racefuzz::replay::ReplayTool::command(&tool, &binary, trace), std::time::Duration::from_secs(20));
    assert!(run("2 0.S.4.0.0.5.0.0").is_ok(), "a seq_cst store replays");
    for (trace, says) in [("2 0.S.4.0.0.3.0.0", "seq_cst (5) only"), ("2 1.F.5.0.0.2.0.0", "Go has none")] {
        let e = run(trace).expect_err(trace).to_string();
        assert!(e.contains(says), "{trace}: {e}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A board compares detectors on the same programs: Go on strengthened ones and
/// ThreadSanitizer on the programs themselves is refused before anything runs.
#[test]
fn a_board_will_not_put_strengthened_go_beside_a_detector_of_the_programs_themselves() {
    needs!(Go, Tsan);
    let (code, out, err) = racefuzz(&["score", "--sut", "go-race", "--sut", "tsan@gcc-12", "--generator", "atomics", "--classes", "--programs", "5"]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("go-race runs and is judged on strengthen(p)") && err.contains("score go-race on its own"), "{err}");
}

/// The Go replay's turns order every pair of events, so if the race runtime saw them as
/// synchronization it would report nothing. It must report each race of every trace,
/// here of accesses that only the turns order (and unrelated locks around them), and
/// nothing where a lock (taken reentrantly), a fork or a join orders them: on every
/// interleaving (`--all-traces`), since the turns are what differs between them.
#[test]
fn go_race_sees_no_happens_before_from_the_turns_only_the_traces() {
    needs!(Go);
    let class = "dialect DIALECT\nclass C {\n  fields f, g\n}\ninit {\n  o = new C\n  m = new C\n  n = new C\n}\n";
    let program = |dialect: &str, threads: &str| format!("{}{threads}", class.replace("DIALECT", dialect));
    let cases = [
        ("turns-only", program("bfj", "thread {\n  o.f = 1\n  acq(m)\n  rel(m)\n}\nthread {\n  acq(n)\n  rel(n)\n  r = o.f\n}\n"), "20 trace(s), 20 racy; racy locations: o.f"),
        (
            "locked",
            program("bfj", "thread {\n  acq(m)\n  acq(m)\n  o.f = 1\n  rel(m)\n  r = o.f\n  rel(m)\n}\nthread {\n  acq(m)\n  r = o.f\n  o.f = 2\n  rel(m)\n}\n"),
            "2 trace(s), 0 racy; racy locations: none",
        ),
        (
            "fork-join",
            program("bfj2", "thread {\n  o.f = 1\n  h = fork {\n    r = o.f\n    o.g = 2\n  }\n  join(h)\n  r = o.g\n  o.f = 3\n}\n"),
            "1 trace(s), 0 racy; racy locations: none",
        ),
    ];
    for (name, text, says) in cases {
        let file = temp_race(&format!("{name}.race"), &text);
        let (code, out, err) = racefuzz(&["check", "fasttrack-precise", &file, "--sut", "go-race", "--all-traces"]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        assert!(out.contains(says), "{name}: {out}");
    }
}

/// Go's race detector built so that `go build` fails: cgo off, which `-race` needs.
#[derive(Debug)]
struct NoCgo(GoRace);

impl ReplayTool for NoCgo {
    fn name(&self) -> String {
        self.0.name()
    }

    fn compiler(&self) -> Compiler {
        let mut c = self.0.compiler();
        c.env.push(("CGO_ENABLED".into(), "0".into()));
        c
    }

    fn command(&self, binary: &Path, arg: &str) -> Command {
        self.0.command(binary, arg)
    }

    fn reports(&self, out: &Output) -> Result<Vec<Report>, ReplayError> {
        self.0.reports(out)
    }
}

#[test]
fn a_go_build_that_fails_or_a_trace_beyond_the_replay_is_a_finding_never_a_pass() {
    needs!(Go);
    let o = *Registry::builtin().find("fasttrack-precise").unwrap();
    let p = race_oracles::lang::parse(&std::fs::read_to_string(walkthrough()).unwrap()).unwrap();
    let budget = Budget { explore: racefuzz::suts::campaign_bounds(), relax: Default::default() };
    let factory = ReplayFactory::new(Arc::new(NoCgo(GoRace { go: "go".into() })));
    let r = o.check(&p, &Sut::Detector(&factory), &budget);
    let text = format!("{r:?}");
    assert!(r.verdict == Verdict::Fail && text.contains("DETECTOR FAILED") && text.contains("`go build -race` failed") && text.contains("requires cgo"), "{text}");
    // A trace with more threads than the replay's startN functions: the replay refuses it.
    let factory = ReplayFactory::new(Arc::new(GoRace { go: "go".into() }));
    let binary = factory.compile(&p).unwrap();
    let many = racefuzz::replay::go::MAX_THREADS + 1;
    let trace: Vec<String> = (0..many).map(|t| format!("{t}.r.13.0.1")).collect();
    let out = Command::new(&binary).arg(format!("{many} {}", trace.join(" "))).env("GORACE", racefuzz::go_race::GORACE).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("the replay starts at most 64"), "{out:?}");
}

/// Compiled replays and probes go to the system's temporary directory (and Go's build
/// cache to racefuzz's cache), never the tree.
#[test]
fn real_detectors_leave_the_source_tree_clean() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let before = std::fs::read_dir(&root).unwrap().count();
    let _ = racefuzz(&["detectors"]);
    let _ = racefuzz(&["check", "fasttrack-precise", &walkthrough(), "--sut", "go-race"]);
    assert_eq!(std::fs::read_dir(&root).unwrap().count(), before);
}

/// The first `cap` traces of `explorer` on each of `programs` generated programs through
/// `tool` per trace and through its server: the same events reported, with the same
/// partners. Returns how many traces were compared and how many of them had a report.
fn served_as_per_trace(tool: Arc<dyn ReplayTool>, programs: usize, explorer: ExplorerKind, cap: usize) -> (usize, usize) {
    let o = *Registry::builtin().find("fasttrack-precise").unwrap();
    let fasttrack = Subject::for_oracle(&o, None).unwrap();
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(7);
    let cfg = Config { explorer, ..racefuzz::suts::campaign_bounds() };
    let per_trace = ReplayFactory::new(tool.clone()).with_scheme(Scheme::PerTrace);
    let served = ReplayFactory::new(tool.clone()).with_scheme(Scheme::Served);
    let (mut compared, mut reported) = (0, 0);
    for _ in 0..programs {
        let p = racefuzz::campaign::generate(&o, &fasttrack, &mut rng);
        let m = Machine::new(&p, cfg.loop_bound);
        let Ok(init) = m.initial_state() else { continue };
        let mut traces: Vec<Vec<Event>> = vec![];
        cfg.explorer.get().explore(&m, init, &cfg, &mut |ex| {
            traces.push(ex.trace.to_vec());
            if traces.len() < cap {
                ControlFlow::Continue(())
            } else {
                ControlFlow::Break(())
            }
        });
        let (a, b) = (per_trace.for_program(&p), served.for_program(&p));
        for t in &traces {
            let answer = |f: &dyn DetectorFactory| {
                let mut d = f.fresh();
                d.on_trace(t).map(|at| at.iter().map(|i| (*i, i.map(|i| d.explain(t, i).partners))).collect::<Vec<(Option<EventIdx>, _)>>())
            };
            let (x, y) = (answer(a.as_ref()), answer(b.as_ref()));
            assert_eq!(x, y, "{}: per trace and served differ on a trace of\n{}", tool.name(), race_oracles::lang::print(&p));
            assert!(x.is_ok(), "{}: {x:?}", tool.name());
            compared += 1;
            reported += usize::from(x.is_ok_and(|r| !r.is_empty()));
        }
    }
    (compared, reported)
}

#[test]
fn served_replays_report_exactly_what_per_trace_replays_do() {
    needs!(Tsan, Clang, Valgrind);
    let tools: Vec<Arc<dyn ReplayTool>> = vec![
        Arc::new(racefuzz::tsan::Tsan::from_env()),
        Arc::new(racefuzz::tsan::Tsan::through("clang-19")),
        Arc::new(racefuzz::valgrind::Valgrind::new(racefuzz::valgrind::Tool::Helgrind)),
        Arc::new(racefuzz::valgrind::Valgrind::new(racefuzz::valgrind::Tool::Drd)),
    ];
    for tool in tools {
        // Valgrind starts in 0.6 s per trace: fewer programs for it.
        // One trace per class; for ThreadSanitizer, whose server replays its traces in one
        // process, also up to 250 interleavings of a program through one server and the
        // next (a server takes 200).
        let mut runs = vec![(12, ExplorerKind::Dpor, usize::MAX, 40)];
        if tool.name().starts_with("ThreadSanitizer") {
            runs.push((40, ExplorerKind::Naive, 250, 400));
        }
        for (programs, explorer, cap, least) in runs {
            let (compared, reported) = served_as_per_trace(tool.clone(), programs, explorer, cap);
            eprintln!("{}: {compared} traces ({explorer:?}) compared, {reported} with reports", tool.name());
            assert!(compared >= least && reported >= least / 4, "{}: too few comparisons to mean anything ({compared}, {reported} with reports)", tool.name());
        }
    }
}

/// `racefuzz check --sut miri` on `file` (all traces: Miri claims the first race of each):
/// the exit code and standard output.
fn miri_check(file: &str) -> (i32, String) {
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", file, "--sut", "miri"]);
    assert!(code == 0 || code == 1, "{file}: {out}{err}");
    (code, out)
}

/// Miri holds to its first-race claim on a racy and a race-free program, and on litmus
/// programs of docs/spec/atomics.md §8 that §5.4 predicts it gets right (message passing;
/// fences, which the replay's turns must not synchronize; a failed CAS as a load); on L12
/// (SC fences only) it misses the race when F1 runs before F2, as §5.4 predicts: its SC
/// fences synchronize through one global clock.
#[test]
fn miri_reports_the_first_race_of_every_trace_and_misses_l12_as_predicted() {
    needs!(Miri);
    let racy = temp_race("miri-racy.race", "dialect bfj\nclass C {\n  fields f\n}\ninit {\n  o = new C\n}\nthread {\n  o.f = 1\n}\nthread {\n  r = o.f\n}\n");
    let (code, out) = miri_check(&racy);
    assert!(code == 0 && out.contains("with Miri: PASS") && out.contains("2 trace(s), 2 racy"), "{out}");
    let locked = temp_race("miri-locked.race", "dialect bfj\nclass C {\n  fields f\n}\ninit {\n  o = new C\n  m = new C\n}\nthread {\n  acq(m)\n  acq(m)\n  o.f = 1\n  rel(m)\n  rel(m)\n}\nthread {\n  acq(m)\n  r = o.f\n  rel(m)\n}\n");
    let (code, out) = miri_check(&locked);
    assert!(code == 0 && out.contains("with Miri: PASS") && out.contains("0 racy"), "{out}");
    // Relative to the repository, where `racefuzz` runs, so the snapshot is the same anywhere.
    let litmus = |name: &str| format!("corpus/litmus/atomics/{name}");
    // Two threads each (a third multiplies the traces, each half a second under Miri).
    for name in ["L3_mp_fence_fence.race", "L13_failed_cas_plain_read.race"] {
        let (code, out) = miri_check(&litmus(name));
        assert!(code == 0 && out.contains("with Miri: PASS"), "{name}: {out}");
    }
    let (code, out) = miri_check(&litmus("L12_sc_fences_only.race"));
    assert_eq!(code, 1, "{out}");
    insta::assert_snapshot!(out);
}

/// Miri's report is read back as the two events it names: `--claim pairs` holds it to
/// naming a pair that races, here a successful CAS and a plain read (L13b).
#[test]
fn miri_names_a_pair_that_races() {
    needs!(Miri);
    let file = "corpus/litmus/atomics/L13b_successful_cas_plain_read.race";
    let (code, out, err) = racefuzz(&["check", "fasttrack-precise", file, "--sut", "miri", "--claim", "pairs"]);
    assert!(code == 0 && out.contains("PASS") && out.contains("2 racy"), "{out}{err}");
}

/// A missing Miri is exit 2 with its install command, never a pass.
#[test]
fn a_missing_miri_is_exit_2_with_its_install_command() {
    let (code, out, err) = racefuzz_env(&["check", "fasttrack-precise", &walkthrough(), "--sut", "miri"], &[("CARGO", "racefuzz-no-such-cargo")]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("miri is not installed here: `racefuzz-no-such-cargo` cannot run") && err.contains("install it with `rustup component add miri rust-src --toolchain nightly`"),
        "{err}"
    );
}
