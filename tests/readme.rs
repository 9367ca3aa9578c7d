//! The README and the book cannot drift: every command they show (a `$ ` line in a code
//! block of `README.md` or of a chapter of `docs/book/src/`) runs here, and its output must
//! match what the text prints below it.
//!
//! The README runs first, then the book's chapters in the order of `SUMMARY.md` (then any
//! chapter it does not list, by path; `tests/docs.rs` fails on those), all in one scratch
//! directory, so that a chapter can use what an earlier one wrote (a finding of a campaign,
//! a trace). Each command runs once. Commands run through `sh` in that directory, which sees
//! the repository's `corpus/` and `examples/` (so paths read as in the text) and has an
//! empty `tests/regress/` (so `shrink --into-test` writes there, never into the source
//! tree). `racefuzz` is the binary under test; `cargo run --release --` is rewritten to it
//! and `cargo run --release --example NAME` to the example cargo built for this test run.
//! stdout and stderr are read together, as a terminal shows them, with the status lines of
//! long runs turned off (`RACEFUZZ_STATUS_INTERVAL`). A command that starts with
//! `cargo test` is shown, not run: it is the command that runs this test.
//!
//! Matching: a line that is only `…` stands for any number of lines; `[..]` inside a line
//! stands for any text (timings, rates); trailing spaces do not count. Anything else must
//! match exactly. A failure names the file and line of the command. `RACEFUZZ_BLESS=1`
//! rewrites, in each file, the output of every block without elisions to what the commands
//! print now (review the diff); a block with elisions is reported.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One `$ ` command and the lines the text shows for it.
struct Shown {
    /// 1-based line of the command in its file.
    line: usize,
    command: String,
    expected: Vec<String>,
    /// Line range (0-based, end exclusive) of the expected output in its file.
    span: (usize, usize),
}

fn shown(text: &str) -> Vec<Shown> {
    let lines: Vec<&str> = text.lines().collect();
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
    // The text shows the outputs of the defaults, without the wall-clock status lines a
    // slow machine would add to a long command's stderr.
    for (k, _) in std::env::vars() {
        if k.starts_with("RACEFUZZ_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("RACEFUZZ_STATUS_INTERVAL", "24h");
    let out = cmd.output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether a shown command is left unrun: `cargo test` would run this very test.
fn shown_only(command: &str) -> bool {
    command.starts_with("cargo test")
}

/// The files whose commands run, in order: the README, then the book's chapters.
fn documents() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("README.md")];
    out.extend(crate::docs::chapters_in_order());
    out
}

/// How many of one file's commands ran, and those that printed something else.
struct Compared {
    ran: usize,
    failures: Vec<String>,
}

/// Runs `file`'s commands in `dir`, in order, and compares (or blesses) their output.
fn compare(file: &Path, dir: &Path, bless: bool) -> Compared {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rel = file.strip_prefix(root).unwrap_or(file).display().to_string();
    let text = std::fs::read_to_string(file).unwrap();
    let blocks: Vec<Shown> = shown(&text).into_iter().filter(|b| !shown_only(&b.command)).collect();
    // Run in the text's order (a command may read what an earlier one wrote), then compare
    // from the last block up, so that blessing keeps the earlier spans valid.
    let results: Vec<String> = blocks.iter().map(|b| run(&b.command, dir)).collect();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut failures = vec![];
    let mut blessed = false;
    for (b, actual) in blocks.iter().zip(&results).rev() {
        let got: Vec<&str> = actual.lines().collect();
        if matches(&b.expected, &got) {
            continue;
        }
        let elided = b.expected.iter().any(|l| l.trim() == "…" || l.contains("[..]"));
        if bless && !elided {
            lines.splice(b.span.0..b.span.1, got.iter().map(|s| s.to_string()));
            blessed = true;
            continue;
        }
        failures.push(format!("{rel}:{}: $ {}\n--- the text shows:\n{}\n--- it prints:\n{}", b.line, b.command, b.expected.join("\n"), actual.trim_end()));
    }
    if blessed {
        let mut out = lines.join("\n");
        out.push('\n');
        std::fs::write(file, out).unwrap();
    }
    failures.reverse();
    Compared { ran: blocks.len(), failures }
}

#[test]
fn every_command_of_the_readme_and_the_book_prints_what_they_show() {
    // The book's real-detector chapter runs Valgrind's tools, clang 19's TSan and Go's.
    needs!(Python3, Tsan, Valgrind, Clang, Go);
    let dir = scratch();
    let bless = std::env::var("RACEFUZZ_BLESS").is_ok();
    let docs = documents();
    let mut failures = vec![];
    let mut counts = vec![];
    for file in &docs {
        let c = compare(file, &dir, bless);
        counts.push((file.clone(), c.ran));
        failures.extend(c.failures);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let readme = counts[0].1;
    let book: usize = counts[1..].iter().map(|(_, n)| n).sum();
    let chapters = counts[1..].iter().filter(|(_, n)| *n > 0).count();
    eprintln!("ran {} commands: {readme} in README.md, {book} in {chapters} of the book's {} chapters", readme + book, docs.len() - 1);
    assert!(failures.is_empty(), "{} command(s) print something else than the text shows:\n\n{}", failures.len(), failures.join("\n\n"));
    // Vacuity: the README shows the main job, and the book has run more than sixty commands
    // since it was the README's walk-through, across most of its parts.
    assert!(readme >= 1, "no command found in the README");
    assert!(book >= 60 && chapters >= 15, "only {book} commands in {chapters} chapters found in the book: is the scan broken?");
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

#[test]
fn commands_are_found_in_code_blocks_only_and_cargo_test_is_not_run() {
    let text = "$ not in a block\n```text\n$ racefuzz mutants\nout\n$ a \\\n  b\n```\n$ also not\n```sh\n$ cargo test\n…\n```\n";
    let found = shown(text);
    let commands: Vec<(usize, &str)> = found.iter().map(|s| (s.line, s.command.as_str())).collect();
    assert_eq!(commands, [(3, "racefuzz mutants"), (5, "a b"), (10, "cargo test")]);
    assert_eq!(found[0].expected, ["out"]);
    assert!(found.iter().filter(|s| shown_only(&s.command)).map(|s| s.line).eq([10]));
}

/// The README stays a front page: what racefuzz is for, the two commands, the table of
/// papers, a picture and the way into the book, which holds everything else.
#[test]
fn the_readme_is_at_most_10_kb() {
    let size = std::fs::metadata(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap().len();
    assert!(size <= 10 * 1024, "README.md is {size} bytes; move the detail into a chapter of docs/book/");
}

/// A mismatch names its file and line; blessing rewrites that file's block and only a block
/// without elisions.
#[test]
fn a_mismatch_names_its_file_and_line_and_blessing_rewrites_that_file() {
    let dir = std::env::temp_dir().join(format!("racefuzz-readme-bless-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("chapter.md");
    std::fs::write(&file, "# A chapter\n\n```text\n$ echo hi\nho\n$ echo one; echo two\none\n…\n```\n").unwrap();
    let c = compare(&file, &dir, false);
    assert_eq!(c.ran, 2);
    assert_eq!(c.failures.len(), 1, "{:?}", c.failures);
    assert!(c.failures[0].starts_with(&format!("{}:4: $ echo hi\n", file.display())), "{}", c.failures[0]);
    let c = compare(&file, &dir, true);
    assert!(c.failures.is_empty(), "{:?}", c.failures);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "# A chapter\n\n```text\n$ echo hi\nhi\n$ echo one; echo two\none\n…\n```\n");
    let _ = std::fs::remove_dir_all(&dir);
}
