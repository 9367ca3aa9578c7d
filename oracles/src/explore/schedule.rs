//! Schedules: the replayable path of choices that names one execution.
//!
//! A schedule lists every choice the explorer made, in order, comma-separated:
//! `2` = thread 2 (1-based, in creation order) takes its next step; `2/1` = thread 2 takes
//! alternative 1 of a nondeterministic statement (`if *`: 0 = then, 1 = else; `while *`:
//! 0 = iterate, 1 = exit); `h1` = a lazy initial-heap cell or formal takes candidate 1 (the
//! initial objects in creation order, then a fresh one). `racefuzz replay --schedule` takes
//! the same text.

use std::fmt;
use std::str::FromStr;

use crate::machine::ThreadId;

/// One choice of the explorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Choice {
    /// Thread `thread` steps, taking alternative `alt`.
    Step {
        /// Who.
        thread: ThreadId,
        /// Which alternative of a nondeterministic statement (0 otherwise).
        alt: u8,
    },
    /// A lazy initial value takes candidate `k`.
    Heap(u32),
}

/// A sequence of choices.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Schedule(pub Vec<Choice>);

impl fmt::Display for Choice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Choice::Step { thread, alt: 0 } => write!(f, "{}", thread.0 + 1),
            Choice::Step { thread, alt } => write!(f, "{}/{alt}", thread.0 + 1),
            Choice::Heap(k) => write!(f, "h{k}"),
        }
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// A schedule that does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad schedule item `{item}` at position {pos}: expected `N`, `N/A` or `hK` (N ≥ 1)")]
pub struct ScheduleParseError {
    /// The offending item.
    pub item: String,
    /// Its 1-based position.
    pub pos: usize,
}

impl FromStr for Schedule {
    type Err = ScheduleParseError;

    fn from_str(s: &str) -> Result<Schedule, ScheduleParseError> {
        let mut out = vec![];
        for (i, item) in s.split(',').map(str::trim).filter(|x| !x.is_empty()).enumerate() {
            let bad = || ScheduleParseError { item: item.to_string(), pos: i + 1 };
            let c = if let Some(k) = item.strip_prefix('h') {
                Choice::Heap(k.parse().map_err(|_| bad())?)
            } else {
                let (t, alt) = match item.split_once('/') {
                    Some((t, a)) => (t, a.parse::<u8>().map_err(|_| bad())?),
                    None => (item, 0),
                };
                let t: u32 = t.parse().map_err(|_| bad())?;
                if t == 0 {
                    return Err(bad());
                }
                Choice::Step { thread: ThreadId(t - 1), alt }
            };
            out.push(c);
        }
        Ok(Schedule(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let s: Schedule = "1,2/1,h0,1".parse().unwrap();
        assert_eq!(s.to_string(), "1,2/1,h0,1");
        assert!("0".parse::<Schedule>().is_err());
        assert!("x".parse::<Schedule>().is_err());
    }
}
