//! loom, the Rust model checker (crates.io `loom`), at any version, as a whole-program race
//! detector.
//!
//! loom's cell (`loom::cell::UnsafeCell`, `CausalCell` in the 0.2 series) panics with a
//! *causality violation* when two accesses of it are not ordered by happens-before, and
//! `loom::model` explores every interleaving of `loom::thread`s and `loom::sync::Mutex`es
//! (DPOR, complete without a preemption bound). The claim racefuzz holds it to is the
//! whole program's: **loom reports a causality violation iff the program has a data race**
//! (a happens-before race in some execution, `race_oracles::truth::ground_truth`'s `racy`).
//! Programs beyond loom's bounds are [`LoomVerdict::BeyondBounds`], which an oracle makes
//! `inconclusive`, never a pass.
//!
//! ## How a program runs in loom
//! A driver crate, `drivers/loom/` in the checkout (a template: `Cargo.toml.in`,
//! `src/main.rs`, `src/shim.rs.in`; not a workspace member), is instantiated per loom
//! version into racefuzz's cache ([`cache_dir`]: `$RACEFUZZ_CACHE`, else
//! `$XDG_CACHE_HOME/racefuzz`, else `~/.cache/racefuzz`), in `loom-V-HASH/` (HASH: of this
//! checkout's `oracles/` path, so two checkouts never rebuild each other's driver), with
//! `loom = "=V"` and the checkout's `oracles/` as a path dependency, and built once with
//! `cargo build --release` ([`Loom::driver`]) into `target-HASH/`, which every version
//! shares: the binary is `target-HASH/release/racefuzz-loom-0_7_3`. Each program is then one run of the driver
//! ([`Loom::run`]). The driver has no semantics of its own: it parses the program with the
//! ground truth's parser, and each loom thread steps the ground truth's machine for its
//! own thread, performing each event's effect through loom (a cell access per heap access,
//! a loom mutex per lock, `spawn` per fork, `join` per join). `drivers/loom/src/main.rs`
//! says why that is faithful, and what it does where loom cannot follow (choices are
//! enumerated outside loom; cells come from a pool made before any thread starts, because
//! creating a loom cell counts as a write by its creator).
//!
//! ## Atomics
//! An atomically used field (one that some atomic statement names) is a loom
//! `AtomicI64` (`AtomicU64` or `AtomicUsize` before 0.4), operated with the program's own
//! orders; a plain read of it is `unsync_load`, and a plain write to it is
//! [`LoomVerdict::BeyondBounds`] (loom needs `&mut`). loom may let a load return an older store,
//! which the SC machine never does: the driver follows loom's value, and a race found after
//! such a read is [`LoomVerdict::RaceNonSc`] (`drivers/loom/src/atomics.rs` has the rules).
//! `whole-program-exact-atomics` judges it with docs/spec/atomics.md §3.4's labels. Measured on
//! 0.7.3 (spec §5.3): L9 is a false positive, and L12 is missed (fences are no scheduling
//! points, and SC fences join one global clock).
//!
//! ## Versions (rustc 1.95, measured on this project's machine)
//! [`VERSIONS`] lists all 41 published versions with the outcome: 0.2.15 to 0.7.3 (23
//! versions) build and agree with the ground truth; 0.2.0 to 0.2.14 build but miss races
//! (findings about them: 0.2.0–0.2.2's cell records no reads, and a race fixed in 0.2.15);
//! 0.1.x and 0.0.1 have no `loom::model`.
//! [`Loom::new`] takes any `MAJOR.MINOR.PATCH` of the 0.2–0.7 series (a version that does
//! not exist is [`LoomError::NoSuchVersion`] at [`Loom::driver`]). No version needed a
//! pinned dependency ([`PINS`], empty).
//!
//! ## Costs (measured on this project's machine: 2 cores, shared)
//! - First build of a version on a fresh cache: 2.5 min at two jobs, 3.2 min at one (mostly
//!   race-oracles and its dependencies in release mode); another version of the same
//!   checkout then takes 5–70 s (the shared target folder); a built one, a 0.1 s cargo
//!   no-op per process.
//! - One program: 3–6 ms (median, process start included) for the generators' programs,
//!   37 ms at most over 600 of them.
//!
//! ## As a SUT (`loom@V`)
//! `suts::SUTS`'s `loom` entry lends a [`Loom`] as a
//! [`race_oracles::theorems::ModelChecker`], judged by `whole-program-exact` on the
//! BFJ/BFJ2 programs of `gen::threads::swarm_detectors`, and by
//! `whole-program-exact-atomics` on `gen::threads::swarm_atomics_model_checkers` (the atomic
//! programs with a plain read of a flag where they would write it plainly, which loom cannot
//! run); the real detectors' table lists
//! its versions, and naming one builds its driver first (its installation probe), so that
//! a version that does not build is exit 2 with the compiler's message, never a skipped
//! pass. [`LoomVerdict::BeyondBounds`] is `inconclusive`; an error is a failure of the SUT
//! (`MODEL CHECKER FAILED`), never a no-race.

use std::collections::HashMap;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use race_oracles::lang::Program;
use race_oracles::theorems::{ModelChecker, ModelVerdict};

use crate::external::{cache_dir, wait_with_timeout, Failure};

mod versions;
pub use versions::{Support, PINS, VERSIONS};

/// The driver template, compiled into racefuzz so that an instance never reads the
/// source tree's copy (only `oracles/`, by path).
const CARGO_TOML: &str = include_str!("../../drivers/loom/Cargo.toml.in");
const MAIN_RS: &str = include_str!("../../drivers/loom/src/main.rs");
const SHIM_RS: &str = include_str!("../../drivers/loom/src/shim.rs.in");
const ATOMICS_RS: &str = include_str!("../../drivers/loom/src/atomics.rs");
/// The ground truth crate the driver steps, in this checkout.
const ORACLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/oracles");
/// This checkout's lock file: the instance starts from it, so the dependencies it shares
/// with racefuzz resolve to the versions racefuzz is tested with.
const LOCK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock");

/// The first field of the driver's one line (`drivers/loom/src/main.rs`).
const TAG: &str = "racefuzz-loom";

/// How long building a driver may take (race-oracles and loom from scratch in release mode
/// took 2.5 minutes on two cores).
pub const BUILD_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The limits passed to the driver. The defaults match the ground truth's
/// (`race_oracles::explore::Config::default`'s `loop_bound`) and keep a program's run well
/// under a second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Iterations of a `while *` (the machine's `loop_bound`; must equal the ground truth's).
    pub loop_bound: u32,
    /// loom's preemption bound; `Some` makes every clean run [`LoomVerdict::BeyondBounds`],
    /// since a bounded search proves nothing.
    pub preemption_bound: Option<usize>,
    /// loom's branches per execution.
    pub max_branches: usize,
    /// Distinct addresses a program may touch in one execution.
    pub cells: usize,
    /// Distinct locks.
    pub locks: usize,
    /// Assignments of nondeterministic choices, each a run of `loom::model`.
    pub max_choices: usize,
    /// Spare atomics per execution, for atomic cells of objects that threads allocate (those
    /// of the initial heap are made besides).
    pub atomics: usize,
    /// Machine steps per execution.
    pub max_steps: u64,
}

impl Default for Bounds {
    fn default() -> Bounds {
        Bounds { loop_bound: 2, preemption_bound: None, max_branches: 10_000, cells: 64, locks: 8, max_choices: 256, atomics: 8, max_steps: 100_000 }
    }
}

impl Bounds {
    fn args(&self) -> Vec<String> {
        let mut a = vec![];
        let mut put = |k: &str, v: String| {
            a.push(k.to_string());
            a.push(v);
        };
        put("--loop-bound", self.loop_bound.to_string());
        if let Some(p) = self.preemption_bound {
            put("--preemption-bound", p.to_string());
        }
        put("--max-branches", self.max_branches.to_string());
        put("--cells", self.cells.to_string());
        put("--locks", self.locks.to_string());
        put("--max-choices", self.max_choices.to_string());
        put("--atomics", self.atomics.to_string());
        put("--max-steps", self.max_steps.to_string());
        a
    }
}

/// loom at one version.
#[derive(Clone, Debug)]
pub struct Loom {
    /// An exact published version, `0.7.3`.
    pub version: String,
    /// Where drivers are built ([`cache_dir`] by default).
    pub cache: PathBuf,
    /// How long one program may run.
    pub timeout: Duration,
    /// The driver's limits.
    pub bounds: Bounds,
}

/// What loom says of a whole program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoomVerdict {
    /// A causality violation: the program has a data race.
    Race {
        /// The address loom's violation is on (`o1.f`, the ground truth's name).
        address: String,
        /// The program line of the access that loom stopped at.
        line: u32,
        /// The accesses involved and loom's own message.
        detail: String,
    },
    /// A causality violation in an execution in which some atomic load (or RMW) returned a
    /// store other than the newest, or may have (`drivers/loom/src/atomics.rs`): not an SC
    /// execution, so a possible weak-memory race (docs/spec/atomics.md §3.4).
    RaceNonSc {
        /// The address loom's violation is on.
        address: String,
        /// The program line of the access that loom stopped at.
        line: u32,
        /// The accesses involved and loom's own message.
        detail: String,
    },
    /// loom explored every execution (under every choice assignment) without a violation.
    NoRace {
        /// Executions loom ran.
        executions: u64,
    },
    /// No answer: the program is beyond loom's bounds or the driver's.
    BeyondBounds {
        /// Which bound, and what to raise if it can be raised.
        why: String,
    },
}

/// Why loom gave no verdict. Never a [`LoomVerdict::NoRace`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoomError {
    /// Not `MAJOR.MINOR.PATCH` of a series the driver has a shim for.
    #[error("loom@{0}: not a version racefuzz can drive (MAJOR.MINOR.PATCH of 0.2 to 0.7, e.g. loom@0.7.3)")]
    BadVersion(String),
    /// `cargo` cannot be run.
    #[error("cannot run `{cargo}` to build the loom driver: {why} (install Rust with rustup, or set $CARGO)")]
    NoCargo {
        /// The command tried.
        cargo: String,
        /// The operating system's reason.
        why: String,
    },
    /// crates.io has no such version.
    #[error("loom {version} is not on crates.io: {message}")]
    NoSuchVersion {
        /// The version asked for.
        version: String,
        /// cargo's message.
        message: String,
    },
    /// The driver does not build for this version.
    #[error("the loom {version} driver does not build (in {dir}): {message}")]
    Build {
        /// The version.
        version: String,
        /// The instance's folder, to rebuild by hand.
        dir: String,
        /// The end of cargo's output (the compiler's errors).
        message: String,
    },
    /// The cache cannot be written.
    #[error("cannot write the loom driver under {dir}: {why}")]
    Cache {
        /// The folder.
        dir: String,
        /// The operating system's reason.
        why: String,
    },
    /// The driver rejected the program (syntax, dialect, a stuck `init`).
    #[error("the loom driver rejects the program: {0}")]
    BadProgram(String),
    /// The driver failed otherwise: a panic that is not loom's report, a signal, output
    /// that is not its protocol.
    #[error("the loom {version} driver crashed: {why}")]
    Crash {
        /// The version.
        version: String,
        /// What it said, or its status.
        why: String,
    },
    /// It ran longer than [`Loom::timeout`].
    #[error("the loom {version} driver gave no answer within {}s (killed)", .timeout.as_secs_f64())]
    Timeout {
        /// The version.
        version: String,
        /// The limit.
        timeout: Duration,
    },
}

impl Loom {
    /// loom at `version` with the default cache, a 60 s timeout per program and default
    /// bounds.
    ///
    /// # Errors
    /// [`LoomError::BadVersion`] when `version` is not `MAJOR.MINOR.PATCH` of 0.2 to 0.7.
    pub fn new(version: &str) -> Result<Loom, LoomError> {
        shim_params(version)?;
        Ok(Loom { version: version.to_string(), cache: cache_dir(&|k| std::env::var_os(k)), timeout: Duration::from_secs(60), bounds: Bounds::default() })
    }

    /// The folder of this version's driver crate.
    pub fn dir(&self) -> PathBuf {
        self.cache.join(format!("loom-{}-{}", self.version, checkout_hash()))
    }

    /// The target folder every version's driver of this checkout shares (race-oracles and
    /// the dependencies they share are built once).
    pub fn target_dir(&self) -> PathBuf {
        self.cache.join(format!("target-{}", checkout_hash()))
    }

    /// The driver's binary, built or not.
    fn binary(&self) -> PathBuf {
        self.target_dir().join(format!("release/racefuzz-loom-{}", self.slug()))
    }

    /// Whether this version's driver has been built in the cache (by this checkout or an
    /// earlier run): [`Loom::driver`] is then a cargo no-op.
    pub fn built(&self) -> bool {
        self.binary().is_file()
    }

    /// The version in a package and binary name: `0_7_3`.
    fn slug(&self) -> String {
        self.version.replace('.', "_")
    }

    /// The driver's binary: instantiated and built on the first call in a process (a cargo
    /// no-op when an earlier process built it), then remembered, errors included.
    /// Concurrent callers are safe: files are replaced by rename, cargo locks its target
    /// folder, and calls in one process wait for each other.
    ///
    /// # Errors
    /// [`LoomError::NoCargo`], [`LoomError::NoSuchVersion`], [`LoomError::Build`],
    /// [`LoomError::Cache`], [`LoomError::BadVersion`].
    pub fn driver(&self) -> Result<PathBuf, LoomError> {
        static BUILT: OnceLock<Mutex<HashMap<PathBuf, Result<PathBuf, LoomError>>>> = OnceLock::new();
        let mut built = BUILT.get_or_init(Mutex::default).lock().unwrap_or_else(|e| e.into_inner());
        let dir = self.dir();
        if let Some(r) = built.get(&dir) {
            return r.clone();
        }
        let r = self.build(&dir);
        built.insert(dir, r.clone());
        r
    }

    fn build(&self, dir: &Path) -> Result<PathBuf, LoomError> {
        let shim = shim_params(&self.version)?;
        let cache_err = |e: std::io::Error| LoomError::Cache { dir: dir.display().to_string(), why: e.to_string() };
        let fresh = !dir.join("Cargo.lock").exists();
        write_if_changed(&dir.join("Cargo.toml"), &CARGO_TOML.replace("@LOOM@", &self.version).replace("@SLUG@", &self.slug()).replace("@ORACLES@", ORACLES)).map_err(cache_err)?;
        write_if_changed(&dir.join("src/main.rs"), MAIN_RS).map_err(cache_err)?;
        write_if_changed(&dir.join("src/atomics.rs"), ATOMICS_RS).map_err(cache_err)?;
        write_if_changed(&dir.join("src/shim.rs"), &shim.instantiate(&self.version)).map_err(cache_err)?;
        if fresh {
            if let Ok(lock) = std::fs::read_to_string(LOCK) {
                write_if_changed(&dir.join("Cargo.lock"), &lock).map_err(cache_err)?;
            }
            for (name, precise) in PINS.iter().filter(|(v, _)| self.version.starts_with(v)).flat_map(|(_, p)| p.iter()) {
                self.cargo(dir, &["update", "-p", name, "--precise", precise])?;
            }
        }
        self.cargo(dir, &["build", "--release", "--quiet"])?;
        Ok(self.binary())
    }

    /// Runs cargo in the instance, its failure as a [`LoomError`].
    fn cargo(&self, dir: &Path, args: &[&str]) -> Result<(), LoomError> {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let child = Command::new(&cargo)
            .args(args)
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", self.target_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .map_err(|e| LoomError::NoCargo { cargo: cargo.clone(), why: e.to_string() })?;
        let fail = |message: String| {
            if message.contains("failed to select a version for the requirement `loom") || message.contains("candidate versions found which didn't match") {
                LoomError::NoSuchVersion { version: self.version.clone(), message }
            } else {
                LoomError::Build { version: self.version.clone(), dir: dir.display().to_string(), message }
            }
        };
        match wait_with_timeout(child, BUILD_TIMEOUT) {
            Ok((status, _, _)) if status.success() => Ok(()),
            Ok((status, _, err)) => Err(fail(format!("`cargo {}` exited with {status}: {}", args.join(" "), tail(&err, 4_000)))),
            Err(e) => Err(fail(format!("`cargo {}`: {e}", args.join(" ")))),
        }
    }

    /// loom's verdict on one program (`.race` text), building the driver first if needed.
    ///
    /// # Errors
    /// [`Loom::driver`]'s, and [`LoomError::BadProgram`], [`LoomError::Crash`],
    /// [`LoomError::Timeout`]: a driver that crashes or hangs never gives a verdict.
    pub fn run(&self, program_source: &str) -> Result<LoomVerdict, LoomError> {
        let driver = self.driver()?;
        let mut cmd = Command::new(&driver);
        cmd.args(self.bounds.args()).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
        // loom's Builder reads these (a preemption bound, a permutation or time limit that
        // ends the search silently, logging); the driver sets its own.
        for (k, _) in std::env::vars_os() {
            if k.to_string_lossy().starts_with("LOOM_") {
                cmd.env_remove(k);
            }
        }
        let crash = |why: String| LoomError::Crash { version: self.version.clone(), why };
        let mut child = cmd.spawn().map_err(|e| crash(format!("cannot start {}: {e}", driver.display())))?;
        if let Some(mut stdin) = child.stdin.take() {
            // A driver that exits before reading (it cannot, but a broken one might) shows
            // up in its status below.
            let _ = stdin.write_all(program_source.as_bytes());
        }
        let (status, out, err) = wait_with_timeout(child, self.timeout).map_err(|f| match f {
            Failure::Timeout(timeout) => LoomError::Timeout { version: self.version.clone(), timeout },
            other => crash(other.to_string()),
        })?;
        let out = String::from_utf8_lossy(&out);
        let line = out.lines().rev().find(|l| l.starts_with(TAG));
        match (status.success(), line) {
            (true, Some(l)) => parse_line(l).map_err(|e| match e {
                Answer::BadProgram(why) => LoomError::BadProgram(why),
                Answer::Crash(why) => crash(why),
            }),
            (_, Some(l)) if l.starts_with(&format!("{TAG}\tcrash")) => Err(crash(l.splitn(3, '\t').nth(2).unwrap_or("").to_string())),
            _ => Err(crash(format!("exited with {status} without a verdict; its stderr ends: {}", tail(&err, 2_000)))),
        }
    }
}

/// loom as racefuzz's [`ModelChecker`] (the `loom@V` SUT): its verdict on the printed
/// program, with the ground truth's loop bound; an error is [`ModelVerdict::Failed`], never
/// a verdict.
impl ModelChecker for Loom {
    fn name(&self) -> String {
        format!("loom {}", self.version)
    }

    fn verdict(&self, p: &Program, loop_bound: u32) -> ModelVerdict {
        let loom = Loom { bounds: Bounds { loop_bound, ..self.bounds }, ..self.clone() };
        match loom.run(&race_oracles::lang::print(p)) {
            Ok(LoomVerdict::Race { address, line, detail }) => ModelVerdict::Race { location: address, line, detail },
            Ok(LoomVerdict::RaceNonSc { address, line, detail }) => ModelVerdict::RaceNonSc { location: address, line, detail },
            Ok(LoomVerdict::NoRace { executions }) => ModelVerdict::NoRace { executions },
            Ok(LoomVerdict::BeyondBounds { why }) => ModelVerdict::BeyondBounds(why),
            Err(e) => ModelVerdict::Failed(e.to_string()),
        }
    }
}

/// A driver line that is not a verdict.
#[derive(Debug, PartialEq, Eq)]
enum Answer {
    BadProgram(String),
    Crash(String),
}

/// Reads the driver's one line (`drivers/loom/src/main.rs`'s table).
fn parse_line(line: &str) -> Result<LoomVerdict, Answer> {
    let f: Vec<&str> = line.split('\t').collect();
    let field = |i: usize| f.get(i).copied().unwrap_or("");
    let garbage = || Answer::Crash(format!("a line that is not the driver's protocol: `{line}`"));
    match field(1) {
        "race" => Ok(LoomVerdict::Race { address: field(2).to_string(), line: field(3).parse().map_err(|_| garbage())?, detail: field(4).to_string() }),
        "race-non-sc" => Ok(LoomVerdict::RaceNonSc { address: field(2).to_string(), line: field(3).parse().map_err(|_| garbage())?, detail: field(4).to_string() }),
        "no-race" => Ok(LoomVerdict::NoRace { executions: field(2).parse().map_err(|_| garbage())? }),
        "beyond" => Ok(LoomVerdict::BeyondBounds { why: field(2).to_string() }),
        "bad-input" => Err(Answer::BadProgram(field(2).to_string())),
        "crash" => Err(Answer::Crash(field(2).to_string())),
        _ => Err(garbage()),
    }
}

/// What the driver's shim fills in for one version's API ([`shim_params`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shim {
    /// The cell type's path.
    cell: &'static str,
    /// The thread limit, main thread included (an expression).
    max_threads: &'static str,
    /// The 64-bit atomic of one atomic cell.
    atomic: &'static str,
    /// The fences the version has: `none`, `acquire` (others assert), `all`.
    fences: &'static str,
}

impl Shim {
    /// `shim.rs.in` with the placeholders filled in.
    fn instantiate(&self, version: &str) -> String {
        let fence = if self.fences != "none" {
            "loom::sync::atomic::fence(o)"
        } else {
            "let _ = o;\n    unreachable!(\"racefuzz internal bug: the driver refuses fences on a loom without them\")"
        };
        SHIM_RS
            .replace("@VERSION@", version)
            .replace("@CELL@", self.cell)
            .replace("@MAX_THREADS@", self.max_threads)
            .replace("@ATOMIC@", self.atomic)
            .replace("@FENCES@", self.fences)
            .replace("@FENCE@", fence)
    }
}

/// The shim of a version's API, from its series.
fn shim_params(version: &str) -> Result<Shim, LoomError> {
    let bad = || LoomError::BadVersion(version.to_string());
    let parts: Vec<&str> = version.split('.').collect();
    if parts.len() != 3 || parts.iter().any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit())) {
        return Err(bad());
    }
    // `loom::MAX_THREADS` is public from 0.4.1 on; before, a private 4 (and the Builder's
    // default `max_threads`, 4 as well).
    // The 0.2 series' `CausalCell` moved from `sync` to `cell` in 0.2.9.
    // `AtomicI64` appeared in 0.4.0, `AtomicU64` in 0.2.2 (0.2.0 and 0.2.1 have
    // `AtomicUsize`, 64 bits here); `fence` in 0.2.6, for `Acquire` only ("only Acquire
    // fences are currently supported") until 0.5.2.
    let patch: u32 = parts[2].parse().map_err(|_| bad())?;
    let (cell, max_threads) = match (parts[0], parts[1], patch) {
        ("0", "2", 0..=8) => ("loom::sync::CausalCell", "4"),
        ("0", "2", _) => ("loom::cell::CausalCell", "4"),
        ("0", "3", _) | ("0", "4", 0) => ("loom::cell::UnsafeCell", "4"),
        ("0", "4" | "5" | "6" | "7", _) => ("loom::cell::UnsafeCell", "loom::MAX_THREADS"),
        _ => return Err(bad()),
    };
    let atomic = match (parts[1], patch) {
        ("2", 0..=1) => "loom::sync::atomic::AtomicUsize",
        ("2" | "3", _) => "loom::sync::atomic::AtomicU64",
        _ => "loom::sync::atomic::AtomicI64",
    };
    let fences = match (parts[1], patch) {
        ("2", 0..=5) => "none",
        ("2" | "3" | "4", _) | ("5", 0..=1) => "acquire",
        _ => "all",
    };
    Ok(Shim { cell, max_threads, atomic, fences })
}

/// Writes `text` to `path` through a temporary file and a rename, unless it already holds
/// it (so cargo sees no change, and a concurrent reader never a half-written file).
fn write_if_changed(path: &Path, text: &str) -> std::io::Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
}

/// The hash of this checkout's `oracles/` path in the cache's folder names.
fn checkout_hash() -> String {
    format!("{:08x}", fnv(ORACLES.as_bytes()) as u32)
}

/// FNV-1a: a stable hash of the checkout's path for the instance's folder name.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The last `n` bytes of `bytes`, as text.
fn tail(bytes: &[u8], n: usize) -> String {
    let s = String::from_utf8_lossy(bytes);
    let cut = s.char_indices().map(|(i, _)| i).find(|&i| s.len() - i <= n).unwrap_or(s.len());
    s[cut..].trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_of_the_known_series_get_their_shim() {
        let shim = |v| shim_params(v).map(|s| (s.cell, s.max_threads, s.atomic.rsplit("::").next().unwrap_or(""), s.fences));
        assert_eq!(shim("0.7.3"), Ok(("loom::cell::UnsafeCell", "loom::MAX_THREADS", "AtomicI64", "all")));
        assert_eq!(shim("0.5.2"), Ok(("loom::cell::UnsafeCell", "loom::MAX_THREADS", "AtomicI64", "all")));
        assert_eq!(shim("0.5.1"), Ok(("loom::cell::UnsafeCell", "loom::MAX_THREADS", "AtomicI64", "acquire")));
        assert_eq!(shim("0.3.6"), Ok(("loom::cell::UnsafeCell", "4", "AtomicU64", "acquire")));
        assert_eq!(shim("0.4.0"), Ok(("loom::cell::UnsafeCell", "4", "AtomicI64", "acquire")));
        assert_eq!(shim("0.2.15"), Ok(("loom::cell::CausalCell", "4", "AtomicU64", "acquire")));
        assert_eq!(shim("0.2.8"), Ok(("loom::sync::CausalCell", "4", "AtomicU64", "acquire")));
        assert_eq!(shim("0.2.5"), Ok(("loom::sync::CausalCell", "4", "AtomicU64", "none")));
        assert_eq!(shim("0.2.1"), Ok(("loom::sync::CausalCell", "4", "AtomicUsize", "none")));
        for bad in ["0.7", "0.8.0", "1.0.0", "0.7.x", "", "0..1", "0.1.1"] {
            assert_eq!(shim_params(bad), Err(LoomError::BadVersion(bad.into())), "{bad}");
        }
        let text = shim_params("0.7.3").map(|s| s.instantiate("0.7.3")).unwrap_or_default();
        assert!(!text.contains('@') && text.contains("fence(o)"), "{text}");
        let old = shim_params("0.2.3").map(|s| s.instantiate("0.2.3")).unwrap_or_default();
        assert!(!old.contains('@') && old.contains("FENCES: &str = \"none\""), "{old}");
    }

    #[test]
    fn the_driver_line_is_read_strictly() {
        assert_eq!(parse_line("racefuzz-loom\trace\to1.f\t4\tdetail"), Ok(LoomVerdict::Race { address: "o1.f".into(), line: 4, detail: "detail".into() }));
        assert_eq!(parse_line("racefuzz-loom\trace-non-sc\to.d\t3\tdetail"), Ok(LoomVerdict::RaceNonSc { address: "o.d".into(), line: 3, detail: "detail".into() }));
        assert!(matches!(parse_line("racefuzz-loom\trace-non-sc\to.d\tthree\tdetail"), Err(Answer::Crash(_))));
        assert_eq!(parse_line("racefuzz-loom\tno-race\t12\t1"), Ok(LoomVerdict::NoRace { executions: 12 }));
        assert_eq!(parse_line("racefuzz-loom\tbeyond\tdeadlock"), Ok(LoomVerdict::BeyondBounds { why: "deadlock".into() }));
        assert_eq!(parse_line("racefuzz-loom\tbad-input\t1:1: x"), Err(Answer::BadProgram("1:1: x".into())));
        assert!(matches!(parse_line("racefuzz-loom\tno-race\tmany"), Err(Answer::Crash(_))));
        assert!(matches!(parse_line("racefuzz-loom\tmaybe"), Err(Answer::Crash(_))));
    }

    #[test]
    fn bounds_become_the_drivers_flags() {
        let b = Bounds { preemption_bound: Some(2), ..Bounds::default() };
        let a = b.args().join(" ");
        assert!(a.starts_with("--loop-bound 2 --preemption-bound 2 --max-branches 10000"), "{a}");
        assert!(!Bounds::default().args().contains(&"--preemption-bound".to_string()));
    }
}
