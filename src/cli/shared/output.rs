//! What the subcommands print: stdout that survives a closed pipe, JSON, capped lists.

use super::CliError;

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
