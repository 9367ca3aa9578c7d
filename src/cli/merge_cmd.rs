//! `racefuzz merge`: the command line of [`crate::merge`] (one summary out of the output
//! folders of many campaigns): it prints the merged summary (as text, or as JSON with
//! `--json`), writes it to `--out`, and draws it with `--report`.

use std::path::{Path, PathBuf};

use super::shared::{emit, print_json, CliError, Exit};
use crate::merge::{merge, MergeError};
use crate::outln;
use crate::summary::{Merged, Summary};

pub(super) fn run(dirs: &[PathBuf], out: &Path, json: bool, report: Option<&Path>) -> Result<Exit, CliError> {
    let merged = merge(dirs).map_err(merge_error)?;
    let text = serde_json::to_string_pretty(&merged).map_err(|e| CliError::internal(format!("JSON output failed: {e}")))?;
    let written = out
        .parent()
        .map_or(Ok(()), |d| if d.as_os_str().is_empty() { Ok(()) } else { std::fs::create_dir_all(d) })
        .and_then(|()| crate::campaign::write_atomically(out, &format!("{text}\n")))
        .map_err(|e| CliError::input(format!("error: cannot write {}: {e}", out.display())));
    if json {
        print_json(&merged)?;
    } else {
        emit(&render(&merged));
    }
    written?;
    let failed = !merged.signatures.is_empty() || merged.per_oracle.iter().any(|o| o.fail > 0);
    if let Some(report) = report {
        super::shared::write_report(report, &Summary::Merged(merged))?;
    }
    if !json {
        outln!("merged summary written to {}", out.display());
    }
    Ok(if failed { Exit::Fail } else { Exit::Ok })
}

/// A [`MergeError`] as the CLI says it: bad input (exit 2), naming the file.
fn merge_error(e: MergeError) -> CliError {
    match e {
        // The parse error renders itself, with its own `error:` and the file's line.
        MergeError::Parse { .. } => CliError::input(e.to_string()),
        // An internal bug stays one (exit 4); any other subject error is the file's.
        MergeError::Subject { source: source @ crate::suts::SubjectError::NoSut { .. }, .. } => super::shared::subject_error(source),
        _ => CliError::input(format!("error: {e}")),
    }
}

fn render(m: &Merged) -> String {
    let mut out = format!(
        "merged {} summary file(s) and {} finding(s){}{}\n",
        m.summaries.len(),
        m.findings,
        if m.duplicate_findings > 0 { format!(" ({} duplicate finding(s) left out)", m.duplicate_findings) } else { String::new() },
        if m.duplicate_summaries.is_empty() { String::new() } else { format!(" ({} duplicate summary file(s) left out)", m.duplicate_summaries.len()) },
    );
    for s in &m.shards {
        let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        let mutant = s.mutant.as_ref().map(|m| format!(", mutant {m}")).unwrap_or_default();
        let missing = if s.missing.is_empty() { "all of them".to_string() } else { format!("missing: {}", list(&s.missing)) };
        out.push_str(&format!("seed {}{mutant}: shard(s) {} of {} ({missing})\n", s.seed, list(&s.present), s.count));
    }
    for n in &m.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    if !m.per_oracle.is_empty() {
        out.push_str(&format!("\n{} programs\n", m.programs));
        out.push_str(&format!("{:<30} {:>9} {:>9} {:>6} {:>13}  {}\n", "oracle", "checked", "pass", "fail", "inconclusive", "programs hash"));
        for o in &m.per_oracle {
            out.push_str(&format!("{:<30} {:>9} {:>9} {:>6} {:>13}  {}\n", o.oracle, o.checked, o.pass, o.fail, o.inconclusive, o.programs_hash.as_deref().unwrap_or("?")));
        }
    }
    if m.signatures.is_empty() {
        out.push_str("no counterexample\n");
        return out;
    }
    out.push_str(&format!("\n{} distinct failure(s) in {} failing program(s)\n", m.signatures.len(), m.failing_programs));
    for g in &m.signatures {
        let under = [g.sut.as_ref().map(|s| format!("SUT {s}")), g.mutant.as_ref().map(|s| format!("mutant {s}"))].into_iter().flatten().collect::<Vec<_>>();
        let under = if under.is_empty() { String::new() } else { format!(" ({})", under.join(", ")) };
        out.push_str(&format!("{:>7}  {}{under}\n", g.count, g.signature));
        match (&g.smallest, g.smallest_statements) {
            (Some(p), Some(n)) => out.push_str(&format!("         smallest: {} ({n} statement(s))\n", p.display())),
            _ => out.push_str("         smallest: none of its findings was read\n"),
        }
    }
    out
}
