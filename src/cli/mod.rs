//! The command line: `explore`, `replay`, `trace`, `races`, `corpus`, `analyze`, `check`,
//! `mutants`, `fuzz`, `merge`, `shrink`, `gen`, `bench-mutants`. Flags are validated into plain data here; the work is
//! in `race-oracles` (ground truth, oracles), `suts` and `campaign`, and all text comes from
//! `render`.
//!
//! Two voices: an error the user caused names its place and exits 2 ([`CliError::input`]);
//! an internal bug says so and exits 4 ([`CliError::internal`]); a budget is exit 3.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use race_oracles::explore::{Config, ExplorerKind, Property, Run};
use race_oracles::lang::{self, Dialect, Program};

mod check_cmd;
mod corpus_cmd;
mod export_cmd;
pub mod fuzz_cmd;
mod gen_cmd;
mod ldrf_cmd;
mod merge_cmd;
mod replay_cmd;
mod score_cmd;
pub mod trace_cmd;

const EXIT_CODES: &str =
    "Exit codes: 0 success, 1 a property failed, 2 bad input (syntax error, dialect violation, bad flag), 3 inconclusive (a budget was hit, or a hypothesis unmet), 4 racefuzz internal bug.";

/// The exit codes of every subcommand (also in `--help` and the book's "Bounds and exit codes").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Success: complete within the printed bounds; an oracle passed.
    Ok = 0,
    /// A property failed (an oracle's `fail`, a corpus expectation mismatched).
    Fail = 1,
    /// Bad input: unreadable file, syntax error (line:col), dialect violation, bad flag.
    BadInput = 2,
    /// Inconclusive: a budget was hit or a hypothesis is unmet; not a full answer.
    Inconclusive = 3,
    /// An internal invariant broke: a bug in racefuzz, never the input's fault.
    InternalBug = 4,
}

impl Exit {
    /// The exit code for an oracle verdict.
    pub fn of(v: race_oracles::theorems::Verdict) -> Exit {
        match v {
            race_oracles::theorems::Verdict::Pass => Exit::Ok,
            race_oracles::theorems::Verdict::Fail => Exit::Fail,
            race_oracles::theorems::Verdict::Inconclusive => Exit::Inconclusive,
        }
    }
}

#[derive(Parser, Debug)]
#[command(name = "racefuzz", version, about = "Exhaustive ground truth and differential fuzzing for data-race analyses", after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

/// The command line as clap defines it, every subcommand with its flags: what `--help`
/// prints, and what the book's generated reference (`docs/book/src/reference/cli.md`,
/// kept current by `tests/docs.rs`) renders.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Explore every interleaving and choice of a program; report races with a witness.
    Explore(ExploreArgs),
    /// Reproduce one execution from its schedule.
    Replay(ReplayArgs),
    /// Explore every program of a corpus and print a table (checks `// expect:` headers).
    Corpus(CorpusArgs),
    /// Run a static race analysis: summaries and reports.
    Analyze {
        /// Which analysis.
        #[arg(value_enum)]
        analysis: check_cmd::AnalysisName,
        /// A `.race` file (racerdx dialect; bfj for a check placer).
        file: PathBuf,
        /// A seeded bug to enable (see `racefuzz mutants`).
        #[arg(long)]
        mutant: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// (escape, capsule) The execution to show, by its schedule; default: the first
        /// racy execution.
        #[arg(long)]
        schedule: Option<String>,
        /// (capsule) CapJava's operational mode: capsule violations are taken and reported.
        #[arg(long)]
        operational: bool,
    },
    /// Check an oracle on a program: pass, fail (a counterexample) or inconclusive.
    Check {
        /// Which oracle (`racefuzz mutants` lists them with their claims).
        oracle: String,
        /// A `.race` file, or a cargo-fuzz artifact of the oracle's target (any other file
        /// name: a crash, a slow unit, a timeout), whose program is printed first.
        file: PathBuf,
        /// A seeded bug to enable (see `racefuzz mutants`).
        #[arg(long)]
        mutant: Option<String>,
        /// The SUT to judge, when the oracle's kind and dialect have more than one
        /// (`per-access` for bigfoot-precise); default: the first (`racefuzz mutants` names them).
        #[arg(long)]
        sut: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        /// (capsule-first-race) CapJava's operational mode: violations are reported and the
        /// run goes on (the oracle `capsule-first-race-operational`).
        #[arg(long)]
        operational: bool,
        /// When the check fails with a witness of a thread program: write the witness as a C
        /// program that replays it under ThreadSanitizer, into .racefuzz/reproducers/.
        #[arg(long, value_enum, value_name = "FORMAT")]
        reproducer: Option<ExportFormat>,
        #[command(flatten)]
        pictures: PictureArgs,
        #[command(flatten)]
        detector: DetectorArgs,
        #[command(flatten)]
        bounds: BoundArgs,
    },
    /// Run a fuzz campaign over the built-in generators (all oracles unless named).
    ///
    /// Failures are grouped by signature (oracle, violated property, kinds of mismatch,
    /// statement kinds at the lines the explanation cites); the first --keep programs of
    /// each signature are written, then each one smaller than all written before, and the
    /// rest are counted. The summary lists each signature with its count and its smallest
    /// program. Without a terminal on stderr, a status line goes to stderr every
    /// --status-interval. SIGINT or SIGTERM stops the campaign at the next program: the
    /// summary is printed (and --shrink runs), every finding is kept, and the exit code is
    /// that of a finished campaign (1 if it failed, 0 if not); a second signal stops the
    /// shrinking (the best program so far is written), a third exits at once (130).
    Fuzz {
        /// Oracles to run (default: all).
        oracles: Vec<String>,
        /// How long: `60s`, `10m`, `2h` (default 60s, or no limit with --max-programs).
        #[arg(long)]
        time: Option<String>,
        /// Base seed (job j uses seed + j).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Parallel jobs.
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Hunt a seeded bug (see `racefuzz mutants`) with every oracle of the campaign;
        /// without oracles named, with the default oracles that judge it. An oracle named
        /// that does not judge it is bad input.
        #[arg(long)]
        mutant: Option<String>,
        /// The SUT the oracles it fits judge, when their kind and dialect have more than one
        /// (`per-access` for bigfoot-precise); the other oracles judge their own.
        #[arg(long)]
        sut: Option<String>,
        /// Where counterexamples are written (one folder per oracle; git ignores the default).
        #[arg(long, default_value = crate::campaign::DEFAULT_OUT)]
        out: PathBuf,
        /// Stop each job after this many programs (a reproducible budget, unlike --time).
        #[arg(long)]
        max_programs: Option<u64>,
        /// Programs written per signature of failure (the rest are counted; a later program
        /// smaller than every one written is written too).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..=1000))]
        keep: u64,
        /// Stop once N distinct signatures of failure have been found (not N failing
        /// programs: a flood of one bug does not stop the hunt for others).
        #[arg(long, value_name = "N")]
        stop_after: Option<u64>,
        /// At the end, shrink the first program of each signature and write the result
        /// next to it (`HASH.shrunk.race`).
        #[arg(long)]
        shrink: bool,
        /// Oracle runs per shrink (with --shrink).
        #[arg(long, default_value_t = 5_000)]
        max_attempts: usize,
        /// Without a terminal on stderr: how often a status line goes to stderr (`30s`,
        /// `5m`; wall time).
        #[arg(long, default_value = "30s", env = "RACEFUZZ_STATUS_INTERVAL")]
        status_interval: String,
        /// Print the summary as JSON on stdout (progress lines go to stderr).
        #[arg(long)]
        json: bool,
        /// Check only shard K of N (from 0) of each oracle's program stream: program i goes
        /// to shard i mod N, so N shards with one seed check the programs of one run (merge
        /// them with `racefuzz merge`). A job array passes its index through the environment.
        #[arg(long, value_name = "K/N", env = "RACEFUZZ_SHARD")]
        shard: Option<String>,
        /// Also write the campaign's report as one HTML page: per oracle checked, pass, fail
        /// and inconclusive, programs/s, feature and rule coverage (implies --rules), and each
        /// distinct failure linked to its smallest finding, that finding's witness page and
        /// its shrunk program.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
        /// Record which cases of each SUT's spec rules every check takes, and count per oracle
        /// the programs on which each case fired (in the summary and its JSON). Costs time:
        /// the summary says how much the run took.
        #[arg(long)]
        rules: bool,
        #[command(flatten)]
        detector: DetectorArgs,
    },
    /// Merge the findings and summaries of campaigns (shards, hosts, cargo fuzz) into one
    /// summary: totals per oracle, and each distinct failure with its smallest program.
    ///
    /// Reads every `summary*.json` and every finding (`.race` with a `// racefuzz finding`
    /// header) under each DIR. Findings of the same oracle, SUT, mutant and program count
    /// once; failures group by signature. Writes the summary as JSON to --out. Exit 1 if
    /// anything failed, 0 if not, 2 on a file that is neither (named).
    Merge {
        /// Output folders of `racefuzz fuzz` (or folders holding them).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the merged summary (JSON) is written.
        #[arg(long, default_value = ".racefuzz/merged.json")]
        out: PathBuf,
        /// Print the merged summary as JSON instead of text.
        #[arg(long)]
        json: bool,
        /// Also write the merged summary as one HTML page, as `fuzz --report` writes a
        /// campaign's: per oracle counts, feature and rule coverage added up, the shards
        /// present and missing, each distinct failure linked to its smallest finding.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
    },
    /// Shrink a failing program (a `.race` file or a cargo-fuzz artifact) and optionally
    /// turn it into a regression test.
    Shrink {
        /// The counterexample.
        file: PathBuf,
        /// The oracle it fails (default: the file's `// oracle:` header).
        #[arg(long)]
        oracle: Option<String>,
        /// The mutant it fails under (default: the file's `// mutant:` header).
        #[arg(long)]
        mutant: Option<String>,
        /// The SUT it fails (default: the file's `// sut:` header, else the oracle's own).
        #[arg(long)]
        sut: Option<String>,
        /// Write `tests/regress/NAME.race` (its snapshot is then recorded and reviewed
        /// through insta: `cargo insta test --review`).
        #[arg(long, value_name = "NAME", requires = "root_cause")]
        into_test: Option<String>,
        /// With `--into-test`: the root cause, in one line, for the regression's header.
        #[arg(long, value_name = "TEXT")]
        root_cause: Option<String>,
        /// With `--into-test`: replace an existing regression of that name (its snapshot
        /// then differs, for review), or write one that another regression already is.
        #[arg(long, requires = "into_test")]
        force: bool,
        /// Stop after this many oracle runs.
        #[arg(long, default_value_t = 5_000)]
        max_attempts: usize,
        #[command(flatten)]
        detector: DetectorArgs,
    },
    /// Print generated programs, or (`--stats`) their distribution and racy fraction.
    Gen {
        /// The oracle whose generator to run, or a dialect (its first oracle's generator).
        generator: String,
        /// How many programs.
        #[arg(long, default_value_t = 10)]
        count: usize,
        /// Seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Print statistics instead of programs.
        #[arg(long)]
        stats: bool,
        /// With --stats and without a terminal on stderr: how often a status line goes to
        /// stderr (`10s`, `1m`; wall time).
        #[arg(long, default_value = "10s", env = "RACEFUZZ_STATUS_INTERVAL")]
        status_interval: String,
    },
    /// Measure the fuzzer: time to the first counterexample of every mutant, and its shrunk size.
    BenchMutants {
        /// Budget per mutant and oracle: `60s`, `10m`.
        #[arg(long, default_value = "60s")]
        time_per: String,
        /// Seed.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Write a thread program's traces in STD (`thread|op(decor)|loc`, the format of
    /// RAPID and the race-prediction tools) or JSON, for a detector outside racefuzz.
    ///
    /// `loc` is the event's index in the trace plus one; check and capsule events have no
    /// STD form and are left out (their numbers skipped). Threads, variables and locks are
    /// numbered by name, the same in every trace of one run (`names.json`). With --out, one
    /// file per trace plus names.json and index.json (each trace's schedule and its races
    /// by the ground truth); without, one STD trace (or JSON, any number) on stdout. A cut
    /// enumeration says so and exits 3.
    Trace(TraceArgs),
    /// Print the happens-before races of an STD trace as the ground truth sees them: the
    /// racy variables, every access that completes a race with earlier ones, the first race.
    Races {
        /// The STD file (`thread|op(decor)|loc` lines).
        trace: PathBuf,
        /// A name table (`names.json` of `racefuzz trace --out`): show the program's names.
        #[arg(long, value_name = "NAMES.json")]
        names: Option<PathBuf>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Score a dynamic detector: TP/FP/FN, precision, recall and F1 per program, per racy
    /// location and per racy event of every trace, over a fixed generated corpus, with the
    /// most frequent false positive and false negative shrunk (the book's "Scorecards").
    Score {
        /// The detector: `fasttrack`, `tsan` (ThreadSanitizer, through `$CC`), or a check
        /// placer with its detector (`per-access`, `bigfoot`); default fasttrack (or the
        /// --detector-cmd).
        #[arg(long)]
        sut: Option<String>,
        /// A seeded bug of that SUT (`racefuzz mutants`).
        #[arg(long)]
        mutant: Option<String>,
        /// How many programs.
        #[arg(long, default_value_t = 1_000)]
        programs: u64,
        /// The corpus's seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// One trace per Mazurkiewicz class (DPOR) instead of every interleaving: for slow
        /// detectors (`--sut tsan`).
        #[arg(long)]
        classes: bool,
        /// Parallel jobs (the card is the same for any number).
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Print the scorecard as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        detector: DetectorArgs,
    },
    /// Write one execution of a thread program as a C program that replays it, event by
    /// event, under ThreadSanitizer (`racefuzz export c FILE --schedule S -o replay.c`).
    Export {
        /// The format: `c`.
        #[arg(value_enum)]
        format: ExportFormat,
        /// A `.race` file (bfj, bfj2, simplejava or capjava).
        file: PathBuf,
        /// The execution (as `racefuzz replay` takes it); default: the first racy one.
        #[arg(long)]
        schedule: Option<String>,
        /// Write to this file instead of stdout.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Print only the trace argument the program's replay takes (one compiled program
        /// replays every trace of its `.race` program).
        #[arg(long)]
        trace_arg: bool,
        #[command(flatten)]
        bounds: BoundArgs,
    },
    /// List the seeded bugs with their oracle and the spec's prediction.
    Mutants {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

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
        let sarif = || serde_json::to_string_pretty(&crate::picture::sarif(w, &file.display().to_string())).map(|t| t + "\n").unwrap_or_default();
        let outputs = [
            (&self.html, self.html.as_ref().map(|_| crate::picture::html(title, w, program, verdict))),
            (&self.dot, self.dot.as_ref().map(|_| crate::picture::dot(w))),
            (&self.shiviz, self.shiviz.as_ref().map(|_| crate::picture::shiviz(w))),
            (&self.sarif, self.sarif.as_ref().map(|_| sarif())),
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

/// An external dynamic detector as the SUT (`crate::external`).
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
    /// halves of the locations claim).
    #[arg(long, requires = "detector_cmd", default_value = "locations", value_parser = clap::builder::PossibleValuesParser::new(race_oracles::theorems::Claim::ALL.map(race_oracles::theorems::Claim::name)))]
    pub claim: String,
}

impl DetectorArgs {
    /// The external detector, if one is given, refusing `--sut` and `--mutant` beside it
    /// (they name catalogued SUTs).
    ///
    /// # Errors
    /// A bad pattern or timeout, a per-trace command without `{}`, and `--sut` or `--mutant`
    /// with `--detector-cmd`.
    pub fn factory_alone(&self, sut: Option<&str>, mutant: Option<&str>) -> Result<Option<crate::external::External>, CliError> {
        let flag = if self.analysis_cmd.is_some() { "--analysis-cmd" } else { "--detector-cmd" };
        let f = match &self.analysis_cmd {
            Some(cmd) => Some(crate::external::ExternalAnalysis::new(cmd, self.persistent, self.timeout()?).map_err(|e| CliError::input(format!("error: {e}")))?.into()),
            None => self.factory()?.map(Into::into),
        };
        if f.is_some() && (sut.is_some() || mutant.is_some()) {
            return Err(CliError::input(format!("error: {flag} is the SUT; it takes no --sut or --mutant")));
        }
        Ok(f)
    }

    /// `--detector-timeout`.
    fn timeout(&self) -> Result<std::time::Duration, CliError> {
        fuzz_cmd::parse_duration(&self.detector_timeout).map_err(|e| CliError::input(format!("error: --detector-timeout: {e}")))
    }

    /// Whether an external SUT is given.
    pub fn is_external(&self) -> bool {
        self.detector_cmd.is_some() || self.analysis_cmd.is_some()
    }

    /// The external detector, if one is given.
    ///
    /// # Errors
    /// A bad pattern or timeout, or a per-trace command without `{}`.
    fn factory(&self) -> Result<Option<crate::external::ExternalFactory>, CliError> {
        let Some(cmd) = &self.detector_cmd else { return Ok(None) };
        let timeout = self.timeout()?;
        let claim = race_oracles::theorems::Claim::parse(&self.claim).ok_or_else(|| CliError::internal(format!("--claim {} passed clap's check", self.claim)))?;
        crate::external::factory(cmd, self.persistent, self.report_pattern.as_deref(), timeout).map(|f| Some(f.claiming(claim))).map_err(|e| CliError::input(format!("error: {e}")))
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

/// What `racefuzz export` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ExportFormat {
    /// A C11 program that replays the execution under ThreadSanitizer.
    C,
}

#[derive(Args, Debug)]
struct ExploreArgs {
    /// A `.race` file.
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// racerdx only: run just these two methods as the two threads (`m1,m2`).
    #[arg(long, value_name = "M1,M2")]
    pair: Option<String>,
    /// ldrf only: also show the thread-local semantics E-LDRF (docs/spec/ldrf.md §2): per
    /// location, the thread copies on the variables it accesses, with version ranks.
    #[arg(long)]
    ldrf: bool,
    /// ldrf only: also show the size of the cartesian semantics E-CART (§5.1) per mix.
    #[arg(long)]
    cart: bool,
    /// Pictures of the first racing execution (of the first run that races).
    #[command(flatten)]
    pictures: PictureArgs,
    #[command(flatten)]
    bounds: BoundArgs,
}

#[derive(Args, Debug)]
struct ReplayArgs {
    /// A `.race` file.
    file: PathBuf,
    /// The schedule, as printed with a witness (`1,2/1,h0,…`).
    #[arg(long)]
    schedule: String,
    #[command(flatten)]
    pictures: PictureArgs,
    /// racerdx only: the two methods (`m1,m2`).
    #[arg(long, value_name = "M1,M2")]
    pair: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    bounds: BoundArgs,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("which").args(["schedule", "classes", "all"])))]
struct TraceArgs {
    /// A `.race` file (bfj, bfj2, simplejava or capjava).
    file: PathBuf,
    /// The one execution this schedule names (as `racefuzz replay` runs it).
    #[arg(long)]
    schedule: Option<String>,
    /// One execution per Mazurkiewicz class (the DPOR explorer's).
    #[arg(long)]
    classes: bool,
    /// Every execution (the naive explorer's); the default.
    #[arg(long)]
    all: bool,
    /// `std` or `json`.
    #[arg(long, value_enum, default_value = "std")]
    format: trace_cmd::Format,
    /// Write one file per trace, names.json and index.json into this folder (created).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write into a non-empty --out folder (its earlier trace files are replaced).
    #[arg(long, requires = "out")]
    force: bool,
    #[command(flatten)]
    bounds: BoundArgs,
}

#[derive(Args, Debug)]
struct CorpusArgs {
    /// Directories (or files) to explore (default: the curated corpus).
    #[arg(default_values_t = crate::corpus::CURATED.map(String::from))]
    paths: Vec<String>,
    #[command(flatten)]
    bounds: BoundArgs,
}

/// Writes to stdout; a closed pipe (`racefuzz … | head`) ends the program quietly instead
/// of panicking.
pub fn emit(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_err() {
        std::process::exit(0);
    }
}

/// Like `println!`, through [`emit`].
#[macro_export]
macro_rules! outln {
    () => { $crate::cli::emit("\n") };
    ($($arg:tt)*) => { $crate::cli::emit(&format!("{}\n", format!($($arg)*))) };
}

/// An error, with its exit code and its voice.
#[derive(Debug)]
pub struct CliError {
    /// What to print on stderr.
    pub message: String,
    /// The exit code.
    pub code: Exit,
}

impl CliError {
    /// Bad input (exit 2): the message names the place or the assumption.
    pub fn input(message: impl Into<String>) -> CliError {
        CliError { message: message.into(), code: Exit::BadInput }
    }

    /// An internal bug (exit 4): says so, and which invariant broke.
    pub fn internal(what: impl std::fmt::Display) -> CliError {
        let what = what.to_string();
        let what = what.strip_prefix("racefuzz internal bug: ").unwrap_or(&what).to_string();
        CliError { message: format!("racefuzz internal bug: {what} (please report it with the command line and input)"), code: Exit::InternalBug }
    }
}

/// A campaign's early stop in the right voice: exit 4 for an internal bug, exit 2 otherwise
/// (an unknown mutant, an unwritable output folder).
pub fn campaign_error(e: &crate::campaign::CampaignError) -> CliError {
    if e.is_internal() {
        CliError::internal(e)
    } else {
        CliError::input(format!("error: {e}"))
    }
}

/// Prints a JSON document; a value that does not serialize is an internal bug, never an
/// empty document with exit 0.
///
/// # Errors
/// [`CliError::internal`] when serialization fails.
pub fn print_json(v: &impl serde::Serialize) -> Result<(), CliError> {
    let text = serde_json::to_string_pretty(v).map_err(|e| CliError::internal(format!("JSON output failed: {e}")))?;
    emit(&format!("{text}\n"));
    Ok(())
}

/// At most `max` items of a list for a message, then how many there are in all.
pub fn capped<T: std::fmt::Display>(items: &[T], max: usize) -> String {
    let shown: Vec<String> = items.iter().take(max).map(ToString::to_string).collect();
    if items.len() > max {
        format!("{}, … ({} in all)", shown.join(", "), items.len())
    } else {
        shown.join(", ")
    }
}

/// The oracle with this id.
///
/// # Errors
/// Bad input naming the known oracles.
pub fn oracle(id: &str) -> Result<race_oracles::theorems::Oracle, CliError> {
    let reg = race_oracles::theorems::Registry::builtin();
    reg.find(id).copied().ok_or_else(|| CliError::input(format!("error: no oracle `{id}` (known: {})", reg.ids().join(", "))))
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Explore(a) => explore_cmd(&a),
        Cmd::Replay(a) => replay_cmd::run(&a.file, &a.schedule, a.pair.as_deref(), a.json, &a.bounds, &a.pictures),
        Cmd::Corpus(a) => corpus_cmd::run(&a.paths.iter().map(PathBuf::from).collect::<Vec<_>>(), &a.bounds),
        Cmd::Analyze { analysis, file, mutant, json, schedule, operational } => check_cmd::analyze(analysis, &file, mutant.as_deref(), json, schedule.as_deref(), operational),
        Cmd::Check { oracle, file, mutant, sut, json, operational, reproducer, pictures, detector, bounds } => {
            let oracle = if operational { check_cmd::operational(&oracle) } else { Ok(oracle) };
            oracle.and_then(|o| {
                check_cmd::check(
                    &o,
                    &file,
                    sut.as_deref(),
                    mutant.as_deref(),
                    &detector,
                    &bounds,
                    &check_cmd::Outputs { json, reproducer: reproducer.is_some(), pictures: &pictures },
                )
            })
        }
        Cmd::Trace(a) => {
            let which = match (a.schedule, a.classes) {
                (Some(s), _) => trace_cmd::Which::Schedule(s),
                (None, true) => trace_cmd::Which::Classes,
                (None, false) => trace_cmd::Which::All,
            };
            trace_cmd::trace(&trace_cmd::TraceArgs { file: &a.file, which, format: a.format, out: a.out.as_deref(), force: a.force, bounds: &a.bounds })
        }
        Cmd::Races { trace, names, json } => trace_cmd::races(&trace, names.as_deref(), json),
        Cmd::Mutants { json } => check_cmd::list(json),
        Cmd::Export { format: ExportFormat::C, file, schedule, output, trace_arg, bounds } => {
            export_cmd::export_c(&file, schedule.as_deref(), output.as_deref(), trace_arg, &bounds)
        }
        Cmd::Score { sut, mutant, programs, seed, classes, jobs, json, detector } => {
            score_cmd::run(sut.as_deref(), mutant.as_deref(), &detector, crate::score::Corpus { programs, seed, classes }, jobs, json)
        }
        Cmd::Gen { generator, count, seed, stats, status_interval } => gen_cmd::gen(&generator, count, seed, stats, &status_interval),
        Cmd::BenchMutants { time_per, seed } => gen_cmd::bench_mutants(&time_per, seed),
        Cmd::Merge { dirs, out, json, report } => merge_cmd::run(&dirs, &out, json, report.as_deref()),
        Cmd::Fuzz { oracles, time, seed, jobs, mutant, sut, out, max_programs, keep, stop_after, shrink, max_attempts, status_interval, json, shard, report, rules, detector } => {
            fuzz_cmd::fuzz(&fuzz_cmd::FuzzArgs {
                ids: &oracles,
                time: time.as_deref(),
                seed,
                jobs,
                mutant: mutant.as_deref(),
                sut: sut.as_deref(),
                out: &out,
                max_programs,
                keep: usize::try_from(keep).unwrap_or(usize::MAX),
                stop_after,
                shrink,
                max_attempts,
                status_interval: &status_interval,
                json,
                detector: &detector,
                shard: shard.as_deref(),
                report: report.as_deref(),
                rules,
            })
        }
        Cmd::Shrink { file, oracle, mutant, sut, into_test, root_cause, force, max_attempts, detector } => fuzz_cmd::shrink_cmd(&fuzz_cmd::ShrinkArgs {
            file: &file,
            oracle: oracle.as_deref(),
            mutant: mutant.as_deref(),
            sut: sut.as_deref(),
            into_test: into_test.as_deref(),
            root_cause: root_cause.as_deref(),
            force,
            max_attempts,
            detector: &detector,
        }),
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            eprintln!("{}", e.message);
            ExitCode::from(e.code as u8)
        }
    }
}

/// Reads, parses and validates a `.race` file; every failure is bad input (exit 2).
///
/// # Errors
/// A message with line:col and a caret, or naming the violated dialect assumption.
pub fn load(path: &Path) -> Result<(String, Program), CliError> {
    load_with(path, lang::Relax::default())
}

/// [`load`], also skipping the assumptions `relax` names and those the file declares it
/// breaks (`// outside: …`, see `corpus::relax`).
///
/// # Errors
/// As [`load`].
pub fn load_with(path: &Path, relax: lang::Relax) -> Result<(String, Program), CliError> {
    let src = std::fs::read_to_string(path).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", path.display())))?;
    let prog = lang::parse(&src).map_err(|e| CliError::input(e.render(&path.display().to_string())))?;
    let declared = crate::corpus::relax(&src).map_err(|e| CliError::input(format!("error: {}: {e}", path.display())))?;
    let relax = lang::Relax { balanced_locking: relax.balanced_locking || declared.balanced_locking, sync_reassign: relax.sync_reassign || declared.sync_reassign };
    lang::validate_relaxed(&prog, relax).map_err(|e| CliError::input(format!("error: {}: {e}", path.display())))?;
    Ok((src, prog))
}

/// Validates `--pair m1,m2` against the program.
///
/// # Errors
/// When the program is not racerdx or a method does not exist.
pub fn parse_pair<'a>(prog: &Program, pair: Option<&'a str>) -> Result<Option<(&'a str, &'a str)>, CliError> {
    let Some(p) = pair else { return Ok(None) };
    if prog.dialect != Dialect::RacerDx {
        return Err(CliError::input("error: --pair applies to racerdx programs only (other dialects declare their threads)"));
    }
    let (a, b) = p.split_once(',').ok_or_else(|| CliError::input(format!("error: --pair takes two method names, `m1,m2`; got `{p}`")))?;
    for m in [a, b] {
        if prog.method(m).is_none() {
            let known: Vec<&str> = prog.methods.iter().map(|m| m.name.as_str()).collect();
            return Err(CliError::input(format!("error: --pair: no method `{m}` (methods: {})", capped(&known, 10))));
        }
    }
    Ok(Some((a, b)))
}

/// Explores, returning the runs (with their final states if `final_states`) or a bad-input
/// error.
///
/// # Errors
/// When the initial state cannot be built (e.g. `init` gets stuck).
pub fn ground_truth(prog: &Program, cfg: &Config, pair: Option<(&str, &str)>, final_states: bool) -> Result<Vec<Run>, CliError> {
    let runs = if final_states { race_oracles::truth::ground_truth_with_final_states(prog, cfg, pair) } else { race_oracles::truth::ground_truth(prog, cfg, pair) };
    runs.map_err(|e| CliError::input(format!("error: {e}")))
}

/// Refuses a program the machine does not run: naikaiken programs run on Naik-Aiken's
/// instrumented semantics (`race_oracles::instrumented`), ldrf programs on the L-DRF
/// engines (`race_oracles::ldrf`; `explore` dispatches them there before asking).
///
/// # Errors
/// A bad-input error naming the file and what to run instead.
pub fn on_machine(file: &Path, prog: &Program) -> Result<(), CliError> {
    match prog.dialect {
        Dialect::NaikAiken => Err(CliError::input(format!(
            "error: {}: naikaiken programs run on Naik-Aiken's instrumented semantics (stamps, loop vectors, effects), not on the machine `explore` and `replay` drive; `racefuzz check naik-aiken-sound FILE` searches every state and prints a schedule for each race it needs",
            file.display()
        ))),
        Dialect::Ldrf => Err(CliError::input(format!(
            "error: {}: ldrf programs run on the L-DRF engines (`race_oracles::ldrf`), not on the machine `replay` drives; `racefuzz explore FILE` prints their standard states (and, with --ldrf, their thread-local ones)",
            file.display()
        ))),
        _ => Ok(()),
    }
}

fn explore_cmd(a: &ExploreArgs) -> Result<Exit, CliError> {
    let (src, prog) = load(&a.file)?;
    if prog.dialect == Dialect::Ldrf {
        if a.pictures.any() {
            return Err(CliError::input(format!("error: pictures are of machine executions; {} is an ldrf program (its races are in the text output)", a.file.display())));
        }
        parse_pair(&prog, a.pair.as_deref())?;
        return ldrf_cmd::explore(&a.file, &prog, &a.bounds.config(), &ldrf_cmd::View { json: a.json, ldrf: a.ldrf, cart: a.cart });
    }
    if a.ldrf || a.cart {
        return Err(CliError::input(format!("error: --ldrf and --cart apply to ldrf programs only; {} is {}", a.file.display(), prog.dialect)));
    }
    on_machine(&a.file, &prog)?;
    let pair = parse_pair(&prog, a.pair.as_deref())?;
    let racerdx = prog.dialect == Dialect::RacerDx;
    // What `explore` answers: Def. 3.6 races (a property of states) for racerdx pairs,
    // happens-before races (a property of classes) for thread programs, and outcomes.
    let asked = if racerdx { [Property::StateRaces, Property::Outcomes] } else { [Property::Classes, Property::Outcomes] };
    // Interleaving local steps too is a request for the plain enumeration.
    let named = a.bounds.explorer().or(a.bounds.all_interleavings.then_some(ExplorerKind::Naive));
    let cfg = Config { explorer: named.unwrap_or_else(|| ExplorerKind::fastest_for(&asked)), ..a.bounds.config() };
    if !asked.iter().all(|&p| cfg.explorer.preserves(p)) {
        return Err(CliError::input(format!(
            "error: the {} explorer cannot decide the races of a {} program (it does not preserve {}); use --naive, or leave the explorer out for the fastest one that can",
            cfg.explorer.name(),
            prog.dialect,
            if racerdx { "states" } else { "happens-before races" }
        )));
    }
    // Final states are shown only as data.
    let runs = ground_truth(&prog, &cfg, pair, a.json)?;
    let complete = runs.iter().all(|r| r.executions.complete);
    if a.json {
        print_json(&explore_json(&a.file, &prog, &cfg, &runs))?;
    } else {
        crate::outln!("{} (dialect {})", a.file.display(), prog.dialect);
        crate::outln!("{}", crate::render::bounds(&cfg, prog.dialect == Dialect::RacerDx));
        for r in &runs {
            crate::outln!();
            emit(&crate::render::run(r));
        }
    }
    if a.pictures.any() {
        match runs.iter().find_map(|r| r.witness.as_ref().map(|w| (r, w))) {
            None => eprintln!("no picture: no execution races"),
            Some((r, w)) => {
                let brief = format!("{}: races on {}", r.setup, r.racy_addresses.join(", "));
                a.pictures.write(&format!("racefuzz explore {}", a.file.display()), w, &a.file, &src, &[brief])?;
            }
        }
    }
    Ok(if complete { Exit::Ok } else { Exit::Inconclusive })
}

/// The `--json` document of `explore`: the totals at the top, each run below.
pub fn explore_json(file: &Path, prog: &Program, cfg: &Config, runs: &[Run]) -> serde_json::Value {
    let mut addrs: Vec<String> = runs.iter().flat_map(|r| r.racy_addresses.iter().cloned()).collect();
    addrs.sort();
    addrs.dedup();
    let total = |f: fn(&race_oracles::explore::Stats) -> u64| runs.iter().map(|r| f(&r.executions)).sum::<u64>();
    serde_json::json!({
        "program": file.display().to_string(),
        "dialect": prog.dialect,
        "bounds": cfg,
        "complete": runs.iter().all(|r| r.executions.complete),
        "executions": {
            "total": total(|s| s.executions),
            "terminated": total(|s| s.terminated),
            "stuck": total(|s| s.stuck),
            "deadlocked": total(|s| s.deadlocked),
            "infeasible": total(|s| s.infeasible),
            "truncated": total(|s| s.truncated),
        },
        "racy": runs.iter().any(|r| r.racy),
        "racy_addresses": addrs,
        "witness": runs.iter().find_map(|r| r.witness.as_ref()).map(crate::render::witness_json),
        "runs": runs.iter().map(run_json).collect::<Vec<_>>(),
    })
}

fn run_json(r: &Run) -> serde_json::Value {
    serde_json::json!({
        "setup": r.setup, "threads": r.threads, "executions": r.executions, "racy": r.racy,
        "racy_addresses": r.racy_addresses, "hb_racy_addresses": r.hb_racy_addresses,
        "problems": r.problems, "final_states": r.final_states, "witness": r.witness.as_ref().map(crate::render::witness_json),
    })
}
