//! Fuzz campaigns: generate programs for each oracle's dialect, check them, and keep every
//! counterexample on disk before reporting it (design.md principle 4).
//!
//! Generation uses *swarm testing*: every program draws its own generator knobs (how many
//! methods and statements, whether locks, calls, loops and branches appear, path length,
//! fields), so a campaign covers small focused programs as well as feature-rich ones.
//! Every program's exploration is bounded (the oracle's budgets), and nothing is kept per
//! program except counters, so a campaign's memory stays flat.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use race_oracles::gen::racerdx::build;
use race_oracles::gen::RacerDxKnobs;
use race_oracles::lang::{print, walk_block, Program, Relax, StmtKind};
use race_oracles::theorems::racerdx_complete;
use race_oracles::theorems::racerdx_tp::{self, ReportOutcome, TpConfig};
use race_oracles::theorems::{StaticRaceAnalysis, Verdict};

use crate::analyses::racerdx::{summaries_text, RacerDx};
use crate::mutants;

/// The oracles a campaign can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
pub enum OracleId {
    /// Every RacerDX report is a true race (Theorem 6.10).
    RacerdxTp,
    /// RacerDX summaries equal α of the bounded syntactic traces (Theorem 5.15).
    RacerdxComplete,
}

impl OracleId {
    /// Every oracle, in the order campaigns run them.
    pub const ALL: [OracleId; 2] = [OracleId::RacerdxTp, OracleId::RacerdxComplete];

    /// The oracle's id on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            OracleId::RacerdxTp => "racerdx-tp",
            OracleId::RacerdxComplete => "racerdx-complete",
        }
    }

    /// Looks an oracle up by id.
    pub fn from_name(s: &str) -> Option<OracleId> {
        OracleId::ALL.into_iter().find(|o| o.name() == s)
    }
}

/// The outcome of one oracle on one program, with what a person reads about it.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The verdict.
    pub verdict: Verdict,
    /// The explanation (reports and their outcomes, or the summary comparison).
    pub text: String,
    /// Whether the analysis reported anything (racerdx-tp), for coverage counts.
    pub reports: usize,
}

/// Runs `oracle` on `p`, with `mutant` (`None`: the real analysis).
///
/// # Panics
/// If `mutant` names no catalogued mutant (callers validate names first).
pub fn check(oracle: OracleId, p: &Program, mutant: Option<&str>) -> Checked {
    check_until(oracle, p, mutant, None)
}

/// [`check`], giving up (inconclusive) at `deadline`.
pub fn check_until(oracle: OracleId, p: &Program, mutant: Option<&str>, deadline: Option<Instant>) -> Checked {
    let (opts, relax) = mutants::racerdx(mutant).expect("racefuzz internal bug: unknown mutant reached check");
    let a = RacerDx::new(opts);
    match oracle {
        OracleId::RacerdxTp => {
            let base = TpConfig::default();
            let r = racerdx_tp::check(p, &a, &TpConfig { relax, explore: race_oracles::explore::Config { deadline, ..base.explore } });
            let mut text = format!("racerdx-tp with {}: {}\n", who(&a, mutant), r.verdict);
            if let Some(pre) = &r.precondition {
                text.push_str(&format!("precondition unmet: {pre}\n"));
            }
            for (rep, o) in &r.reports {
                text.push_str(&format!("{rep}\n"));
                match o {
                    ReportOutcome::Confirmed { how, witness } => text.push_str(&format!("  true positive, {how}; schedule {}\n", witness.schedule)),
                    ReportOutcome::Refuted { reason } => text.push_str(&format!("  FALSE POSITIVE: {reason}\n")),
                    ReportOutcome::Unknown { reason } => text.push_str(&format!("  unknown: {reason}\n")),
                }
            }
            if r.verdict == Verdict::Fail {
                text.push_str(&summaries_text(&a, p));
            }
            Checked { verdict: r.verdict, text, reports: r.reports.len() }
        }
        OracleId::RacerdxComplete => {
            let r = racerdx_complete::check(p, &a, 1, relax);
            let mut text = format!("racerdx-complete with {}: {}\n", who(&a, mutant), r.verdict);
            if let Some(n) = &r.note {
                text.push_str(&format!("{n}\n"));
            }
            for c in r.methods.iter().filter(|c| !c.equal) {
                text.push_str(&format!("{}: analysis {}\n{}: α        {}\n", c.method, c.analysis, c.method, c.alpha));
            }
            Checked { verdict: r.verdict, text, reports: 0 }
        }
    }
}

fn who(a: &RacerDx, mutant: Option<&str>) -> String {
    format!("{}{}", a.name(), mutant.map(|m| format!(" (mutant {m})")).unwrap_or_default())
}

/// Swarm knobs for one program: each feature is on or off, each size drawn anew.
pub fn swarm_knobs(rng: &mut impl Rng, relax: Relax) -> RacerDxKnobs {
    RacerDxKnobs {
        max_methods: rng.random_range(1..=3),
        max_stmts: rng.random_range(1..=8),
        max_path: rng.random_range(1..=2),
        fields: rng.random_range(1..=3),
        max_formals: rng.random_range(1..=2),
        max_lock_nesting: if rng.random_bool(0.85) { rng.random_range(1..=2) } else { 0 },
        max_control_nesting: if rng.random_bool(0.75) { rng.random_range(1..=2) } else { 0 },
        calls: rng.random_bool(0.7),
        unmatched_unlock: relax.balanced_locking,
    }
}

/// One generated program: its seed-derived bytes and knobs give it back exactly.
pub fn generate(rng: &mut impl Rng, relax: Relax) -> Program {
    let knobs = swarm_knobs(rng, relax);
    let mut bytes = vec![0u8; rng.random_range(8..80)];
    rng.fill_bytes(&mut bytes);
    build(&bytes, knobs)
}

/// Dialect features of a program, for coverage counts.
pub const FEATURES: [&str; 5] = ["lock", "call", "loop", "branch", "report"];

fn features(p: &Program, reports: usize) -> [bool; 5] {
    let mut f = [false; 5];
    for m in &p.methods {
        walk_block(&m.body, &mut |s| match s.kind {
            StmtKind::Lock => f[0] = true,
            StmtKind::Call { .. } => f[1] = true,
            StmtKind::While { .. } => f[2] = true,
            StmtKind::If { .. } => f[3] = true,
            _ => {}
        });
    }
    f[4] = reports > 0;
    f
}

/// Campaign settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The oracles to run (each program is checked by each).
    pub oracles: Vec<OracleId>,
    /// Wall-clock budget.
    pub time: Duration,
    /// Base seed; job j uses `seed + j`.
    pub seed: u64,
    /// Parallel jobs.
    pub jobs: usize,
    /// A seeded bug to hunt.
    pub mutant: Option<String>,
    /// Where findings go (`corpus/found`).
    pub out: PathBuf,
    /// Stop after this many programs per job (for tests), if set.
    pub max_programs: Option<u64>,
}

/// Counters of a campaign, per oracle.
#[derive(Debug, Default)]
pub struct Counters {
    /// Programs generated.
    pub programs: AtomicU64,
    /// Per oracle: pass, fail, inconclusive.
    pub verdicts: Vec<[AtomicU64; 3]>,
    /// Programs having each feature of [`FEATURES`].
    pub features: [AtomicU64; 5],
    /// Findings written.
    pub written: AtomicU64,
}

/// A counterexample written to disk.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The oracle that failed.
    pub oracle: OracleId,
    /// Where it was written.
    pub path: PathBuf,
}

/// Writes a finding as a `.race` file with a header, atomically (temp file + rename), and
/// returns its path. The name is a hash of the program, so a re-found program overwrites
/// its own file instead of adding a copy.
///
/// # Errors
/// I/O errors.
pub fn write_finding(dir: &Path, oracle: OracleId, mutant: Option<&str>, seed: &str, p: &Program, checked: &Checked) -> std::io::Result<PathBuf> {
    let text = print(p);
    let dir = dir.join(oracle.name());
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{:016x}.race", fnv(&text)));
    let mut header = format!(
        "// racefuzz finding\n// oracle: {}\n// mutant: {}\n// seed: {seed}\n// verdict: {}\n// schedule: none (a false positive has no racing execution; see below)\n",
        oracle.name(),
        mutant.unwrap_or("none"),
        checked.verdict
    );
    for l in checked.text.lines() {
        header.push_str(&format!("//   {l}\n"));
    }
    let tmp = dir.join(format!(".{:016x}.tmp", fnv(&text)));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(header.as_bytes())?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// FNV-1a: a stable hash for file names (std's hasher is not stable across releases).
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Runs a campaign; `on_finding` is called after each finding is on disk. Returns the
/// counters and the findings.
pub fn run(s: &Settings, counters: &Counters, stop: &AtomicBool, on_finding: impl Fn(&Finding) + Sync) -> Vec<Finding> {
    let relax = mutants::racerdx(s.mutant.as_deref()).map(|x| x.1).unwrap_or_default();
    let deadline = Instant::now() + s.time;
    let seen: Mutex<HashSet<u64>> = Mutex::new(HashSet::new());
    let findings: Mutex<Vec<Finding>> = Mutex::new(vec![]);
    std::thread::scope(|scope| {
        for job in 0..s.jobs.max(1) {
            let (seen, findings, on_finding) = (&seen, &findings, &on_finding);
            scope.spawn(move || {
                let seed = s.seed.wrapping_add(job as u64);
                let mut rng = StdRng::seed_from_u64(seed);
                let mut n: u64 = 0;
                while Instant::now() < deadline && !stop.load(Ordering::Relaxed) && s.max_programs.is_none_or(|m| n < m) {
                    n += 1;
                    let p = generate(&mut rng, relax);
                    counters.programs.fetch_add(1, Ordering::Relaxed);
                    let mut reports = 0;
                    for (i, o) in s.oracles.iter().enumerate() {
                        let c = check_until(*o, &p, s.mutant.as_deref(), Some(deadline));
                        reports = reports.max(c.reports);
                        let slot = match c.verdict {
                            Verdict::Pass => 0,
                            Verdict::Fail => 1,
                            Verdict::Inconclusive => 2,
                        };
                        counters.verdicts[i][slot].fetch_add(1, Ordering::Relaxed);
                        if c.verdict == Verdict::Fail {
                            let key = fnv(&format!("{}{}", o.name(), print(&p)));
                            if seen.lock().map(|mut g| g.insert(key)).unwrap_or(false) {
                                let tag = format!("{} (job {job}, program {n})", s.seed);
                                if let Ok(path) = write_finding(&s.out, *o, s.mutant.as_deref(), &tag, &p, &c) {
                                    counters.written.fetch_add(1, Ordering::Relaxed);
                                    let f = Finding { oracle: *o, path };
                                    on_finding(&f);
                                    if let Ok(mut g) = findings.lock() {
                                        g.push(f);
                                    }
                                }
                            }
                        }
                    }
                    for (k, on) in features(&p, reports).into_iter().enumerate() {
                        if on {
                            counters.features[k].fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
    });
    findings.into_inner().unwrap_or_default()
}

impl Counters {
    /// Counters for `n` oracles.
    pub fn new(n: usize) -> Counters {
        Counters { verdicts: (0..n).map(|_| Default::default()).collect(), ..Counters::default() }
    }

    /// Total failures over all oracles.
    pub fn failures(&self) -> u64 {
        self.verdicts.iter().map(|v| v[1].load(Ordering::Relaxed)).sum()
    }
}
