//! `racefuzz shrink FILE`: the smallest program that still fails as the finding does,
//! judged against the SUT its header names (flags override), and with `--into-test` a
//! regression test of it (`crate::regression`).

use std::path::Path;

use race_oracles::gen::shrink::{self as shrinker, counts};
use race_oracles::lang::{parse, print, Program};
use race_oracles::theorems::{Registry, Verdict};

use super::shared::{emit, load_input, oracle, subject, CliError, Exit};
use crate::finding_header::FindingHeader;
use crate::outln;
use crate::regression::{self, RegressionError};
use crate::render;
use crate::suts;

pub(super) struct ShrinkArgs<'a> {
    pub file: &'a Path,
    pub oracle: Option<&'a str>,
    pub mutant: Option<&'a str>,
    pub sut: Option<&'a str>,
    pub into_test: Option<&'a str>,
    pub root_cause: Option<&'a str>,
    pub force: bool,
    pub max_attempts: usize,
    pub detector: &'a super::shared::DetectorArgs,
}

pub(super) fn shrink(a: &ShrinkArgs<'_>) -> Result<Exit, CliError> {
    // A finding names its oracle and SUT; flags override. An unreadable file is said
    // first, before anything it would have told.
    let bytes = std::fs::read(a.file).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", a.file.display())))?;
    let head = String::from_utf8_lossy(&bytes);
    let found = FindingHeader::parse(&head).map_err(|e| CliError::input(format!("error: {}: {e}", a.file.display())))?;
    let id = a.oracle.or(found.oracle.as_deref()).ok_or_else(|| CliError::input(format!("error: say which oracle fails: --oracle {}", Registry::builtin().ids().join("|"))))?;
    let o = oracle(id)?;
    let spec = found.sut.overridden_by(a.detector.spec(a.sut, a.mutant)?);
    let regress = Path::new(regression::DIR);
    if spec.is_external() && a.into_test.is_some() {
        return Err(regression_error(RegressionError::External));
    }
    let s = subject(&o, &spec)?;
    if let Some(name) = a.into_test {
        regression::check_name(regress, name, a.root_cause, a.force).map_err(regression_error)?;
    }
    let mutant = spec.mutant();
    let p = load_input(a.file, &bytes, &o, &s)?;
    let fails = |q: &Program| suts::check(&o, q, &s, suts::campaign_bounds()).verdict == Verdict::Fail;
    let before = suts::check(&o, &p, &s, suts::campaign_bounds());
    if before.verdict != Verdict::Fail {
        // A cargo-fuzz artifact records no mutant: the likeliest reason it passes.
        let hint = if mutant.is_none() && parse(&head).is_err() { " (an artifact found under RACEFUZZ_MUTANT=M fails only with --mutant M)" } else { "" };
        return Err(CliError::input(format!("error: {} does not fail {} on this program ({}); nothing to shrink{hint}", before.sut, o.id, before.verdict)));
    }
    let r = shrinker::shrink(&p, s.relax(), a.max_attempts, fails);
    // Re-read the printed program, so that the lines in the explanation are its own.
    let program = parse(&print(&r.program)).map_err(|e| CliError::internal(format!("the shrunk program does not parse back: {e}")))?;
    let after = suts::check(&o, &program, &s, suts::campaign_bounds());
    let (s0, m0) = counts(&p);
    let (s1, m1) = counts(&r.program);
    outln!("shrunk {} failing {} from {m0} method(s), {s0} statement(s) to {m1} method(s), {s1} statement(s) in {} steps ({} oracle runs)", after.sut, o.id, r.steps, r.attempts);
    if r.exhausted {
        outln!("(stopped at the attempt budget; raise --max-attempts to shrink further)");
    }
    outln!();
    emit(&print(&program));
    outln!();
    emit(&render::result_brief(&after));
    // A regression that already holds this program: said, and not written twice for the
    // same oracle, SUT and mutant.
    let same = regression::same_as(regress, &program);
    for (path, key) in &same {
        outln!("\nthe shrunk program is the program of {} ({key})", path.display());
    }
    let key = regression::key(o.id, s.spec());
    if let (Some(name), Some(cause)) = (a.into_test, a.root_cause) {
        if let Some((path, _)) = same.iter().find(|(_, k)| *k == key).filter(|_| !a.force) {
            return Err(CliError::input(format!("error: --into-test {name}: {} already is this regression ({key}); pass --force to write it again", path.display())));
        }
        let race = regression::write(regress, name, cause, o.id, s.spec(), &program).map_err(regression_error)?;
        outln!("\nwrote {}; record its snapshot with `cargo insta test --review` (or `cargo test`, then `cargo insta review`)", race.display());
    }
    Ok(Exit::Ok)
}

fn regression_error(e: RegressionError) -> CliError {
    CliError::input(format!("error: {e}"))
}
