//! ThreadSanitizer as a system under test, and every trace as a C program that replays it.
//!
//! ThreadSanitizer (`gcc -fsanitize=thread`) is a happens-before race detector with
//! documented limits: a few shadow cells per 8 bytes of memory and a bounded history of
//! earlier accesses. Judged like FastTrack (`fasttrack-precise`, docs/spec/bigfoot.md §9.1
//! O0: exactly the racy locations of every trace), it runs the trace, not the program:
//!
//! - **Export** ([`export`]): the C program of a `.race` program replays any of its
//!   traces, event by event, in the trace's order. Each thread performs its own events (an
//!   access of a field or array cell, a lock's acquire or release, a fork with
//!   `pthread_create`, a join with `pthread_join`), waiting for its turn on a *relaxed*
//!   atomic counter. ThreadSanitizer does not treat relaxed atomics as synchronization, so
//!   the happens-before it sees is exactly the trace's (locks, fork, join, and each
//!   thread's program order), and it should report exactly the trace's races. Replaying
//!   events rather than translating statements keeps the replay faithful by construction:
//!   values, calls and nondeterministic choices are already resolved in the trace, so no
//!   second semantics of the language has to agree with the machine's.
//! - **Run** ([`run`]): a program's C is compiled once ([`Tsan`]'s per-program factory;
//!   `$CC`, default `cc`) and run on each trace with symbolization off; each report's
//!   address and thread are mapped back to the event of the trace, and its location
//!   compared with the ground truth's.

pub mod export;
pub mod run;

use std::path::PathBuf;
use std::time::Duration;

use race_oracles::lang::Program;
use race_oracles::machine::{Event, EventIdx};
use race_oracles::theorems::detector::DetectorFailure;
use race_oracles::theorems::{DetectorFactory, DynamicDetector, Reported};

/// How long one replay may run.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// ThreadSanitizer as a detector factory: per program, its replay compiled once, into a
/// scratch folder of its own that goes when it does.
#[derive(Debug)]
pub struct Tsan {
    /// The C compiler.
    pub cc: String,
    /// Where compiled replays go.
    pub dir: PathBuf,
}

impl Default for Tsan {
    fn default() -> Tsan {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("racefuzz-tsan-{}-{n}", std::process::id()));
        Tsan { cc: std::env::var("CC").ok().filter(|c| !c.is_empty()).unwrap_or_else(|| "cc".into()), dir }
    }
}

impl Drop for Tsan {
    fn drop(&mut self) {
        // Compiled replays are a cache for this run only.
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The replay of one program: its binary, or why it could not be built.
struct Compiled(Result<PathBuf, String>);

impl DetectorFactory for Tsan {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        Box::new(Replay(Err("racefuzz internal bug: ThreadSanitizer ran without its program (for_program was not called)".into())))
    }

    fn for_program(&self, p: &Program) -> Box<dyn DetectorFactory + '_> {
        let c = export::c_program(p, "", "a generated program", None);
        Box::new(Compiled(run::compile(&c, &self.cc, &self.dir)))
    }
}

impl DetectorFactory for Compiled {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        Box::new(Replay(self.0.clone()))
    }
}

/// One trace through ThreadSanitizer.
struct Replay(Result<PathBuf, String>);

impl DynamicDetector for Replay {
    fn on_event(&mut self, _: &Event) -> Result<(), Reported> {
        Ok(())
    }

    fn name(&self) -> String {
        "ThreadSanitizer".into()
    }

    fn whole_trace(&self) -> bool {
        true
    }

    fn on_trace(&mut self, trace: &[Event]) -> Result<Vec<Option<EventIdx>>, DetectorFailure> {
        let binary = self.0.as_ref().map_err(|e| DetectorFailure(e.clone()))?;
        let arg = export::encode(trace).map_err(|e| DetectorFailure(e.to_string()))?;
        let out = run::run(binary, &arg, TIMEOUT, false).map_err(DetectorFailure)?;
        run::reported_events(trace, &out).map_err(DetectorFailure)
    }
}
