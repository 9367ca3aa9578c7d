//! `racefuzz export c FILE`: one execution of a thread program as a C program that replays
//! it under ThreadSanitizer (`crate::replay::export`).

use std::path::Path;

use super::shared::{choose, emit, load, reproducer_text, thread_program, write_reproducer, BoundArgs, CliError, Exit};
use crate::replay::export::encode;

/// Writes the C replay of the execution `schedule` names (default: the first racy one) to
/// `out` or stdout; with `trace_arg`, only the trace argument the generic replay takes.
///
/// # Errors
/// Bad input (unreadable file, not a thread program, a schedule that does not fit).
pub(super) fn export_c(file: &Path, schedule: Option<&str>, out: Option<&Path>, trace_arg: bool, bounds: &BoundArgs) -> Result<Exit, CliError> {
    let (src, prog) = load(file)?;
    thread_program(&prog, file)?;
    if trace_arg {
        let c = choose(&prog, schedule, bounds)?;
        let text = format!("{}\n", encode(&c.trace).map_err(|e| CliError::input(format!("error: {e}")))?);
        match out {
            None => emit(&text),
            Some(path) => std::fs::write(path, &text).map_err(|e| CliError::input(format!("error: cannot write {}: {e}", path.display())))?,
        }
        return Ok(Exit::Ok);
    }
    match out {
        None => emit(&reproducer_text(&prog, &src, file, &choose(&prog, schedule, bounds)?)?),
        Some(path) => write_reproducer(&prog, &src, file, schedule.unwrap_or_default(), path, bounds)?,
    }
    Ok(Exit::Ok)
}
