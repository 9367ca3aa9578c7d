//! What the subcommands read: `.race` files, oracles and SUTs named on the command line,
//! the ground truth of a program. Every failure is bad input (exit 2) naming its place, or
//! an internal bug (exit 4).

use std::path::Path;

use race_oracles::explore::{Config, Run};
use race_oracles::lang::{self, parse, validate_relaxed, Dialect, Program};
use race_oracles::theorems::Oracle;

use super::{capped, CliError};
use crate::sut_spec::SutSpec;
use crate::suts::{self, Subject};

/// The oracle with this id.
///
/// # Errors
/// Bad input naming the known oracles.
pub fn oracle(id: &str) -> Result<race_oracles::theorems::Oracle, CliError> {
    let reg = race_oracles::theorems::Registry::builtin();
    reg.find(id).copied().ok_or_else(|| CliError::input(format!("error: no oracle `{id}` (known: {})", reg.ids().join(", "))))
}

/// The SUT `spec` names, judged by `o`, with errors in the CLI's two voices.
///
/// # Errors
/// Bad input, or an internal bug when the catalogue has no SUT for the oracle.
pub fn subject(o: &race_oracles::theorems::Oracle, spec: &SutSpec) -> Result<Subject, CliError> {
    Subject::new(o, spec).map_err(subject_error)
}

/// The catalogued SUT `sut` (`None`: the oracle's own) with `mutant`.
///
/// # Errors
/// A SUT name that is not `NAME` or `NAME@VERSION`, as bad input.
pub fn catalogued(sut: Option<&str>, mutant: Option<&str>) -> Result<SutSpec, CliError> {
    SutSpec::catalogued(sut, mutant).map_err(|e| CliError::input(format!("error: --sut: {e}")))
}

/// A [`suts::SubjectError`] in the CLI's two voices.
pub fn subject_error(e: suts::SubjectError) -> CliError {
    match e {
        suts::SubjectError::NoSut { .. } => CliError::internal(e),
        _ => CliError::input(format!("error: {e}")),
    }
}

/// Reads, parses and validates a `.race` file; every failure is bad input (exit 2).
///
/// # Errors
/// A message with line:col and a caret, or naming the violated dialect assumption.
pub fn load(path: &Path) -> Result<(String, Program), CliError> {
    load_with(path, lang::Relax::default())
}

/// [`load`], also skipping the assumptions `relax` names and those the file declares it
/// breaks (`// outside: …`, see `corpus::relax`).
///
/// # Errors
/// As [`load`].
pub fn load_with(path: &Path, relax: lang::Relax) -> Result<(String, Program), CliError> {
    let src = std::fs::read_to_string(path).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", path.display())))?;
    let prog = lang::parse(&src).map_err(|e| CliError::input(e.render(&path.display().to_string())))?;
    let declared = crate::corpus::relax(&src).map_err(|e| CliError::input(format!("error: {}: {e}", path.display())))?;
    let relax = lang::Relax { balanced_locking: relax.balanced_locking || declared.balanced_locking, sync_reassign: relax.sync_reassign || declared.sync_reassign };
    lang::validate_relaxed(&prog, relax).map_err(|e| CliError::input(format!("error: {}: {e}", path.display())))?;
    Ok((src, prog))
}

/// Validates `--pair m1,m2` against the program.
///
/// # Errors
/// When the program is not racerdx or a method does not exist.
pub fn parse_pair<'a>(prog: &Program, pair: Option<&'a str>) -> Result<Option<(&'a str, &'a str)>, CliError> {
    let Some(p) = pair else { return Ok(None) };
    if prog.dialect != Dialect::RacerDx {
        return Err(CliError::input("error: --pair applies to racerdx programs only (other dialects declare their threads)"));
    }
    let (a, b) = p.split_once(',').ok_or_else(|| CliError::input(format!("error: --pair takes two method names, `m1,m2`; got `{p}`")))?;
    for m in [a, b] {
        if prog.method(m).is_none() {
            let known: Vec<&str> = prog.methods.iter().map(|m| m.name.as_str()).collect();
            return Err(CliError::input(format!("error: --pair: no method `{m}` (methods: {})", capped(&known, 10))));
        }
    }
    Ok(Some((a, b)))
}

/// Explores, returning the runs (with their final states if `final_states`) or a bad-input
/// error.
///
/// # Errors
/// When the initial state cannot be built (e.g. `init` gets stuck).
pub fn ground_truth(prog: &Program, cfg: &Config, pair: Option<(&str, &str)>, final_states: bool) -> Result<Vec<Run>, CliError> {
    let runs = if final_states { race_oracles::truth::ground_truth_with_final_states(prog, cfg, pair) } else { race_oracles::truth::ground_truth(prog, cfg, pair) };
    runs.map_err(|e| CliError::input(format!("error: {e}")))
}

/// Refuses a program the machine does not run: naikaiken programs run on Naik-Aiken's
/// instrumented semantics (`race_oracles::instrumented`), ldrf programs on the L-DRF
/// engines (`race_oracles::ldrf`; `explore` dispatches them there before asking).
///
/// # Errors
/// A bad-input error naming the file and what to run instead.
pub fn on_machine(file: &Path, prog: &Program) -> Result<(), CliError> {
    match prog.dialect {
        Dialect::NaikAiken => Err(CliError::input(format!(
            "error: {}: naikaiken programs run on Naik-Aiken's instrumented semantics (stamps, loop vectors, effects), not on the machine `explore` and `replay` drive; `racefuzz check naik-aiken-sound FILE` searches every state and prints a schedule for each race it needs",
            file.display()
        ))),
        Dialect::Ldrf => Err(CliError::input(format!(
            "error: {}: ldrf programs run on the L-DRF engines (`race_oracles::ldrf`), not on the machine `replay` drives; `racefuzz explore FILE` prints their standard states (and, with --ldrf, their thread-local ones)",
            file.display()
        ))),
        _ => Ok(()),
    }
}

/// A program from a `.race` file's bytes, or from a cargo-fuzz artifact of the oracle's
/// target (raw bytes for its generator).
pub fn load_input(file: &Path, bytes: &[u8], o: &Oracle, s: &Subject) -> Result<Program, CliError> {
    match std::str::from_utf8(bytes).ok().map(|t| (t, parse(t))) {
        Some((_, Ok(p))) => {
            validate_relaxed(&p, s.relax()).map_err(|e| CliError::input(format!("error: {}: {e}", file.display())))?;
            Ok(p)
        }
        Some((text, Err(e))) if text.trim_start().starts_with("//") || text.contains("dialect") => Err(CliError::input(e.render(&file.display().to_string()))),
        _ => Ok(o.program(bytes, s.relax())),
    }
}
