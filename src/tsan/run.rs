//! Compiling a program's replay once and running it on each trace under ThreadSanitizer,
//! reading the races it reports back as events of the trace.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use race_oracles::lang::AccessKind;
use race_oracles::machine::{Addr, Event, EventIdx, EventKind};

use super::export::creation_order;

/// The options ThreadSanitizer runs with: no symbolization (a report names an address,
/// which is all the comparison needs, and symbolizing costs about 170 ms per report), no
/// failing exit status (a report is an answer, not a failure), no lock-order reports
/// (they are about deadlocks, not races), and no suppression of a report whose two stacks
/// or address were reported before. That last one is a reporting policy, not detection:
/// in the replay every event of one `.race` line runs the same C function, and generated
/// programs put a thread's statements on one line, so with the default a race on `o.g`
/// went unreported after one on `o.h` from the same two lines (21 of 351 racy locations of
/// 100 programs, before this option).
pub const TSAN_OPTIONS: &str = "symbolize=0 exitcode=0 detect_deadlocks=0 report_signal_unsafe=0 suppress_equal_stacks=0 suppress_equal_addresses=0";

/// One access of a report: read or write, the address, and ThreadSanitizer's thread
/// number (`T1` is 1; `T0` is `main`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Read or write.
    pub kind: AccessKind,
    /// The address.
    pub addr: u64,
    /// `Tn`'s `n`.
    pub thread: u32,
}

/// A data race report: the access that completed it and the earlier one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// The later access.
    pub current: Access,
    /// The earlier access (ThreadSanitizer may not know it any more).
    pub previous: Option<Access>,
}

/// Compiles `c` with `cc` into `dir` (created), once per text: a binary already there for
/// the same text is reused.
///
/// # Errors
/// The compiler's message when it fails or cannot start.
pub fn compile(c: &str, cc: &str, dir: &Path) -> Result<PathBuf, String> {
    let key = race_oracles::fingerprint::of(c);
    let (source, binary) = (dir.join(format!("{key:032x}.c")), dir.join(format!("{key:032x}")));
    if binary.exists() {
        return Ok(binary);
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // Jobs may compile the same text at once: each writes files of its own, and the
    // binary appears by a rename, complete.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let source = source.with_file_name(format!("{key:032x}-{n}.c"));
    std::fs::write(&source, c).map_err(|e| format!("cannot write {}: {e}", source.display()))?;
    let partial = dir.join(format!("{key:032x}-{n}.partial"));
    let out = Command::new(cc)
        .args(["-std=c11", "-fsanitize=thread", "-O1", "-g", "-pthread", "-o"])
        .arg(&partial)
        .arg(&source)
        .output()
        .map_err(|e| format!("cannot run the C compiler `{cc}`: {e}"))?;
    if !out.status.success() {
        return Err(format!("`{cc} -fsanitize=thread` failed on {}: {}", source.display(), String::from_utf8_lossy(&out.stderr).trim()));
    }
    // Renamed into place only when complete, so that a concurrent run never sees half a binary.
    std::fs::rename(&partial, &binary).map_err(|e| format!("cannot move {}: {e}", partial.display()))?;
    Ok(binary)
}

/// What one run printed: each object's base address and cells, and the race reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Run {
    /// Object number → (base address, cells).
    pub objects: BTreeMap<u64, (u64, u64)>,
    /// The data race reports, in order.
    pub reports: Vec<Report>,
}

/// Runs `binary` on the trace argument `arg` with [`TSAN_OPTIONS`], killed after `timeout`;
/// with `free`, without turns (`RACEFUZZ_FREE_RUN`: the OS schedules the threads).
///
/// # Errors
/// A run that cannot start, fails, outlives the timeout, or prints what does not parse.
pub fn run(binary: &Path, arg: &str, timeout: Duration, free: bool) -> Result<Run, String> {
    let mut command = Command::new(binary);
    if free {
        command.env("RACEFUZZ_FREE_RUN", "1");
    }
    // Its own process group, so that a timeout kills whatever it started too.
    let child = command
        .arg(arg)
        .env("TSAN_OPTIONS", TSAN_OPTIONS)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let (status, out, err) = crate::external::wait_with_timeout(child, timeout).map_err(|f| format!("the replay: {f}"))?;
    let (out, err) = (String::from_utf8_lossy(&out), String::from_utf8_lossy(&err));
    if !status.success() {
        return Err(format!("the replay exited with {status}: {}", err.trim()));
    }
    parse(&out, &err)
}

/// Reads a run's standard output (object addresses) and error (reports).
///
/// # Errors
/// A line that does not parse.
pub fn parse(out: &str, err: &str) -> Result<Run, String> {
    let mut run = Run::default();
    for l in out.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if let ["racefuzz-object", o, base, cells] = w[..] {
            let num = |s: &str| s.parse::<u64>().map_err(|_| format!("bad object line `{l}`"));
            let base = u64::from_str_radix(base.trim_start_matches("0x"), 16).map_err(|_| format!("bad object line `{l}`"))?;
            run.objects.insert(num(o)?, (base, num(cells)?));
        }
    }
    let mut current: Option<Report> = None;
    for l in err.lines().map(str::trim) {
        if l.starts_with("WARNING: ThreadSanitizer:") {
            run.reports.extend(current.take());
            if l.starts_with("WARNING: ThreadSanitizer: data race") {
                current = Some(Report { current: Access { kind: AccessKind::Read, addr: 0, thread: 0 }, previous: None });
            }
            continue;
        }
        let Some(r) = &mut current else { continue };
        if let Some(rest) = l.strip_prefix("Previous ") {
            r.previous = access(rest);
        } else if l.starts_with("Read of size") || l.starts_with("Write of size") {
            r.current = access(l).ok_or_else(|| format!("a ThreadSanitizer line that does not parse: `{l}`"))?;
        }
    }
    run.reports.extend(current);
    Ok(run)
}

/// `Write of size 8 at 0x7b0400000010 by thread T2:` (or `read`, `by main thread`).
fn access(l: &str) -> Option<Access> {
    let kind = if l.to_ascii_lowercase().starts_with("write") { AccessKind::Write } else { AccessKind::Read };
    let addr = l.split(" at 0x").nth(1)?.split_whitespace().next()?;
    let addr = u64::from_str_radix(addr, 16).ok()?;
    let thread = match l.split(" by thread T").nth(1) {
        Some(t) => t.trim_end_matches(':').split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?,
        None => 0,
    };
    Some(Access { kind, addr, thread })
}

/// The event of `trace` that each report's later access is, in report order: the first
/// event of that thread, kind and cell that comes after an event matching the earlier
/// access (or the first such event when the earlier access is unknown).
///
/// # Errors
/// A report that names no event of the trace.
pub fn reported_events(trace: &[Event], run: &Run) -> Result<Vec<Option<EventIdx>>, String> {
    let order = creation_order(trace);
    let cell_of = |a: u64| run.objects.iter().find(|(_, (base, cells))| a >= *base && a < base + 8 * (cells + 1)).map(|(o, (base, _))| (*o, (a - base) / 8));
    let matches = |e: &Event, x: &Access| {
        let EventKind::Access(k, addr) = e.kind else { return false };
        let at = match addr {
            Addr::Field(o, f) => (u64::from(o.0), u64::from(f.0)),
            Addr::Index(o, i) => (u64::from(o.0), u64::try_from(i).unwrap_or(u64::MAX)),
        };
        let thread = x.thread.checked_sub(1).and_then(|t| order.get(t as usize));
        k == x.kind && Some(at) == cell_of(x.addr) && thread == Some(&e.thread)
    };
    run.reports
        .iter()
        .map(|r| {
            let after = r.previous.and_then(|p| trace.iter().position(|e| matches(e, &p))).unwrap_or(0);
            let found = trace.iter().skip(after).find(|e| matches(e, &r.current)).or_else(|| trace.iter().find(|e| matches(e, &r.current)));
            found.map(|e| Some(e.idx)).ok_or_else(|| format!("ThreadSanitizer reported an access that is no event of the trace: {r:?}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_read_with_both_accesses() {
        let err = "==================\nWARNING: ThreadSanitizer: data race (pid=1)\n  Read of size 8 at 0x7b0400000018 by thread T2:\n    #0 <null> <null> (replay+0x120f)\n\n  Previous write of size 8 at 0x7b0400000018 by thread T1:\n    #0 <null> <null> (replay+0x1281)\n\n==================\nWARNING: ThreadSanitizer: lock-order-inversion\n";
        let run = parse("racefuzz-object 0 0x7b0400000010 3\n", err).unwrap();
        let read = Access { kind: AccessKind::Read, addr: 0x7b04_0000_0018, thread: 2 };
        let write = Access { kind: AccessKind::Write, thread: 1, ..read };
        assert_eq!(run.reports, vec![Report { current: read, previous: Some(write) }]);
        assert_eq!(run.objects, [(0, (0x7b04_0000_0010, 3))].into());
    }
}
