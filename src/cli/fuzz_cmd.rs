//! `racefuzz fuzz` (an in-process campaign with a progress bar and a summary) and
//! `racefuzz shrink` (reduce a counterexample; `--into-test` makes it a CI test).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use race_oracles::gen::shrink::{counts, shrink};
use race_oracles::lang::{parse, print, validate_relaxed, Program};
use race_oracles::theorems::rules::{self, Tally};
use race_oracles::theorems::{Oracle, Registry, Verdict};

use super::check_cmd::{subject, subject_or_external};
use super::{emit, oracle, print_json, CliError, Exit};
use crate::campaign::{self, Counters, Settings, FEATURES};
use crate::corpus::header;
use crate::outln;
use crate::render;
use crate::suts::{self, Subject};

/// The longest budget a campaign accepts: a year.
pub const MAX_DURATION: Duration = Duration::from_secs(366 * 24 * 3600);

/// Parses `500ms`, `90s`, `10m`, `2h` or a bare number of seconds, up to [`MAX_DURATION`].
///
/// # Errors
/// A message naming the problem (bad number, bad unit, too long).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: u64 = num.parse().map_err(|_| format!("bad duration `{s}` (examples: 60s, 10m, 2h)"))?;
    let scale_ms = match unit {
        "ms" => 1,
        "" | "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return Err(format!("bad duration unit in `{s}` (ms, s, m or h)")),
    };
    let ms = n
        .checked_mul(scale_ms)
        .filter(|&x| x <= MAX_DURATION.as_secs() * 1_000)
        .ok_or_else(|| format!("duration `{s}` is longer than a year; campaigns that long belong to cargo fuzz"))?;
    Ok(Duration::from_millis(ms))
}

/// When the next status line is due, for runs without a terminal (`fuzz`, `gen --stats`):
/// every `--status-interval` of wall time, at least a second apart; a line missed while
/// the run was busy is skipped, not caught up.
pub(super) struct StatusClock {
    every: Duration,
    next: Duration,
}

impl StatusClock {
    /// From the `--status-interval` flag.
    ///
    /// # Errors
    /// A bad duration, as input error naming the flag.
    pub(super) fn new(flag: &str) -> Result<StatusClock, CliError> {
        let every = parse_duration(flag).map_err(|e| CliError::input(format!("error: --status-interval: {e}")))?.max(Duration::from_secs(1));
        Ok(StatusClock { every, next: every })
    }

    /// Whether a line is due at `elapsed`; if so, the next one is scheduled.
    pub(super) fn due(&mut self, elapsed: Duration) -> bool {
        if elapsed < self.next {
            return false;
        }
        while self.next <= elapsed {
            self.next += self.every;
        }
        true
    }
}

/// The oracles named on the command line; when none is, all but the negative controls
/// (which are expected to fail and run only when named), and with `--mutant` only those of
/// them that judge it, so that `racefuzz fuzz --mutant M` hunts M wherever it can be seen.
/// A named oracle that does not judge the mutant is refused later, by its subject. With an
/// external SUT, the oracles that judge one of its kind.
fn oracles(ids: &[String], mutant: Option<&str>, external: Option<&crate::external::External>) -> Result<Vec<Oracle>, CliError> {
    if !ids.is_empty() {
        return ids.iter().map(|id| oracle(id)).collect();
    }
    let reg = Registry::builtin();
    match external {
        Some(crate::external::External::Detector(_)) => {
            return Ok(reg.all().iter().filter(|o| !o.negative_control && o.sut == race_oracles::theorems::SutKind::DynamicDetector).copied().collect());
        }
        Some(crate::external::External::Analysis(_)) => return Ok(reg.all().iter().filter(|o| suts::analysis_oracles().contains(&o.id)).copied().collect()),
        None => {}
    }
    let defaults = reg.all().iter().filter(|o| !o.negative_control).copied();
    let Some(m) = mutant else { return Ok(defaults.collect()) };
    let judging: Vec<Oracle> = defaults.filter(|o| suts::judges(o, m)).collect();
    if !judging.is_empty() {
        return Ok(judging);
    }
    if let Some(bad) = m.split('+').find(|n| crate::mutants::find(n).is_none()) {
        return Err(CliError::input(format!("error: --mutant: no mutant `{bad}` (`racefuzz mutants` lists them; combine with +)")));
    }
    let judges = suts::judges_of(m);
    if judges.is_empty() {
        return Err(CliError::input(format!("error: --mutant {m}: no oracle judges it (combined mutants must break the same SUT)")));
    }
    Err(CliError::input(format!(
        "error: --mutant {m}: none of the default oracles judges it; name one of those that do (negative controls run only when named): {}",
        judges.join(", ")
    )))
}

pub(super) struct FuzzArgs<'a> {
    pub ids: &'a [String],
    pub time: Option<&'a str>,
    pub seed: u64,
    pub jobs: usize,
    pub mutant: Option<&'a str>,
    pub sut: Option<&'a str>,
    pub out: &'a Path,
    pub max_programs: Option<u64>,
    pub keep: usize,
    pub stop_after: Option<u64>,
    pub shrink: bool,
    pub max_attempts: usize,
    pub status_interval: &'a str,
    pub json: bool,
    pub detector: &'a super::DetectorArgs,
    /// `--shard K/N` (or `RACEFUZZ_SHARD`), unparsed.
    pub shard: Option<&'a str>,
    /// `--report FILE`: the campaign as an HTML page.
    pub report: Option<&'a Path>,
    /// `--rules`: record rule coverage (also when `report` is given).
    pub rules: bool,
}

/// SIGINT and SIGTERM received so far: the first stops the campaign at the next program,
/// the second the shrinking, the third the process.
static SIGNALS: AtomicUsize = AtomicUsize::new(0);

fn signals() -> usize {
    SIGNALS.load(Ordering::Relaxed)
}

/// Catches SIGINT and SIGTERM, so that a stopped campaign still prints its summary and
/// shrinks what it found; the third signal exits at once (every finding is on disk as soon
/// as it is found, so even then none is lost).
fn catch_signals() {
    // An error here only means a handler is already set (a second campaign in-process).
    let _ = ctrlc::set_handler(|| {
        if SIGNALS.fetch_add(1, Ordering::Relaxed) >= 2 {
            std::process::exit(130);
        }
    });
}

/// Why a campaign ended.
fn stopped_by(s: &Settings, counters: &Counters, time: Option<Duration>, elapsed: Duration) -> &'static str {
    if signals() > 0 {
        "signal"
    } else if s.stop_after.is_some_and(|n| load(&counters.distinct) >= n) {
        "stop-after"
    } else if time.is_some_and(|t| elapsed >= t) {
        "time"
    } else if s.max_programs.is_some() {
        "max-programs"
    } else {
        "time"
    }
}

pub(super) fn fuzz(a: &FuzzArgs<'_>) -> Result<Exit, CliError> {
    let FuzzArgs { seed, jobs, mutant, sut, out, max_programs, json, .. } = *a;
    let shard = match a.shard {
        Some(t) => campaign::Shard::parse(t).map_err(|e| CliError::input(format!("error: --shard (or RACEFUZZ_SHARD): {e}")))?,
        None => campaign::Shard::WHOLE,
    };
    let external = a.detector.factory_alone(sut, mutant)?;
    let oracles = oracles(a.ids, mutant, external.as_ref())?;
    // --sut applies to the oracles it fits, and must fit one.
    if let Some(name) = sut.filter(|n| !oracles.iter().any(|o| suts::fitting(o).any(|e| e.name == *n))) {
        let fitting: std::collections::BTreeSet<&str> = oracles.iter().flat_map(|o| suts::fitting(o).map(|e| e.name)).collect();
        let every: Vec<&str> = suts::SUTS.iter().map(|e| e.name).collect();
        return Err(CliError::input(format!(
            "error: --sut: no SUT `{name}` for {} (their SUTs: {}; every SUT: {})",
            oracles.iter().map(|o| o.id).collect::<Vec<_>>().join(", "),
            fitting.into_iter().collect::<Vec<_>>().join(", "),
            every.join(", ")
        )));
    }
    let subjects: Vec<Subject> =
        oracles.iter().map(|o| campaign::subject_for(o, sut, mutant, external.as_ref())).collect::<Result<_, _>>().map_err(|e| CliError::input(format!("error: {e}")))?;
    // --max-programs alone is a budget of its own; --time alone or neither is 60s.
    let time = match (a.time, max_programs) {
        (Some(t), _) => Some(parse_duration(t).map_err(|e| CliError::input(format!("error: --time: {e}")))?),
        (None, Some(_)) => None,
        (None, None) => Some(Duration::from_secs(60)),
    };
    let mut status_clock = StatusClock::new(a.status_interval)?;
    let start = Instant::now();
    let deadline = start.checked_add(time.unwrap_or(MAX_DURATION)).ok_or_else(|| CliError::input("error: --time is too long for this machine's clock"))?;
    let s = Settings {
        oracles: oracles.clone(),
        deadline,
        seed,
        jobs: jobs.max(1),
        mutant: mutant.map(str::to_string),
        sut: sut.map(str::to_string),
        out: out.to_path_buf(),
        max_programs,
        keep: a.keep.max(1),
        stop_after: a.stop_after,
        external,
        shard,
        rules: a.rules || a.report.is_some(),
    };
    // With --json, stdout is the summary alone; what a person reads goes to stderr.
    let say = |line: &str| if json { eprintln!("{line}") } else { outln!("{line}") };
    let names: Vec<&str> = oracles.iter().map(|o| o.id).collect();
    let budget = match (time, max_programs) {
        (Some(t), None) => format!(" for {}s", t.as_secs()),
        (None, Some(m)) => format!(", {m} programs per oracle and job"),
        (Some(t), Some(m)) => format!(", {m} programs per oracle and job or {}s", t.as_secs()),
        (None, None) => String::new(),
    };
    // Before the header: a signal sent once the header is out is always caught.
    catch_signals();
    say(&format!(
        "racefuzz fuzz: {}{budget}, seed {seed}, {} job(s){}{}{}; findings go to {}/<oracle>/ ({} per signature)",
        names.join(", "),
        s.jobs,
        if shard == campaign::Shard::WHOLE { String::new() } else { format!(", shard {}/{}", shard.index, shard.count) },
        sut.map(|n| format!(", SUT {n}")).unwrap_or_default(),
        mutant.map(|m| format!(", mutant {m}")).unwrap_or_default(),
        out.display(),
        s.keep
    ));
    let counters = Counters::new(oracles.len());
    let stop = AtomicBool::new(false);
    let bar = match time {
        Some(t) => ProgressBar::new(t.as_secs()),
        None => ProgressBar::new(shard.share_of(max_programs.unwrap_or(0)).saturating_mul(oracles.len() as u64).saturating_mul(s.jobs as u64)),
    };
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {msg}").unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "));
    let result = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            campaign::run(&s, &counters, &stop, |f| {
                if !f.first {
                    return;
                }
                let line = format!("FAIL {}\n     {}", f.signature, f.path.display());
                // Without a terminal the bar is hidden, and so would be its messages.
                if bar.is_hidden() {
                    say(&line);
                } else {
                    bar.println(line);
                }
            })
        });
        while !worker.is_finished() {
            std::thread::sleep(Duration::from_millis(100));
            if signals() > 0 {
                stop.store(true, Ordering::Relaxed);
            }
            let elapsed = start.elapsed();
            bar.set_position(if time.is_some() { elapsed.as_secs() } else { load(&counters.programs) });
            bar.set_message(status(&counters, &oracles, elapsed));
            if bar.is_hidden() && status_clock.due(elapsed) {
                eprintln!("[{}] {}", clock(elapsed), status(&counters, &oracles, elapsed));
            }
        }
        worker.join()
    });
    stop.store(true, Ordering::Relaxed);
    let elapsed = start.elapsed();
    bar.finish_with_message(status(&counters, &oracles, elapsed));
    let found = match result {
        Ok(Ok(f)) => f,
        Ok(Err(e)) => {
            if !json {
                emit(&summary(&counters, &oracles, s.rules.then_some(subjects.as_slice()), elapsed));
            }
            return Err(super::campaign_error(&e));
        }
        Err(_) => return Err(CliError::internal("a campaign job panicked")),
    };
    let why = stopped_by(&s, &counters, time, elapsed);
    if !json {
        emit(&summary(&counters, &oracles, s.rules.then_some(subjects.as_slice()), elapsed));
        if why == "signal" {
            outln!("stopped by a signal after {:.1}s; every finding is kept", elapsed.as_secs_f64());
        }
    }
    let shrunk = if a.shrink { shrink_groups(&s, &oracles, &subjects, &found, a.max_attempts, &say) } else { vec![None; found.groups.len()] };
    // The summary also goes into the output folder, for `racefuzz merge`.
    let doc = json_summary(&s, &subjects, &counters, &found, &shrunk, time, elapsed, why);
    let path = out.join(summary_name(shard));
    let text = serde_json::to_string_pretty(&doc).map_err(|e| CliError::internal(format!("JSON output failed: {e}")))?;
    std::fs::create_dir_all(out)
        .and_then(|()| campaign::write_atomically(&path, &format!("{text}\n")))
        .map_err(|e| CliError::input(format!("error: cannot write the summary {}: {e}; every finding is kept", path.display())))?;
    if let Some(report) = a.report {
        write_report(report, &doc)?;
    }
    if json {
        return print_json(&doc).map(|()| if found.groups.is_empty() { Exit::Ok } else { Exit::Fail });
    }
    if found.groups.is_empty() {
        outln!("no counterexample");
        return Ok(Exit::Ok);
    }
    emit(&signatures(&counters, &found, &shrunk));
    outln!("shrink one with `racefuzz shrink FILE` (the file names its oracle and mutant){}", if a.shrink { "" } else { ", or run the campaign with --shrink" });
    Ok(Exit::Fail)
}

/// Writes the campaign report (`crate::picture::campaign_report`) of the summary `doc`,
/// with the finding paths made absolute so that its links work wherever the page is (a
/// merge's summary too).
pub(super) fn write_report(report: &Path, doc: &impl serde::Serialize) -> Result<(), CliError> {
    let mut v = serde_json::to_value(doc).map_err(|e| CliError::internal(format!("JSON output failed: {e}")))?;
    for g in v["signatures"].as_array_mut().into_iter().flatten() {
        for key in ["smallest", "shrunk"] {
            if let Some(p) = g[key].as_str().and_then(|p| std::fs::canonicalize(p).ok()) {
                g[key] = p.display().to_string().into();
            }
        }
    }
    campaign::write_atomically(report, &crate::picture::campaign_report(&v)).map_err(|e| CliError::input(format!("error: cannot write {}: {e}", report.display())))?;
    eprintln!("wrote {}", report.display());
    Ok(())
}

/// The summary file a campaign writes into its output folder: `summary.json`, or
/// `summary-shard-K-of-N.json` for a shard (so that the shards of one campaign may share a
/// folder).
pub fn summary_name(shard: campaign::Shard) -> String {
    if shard == campaign::Shard::WHOLE {
        "summary.json".to_string()
    } else {
        format!("summary-shard-{}-of-{}.json", shard.index, shard.count)
    }
}

/// A shrunk program, written next to the finding it comes from.
#[derive(Clone, Debug)]
struct Shrunk {
    path: PathBuf,
    size: (usize, usize),
    /// A signal stopped the shrinking: smaller programs may fail too.
    interrupted: bool,
}

/// Shrinks the first program of each signature, `jobs` at a time, keeping its signature;
/// each result is written as `HASH.shrunk.race` next to it. A second signal stops every
/// shrink at its best program so far (which is still written).
fn shrink_groups(s: &Settings, oracles: &[Oracle], subjects: &[Subject], found: &campaign::Found, max_attempts: usize, say: &(impl Fn(&str) + Sync)) -> Vec<Option<Shrunk>> {
    let todo: Vec<(usize, &campaign::Group)> = found.groups.iter().enumerate().collect();
    if todo.is_empty() {
        return vec![];
    }
    say(&format!("shrinking the first program of {} signature(s) ({} job(s); a second SIGINT stops at the best so far)", todo.len(), s.jobs));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<Shrunk>>> = std::sync::Mutex::new(vec![None; todo.len()]);
    std::thread::scope(|scope| {
        for _ in 0..s.jobs.min(todo.len()) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some((i, g)) = todo.get(k) else { break };
                let Some(pos) = oracles.iter().position(|o| o.id == g.oracle) else { continue };
                let line = match shrink_one(&oracles[pos], &subjects[pos], g, max_attempts) {
                    Ok(r) => {
                        let line = format!(
                            "shrunk {} from {} to {} statement(s){}: {}",
                            g.written.first().map_or(String::new(), |f| f.path.display().to_string()),
                            g.written.first().map_or(0, |f| f.size.0),
                            r.size.0,
                            if r.interrupted { " (interrupted)" } else { "" },
                            r.path.display()
                        );
                        results.lock().unwrap_or_else(std::sync::PoisonError::into_inner)[*i] = Some(r);
                        line
                    }
                    Err(e) => format!("could not shrink {}: {e}", g.signature),
                };
                say(&line);
            });
        }
    });
    results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn shrink_one(o: &Oracle, subject: &Subject, g: &campaign::Group, max_attempts: usize) -> Result<Shrunk, String> {
    let first = g.written.first().ok_or("no program was written")?;
    let text = std::fs::read_to_string(&first.path).map_err(|e| format!("cannot read {}: {e}", first.path.display()))?;
    let p = parse(&text).map_err(|e| format!("{}: {}", first.path.display(), e.render(&first.path.display().to_string())))?;
    // A candidate counts only if it fails in the same way: the signature is computed on the
    // printed candidate, whose lines its explanation names.
    let same = |q: &Program| {
        if signals() >= 2 {
            return false;
        }
        let Ok(q) = parse(&print(q)) else { return false };
        let r = suts::check(o, &q, subject, suts::campaign_bounds());
        r.verdict == Verdict::Fail && crate::signature::signature(&r, &q) == g.signature
    };
    let r = shrink(&p, subject.relax(), max_attempts, same);
    let interrupted = signals() >= 2;
    let tag = format!("{} (shrunk from {})", header(&text, "seed").unwrap_or("?"), first.path.display());
    let (text, _, reparsed) = campaign::finding_text(o, subject, &tag, &r.program)?;
    let name = first.path.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let path = first.path.with_file_name(format!("{name}.shrunk.race"));
    campaign::write_atomically(&path, &text).map_err(|e| format!("cannot write {}: {e}; the shrunk program:\n{text}", path.display()))?;
    Ok(Shrunk { path, size: counts(&reparsed), interrupted })
}

fn clock(d: Duration) -> String {
    let t = d.as_secs();
    format!("{:02}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
}

/// A poisoned lock only means a job panicked, which the campaign reports; the tally is sound.
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn load(c: &std::sync::atomic::AtomicU64) -> u64 {
    c.load(Ordering::Relaxed)
}

fn pct(k: u64, n: u64) -> f64 {
    100.0 * k as f64 / n.max(1) as f64
}

fn status(c: &Counters, oracles: &[Oracle], elapsed: Duration) -> String {
    let n = load(&c.programs);
    let rate = n as f64 / elapsed.as_secs_f64().max(0.001);
    let v: Vec<String> = oracles.iter().zip(&c.verdicts).map(|(o, [p, f, u])| format!("{} {}/{}/{}", o.id, load(p), load(f), load(u))).collect();
    format!("{n} programs, {rate:.0}/s | pass/fail/inconclusive: {} | {} distinct failure(s), {} written", v.join(", "), load(&c.distinct), load(&c.written))
}

/// The text summary; with `rules` (the oracles' subjects, under `--rules`), a line per
/// oracle on its SUT's rule coverage.
fn summary(c: &Counters, oracles: &[Oracle], rules: Option<&[Subject]>, elapsed: Duration) -> String {
    let n = load(&c.programs);
    let mut out = format!("\n{n} programs in {:.1}s ({:.0} programs/s)\n", elapsed.as_secs_f64(), n as f64 / elapsed.as_secs_f64().max(0.001));
    out.push_str(&format!("{:<30} {:>9} {:>9} {:>6} {:>13}  {}\n", "oracle", "checked", "pass", "fail", "inconclusive", "judged something"));
    for (i, o) in oracles.iter().enumerate() {
        let [p, f, u] = &c.verdicts[i];
        let (p, f, u) = (load(p), load(f), load(u));
        let control = if o.negative_control { "; a negative control: failures expected" } else { "" };
        out.push_str(&format!("{:<30} {:>9} {:>9} {:>6} {:>13}  {:.0}% (≥ 1 {}){control}\n", o.id, p + f + u, p, f, u, pct(load(&c.judged[i]), p + f + u), o.item_kind));
    }
    let cov: Vec<String> = FEATURES.iter().zip(c.features_total()).map(|(f, k)| format!("{f} {:.0}%", pct(k, n))).collect();
    out.push_str(&format!("feature coverage (programs with …): {}\n", cov.join(", ")));
    if let Some(subjects) = rules {
        for ((o, subject), tally) in oracles.iter().zip(subjects).zip(&c.rules) {
            let r = JsonRules::of(o, subject, &lock(tally));
            out.push_str(&format!("rule coverage of {} ({}): {}\n", o.id, r.whose(), r.brief()));
        }
    }
    out
}

/// The signatures, most frequent first within each oracle, each with its smallest program.
fn signatures(c: &Counters, found: &campaign::Found, shrunk: &[Option<Shrunk>]) -> String {
    let failing: u64 = found.groups.iter().map(|g| g.count).sum();
    let mut out = format!("\n{} distinct failure(s) in {failing} failing program(s); {} file(s) written\n", found.groups.len(), load(&c.written));
    for (g, sh) in found.groups.iter().zip(shrunk) {
        out.push_str(&format!("{:>7}  {}\n", g.count, g.signature));
        if let Some(f) = g.smallest() {
            out.push_str(&format!("         smallest: {} ({} statement(s))\n", f.path.display(), f.size.0));
        }
        if let Some(sh) = sh {
            out.push_str(&format!("         shrunk:   {} ({} statement(s){})\n", sh.path.display(), sh.size.0, if sh.interrupted { ", interrupted" } else { "" }));
        }
    }
    out
}

/// `fuzz --json`: the summary as data (keys in this order).
#[derive(serde::Serialize)]
struct JsonSummary<'a> {
    oracles: Vec<&'a str>,
    seed: u64,
    jobs: usize,
    mutant: Option<&'a str>,
    sut: Option<&'a str>,
    time_limit_s: Option<u64>,
    max_programs: Option<u64>,
    /// The shard of each stream this campaign checked, if not all of it.
    shard: Option<JsonShard>,
    /// `time`, `max-programs`, `stop-after` or `signal`.
    stopped_by: &'a str,
    elapsed_s: f64,
    programs: u64,
    per_oracle: Vec<JsonOracle<'a>>,
    failing_programs: u64,
    written: u64,
    signatures: Vec<JsonSignature<'a>>,
}

#[derive(serde::Serialize)]
struct JsonShard {
    index: u64,
    count: u64,
}

#[derive(serde::Serialize)]
struct JsonOracle<'a> {
    oracle: &'a str,
    checked: u64,
    pass: u64,
    fail: u64,
    inconclusive: u64,
    /// The wrapping sum of the hashes of the programs checked, 16 hex digits.
    programs_hash: String,
    /// Programs checked that use each feature of [`FEATURES`].
    features: BTreeMap<&'static str, u64>,
    /// With `--rules`: the cases of its SUT's rules and the programs on which each fired.
    rules: Option<JsonRules<'a>>,
}

/// The rule coverage of one oracle's SUT in a campaign.
#[derive(serde::Serialize)]
struct JsonRules<'a> {
    /// The SUT whose rules these are (the catalogue's name), and its mutant: with a mutant
    /// the counts are of the mutated code, which fires whatever cases it takes.
    sut: &'static str,
    mutant: Option<&'a str>,
    /// Programs recorded (each check is one).
    programs: u64,
    /// The SUT's rule tables that this oracle exercises, in spec order.
    tables: Vec<JsonTable>,
    /// Why a table of the SUT is left out (the oracle never runs that part).
    not_exercised: Vec<String>,
}

#[derive(serde::Serialize)]
struct JsonTable {
    sut: &'static str,
    spec: &'static str,
    cases: Vec<JsonCase>,
}

#[derive(serde::Serialize)]
struct JsonCase {
    case: &'static str,
    spec: &'static str,
    /// Why the generator seldom reaches it, if the table says.
    rare: Option<&'static str>,
    /// Programs on which it fired.
    programs: u64,
    /// Below [`rules::FLOOR_PERCENT`] of the programs and not justified as rare.
    below_floor: bool,
}

impl<'a> JsonRules<'a> {
    fn of(o: &Oracle, subject: &'a Subject, tally: &Tally) -> JsonRules<'a> {
        let (tables, not_exercised) = suts::exercised_rules(subject.entry(), o);
        let rows = tally.rows(&tables);
        let tables = tables
            .iter()
            .map(|t| JsonTable {
                sut: t.sut,
                spec: t.spec,
                cases: rows
                    .iter()
                    .filter(|r| r.sut == t.sut)
                    .map(|r| JsonCase { case: r.case.name, spec: r.case.spec, rare: r.case.rare, programs: r.programs as u64, below_floor: r.below_floor() })
                    .collect(),
            })
            .collect();
        JsonRules { sut: subject.entry().name, mutant: subject.mutant(), programs: tally.programs() as u64, tables, not_exercised }
    }

    /// `SUT fasttrack`, `SUT fasttrack with mutant M`.
    fn whose(&self) -> String {
        format!("SUT {}{}", self.sut, self.mutant.map(|m| format!(" with mutant {m}")).unwrap_or_default())
    }

    /// `12 of 14 case(s) fired in ≥ 1 program; below the floor of 1%: A, B`.
    fn brief(&self) -> String {
        let cases: Vec<&JsonCase> = self.tables.iter().flat_map(|t| &t.cases).collect();
        if cases.is_empty() {
            return "it declares no rule cases".into();
        }
        let fired = cases.iter().filter(|c| c.programs > 0).count();
        let below: Vec<&str> = cases.iter().filter(|c| c.below_floor).map(|c| c.case).collect();
        let below = if below.is_empty() { String::new() } else { format!("; below the floor of {}%: {}", rules::FLOOR_PERCENT, below.join(", ")) };
        format!("{fired} of {} case(s) fired in {} program(s){below}", cases.len(), self.programs)
    }
}

#[derive(serde::Serialize)]
struct JsonSignature<'a> {
    signature: &'a str,
    oracle: &'a str,
    count: u64,
    written: Vec<&'a Path>,
    smallest: Option<&'a Path>,
    smallest_statements: Option<usize>,
    shrunk: Option<&'a Path>,
    shrunk_statements: Option<usize>,
}

#[allow(clippy::too_many_arguments)]
fn json_summary<'a>(
    s: &'a Settings,
    subjects: &'a [Subject],
    c: &Counters,
    found: &'a campaign::Found,
    shrunk: &'a [Option<Shrunk>],
    time: Option<Duration>,
    elapsed: Duration,
    why: &'a str,
) -> JsonSummary<'a> {
    let per_oracle = s
        .oracles
        .iter()
        .zip(&c.verdicts)
        .zip(&c.hashes)
        .zip(&c.features)
        .zip(subjects.iter().zip(&c.rules))
        .map(|((((o, [p, f, u]), h), feats), (subject, tally))| JsonOracle {
            oracle: o.id,
            checked: load(p) + load(f) + load(u),
            pass: load(p),
            fail: load(f),
            inconclusive: load(u),
            programs_hash: format!("{:016x}", load(h)),
            features: FEATURES.iter().zip(feats).map(|(name, k)| (*name, load(k))).collect(),
            rules: s.rules.then(|| JsonRules::of(o, subject, &lock(tally))),
        })
        .collect();
    let signatures = found
        .groups
        .iter()
        .zip(shrunk)
        .map(|(g, sh)| JsonSignature {
            signature: &g.signature,
            oracle: g.oracle,
            count: g.count,
            written: g.written.iter().map(|f| f.path.as_path()).collect(),
            smallest: g.smallest().map(|f| f.path.as_path()),
            smallest_statements: g.smallest().map(|f| f.size.0),
            shrunk: sh.as_ref().map(|x| x.path.as_path()),
            shrunk_statements: sh.as_ref().map(|x| x.size.0),
        })
        .collect();
    JsonSummary {
        oracles: s.oracles.iter().map(|o| o.id).collect(),
        seed: s.seed,
        jobs: s.jobs,
        mutant: s.mutant.as_deref(),
        sut: s.sut.as_deref(),
        time_limit_s: time.map(|t| t.as_secs()),
        max_programs: s.max_programs,
        shard: (s.shard != campaign::Shard::WHOLE).then_some(JsonShard { index: s.shard.index, count: s.shard.count }),
        stopped_by: why,
        elapsed_s: (elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
        programs: load(&c.programs),
        per_oracle,
        failing_programs: found.groups.iter().map(|g| g.count).sum(),
        written: load(&c.written),
        signatures,
    }
}

/// A program from a `.race` file's bytes, or from a cargo-fuzz artifact of the oracle's
/// target (raw bytes for its generator).
pub(super) fn load_input(file: &Path, bytes: &[u8], o: &Oracle, s: &Subject) -> Result<Program, CliError> {
    match std::str::from_utf8(bytes).ok().map(|t| (t, parse(t))) {
        Some((_, Ok(p))) => {
            validate_relaxed(&p, s.relax()).map_err(|e| CliError::input(format!("error: {}: {e}", file.display())))?;
            Ok(p)
        }
        Some((text, Err(e))) if text.trim_start().starts_with("//") || text.contains("dialect") => Err(CliError::input(e.render(&file.display().to_string()))),
        _ => Ok(o.program(bytes, s.relax())),
    }
}

pub(super) struct ShrinkArgs<'a> {
    pub file: &'a Path,
    pub oracle: Option<&'a str>,
    pub mutant: Option<&'a str>,
    pub sut: Option<&'a str>,
    pub into_test: Option<&'a str>,
    pub root_cause: Option<&'a str>,
    pub force: bool,
    pub max_attempts: usize,
    pub detector: &'a super::DetectorArgs,
}

pub(super) fn shrink_cmd(a: &ShrinkArgs<'_>) -> Result<Exit, CliError> {
    // A finding names its oracle and mutant; flags override. An unreadable file is said
    // first, before anything it would have told.
    let bytes = std::fs::read(a.file).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", a.file.display())))?;
    let head = String::from_utf8_lossy(&bytes);
    let id =
        a.oracle.or_else(|| header(&head, "oracle")).ok_or_else(|| CliError::input(format!("error: say which oracle fails: --oracle {}", Registry::builtin().ids().join("|"))))?;
    let o = oracle(id)?;
    let mutant = a.mutant.or_else(|| header(&head, "mutant").filter(|m| *m != "none"));
    let sut = a.sut.or_else(|| header(&head, "sut"));
    // An external detector or analysis, by flags or by the finding's header.
    let external_sut = sut == Some(suts::EXTERNAL.name) || sut == Some(suts::EXTERNAL_ANALYSIS.name);
    if (a.detector.is_external() || external_sut) && a.into_test.is_some() {
        return Err(CliError::input("error: --into-test keeps regressions of racefuzz's own SUTs; keep an external SUT's shrunk program in its own tests"));
    }
    let s = if a.detector.is_external() {
        subject_or_external(&o, a.sut, a.mutant, a.detector)?
    } else if sut == Some(suts::EXTERNAL_ANALYSIS.name) {
        let x = crate::external::analysis_from_header(&|k| header(&head, k).map(str::to_string), crate::external::DEFAULT_TIMEOUT)
            .ok_or_else(|| CliError::input(format!("error: {} names the SUT `{}` but no analysis-cmd: pass --analysis-cmd", a.file.display(), suts::EXTERNAL_ANALYSIS.name)))?
            .map_err(|e| CliError::input(format!("error: {}: {e}", a.file.display())))?;
        Subject::external_analysis(&o, x).map_err(super::check_cmd::subject_error)?
    } else if sut == Some(suts::EXTERNAL.name) {
        let f = crate::external::from_header(&|k| header(&head, k).map(str::to_string), crate::external::DEFAULT_TIMEOUT)
            .ok_or_else(|| CliError::input(format!("error: {} names the SUT `external` but no detector-cmd: pass --detector-cmd", a.file.display())))?
            .map_err(|e| CliError::input(format!("error: {}: {e}", a.file.display())))?;
        Subject::external(&o, f).map_err(super::check_cmd::subject_error)?
    } else {
        subject(&o, sut, mutant)?
    };
    if let Some(name) = a.into_test {
        check_test_name(name, a.root_cause, a.force)?;
    }
    let p = load_input(a.file, &bytes, &o, &s)?;
    let fails = |q: &Program| suts::check(&o, q, &s, suts::campaign_bounds()).verdict == Verdict::Fail;
    let before = suts::check(&o, &p, &s, suts::campaign_bounds());
    if before.verdict != Verdict::Fail {
        // A cargo-fuzz artifact records no mutant: the likeliest reason it passes.
        let hint = if mutant.is_none() && parse(&head).is_err() { " (an artifact found under RACEFUZZ_MUTANT=M fails only with --mutant M)" } else { "" };
        return Err(CliError::input(format!("error: {} does not fail {} on this program ({}); nothing to shrink{hint}", before.sut, o.id, before.verdict)));
    }
    let r = shrink(&p, s.relax(), a.max_attempts, fails);
    // Re-read the printed program, so that the lines in the explanation are its own.
    let program = parse(&print(&r.program)).map_err(|e| CliError::internal(format!("the shrunk program does not parse back: {e}")))?;
    let after = suts::check(&o, &program, &s, suts::campaign_bounds());
    let (s0, m0) = counts(&p);
    let (s1, m1) = counts(&r.program);
    outln!("shrunk {} failing {} from {m0} method(s), {s0} statement(s) to {m1} method(s), {s1} statement(s) in {} steps ({} oracle runs)", after.sut, o.id, r.steps, r.attempts);
    if r.exhausted {
        outln!("(stopped at the attempt budget; raise --max-attempts to shrink further)");
    }
    outln!();
    emit(&print(&program));
    outln!();
    emit(&render::result_brief(&after));
    // A regression that already holds this program: said, and not written twice for the
    // same oracle, SUT and mutant.
    let same = same_regressions(&program);
    for (path, key) in &same {
        outln!("\nthe shrunk program is the program of {} ({key})", path.display());
    }
    let key = regression_key(o.id, s.chosen(), mutant);
    if let (Some(name), Some(cause)) = (a.into_test, a.root_cause) {
        if let Some((path, _)) = same.iter().find(|(_, k)| *k == key).filter(|_| !a.force) {
            return Err(CliError::input(format!("error: --into-test {name}: {} already is this regression ({key}); pass --force to write it again", path.display())));
        }
        let race = into_test(name, cause, &o, s.chosen(), mutant, &program)?;
        outln!("\nwrote {}; record its snapshot with `cargo insta test --review` (or `cargo test`, then `cargo insta review`)", race.display());
    }
    Ok(Exit::Ok)
}

/// Where `--into-test` writes, relative to the working directory (the repository root).
const REGRESS: &str = "tests/regress";

/// The insta snapshot `tests/regress.rs` records for the regression `name`.
fn snapshot_of(name: &str) -> PathBuf {
    Path::new("tests/snapshots").join(format!("integration__regress__{name}.snap"))
}

fn check_test_name(name: &str, cause: Option<&str>, force: bool) -> Result<(), CliError> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(CliError::input("error: --into-test NAME must be letters, digits, `_` or `-`"));
    }
    match cause.map(str::trim) {
        Some(c) if !c.is_empty() && !c.contains('\n') => {}
        _ => return Err(CliError::input("error: --into-test needs --root-cause \"…\": one line saying why the SUT fails here")),
    }
    // Checked before shrinking, so that a taken name costs no wait.
    let race = Path::new(REGRESS).join(format!("{name}.race"));
    if let Some(taken) = [race, snapshot_of(name)].into_iter().find(|p| p.exists()).filter(|_| !force) {
        return Err(CliError::input(format!(
            "error: --into-test {name}: {} already exists; choose another NAME, or pass --force to replace the regression (its snapshot then differs, for review)",
            taken.display()
        )));
    }
    Ok(())
}

/// What makes two regressions of one program the same test: oracle, SUT and mutant.
fn regression_key(oracle: &str, sut: Option<&str>, mutant: Option<&str>) -> String {
    format!("oracle {oracle}{}, mutant {}", sut.map(|n| format!(", SUT {n}")).unwrap_or_default(), mutant.unwrap_or("none"))
}

/// The regressions under [`REGRESS`] whose program prints as `p` does, with their keys,
/// sorted by path (a file that does not parse is not one).
fn same_regressions(p: &Program) -> Vec<(PathBuf, String)> {
    let want = print(p);
    crate::corpus::race_files(Path::new(REGRESS))
        .into_iter()
        .filter_map(|f| {
            let src = std::fs::read_to_string(&f).ok()?;
            let q = parse(&src).ok()?;
            (print(&q) == want).then(|| {
                let key = regression_key(header(&src, "oracle").unwrap_or("?"), header(&src, "sut"), header(&src, "mutant").filter(|m| *m != "none"));
                (f, key)
            })
        })
        .collect()
}

/// The regression file: a header (the oracle, mutant, expected verdict and root cause),
/// then the program. `tests/regress.rs` replays it and snapshots the oracle's explanation
/// through insta, computed on this very file, so the lines it names are the file's lines.
fn into_test(name: &str, cause: &str, o: &Oracle, sut: Option<&str>, mutant: Option<&str>, p: &Program) -> Result<PathBuf, CliError> {
    let io = |e: std::io::Error| CliError::input(format!("error: cannot write the test: {e}"));
    let dir = Path::new(REGRESS);
    std::fs::create_dir_all(dir).map_err(io)?;
    let sut = sut.map(|n| format!("// sut: {n}\n")).unwrap_or_default();
    let text = format!("// regression: {name}\n// oracle: {}\n{sut}// mutant: {}\n// verdict: fail\n// root cause: {}\n{}", o.id, mutant.unwrap_or("none"), cause.trim(), print(p));
    let race = dir.join(format!("{name}.race"));
    std::fs::write(&race, &text).map_err(io)?;
    Ok(race)
}
