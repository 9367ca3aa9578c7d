//! ThreadSanitizer as a system under test: a [`ReplayTool`] over the C replay of each trace
//! (`crate::replay`), built by gcc's or clang's `-fsanitize=thread`.
//!
//! ThreadSanitizer is a happens-before race detector with documented limits: a few shadow
//! cells per 8 bytes of memory and a bounded history of earlier accesses. Judged like
//! FastTrack (`fasttrack-precise`, docs/spec/bigfoot.md §9.1 O0: exactly the racy locations of
//! every trace). The replay's turns are a seq_cst atomic counter inside ThreadSanitizer's
//! ignore-sync region (`AnnotateIgnoreSyncBegin/End`), which it does not count as
//! synchronization (docs/spec/atomics.md §6.1, verified on gcc 12 and clang 19: the same
//! handoff outside the region hides a race). `tsan` is the compiler of `$CC` (default `cc`);
//! `tsan@gcc-12`, `tsan@clang-19` name one (the `real` module's table).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use race_oracles::lang::AccessKind;

use crate::replay::{Access, Compiler, Output, ReplayError, ReplayTool, Report};
use crate::seeded::{Predicted, Seeded};

/// The options ThreadSanitizer runs with: no symbolization (a report names an address,
/// which is all the comparison needs, and symbolizing costs about 170 ms per report), no
/// failing exit status (a report is an answer, not a failure), no lock-order reports
/// (they are about deadlocks, not races), and no suppression of a report whose two stacks
/// or address were reported before. That last one is a reporting policy, not detection:
/// in the replay every event of one `.race` line runs the same C function, and generated
/// programs put a thread's statements on one line, so with the default a race on `o.g`
/// went unreported after one on `o.h` from the same two lines (21 of 351 racy locations of
/// 100 programs, before this option). Last, each stack frame printed as its number only
/// and no summary line: nothing reads the frames (the accesses are named by address and
/// thread), and formatting them was half the cost of a trace with one race (0.8 of 1.6 ms
/// with clang 19's runtime, measured with `perf`).
pub const TSAN_OPTIONS: &str =
    "symbolize=0 exitcode=0 detect_deadlocks=0 report_signal_unsafe=0 suppress_equal_stacks=0 suppress_equal_addresses=0 stack_trace_format=#%n print_summary=0";

/// The compiler flags of a replay under ThreadSanitizer.
pub const FLAGS: [&str; 5] = ["-std=c11", "-fsanitize=thread", "-O1", "-g", "-pthread"];

/// ThreadSanitizer through one C compiler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tsan {
    /// The C compiler (`gcc-12`, `clang-19`, `$CC`).
    pub cc: String,
    /// A seeded bug of the harness around it ([`SEEDED`]), if any.
    pub bug: Option<TsanBug>,
}

impl Tsan {
    /// ThreadSanitizer through `$CC` (default `cc`).
    pub fn from_env() -> Tsan {
        Tsan::through(crate::replay::cc())
    }

    /// ThreadSanitizer through the C compiler `cc`, with no seeded bug.
    pub fn through(cc: impl Into<String>) -> Tsan {
        Tsan { cc: cc.into(), bug: None }
    }
}

/// Seeded bugs of the harness that runs ThreadSanitizer, not of ThreadSanitizer: what a
/// careless replay does, which the oracles must catch as they would a detector's bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TsanBug {
    /// The seq_cst turn counter outside ThreadSanitizer's ignore-sync region: it models C11
    /// atomics, so it sees each event ordered after the one before it, and no race at all.
    TurnsSynchronize,
}

/// The seeded bugs of `tsan` (the SUT catalogue's `tsan` entry applies them).
pub const SEEDED: &[Seeded<TsanBug>] = &[Seeded {
    name: "tsan-turns-synchronize",
    oracle: "fasttrack-precise",
    description: "the replay's seq_cst turn counter is outside ThreadSanitizer's ignore-sync region: it sees the turns as synchronization and every trace as race-free",
    predicted: Predicted::breaks(&["fasttrack-precise", "fasttrack-precise-atomics"]),
    spec: "spec/bigfoot.md §9.1 O0; the replay's turns add no synchronization a detector can see (src/replay/mod.rs)",
    bug: TsanBug::TurnsSynchronize,
}];

/// The C replay's ignore-sync region around its turns, and the same without it.
const TURNS_SYNCHRONIZE: [(&str, &str); 2] = [
    ("static void ignore_sync_begin(void) { if (AnnotateIgnoreSyncBegin) AnnotateIgnoreSyncBegin(__FILE__, __LINE__); }", "static void ignore_sync_begin(void) { }"),
    ("static void ignore_sync_end(void) { if (AnnotateIgnoreSyncEnd) AnnotateIgnoreSyncEnd(__FILE__, __LINE__); }", "static void ignore_sync_end(void) { }"),
];

impl ReplayTool for Tsan {
    fn name(&self) -> String {
        format!("ThreadSanitizer ({})", self.cc)
    }

    /// [`FLAGS`]. gcc's warning that ThreadSanitizer does not support fences is silenced by
    /// the replay itself (`replay::export`), so that a user's own compile of an exported
    /// reproducer is as quiet as ours.
    fn compiler(&self) -> Compiler {
        Compiler::c(self.cc.clone(), &FLAGS)
    }

    fn command(&self, binary: &Path, arg: &str) -> Command {
        let mut c = Command::new(binary);
        c.arg(arg).env("TSAN_OPTIONS", TSAN_OPTIONS);
        c
    }

    fn patched(&self, generated: String) -> String {
        match self.bug {
            None => generated,
            Some(TsanBug::TurnsSynchronize) => TURNS_SYNCHRONIZE.iter().fold(generated, |s, (relaxed, synchronizing)| s.replace(relaxed, synchronizing)),
        }
    }

    /// `inline`: a fork of a ThreadSanitizer process still costs 1.5 ms (copying its page
    /// tables, and the pages it then writes), against 0.2 ms for a trace with no race
    /// replayed in place; see `crate::replay::serve` for why a trace replayed after others
    /// in one process is reported as in a process of its own.
    fn server(&self, binary: &Path) -> Option<Command> {
        let mut c = Command::new(binary);
        c.args(["--serve", "inline"]).env("TSAN_OPTIONS", TSAN_OPTIONS);
        Some(c)
    }

    fn reports(&self, out: &Output) -> Result<Vec<Report>, ReplayError> {
        let mut reports = parse(&out.stderr)?;
        // Threads by system id when the replay printed them (the `T` numbers of a server go
        // on from earlier traces): `Thread T2 (tid=4242, running) created by ...`.
        let by_t: BTreeMap<u32, u64> = out
            .stderr
            .lines()
            .filter_map(|l| {
                let rest = l.trim().strip_prefix("Thread T")?;
                let (t, rest) = rest.split_once(' ')?;
                let tid = rest.strip_prefix("(tid=")?.split(|c: char| !c.is_ascii_digit()).next()?;
                Some((t.parse().ok()?, tid.parse().ok()?))
            })
            .collect();
        let rank = |a: &mut Access| {
            if let Some(t) = a.thread {
                // `parse` made `T<n>` thread n - 1.
                if let Some(r) = by_t.get(&(t + 1)).and_then(|tid| out.threads.get(tid)) {
                    a.thread = Some(*r);
                }
            }
        };
        for r in &mut reports {
            rank(&mut r.current);
            if let Some(p) = &mut r.previous {
                rank(p);
            }
        }
        Ok(reports)
    }
}

/// The data race reports of a run's standard error, in order.
///
/// # Errors
/// [`ReplayError::Parse`] on an access line that does not parse.
pub fn parse(err: &str) -> Result<Vec<Report>, ReplayError> {
    let mut reports = vec![];
    let mut current: Option<Report> = None;
    for l in err.lines().map(str::trim) {
        if l.starts_with("WARNING: ThreadSanitizer:") {
            reports.extend(current.take());
            if l.starts_with("WARNING: ThreadSanitizer: data race") {
                current = Some(Report { current: Access { kind: AccessKind::Read, addr: 0, thread: None, line: None, atomic: None }, previous: None });
            }
            continue;
        }
        let Some(r) = &mut current else { continue };
        if let Some(rest) = l.strip_prefix("Previous ") {
            r.previous = access(rest);
        } else if l.starts_with("Read of size") || l.starts_with("Write of size") || l.starts_with("Atomic ") {
            r.current = access(l).ok_or_else(|| ReplayError::Parse(format!("a ThreadSanitizer line that does not parse: `{l}`")))?;
        }
    }
    reports.extend(current);
    Ok(reports)
}

/// `Write of size 8 at 0x7b0400000010 by thread T2:` (or `read`, `by main thread`): `T1` is
/// the first thread the replay creates.
fn access(l: &str) -> Option<Access> {
    // `Atomic write of size 8` (or `Previous atomic write`): an atomic access. Its stack
    // cannot tell two accesses of a thread and cell apart (the replay runs with
    // `symbolize=0`), so this is what keeps an atomic from being taken for a plain access
    // of the same thread and cell next to it.
    let atomic = l.to_ascii_lowercase().starts_with("atomic ");
    let l = if atomic { &l[7..] } else { l };
    let kind = if l.to_ascii_lowercase().starts_with("write") { AccessKind::Write } else { AccessKind::Read };
    let addr = l.split(" at 0x").nth(1)?.split_whitespace().next()?;
    let addr = u64::from_str_radix(addr, 16).ok()?;
    let thread = match l.split(" by thread T").nth(1) {
        Some(t) => Some(t.trim_end_matches(':').split(|c: char| !c.is_ascii_digit()).next()?.parse::<u32>().ok()?.checked_sub(1)?),
        None => None,
    };
    Some(Access { kind, addr, thread, line: None, atomic: Some(atomic) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seeded bug removes both ends of the C replay's ignore-sync region, so it cannot silently
    /// stop applying when the export changes.
    #[test]
    fn the_seeded_bug_makes_both_turn_operations_synchronize() {
        let c = crate::replay::export::c_universal();
        let seeded = Tsan { bug: Some(TsanBug::TurnsSynchronize), ..Tsan::through("cc") };
        for (ignored, synchronizing) in TURNS_SYNCHRONIZE {
            assert!(c.contains(ignored), "the replay no longer has `{ignored}`");
            assert!(seeded.patched(c.clone()).contains(synchronizing) && !seeded.patched(c.clone()).contains(ignored));
        }
        assert_eq!(Tsan::through("cc").patched(c.clone()), c);
    }

    #[test]
    fn a_report_is_read_with_both_accesses() {
        let err = "==================\nWARNING: ThreadSanitizer: data race (pid=1)\n  Read of size 8 at 0x7b0400000018 by thread T2:\n    #0 <null> <null> (replay+0x120f)\n\n  Previous write of size 8 at 0x7b0400000018 by thread T1:\n    #0 <null> <null> (replay+0x1281)\n\n==================\nWARNING: ThreadSanitizer: lock-order-inversion\n";
        let read = Access { kind: AccessKind::Read, addr: 0x7b04_0000_0018, thread: Some(1), line: None, atomic: Some(false) };
        let write = Access { kind: AccessKind::Write, thread: Some(0), ..read };
        assert_eq!(parse(err), Ok(vec![Report { current: read, previous: Some(write) }]));
        let err = "WARNING: ThreadSanitizer: data race (pid=1)\n  Read of size 8 at 0x7b0400000018 by thread T2:\n    #0\n\n  Previous atomic write of size 8 at 0x7b0400000018 by thread T1:\n    #0\n";
        assert_eq!(parse(err), Ok(vec![Report { current: read, previous: Some(Access { atomic: Some(true), ..write }) }]));
        assert_eq!(crate::replay::run::objects("racefuzz-object 0 0x7b0400000010 3\n"), Ok([(0, (0x7b04_0000_0010, 3))].into()));
    }
}
