//! The CLI's two voices and its exit codes: an error the user caused names its place and
//! exits 2 ([`CliError::input`]); an internal bug says so and exits 4
//! ([`CliError::internal`]); a budget is exit 3.

pub(in crate::cli) const EXIT_CODES: &str =
    "Exit codes: 0 success, 1 a property failed, 2 bad input (syntax error, dialect violation, bad flag), 3 inconclusive (a budget was hit, or a hypothesis unmet), 4 racefuzz internal bug.";

/// The exit codes of every subcommand (also in `--help` and the book's "Bounds and exit codes").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Success: complete within the printed bounds; an oracle passed.
    Ok = 0,
    /// A property failed (an oracle's `fail`, a corpus expectation mismatched).
    Fail = 1,
    /// Bad input: unreadable file, syntax error (line:col), dialect violation, bad flag.
    BadInput = 2,
    /// Inconclusive: a budget was hit or a hypothesis is unmet; not a full answer.
    Inconclusive = 3,
    /// An internal invariant broke: a bug in racefuzz, never the input's fault.
    InternalBug = 4,
}

impl Exit {
    /// The exit code for an oracle verdict.
    pub fn of(v: race_oracles::theorems::Verdict) -> Exit {
        match v {
            race_oracles::theorems::Verdict::Pass => Exit::Ok,
            race_oracles::theorems::Verdict::Fail => Exit::Fail,
            race_oracles::theorems::Verdict::Inconclusive => Exit::Inconclusive,
        }
    }
}

/// An error, with its exit code and its voice.
#[derive(Debug)]
pub struct CliError {
    /// What to print on stderr.
    pub message: String,
    /// The exit code.
    pub code: Exit,
}

impl CliError {
    /// Bad input (exit 2): the message names the place or the assumption.
    pub fn input(message: impl Into<String>) -> CliError {
        CliError { message: message.into(), code: Exit::BadInput }
    }

    /// An internal bug (exit 4): says so, and which invariant broke.
    pub fn internal(what: impl std::fmt::Display) -> CliError {
        let what = what.to_string();
        let what = what.strip_prefix("racefuzz internal bug: ").unwrap_or(&what).to_string();
        CliError { message: format!("racefuzz internal bug: {what} (please report it with the command line and input)"), code: Exit::InternalBug }
    }
}

/// A campaign's early stop in the right voice: exit 4 for an internal bug, exit 2 otherwise
/// (an unknown mutant, an unwritable output folder).
pub fn campaign_error(e: &crate::campaign::CampaignError) -> CliError {
    if e.is_internal() {
        CliError::internal(e)
    } else {
        CliError::input(format!("error: {e}"))
    }
}
