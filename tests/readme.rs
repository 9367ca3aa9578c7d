//! The README cannot drift: every command it shows (a `$ ` line in a code block) runs here,
//! and its output must match what the README prints below it.
//!
//! Commands run through `sh` in a scratch directory that sees the repository's `corpus/`
//! and `examples/` (so paths read as in the README) and has an empty `tests/regress/` (so
//! `shrink --into-test` writes there, never into the source tree). `racefuzz` is the binary
//! under test; `cargo run --release --` is rewritten to it and `cargo run --release
//! --example NAME` to the example cargo built for this test run. stdout and stderr are
//! read together, as a terminal shows them, with the status lines of long runs turned off
//! (`RACEFUZZ_STATUS_INTERVAL`).
//!
//! Matching: a line that is only `…` stands for any number of lines; `[..]` inside a line
//! stands for any text (timings, rates); trailing spaces do not count. Anything else must
//! match exactly. `RACEFUZZ_BLESS=1` rewrites the output of every block without elisions
//! to what the commands print now (review the diff); a block with elisions is reported.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One `$ ` command and the lines the README shows for it.
struct Shown {
    /// 1-based README line of the command.
    line: usize,
    command: String,
    expected: Vec<String>,
    /// README line range (0-based, end exclusive) of the expected output.
    span: (usize, usize),
}

fn shown(readme: &str) -> Vec<Shown> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut out = vec![];
    let mut in_block = false;
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if l.starts_with("```") {
            in_block = !in_block;
            i += 1;
            continue;
        }
        if in_block && l.starts_with("$ ") {
            let line = i + 1;
            let mut command = l[2..].to_string();
            while command.ends_with('\\') {
                command.pop();
                i += 1;
                command.push_str(lines[i].trim_start());
            }
            i += 1;
            let start = i;
            while i < lines.len() && !lines[i].starts_with("$ ") && !lines[i].starts_with("```") {
                i += 1;
            }
            out.push(Shown { line, command, expected: lines[start..i].iter().map(|s| s.to_string()).collect(), span: (start, i) });
            continue;
        }
        i += 1;
    }
    out
}

/// Whether `actual` matches `expected` line by line, with `…` lines and `[..]` wildcards.
fn matches(expected: &[String], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((e, rest)) if e.trim() == "…" => (0..=actual.len()).any(|k| matches(rest, &actual[k..])),
        Some((e, rest)) => actual.split_first().is_some_and(|(a, more)| line_matches(e.trim_end(), a.trim_end()) && matches(rest, more)),
    }
}

fn line_matches(expected: &str, actual: &str) -> bool {
    let parts: Vec<&str> = expected.split("[..]").collect();
    if parts.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !actual.starts_with(first) || !actual[first.len()..].ends_with(last) || actual.len() < first.len() + last.len() {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(at) => rest = &rest[at + p.len()..],
            None => return false,
        }
    }
    true
}

fn scratch() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("racefuzz-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tests/regress")).unwrap();
    for d in ["corpus", "examples"] {
        std::os::unix::fs::symlink(root.join(d), dir.join(d)).unwrap();
    }
    dir
}

fn run(command: &str, dir: &Path) -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_racefuzz"));
    let bin_dir = bin.parent().unwrap();
    // Examples sit beside the binaries of the same profile: target/debug/examples/NAME.
    let examples = bin_dir.join("examples");
    let command = command.replace("cargo run --release -- ", "racefuzz ").replace("cargo run --release --example ", &format!("{}/", examples.display()));
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("{{ {command} ; }} 2>&1")).current_dir(dir).env("PATH", path);
    // The README's outputs are those of the defaults, without the wall-clock status lines
    // a slow machine would add to a long command's stderr.
    for (k, _) in std::env::vars() {
        if k.starts_with("RACEFUZZ_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("RACEFUZZ_STATUS_INTERVAL", "24h");
    let out = cmd.output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_readme_command_prints_what_the_readme_shows() {
    needs!(Python3, Tsan);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let blocks = shown(&readme);
    assert!(blocks.len() >= 30, "only {} commands found in the README", blocks.len());
    let dir = scratch();
    let bless = std::env::var("RACEFUZZ_BLESS").is_ok();
    let mut lines: Vec<String> = readme.lines().map(str::to_string).collect();
    let mut failures = vec![];
    // From the last block up, so that blessing keeps the earlier spans valid.
    let mut results: Vec<(usize, String)> = blocks.iter().enumerate().map(|(i, b)| (i, run(&b.command, &dir))).collect();
    results.reverse();
    for (i, actual) in results {
        let b = &blocks[i];
        let got: Vec<&str> = actual.lines().collect();
        if matches(&b.expected, &got) {
            continue;
        }
        let elided = b.expected.iter().any(|l| l.trim() == "…" || l.contains("[..]"));
        if bless && !elided {
            lines.splice(b.span.0..b.span.1, got.iter().map(|s| s.to_string()));
            continue;
        }
        failures.push(format!("README.md:{}: $ {}\n--- the README shows:\n{}\n--- it prints:\n{}", b.line, b.command, b.expected.join("\n"), actual.trim_end()));
    }
    let _ = std::fs::remove_dir_all(&dir);
    if bless {
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(&path, text).unwrap();
    }
    failures.reverse();
    assert!(failures.is_empty(), "{} README command(s) print something else:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn the_matcher_elides_only_what_it_is_told() {
    let e = |s: &str| s.lines().map(str::to_string).collect::<Vec<_>>();
    assert!(matches(&e("a\n…\nd"), &["a", "b", "c", "d"]));
    assert!(matches(&e("a\n…"), &["a"]));
    assert!(!matches(&e("a\nd"), &["a", "b", "d"]));
    assert!(matches(&e("12 programs in [..]s ([..] programs/s)"), &["12 programs in 3.1s (4 programs/s)"]));
    assert!(!matches(&e("12 programs in [..]s"), &["13 programs in 3.1s"]));
    assert!(!matches(&e("x"), &["x", "y"]));
}
