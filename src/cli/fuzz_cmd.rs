//! `racefuzz fuzz` (an in-process campaign with a progress bar and a summary) and
//! `racefuzz shrink` (reduce a counterexample; `--into-test` makes it a CI test).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use race_oracles::gen::shrink::{counts, shrink};
use race_oracles::gen::{racerdx::build, RacerDxKnobs};
use race_oracles::lang::{parse, print, validate_relaxed, Program};
use race_oracles::theorems::Verdict;

use super::{emit, CliError};
use crate::campaign::{self, Counters, OracleId, Settings, FEATURES};
use crate::corpus::header;
use crate::outln;

/// Parses `90s`, `10m`, `2h` or a bare number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let (num, unit) = s.trim().split_at(s.trim().find(|c: char| !c.is_ascii_digit()).unwrap_or(s.trim().len()));
    let n: u64 = num.parse().map_err(|_| format!("bad duration `{s}` (examples: 60s, 10m, 2h)"))?;
    let secs = match unit {
        "" | "s" => n,
        "m" => n * 60,
        "h" => n * 3600,
        _ => return Err(format!("bad duration unit in `{s}` (s, m or h)")),
    };
    Ok(Duration::from_secs(secs))
}

pub(super) fn fuzz(oracles: &[OracleId], time: &str, seed: u64, jobs: usize, mutant: Option<&str>, out: &Path) -> Result<u8, CliError> {
    super::mutant_options(mutant)?;
    let time = parse_duration(time).map_err(|e| CliError::input(format!("error: --time: {e}")))?;
    let oracles: Vec<OracleId> = if oracles.is_empty() { OracleId::ALL.to_vec() } else { oracles.to_vec() };
    let s = Settings { oracles: oracles.clone(), time, seed, jobs: jobs.max(1), mutant: mutant.map(str::to_string), out: out.to_path_buf(), max_programs: None };
    let names: Vec<&str> = oracles.iter().map(|o| o.name()).collect();
    outln!("racefuzz fuzz: {} for {}s, seed {seed}, {} job(s){}; findings go to {}/<oracle>/", names.join(", "), time.as_secs(), s.jobs, mutant.map(|m| format!(", mutant {m}")).unwrap_or_default(), out.display());
    let counters = Counters::new(oracles.len());
    let stop = AtomicBool::new(false);
    let bar = ProgressBar::new(time.as_secs());
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {msg}").unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "));
    let start = Instant::now();
    let findings = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            campaign::run(&s, &counters, &stop, |f| {
                let line = format!("FAIL {}: written to {}", f.oracle.name(), f.path.display());
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
        worker.join().unwrap_or_default()
    });
    stop.store(true, Ordering::Relaxed);
    bar.finish_with_message(status(&counters, &oracles, start.elapsed()));
    emit(&summary(&counters, &oracles, start.elapsed()));
    if findings.is_empty() {
        outln!("no counterexample");
        Ok(0)
    } else {
        outln!("{} counterexample(s); shrink one with `racefuzz shrink FILE` (the file names its oracle and mutant)", findings.len());
        Ok(1)
    }
}

fn status(c: &Counters, oracles: &[OracleId], elapsed: Duration) -> String {
    let n = c.programs.load(Ordering::Relaxed);
    let rate = n as f64 / elapsed.as_secs_f64().max(0.001);
    let v: Vec<String> = oracles
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let [p, f, u] = &c.verdicts[i];
            format!("{} {}/{}/{}", o.name(), p.load(Ordering::Relaxed), f.load(Ordering::Relaxed), u.load(Ordering::Relaxed))
        })
        .collect();
    let cov: Vec<String> = FEATURES.iter().enumerate().map(|(k, f)| format!("{f} {:.0}%", 100.0 * c.features[k].load(Ordering::Relaxed) as f64 / n.max(1) as f64)).collect();
    format!("{n} programs, {rate:.0}/s | pass/fail/inconclusive: {} | {}", v.join(", "), cov.join(" "))
}

fn summary(c: &Counters, oracles: &[OracleId], elapsed: Duration) -> String {
    let n = c.programs.load(Ordering::Relaxed);
    let mut out = format!("\n{n} programs in {:.1}s ({:.0} programs/s)\n", elapsed.as_secs_f64(), n as f64 / elapsed.as_secs_f64().max(0.001));
    out.push_str(&format!("{:<18} {:>9} {:>9} {:>6} {:>13}\n", "oracle", "checked", "pass", "fail", "inconclusive"));
    for (i, o) in oracles.iter().enumerate() {
        let [p, f, u] = &c.verdicts[i];
        let (p, f, u) = (p.load(Ordering::Relaxed), f.load(Ordering::Relaxed), u.load(Ordering::Relaxed));
        out.push_str(&format!("{:<18} {:>9} {:>9} {:>6} {:>13}\n", o.name(), p + f + u, p, f, u));
    }
    let cov: Vec<String> = FEATURES.iter().enumerate().map(|(k, f)| format!("{f} {:.0}%", 100.0 * c.features[k].load(Ordering::Relaxed) as f64 / n.max(1) as f64)).collect();
    out.push_str(&format!("feature coverage (programs with …): {}\n", cov.join(", ")));
    out
}

/// A program from a `.race` file, or from a cargo-fuzz artifact of the `racerdx_tp` target
/// (raw bytes for the racerdx generator).
fn load_input(file: &Path, relax: race_oracles::lang::Relax) -> Result<(String, Program), CliError> {
    let bytes = std::fs::read(file).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", file.display())))?;
    match std::str::from_utf8(&bytes).ok().map(|t| (t, parse(t))) {
        Some((text, Ok(p))) => {
            validate_relaxed(&p, relax).map_err(|e| CliError::input(format!("error: {}: {e}", file.display())))?;
            Ok((text.to_string(), p))
        }
        Some((text, Err(e))) if text.trim_start().starts_with("//") || text.contains("dialect") => Err(CliError::input(e.render(&file.display().to_string()))),
        _ => {
            let knobs = RacerDxKnobs { unmatched_unlock: relax.balanced_locking, ..RacerDxKnobs::default() };
            Ok((String::new(), build(&bytes, knobs)))
        }
    }
}

pub(super) struct ShrinkArgs<'a> {
    pub file: &'a Path,
    pub oracle: Option<OracleId>,
    pub mutant: Option<&'a str>,
    pub into_test: Option<&'a str>,
    pub max_attempts: usize,
}

pub(super) fn shrink_cmd(a: &ShrinkArgs<'_>) -> Result<u8, CliError> {
    // A finding names its oracle and mutant; flags override.
    let head = std::fs::read_to_string(a.file).unwrap_or_default();
    let oracle = a.oracle.or_else(|| header(&head, "oracle").and_then(OracleId::from_name)).ok_or_else(|| CliError::input("error: say which oracle fails: --oracle racerdx-tp|racerdx-complete"))?;
    let mutant = a.mutant.map(str::to_string).or_else(|| header(&head, "mutant").filter(|m| *m != "none").map(str::to_string));
    let relax = super::mutant_options(mutant.as_deref())?.1;
    let (_, p) = load_input(a.file, relax)?;
    let before = campaign::check(oracle, &p, mutant.as_deref());
    if before.verdict != Verdict::Fail {
        return Err(CliError { message: format!("error: {} does not fail {} on this program ({}); nothing to shrink", who(mutant.as_deref()), oracle.name(), before.verdict), code: 2 });
    }
    let r = shrink(&p, relax, a.max_attempts, |q| campaign::check(oracle, q, mutant.as_deref()).verdict == Verdict::Fail);
    // Re-read the printed program, so that the lines in the explanation are its own.
    let program = parse(&print(&r.program)).map_err(|e| CliError::input(format!("racefuzz internal bug: shrunk program does not parse: {e}")))?;
    let after = campaign::check(oracle, &program, mutant.as_deref());
    let (s0, m0) = counts(&p);
    let (s1, m1) = counts(&r.program);
    outln!("shrunk {} failing {} from {m0} method(s), {s0} statement(s) to {m1} method(s), {s1} statement(s) in {} steps ({} oracle runs)", who(mutant.as_deref()), oracle.name(), r.steps, r.attempts);
    if r.exhausted {
        outln!("(stopped at the attempt budget; raise --max-attempts to shrink further)");
    }
    outln!();
    emit(&print(&program));
    outln!();
    emit(&after.text);
    if let Some(name) = a.into_test {
        let (race, snap) = into_test(name, oracle, mutant.as_deref(), &program, &after)?;
        outln!("\nwrote {} and {}; run `cargo test` (review changes with `cargo insta review`)", race.display(), snap.display());
    }
    Ok(0)
}

fn who(mutant: Option<&str>) -> String {
    mutant.map_or_else(|| "RacerDX".to_string(), |m| format!("RacerDX (mutant {m})"))
}

/// The regression test's expected text for a program: exactly what `tests/regress.rs`
/// snapshots, so a new file passes at once.
pub fn regress_text(oracle: OracleId, mutant: Option<&str>, p: &Program) -> String {
    campaign::check(oracle, p, mutant).text
}

fn into_test(name: &str, oracle: OracleId, mutant: Option<&str>, p: &Program, checked: &campaign::Checked) -> Result<(PathBuf, PathBuf), CliError> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        return Err(CliError::input("error: --into-test NAME must be letters, digits, `_` or `-`"));
    }
    let io = |e: std::io::Error| CliError::input(format!("error: cannot write the test: {e}"));
    let dir = Path::new("tests/regress");
    std::fs::create_dir_all(dir).map_err(io)?;
    let cause: Vec<String> = checked.text.lines().map(|l| format!("//   {l}")).collect();
    let text = format!(
        "// regression: {name}\n// oracle: {}\n// mutant: {}\n// verdict: {}\n// root cause (from the oracle; edit to explain):\n{}\n{}",
        oracle.name(),
        mutant.unwrap_or("none"),
        checked.verdict,
        cause.join("\n"),
        print(p)
    );
    let race = dir.join(format!("{name}.race"));
    std::fs::write(&race, &text).map_err(io)?;
    // The snapshot is what `tests/regress.rs` will see: the file as written, lines included.
    let written = parse(&text).map_err(|e| CliError::input(format!("racefuzz internal bug: {e}")))?;
    let snap_dir = Path::new("tests/snapshots");
    std::fs::create_dir_all(snap_dir).map_err(io)?;
    let snap = snap_dir.join(format!("integration__regress__{name}.snap"));
    let body = regress_text(oracle, mutant, &written);
    std::fs::write(&snap, format!("---\nsource: tests/regress.rs\nexpression: text\n---\n{body}")).map_err(io)?;
    Ok((race, snap))
}
