//! A race detector or a static race analysis in another process, in any language, as a
//! system under test. A static analysis (`--analysis-cmd`) is given each program as
//! `.race` text and answers with its reports in JSON ([`ExternalAnalysis`]); the oracles
//! that judge reports (`racerdx-tp`, `racerdx-reports`) judge it as they judge RacerDX, and
//! a failure of it is a finding of its own (`ANALYSIS FAILED`). The rest of this page is
//! about detectors; the process plumbing ([`Persistent`], [`run_on_file`]) is shared.
//!
//! A detector (`--detector-cmd`) is judged by the dynamic-detector oracles (`fasttrack-precise`: the racy locations of every trace, spec
//! bigfoot.md §9.1 O0) judge it as they judge FastTrack. Two modes, as detectors are
//! written:
//!
//! - **Per trace**: racefuzz writes each trace in STD ([`crate::std_trace`]:
//!   `thread|op(decor)|loc`, `loc` = the event's index plus one) to a file, runs a command
//!   line with the file's path in place of `{}` (through `sh -c`, so pipes and variables
//!   work), and reads the reported `loc`s from the command's standard output with a
//!   [`Pattern`]: by default every line that echoes an STD event
//!   (`Race detected at event 2 : T1|w(V1)|2`), as STD-reading tools print their reports.
//! - **Persistent**: one long-lived process reads requests and writes responses, one JSON
//!   object per line: `{"version":1,"id":7,"std":"T0|w(V1)|1\n…"}` in,
//!   `{"version":1,"id":7,"races":[2]}` out ([`PROTOCOL_VERSION`]; the book's "Your own
//!   detector"). No process start per trace.
//!
//! Either way the process is untrusted: a run that exits with a failure status, outlives
//! its timeout, or prints what does not parse (a response that is not the protocol's, a
//! `loc` that names no event of the trace) is a [`Failure`], which the oracle makes a
//! finding of its own (`DETECTOR FAILED`), never a panic or a hang of racefuzz.
//!
//! Each trace's STD text is written with names of its own (variables and locks numbered
//! in the trace's name order): a detector answers with `loc`s, which name events, so names
//! need not agree across traces here (unlike `racefuzz trace --out`, whose files are read
//! side by side).

mod analysis;
mod batch;
mod detector;
mod process;

use std::time::Duration;

pub use analysis::ExternalAnalysis;
pub use batch::Batch;
pub use detector::{ExternalDetector, ExternalFactory, Mode};
pub use process::{
    kill_group, run_on_file, status_within_a_second, wait_with_timeout, Failure, Pattern, PatternError, PerTrace, Persistent, Request, Response, DEFAULT_TIMEOUT, PROTOCOL_VERSION,
};

/// Where racefuzz keeps what it builds for external tools: `$RACEFUZZ_CACHE`, else
/// `$XDG_CACHE_HOME/racefuzz`, else `$HOME/.cache/racefuzz`, else the temporary folder's
/// `racefuzz-cache`. Never the source tree. Loom's drivers and Go's build cache live here.
pub fn cache_dir(var: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> std::path::PathBuf {
    let set = |k: &str| var(k).filter(|v| !v.is_empty()).map(std::path::PathBuf::from);
    set("RACEFUZZ_CACHE")
        .or_else(|| set("XDG_CACHE_HOME").map(|d| d.join("racefuzz")))
        .or_else(|| set("HOME").map(|d| d.join(".cache/racefuzz")))
        .unwrap_or_else(|| std::env::temp_dir().join("racefuzz-cache"))
}

/// Why an external SUT cannot be run as given: a value naming the flag at fault, so that
/// each source of a SUT's description (flags, environment, finding header; the `sut_spec`
/// module, above this one) can
/// say where it came from.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    /// `--batch` beside `--persistent`.
    #[error("--batch runs a command per program; --persistent one process for every trace: choose one")]
    BatchAndPersistent,
    /// A report pattern for a persistent detector, which answers in JSON.
    #[error("--report-pattern reads per-trace output; a --persistent detector answers in JSON")]
    PatternWhenPersistent,
    /// A per-trace detector command without `{}`.
    #[error("--detector-cmd `{0}` has no `{{}}` for the trace file (the folder of traces with --batch; or add --persistent for a JSON Lines detector)")]
    NoTraceFile(String),
    /// A per-program analysis command without `{}`.
    #[error("--analysis-cmd `{0}` has no `{{}}` for the program file (or add --persistent for a JSON Lines analysis)")]
    NoProgramFile(String),
    /// A report pattern without exactly one `{loc}`.
    #[error("--report-pattern: {0}")]
    Pattern(#[from] PatternError),
}

/// Whether a detector can be run as given, without starting it: a per-trace `command` must
/// hold `{}`, a `pattern` is for per-trace output only and must hold one `{loc}`. The
/// pattern, parsed.
///
/// # Errors
/// [`ConfigError`], naming the flag at fault.
pub fn detector_pattern(command: &str, persistent: bool, pattern: Option<&str>) -> Result<Option<Pattern>, ConfigError> {
    if persistent {
        return match pattern {
            Some(_) => Err(ConfigError::PatternWhenPersistent),
            None => Ok(None),
        };
    }
    if !command.contains("{}") {
        return Err(ConfigError::NoTraceFile(command.to_string()));
    }
    Ok(pattern.map(Pattern::glob).transpose()?)
}

/// The external detector `command`: `persistent` (JSON Lines), `batch` (per program, on a
/// folder of traces) or per trace (then `command` must hold `{}`, and `pattern` is a glob
/// with one `{loc}`, default [`Pattern::std_event`]). Per-trace files and batch folders go
/// to a scratch folder under the system's temporary directory.
///
/// # Errors
/// [`ConfigError`], naming the flag at fault (`--detector-cmd`, `--report-pattern`).
pub fn factory(command: &str, persistent: bool, batch: bool, pattern: Option<&str>, timeout: Duration) -> Result<ExternalFactory, ConfigError> {
    if batch && persistent {
        return Err(ConfigError::BatchAndPersistent);
    }
    let pattern = detector_pattern(command, persistent, pattern)?;
    let scratch = std::sync::Arc::new(crate::scratch::Scratch::named("detector"));
    let (command, pattern) = (command.to_string(), pattern.unwrap_or_else(Pattern::std_event));
    let mode = if persistent {
        Mode::Persistent(std::sync::Arc::new(std::sync::Mutex::new(Persistent::new(&command, timeout))))
    } else if batch {
        Mode::Batch(Batch { command: command.clone(), pattern, timeout, scratch }, std::sync::Arc::default())
    } else {
        Mode::PerTrace(PerTrace { command: command.clone(), pattern, timeout, scratch })
    };
    Ok(ExternalFactory::new(&command, mode))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn the_cache_is_outside_the_source_tree() {
        let env = |pairs: &'static [(&'static str, &'static str)]| move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.into());
        assert_eq!(cache_dir(&env(&[("RACEFUZZ_CACHE", "/c"), ("HOME", "/h")])), PathBuf::from("/c"));
        assert_eq!(cache_dir(&env(&[("XDG_CACHE_HOME", "/x"), ("HOME", "/h")])), PathBuf::from("/x/racefuzz"));
        assert_eq!(cache_dir(&env(&[("RACEFUZZ_CACHE", ""), ("HOME", "/h")])), PathBuf::from("/h/.cache/racefuzz"));
    }
}
