//! Reading what Miri printed about one replayed trace: the driver's own lines (the cells'
//! allocation, the event each thread was about to perform) and Miri's first error, a data
//! race mapped back to the two events of the trace it names, or anything else as a failure
//! (docs/spec/atomics.md §5.4).
//!
//! A race report is one line, then the spans of its two accesses:
//!
//! ```text
//! error: Undefined Behavior: Data race detected between (1) non-atomic write on thread `t0` and (2) non-atomic read on thread `t1` at alloc5652+0x8
//! ```
//!
//! Miri stops at the first undefined behaviour, so (2) is the access it was performing: the
//! event of the last `racefuzz-event K` line (only the thread whose turn it is runs). (1)
//! is the last earlier event of the thread it names on the same cell, atomic or not as Miri
//! says. The address is the cells' allocation (`racefuzz-cells ID`) and the offset, in cells
//! of 8 bytes, the index of the cell (`super::replay`).

use race_oracles::machine::{Addr, Event, EventIdx};

/// What one run of the replay under Miri ended with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The replay ran to its end with no error.
    Clean,
    /// Miri's first error was a data race.
    Race(RaceReport),
    /// Miri stopped with another error (undefined behaviour other than a race, a deadlock,
    /// an unsupported operation) or the run ended without saying how: its message.
    Other(String),
}

/// A data race report of Miri, as printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceReport {
    /// The earlier access, (1): what it was (`non-atomic write`) and its thread (`t0`).
    pub first: (String, String),
    /// The access Miri stopped at, (2).
    pub second: (String, String),
    /// The allocation of the address.
    pub alloc: u64,
    /// The offset in it, in bytes.
    pub offset: u64,
    /// The allocation of the replay's cells.
    pub cells: Option<u64>,
    /// The event the replay was performing (its last `racefuzz-event` line).
    pub event: Option<usize>,
}

/// The report as events of the trace: the event that completed the race and the earlier one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RacingPair {
    /// (2), the event Miri stopped at.
    pub at: EventIdx,
    /// (1), the earlier access.
    pub partner: EventIdx,
}

/// What a run printed on standard error, read.
pub fn parse(stderr: &str) -> Outcome {
    let mut cells = None;
    let mut event = None;
    for l in stderr.lines() {
        if let Some(n) = l.strip_prefix("racefuzz-cells ") {
            cells = n.trim().parse().ok();
        } else if let Some(k) = l.strip_prefix("racefuzz-event ") {
            event = k.trim().parse().ok();
        } else if let Some(message) = l.strip_prefix("error: ") {
            return match message.strip_prefix("Undefined Behavior: Data race detected between ").and_then(race) {
                Some((first, second, alloc, offset)) => Outcome::Race(RaceReport { first, second, alloc, offset, cells, event }),
                None => Outcome::Other(message.trim().to_string()),
            };
        } else if l == "racefuzz-done" {
            return Outcome::Clean;
        }
    }
    Outcome::Other(format!("the replay ended without finishing and without an error: `{}`", stderr.lines().last().unwrap_or("").trim()))
}

/// An access and its thread, the allocation and the offset of
/// `(1) WHAT on thread `T` and (2) WHAT on thread `T` at allocN[+0xOFF]`.
type Parsed = ((String, String), (String, String), u64, u64);

fn race(rest: &str) -> Option<Parsed> {
    let rest = rest.strip_prefix("(1) ")?;
    let (first, rest) = rest.split_once(" and (2) ")?;
    let (second, at) = rest.rsplit_once(" at alloc")?;
    let access = |s: &str| -> Option<(String, String)> {
        let (what, thread) = s.split_once(" on thread `")?;
        Some((what.to_string(), thread.strip_suffix('`')?.to_string()))
    };
    let at = at.split_whitespace().next()?.trim_end_matches(['.', ',']);
    let (alloc, offset) = match at.split_once("+0x") {
        Some((a, o)) => (a.parse().ok()?, u64::from_str_radix(o, 16).ok()?),
        None => (at.parse().ok()?, 0),
    };
    Some((access(first)?, access(second)?, alloc, offset))
}

impl RaceReport {
    /// The two events of `trace` the report names; `cells` is the replay's layout
    /// (`super::replay::Encoded::cells`).
    ///
    /// # Errors
    /// Why the report names no events of the trace: an address outside the cells, a thread
    /// or an access that is not the event that was running, no earlier access that fits.
    pub fn events(&self, trace: &[Event], cells: &[Addr]) -> Result<RacingPair, String> {
        let whole = || format!("{self:?}");
        if self.cells != Some(self.alloc) {
            return Err(format!("Miri reported a race on memory that is not the trace's cells (allocation {}, cells {:?}): {}", self.alloc, self.cells, whole()));
        }
        let addr =
            *cells.get(usize::try_from(self.offset / 8).unwrap_or(usize::MAX)).ok_or_else(|| format!("the offset {:#x} is no cell of the trace: {}", self.offset, whole()))?;
        let k = self.event.ok_or_else(|| format!("Miri reported a race before the first event: {}", whole()))?;
        let e = trace.get(k).ok_or_else(|| format!("event {k} is not in the trace: {}", whole()))?;
        let fits = |e: &Event, (what, thread): &(String, String)| {
            let Some(m) = e.mem_access() else { return false };
            m.addr == addr && *thread == format!("t{}", e.thread.0) && m.atomic == what.starts_with("atomic")
        };
        if !fits(e, &self.second) {
            return Err(format!("the access Miri stopped at is not event {k}, which was running: {}", whole()));
        }
        let partner = trace[..k].iter().rev().find(|p| fits(p, &self.first)).ok_or_else(|| format!("no event before {k} is the earlier access Miri names: {}", whole()))?;
        Ok(RacingPair { at: e.idx, partner: partner.idx })
    }
}

#[cfg(test)]
mod tests {
    use race_oracles::clock::ThreadId;
    use race_oracles::lang::AccessKind;
    use race_oracles::machine::{EventKind, FieldId, ObjId};

    use super::*;

    const RACE: &str = "racefuzz-cells 5652\nracefuzz-event 0\nracefuzz-event 1\nerror: Undefined Behavior: Data race detected between (1) non-atomic write on thread `t0` and (2) non-atomic read on thread `t1` at alloc5652+0x8\n   --> src/main.rs:177:65\n";

    fn trace() -> (Vec<Event>, Vec<Addr>) {
        let (x, y) = (Addr::Field(ObjId(0), FieldId(0)), Addr::Field(ObjId(0), FieldId(1)));
        let e = |i: u32, t: u32, k, a| Event::plain(EventIdx(i), ThreadId(t), 3, EventKind::Access(k, a));
        (vec![e(0, 0, AccessKind::Write, y), e(1, 1, AccessKind::Read, y)], vec![x, y])
    }

    #[test]
    fn a_race_is_read_and_mapped_to_the_running_event_and_the_earlier_access() {
        let Outcome::Race(r) = parse(RACE) else { panic!("{:?}", parse(RACE)) };
        assert_eq!((r.alloc, r.offset, r.cells, r.event), (5652, 8, Some(5652), Some(1)));
        assert_eq!(r.first, ("non-atomic write".into(), "t0".into()));
        let (trace, cells) = trace();
        assert_eq!(r.events(&trace, &cells), Ok(RacingPair { at: EventIdx(1), partner: EventIdx(0) }));
        // The same report at offset 0 names the other cell, which no event of thread 1 reads.
        let other = parse(&RACE.replace("+0x8", ""));
        let Outcome::Race(r) = other else { panic!() };
        assert!(r.events(&trace, &cells).unwrap_err().contains("not event 1"));
        let elsewhere = parse(&RACE.replace("alloc5652+", "alloc17+"));
        let Outcome::Race(r) = elsewhere else { panic!() };
        assert!(r.events(&trace, &cells).unwrap_err().contains("not the trace's cells"));
    }

    #[test]
    fn anything_else_is_another_outcome() {
        assert_eq!(parse("racefuzz-cells 1\nracefuzz-event 0\nracefuzz-done\n"), Outcome::Clean);
        assert_eq!(parse("error: deadlock: the evaluated program deadlocked\n"), Outcome::Other("deadlock: the evaluated program deadlocked".into()));
        assert!(matches!(parse("racefuzz-cells 1\n"), Outcome::Other(m) if m.contains("without finishing")));
        assert!(matches!(parse("error: Undefined Behavior: Data race detected between nonsense\n"), Outcome::Other(_)));
    }
}
