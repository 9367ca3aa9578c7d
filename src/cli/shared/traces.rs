//! The executions of a thread program that `trace`, `export` and `check --reproducer` walk:
//! one a schedule names, one per Mazurkiewicz class, or all.

use std::ops::ControlFlow;

use race_oracles::explore::{Config, Execution, Schedule};
use race_oracles::lang::{Dialect, Program};
use race_oracles::machine::Machine;

use super::CliError;

/// The dialects `trace` writes: the thread programs the dynamic-detector oracles run.
pub const DIALECTS: [Dialect; 4] = [Dialect::Bfj, Dialect::Bfj2, Dialect::SimpleJava, Dialect::CapJava];

/// Which traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Which {
    /// The one execution a schedule names (as `racefuzz replay` runs it).
    Schedule(String),
    /// One execution per Mazurkiewicz class (the DPOR explorer's).
    Classes,
    /// Every execution (the naive explorer's).
    All,
}

impl Which {
    /// `schedule`, `classes`, `all`.
    pub fn name(&self) -> &'static str {
        match self {
            Which::Schedule(_) => "schedule",
            Which::Classes => "classes",
            Which::All => "all",
        }
    }
}

/// What [`each_trace`] calls on each execution.
pub type Visit<'v> = dyn FnMut(&Machine<'_>, &Execution<'_, '_>) -> Result<(), CliError> + 'v;

/// Calls `visit` on each trace `which` names; whether the enumeration was complete.
pub fn each_trace(prog: &Program, cfg: &Config, which: &Which, visit: &mut Visit<'_>) -> Result<bool, CliError> {
    let m = Machine::new(prog, cfg.loop_bound);
    let init = m.initial_state().map_err(|e| CliError::input(format!("error: {e}")))?;
    let mut failed = None;
    match which {
        Which::Schedule(s) => {
            let sched: Schedule = s.parse().map_err(|e| CliError::input(format!("error: --schedule: {e}")))?;
            let mut truncated = false;
            cfg.explorer
                .get()
                .replay(&m, init, cfg, &sched, true, &mut |ex| {
                    truncated = *ex.outcome == race_oracles::explore::Outcome::Truncated;
                    failed = visit(&m, ex).err();
                })
                .map_err(|e| CliError::input(format!("error: {e}")))?;
            failed.map_or(Ok(!truncated), Err)
        }
        Which::Classes | Which::All => {
            let stats = cfg.explorer.get().explore(&m, init, cfg, &mut |ex| match visit(&m, ex) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => {
                    failed = Some(e);
                    ControlFlow::Break(())
                }
            });
            failed.map_or(Ok(stats.complete), Err)
        }
    }
}
