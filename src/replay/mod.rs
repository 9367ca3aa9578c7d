//! Real detectors that run a trace as a native program: each trace of a `.race` program is
//! replayed by a C program ([`export`]) or a Go program ([`go`]), built once per program
//! ([`run::compile`]) and run once per trace under the tool ([`ReplayTool`]:
//! ThreadSanitizer, Helgrind, DRD, Go's race detector), whose reports are read back as
//! events of the trace ([`run::reported_events`]).
//! A tool that can runs the replay as a server ([`serve`]) that replays many traces in one
//! process, which pays the tool's start-up once per 200 traces rather than once per trace
//! ([`Scheme`]).
//!
//! Replaying events rather than translating statements keeps the replay faithful by
//! construction: values, calls and nondeterministic choices are already resolved in the
//! trace, so no second semantics of the language has to agree with the machine's. The
//! threads take turns on a counter that each tool is kept from seeing as synchronization
//! (a seq_cst atomic inside ThreadSanitizer's ignore-sync region, docs/spec/atomics.md §6.1;
//! for Valgrind's tools, which do not model C11
//! atomics, a variable hidden by their client requests; for Go's, which orders every
//! `sync/atomic` operation, a plain variable that only uninstrumented `//go:norace` code
//! touches), so the happens-before the tool sees is exactly the trace's: locks, fork, join,
//! and each thread's program order.

pub mod export;
pub mod go;
pub mod run;
pub mod serve;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::scratch::Scratch;
use race_oracles::lang::Program;
use race_oracles::machine::{Event, EventIdx};
use race_oracles::theorems::detector::{DetectorFailure, DetectorReport};
use race_oracles::theorems::{Claim, DetectorFactory, DynamicDetector, Reported, Traces};

pub use run::{line_of_function, Access, Output, Report, ReportedPair, ToolThread};

/// The C compiler of `$CC` (default `cc`): what `tsan` and Valgrind's tools build with,
/// unless a version names another.
pub fn cc() -> String {
    std::env::var("CC").ok().filter(|c| !c.is_empty()).unwrap_or_else(|| "cc".into())
}

/// The lines a universal replay ([`export::c_universal`], [`go::go_universal`]) has a
/// function for: every statement of a generated program is on one of them (a generated
/// program has 20 to 60 lines), and a program that is not gets a replay of its own.
pub const UNIVERSAL_LINES: u32 = 256;

/// Lines 1 to [`UNIVERSAL_LINES`], with no source text.
fn universal_lines() -> BTreeMap<u32, String> {
    (1..=UNIVERSAL_LINES).map(|l| (l, String::new())).collect()
}

/// How many idle servers a factory keeps ([`Servers`]): one per job of a campaign, and a
/// few more for programs whose replay is their own.
const IDLE_SERVERS: usize = 8;

/// How long one replay may run.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Why a replay gave no answer: the oracles make it a finding (`DETECTOR FAILED`), never a
/// pass.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// The compiler failed, or could not start.
    #[error("`{cc}` failed {message}")]
    Compile {
        /// The compiler and its flags.
        cc: String,
        /// Its message.
        message: String,
    },
    /// The replay (or the tool around it) could not start, failed, crashed or timed out.
    #[error("{0}")]
    Run(String),
    /// What the tool printed does not parse.
    #[error("{0}")]
    Parse(String),
    /// A report names an access that is no event of the trace.
    #[error("the tool reported an access that is no event of the trace: {0}")]
    NoEvent(String),
    /// A scratch file or folder.
    #[error("{0}: {1}")]
    Io(String, String),
    /// The trace has no C form.
    #[error(transparent)]
    Export(#[from] export::ExportError),
    /// The replay is not the trace: an atomic operation returned another write's value
    /// than the trace says (exit status [`export::DIVERGED`], docs/spec/atomics.md §6.1).
    /// Whatever the tool said is about another execution, so it is no answer: an
    /// inconclusive verdict, never a pass nor the tool's failure.
    #[error("replay diverged from the trace: {0}")]
    Diverged(String),
    /// A detector used before it was given its program.
    #[error("racefuzz internal bug: {0} ran without its program (for_program was not called)")]
    NoProgram(String),
}

/// The language of a replay: which program [`ReplayFactory::compile`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// The C11 replay ([`export::c_program`]).
    C,
    /// The Go replay ([`go::go_program`]).
    Go,
}

/// How a tool builds a program's replay: its language, and the command that compiles it,
/// `PROGRAM ARGS -o OUT SOURCE`, run in the folder of the source with `env` added to
/// racefuzz's environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiler {
    /// The replay's language.
    pub language: Language,
    /// The compiler (`gcc-12`, `go`).
    pub program: String,
    /// Its arguments before `-o OUT SOURCE` (`-fsanitize=thread …`, `build -race`).
    pub args: Vec<String>,
    /// Variables set for it.
    pub env: Vec<(String, std::ffi::OsString)>,
}

impl Compiler {
    /// The C replay, compiled by `cc` with `flags`.
    pub fn c(cc: String, flags: &[&str]) -> Compiler {
        Compiler { language: Language::C, program: cc, args: flags.iter().map(|f| f.to_string()).collect(), env: vec![] }
    }

    /// The compiler and its arguments, as messages show them.
    pub fn command_line(&self) -> String {
        std::iter::once(self.program.as_str()).chain(self.args.iter().map(String::as_str)).collect::<Vec<_>>().join(" ")
    }
}

/// A tool that runs a program's replay and reports races in it.
pub trait ReplayTool: fmt::Debug + Send + Sync + 'static {
    /// A short name for messages (`ThreadSanitizer (gcc-12)`).
    fn name(&self) -> String;

    /// How it builds a program's replay.
    fn compiler(&self) -> Compiler;

    /// The command that runs `binary` on the trace argument `arg`.
    fn command(&self, binary: &Path, arg: &str) -> Command;

    /// The command that runs `binary` as a replay server (`--serve MODE`, [`serve`]), if the
    /// tool can; `None` (the default) replays each trace in a process of its own.
    fn server(&self, binary: &Path) -> Option<Command> {
        let _ = binary;
        None
    }

    /// The replay's source as this tool builds it: the generated one, unless the tool
    /// carries a seeded bug of the harness (ThreadSanitizer's have one).
    fn patched(&self, generated: String) -> String {
        generated
    }

    /// Whether one replay of every program of at most [`UNIVERSAL_LINES`] lines serves it
    /// ([`export::c_universal`]); else each program's replay is its own (the default for a
    /// tool that says no).
    fn universal(&self) -> bool {
        true
    }

    /// The race reports of one run.
    ///
    /// # Errors
    /// [`ReplayError::Parse`] when its output does not parse.
    fn reports(&self, out: &Output) -> Result<Vec<Report>, ReplayError>;

    /// What the tool claims about every trace (the claim `fasttrack-precise` holds it to).
    fn claim(&self) -> Claim {
        Claim::Locations
    }
}

/// One trace through a tool: the replay compiled, run and read.
///
/// # Errors
/// A [`ReplayError`].
pub fn replay<T: ReplayTool + ?Sized>(tool: &T, binary: &Path, trace: &[Event], timeout: Duration) -> Result<Vec<ReportedPair>, ReplayError> {
    let arg = export::encode(trace)?;
    let out = run::run(tool.command(binary, &arg), timeout)?;
    run::reported_events(trace, &out.objects, &tool.reports(&out)?)
}

/// How a factory's detectors run their traces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheme {
    /// Through the tool's replay server ([`ReplayTool::server`], [`serve`]), one per
    /// program and detector factory, when the tool has one; each trace in a process of its
    /// own otherwise.
    #[default]
    Served,
    /// Each trace in a process of its own: the tool starts once per trace.
    PerTrace,
}

impl Scheme {
    /// `per-trace` when `RACEFUZZ_REPLAY` says so, else served: the old scheme stays one
    /// variable away, to compare a served run with it on a program of one's own.
    pub fn from_env() -> Scheme {
        match std::env::var("RACEFUZZ_REPLAY").as_deref() {
            Ok("per-trace") => Scheme::PerTrace,
            _ => Scheme::Served,
        }
    }
}

/// A tool as a detector factory: one replay compiled for every program of at most
/// [`UNIVERSAL_LINES`] lines, and one per longer program, into a scratch folder of its own
/// that goes when the factory does (compiled replays are a cache for this run only). Its
/// replay servers outlive a program: the next program's traces go to the same server when
/// they have the same binary, so a campaign pays the tool's start-up once per
/// [`serve::TRACES_PER_SERVER`] traces, not once per program.
#[derive(Debug)]
pub struct ReplayFactory {
    tool: Arc<dyn ReplayTool>,
    dir: Scratch,
    timeout: Duration,
    scheme: Scheme,
    universal: std::sync::OnceLock<Result<PathBuf, ReplayError>>,
    servers: Arc<Servers>,
}

/// Idle replay servers, each with the binary it replays, oldest first; at most
/// [`IDLE_SERVERS`]. A server is taken out while it replays a trace, so jobs never share
/// one.
#[derive(Debug, Default)]
struct Servers(Mutex<Vec<(PathBuf, serve::Server)>>);

impl Servers {
    /// An idle server of `binary` that can take another trace.
    fn take(&self, binary: &Path) -> Option<serve::Server> {
        // A poisoned lock held only idle servers, which stay usable.
        let mut idle = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let i = idle.iter().rposition(|(b, _)| b == binary)?;
        let (_, mut s) = idle.remove(i);
        (!s.spent() && s.usable()).then_some(s)
    }

    /// `s` back, idle, unless it is spent or dead; the oldest idle server goes when there
    /// are too many.
    fn put(&self, binary: &Path, mut s: serve::Server) {
        if s.spent() || !s.usable() {
            return;
        }
        let mut idle = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() >= IDLE_SERVERS {
            idle.remove(0);
        }
        idle.push((binary.to_path_buf(), s));
    }
}

impl ReplayFactory {
    /// A factory for `tool`, compiling into a fresh scratch folder under the system's
    /// temporary directory; each replay may run for [`TIMEOUT`].
    pub fn new(tool: Arc<dyn ReplayTool>) -> ReplayFactory {
        ReplayFactory::with_timeout(tool, TIMEOUT)
    }

    /// As [`ReplayFactory::new`], each replay killed after `timeout` (a hung tool is a
    /// failure of its own, never a pass); the scheme is [`Scheme::from_env`].
    pub fn with_timeout(tool: Arc<dyn ReplayTool>, timeout: Duration) -> ReplayFactory {
        ReplayFactory { tool, dir: Scratch::named("replay"), timeout, scheme: Scheme::from_env(), universal: Default::default(), servers: Default::default() }
    }

    /// The same factory, running its traces by `scheme`.
    pub fn with_scheme(self, scheme: Scheme) -> ReplayFactory {
        ReplayFactory { scheme, ..self }
    }

    /// The compiled replay of `p`.
    ///
    /// # Errors
    /// [`ReplayError::Compile`], [`ReplayError::Io`].
    pub fn compile(&self, p: &Program) -> Result<PathBuf, ReplayError> {
        let compiler = self.tool.compiler();
        if self.tool.universal() && export::statement_lines(p, "").keys().all(|&l| l <= UNIVERSAL_LINES) {
            let universal = || {
                let source = self.tool.patched(match compiler.language {
                    Language::C => export::c_universal(),
                    Language::Go => go::go_universal(),
                });
                run::compile(&source, &compiler, self.dir.path())
            };
            return self.universal.get_or_init(universal).clone();
        }
        let source = self.tool.patched(match compiler.language {
            Language::C => export::c_program(p, "", "a generated program", None),
            Language::Go => go::go_program(p, "", "a generated program", None),
        });
        run::compile(&source, &compiler, self.dir.path())
    }
}

impl DetectorFactory for ReplayFactory {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        let runner =
            Runner { tool: self.tool.clone(), binary: Err(ReplayError::NoProgram(self.tool.name())), timeout: self.timeout, scheme: self.scheme, servers: self.servers.clone() };
        Box::new(Replay { runner: Arc::new(runner), reports: BTreeMap::new() })
    }

    fn for_program(&self, p: &Program) -> Box<dyn DetectorFactory + '_> {
        let runner = Runner { tool: self.tool.clone(), binary: self.compile(p), timeout: self.timeout, scheme: self.scheme, servers: self.servers.clone() };
        Box::new(Compiled(Arc::new(runner)))
    }

    fn claim(&self) -> Claim {
        self.tool.claim()
    }

    /// One trace per class: each trace costs a run of the replay under the tool.
    fn traces(&self) -> Traces {
        Traces::OnePerClass
    }
}

/// How one program's traces run: its binary (or why it could not be built), and the
/// factory's servers.
struct Runner {
    tool: Arc<dyn ReplayTool>,
    binary: Result<PathBuf, ReplayError>,
    timeout: Duration,
    scheme: Scheme,
    servers: Arc<Servers>,
}

impl Runner {
    /// One trace through the tool: by its server when it has one and the scheme says so.
    fn replay(&self, trace: &[Event]) -> Result<Vec<ReportedPair>, ReplayError> {
        let binary = self.binary.as_ref().map_err(Clone::clone)?;
        let command = match self.scheme {
            Scheme::Served => self.tool.server(binary),
            Scheme::PerTrace => None,
        };
        let Some(command) = command else { return replay(self.tool.as_ref(), binary, trace, self.timeout) };
        let arg = export::encode(trace)?;
        let mut server = match self.servers.take(binary) {
            Some(s) => s,
            None => serve::Server::start(command)?,
        };
        let out = server.replay(&arg, self.timeout);
        self.servers.put(binary, server);
        let out = out?;
        run::reported_events(trace, &out.objects, &self.tool.reports(&out)?)
    }
}

/// The replay of one program.
struct Compiled(Arc<Runner>);

impl DetectorFactory for Compiled {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        Box::new(Replay { runner: self.0.clone(), reports: BTreeMap::new() })
    }

    fn claim(&self) -> Claim {
        self.0.tool.claim()
    }

    fn traces(&self) -> Traces {
        Traces::OnePerClass
    }
}

/// One trace through the tool; remembers each reported event's partner for
/// [`DynamicDetector::explain`] (the pairs claim).
struct Replay {
    runner: Arc<Runner>,
    reports: BTreeMap<EventIdx, Option<EventIdx>>,
}

impl DynamicDetector for Replay {
    fn on_event(&mut self, _: &Event) -> Result<(), Reported> {
        Ok(())
    }

    fn name(&self) -> String {
        self.runner.tool.name()
    }

    fn whole_trace(&self) -> bool {
        true
    }

    fn on_trace(&mut self, trace: &[Event]) -> Result<Vec<Option<EventIdx>>, DetectorFailure> {
        let pairs = self.runner.replay(trace).map_err(|e| match e {
            ReplayError::Diverged(_) => DetectorFailure::no_answer(e),
            e => DetectorFailure(e.to_string()),
        })?;
        for p in &pairs {
            self.reports.entry(p.at).or_insert(p.partner);
        }
        Ok(pairs.iter().map(|p| Some(p.at)).collect())
    }

    fn explain(&self, _: &[Event], at: EventIdx) -> DetectorReport {
        let partners: Vec<EventIdx> = self.reports.get(&at).copied().flatten().into_iter().collect();
        let with = partners.first().map_or(String::new(), |p| format!(" with event {}", p.0));
        DetectorReport { at, partners, reason: format!("{} reported event {}{with}", self.runner.tool.name(), at.0), locations: vec![] }
    }
}
