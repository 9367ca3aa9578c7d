//! One execution of a thread program as a C program that replays it under ThreadSanitizer
//! (`crate::replay::export`): `export c` prints it, `check --reproducer` writes it beside a
//! failing check's witness.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::Path;

use race_oracles::explore::{Config, Execution, ExplorerKind, Names, Schedule};
use race_oracles::machine::{Event, Machine};
use race_oracles::race::data_races;

use super::traces::{each_trace, Which, DIALECTS};
use super::{BoundArgs, CliError};
use crate::replay::export::reproducer;

/// The execution exported: its schedule, events, their descriptions and the racing ones.
pub struct Chosen {
    /// Its schedule.
    pub schedule: String,
    /// Its events.
    pub trace: Vec<Event>,
    /// Their descriptions.
    pub events: Vec<String>,
    /// The racing ones.
    pub racing: BTreeSet<usize>,
}

fn chosen(m: &Machine<'_>, ex: &Execution<'_, '_>) -> Chosen {
    let names = Names::of(m, ex.state);
    let racing = data_races(ex.trace).iter().flat_map(|r| [r.first.0 as usize, r.second.0 as usize]).collect();
    Chosen { schedule: Schedule(ex.schedule.to_vec()).to_string(), trace: ex.trace.to_vec(), events: ex.trace.iter().map(|e| names.event(e)).collect(), racing }
}

/// The execution `schedule` names (default: the first racy one of the naive enumeration,
/// else its first).
pub fn choose(prog: &race_oracles::lang::Program, schedule: Option<&str>, bounds: &BoundArgs) -> Result<Chosen, CliError> {
    let cfg = Config { explorer: ExplorerKind::Naive, ..bounds.config() };
    let mut found: Option<Chosen> = None;
    match schedule {
        Some(s) => {
            each_trace(prog, &cfg, &Which::Schedule(s.to_string()), &mut |m, ex| {
                found = Some(chosen(m, ex));
                Ok(())
            })?;
        }
        None => {
            let m = Machine::new(prog, cfg.loop_bound);
            let init = m.initial_state().map_err(|e| CliError::input(format!("error: {e}")))?;
            cfg.explorer.get().explore(&m, init, &cfg, &mut |ex| {
                let racy = !data_races(ex.trace).is_empty();
                if found.is_none() || racy {
                    found = Some(chosen(&m, ex));
                }
                if racy {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
        }
    }
    found.ok_or_else(|| CliError::internal("an enumeration visited no execution"))
}

/// Refuses a program that is not a thread program (`export c` takes those only).
///
/// # Errors
/// Bad input naming the file and the dialects it takes.
pub fn thread_program(prog: &race_oracles::lang::Program, file: &Path) -> Result<(), CliError> {
    if DIALECTS.contains(&prog.dialect) {
        return Ok(());
    }
    let known: Vec<String> = DIALECTS.iter().map(ToString::to_string).collect();
    Err(CliError::input(format!("error: {}: export c takes a thread program ({}); this one is {}", file.display(), known.join(", "), prog.dialect)))
}

/// The C text that replays `c`.
///
/// # Errors
/// Bad input when the execution cannot be written as C.
pub fn reproducer_text(prog: &race_oracles::lang::Program, src: &str, file: &Path, c: &Chosen) -> Result<String, CliError> {
    reproducer(prog, src, &file.display().to_string(), &c.schedule, &c.trace, &c.events, &c.racing).map_err(|e| CliError::input(format!("error: {e}")))
}

/// Writes the reproducer of the execution `schedule` names (empty: the first racy one) of
/// `prog` (the text `src` of `file`) to `path`, creating its folder, and says on stderr
/// how to build and run it.
///
/// # Errors
/// Not a thread program, a schedule that does not fit, a file that cannot be written.
pub fn write_reproducer(prog: &race_oracles::lang::Program, src: &str, file: &Path, schedule: &str, path: &Path, bounds: &BoundArgs) -> Result<(), CliError> {
    thread_program(prog, file)?;
    let c = choose(prog, Some(schedule).filter(|s| !s.is_empty()), bounds)?;
    let text = reproducer_text(prog, src, file, &c)?;
    let io = |e: std::io::Error| CliError::input(format!("error: cannot write {}: {e}", path.display()));
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    std::fs::write(path, text).map_err(io)?;
    let binary = path.with_extension("");
    eprintln!(
        "wrote {} (schedule {}); build and run: cc -std=c11 -fsanitize=thread -O1 -g -pthread {} -o {} && {}",
        path.display(),
        c.schedule,
        path.display(),
        binary.display(),
        if binary.is_absolute() || binary.components().count() > 1 { binary.display().to_string() } else { format!("./{}", binary.display()) }
    );
    Ok(())
}
