//! The committed mutation report (`docs/mutation.md`, the book's "Mutation testing") holds:
//! it is what `scripts/mutation.py report` renders from the committed outcomes
//! (`docs/mutation.json`) and notes (`docs/mutation-notes.txt`), byte for byte; no note is
//! stale; every SUT's score meets the bar of 90% of its non-equivalent mutants caught; and
//! the book quotes the report's table as it is. The runs themselves take hours and are not
//! part of `cargo test`; CI runs `scripts/mutation --smoke` (three mutants) beside it.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The report's summary table: its header and rows, up to the first blank line.
fn table(report: &str) -> Vec<&str> {
    report.lines().skip_while(|l| !l.starts_with("| SUT |")).take_while(|l| l.starts_with('|')).collect()
}

#[test]
fn the_committed_mutation_report_renders_from_the_committed_outcomes_and_notes() {
    needs!(Python3);
    let out = Command::new("python3")
        .current_dir(root())
        .args(["scripts/mutation.py", "report", "--results", "docs/mutation.json", "--notes", "docs/mutation-notes.txt"])
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "scripts/mutation.py report failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let rendered = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(rendered == read("docs/mutation.md"), "docs/mutation.md is not what its outcomes and notes render: run `scripts/mutation --report-only --out docs/mutation.md`");
    assert!(!rendered.contains("## Stale notes"), "docs/mutation.md lists stale notes: fix docs/mutation-notes.txt");
}

#[test]
fn every_sut_catches_at_least_nine_in_ten_of_its_non_equivalent_mutants() {
    let report = read("docs/mutation.md");
    let rows: Vec<&str> = table(&report).into_iter().skip(2).collect();
    assert!(rows.len() >= 9, "the report's table has {} rows, not one per SUT and a total", rows.len());
    for row in rows {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let score = cells.last().expect("a score column");
        let pct: f64 = score.trim_end_matches('%').parse().unwrap_or_else(|_| panic!("no score in {row}"));
        assert!(pct >= 90.0, "{}: {score} of its non-equivalent mutants caught, under 90%", cells[0]);
        let not_run: u64 = cells[cells.len() - 2].parse().expect("a `not run` column");
        let judged: u64 = cells[2].parse::<u64>().expect("a mutants column") - not_run;
        assert!(judged > 0, "{}: no mutant judged", cells[0]);
    }
}

#[test]
fn the_book_quotes_the_mutation_report_as_it_is() {
    let report = read("docs/mutation.md");
    let chapter = read("docs/book/src/operations/mutation.md");
    let quoted = table(&chapter);
    assert!(!quoted.is_empty(), "the book's \"Mutation testing\" quotes no table");
    assert_eq!(quoted, table(&report), "the book's table differs from docs/mutation.md's: copy it again");
}
