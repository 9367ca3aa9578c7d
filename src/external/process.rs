//! Running an untrusted process and reading its answer: a command per input file
//! ([`run_on_file`], and [`PerTrace`] for a detector) or one long-lived process speaking
//! JSON Lines ([`Persistent`]); every way it can fail is a [`Failure`]. The external
//! detector and the external static analysis share this plumbing.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::scratch::Scratch;

/// The version of the persistent protocol; every request carries it, and a response with
/// another version is a [`Failure::Garbage`].
pub const PROTOCOL_VERSION: u32 = 1;

/// The default time one trace may take (`--detector-timeout`, `RACEFUZZ_DETECTOR_TIMEOUT`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How many bytes of a failing process's output a [`Failure`] keeps (its last bytes).
const TAIL: usize = 2_000;

/// Why an external detector gave no answer for a trace.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// The command could not be started.
    #[error("cannot start `{command}`: {why}")]
    Spawn {
        /// The command line.
        command: String,
        /// The operating system's reason.
        why: String,
    },
    /// It ran longer than its timeout and was killed.
    #[error("no answer within {}s (killed)", .0.as_secs_f64())]
    Timeout(Duration),
    /// It exited with a failure status (or was killed by a signal).
    #[error("exited with {status}{}", if stderr.is_empty() { String::new() } else { format!("; its stderr ends: {stderr}") })]
    Crash {
        /// The exit status, as the OS prints it.
        status: String,
        /// The last bytes of its standard error.
        stderr: String,
    },
    /// It answered, but the answer does not parse.
    #[error("output that does not parse: {why}: `{line}`")]
    Garbage {
        /// The offending line (its first 2,000 characters).
        line: String,
        /// What is wrong with it.
        why: String,
    },
}

/// Where a reported location is in a line of the detector's output: literal text around
/// one `{loc}` (a decimal number), `*` matching any text. The default,
/// [`Pattern::std_event`], takes every line that echoes an STD event and reads its `loc`
/// (`Race detected at event 2 : T1|w(V1)|2` → 2), as STD-reading tools print their
/// reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// A line that contains `thread|op(decor)|loc`: the last such event's `loc`.
    StdEvent,
    /// Literal parts between `*`s, with `{loc}` in exactly one of them (it takes the
    /// longest run of digits that lets the rest match).
    Glob {
        /// The text as given.
        text: String,
    },
}

/// A report pattern without exactly one `{loc}`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the pattern `{text}` must contain `{{loc}}` exactly once (it has {n})")]
pub struct PatternError {
    /// The pattern as given.
    pub text: String,
    /// How many `{loc}` it has.
    pub n: usize,
}

impl Pattern {
    /// The default: an echoed STD event.
    pub fn std_event() -> Self {
        Pattern::StdEvent
    }

    /// A glob with one `{loc}`, e.g. `*race at loc {loc}*`.
    ///
    /// # Errors
    /// [`PatternError`] when `{loc}` is missing or repeated.
    pub fn glob(text: &str) -> Result<Self, PatternError> {
        match text.matches("{loc}").count() {
            1 => Ok(Pattern::Glob { text: text.to_string() }),
            n => Err(PatternError { text: text.to_string(), n }),
        }
    }

    /// The location a line reports, if it is a report.
    pub fn loc(&self, line: &str) -> Option<u64> {
        match self {
            Pattern::StdEvent => line.match_indices('|').filter_map(|(i, _)| std_event_before(line, i)).next_back(),
            Pattern::Glob { text } => glob_loc(text, line),
        }
    }
}

/// If `line[..bar]` ends with `thread|op(decor)` and `line[bar+1..]` starts with digits: those
/// digits (the event's `loc`).
fn std_event_before(line: &str, bar: usize) -> Option<u64> {
    let digits: String = line[bar + 1..].chars().take_while(char::is_ascii_digit).collect();
    let head = &line[..bar];
    let op = head.strip_suffix(')')?;
    let open = op.rfind('(')?;
    let (name_part, decor) = (&op[..open], &op[open + 1..]);
    let (thread, op) = name_part.rsplit_once('|')?;
    let thread = thread.rsplit(|c: char| c.is_whitespace() || c == ':').next()?;
    let ok = ["r", "w", "acq", "rel", "fork", "join", "begin", "end"].contains(&op) && !decor.is_empty() && !thread.is_empty() && !digits.is_empty();
    ok.then(|| digits.parse().ok()).flatten()
}

/// Matches `line` against a glob whose parts are separated by `*`; the part holding
/// `{loc}` matches digits there. Anchored at both ends (use `*` to float).
fn glob_loc(glob: &str, line: &str) -> Option<u64> {
    fn go(parts: &[&str], line: &str, anchored: bool) -> Option<Option<u64>> {
        let Some((first, rest)) = parts.split_first() else { return line.is_empty().then_some(None) };
        let starts: Vec<usize> = if anchored { vec![0] } else { (0..=line.len()).filter(|&i| line.is_char_boundary(i)).collect() };
        for s in starts {
            let Some(tail) = part_match(first, &line[s..]) else { continue };
            for (consumed, loc) in tail {
                if let Some(found) = go(rest, &line[s + consumed..], false) {
                    return Some(loc.or(found));
                }
            }
        }
        None
    }
    let parts: Vec<&str> = glob.split('*').collect();
    go(&parts, line, true).flatten()
}

/// Ways `part` (literal text, perhaps with `{loc}`) matches a prefix of `s`: bytes
/// consumed and the number read.
fn part_match(part: &str, s: &str) -> Option<Vec<(usize, Option<u64>)>> {
    let Some((before, after)) = part.split_once("{loc}") else { return s.starts_with(part).then(|| vec![(part.len(), None)]) };
    let rest = s.strip_prefix(before)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let ways: Vec<_> =
        (1..=digits).rev().filter(|&n| rest[n..].starts_with(after)).filter_map(|n| rest[..n].parse().ok().map(|v| (before.len() + n + after.len(), Some(v)))).collect();
    (!ways.is_empty()).then_some(ways)
}

/// A command run once per trace on a file.
#[derive(Clone, Debug)]
pub struct PerTrace {
    /// The command line, with `{}` where the trace file's path goes.
    pub command: String,
    /// How reports are read from its output.
    pub pattern: Pattern,
    /// The time one run may take.
    pub timeout: Duration,
    /// Where trace files are written (a scratch folder, never the source tree; removed
    /// with the last clone).
    pub scratch: Arc<Scratch>,
}

impl PerTrace {
    /// Writes `trace` (its STD text) to a file named `name` in the scratch folder, runs the
    /// command on it, and returns every reported location, in the order printed.
    ///
    /// # Errors
    /// A [`Failure`] when the command cannot start, crashes, times out or prints a report
    /// line whose location does not parse.
    pub fn run(&self, name: &str, trace: &str) -> Result<Vec<u64>, Failure> {
        let out = run_on_file(&self.command, self.timeout, &self.scratch.path().join(name), trace)?;
        Ok(out.lines().filter_map(|l| self.pattern.loc(l)).collect())
    }
}

/// Writes `text` to the file `path` (its folder is created), runs `command` through `sh -c`
/// with the file's path in place of `{}`, and returns its standard output. The file is
/// removed after a successful run and kept after a failed one, to look at.
///
/// # Errors
/// A [`Failure`] when the file cannot be written, or the command cannot start, exits with
/// a failure status, or outlives `timeout` (it is killed, with every process it started).
pub fn run_on_file(command: &str, timeout: Duration, path: &Path, text: &str) -> Result<String, Failure> {
    path.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, text))
        .map_err(|e| Failure::Spawn { command: command.to_string(), why: format!("cannot write the input file {}: {e}", path.display()) })?;
    let out = run_command(&substitute(command, path), timeout)?;
    let _ = std::fs::remove_file(path);
    Ok(out)
}

/// Runs `line` through `sh -c` in a process group of its own and returns its standard
/// output.
///
/// # Errors
/// A [`Failure`] when it cannot start, exits with a failure status, or outlives `timeout`
/// (it is killed, with every process it started).
pub(super) fn run_command(line: &str, timeout: Duration) -> Result<String, Failure> {
    let child = Command::new("sh")
        .arg("-c")
        .arg(line)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Failure::Spawn { command: line.to_string(), why: e.to_string() })?;
    let (status, out, err) = wait_with_timeout(child, timeout)?;
    if !status.success() {
        return Err(Failure::Crash { status: status.to_string(), stderr: tail(&err) });
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `command` with every `{}` replaced by `path`, single-quoted for `sh`.
pub(super) fn substitute(command: &str, path: &Path) -> String {
    let quoted = format!("'{}'", path.display().to_string().replace('\'', r"'\''"));
    command.replace("{}", &quoted)
}

/// Waits for `child`, reading its output on threads (a full pipe must not block it), and
/// kills it after `timeout`, with every process it started if it leads a process group
/// (`process_group(0)` at spawn). Also how ThreadSanitizer's replays run (the `tsan` module, above this one).
///
/// # Errors
/// [`Failure::Timeout`] when it outlives `timeout`; [`Failure::Crash`] when its status
/// cannot be read.
pub fn wait_with_timeout(mut child: Child, timeout: Duration) -> Result<(ExitStatus, Vec<u8>, Vec<u8>), Failure> {
    let drain = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut buf = vec![];
            if let Some(mut r) = r {
                let _ = r.read_to_end(&mut buf);
            }
            buf
        })
    };
    let out = drain(child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let start = Instant::now();
    let mut nap = Duration::from_micros(200);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if start.elapsed() >= timeout => {
                kill_group(&mut child);
                return Err(Failure::Timeout(timeout));
            }
            Ok(None) => {
                std::thread::sleep(nap);
                // Capped low: many runs take 10–20 ms (a TSan replay, a small per-trace
                // detector), and a longer nap would add up to its length to each.
                nap = (nap * 2).min(Duration::from_millis(2));
            }
            Err(e) => return Err(Failure::Crash { status: format!("an unknown status ({e})"), stderr: String::new() }),
        }
    };
    Ok((status, out.join().unwrap_or_default(), err.join().unwrap_or_default()))
}

/// The last [`TAIL`] bytes of `bytes`, as text.
fn tail(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let cut = s.char_indices().map(|(i, _)| i).find(|&i| s.len() - i <= TAIL).unwrap_or(s.len());
    s[cut..].trim().to_string()
}

/// One request of the persistent protocol: a trace.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Request<'a> {
    /// [`PROTOCOL_VERSION`].
    pub version: u32,
    /// Numbers requests; the response must repeat it.
    pub id: u64,
    /// The trace in STD, one event per line (the same text as a per-trace file).
    pub std: &'a str,
}

/// One response of the persistent protocol.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Response {
    /// [`PROTOCOL_VERSION`].
    pub version: u32,
    /// The request's id.
    pub id: u64,
    /// The `loc` of every event the detector flags as completing a race.
    pub races: Vec<u64>,
}

/// What every response of the persistent protocol carries, read before the rest (so that
/// a response of another version or for another request says so).
#[derive(serde::Deserialize)]
struct Envelope {
    version: u32,
    id: u64,
}

/// A long-lived process speaking the persistent protocol (a detector or a static analysis).
pub struct Persistent {
    command: String,
    timeout: Duration,
    next_id: u64,
    running: Option<Running>,
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
}

impl Persistent {
    /// A detector started by `command` (through `sh -c`) at its first request.
    pub fn new(command: &str, timeout: Duration) -> Self {
        Persistent { command: command.to_string(), timeout, next_id: 0, running: None }
    }

    fn start(&mut self) -> Result<&mut Running, Failure> {
        if self.running.is_none() {
            let mut child = Command::new("sh")
                .arg("-c")
                .arg(&self.command)
                .process_group(0)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .map_err(|e| Failure::Spawn { command: self.command.clone(), why: e.to_string() })?;
            let stdin = child.stdin.take().ok_or_else(|| Failure::Spawn { command: self.command.clone(), why: "no standard input".into() })?;
            let stdout = child.stdout.take().ok_or_else(|| Failure::Spawn { command: self.command.clone(), why: "no standard output".into() })?;
            let (tx, rx) = channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines() {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            self.running = Some(Running { child, stdin, lines: rx });
        }
        self.running.as_mut().ok_or_else(|| Failure::Spawn { command: self.command.clone(), why: "internal: not started".into() })
    }

    /// Stops the process (it is restarted at the next request).
    fn stop(&mut self) {
        if let Some(mut r) = self.running.take() {
            kill_group(&mut r.child);
        }
    }

    /// Sends one trace and returns the flagged locations.
    ///
    /// # Errors
    /// A [`Failure`]; after one, the process is stopped and the next request starts a new one.
    pub fn run(&mut self, std: &str) -> Result<Vec<u64>, Failure> {
        self.ask(|id| Request { version: PROTOCOL_VERSION, id, std }).map(|r: Response| r.races)
    }

    /// Sends one request, made by `request` from its id, and reads the response: one line,
    /// a JSON object with the [`PROTOCOL_VERSION`] and the request's id, read as an `A`.
    ///
    /// # Errors
    /// A [`Failure`]; after one, the process is stopped and the next request starts a new one.
    pub fn ask<Q: serde::Serialize, A: serde::de::DeserializeOwned>(&mut self, request: impl FnOnce(u64) -> Q) -> Result<A, Failure> {
        self.next_id += 1;
        let id = self.next_id;
        let timeout = self.timeout;
        let result = serde_json::to_string(&request(id))
            .map_err(|e| Failure::Garbage { line: String::new(), why: format!("racefuzz internal bug: a request does not serialize: {e}") })
            .and_then(|q| self.exchange(id, &q, timeout));
        if result.is_err() {
            self.stop();
        }
        result
    }

    fn exchange<A: serde::de::DeserializeOwned>(&mut self, id: u64, request: &str, timeout: Duration) -> Result<A, Failure> {
        let r = self.start()?;
        // A failed write is not yet a verdict: a process that answers and then exits may
        // have closed its input before reading all of it; its answer is read first.
        let wrote = writeln!(r.stdin, "{request}").and_then(|()| r.stdin.flush()).is_ok();
        let line = match r.lines.recv_timeout(if wrote { timeout } else { timeout.min(Duration::from_secs(1)) }) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => return Err(Failure::Garbage { line: String::new(), why: format!("unreadable output: {e}") }),
            Err(RecvTimeoutError::Timeout) if wrote => return Err(Failure::Timeout(timeout)),
            Err(RecvTimeoutError::Timeout) => return Err(exited(r)),
            Err(RecvTimeoutError::Disconnected) => return Err(exited(r)),
        };
        let garbage = |why: String| Failure::Garbage { line: line.chars().take(TAIL).collect(), why };
        let envelope: Envelope = serde_json::from_str(&line).map_err(|e| garbage(e.to_string()))?;
        if envelope.version != PROTOCOL_VERSION {
            return Err(garbage(format!("protocol version {} (racefuzz speaks {PROTOCOL_VERSION})", envelope.version)));
        }
        if envelope.id != id {
            return Err(garbage(format!("the response is for request {}, not {id}", envelope.id)));
        }
        serde_json::from_str(&line).map_err(|e| garbage(e.to_string()))
    }
}

impl Drop for Persistent {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The failure of a process that closed its output or input: its exit status, if it
/// exits within a second; otherwise it is killed.
fn exited(r: &mut Running) -> Failure {
    let status = status_within_a_second(&mut r.child).unwrap_or_else(|| "no status: it closed its standard input or output and was killed".to_string());
    // Its stderr is racefuzz's own (inherited), so there is none to quote.
    Failure::Crash { status, stderr: String::new() }
}

/// The exit status of `child`, which closed its output or input, as text (or why it is
/// unknown) if it exits within a second; `None` when it did not, and was killed with its
/// process group.
pub fn status_within_a_second(child: &mut Child) -> Option<String> {
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s.to_string()),
            Ok(None) if start.elapsed() < Duration::from_secs(1) => std::thread::sleep(Duration::from_millis(2)),
            Ok(None) => {
                kill_group(child);
                return None;
            }
            Err(e) => return Some(format!("an unknown status ({e})")),
        }
    }
}

/// Kills `child` and every process it started (its process group: `sh -c` forks the
/// command's processes, a fork server its current child, and killing the leader alone would
/// leave them running), then reaps it.
pub fn kill_group(child: &mut Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) on the process group the child leads (`process_group(0)` at spawn);
        // it touches no memory of ours.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> Arc<Scratch> {
        Arc::new(Scratch::named("external"))
    }

    fn per_trace(command: &str, timeout_ms: u64) -> PerTrace {
        PerTrace { command: command.into(), pattern: Pattern::std_event(), timeout: Duration::from_millis(timeout_ms), scratch: scratch() }
    }

    #[test]
    fn the_default_pattern_reads_echoed_std_events() {
        let p = Pattern::std_event();
        assert_eq!(p.loc("Race detected at event 2 : T1|w(V1)|2"), Some(2));
        assert_eq!(p.loc("T0|acq(L3)|17"), Some(17));
        assert_eq!(p.loc("between T0|w(V1)|1 and T1|r(V1)|12"), Some(12));
        assert_eq!(p.loc("no races | 0 | done"), None);
        assert_eq!(p.loc("T1|x(V1)|2"), None);
        assert_eq!(p.loc("T1|w()|2"), None);
        assert_eq!(p.loc(""), None);
    }

    #[test]
    fn a_glob_reads_its_loc_and_is_anchored() {
        let p = Pattern::glob("*race at {loc}*").unwrap();
        assert_eq!(p.loc("WARNING: race at 12 (w/w)"), Some(12));
        assert_eq!(p.loc("race at x"), None);
        let exact = Pattern::glob("{loc}").unwrap();
        assert_eq!(exact.loc("42"), Some(42));
        assert_eq!(exact.loc("42 "), None);
        assert_eq!(Pattern::glob("*race at*").unwrap_err().to_string(), "the pattern `*race at*` must contain `{loc}` exactly once (it has 0)");
        assert!(Pattern::glob("{loc}{loc}").is_err());
    }

    #[test]
    fn a_per_trace_command_reads_the_file_it_is_given() {
        let d = per_trace("grep '|w(' {}", 5_000);
        assert_eq!(d.run("t1.std", "T0|w(V1)|1\nT1|r(V1)|2\nT1|w(V1)|3\n"), Ok(vec![1, 3]));
        // grep exits 1 when nothing matches: a failure status is a crash, whatever the tool meant.
        assert!(matches!(d.run("t2.std", "T0|r(V1)|1\n"), Err(Failure::Crash { .. })));
    }

    #[test]
    fn crashes_timeouts_and_missing_commands_are_failures() {
        let crash = per_trace("echo oops >&2; exit 3", 5_000).run("c.std", "").unwrap_err();
        assert_eq!(crash, Failure::Crash { status: "exit status: 3".into(), stderr: "oops".into() });
        assert_eq!(per_trace("sleep 5", 100).run("s.std", ""), Err(Failure::Timeout(Duration::from_millis(100))));
        assert!(matches!(per_trace("/nonexistent/detector {}", 5_000).run("n.std", ""), Err(Failure::Crash { .. })));
    }

    #[test]
    fn the_persistent_protocol_round_trips_and_recovers() {
        // A detector in sh: flags loc 2 of every trace, echoing the request's id.
        let script = r#"while read -r line; do id=$(printf '%s\n' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/'); echo "{\"version\":1,\"id\":$id,\"races\":[2]}"; done"#;
        let mut d = Persistent::new(script, Duration::from_secs(5));
        assert_eq!(d.run("T0|w(V1)|1\nT1|w(V1)|2\n"), Ok(vec![2]));
        assert_eq!(d.run("T0|w(V1)|1\n"), Ok(vec![2]));
        let mut garbage = Persistent::new("while read -r line; do echo hello; done", Duration::from_secs(5));
        assert!(matches!(garbage.run("T0|w(V1)|1\n"), Err(Failure::Garbage { .. })));
        let mut wrong = Persistent::new(r#"while read -r line; do echo '{"version":2,"id":1,"races":[]}'; done"#, Duration::from_secs(5));
        assert!(matches!(wrong.run(""), Err(Failure::Garbage { why, .. }) if why.contains("version 2")));
        let mut silent = Persistent::new("sleep 5", Duration::from_millis(100));
        assert_eq!(silent.run(""), Err(Failure::Timeout(Duration::from_millis(100))));
        let mut dead = Persistent::new("exit 0", Duration::from_secs(5));
        assert!(matches!(dead.run(""), Err(Failure::Crash { .. })));
    }
}
