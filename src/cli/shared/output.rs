//! What the subcommands print: stdout that survives a closed pipe, JSON, capped lists.

use std::path::Path;
use std::time::Duration;

use super::CliError;
use crate::summary::Summary;

/// Writes to stdout; a closed pipe (`racefuzz … | head`) ends the program quietly instead
/// of panicking.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

/// Like `println!`, through [`emit`].
#[macro_export]
macro_rules! outln {
    () => { $crate::cli::shared::emit("\n") };
    ($($arg:tt)*) => { $crate::cli::shared::emit(&format!("{}\n", format!($($arg)*))) };
}

/// Prints a JSON document; a value that does not serialize is an internal bug, never an
/// empty document with exit 0.
///
/// # Errors
/// [`CliError::internal`] when serialization fails.
pub fn print_json(v: &impl serde::Serialize) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(v).map_err(|e| CliError::internal(format!("JSON output failed: {e}")))?;
    emit(&format!("{text}\n"));
    Ok(())
}

/// At most `max` items of a list for a message, then how many there are in all.
pub fn capped<T: std::fmt::Display>(items: &[T], max: usize) -> String {
    let shown: Vec<String> = items.iter().take(max).map(ToString::to_string).collect();
    if items.len() > max {
        format!("{}, … ({} in all)", shown.join(", "), items.len())
    } else {
        shown.join(", ")
    }
}

/// When the next status line is due, for runs without a terminal (`fuzz`, `gen --stats`):
/// every `--status-interval` of wall time, at least a second apart; a line missed while
/// the run was busy is skipped, not caught up.
pub struct StatusClock {
    every: Duration,
    next: Duration,
}

impl StatusClock {
    /// From the `--status-interval` flag.
    ///
    /// # Errors
    /// A bad duration, as input error naming the flag.
    pub fn new(flag: &str) -> Result<StatusClock, CliError> {
        let every = crate::duration::parse(flag).map_err(|e| CliError::input(format!("error: --status-interval: {e}")))?.max(Duration::from_secs(1));
        Ok(StatusClock { every, next: every })
    }

    /// Whether a line is due at `elapsed`; if so, the next one is scheduled.
    pub fn due(&mut self, elapsed: Duration) -> bool {
        if elapsed < self.next {
            return false;
        }
        while self.next <= elapsed {
            self.next += self.every;
        }
        true
    }
}

/// Writes the campaign report (`crate::picture::campaign_report`) of `summary`, with the
/// finding paths made absolute so that its links work wherever the page is (a merge's
/// summary too).
pub fn write_report(report: &Path, summary: &Summary) -> Result<(), CliError> {
    let mut page = summary.clone();
    for p in page.finding_links_mut() {
        if let Ok(absolute) = std::fs::canonicalize(&*p) {
            *p = absolute;
        }
    }
    crate::campaign::write_atomically(report, &crate::picture::campaign_report(&page)).map_err(|e| CliError::input(format!("error: cannot write {}: {e}", report.display())))?;
    eprintln!("wrote {}", report.display());
    Ok(())
}
