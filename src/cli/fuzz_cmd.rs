//! `racefuzz fuzz` (an in-process campaign with a progress bar and a summary) and
//! `racefuzz shrink` (reduce a counterexample; `--into-test` makes it a CI test).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use race_oracles::gen::shrink::{counts, shrink};
use race_oracles::lang::{parse, print, validate_relaxed, Program};
use race_oracles::theorems::{Oracle, Registry, Verdict};

use super::check_cmd::subject;
use super::{emit, oracle, CliError, Exit};
use crate::campaign::{self, Counters, Settings, FEATURES};
use crate::corpus::header;
use crate::outln;
use crate::render;
use crate::suts::{self, Subject};

/// The longest budget a campaign accepts: a year.
pub const MAX_DURATION: Duration = Duration::from_secs(366 * 24 * 3600);

/// Parses `90s`, `10m`, `2h` or a bare number of seconds, up to [`MAX_DURATION`].
///
/// # Errors
/// A message naming the problem (bad number, bad unit, too long).
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: u64 = num.parse().map_err(|_| format!("bad duration `{s}` (examples: 60s, 10m, 2h)"))?;
    let scale = match unit {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return Err(format!("bad duration unit in `{s}` (s, m or h)")),
    };
    let secs =
        n.checked_mul(scale).filter(|&x| x <= MAX_DURATION.as_secs()).ok_or_else(|| format!("duration `{s}` is longer than a year; campaigns that long belong to cargo fuzz"))?;
    Ok(Duration::from_secs(secs))
}

/// The oracles named on the command line; when none is, all but the negative controls
/// (which are expected to fail and run only when named), and with `--mutant` only those of
/// them that judge it, so that `racefuzz fuzz --mutant M` hunts M wherever it can be seen.
/// A named oracle that does not judge the mutant is refused later, by its subject.
fn oracles(ids: &[String], mutant: Option<&str>) -> Result<Vec<Oracle>, CliError> {
    if !ids.is_empty() {
        return ids.iter().map(|id| oracle(id)).collect();
    }
    let reg = Registry::builtin();
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
    pub time: &'a str,
    pub seed: u64,
    pub jobs: usize,
    pub mutant: Option<&'a str>,
    pub sut: Option<&'a str>,
    pub out: &'a Path,
    pub max_programs: Option<u64>,
}

pub(super) fn fuzz(a: &FuzzArgs<'_>) -> Result<Exit, CliError> {
    let FuzzArgs { time, seed, jobs, mutant, sut, out, max_programs, .. } = *a;
    let oracles = oracles(a.ids, mutant)?;
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
    for o in &oracles {
        campaign::subject_for(o, sut, mutant).map_err(|e| CliError::input(format!("error: {e}")))?;
    }
    let time = parse_duration(time).map_err(|e| CliError::input(format!("error: --time: {e}")))?;
    let start = Instant::now();
    let deadline = start.checked_add(time).ok_or_else(|| CliError::input("error: --time is too long for this machine's clock"))?;
    let s = Settings {
        oracles: oracles.clone(),
        deadline,
        seed,
        jobs: jobs.max(1),
        mutant: mutant.map(str::to_string),
        sut: sut.map(str::to_string),
        out: out.to_path_buf(),
        max_programs,
    };
    let names: Vec<&str> = oracles.iter().map(|o| o.id).collect();
    outln!(
        "racefuzz fuzz: {} for {}s, seed {seed}, {} job(s){}{}; findings go to {}/<oracle>/",
        names.join(", "),
        time.as_secs(),
        s.jobs,
        sut.map(|n| format!(", SUT {n}")).unwrap_or_default(),
        mutant.map(|m| format!(", mutant {m}")).unwrap_or_default(),
        out.display()
    );
    let counters = Counters::new(oracles.len());
    let stop = AtomicBool::new(false);
    let bar = ProgressBar::new(time.as_secs());
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {msg}").unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "));
    let result = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            campaign::run(&s, &counters, &stop, |f| {
                let line = format!("FAIL {}: written to {}", f.oracle, f.path.display());
                // Without a terminal the bar is hidden, and so would be its messages.
                if bar.is_hidden() {
                    outln!("{line}");
                } else {
                    bar.println(line);
                }
            })
        });
        while !worker.is_finished() {
            std::thread::sleep(Duration::from_millis(200));
            bar.set_position(start.elapsed().as_secs().min(time.as_secs()));
            bar.set_message(status(&counters, &oracles, start.elapsed()));
        }
        worker.join()
    });
    stop.store(true, Ordering::Relaxed);
    bar.finish_with_message(status(&counters, &oracles, start.elapsed()));
    emit(&summary(&counters, &oracles, start.elapsed()));
    let findings = match result {
        Ok(Ok(f)) => f,
        Ok(Err(e)) => return Err(super::campaign_error(&e)),
        Err(_) => return Err(CliError::internal("a campaign job panicked")),
    };
    if findings.is_empty() {
        outln!("no counterexample");
        Ok(Exit::Ok)
    } else {
        outln!("{} counterexample(s); shrink one with `racefuzz shrink FILE` (the file names its oracle and mutant)", findings.len());
        Ok(Exit::Fail)
    }
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
    let cov: Vec<String> = FEATURES.iter().zip(&c.features).map(|(f, k)| format!("{f} {:.0}%", pct(load(k), n))).collect();
    format!("{n} programs, {rate:.0}/s | pass/fail/inconclusive: {} | {}", v.join(", "), cov.join(" "))
}

fn summary(c: &Counters, oracles: &[Oracle], elapsed: Duration) -> String {
    let n = load(&c.programs);
    let mut out = format!("\n{n} programs in {:.1}s ({:.0} programs/s)\n", elapsed.as_secs_f64(), n as f64 / elapsed.as_secs_f64().max(0.001));
    out.push_str(&format!("{:<30} {:>9} {:>9} {:>6} {:>13}  {}\n", "oracle", "checked", "pass", "fail", "inconclusive", "judged something"));
    for (i, o) in oracles.iter().enumerate() {
        let [p, f, u] = &c.verdicts[i];
        let (p, f, u) = (load(p), load(f), load(u));
        let control = if o.negative_control { "; a negative control: failures expected" } else { "" };
        out.push_str(&format!("{:<30} {:>9} {:>9} {:>6} {:>13}  {:.0}% (≥ 1 {}){control}\n", o.id, p + f + u, p, f, u, pct(load(&c.judged[i]), p + f + u), o.item_kind));
    }
    let cov: Vec<String> = FEATURES.iter().zip(&c.features).map(|(f, k)| format!("{f} {:.0}%", pct(load(k), n))).collect();
    out.push_str(&format!("feature coverage (programs with …): {}\n", cov.join(", ")));
    out
}

/// A program from a `.race` file's bytes, or from a cargo-fuzz artifact of the oracle's
/// target (raw bytes for its generator).
fn load_input(file: &Path, bytes: &[u8], o: &Oracle, s: &Subject) -> Result<Program, CliError> {
    match std::str::from_utf8(bytes).ok().map(|t| (t, parse(t))) {
        Some((_, Ok(p))) => {
            validate_relaxed(&p, s.relax()).map_err(|e| CliError::input(format!("error: {}: {e}", file.display())))?;
            Ok(p)
        }
        Some((text, Err(e))) if text.trim_start().starts_with("//") || text.contains("dialect") => Err(CliError::input(e.render(&file.display().to_string()))),
        _ => Ok((o.generate)(bytes, s.relax())),
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
    let s = subject(&o, sut, mutant)?;
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
