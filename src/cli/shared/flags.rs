//! The flag groups several subcommands flatten into theirs: pictures of a witness, an
//! external SUT, exploration bounds.

use std::path::{Path, PathBuf};

use clap::Args;
use race_oracles::explore::{Config, ExplorerKind};
use race_oracles::theorems::Claim;

use super::CliError;
use crate::sut_spec::{AnalysisSpec, DetectorSpec, SpecError, SutSpec};

/// Pictures of a witness (`crate::picture`).
#[derive(Args, Debug, Clone, Default)]
pub struct PictureArgs {
    /// Write the witness as a self-contained HTML page (SVG lanes, happens-before edges,
    /// the racing pair, the program, the verdict).
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Write the witness as Graphviz DOT (`dot -Tsvg FILE`).
    #[arg(long, value_name = "FILE")]
    pub dot: Option<PathBuf>,
    /// Write the witness as a ShiViz log (events with vector clocks).
    #[arg(long, value_name = "FILE")]
    pub shiviz: Option<PathBuf>,
    /// Write the witness as SARIF 2.1.0 (a result per racing pair, a thread flow per thread).
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
}

impl PictureArgs {
    /// Writes the pictures asked for of `w` (`title`, the program file and its text, the
    /// verdict's lines), saying on stderr where they went.
    ///
    /// # Errors
    /// A file that cannot be written.
    pub fn write(&self, title: &str, w: &race_oracles::explore::Witness, file: &Path, program: &str, verdict: &[String]) -> Result<(), CliError> {
        // A SARIF document that does not serialize is a bug, never an empty file.
        let sarif = || {
            serde_json::to_string_pretty(&crate::picture::sarif(w, &file.display().to_string()))
                .map(|t| t + "\n")
                .map_err(|e| CliError::internal(format!("SARIF output failed: {e}")))
        };
        let outputs = [
            (&self.html, self.html.as_ref().map(|_| crate::picture::html(title, w, program, verdict))),
            (&self.dot, self.dot.as_ref().map(|_| crate::picture::dot(w))),
            (&self.shiviz, self.shiviz.as_ref().map(|_| crate::picture::shiviz(w))),
            (&self.sarif, self.sarif.as_ref().map(|_| sarif()).transpose()?),
        ];
        for (path, text) in outputs {
            if let (Some(path), Some(text)) = (path, text) {
                std::fs::write(path, text).map_err(|e| CliError::input(format!("error: cannot write {}: {e}", path.display())))?;
                eprintln!("wrote {}", path.display());
            }
        }
        Ok(())
    }

    /// Whether any picture was asked for.
    pub fn any(&self) -> bool {
        self.html.is_some() || self.dot.is_some() || self.shiviz.is_some() || self.sarif.is_some()
    }
}

/// An external SUT (`crate::external`): a detector (`--detector-cmd`) or a static analysis
/// (`--analysis-cmd`), with their flags; [`DetectorArgs::spec`] reads them, with `--sut` and
/// `--mutant`, into the one description of the SUT.
#[derive(Args, Debug, Clone)]
pub struct DetectorArgs {
    /// Judge a race detector that runs as a command (any language) instead of a catalogued
    /// SUT, for the oracles that judge a dynamic detector (fasttrack-precise). Per trace:
    /// `{}` stands for the path of the trace's STD file, and reported `loc`s are read from
    /// stdout; with --persistent, one process speaks JSON Lines (the book's "Your own
    /// detector").
    #[arg(long, value_name = "CMD", group = "external")]
    pub detector_cmd: Option<String>,
    /// Judge a static race analysis that runs as a command (any language), for the oracles
    /// that judge an analysis's reports (racerdx-tp, racerdx-reports): `{}` stands for the
    /// path of the program's `.race` file, and the reports are read as JSON from stdout;
    /// with --persistent, one process speaks JSON Lines (the book's "A static analyzer").
    #[arg(long, value_name = "CMD", group = "external")]
    pub analysis_cmd: Option<String>,
    /// CMD is one long-lived process reading a request per trace (or program) on stdin.
    #[arg(long, requires = "external")]
    pub persistent: bool,
    /// CMD runs once per program: `{}` stands for a folder holding one STD file per trace
    /// (`trace-0001.std`, …), and each file's reports follow a line `==> trace-0001.std <==`
    /// on stdout (what `head` prints before each of several files), for a detector that
    /// pays a process start per run (a JVM's).
    #[arg(long, requires = "detector_cmd", conflicts_with = "persistent")]
    pub batch: bool,
    /// How a report line looks (per trace): a glob with one `{loc}`, `*` for any text
    /// (`'*race at {loc}*'`); default: any line that echoes an STD event
    /// (`Race detected at event 2 : T1|w(V1)|2`).
    #[arg(long, value_name = "GLOB", requires = "detector_cmd")]
    pub report_pattern: Option<String>,
    /// The time CMD may take on one trace (or program); a slower run is killed and is a
    /// finding.
    #[arg(long, value_name = "DURATION", requires = "external", default_value = "10s")]
    pub detector_timeout: String,
    /// What the detector claims about every trace: exactly the racy `locations`
    /// (FastTrack's claim), exactly the racy `events` (each access that completes a race),
    /// the `first-race` (its first report), `no-false-alarm` or `no-missed-race` (the
    /// halves of the locations claim), or `pairs` (each pair of accesses a report names is
    /// a race of the trace).
    /// An external detector's is `locations` unless given; beside `--sut`, it holds a
    /// catalogued detector (a real one: `tsan@clang-19 --claim pairs`) to it instead of
    /// its own.
    #[arg(long, conflicts_with = "analysis_cmd", value_parser = clap::builder::PossibleValuesParser::new(race_oracles::theorems::Claim::ALL.map(race_oracles::theorems::Claim::name)))]
    pub claim: Option<String>,
    /// Run a detector on every interleaving of each program. A real detector or a command
    /// runs on one trace per Mazurkiewicz class by default (each trace costs a run): the
    /// claims it is held to, but for `first-race`, are the same on every trace of a class,
    /// while a detector whose answer depends on the order of independent events
    /// (ThreadSanitizer's bounded history) is judged on more orders with this.
    #[arg(long, conflicts_with = "analysis_cmd")]
    pub all_traces: bool,
}

impl DetectorArgs {
    /// The SUT these flags name with `--sut` and `--mutant` beside them: an external
    /// detector or analysis if one is given (then `--sut` and `--mutant`, which name
    /// catalogued SUTs, are refused), else the catalogued SUT.
    ///
    /// # Errors
    /// A bad pattern, timeout or SUT name, a per-trace command without `{}`, and `--sut` or
    /// `--mutant` beside an external SUT.
    pub fn spec(&self, sut: Option<&str>, mutant: Option<&str>) -> Result<SutSpec, CliError> {
        let bad = |e: SpecError| CliError::input(format!("error: {e}"));
        let spec = match (&self.detector_cmd, &self.analysis_cmd) {
            (_, Some(command)) => SutSpec::analysis(AnalysisSpec { command: command.clone(), persistent: self.persistent, timeout: self.timeout()? }).map_err(bad)?,
            (Some(command), None) => {
                let claim = self.claim()?.unwrap_or_default();
                let d = DetectorSpec {
                    command: command.clone(),
                    persistent: self.persistent,
                    batch: self.batch,
                    report_pattern: self.report_pattern.clone(),
                    timeout: self.timeout()?,
                    claim,
                    all_traces: self.all_traces,
                };
                SutSpec::detector(d).map_err(bad)?
            }
            (None, None) => return Ok(super::catalogued(sut, mutant)?.claiming(self.claim()?).all_traces(self.all_traces)),
        };
        if sut.is_some() || mutant.is_some() {
            let flag = if self.analysis_cmd.is_some() { "--analysis-cmd" } else { "--detector-cmd" };
            return Err(bad(SpecError::FlagsBesideExternal(flag)));
        }
        Ok(spec)
    }

    /// `--claim`, if given.
    pub fn claim(&self) -> Result<Option<Claim>, CliError> {
        self.claim.as_deref().map(|c| Claim::parse(c).ok_or_else(|| CliError::internal(format!("--claim {c} passed clap's check")))).transpose()
    }

    /// `--detector-timeout`.
    fn timeout(&self) -> Result<std::time::Duration, CliError> {
        crate::duration::parse(&self.detector_timeout).map_err(|e| CliError::input(format!("error: --detector-timeout: {e}")))
    }

    /// Whether an external SUT is given.
    pub fn is_external(&self) -> bool {
        self.detector_cmd.is_some() || self.analysis_cmd.is_some()
    }
}

/// Exploration bounds; each is also an environment variable.
#[derive(Args, Debug, Clone)]
pub struct BoundArgs {
    /// Iterations of each nondeterministic loop (`while *`) instance.
    #[arg(long, env = "RACEFUZZ_LOOP_BOUND", default_value_t = 2)]
    pub loop_bound: u32,
    /// Stop after this many executions (the result is then inconclusive).
    #[arg(long, env = "RACEFUZZ_MAX_EXECUTIONS", default_value_t = 200_000)]
    pub max_executions: u64,
    /// The stateful explorer: stop after this many distinct states (inconclusive).
    #[arg(long, env = "RACEFUZZ_MAX_STATES", default_value_t = race_oracles::explore::MAX_STATES)]
    pub max_states: u64,
    /// Cut an execution after this many steps (the result is then inconclusive).
    #[arg(long, env = "RACEFUZZ_MAX_STEPS", default_value_t = 2_000)]
    pub max_steps: u32,
    /// racerdx pairs: at most this many objects in the initial heap.
    #[arg(long, env = "RACEFUZZ_HEAP_BOUND", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub heap_bound: u32,
    /// Interleave local steps too (fully naive; same races, many more executions).
    #[arg(long)]
    pub all_interleavings: bool,
    /// The explorer: `naive` (every execution), `stateful` (every state once; racerdx
    /// programs, whose races are a property of states) or `dpor` (one execution per
    /// Mazurkiewicz class; thread programs). `explore` picks the fastest one that answers
    /// its question when none is given; other commands default to `naive`.
    #[arg(long, env = "RACEFUZZ_EXPLORER", value_enum)]
    pub explorer: Option<ExplorerArg>,
    /// Shorthand for `--explorer naive`.
    #[arg(long, conflicts_with_all = ["explorer", "stateful", "dpor"])]
    pub naive: bool,
    /// Shorthand for `--explorer stateful`.
    #[arg(long, conflicts_with_all = ["explorer", "dpor"])]
    pub stateful: bool,
    /// Shorthand for `--explorer dpor`.
    #[arg(long, conflicts_with = "explorer")]
    pub dpor: bool,
}

/// `--explorer`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplorerArg {
    /// Depth-first, every execution.
    Naive,
    /// Depth-first with a visited set of states.
    Stateful,
    /// Optimal dynamic partial-order reduction.
    Dpor,
}

impl BoundArgs {
    /// The explorer these flags name, if any.
    pub fn explorer(&self) -> Option<ExplorerKind> {
        let flag = [(self.naive, ExplorerKind::Naive), (self.stateful, ExplorerKind::Stateful), (self.dpor, ExplorerKind::Dpor)].into_iter().find(|f| f.0).map(|f| f.1);
        flag.or(self.explorer.map(|e| match e {
            ExplorerArg::Naive => ExplorerKind::Naive,
            ExplorerArg::Stateful => ExplorerKind::Stateful,
            ExplorerArg::Dpor => ExplorerKind::Dpor,
        }))
    }

    /// The explorer configuration these flags describe (the naive explorer unless one is
    /// named).
    pub fn config(&self) -> Config {
        Config {
            loop_bound: self.loop_bound,
            max_executions: self.max_executions,
            max_states: self.max_states,
            max_steps: self.max_steps,
            heap_bound: self.heap_bound,
            eager_local: !self.all_interleavings,
            explorer: self.explorer().unwrap_or_default(),
            ..Config::default()
        }
    }
}
