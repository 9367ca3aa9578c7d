//! Durations as people write them on a command line or in the environment: `500ms`, `90s`,
//! `10m`, `2h`, or a bare number of seconds (`--time`, `--status-interval`,
//! `--detector-timeout`). Wall time only ever bounds a run; it never decides a verdict.

use std::time::Duration;

/// The longest budget a campaign accepts: a year.
pub const MAX_DURATION: Duration = Duration::from_secs(366 * 24 * 3600);

/// Why a duration does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Not a number followed by a unit.
    #[error("bad duration `{0}` (examples: 60s, 10m, 2h)")]
    Number(String),
    /// A unit other than `ms`, `s`, `m`, `h`.
    #[error("bad duration unit in `{0}` (ms, s, m or h)")]
    Unit(String),
    /// Over [`MAX_DURATION`].
    #[error("duration `{0}` is longer than a year; campaigns that long belong to cargo fuzz")]
    TooLong(String),
}

/// Parses `500ms`, `90s`, `10m`, `2h` or a bare number of seconds, up to [`MAX_DURATION`].
///
/// # Errors
/// [`DurationError`]: a bad number, a bad unit, too long.
pub fn parse(s: &str) -> Result<Duration, DurationError> {
    let t = s.trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: u64 = num.parse().map_err(|_| DurationError::Number(s.to_string()))?;
    let scale_ms = match unit {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(DurationError::Unit(s.to_string())),
    };
    let ms = n.checked_mul(scale_ms).filter(|&x| x <= MAX_DURATION.as_secs() * 1_000).ok_or_else(|| DurationError::TooLong(s.to_string()))?;
    Ok(Duration::from_millis(ms))
}
