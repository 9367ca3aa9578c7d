//! `racefuzz export c FILE`: one execution of a thread program as a C program that replays
//! it under ThreadSanitizer (`crate::tsan::export`).

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::Path;

use race_oracles::explore::{Config, Execution, ExplorerKind, Names, Schedule};
use race_oracles::machine::{Event, Machine};
use race_oracles::race::data_races;

use super::trace_cmd::{each_trace, Which, DIALECTS};
use super::{emit, load, BoundArgs, CliError, Exit};
use crate::tsan::export::{encode, reproducer};

/// The execution exported: its schedule, events, their descriptions and the racing ones.
struct Chosen {
    schedule: String,
    trace: Vec<Event>,
    events: Vec<String>,
    racing: BTreeSet<usize>,
}

fn chosen(m: &Machine<'_>, ex: &Execution<'_, '_>) -> Chosen {
    let names = Names::of(m, ex.state);
    let racing = data_races(ex.trace).iter().flat_map(|r| [r.first.0 as usize, r.second.0 as usize]).collect();
    Chosen { schedule: Schedule(ex.schedule.to_vec()).to_string(), trace: ex.trace.to_vec(), events: ex.trace.iter().map(|e| names.event(e)).collect(), racing }
}

/// Writes the C replay of the execution `schedule` names (default: the first racy one of
/// the naive enumeration, else its first) to `out` or stdout; with `trace_arg`, only the
/// trace argument the generic replay takes.
///
/// # Errors
/// Bad input (unreadable file, not a thread program, a schedule that does not fit).
pub(super) fn export_c(file: &Path, schedule: Option<&str>, out: Option<&Path>, trace_arg: bool, bounds: &BoundArgs) -> Result<Exit, CliError> {
    let (src, prog) = load(file)?;
    if !DIALECTS.contains(&prog.dialect) {
        let known: Vec<String> = DIALECTS.iter().map(ToString::to_string).collect();
        return Err(CliError::input(format!("error: {}: export c takes a thread program ({}); this one is {}", file.display(), known.join(", "), prog.dialect)));
    }
    let cfg = Config { explorer: ExplorerKind::Naive, ..bounds.config() };
    let mut found: Option<Chosen> = None;
    match schedule {
        Some(s) => {
            each_trace(&prog, &cfg, &Which::Schedule(s.to_string()), &mut |m, ex| {
                found = Some(chosen(m, ex));
                Ok(())
            })?;
        }
        None => {
            let m = Machine::new(&prog, cfg.loop_bound);
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
    let c = found.ok_or_else(|| CliError::internal(format!("no execution of {} to export", file.display())))?;
    let name = file.display().to_string();
    let text = if trace_arg {
        format!("{}\n", encode(&c.trace).map_err(|e| CliError::input(format!("error: {e}")))?)
    } else {
        reproducer(&prog, &src, &name, &c.schedule, &c.trace, &c.events, &c.racing).map_err(|e| CliError::input(format!("error: {e}")))?
    };
    match out {
        None => emit(&text),
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| CliError::input(format!("error: cannot write {}: {e}", path.display())))?;
            eprintln!("wrote {} (schedule {}); build and run: cc -std=c11 -fsanitize=thread -O1 -g -pthread {} -o replay && ./replay", path.display(), c.schedule, path.display());
        }
    }
    Ok(Exit::Ok)
}
