//! A replay server: one process of a program's compiled replay that replays many traces,
//! so the tool's start-up (ThreadSanitizer's shadow memory, Valgrind's JIT and its
//! preloads) is paid once per [`TRACES_PER_SERVER`] traces instead of once per trace.
//!
//! The replay started as `replay --serve MODE` reads one trace per line ([`super::export::encode`])
//! and answers each with what the per-trace replay prints, then a line
//! `racefuzz-done STATUS` (the replay's wait status), all on its standard error (its
//! standard output is made the same). `MODE` is the tool's ([`super::ReplayTool::server`]):
//!
//! - `fork`: each trace in a child forked while the server has one thread (glibc's
//!   `_Fork`: no atfork handlers, which in ThreadSanitizer cost 4 ms a fork), so every
//!   trace starts from the same state as a fresh process, minus the start-up. Valgrind
//!   follows a fork without `--trace-children` (no `exec`), and the child writes its own
//!   errors and closing tags to the same XML descriptor.
//! - `inline`: the traces one after another in the server's own process, each with objects,
//!   locks and threads of its own (nothing is freed, so no address is reused) and every
//!   thread joined before the next trace starts, so all of one trace happens before the
//!   next. What remains shared is the tool's own state: its thread numbers go on (the
//!   replay prints each thread's system id, [`super::run::Output::threads`], which
//!   ThreadSanitizer's reports name too), and its clocks advance, which is why a server
//!   is replaced after [`TRACES_PER_SERVER`] traces: ThreadSanitizer (v3) resets all its
//!   shadow state when one of its 14-bit epochs overflows, which loses races that span the
//!   reset, and a trace's replay advances an epoch by at most a few dozen ticks.
//!
//! Every failure is the trace's: a child that crashes or fails is its status; a server that
//! dies, hangs past the timeout or answers garbage fails the trace it was given and is
//! replaced for the next one. `tests/real.rs` checks that both modes give exactly the
//! per-trace replay's reports on generated programs.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::run::{objects, threads, Output};
use super::ReplayError;
use crate::external::{kill_group, status_within_a_second};

/// How many traces one server replays before it is replaced (see the module docs).
pub const TRACES_PER_SERVER: u64 = 200;

/// A running server.
pub struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<std::io::Result<String>>,
    served: u64,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("pid", &self.child.id()).field("served", &self.served).finish()
    }
}

impl Server {
    /// Starts `command` (a replay with `--serve MODE`, or a tool around one) in a process
    /// group of its own.
    ///
    /// # Errors
    /// [`ReplayError::Run`] when it cannot start.
    pub fn start(mut command: Command) -> Result<Server, ReplayError> {
        let shown = format!("{command:?}");
        let cannot = |why: String| ReplayError::Run(format!("cannot start the replay server {shown}: {why}"));
        let mut child = command.process_group(0).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().map_err(|e| cannot(e.to_string()))?;
        let (Some(stdin), Some(stderr)) = (child.stdin.take(), child.stderr.take()) else {
            kill_group(&mut child);
            return Err(cannot("no pipes".into()));
        };
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Server { child, stdin, lines: rx, served: 0 })
    }

    /// Whether it has replayed its share of traces ([`TRACES_PER_SERVER`]).
    pub fn spent(&self) -> bool {
        self.served >= TRACES_PER_SERVER
    }

    /// Replays the trace `arg` (one line): what it printed, if it exited successfully
    /// within `timeout`.
    ///
    /// # Errors
    /// [`ReplayError::Run`]: the replay failed or crashed, or the server died or outlived
    /// the timeout (the caller must then drop the server: [`Server::usable`] says so);
    /// [`ReplayError::Parse`] on an object line that does not parse.
    pub fn replay(&mut self, arg: &str, timeout: Duration) -> Result<Output, ReplayError> {
        self.served += 1;
        let start = Instant::now();
        if writeln!(self.stdin, "{arg}").and_then(|()| self.stdin.flush()).is_err() {
            return Err(self.died(String::new()));
        }
        let mut text = String::new();
        let status = loop {
            match self.lines.recv_timeout(timeout.saturating_sub(start.elapsed())) {
                Ok(Ok(line)) => match line.strip_prefix("racefuzz-done ") {
                    Some(s) => break s.trim().parse::<i32>().map_err(|_| ReplayError::Run(format!("the replay server answered `{line}`")))?,
                    None => {
                        text.push_str(&line);
                        text.push('\n');
                    }
                },
                Ok(Err(e)) => return Err(ReplayError::Run(format!("the replay server's output cannot be read: {e}"))),
                Err(RecvTimeoutError::Timeout) => {
                    kill_group(&mut self.child);
                    return Err(ReplayError::Run(format!("the replay: {}", crate::external::Failure::Timeout(timeout))));
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.died(text)),
            }
        };
        let status = ExitStatus::from_raw(status);
        if !status.success() {
            return Err(super::run::failed(&status.to_string(), status.code(), &text));
        }
        Ok(Output { objects: objects(&text)?, threads: threads(&text)?, stdout: text.clone(), stderr: text })
    }

    /// Whether it can take another trace: it is running (a failed trace may have killed it).
    pub fn usable(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The failure of a server that stopped answering: its exit status (an `inline` replay
    /// that crashed takes the server with it), once it exits.
    fn died(&mut self, text: String) -> ReplayError {
        let status = status_within_a_second(&mut self.child).unwrap_or_else(|| "its output closed (killed)".into());
        super::run::failed(&status, None, &text)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        kill_group(&mut self.child);
    }
}
