//! Go's race detector as a system under test: a [`ReplayTool`] over the Go replay of each
//! trace (`crate::replay::go`), built by `go build -race` once per program and run once per
//! trace, whose reports (standard error) are read back as events of the trace.
//!
//! Go's race runtime is ThreadSanitizer's (compiler-rt's `tsan` built for Go; the v3
//! runtime from Go 1.19): a happens-before detector with a few shadow cells per 8 bytes and
//! a bounded history, judged like ThreadSanitizer (`fasttrack-precise`: exactly the racy
//! locations of every trace; it names both accesses, so the pairs claim applies too). What
//! it counts as synchronization is Go's: channels, `sync`, `go` statements, and every
//! `sync/atomic` operation, which is why the replay's turns are invisible to it (a plain
//! counter that only `//go:norace` functions touch; `crate::replay::go`).
//!
//! Programs with atomics: Go's `sync/atomic` is sequentially consistent only (spec/atomics.md
//! §5.5), so Go runs, and is judged on, `strengthen(p)` (§6.3: every order `seq_cst`, fences
//! dropped), never `p` itself (its catalogue entry: `Atomics::Strengthened`).
//!
//! Reports name goroutines by the race runtime's own numbers, which are neither the
//! goroutine ids of `runtime.Stack` nor the replay's order (the runtime has goroutines of
//! its own); each report also gives, for every goroutine it names, the stack that created
//! it, whose top frame is the replay's `startN` for the `n`th thread it creates
//! ([`parse`]). `main` (`by main goroutine`) makes no event of the trace.
//!
//! Building: `go build -race` with Go's build cache and `GOPATH` in racefuzz's cache
//! (`crate::external::cache_dir`), so the race-instrumented standard library is built once
//! per machine and Go version (about 10 s at first), outside the source tree and apart from
//! the user's own Go setup (`GOENV=off`, no `GOFLAGS`, GOPATH mode: the replay imports the
//! standard library only). Each replay is then linked in about a second. Running: `GORACE`
//! as [`GORACE`].

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use race_oracles::lang::AccessKind;

use crate::replay::{Access, Compiler, Language, Output, ReplayError, ReplayTool, Report, ToolThread};

/// The race runtime's options for a replay: no pause at exit (by default a racy program
/// sleeps a second before it exits, for goroutines still reporting), no failing exit
/// status (a report is an answer, not a failure; a failure is then a failure of the
/// replay), and, as for ThreadSanitizer (its `TSAN_OPTIONS`), no suppression of a
/// report whose stacks or address were reported before: every event of one `.race` line
/// runs the same Go function.
pub const GORACE: &str = "atexit_sleep_ms=0 exitcode=0 halt_on_error=0 suppress_equal_stacks=0 suppress_equal_addresses=0";

/// Go's race detector through one `go` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoRace {
    /// The `go` command (`go`, `/usr/lib/go-1.19/bin/go`).
    pub go: String,
}

/// The environment of `go build`: the build cache and `GOPATH` in racefuzz's cache, the
/// user's Go configuration (`go env -w`, `GOFLAGS`) ignored, GOPATH mode (a lone file,
/// never a module found around it), cgo on (`-race` links `runtime/cgo`), and no download
/// of another toolchain (Go 1.21 and later).
pub fn environment() -> Vec<(String, OsString)> {
    let cache = crate::external::cache_dir(&|k| std::env::var_os(k));
    vec![
        ("GOCACHE".into(), cache.join("go-build").into_os_string()),
        ("GOPATH".into(), cache.join("go").into_os_string()),
        ("GOENV".into(), "off".into()),
        ("GOFLAGS".into(), "".into()),
        ("GO111MODULE".into(), "off".into()),
        ("CGO_ENABLED".into(), "1".into()),
        ("GOTOOLCHAIN".into(), "local".into()),
    ]
}

impl ReplayTool for GoRace {
    fn name(&self) -> String {
        format!("Go race detector ({})", self.go)
    }

    fn compiler(&self) -> Compiler {
        Compiler { language: Language::Go, program: self.go.clone(), args: vec!["build".into(), "-race".into()], env: environment() }
    }

    fn command(&self, binary: &Path, arg: &str) -> Command {
        let mut c = Command::new(binary);
        c.arg(arg).env("GORACE", GORACE);
        c
    }

    fn reports(&self, out: &Output) -> Result<Vec<Report>, ReplayError> {
        parse(&out.stderr)
    }
}

/// The data race reports of a run's standard error, in order. A report:
///
/// ```text
/// WARNING: DATA RACE
/// Read at 0x00c000014098 by goroutine 8:
///   main.line5_r() ...
/// Previous write at 0x00c000014098 by goroutine 7:
///   ...
/// Goroutine 8 (running) created at:
///   main.start1()
///   ...
/// ```
///
/// # Errors
/// [`ReplayError::Parse`]: a report without its access, an access line that does not
/// parse, a goroutine with no creation stack that names a thread of the replay.
pub fn parse(err: &str) -> Result<Vec<Report>, ReplayError> {
    let mut reports = vec![];
    let mut lines = err.lines().map(str::trim);
    while lines.by_ref().any(|l| l == "WARNING: DATA RACE") {
        let block: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("==================")).collect();
        reports.push(report(&block)?);
    }
    Ok(reports)
}

/// One report, its lines after `WARNING: DATA RACE`.
fn report(block: &[&str]) -> Result<Report, ReplayError> {
    let bad = |l: &str| ReplayError::Parse(format!("a Go race report line that does not parse: `{l}`"));
    // Goroutine number → the replay's thread (its `startN`).
    let mut created = std::collections::BTreeMap::new();
    for (i, l) in block.iter().enumerate() {
        let Some(rest) = l.strip_prefix("Goroutine ").filter(|r| r.ends_with("created at:")) else { continue };
        let n: u64 = rest.split_whitespace().next().and_then(|n| n.parse().ok()).ok_or_else(|| bad(l))?;
        let top = block.get(i + 1).copied().unwrap_or("");
        let thread = top.strip_prefix("main.start").and_then(|t| t.strip_suffix("()")).and_then(|t| t.parse::<u32>().ok());
        created.insert(n, thread.ok_or_else(|| ReplayError::Parse(format!("goroutine {n} was not created by the replay's startN (its creation stack starts `{top}`)")))?);
    }
    // The stack under the access line `i`: its function names, innermost first.
    let frames = |i: usize| {
        block[i + 1..].iter().take_while(|l| !l.is_empty() && !l.starts_with("Previous ")).filter(|l| !l.starts_with(['/', '<', '['])).map(|l| l.split('(').next().unwrap_or(l))
    };
    let access = |i: usize, l: &str| -> Result<Access, ReplayError> {
        let kind = if l.to_ascii_lowercase().starts_with("write") { AccessKind::Write } else { AccessKind::Read };
        let addr = l.split(" at 0x").nth(1).and_then(|a| a.split_whitespace().next()).and_then(|a| u64::from_str_radix(a, 16).ok()).ok_or_else(|| bad(l))?;
        let by = l.split(" by ").nth(1).map(|b| b.trim_end_matches(':')).ok_or_else(|| bad(l))?;
        let thread: ToolThread = match by.strip_prefix("goroutine ") {
            None if by == "main goroutine" => None,
            None => return Err(bad(l)),
            Some(n) => {
                let n: u64 = n.parse().map_err(|_| bad(l))?;
                Some(*created.get(&n).ok_or_else(|| ReplayError::Parse(format!("goroutine {n} of `{l}` has no creation stack in its report")))?)
            }
        };
        // Go's reports do not say `Atomic`, but a `sync/atomic` function on top of the stack
        // does; the replay's `lineN_r`, `lineN_w`, `lineN_x` name the line.
        let line = frames(i).find_map(|f| f.strip_prefix("main.").and_then(crate::replay::line_of_function));
        let atomic = frames(i).next().map(|f| f.starts_with("sync/atomic."));
        Ok(Access { kind, addr, thread, line, atomic })
    };
    let mut current = None;
    let mut previous = None;
    for (i, l) in block.iter().enumerate() {
        if let Some(rest) = l.strip_prefix("Previous ") {
            previous = Some(access(i, rest)?);
        } else if l.starts_with("Read at ") || l.starts_with("Write at ") {
            current = Some(access(i, l)?);
        }
    }
    let current = current.ok_or_else(|| ReplayError::Parse(format!("a Go race report without its access: `{}`", block.join(" / "))))?;
    Ok(Report { current, previous })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_read_with_both_accesses_and_their_threads() {
        let err =
            "racefuzz-object 0 0xc000014090 2\n==================\nWARNING: DATA RACE\nRead at 0x00c000014098 by goroutine 8:\n  main.line5_r()\n      /tmp/x.go:40 +0x30\n\n\
            Previous write at 0x00c000014098 by goroutine 7:\n  main.line4_w()\n      /tmp/x.go:38 +0x33\n\n\
            Goroutine 8 (running) created at:\n  main.start1()\n      /tmp/x.go:90 +0x8e\n  main.main()\n\n\
            Goroutine 7 (finished) created at:\n  main.start0()\n      /tmp/x.go:88 +0x8e\n==================\n\
            ==================\nWARNING: DATA RACE\nWrite at 0x00c000014090 by main goroutine:\n  main.main()\n\n\
            Previous read at 0x00c000014090 by goroutine 7:\n  [failed to restore the stack]\n\n\
            Goroutine 7 (finished) created at:\n  main.start0()\n==================\nFound 2 data race(s)\n";
        let read = Access { kind: AccessKind::Read, addr: 0xc000014098, thread: Some(1), line: Some(5), atomic: Some(false) };
        let write = Access { kind: AccessKind::Write, thread: Some(0), line: Some(4), ..read };
        let main = Access { kind: AccessKind::Write, addr: 0xc000014090, thread: None, line: None, atomic: Some(false) };
        assert_eq!(
            parse(err),
            Ok(vec![
                Report { current: read, previous: Some(write) },
                Report { current: main, previous: Some(Access { kind: AccessKind::Read, thread: Some(0), atomic: None, ..main }) }
            ])
        );
        // An atomic operation: `sync/atomic` on top, the replay's line function below.
        let atomic = "WARNING: DATA RACE\nRead at 0x10 by goroutine 8:\n  main.line5_r()\n      /tmp/x.go:40 +0x30\n\n\
            Previous write at 0x10 by goroutine 7:\n  sync/atomic.CompareAndSwapInt64()\n      /usr/lib/go-1.19/src/runtime/race_amd64.s:316 +0xb\n  sync/atomic.CompareAndSwapInt64()\n      <autogenerated>:1 +0x24\n  main.atomicOp()\n  main.line9_x()\n      /tmp/x.go:60 +0x2e\n\n\
            Goroutine 8 (running) created at:\n  main.start1()\n\nGoroutine 7 (finished) created at:\n  main.start0()\n==================\n";
        let r = parse(atomic).unwrap();
        assert_eq!(r[0].previous.map(|a| (a.line, a.atomic)), Some((Some(9), Some(true))));
        assert_eq!((r[0].current.line, r[0].current.atomic), (Some(5), Some(false)));
        assert_eq!(parse("no races\n"), Ok(vec![]));
    }

    #[test]
    fn a_goroutine_the_replay_did_not_start_or_a_report_without_its_access_does_not_parse() {
        let stranger = "WARNING: DATA RACE\nRead at 0x10 by goroutine 3:\n\nGoroutine 3 (running) created at:\n  main.main()\n==================\n";
        assert!(matches!(parse(stranger), Err(ReplayError::Parse(m)) if m.contains("goroutine 3 was not created by the replay's startN")));
        let unnamed = "WARNING: DATA RACE\nRead at 0x10 by goroutine 3:\n==================\n";
        assert!(matches!(parse(unnamed), Err(ReplayError::Parse(m)) if m.contains("no creation stack")));
        assert!(matches!(parse("WARNING: DATA RACE\n  main.f()\n==================\n"), Err(ReplayError::Parse(m)) if m.contains("without its access")));
        assert!(matches!(parse("WARNING: DATA RACE\nRead at 0xZZ by goroutine 3:\n"), Err(ReplayError::Parse(_))));
    }
}
