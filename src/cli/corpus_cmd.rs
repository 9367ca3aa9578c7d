//! `racefuzz corpus [DIR…]`: explore every program of the curated corpus (by default
//! `corpus/paper` and `corpus/negative`) and print a table; it checks `// expect:` headers
//! against the ground truth and `// report` lines against RacerDX.

use std::path::PathBuf;

use race_oracles::lang::Dialect;

use super::shared::{ground_truth, load, BoundArgs, CliError, Exit};
use crate::analyses::racerdx::RacerDx;
use crate::corpus::{expectations, race_files, report_mismatches};

pub(super) fn run(paths: &[PathBuf], bounds: &BoundArgs) -> Result<Exit, CliError> {
    let mut files = vec![];
    for p in paths {
        if p.is_dir() {
            files.extend(race_files(p));
        } else {
            files.push(p.clone());
        }
    }
    if files.is_empty() {
        return Err(CliError::input("error: no .race files found (run from the repository root, or name a directory)"));
    }
    let cfg = bounds.config();
    crate::outln!("{}", crate::render::bounds(&cfg, true));
    crate::outln!("{:<56} {:<10} {:<14} {:>10}  {:<8} {}", "program", "dialect", "run", "executions", "expected", "racy addresses");
    let (mut mismatches, mut incomplete) = (0, 0);
    for f in &files {
        let (src, prog) = load(f)?;
        let exps = expectations(&src).map_err(|e| CliError::input(format!("error: {}: {e}", f.display())))?;
        let runs = ground_truth(&prog, &cfg, None, false)?;
        for r in &runs {
            let key = r.setup.split_once(" ∥ ").map(|(a, b)| (a.to_string(), b.to_string()));
            let exp = exps.iter().find(|e| e.pair == key || (prog.dialect == Dialect::RacerDx && e.pair.as_ref().map(|(a, b)| (b.clone(), a.clone())) == key));
            let status = match exp {
                None => "-",
                Some(e) if e.racy_addresses == r.racy_addresses => "ok",
                Some(_) => {
                    mismatches += 1;
                    "MISMATCH"
                }
            };
            if !r.executions.complete {
                incomplete += 1;
            }
            let execs = if r.executions.complete { r.executions.executions.to_string() } else { format!("{}+", r.executions.executions) };
            let addrs = if r.racy { r.racy_addresses.join(", ") } else { "no race".into() };
            crate::outln!("{:<56} {:<10} {:<14} {:>10}  {:<8} {}", f.display().to_string(), prog.dialect.name(), r.setup, execs, status, addrs);
        }
        if prog.dialect == Dialect::RacerDx {
            for m in report_mismatches(&src, &prog, &RacerDx::default()).map_err(|e| CliError::input(format!("error: {}: {e}", f.display())))? {
                mismatches += 1;
                crate::outln!("{:<56} REPORT MISMATCH: {m}", f.display().to_string());
            }
        }
    }
    crate::outln!("{} programs; {mismatches} expectation mismatches; {incomplete} incomplete runs", files.len());
    Ok(if mismatches > 0 {
        Exit::Fail
    } else if incomplete > 0 {
        Exit::Inconclusive
    } else {
        Exit::Ok
    })
}
