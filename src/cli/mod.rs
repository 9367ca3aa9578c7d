//! The command line: `explore`, `replay`, `trace`, `races`, `corpus`, `analyze`, `check`,
//! `mutants`, `fuzz`, `merge`, `shrink`, `gen`, `bench-mutants`. This file is the clap tree
//! and its dispatch; each subcommand has its module (`*_cmd`), and what they share is in
//! [`shared`], the only module of `cli/` they import. Flags are validated into plain data
//! here; the work is in `race-oracles` (ground truth, oracles), `suts` and `campaign`, and
//! all text comes from `render`.
//!
//! Two voices: an error the user caused names its place and exits 2
//! ([`shared::CliError::input`]); an internal bug says so and exits 4
//! ([`shared::CliError::internal`]); a budget is exit 3.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

pub use shared::load;
use shared::{BoundArgs, DetectorArgs, PictureArgs, EXIT_CODES};

mod check_cmd;
mod corpus_cmd;
mod detectors_cmd;
mod explore_cmd;
mod export_cmd;
pub mod fuzz_cmd;
mod gen_cmd;
mod merge_cmd;
mod replay_cmd;
mod score_cmd;
pub mod shared;
mod shrink_cmd;
pub mod trace_cmd;

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
    Explore(explore_cmd::ExploreArgs),
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
        /// The detector: `fasttrack`, a real one (`tsan@gcc-12`, `helgrind`, `drd`;
        /// `racefuzz detectors`), a check placer with its detector (`per-access`,
        /// `bigfoot`), or a model checker (`loom@0.7.3`: per program only); default
        /// fasttrack (or the --detector-cmd). Repeat it to put several
        /// side by side on the same programs and traces, with every distinct deviation of
        /// each shrunk and classified (a --detector-cmd joins them as one more row).
        #[arg(long)]
        sut: Vec<String>,
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
        /// The programs' generator: the scorecard oracle's, `histories` (chains of forked
        /// readers before a write: histories longer than a bounded detector keeps), `limits`
        /// (every form aimed at a detector's documented limits; `racefuzz gen limits
        /// --stats`), or `atomics` (programs with atomics and fences: a detector's atomics
        /// column); use the last three with --classes.
        #[arg(long, value_enum, default_value_t = crate::score::Generator::Oracle)]
        generator: crate::score::Generator,
        /// The most traces explored per program; a program with more is cut, its traces
        /// counted per trace and left out of the program row (for a slow detector on
        /// programs with many classes).
        #[arg(long, default_value_t = crate::score::BUDGET)]
        max_traces: u64,
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
    /// List the real detectors (ThreadSanitizer per compiler, Helgrind, DRD) with whether
    /// each is installed here, its version, the pinned version, and the command that
    /// installs it; with names, exit 2 unless each is installed.
    Detectors {
        /// Real detectors to check (`tsan@clang-19`, `helgrind`); default: list them all.
        names: Vec<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List the seeded bugs with their oracle and the spec's prediction.
    Mutants {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// What `racefuzz export` writes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ExportFormat {
    /// A C11 program that replays the execution under ThreadSanitizer.
    C,
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

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    shared::signals::install();
    let result = match cli.cmd {
        Cmd::Explore(a) => explore_cmd::explore(&a),
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
                (Some(s), _) => shared::Which::Schedule(s),
                (None, true) => shared::Which::Classes,
                (None, false) => shared::Which::All,
            };
            trace_cmd::trace(&trace_cmd::TraceArgs { file: &a.file, which, format: a.format, out: a.out.as_deref(), force: a.force, bounds: &a.bounds })
        }
        Cmd::Races { trace, names, json } => trace_cmd::races(&trace, names.as_deref(), json),
        Cmd::Mutants { json } => check_cmd::list(json),
        Cmd::Detectors { names, json } => detectors_cmd::run(&names, json),
        Cmd::Export { format: ExportFormat::C, file, schedule, output, trace_arg, bounds } => {
            export_cmd::export_c(&file, schedule.as_deref(), output.as_deref(), trace_arg, &bounds)
        }
        Cmd::Score { sut, mutant, programs, seed, classes, jobs, generator, max_traces, json, detector } => {
            score_cmd::run(&sut, mutant.as_deref(), &detector, crate::score::Corpus { programs, seed, classes, generator, max_traces, strengthened: false }, jobs, json)
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
        Cmd::Shrink { file, oracle, mutant, sut, into_test, root_cause, force, max_attempts, detector } => shrink_cmd::shrink(&shrink_cmd::ShrinkArgs {
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
