//! Building a program's replay once and running it on each trace under a tool, and reading
//! the races the tool reports back as events of the trace: what every [`super::ReplayTool`]
//! shares. A tool says how to build, how to run and how to read its reports; the object
//! lines the replay prints (C or Go), the thread numbering and the mapping to events are
//! the same for all of them.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use race_oracles::lang::AccessKind;
use race_oracles::machine::{Addr, Event, EventIdx, EventKind};

use super::export::creation_order;
use super::{Compiler, Language, ReplayError};

/// The thread of a reported access, numbered as the replay creates them
/// ([`creation_order`]): `None` is `main`, `Some(0)` the first thread it creates. Each tool
/// numbers threads from its own base (ThreadSanitizer's `T1`, Helgrind's `#2` and DRD's `2`
/// are `Some(0)`); its parser subtracts it.
pub type ToolThread = Option<u32>;

/// One access of a report: read or write, the address, the thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Read or write.
    pub kind: AccessKind,
    /// The address.
    pub addr: u64,
    /// The thread.
    pub thread: ToolThread,
    /// The `.race` line of the access, when the tool's stack names the replay's function
    /// for it (`line12_w`, `crate::replay::export`); it tells apart two accesses of one
    /// thread, kind and cell when the tool names no earlier access (DRD).
    pub line: Option<u32>,
    /// Whether the tool calls it atomic (ThreadSanitizer's `Atomic write of size 8`), when
    /// it says: a plain access it names is then never taken for an atomic event of the same
    /// thread and cell, nor an atomic one for a plain event.
    pub atomic: Option<bool>,
}

/// The `.race` line in a replay function's name (`line12_w` → 12), if it is one.
pub fn line_of_function(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("line")?;
    let digits: &str = &rest[..rest.find('_')?];
    digits.parse().ok()
}

/// A data race report: the access that completed it and the earlier one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Report {
    /// The later access.
    pub current: Access,
    /// The earlier access, when the tool names it (ThreadSanitizer may have forgotten it;
    /// DRD names only the other thread's segment).
    pub previous: Option<Access>,
}

/// A report as events of the trace: the event of its later access, and of its earlier one
/// when the tool names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReportedPair {
    /// The event that completed the race.
    pub at: EventIdx,
    /// The earlier access's event, if the tool named the access.
    pub partner: Option<EventIdx>,
}

/// Builds `source` with `compiler` into `dir` (created), once per text and compiler: a
/// binary already there for the same key is reused.
///
/// # Errors
/// [`ReplayError::Compile`] with the compiler's message; [`ReplayError::Io`].
pub fn compile(source: &str, compiler: &Compiler, dir: &Path) -> Result<PathBuf, ReplayError> {
    let key = race_oracles::fingerprint::of(&format!("{}\n{source}", compiler.command_line()));
    let binary = dir.join(format!("{key:032x}"));
    if binary.exists() {
        return Ok(binary);
    }
    let io = |what: &str, p: &Path| {
        let what = format!("{what} {}", p.display());
        move |e: std::io::Error| ReplayError::Io(what, e.to_string())
    };
    std::fs::create_dir_all(dir).map_err(io("cannot create", dir))?;
    // Jobs may compile the same text at once: each writes files of its own, and the
    // binary appears by a rename, complete, so a concurrent run never sees half a binary.
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let ext = match compiler.language {
        Language::C => "c",
        Language::Go => "go",
    };
    let file = dir.join(format!("{key:032x}-{n}.{ext}"));
    std::fs::write(&file, source).map_err(io("cannot write", &file))?;
    let partial = dir.join(format!("{key:032x}-{n}.partial"));
    // In the source's folder (so names relative to it), so that nothing the compiler looks
    // for around it (a Go module's go.mod) comes from where racefuzz happens to run.
    let name = |p: &Path| p.file_name().map(std::ffi::OsStr::to_os_string).unwrap_or_default();
    let out = Command::new(&compiler.program)
        .args(&compiler.args)
        .arg("-o")
        .arg(name(&partial))
        .arg(name(&file))
        .current_dir(dir)
        .envs(compiler.env.iter().map(|(k, v)| (k, v)))
        .output()
        .map_err(|e| ReplayError::Compile { cc: compiler.program.clone(), message: format!("cannot run it: {e}") })?;
    if !out.status.success() {
        let message = format!("on {}: {}", file.display(), String::from_utf8_lossy(&out.stderr).trim());
        return Err(ReplayError::Compile { cc: compiler.command_line(), message });
    }
    std::fs::rename(&partial, &binary).map_err(io("cannot move", &partial))?;
    Ok(binary)
}

/// What one run printed: its standard output and error, and each object's base address
/// and cells (the replay's `racefuzz-object` lines).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Output {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Object number → (base address, cells).
    pub objects: BTreeMap<u64, (u64, u64)>,
    /// Each thread's system id → its place in the creation order (the replay's
    /// `racefuzz-thread` lines): how a tool that numbers threads on from earlier traces in
    /// one process names them (`super::serve`).
    pub threads: BTreeMap<u64, u32>,
}

/// Runs `command` (the replay, or a tool around it) in a process group of its own, killed
/// with everything it started after `timeout`.
///
/// # Errors
/// [`ReplayError::Run`]: it cannot start, fails, or outlives the timeout; an object line
/// that does not parse.
pub fn run(mut command: Command, timeout: Duration) -> Result<Output, ReplayError> {
    let child = command
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ReplayError::Run(format!("cannot start {command:?}: {e}")))?;
    let (status, out, err) = crate::external::wait_with_timeout(child, timeout).map_err(|f| ReplayError::Run(format!("the replay: {f}")))?;
    let (stdout, stderr) = (String::from_utf8_lossy(&out).into_owned(), String::from_utf8_lossy(&err).into_owned());
    if !status.success() {
        return Err(failed(&status.to_string(), status.code(), &stderr));
    }
    Ok(Output { objects: objects(&stdout)?, threads: threads(&stdout)?, stdout, stderr })
}

/// A replay that exited with `status` (its exit code `code`), having printed `text`: a
/// diverged replay ([`super::export::DIVERGED`], or its `racefuzz-diverged` line when a
/// server died of it) or a failed one.
pub fn failed(status: &str, code: Option<i32>, text: &str) -> ReplayError {
    match text.lines().find_map(|l| l.strip_prefix("racefuzz-diverged: ")) {
        Some(why) if code.is_none_or(|c| c == super::export::DIVERGED) => ReplayError::Diverged(why.to_string()),
        _ => ReplayError::Run(format!("the replay exited with {status}: {}", text.trim())),
    }
}

/// The replay's `racefuzz-object N BASE CELLS` lines.
///
/// # Errors
/// [`ReplayError::Parse`] on a line that starts so but does not parse.
pub fn objects(out: &str) -> Result<BTreeMap<u64, (u64, u64)>, ReplayError> {
    let mut objects = BTreeMap::new();
    for l in out.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if let ["racefuzz-object", o, base, cells] = w[..] {
            let bad = || ReplayError::Parse(format!("bad object line `{l}`"));
            let base = u64::from_str_radix(base.trim_start_matches("0x"), 16).map_err(|_| bad())?;
            objects.insert(o.parse().map_err(|_| bad())?, (base, cells.parse().map_err(|_| bad())?));
        }
    }
    Ok(objects)
}

/// The replay's `racefuzz-thread RANK TID` lines: system id → place in the creation order.
///
/// # Errors
/// [`ReplayError::Parse`] on a line that starts so but does not parse.
pub fn threads(out: &str) -> Result<BTreeMap<u64, u32>, ReplayError> {
    let mut threads = BTreeMap::new();
    for l in out.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if let ["racefuzz-thread", rank, tid] = w[..] {
            let bad = || ReplayError::Parse(format!("bad thread line `{l}`"));
            threads.insert(tid.parse().map_err(|_| bad())?, rank.parse().map_err(|_| bad())?);
        }
    }
    Ok(threads)
}

/// Each report as events of `trace`, in report order.
///
/// A tool reports a race when its later access runs, and the replay runs the trace's
/// events in order, so reports come in the order of their later accesses: each report's
/// later access is sought at or after the previous report's. Among the events there of that
/// thread, kind, cell (and line, when the tool names it), it is the first one after an
/// event matching the earlier access when the tool names one; otherwise the first one with
/// a conflicting access of another thread before it, since no detector can report an
/// access that conflicts with nothing yet (a loop's iterations on one line are told apart
/// so, when DRD names no earlier access); failing that, the first one. The earlier access
/// is the last event matching it before the later one. A report that names no event after
/// the previous one is sought in the whole trace.
///
/// # Errors
/// [`ReplayError::NoEvent`]: a report that names no event of the trace.
pub fn reported_events(trace: &[Event], objects: &BTreeMap<u64, (u64, u64)>, reports: &[Report]) -> Result<Vec<ReportedPair>, ReplayError> {
    let order = creation_order(trace);
    let cell_of = |a: u64| objects.iter().find(|(_, (base, cells))| a >= *base && a < base + 8 * (cells + 1)).map(|(o, (base, _))| (*o, (a - base) / 8));
    let matches = |e: &Event, x: &Access| {
        let Some((k, addr, atomic)) = as_tool_sees(e) else { return false };
        let thread = x.thread.and_then(|t| order.get(t as usize));
        (atomic || k == x.kind) && x.atomic.is_none_or(|a| a == atomic) && Some(cell(addr)) == cell_of(x.addr) && thread == Some(&e.thread) && x.line.is_none_or(|l| l == e.line)
    };
    let conflicts_before = |at: usize| {
        let Some((k, addr, _)) = as_tool_sees(&trace[at]) else { return false };
        trace[..at]
            .iter()
            .any(|e| as_tool_sees(e).is_some_and(|(j, b, _)| e.thread != trace[at].thread && cell(b) == cell(addr) && (j == AccessKind::Write || k == AccessKind::Write)))
    };
    let mut cursor = 0;
    let mut pairs = Vec::with_capacity(reports.len());
    for r in reports {
        // The first candidate from `from` that fits the earlier access: after an event
        // matching it, or, when the tool names none, after any conflicting access.
        let fits = |i: usize| match r.previous {
            Some(p) => trace[..i].iter().any(|e| matches(e, &p)),
            None => conflicts_before(i),
        };
        let find_from = |from: usize| {
            let mut candidates = (from..trace.len()).filter(|&i| matches(&trace[i], &r.current));
            candidates.clone().find(|&i| fits(i)).or_else(|| candidates.next())
        };
        let at = find_from(cursor).or_else(|| find_from(0)).ok_or_else(|| ReplayError::NoEvent(format!("{r:?}")))?;
        cursor = at;
        let partner = r.previous.and_then(|p| trace[..at].iter().rev().find(|e| matches(e, &p))).map(|e| e.idx);
        pairs.push(ReportedPair { at: trace[at].idx, partner });
    }
    Ok(pairs)
}

/// The memory access of an event as a tool may report it: its kind, address and whether it
/// is atomic. A tool names an atomic access as a read or a write by its own rules
/// (ThreadSanitizer calls a failed CAS a write, docs/spec/atomics.md §5.1; Valgrind's tools
/// see the instruction), so a report matches an atomic event of either kind; a failed CAS
/// counts as a write for [`reported_events`]'s conflicts.
fn as_tool_sees(e: &Event) -> Option<(AccessKind, Addr, bool)> {
    match e.kind {
        EventKind::Access(k, a) => Some((k, a, false)),
        EventKind::Atomic(k, a) => Some((if k.writes() || k.is_failed_cas() { AccessKind::Write } else { AccessKind::Read }, a, true)),
        _ => None,
    }
}

/// An address as (object, cell), the replay's numbering of `racefuzz-object` lines.
fn cell(addr: Addr) -> (u64, u64) {
    match addr {
        Addr::Field(o, f) => (u64::from(o.0), u64::from(f.0)),
        Addr::Index(o, i) => (u64::from(o.0), u64::try_from(i).unwrap_or(u64::MAX)),
    }
}

#[cfg(test)]
mod tests {
    use race_oracles::clock::ThreadId;
    use race_oracles::machine::{FieldId, Moved, ObjId};

    use super::*;

    /// Thread 1 writes `o1.h` on line 10 in a loop, thread 2 reads it once on line 13
    /// (schedule `1,1,2,1`), as in a shrunk DRD witness of the 2,000-program scorecard.
    fn loop_trace() -> Vec<Event> {
        let h = Addr::Field(ObjId(1), FieldId(2));
        let at =
            |i: u32, t: u32, line: u32, k: AccessKind| Event { idx: EventIdx(i), thread: ThreadId(t), line, kind: EventKind::Access(k, h), moved: Moved::Nothing, violation: None };
        vec![at(0, 1, 10, AccessKind::Write), at(1, 1, 10, AccessKind::Write), at(2, 2, 13, AccessKind::Read), at(3, 1, 10, AccessKind::Write)]
    }

    fn access(kind: AccessKind, thread: u32, line: u32) -> Access {
        Access { kind, addr: 0x1000 + 8 * 2, thread: Some(thread), line: Some(line), atomic: None }
    }

    #[test]
    fn an_unnamed_earlier_access_maps_a_loop_report_to_the_iteration_that_conflicts() {
        let objects = BTreeMap::from([(1, (0x1000, 3))]);
        // DRD names the read (it conflicts with the first two writes), then the write after it.
        let reports = [Report { current: access(AccessKind::Read, 1, 13), previous: None }, Report { current: access(AccessKind::Write, 0, 10), previous: None }];
        let pairs = reported_events(&loop_trace(), &objects, &reports).expect("maps");
        assert_eq!(pairs.iter().map(|p| p.at.0).collect::<Vec<_>>(), [2, 3]);
        // Alone, the write report still names the iteration after the read, not the first.
        let pairs = reported_events(&loop_trace(), &objects, &reports[1..]).expect("maps");
        assert_eq!(pairs[0].at.0, 3);
    }

    #[test]
    fn a_named_earlier_access_maps_to_the_first_iteration_after_it() {
        let objects = BTreeMap::from([(1, (0x1000, 3))]);
        let reports = [Report { current: access(AccessKind::Write, 0, 10), previous: Some(access(AccessKind::Read, 1, 13)) }];
        let pairs = reported_events(&loop_trace(), &objects, &reports).expect("maps");
        assert_eq!((pairs[0].at.0, pairs[0].partner.map(|p| p.0)), (3, Some(2)));
        let none = [Report { current: access(AccessKind::Read, 0, 13), previous: None }];
        assert!(matches!(reported_events(&loop_trace(), &objects, &none), Err(ReplayError::NoEvent(_))));
    }
}
