//! `racefuzz fuzz` (an in-process campaign with a progress bar and a summary) and
//! `racefuzz shrink` (reduce a counterexample; `--into-test` makes it a CI test).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use race_oracles::theorems::rules::Tally;
use race_oracles::theorems::{Oracle, Registry};

use super::shared::{emit, oracle, print_json, write_report, CliError, Exit, StatusClock};
use crate::campaign::{self, Counters, Settings};
use crate::outln;
use crate::summary::{self, StopReason, Summary, FEATURES};
use crate::sut_spec::SutSpec;
use crate::suts::{self, Subject};

/// The oracles named on the command line; when none is, all but the negative controls
/// (which are expected to fail and run only when named) and those whose SUT is a real
/// detector (`suts::by_default`), and with `--mutant` only those of them that judge it, so
/// that `racefuzz fuzz --mutant M` hunts M wherever it can be seen. A named oracle that
/// does not judge the mutant is refused later, by its subject. With an external SUT, the
/// oracles that judge one of its kind; with `--sut NAME`, those that judge NAME.
fn oracles(ids: &[String], spec: &SutSpec) -> Result<Vec<Oracle>, CliError> {
    if !ids.is_empty() {
        return ids.iter().map(|id| oracle(id)).collect();
    }
    let reg = Registry::builtin();
    match spec {
        SutSpec::Detector(_) => {
            return Ok(reg.all().iter().filter(|o| !o.negative_control && suts::EXTERNAL.fits(o)).copied().collect());
        }
        SutSpec::Analysis(_) => return Ok(reg.all().iter().filter(|o| suts::analysis_oracles().contains(&o.id)).copied().collect()),
        SutSpec::Catalogued { sut: Some(name), .. } => {
            return Ok(reg.all().iter().filter(|o| !o.negative_control && suts::fitting(o).any(|e| e.name == name.name)).copied().collect());
        }
        SutSpec::Catalogued { sut: None, .. } => {}
    }
    let defaults = reg.all().iter().filter(|o| suts::by_default(o)).copied();
    let Some(m) = spec.mutant() else { return Ok(defaults.collect()) };
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
    pub detector: &'a super::shared::DetectorArgs,
    /// `--shard K/N` (or `RACEFUZZ_SHARD`), unparsed.
    pub shard: Option<&'a str>,
    /// `--report FILE`: the campaign as an HTML page.
    pub report: Option<&'a Path>,
    /// `--rules`: record rule coverage (also when `report` is given).
    pub rules: bool,
}

/// SIGINT and SIGTERM received so far: the first stops the campaign at the next program,
/// the second the shrinking, the third the process.
fn signals() -> usize {
    super::shared::signals::received()
}

/// Why a campaign ended.
fn stopped_by(s: &Settings, counters: &Counters, time: Option<Duration>, elapsed: Duration) -> StopReason {
    if signals() > 0 {
        StopReason::Signal
    } else if s.stop_after.is_some_and(|n| load(&counters.distinct) >= n) {
        StopReason::StopAfter
    } else if time.is_some_and(|t| elapsed >= t) {
        StopReason::Time
    } else if s.max_programs.is_some() {
        StopReason::MaxPrograms
    } else {
        StopReason::Time
    }
}

pub(super) fn fuzz(a: &FuzzArgs<'_>) -> Result<Exit, CliError> {
    let FuzzArgs { seed, jobs, mutant, sut, out, max_programs, json, .. } = *a;
    let shard = match a.shard {
        Some(t) => campaign::Shard::parse(t).map_err(|e| CliError::input(format!("error: --shard (or RACEFUZZ_SHARD): {e}")))?,
        None => campaign::Shard::WHOLE,
    };
    let spec = a.detector.spec(sut, mutant)?;
    let claim = spec.claim().map(|c| format!(" (claim {})", c.name())).unwrap_or_default();
    let oracles = oracles(a.ids, &spec)?;
    // --sut applies to the oracles it fits, and must fit one.
    if let Some(name) = spec.catalogued_sut().filter(|n| !oracles.iter().any(|o| suts::fitting(o).any(|e| e.name == n.name))) {
        let fitting: std::collections::BTreeSet<&str> = oracles.iter().flat_map(|o| suts::fitting(o).map(|e| e.name)).collect();
        let every: Vec<&str> = suts::SUTS.iter().map(|e| e.name).collect();
        return Err(CliError::input(format!(
            "error: --sut: no SUT `{name}` for {} (their SUTs: {}; every SUT: {})",
            oracles.iter().map(|o| o.id).collect::<Vec<_>>().join(", "),
            fitting.into_iter().collect::<Vec<_>>().join(", "),
            every.join(", ")
        )));
    }
    let subjects: Vec<Subject> = oracles.iter().map(|o| Subject::where_it_fits(o, &spec)).collect::<Result<_, _>>().map_err(|e| CliError::input(format!("error: {e}")))?;
    // --max-programs alone is a budget of its own; --time alone or neither is 60s.
    let time = match (a.time, max_programs) {
        (Some(t), _) => Some(crate::duration::parse(t).map_err(|e| CliError::input(format!("error: --time: {e}")))?),
        (None, Some(_)) => None,
        (None, None) => Some(Duration::from_secs(60)),
    };
    let mut status_clock = StatusClock::new(a.status_interval)?;
    let start = Instant::now();
    let deadline = start.checked_add(time.unwrap_or(crate::duration::MAX_DURATION)).ok_or_else(|| CliError::input("error: --time is too long for this machine's clock"))?;
    let s = Settings {
        oracles: oracles.clone(),
        deadline,
        seed,
        jobs: jobs.max(1),
        spec,
        out: out.to_path_buf(),
        max_programs,
        keep: a.keep.max(1),
        stop_after: a.stop_after,
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
    super::shared::signals::stop_gracefully();
    say(&format!(
        "racefuzz fuzz: {}{budget}, seed {seed}, {} job(s){}{}{}; findings go to {}/<oracle>/ ({} per signature)",
        names.join(", "),
        s.jobs,
        if shard == campaign::Shard::WHOLE { String::new() } else { format!(", shard {}/{}", shard.index, shard.count) },
        sut.map(|n| format!(", SUT {n}{claim}")).unwrap_or_default(),
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
                // Without a terminal the bar is hidden, and so would be its messages.
                let show = |line: String| if bar.is_hidden() { say(&line) } else { bar.println(line) };
                if let Some(note) = f.page_note() {
                    show(note);
                }
                if f.first {
                    show(format!("FAIL {}\n     {}", f.signature, f.path.display()));
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
                emit(&summary_text(&counters, &oracles, s.rules.then_some(subjects.as_slice()), elapsed));
            }
            return Err(super::shared::campaign_error(&e));
        }
        Err(_) => return Err(CliError::internal("a campaign job panicked")),
    };
    let why = stopped_by(&s, &counters, time, elapsed);
    if !json {
        emit(&summary_text(&counters, &oracles, s.rules.then_some(subjects.as_slice()), elapsed));
        if why == StopReason::Signal {
            outln!("stopped by a signal after {:.1}s; every finding is kept", elapsed.as_secs_f64());
        }
    }
    let shrunk = if a.shrink { shrink_groups(&s, &oracles, &subjects, &found, a.max_attempts, &say) } else { vec![None; found.groups.len()] };
    // The summary also goes into the output folder, for `racefuzz merge`.
    let doc = Summary::Run(run_summary(&s, &subjects, &counters, &found, &shrunk, time, elapsed, why));
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

/// Shrinks the first program of each signature, `jobs` at a time, keeping its signature;
/// each result is written as `HASH.shrunk.race` next to it. A second signal stops every
/// shrink at its best program so far (which is still written).
fn shrink_groups(
    s: &Settings,
    oracles: &[Oracle],
    subjects: &[Subject],
    found: &campaign::Found,
    max_attempts: usize,
    say: &(impl Fn(&str) + Sync),
) -> Vec<Option<campaign::Shrunk>> {
    let todo: Vec<(usize, &campaign::Group)> = found.groups.iter().enumerate().collect();
    if todo.is_empty() {
        return vec![];
    }
    say(&format!("shrinking the first program of {} signature(s) ({} job(s); a second SIGINT stops at the best so far)", todo.len(), s.jobs));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: std::sync::Mutex<Vec<Option<campaign::Shrunk>>> = std::sync::Mutex::new(vec![None; todo.len()]);
    std::thread::scope(|scope| {
        for _ in 0..s.jobs.min(todo.len()) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                let Some((i, g)) = todo.get(k) else { break };
                let Some(pos) = oracles.iter().position(|o| o.id == g.oracle) else { continue };
                let line = match campaign::shrink_group(&oracles[pos], &subjects[pos], g, max_attempts, &|| signals() >= 2) {
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
fn summary_text(c: &Counters, oracles: &[Oracle], rules: Option<&[Subject]>, elapsed: Duration) -> String {
    let n = load(&c.programs);
    let mut out = format!("\n{n} programs in {:.1}s ({:.0} programs/s)\n", elapsed.as_secs_f64(), n as f64 / elapsed.as_secs_f64().max(0.001));
    out.push_str(&format!("{:<30} {:>9} {:>9} {:>6} {:>13}  {}\n", "oracle", "checked", "pass", "fail", "inconclusive", "judged something"));
    for (i, o) in oracles.iter().enumerate() {
        let [p, f, u] = &c.verdicts[i];
        let (p, f, u) = (load(p), load(f), load(u));
        let control = if o.negative_control { "; a negative control: failures expected" } else { "" };
        out.push_str(&format!("{:<30} {:>9} {:>9} {:>6} {:>13}  {:.0}% (≥ 1 {}){control}\n", o.id, p + f + u, p, f, u, pct(load(&c.judged[i]), p + f + u), o.item_kind));
    }
    let sc_only: Vec<String> = oracles.iter().zip(&c.sc_only).map(|(o, k)| (o.id, load(k))).filter(|&(_, k)| k > 0).map(|(id, k)| format!("{id} {k}")).collect();
    if !sc_only.is_empty() {
        out.push_str(&format!("of the inconclusive, by the label `SC executions only` (docs/spec/atomics.md §3.4): {}\n", sc_only.join(", ")));
    }
    let cov: Vec<String> = FEATURES.iter().zip(c.features_total()).map(|(f, k)| format!("{f} {:.0}%", pct(k, n))).collect();
    out.push_str(&format!("feature coverage (programs with …): {}\n", cov.join(", ")));
    if let Some(subjects) = rules {
        for ((o, subject), tally) in oracles.iter().zip(subjects).zip(&c.rules) {
            let r = rules_of(o, subject, &lock(tally));
            out.push_str(&format!("rule coverage of {} ({}): {}\n", o.id, r.whose(), r.brief()));
        }
    }
    out
}

/// The signatures, most frequent first within each oracle, each with its smallest program.
fn signatures(c: &Counters, found: &campaign::Found, shrunk: &[Option<campaign::Shrunk>]) -> String {
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

/// The rule coverage of one oracle's SUT in a campaign: the cases of the SUT's rule tables
/// that the oracle exercises, with the programs on which each fired.
fn rules_of(o: &Oracle, subject: &Subject, tally: &Tally) -> summary::Rules {
    let (tables, not_exercised) = suts::exercised_rules(subject.entry(), o);
    let rows = tally.rows(&tables);
    let tables = tables
        .iter()
        .map(|t| summary::RuleTable {
            sut: t.sut.to_string(),
            spec: t.spec.to_string(),
            cases: rows
                .iter()
                .filter(|r| r.sut == t.sut)
                .map(|r| summary::RuleCase {
                    case: r.case.name.to_string(),
                    spec: r.case.spec.to_string(),
                    rare: r.case.rare.map(str::to_string),
                    programs: r.programs as u64,
                    below_floor: r.below_floor(),
                })
                .collect(),
        })
        .collect();
    summary::Rules { sut: subject.entry().name.to_string(), mutant: subject.mutant().map(str::to_string), programs: tally.programs() as u64, tables, not_exercised }
}

/// The campaign's summary (`fuzz --json`, and the file `racefuzz merge` reads).
#[allow(clippy::too_many_arguments)]
fn run_summary(
    s: &Settings,
    subjects: &[Subject],
    c: &Counters,
    found: &campaign::Found,
    shrunk: &[Option<campaign::Shrunk>],
    time: Option<Duration>,
    elapsed: Duration,
    why: StopReason,
) -> summary::Run {
    let per_oracle = s
        .oracles
        .iter()
        .zip(&c.verdicts)
        .zip(&c.hashes)
        .zip(&c.features)
        .zip(&c.sc_only)
        .zip(subjects.iter().zip(&c.rules))
        .map(|(((((o, [p, f, u]), h), feats), sc), (subject, tally))| summary::OracleTotals {
            oracle: o.id.to_string(),
            checked: load(p) + load(f) + load(u),
            pass: load(p),
            fail: load(f),
            inconclusive: load(u),
            sc_executions_only: Some(load(sc)).filter(|&n| n > 0),
            programs_hash: Some(format!("{:016x}", load(h))),
            features: Some(summary::Features::from_counts(feats.each_ref().map(load))),
            rules: s.rules.then(|| rules_of(o, subject, &lock(tally))),
        })
        .collect();
    let signatures = found
        .groups
        .iter()
        .zip(shrunk)
        .map(|(g, sh)| summary::Failure {
            signature: g.signature.clone(),
            oracle: g.oracle.to_string(),
            count: g.count,
            written: g.written.iter().map(|f| f.path.clone()).collect(),
            smallest: g.smallest().map(|f| f.path.clone()),
            smallest_statements: g.smallest().map(|f| f.size.0),
            shrunk: sh.as_ref().map(|x| x.path.clone()),
            shrunk_statements: sh.as_ref().map(|x| x.size.0),
        })
        .collect();
    summary::Run {
        oracles: s.oracles.iter().map(|o| o.id.to_string()).collect(),
        seed: s.seed,
        jobs: s.jobs,
        mutant: s.spec.mutant().map(str::to_string),
        sut: s.spec.catalogued_sut().map(ToString::to_string),
        time_limit_s: time.map(|t| t.as_secs()),
        max_programs: s.max_programs,
        shard: (s.shard != campaign::Shard::WHOLE).then_some(summary::Shard { index: s.shard.index, count: s.shard.count }),
        stopped_by: why,
        elapsed_s: (elapsed.as_secs_f64() * 1000.0).round() / 1000.0,
        programs: load(&c.programs),
        per_oracle,
        failing_programs: found.groups.iter().map(|g| g.count).sum(),
        written: load(&c.written),
        signatures,
    }
}
