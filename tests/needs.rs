//! What a test needs beyond Rust and a C compiler, in the manner of compiletest's `needs-*`
//! directives: a test that runs Chromium, Graphviz, Node, Python or the C compiler's
//! ThreadSanitizer starts with one line, `needs!(Dot);`, and on a machine without the tool
//! it passes after one line on standard error that names the test, the tool and how to
//! install it. So `cargo test` passes on a fresh clone with only Rust and a C compiler,
//! and the run ends with the list of what it skipped (an `atexit` handler: libtest has no
//! end-of-run hook, and what a process writes to stderr at exit is not captured).
//!
//! `RACEFUZZ_REQUIRE_TOOLS=1` turns a missing tool into a failure with the same message
//! (except an optional one, `Usage::Optional`: Miri, by the project's decision):
//! `.ci/run` sets it, so that CI skips nothing, and [`ci_installs_every_tool_a_test_needs`]
//! checks that `.ci/run` installs every tool a test declares.
//!
//! A row of [`TOOLS`] is a tool's name, its probe (run once per test run, cached) and the
//! one line that installs it. Rows that no test uses yet (`Usage::Later`) wait for the
//! issues that bring them; the first `needs!` of one fails the CI check until its row says
//! `Usage::Tests` and `.ci/run` installs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, Once, OnceLock};

/// Skips the test (returns) when one of the named [`Tool`]s is missing, or fails it under
/// `RACEFUZZ_REQUIRE_TOOLS=1`. The first line of a test, before any setup:
/// `needs!(Node, Python3);`.
macro_rules! needs {
    ($($tool:ident),+ $(,)?) => {
        // A function item's type name is its path: the test's, plus this item.
        fn needs_site() {}
        if !$crate::needs::needs(std::any::type_name_of_val(&needs_site), &[$($crate::needs::Tool::$tool),+]) {
            return;
        }
    };
}

/// A program (or installed files) a test runs that a clone with only Rust and a C compiler
/// lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// A C compiler that builds and links `-fsanitize=thread` (`$CC`, else `cc`).
    Tsan,
    /// Python 3: the example external detectors and analysis (`examples/{detectors,analyzers}`).
    Python3,
    /// Graphviz's `dot`.
    Dot,
    /// Headless Chromium.
    Chromium,
    /// Node.js (`node`).
    Node,
    /// ajv-cli with ajv-formats, from `tests/node` (runs on Node).
    Ajv,
    /// Microsoft's SARIF multitool for this platform, from `tests/node`.
    SarifMultitool,
    /// Valgrind, with the client-request headers the replay includes (Helgrind, DRD).
    Valgrind,
    /// clang 19 with its ThreadSanitizer runtime (`tsan@clang-19`).
    Clang,
    /// Go with its race detector (`go build -race`; `go-race`).
    Go,
    /// Miri, through rustup's nightly toolchain (`cargo +nightly miri`; `miri`): optional.
    Miri,
}

/// Whether a row is needed now: the CI check holds `.ci/run` to installing every
/// `Tests` row, and fails on a `needs!` of a `Later` one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Usage {
    /// Some test declares it: `.ci/run` must install it.
    Tests,
    /// Listed for the issues that will bring it; no test declares it yet.
    Later,
    /// Some test declares it and `.ci/run` tries to install it, but by the project's
    /// decision it is optional: where the install does not answer (Miri is not on every
    /// nightly, and rustup may be offline), its tests skip even under
    /// `RACEFUZZ_REQUIRE_TOOLS=1`.
    Optional,
}

/// One tool: how a skip line names it, how to tell it is installed, how to install it.
pub struct Row {
    pub tool: Tool,
    /// The name in a skip line: the command, or the package.
    pub name: &'static str,
    /// What it is, in parentheses after the name.
    pub what: &'static str,
    /// Whether it is installed and runs; called once per test run.
    probe: fn() -> bool,
    /// The one line that installs it (Debian packages; commands joined by `&&`).
    pub install: &'static str,
    pub usage: Usage,
}

/// Every tool a test may need. The order is the probes' cache index (see [`row_index`]).
pub const TOOLS: [Row; 11] = [
    Row { tool: Tool::Tsan, name: "tsan", what: "a C compiler that links -fsanitize=thread", probe: tsan_links, install: "apt-get install gcc", usage: Usage::Tests },
    Row { tool: Tool::Python3, name: "python3", what: "Python 3", probe: || runs("python3", &["--version"]), install: "apt-get install python3", usage: Usage::Tests },
    Row { tool: Tool::Dot, name: "dot", what: "Graphviz", probe: || runs("dot", &["-V"]), install: "apt-get install graphviz", usage: Usage::Tests },
    Row { tool: Tool::Chromium, name: "chromium", what: "headless Chromium", probe: || runs("chromium", &["--version"]), install: "apt-get install chromium", usage: Usage::Tests },
    Row { tool: Tool::Node, name: "node", what: "Node.js", probe: || runs("node", &["--version"]), install: "apt-get install nodejs", usage: Usage::Tests },
    Row {
        tool: Tool::Ajv,
        name: "ajv",
        what: "ajv-cli in tests/node",
        probe: || node_modules().join(".bin/ajv").is_file(),
        install: "apt-get install npm && npm ci --prefix tests/node",
        usage: Usage::Tests,
    },
    Row {
        tool: Tool::SarifMultitool,
        name: "sarif-multitool",
        what: "Microsoft's SARIF multitool in tests/node",
        probe: || multitool_dir().join("Sarif.Multitool").is_file(),
        install: "apt-get install npm && npm ci --prefix tests/node",
        usage: Usage::Tests,
    },
    Row { tool: Tool::Valgrind, name: "valgrind", what: "Valgrind with its headers", probe: || real("helgrind", None), install: "apt-get install valgrind", usage: Usage::Tests },
    Row {
        tool: Tool::Clang,
        name: "clang-19",
        what: "clang 19 with its ThreadSanitizer runtime",
        probe: || real("tsan", Some("clang-19")),
        install: "apt-get install clang-19 libclang-rt-19-dev",
        usage: Usage::Tests,
    },
    Row { tool: Tool::Go, name: "go", what: "Go with its race detector", probe: || real("go-race", None), install: "apt-get install golang-go", usage: Usage::Tests },
    Row {
        tool: Tool::Miri,
        name: "miri",
        what: "Miri on a nightly toolchain",
        probe: || real("miri", None),
        install: "rustup component add miri rust-src --toolchain nightly",
        usage: Usage::Optional,
    },
];

/// Whether the real detector `name` at `version` is installed, as `racefuzz detectors` says.
fn real(name: &str, version: Option<&str>) -> bool {
    racefuzz::real::find(name).and_then(|d| d.version(version).ok().map(|v| d.installed(v).is_ok())).unwrap_or(false)
}

/// `tests/node/node_modules`, where `npm ci --prefix tests/node` installs the validators.
pub fn node_modules() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/node/node_modules")
}

/// The SARIF multitool's package for this platform (its binary and the SARIF schema).
pub fn multitool_dir() -> PathBuf {
    let platform = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        os => os,
    };
    node_modules().join(format!("@microsoft/sarif-multitool-{platform}"))
}

/// Whether `program args` starts and exits 0 (its output discarded).
fn runs(program: &str, args: &[&str]) -> bool {
    Command::new(program).args(args).stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
}

/// Whether `$CC` (else `cc`) builds and links a program with `-fsanitize=thread`, as the
/// TSan tests and `.ci/run`'s probe do.
fn tsan_links() -> bool {
    let dir = std::env::temp_dir().join(format!("racefuzz-needs-tsan-{}", std::process::id()));
    let (source, binary) = (dir.join("probe.c"), dir.join("probe"));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let linked = std::fs::create_dir_all(&dir).is_ok()
        && std::fs::write(&source, "int main(void) { return 0; }\n").is_ok()
        && Command::new(&cc)
            .args(["-fsanitize=thread", "-pthread", "-o"])
            .arg(&binary)
            .arg(&source)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    let _ = std::fs::remove_dir_all(&dir);
    linked
}

/// The row of `tool`: its index in [`TOOLS`].
fn row_index(tool: Tool) -> usize {
    // OK since every variant has a row: `every_tool_has_one_row` checks it.
    TOOLS.iter().position(|r| r.tool == tool).expect("racefuzz internal bug: a tool without a row in TOOLS")
}

/// Whether `tool` is installed, probed once per test run.
fn installed(tool: Tool) -> bool {
    static PROBED: [OnceLock<bool>; TOOLS.len()] = [const { OnceLock::new() }; TOOLS.len()];
    let i = row_index(tool);
    *PROBED[i].get_or_init(TOOLS[i].probe)
}

/// The test's name as libtest prints it (`picture::graphviz_reads_the_dot`), from the type
/// name of an item inside it (`integration::picture::graphviz_reads_the_dot::needs_site`).
fn test_name(site: &str) -> &str {
    let path = site.rsplit_once("::").map_or(site, |(test, _)| test);
    path.split_once("::").map_or(path, |(_, in_crate)| in_crate)
}

/// What `test` lacks, as its skip line says it (without the leading `skipped `):
/// `picture::graphviz_reads_the_dot: needs dot (Graphviz): apt-get install graphviz`.
fn lacks(test: &str, missing: &[&Row]) -> String {
    let each: Vec<String> = missing.iter().map(|r| format!("needs {} ({}): {}", r.name, r.what, r.install)).collect();
    format!("{test}: {}", each.join("; "))
}

/// Whether a missing tool fails the test: `RACEFUZZ_REQUIRE_TOOLS` set to anything but
/// empty or `0`.
fn strict() -> bool {
    std::env::var_os("RACEFUZZ_REQUIRE_TOOLS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The skip lines of this run, printed at exit.
static SKIPPED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// What `needs!` calls: whether every one of `tools` is installed. If one is not, this
/// panics under `RACEFUZZ_REQUIRE_TOOLS=1`; otherwise it writes the skip line to standard
/// error, past libtest's capture, so that a passing run shows it too, and records it for
/// the list at exit. A failure points at the test's `needs!` line.
#[track_caller]
pub fn needs(site: &str, tools: &[Tool]) -> bool {
    let missing: Vec<&Row> = tools.iter().filter(|t| !installed(**t)).map(|t| &TOOLS[row_index(*t)]).collect();
    if missing.is_empty() {
        return true;
    }
    let line = lacks(test_name(site), &missing);
    if strict() && missing.iter().any(|r| r.usage != Usage::Optional) {
        panic!("{line} (RACEFUZZ_REQUIRE_TOOLS is set: a missing tool fails the test)");
    }
    // One write of the whole line, so that parallel tests do not interleave.
    use std::io::Write;
    let _ = std::io::stderr().write_all(format!("skipped {line}\n").as_bytes());
    SKIPPED.lock().unwrap_or_else(|e| e.into_inner()).push(line);
    static AT_EXIT: Once = Once::new();
    AT_EXIT.call_once(|| {
        // SAFETY: `report_skips` is an `extern "C" fn()` that does not unwind.
        if unsafe { libc::atexit(report_skips) } != 0 {
            let _ = std::io::stderr().write_all(b"racefuzz tests: atexit failed: the list of skipped tests will not be printed at the end\n");
        }
    });
    false
}

/// The `atexit` handler: the run's skip lines, sorted, after libtest's summary.
extern "C" fn report_skips() {
    use std::io::Write;
    let mut lines = std::mem::take(&mut *SKIPPED.lock().unwrap_or_else(|e| e.into_inner()));
    lines.sort();
    let n = lines.len();
    let mut text = format!("\n{n} test{} skipped for missing tools:\n", if n == 1 { "" } else { "s" });
    for l in &lines {
        text.push_str(&format!("  skipped {l}\n"));
    }
    text.push_str("(RACEFUZZ_REQUIRE_TOOLS=1 makes a missing tool fail its test; .ci/run sets it)\n");
    let _ = std::io::stderr().write_all(text.as_bytes());
}

#[test]
fn every_tool_has_one_row() {
    for (i, r) in TOOLS.iter().enumerate() {
        assert_eq!(row_index(r.tool), i, "{:?} has two rows", r.tool);
        assert!(!r.name.is_empty() && !r.what.is_empty() && !r.install.is_empty(), "{:?}", r.tool);
    }
    // Every variant, numbered: a new one does not compile until it is numbered here, and
    // then this fails until it has a row.
    let number = |t: Tool| match t {
        Tool::Tsan => 0,
        Tool::Python3 => 1,
        Tool::Dot => 2,
        Tool::Chromium => 3,
        Tool::Node => 4,
        Tool::Ajv => 5,
        Tool::SarifMultitool => 6,
        Tool::Valgrind => 7,
        Tool::Clang => 8,
        Tool::Go => 9,
        Tool::Miri => 10,
    };
    let numbers: std::collections::BTreeSet<usize> = TOOLS.iter().map(|r| number(r.tool)).collect();
    assert_eq!(numbers, (0..=10).collect(), "a tool without a row in TOOLS");
}

#[test]
fn a_skip_line_names_the_test_the_tool_and_its_install_line() {
    fn inside() {}
    let site = std::any::type_name_of_val(&inside);
    assert_eq!(test_name(site), "needs::a_skip_line_names_the_test_the_tool_and_its_install_line", "{site}");
    let dot = &TOOLS[row_index(Tool::Dot)];
    assert_eq!(lacks("picture::graphviz_reads_the_dot", &[dot]), "picture::graphviz_reads_the_dot: needs dot (Graphviz): apt-get install graphviz");
    let (node, ajv) = (&TOOLS[row_index(Tool::Node)], &TOOLS[row_index(Tool::Ajv)]);
    assert_eq!(lacks("t", &[node, ajv]), "t: needs node (Node.js): apt-get install nodejs; needs ajv (ajv-cli in tests/node): apt-get install npm && npm ci --prefix tests/node");
}

/// The tools the tests declare: each `needs!(..)` line under `tests/`, but this file's.
fn declared() -> Vec<(String, Tool)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() && !p.ends_with("node_modules") {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") && !p.ends_with("tests/needs.rs") {
                out.push(p);
            }
        }
    }
    let mut files = vec![];
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"), &mut files);
    let mut out = vec![];
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let Some(args) = line.trim_start().strip_prefix("needs!(").and_then(|a| a.split_once(')')).map(|(a, _)| a) else { continue };
            for name in args.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let row = TOOLS.iter().find(|r| format!("{:?}", r.tool) == name);
                let row = row.unwrap_or_else(|| panic!("{}:{}: `{name}` is no tool", f.display(), i + 1));
                out.push((format!("{}:{}", f.display(), i + 1), row.tool));
            }
        }
    }
    out
}

/// CI must run every test: `.ci/run` sets `RACEFUZZ_REQUIRE_TOOLS=1` for `cargo test` and
/// installs every tool a test declares with `needs!`, as its row's install line says (each
/// Debian package in an `apt-get install` line of `.ci/run`, every other command at the
/// start of a line, not in a message).
/// A tool no test uses yet must be marked `Usage::Later`, and a `Later` tool must stay
/// unused: its first test must bring its install into `.ci/run`.
#[test]
fn ci_installs_every_tool_a_test_needs() {
    let run = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/run")).unwrap();
    let lines: Vec<&str> = run.lines().map(str::trim).collect();
    let test_at = lines.iter().position(|l| l.starts_with("cargo test") || l.starts_with("RACEFUZZ_REQUIRE_TOOLS=1 cargo test"));
    let test_at = test_at.unwrap_or_else(|| panic!(".ci/run runs no `cargo test`:\n{run}"));
    assert!(
        lines[test_at].starts_with("RACEFUZZ_REQUIRE_TOOLS=1 ") || lines[..test_at].contains(&"export RACEFUZZ_REQUIRE_TOOLS=1"),
        ".ci/run must set RACEFUZZ_REQUIRE_TOOLS=1 before `cargo test`, so that a missing tool fails rather than skips:\n{run}"
    );
    let declared = declared();
    for (at, tool) in &declared {
        assert_ne!(TOOLS[row_index(*tool)].usage, Usage::Later, "{at} needs {tool:?}, marked Usage::Later: mark it Usage::Tests and install it in .ci/run");
    }
    // Lines that install packages: `apt-get install -y ..` or a call of `.ci/run`'s `apt_install`.
    let package_lines: Vec<&str> = lines.iter().copied().filter(|l| l.contains("apt-get install -y") || l.starts_with("apt_install ")).collect();
    let mut checked = 0;
    // An optional tool is installed by `.ci/run` as the others are (its line may go on with
    // `|| true`): only a missing one is forgiven.
    for row in TOOLS.iter().filter(|r| r.usage != Usage::Later) {
        assert!(declared.iter().any(|(_, t)| *t == row.tool), "{:?} is marked {:?}, but no test declares it: mark it Usage::Later", row.tool, row.usage);
        for command in row.install.split("&&").map(str::trim) {
            match command.strip_prefix("apt-get install ") {
                Some(packages) => {
                    for p in packages.split_whitespace() {
                        let installs = package_lines.iter().any(|l| l.split_whitespace().any(|w| w == p));
                        assert!(installs, ".ci/run does not install {p} (for {:?}: `{}`) in an apt-get install line", row.tool, row.install);
                        checked += 1;
                    }
                }
                None => {
                    assert!(lines.iter().any(|l| l.starts_with(command)), ".ci/run does not run `{command}` (for {:?}) on a line of its own", row.tool);
                    checked += 1;
                }
            }
        }
    }
    // Not vacuous: the picture, TSan and external-detector tests declare their tools.
    assert!(declared.len() >= 15 && checked >= 9, "{} needs!, {checked} install commands checked", declared.len());
}

/// The helper end to end, in a child run of this test binary on one test that needs `dot`,
/// with a `PATH` where nothing is found: it passes with its skip line, then the list at
/// exit; under `RACEFUZZ_REQUIRE_TOOLS=1` it fails with the same line.
#[test]
fn a_missing_tool_skips_with_the_list_at_exit_or_fails_when_required() {
    let empty = std::env::temp_dir().join(format!("racefuzz-needs-empty-path-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let run = |require: bool| {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args(["--exact", "picture::graphviz_reads_the_dot", "--test-threads", "1"]).env("PATH", &empty).env_remove("RACEFUZZ_REQUIRE_TOOLS");
        if require {
            cmd.env("RACEFUZZ_REQUIRE_TOOLS", "1");
        }
        let out = cmd.output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let line = "picture::graphviz_reads_the_dot: needs dot (Graphviz): apt-get install graphviz";
    let (code, out, err) = run(false);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("test result: ok. 1 passed"), "{out}");
    let list = format!("1 test skipped for missing tools:\n  skipped {line}\n");
    assert!(err.starts_with(&format!("skipped {line}\n")) && err.contains(&list), "{err}");
    let (code, out, err) = run(true);
    assert_eq!(code, Some(101), "{out}{err}");
    assert!(out.contains(line) || err.contains(line), "{out}{err}");
    assert!(!err.contains("skipped"), "{err}");
    let _ = std::fs::remove_dir_all(&empty);
}
