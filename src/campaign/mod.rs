//! Fuzz campaigns: generate programs with each oracle's generator, check them, and keep
//! every counterexample on disk before reporting it (docs/design.md principle 4).
//!
//! Generation is *swarm testing*: an oracle's generator reads its knobs (sizes, which
//! features appear) from the first bytes of its input, so a campaign covers small focused
//! programs as well as feature-rich ones. Every program's exploration is bounded, and
//! nothing is kept per program except counters, so a campaign's memory stays flat.
//!
//! Findings go to an output folder outside the source tree (default [`DEFAULT_OUT`], which
//! git ignores); a finding that cannot be written stops the campaign with an error that
//! carries the finding's whole text, so nothing found is ever lost.
//!
//! Failures are grouped by their [`signature`](crate::signature): a campaign writes the
//! first [`Settings::keep`] programs of each signature, and after them each program smaller
//! than every one written so far, and counts the rest ([`Group`]).

mod shrink;

pub use shrink::{shrink_group, ShrinkError, Shrunk};

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use race_oracles::explore::Config;
use race_oracles::gen::shrink::counts;
use race_oracles::lang::{parse, print, Program, Relax};
use race_oracles::theorems::rules::{self, Tally};
use race_oracles::theorems::{Oracle, OracleResult, Verdict};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::finding_header::FindingHeader;
use crate::render;
use crate::signature::signature;
use crate::summary::features;
use crate::sut_spec::SutSpec;
use crate::suts::{self, Subject};

/// Where findings go unless `--out` says otherwise: relative to the working directory,
/// ignored by git, and never read by `cargo test`.
pub const DEFAULT_OUT: &str = ".racefuzz/found";

/// One generated program for `oracle`: `seed_bytes` random bytes through its generator.
pub fn generate(oracle: &Oracle, subject: &Subject, rng: &mut impl Rng) -> Program {
    generate_with(oracle.generate, subject.relax(), rng)
}

/// One program from a byte-driven generator, drawn as [`generate`] draws them (for the
/// generators no registered oracle uses yet, `racefuzz gen naikaiken`), numbered as printed
/// (`Oracle::program`).
pub fn generate_with(generate: fn(&[u8], Relax) -> Program, relax: Relax, rng: &mut impl Rng) -> Program {
    let mut bytes = vec![0u8; rng.random_range(16..88)];
    rng.fill_bytes(&mut bytes);
    race_oracles::lang::as_printed(&generate(&bytes, relax))
}

/// Advances `rng` past one program, drawing exactly what [`generate_with`] draws without
/// running the generator (a shard skipping the other shards' programs).
fn skip_one(rng: &mut impl Rng) {
    let mut bytes = vec![0u8; rng.random_range(16..88)];
    rng.fill_bytes(&mut bytes);
}

/// A `--shard` that is not `K/N` with `0 <= K < N`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("expected K/N with 0 <= K < N (shard K of N, counted from 0), got `{0}`")]
pub struct BadShard(pub String);

/// Which part of the program space a campaign covers: shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// This shard, `0..count`.
    pub index: u64,
    /// How many shards the space is split into (at least 1).
    pub count: u64,
}

impl Shard {
    /// The whole space: one shard.
    pub const WHOLE: Shard = Shard { index: 0, count: 1 };

    /// Parses `K/N` (0 ≤ K < N).
    ///
    /// # Errors
    /// [`BadShard`], with the text given.
    pub fn parse(text: &str) -> Result<Shard, BadShard> {
        let bad = || BadShard(text.to_string());
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (k.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether this shard checks program `position` (from 0) of a stream.
    pub fn owns(self, position: u64) -> bool {
        position % self.count.max(1) == self.index
    }

    /// How many of a stream's first `budget` programs this shard checks.
    pub fn share_of(self, budget: u64) -> u64 {
        if budget <= self.index {
            0
        } else {
            (budget - self.index - 1) / self.count.max(1) + 1
        }
    }
}

/// The hash of a program's printed text (FNV-1a, as finding file names), as campaign summaries add them up: the
/// wrapping sum of the hashes of the programs an oracle checked is the same for one run and
/// for the union of its shards.
pub fn program_hash(p: &Program) -> u64 {
    fnv(&print(p))
}

/// Campaign settings.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The oracles to run (each program of an oracle's dialect is checked by it).
    pub oracles: Vec<Oracle>,
    /// Wall-clock deadline.
    pub deadline: Instant,
    /// Base seed; job j uses `seed + j`.
    pub seed: u64,
    /// Parallel jobs.
    pub jobs: usize,
    /// The SUT to judge, with the seeded bug to hunt: a SUT named (`--sut`) is judged by the
    /// oracles it fits, and the others judge their own (the first SUT of their kind and
    /// dialect); an external detector or analysis replaces the catalogue's SUTs.
    pub spec: SutSpec,
    /// Where findings go (one folder per oracle).
    pub out: PathBuf,
    /// Stop after this many programs per job and oracle, if set (tests use this instead of
    /// wall-clock budgets).
    pub max_programs: Option<u64>,
    /// How many programs of each signature are written (at least one).
    pub keep: usize,
    /// Stop once this many distinct signatures have been found, if set.
    pub stop_after: Option<u64>,
    /// The part of each oracle's stream this campaign checks ([`Shard::WHOLE`]: all).
    pub shard: Shard,
    /// Record the rule cases each check takes ([`rules::record`]) into [`Counters::rules`]
    /// (`--rules`, implied by `--report`). Off by default: recording costs a set insertion
    /// per case fired, and the SUTs that decide a case only for the record do that work.
    pub rules: bool,
}

/// Counters of a campaign, per oracle.
#[derive(Debug, Default)]
pub struct Counters {
    /// Programs generated.
    pub programs: AtomicU64,
    /// Per oracle: pass, fail, inconclusive.
    pub verdicts: Vec<[AtomicU64; 3]>,
    /// Per oracle: programs on which it judged at least one item (a report, a method).
    pub judged: Vec<AtomicU64>,
    /// Per oracle: inconclusive results that are so by the label `SC executions only`
    /// alone (a model checker on weaker orders, docs/spec/atomics.md §3.4).
    pub sc_only: Vec<AtomicU64>,
    /// Per oracle: the wrapping sum of the [`program_hash`]es of the programs checked.
    pub hashes: Vec<AtomicU64>,
    /// Per oracle: its programs having each feature of [`FEATURES`](crate::summary::FEATURES).
    pub features: Vec<[AtomicU64; 5]>,
    /// Per oracle, with [`Settings::rules`]: the rule cases its SUT took, one count per program.
    pub rules: Vec<Mutex<Tally>>,
    /// Findings written.
    pub written: AtomicU64,
    /// Distinct signatures of failure.
    pub distinct: AtomicU64,
}

impl Counters {
    /// Counters for `n` oracles.
    pub fn new(n: usize) -> Counters {
        Counters {
            verdicts: (0..n).map(|_| Default::default()).collect(),
            judged: (0..n).map(|_| AtomicU64::new(0)).collect(),
            sc_only: (0..n).map(|_| AtomicU64::new(0)).collect(),
            hashes: (0..n).map(|_| AtomicU64::new(0)).collect(),
            features: (0..n).map(|_| Default::default()).collect(),
            rules: (0..n).map(|_| Mutex::default()).collect(),
            ..Counters::default()
        }
    }

    /// Programs having each feature of [`FEATURES`](crate::summary::FEATURES), over all oracles.
    pub fn features_total(&self) -> [u64; 5] {
        let mut t = [0; 5];
        for f in &self.features {
            for (k, c) in f.iter().enumerate() {
                t[k] += c.load(Ordering::Relaxed);
            }
        }
        t
    }

    /// Total failures over all oracles.
    pub fn failures(&self) -> u64 {
        self.verdicts.iter().map(|v| v[1].load(Ordering::Relaxed)).sum()
    }
}

/// A counterexample written to disk.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The oracle that failed.
    pub oracle: &'static str,
    /// Where it was written.
    pub path: PathBuf,
    /// Its signature.
    pub signature: String,
    /// Whether it is the first program of its signature.
    pub first: bool,
    /// Its size: statements, then methods ([`counts`]).
    pub size: (usize, usize),
    /// Why its witness page ([`write_witness_page`]) could not be written, if it could not;
    /// the finding itself is on disk.
    pub page_failure: Option<String>,
}

impl Finding {
    /// The note that says its witness page is missing, if it is (the finding is kept).
    pub fn page_note(&self) -> Option<String> {
        self.page_failure.as_ref().map(|why| format!("note: {why}; the finding {} is kept", self.path.display()))
    }
}

/// The failures of one signature.
#[derive(Clone, Debug)]
pub struct Group {
    /// The signature.
    pub signature: String,
    /// The oracle that failed.
    pub oracle: &'static str,
    /// Failing programs with this signature (distinct programs).
    pub count: u64,
    /// Those written, in the order found: the first [`Settings::keep`], then each one
    /// smaller than all before it.
    pub written: Vec<Finding>,
}

impl Group {
    /// The smallest program written (the first of the smallest).
    pub fn smallest(&self) -> Option<&Finding> {
        self.written.iter().min_by_key(|f| f.size)
    }
}

/// What a campaign found.
#[derive(Debug, Default)]
pub struct Found {
    /// Every finding written, in the order found.
    pub findings: Vec<Finding>,
    /// One group per signature, sorted by oracle (in the campaign's order), then by count
    /// (most first), then by signature.
    pub groups: Vec<Group>,
}

/// Why a campaign stopped early.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// A finding could not be written; its text is kept here (and printed) instead.
    #[error("cannot write a finding to {dir}: {source}; the campaign stops so that nothing is lost. The finding:\n{text}")]
    Write {
        /// The folder.
        dir: PathBuf,
        /// The I/O error.
        source: std::io::Error,
        /// The whole finding, as it would have been written.
        text: String,
    },
    /// The SUT could not be built (an unknown mutant).
    #[error(transparent)]
    Subject(#[from] suts::SubjectError),
    /// An internal invariant broke while saving a finding; the program is kept here.
    #[error("{message}; the campaign stops so that nothing is lost. The program:\n{program}")]
    Internal {
        /// Which invariant (starts with "racefuzz internal bug").
        message: String,
        /// The failing program, printed.
        program: String,
    },
}

impl CampaignError {
    /// Whether this is a bug in racefuzz rather than a problem with the input or the
    /// environment (the CLI's exit 4 against exit 2).
    pub fn is_internal(&self) -> bool {
        matches!(self, CampaignError::Internal { .. } | CampaignError::Subject(suts::SubjectError::NoSut { .. }))
    }
}

/// The text of a finding: a fixed header, the program, then the oracle's explanation as
/// comments *after* it, computed on this very text, so that the lines it names are the
/// file's lines, and last the failure's [`signature`] (which `racefuzz merge` groups by).
///
/// # Errors
/// [`CampaignError::Internal`] if the printed program does not parse back.
pub fn finding_text(oracle: &Oracle, subject: &Subject, seed: &str, p: &Program) -> Result<(String, OracleResult, Program), CampaignError> {
    let header = FindingHeader::finding(oracle.id, subject.spec().clone(), seed);
    let body = format!("{}{}", header.print(), print(p));
    let reparsed = parse(&body).map_err(|e| CampaignError::Internal { message: format!("racefuzz internal bug: a finding does not parse back: {e}"), program: print(p) })?;
    let r = suts::check(oracle, &reparsed, subject, suts::campaign_bounds());
    let mut text = body;
    text.push_str(&format!("// verdict: {}\n", r.verdict));
    for l in render::result_brief(&r).lines() {
        text.push_str(&format!("//   {l}\n"));
    }
    if r.verdict == Verdict::Fail {
        text.push_str(&FindingHeader::signature_line(&signature(&r, &reparsed).to_string()));
    }
    Ok((text, r, reparsed))
}

/// Writes a finding atomically (temp file + rename) under `dir/<oracle>/`, named by a hash
/// of the program, so that a re-found program overwrites its own file.
///
/// # Errors
/// I/O errors; the caller keeps `text`.
pub fn write_finding(dir: &Path, oracle: &str, p: &Program, text: &str) -> std::io::Result<PathBuf> {
    let dir = dir.join(oracle);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{:016x}.race", fnv(&print(p))));
    write_atomically(&path, text)?;
    Ok(path)
}

/// Writes the witness page of a finding beside it (`HASH.html`, `crate::picture::html`):
/// the first violated item's witness, with the finding's text as the program (its lines
/// are the witness's) and the result as the verdict. Returns the page written, or `None`
/// for a result with no witness (which has no page).
///
/// # Errors
/// I/O errors writing the page; the finding itself is already on disk, so a campaign notes
/// them ([`Finding::page_failure`]) and goes on.
pub fn write_witness_page(finding: &Path, r: &OracleResult, text: &str) -> std::io::Result<Option<PathBuf>> {
    let Some(w) = r.items.iter().filter(|i| i.status == race_oracles::theorems::ItemStatus::Violated).find_map(|i| i.witness.as_ref()) else { return Ok(None) };
    let verdict = crate::picture::verdict_lines(r);
    let title = format!("racefuzz finding {}", finding.display());
    let page = finding.with_extension("html");
    write_atomically(&page, &crate::picture::html(&title, w, text, &verdict))?;
    Ok(Some(page))
}

/// Writes `text` to `path` through a temporary file in the same folder, so that a reader
/// never sees half a finding.
///
/// # Errors
/// I/O errors.
pub fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)
}

/// FNV-1a: a stable hash for file names (std's hasher is not stable across releases).
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The seed of the program stream of the `oracle`-th oracle of a campaign in its job `job`
/// (job j draws from `seed + j`): a campaign draws that oracle's programs as
/// [`generate`] does from `StdRng::seed_from_u64` of it (`rule_coverage::measure` too).
pub fn stream_seed(seed: u64, job: usize, oracle: usize) -> u64 {
    seed.wrapping_add(job as u64) ^ (oracle as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// Runs a campaign; `on_finding` is called after each finding is on disk. Returns the
/// findings and their groups.
///
/// # Errors
/// [`CampaignError`]: an unknown mutant, or a finding that could not be written (the
/// campaign stops at once; the error carries the finding).
pub fn run(s: &Settings, counters: &Counters, stop: &AtomicBool, on_finding: impl Fn(&Finding) + Sync) -> Result<Found, CampaignError> {
    // Every oracle judges the mutant, if any (the command line chose them so).
    let subjects: Vec<Subject> = s.oracles.iter().map(|o| Subject::where_it_fits(o, &s.spec)).collect::<Result<_, _>>()?;
    let seen: Mutex<HashSet<u64>> = Mutex::new(HashSet::new());
    let groups: Mutex<BTreeMap<String, Group>> = Mutex::new(BTreeMap::new());
    let failure: Mutex<Option<CampaignError>> = Mutex::new(None);
    let explore = Config { deadline: Some(s.deadline), ..suts::campaign_bounds() };
    std::thread::scope(|scope| {
        for job in 0..s.jobs.max(1) {
            let (seen, groups, failure, on_finding, subjects) = (&seen, &groups, &failure, &on_finding, &subjects);
            scope.spawn(move || {
                // One stream per oracle: its k-th program depends on the seed alone, however
                // the scheduler interleaves the oracles.
                let mut rngs: Vec<StdRng> = (0..s.oracles.len()).map(|i| StdRng::seed_from_u64(stream_seed(s.seed, job, i))).collect();
                let mut spent = vec![0f64; s.oracles.len()];
                let mut done = vec![0u64; s.oracles.len()];
                while Instant::now() < s.deadline && !stop.load(Ordering::Relaxed) {
                    // Time-fair: the oracle with the least time per unit of share goes next.
                    let next = (0..s.oracles.len()).filter(|&i| s.max_programs.is_none_or(|m| done[i] < m)).min_by(|&a, &b| {
                        let key = |i: usize| spent[i] / share(&s.oracles[i]);
                        key(a).total_cmp(&key(b)).then(a.cmp(&b))
                    });
                    let Some(i) = next else { break };
                    let (o, subject) = (&s.oracles[i], &subjects[i]);
                    // The other shards' programs are drawn and dropped, so that this shard's
                    // are those an unsharded run draws at the same positions.
                    while !s.shard.owns(done[i]) && s.max_programs.is_none_or(|m| done[i] < m) {
                        skip_one(&mut rngs[i]);
                        done[i] += 1;
                    }
                    if s.max_programs.is_some_and(|m| done[i] >= m) {
                        continue;
                    }
                    done[i] += 1;
                    let n = done[i];
                    counters.programs.fetch_add(1, Ordering::Relaxed);
                    let started = Instant::now();
                    let p = generate(o, subject, &mut rngs[i]);
                    counters.hashes[i].fetch_add(program_hash(&p), Ordering::Relaxed);
                    for (k, on) in features(&p).into_iter().enumerate() {
                        if on {
                            counters.features[i][k].fetch_add(1, Ordering::Relaxed);
                        }
                    }
                    // A panic is a racefuzz bug; the program that caused it must not be lost
                    // with the job, so the campaign stops with it (as for an unwritable finding).
                    let checked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        if s.rules {
                            let (r, fired) = rules::record(|| suts::check(o, &p, subject, explore));
                            lock(&counters.rules[i]).add(&fired);
                            r
                        } else {
                            suts::check(o, &p, subject, explore)
                        }
                    }));
                    let r = match checked {
                        Ok(r) => r,
                        Err(panic) => {
                            let what = panic.downcast_ref::<String>().map(String::as_str).or_else(|| panic.downcast_ref::<&str>().copied()).unwrap_or("a panic");
                            let message = format!("racefuzz internal bug: {} panicked ({what}) on program {n} of job {job}, seed {}", o.id, s.seed);
                            stop.store(true, Ordering::Relaxed);
                            lock(failure).get_or_insert(CampaignError::Internal { message, program: print(&p) });
                            return;
                        }
                    };
                    spent[i] += started.elapsed().as_secs_f64();
                    counters.verdicts[i][slot(r.verdict)].fetch_add(1, Ordering::Relaxed);
                    if r.sc_executions_only() {
                        counters.sc_only[i].fetch_add(1, Ordering::Relaxed);
                    }
                    if !r.items.is_empty() {
                        counters.judged[i].fetch_add(1, Ordering::Relaxed);
                    }
                    if r.verdict != Verdict::Fail || !lock(seen).insert(fnv(&format!("{}{}", o.id, print(&p)))) {
                        continue;
                    }
                    let tag = format!("{} (job {job}, program {n})", s.seed);
                    match record(s, counters, groups, o, subject, &tag, &p) {
                        Ok(Some(f)) => on_finding(&f),
                        Ok(None) => {}
                        Err(e) => {
                            stop.store(true, Ordering::Relaxed);
                            lock(failure).get_or_insert(e);
                            return;
                        }
                    }
                    if s.stop_after.is_some_and(|n| counters.distinct.load(Ordering::Relaxed) >= n) {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner) {
        return Err(e);
    }
    let groups = groups.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut groups: Vec<Group> = groups.into_values().collect();
    let rank = |g: &Group| s.oracles.iter().position(|o| o.id == g.oracle).unwrap_or(usize::MAX);
    groups.sort_by(|a, b| rank(a).cmp(&rank(b)).then(b.count.cmp(&a.count)).then(a.signature.cmp(&b.signature)));
    let mut findings: Vec<Finding> = groups.iter().flat_map(|g| g.written.iter().cloned()).collect();
    findings.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Found { findings, groups })
}

/// Counts a failing program under its signature and writes it if it is among the first
/// `keep` of the signature or smaller than every one written before; returns the finding
/// written, if any. The group's lock is held while writing, so that two jobs never both
/// take the last place.
fn record(
    s: &Settings,
    counters: &Counters,
    groups: &Mutex<BTreeMap<String, Group>>,
    o: &Oracle,
    subject: &Subject,
    tag: &str,
    p: &Program,
) -> Result<Option<Finding>, CampaignError> {
    let (text, r, reparsed) = finding_text(o, subject, tag, p)?;
    let sig = signature(&r, &reparsed);
    let size = counts(&reparsed);
    let mut groups = lock(groups);
    let g = groups.entry(sig.clone()).or_insert_with(|| Group { signature: sig.clone(), oracle: o.id, count: 0, written: vec![] });
    g.count += 1;
    let first = g.count == 1;
    if first {
        counters.distinct.fetch_add(1, Ordering::Relaxed);
    }
    let smaller = g.written.iter().all(|f| size < f.size);
    if g.written.len() >= s.keep.max(1) && !smaller {
        return Ok(None);
    }
    let path = write_finding(&s.out, o.id, p, &text).map_err(|source| CampaignError::Write { dir: s.out.join(o.id), source, text: text.clone() })?;
    let page_failure = write_witness_page(&path, &r, &text).err().map(|e| format!("cannot write the witness page {}: {e}", path.with_extension("html").display()));
    counters.written.fetch_add(1, Ordering::Relaxed);
    let f = Finding { oracle: o.id, path, signature: sig, first, size, page_failure };
    g.written.push(f.clone());
    Ok(Some(f))
}

/// An oracle's share of a campaign's time. The explorer self-checks (`explorer-agree`)
/// run the naive enumeration on every program, hundreds of times slower than an analysis
/// oracle's check; they get a ninth of an analysis oracle's share, so that a campaign
/// still spends nearly all its time on the analyses while the self-checks keep running.
fn share(o: &Oracle) -> f64 {
    if o.sut == race_oracles::theorems::SutKind::Explorers {
        1.0
    } else {
        9.0
    }
}

fn slot(v: Verdict) -> usize {
    match v {
        Verdict::Pass => 0,
        Verdict::Fail => 1,
        Verdict::Inconclusive => 2,
    }
}

/// A poisoned lock only means another job panicked; its data is still sound.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
