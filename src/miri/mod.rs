//! Miri's data-race detector as a system under test (docs/spec/atomics.md §5.4, §6.2): each
//! trace replayed, event by event, by a Rust driver that Miri interprets
//! (`cargo +nightly miri run`), whose first error is read back as events of the trace
//! (`report`).
//!
//! Miri implements Lidbury and Donaldson's vector clocks with C++20 release sequences and
//! stops at the first undefined behaviour, so it claims the **first race** of every trace
//! (`Claim::FirstRace`: its one report is at the trace's first racy event, and a race-free
//! trace has none); it names both accesses, so `--claim pairs` holds it to that too. Miri
//! cannot replay a given interleaving by itself (its scheduler is random), so the driver
//! makes one: threads take turns on a *relaxed* counter, from which Miri derives no
//! happens-before, with weak-memory emulation off (every load reads the latest store, as
//! in the trace) and no preemption (a thread runs until it yields in its wait for its
//! turn). What Miri then sees is the trace's own happens-before: program order, fork and
//! join (`pthread_create`, `pthread_join`), locks (`std::sync::Mutex`), and the program's
//! atomics and fences, with their orders (`replay`).
//!
//! The driver (`drivers/miri/src/main.rs`, compiled into racefuzz) is written once into
//! racefuzz's cache ([`cache_dir`]`/miri-HASH/`, HASH of its text, so a seeded bug's
//! driver is a folder of its own) and reads the trace from its arguments, so no program
//! is compiled per program or trace: Miri interprets the driver on each run (about 0.5 s a
//! trace on this project's machine, mostly Miri's start).

mod replay;
mod report;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use race_oracles::lang::AccessKind;
use race_oracles::machine::{Addr, Event, EventIdx, EventKind, FieldId, ObjId, ThreadId};
use race_oracles::theorems::detector::{DetectorFailure, DetectorReport};
use race_oracles::theorems::{Claim, DetectorFactory, DynamicDetector, Reported, Traces};

use crate::external::{cache_dir, wait_with_timeout};
use crate::seeded::{Predicted, Seeded};

pub use replay::{encode, EncodeError, Encoded};
pub use report::{parse, Outcome, RaceReport, RacingPair};

/// The driver, compiled into racefuzz so that an instance never reads the source tree.
const CARGO_TOML: &str = include_str!("../../drivers/miri/Cargo.toml.in");
const MAIN_RS: &str = include_str!("../../drivers/miri/src/main.rs");

/// The flags Miri runs the replay with: weak-memory emulation off (loads read the latest
/// store, as in an SC trace, spec §5.4), a fixed seed and no preemption (the turns decide
/// the schedule; a thread waiting for its turn yields), leaks ignored (a thread of a stuck
/// trace may end holding its lock's guard), and no reuse of an address freed by another
/// thread: Miri makes the thread that reuses it acquire the clock of the one that freed it,
/// so the driver's own allocations (a line it prints) synchronized its threads and hid
/// races (L3–L5, L7, L14, L15 of docs/spec/atomics.md §8 were missed before this flag).
/// Isolation stays on: the trace comes as arguments.
pub const MIRIFLAGS: &str = "-Zmiri-disable-weak-memory-emulation -Zmiri-seed=0 -Zmiri-preemption-rate=0 -Zmiri-ignore-leaks -Zmiri-address-reuse-cross-thread-rate=0";

/// The toolchain `cargo +TOOLCHAIN miri` runs.
pub const TOOLCHAIN: &str = "nightly";

/// How long one trace may run under Miri.
pub const TIMEOUT: Duration = Duration::from_secs(60);

/// Seeded bugs of the harness around Miri, not of Miri: what a careless replay does, which
/// the oracles must catch as they would a detector's bug.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MiriBug {
    /// The turn counter is read with acquire and written with release: Miri models them, so
    /// it sees each event ordered after the one before it, and no race at all.
    TurnsSynchronize,
}

/// The seeded bugs of `miri` (the SUT catalogue's `miri` entry applies them).
pub const SEEDED: &[Seeded<MiriBug>] = &[Seeded {
    name: "miri-turns-synchronize",
    oracle: "fasttrack-precise",
    description: "the Miri replay's turn counter is acquire/release, not relaxed: Miri sees the turns as synchronization and every trace as race-free",
    predicted: Predicted::breaks(&["fasttrack-precise", "fasttrack-precise-atomics"]),
    spec: "spec/atomics.md §5.4, §6.2; the replay's turns add no synchronization Miri can see (src/miri/mod.rs)",
    bug: MiriBug::TurnsSynchronize,
}];

/// The driver's relaxed turns and their synchronizing version.
const TURNS_RELAXED: &str = "const TURNS: (Ordering, Ordering) = (Ordering::Relaxed, Ordering::Relaxed);";
const TURNS_SYNCHRONIZE: &str = "const TURNS: (Ordering, Ordering) = (Ordering::Acquire, Ordering::Release);";

/// Why Miri gave no answer on a trace: the oracles make it a finding, never a pass.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MiriError {
    /// The driver's folder in the cache.
    #[error("cannot write Miri's driver in {0}: {1}")]
    Cache(String, String),
    /// `cargo +nightly miri` could not run, failed or timed out.
    #[error("`cargo +{TOOLCHAIN} miri` {0}")]
    Run(String),
    /// The trace has no replay.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// Miri stopped with something other than a data race.
    #[error("Miri stopped with an error that is not a data race: {0}")]
    Other(String),
    /// A race report that names no events of the trace.
    #[error("a Miri report that names no events of the trace: {0}")]
    Unmapped(String),
}

/// Miri through `cargo +nightly miri`, with a seeded harness bug or none.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Miri {
    /// A seeded bug of the harness ([`SEEDED`]), if any.
    pub bug: Option<MiriBug>,
}

/// FNV-1a, for the driver folder's name.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// `cargo`: the one of `$CARGO` (set when racefuzz runs under cargo), else the one on `PATH`;
/// `+nightly` needs rustup's proxy, which both are where rustup installed Rust.
fn cargo() -> String {
    std::env::var("CARGO").ok().filter(|c| !c.is_empty() && !c.contains("/toolchains/")).unwrap_or_else(|| "cargo".into())
}

impl Miri {
    /// The driver's source as this harness writes it.
    fn source(&self) -> String {
        match self.bug {
            None => MAIN_RS.to_string(),
            Some(MiriBug::TurnsSynchronize) => MAIN_RS.replace(TURNS_RELAXED, TURNS_SYNCHRONIZE),
        }
    }

    /// The driver's folder in the cache, written on first use (files replaced by rename, so
    /// concurrent writers are safe).
    ///
    /// # Errors
    /// [`MiriError::Cache`].
    pub fn driver(&self) -> Result<PathBuf, MiriError> {
        static WRITTEN: OnceLock<Mutex<Vec<PathBuf>>> = OnceLock::new();
        let source = self.source();
        let dir = cache_dir(&|k| std::env::var_os(k)).join(format!("miri-{:016x}", fnv(format!("{CARGO_TOML}\n{source}").as_bytes())));
        let mut written = WRITTEN.get_or_init(Mutex::default).lock().unwrap_or_else(|e| e.into_inner());
        if written.contains(&dir) {
            return Ok(dir);
        }
        let err = |e: std::io::Error| MiriError::Cache(dir.display().to_string(), e.to_string());
        std::fs::create_dir_all(dir.join("src")).map_err(err)?;
        for (name, text) in [("Cargo.toml", CARGO_TOML), ("src/main.rs", source.as_str())] {
            let partial = dir.join(format!("{name}.{}.partial", std::process::id()));
            std::fs::write(&partial, text).map_err(err)?;
            std::fs::rename(&partial, dir.join(name)).map_err(err)?;
        }
        written.push(dir.clone());
        Ok(dir)
    }

    /// One trace under Miri: what it ended with, and the replay's layout.
    ///
    /// # Errors
    /// [`MiriError`] when Miri could not run or the trace has no replay.
    pub fn run(&self, trace: &[Event], timeout: Duration) -> Result<(Outcome, Encoded), MiriError> {
        let encoded = encode(trace)?;
        let dir = self.driver()?;
        let child = Command::new(cargo())
            .args([&format!("+{TOOLCHAIN}"), "miri", "run", "-q", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .arg("--")
            .args(&encoded.args)
            .env("MIRIFLAGS", MIRIFLAGS)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_TARGET_DIR")
            .env_remove("CARGO_BUILD_TARGET_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| MiriError::Run(format!("cannot start: {e}")))?;
        let (_, _, err) = wait_with_timeout(child, timeout).map_err(|f| MiriError::Run(f.to_string()))?;
        Ok((parse(&String::from_utf8_lossy(&err)), encoded))
    }

    /// The races Miri reports on `trace`: none, or the one it stopped at.
    ///
    /// # Errors
    /// [`MiriError`]: Miri could not run, stopped with another error, or named no events.
    pub fn races(&self, trace: &[Event]) -> Result<Option<RacingPair>, MiriError> {
        match self.run(trace, TIMEOUT)? {
            (Outcome::Clean, _) => Ok(None),
            (Outcome::Race(r), encoded) => r.events(trace, &encoded.cells).map(Some).map_err(MiriError::Unmapped),
            (Outcome::Other(m), _) => Err(MiriError::Other(m)),
        }
    }

    /// Miri's version (`miri 0.1.0 (e50aa6fba4 2026-05-19)`: `0.1.0 (e50aa6fba4
    /// 2026-05-19)`), if `cargo +nightly miri` runs and has its sysroot (the first call on a
    /// machine builds it: about 40 s), and its replay of a racy trace reports the race.
    ///
    /// # Errors
    /// What is missing, for the not-installed message of the detector table.
    pub fn probe() -> Result<String, String> {
        let run = |args: &[&str]| -> Result<String, String> {
            let cargo = cargo();
            let out = Command::new(&cargo).arg(format!("+{TOOLCHAIN}")).args(args).stdin(Stdio::null()).output().map_err(|e| format!("`{cargo}` cannot run ({e})"))?;
            if !out.status.success() {
                let err = String::from_utf8_lossy(&out.stderr);
                return Err(format!("`cargo +{TOOLCHAIN} {}` failed: {}", args.join(" "), err.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim()));
            }
            Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
        };
        let version = run(&["miri", "--version"])?;
        run(&["miri", "setup"])?;
        // Two threads write one cell: the replay must stop at the second write.
        let x = Addr::Field(ObjId(0), FieldId(0));
        let racy: Vec<Event> = (0..2).map(|i| Event::plain(EventIdx(i), ThreadId(i), 1, EventKind::Access(AccessKind::Write, x))).collect();
        match Miri::default().races(&racy) {
            Ok(Some(RacingPair { at: EventIdx(1), partner: EventIdx(0) })) => Ok(version.trim_start_matches("miri ").to_string()),
            Ok(other) => Err(format!("its replay of a racy trace reports {other:?}, not the race")),
            Err(e) => Err(format!("its replay of a racy trace fails: {e}")),
        }
    }
}

impl DetectorFactory for Miri {
    fn fresh(&self) -> Box<dyn DynamicDetector> {
        Box::new(MiriRun { miri: Arc::new(self.clone()), report: None })
    }

    fn claim(&self) -> Claim {
        Claim::FirstRace
    }

    /// One per class as the other replays ask; the first-race claim is not the same on every
    /// trace of a class, so `fasttrack-precise` runs every trace all the same.
    fn traces(&self) -> Traces {
        Traces::OnePerClass
    }
}

/// One trace under Miri; remembers the pair it reported for [`DynamicDetector::explain`].
struct MiriRun {
    miri: Arc<Miri>,
    report: Option<RacingPair>,
}

impl DynamicDetector for MiriRun {
    fn on_event(&mut self, _: &Event) -> Result<(), Reported> {
        Ok(())
    }

    fn name(&self) -> String {
        "Miri".into()
    }

    fn whole_trace(&self) -> bool {
        true
    }

    fn on_trace(&mut self, trace: &[Event]) -> Result<Vec<Option<EventIdx>>, DetectorFailure> {
        self.report = self.miri.races(trace).map_err(|e| DetectorFailure(e.to_string()))?;
        Ok(self.report.iter().map(|p| Some(p.at)).collect())
    }

    fn explain(&self, _: &[Event], at: EventIdx) -> DetectorReport {
        let partners: Vec<EventIdx> = self.report.filter(|p| p.at == at).map(|p| p.partner).into_iter().collect();
        let with = partners.first().map_or(String::new(), |p| format!(" with event {}", p.0));
        DetectorReport { at, partners, reason: format!("Miri stopped at a data race at event {}{with}", at.0), locations: vec![] }
    }
}
