//! # racefuzz
//!
//! A mechanized-semantics test oracle and differential fuzzer for data-race analyses. The
//! ground truth (the `.race` language, its semantics, the exhaustive explorer and the race
//! definitions) lives in the `race-oracles` crate, which never depends on this one; this
//! crate holds the systems under test and their seeded bugs, the one dispatch from an
//! oracle to a SUT, campaigns, rendering, the corpus conventions and the command line.
//!
//! ## Contents
//! - [`analyses`]: the SUTs: RacerDX and RacerD-like, FastTrack, BigFoot's check placement
//!   and DynamicBF, per-access checks, the partial-escape and capsule filters, Naik-Aiken's
//!   conditional must-not-alias checker, and the L-DRF paper's sync-CFG analyses.
//! - [`seeded`]: what a seeded bug is (a row of its SUT's `SEEDED` table, with the spec's
//!   predictions); a leaf that the SUTs, the catalogue and the SUT catalogue build on.
//! - [`mutants`]: the seeded-bug catalogue, with the spec's prediction per oracle id.
//! - [`suts`]: the SUT catalogue and [`suts::check`], the one place an oracle
//!   (`race_oracles::theorems::Registry`) meets a SUT.
//! - [`campaign`]: fuzz campaigns; findings go outside the source tree, a few per
//!   [`signature`] of failure.
//! - [`signature`]: a failure's signature, alike for failures that are likely one bug.
//! - [`std_trace`]: traces in STD, the text format of race-prediction tools (`thread|op(decor)|loc`):
//!   a writer with stable names, a strict reader, the ground truth's races on a trace.
//! - [`render`]: every text and JSON a person or a machine reads.
//! - [`rule_coverage`]: which cases of a SUT's spec rules its oracle's generator reaches.
//! - [`corpus`]: `.race` header conventions and the curated corpus folders.
//! - [`external`]: running a race detector or a static race analysis that lives in another
//!   process (per trace or program, or persistent over JSON Lines), with timeouts; its
//!   failures are values.
//! - [`cli`]: the command line.
//!
//! ## Exit codes (every subcommand; [`cli::Exit`])
//! | code | meaning |
//! |---|---|
//! | 0 | success; the exploration covered everything within the printed bounds |
//! | 1 | a property failed (oracle `fail`) |
//! | 2 | bad input: unreadable file, syntax error (line:col), dialect violation, bad flag |
//! | 3 | inconclusive: a budget was exhausted or a hypothesis unmet, so no full answer |
//! | 4 | racefuzz internal bug (the message says which invariant) |
//!
//! ## Fuzz targets
//! [`fuzz_one`] is the body of every oracle's cargo-fuzz target.

pub mod analyses;
pub mod campaign;
pub mod cli;
pub mod corpus;
pub mod external;
pub mod mutants;
pub mod picture;
pub mod render;
pub mod rule_coverage;
pub mod score;
pub mod seeded;
pub mod signature;
pub mod std_trace;
pub mod suts;
pub mod tsan;

/// The body of an oracle's cargo-fuzz target: `data` through the oracle's generator, then
/// the oracle against its SUT (with the mutant named by the environment variable
/// `RACEFUZZ_MUTANT`, if set) under [`suts::fuzz_bounds`], a budget of counts (never wall
/// time), so that a slow input is `inconclusive` the same way on every machine. Fails only
/// on the oracle's `fail`, printing the program and the explanation, and then aborting:
/// libFuzzer records the abort as a crash. Not a panic: under `RUST_BACKTRACE=1` the panic
/// hook symbolizes a backtrace, which took more than libFuzzer's `-timeout` on a loaded
/// machine, and libFuzzer's timeout handler then deadlocked in `malloc` (it is not
/// async-signal-safe), leaving a `-fork` child hung for an hour.
///
/// A misconfigured target (an unknown oracle, or a `RACEFUZZ_MUTANT` the oracle does not
/// judge) says so on stderr and exits with status 2 in [`fuzz_init`], before any input: a
/// panic or exit inside an input would be recorded as a crash artifact that reproduces
/// nothing.
pub fn fuzz_one(oracle: &str, data: &[u8]) {
    let (o, s) = fuzz_init(oracle);
    let p = o.program(data, s.relax());
    let r = suts::check(o, &p, s, suts::fuzz_bounds());
    if r.verdict == race_oracles::theorems::Verdict::Fail {
        // The artifact libFuzzer keeps is raw bytes that reproduce only under the same
        // mutant; the finding file records oracle and mutant, so `racefuzz shrink FILE`
        // needs no flags.
        let saved = campaign::finding_text(o, s, "cargo-fuzz", &p)
            .ok()
            .and_then(|(text, ..)| campaign::write_finding(std::path::Path::new(campaign::DEFAULT_OUT), o.id, &p, &text).ok())
            .map(|f| format!("written to {}; `racefuzz shrink {}` reduces it\n", f.display(), f.display()))
            .unwrap_or_default();
        let mutant = s.mutant().map(|m| format!(" under RACEFUZZ_MUTANT={m} (shrink the artifact with --mutant {m})")).unwrap_or_default();
        eprintln!("{oracle} fails{mutant} on:\n{}\n{}{saved}", race_oracles::lang::print(&p), render::result_brief(&r));
        std::process::abort();
    }
}

/// The oracle and subject of a fuzz target, built once: the target's `init` calls it, before
/// libFuzzer runs any input, so that a misconfiguration exits (status 2, with a message)
/// outside any input, where libFuzzer would record the exit as a crash artifact.
pub fn fuzz_init(oracle: &str) -> &'static (race_oracles::theorems::Oracle, suts::Subject) {
    static SUBJECT: std::sync::OnceLock<(race_oracles::theorems::Oracle, suts::Subject)> = std::sync::OnceLock::new();
    SUBJECT.get_or_init(|| {
        fuzz_subject(oracle, std::env::var("RACEFUZZ_MUTANT").ok().as_deref()).unwrap_or_else(|e| {
            eprintln!("racefuzz fuzz target {oracle}: {e}");
            std::process::exit(2)
        })
    })
}

/// The oracle a fuzz target runs and its subject, with `mutant` (the value of
/// `RACEFUZZ_MUTANT`; empty is none) applied.
///
/// # Errors
/// A message for the person who started the target.
pub fn fuzz_subject(oracle: &str, mutant: Option<&str>) -> Result<(race_oracles::theorems::Oracle, suts::Subject), String> {
    let o = *race_oracles::theorems::Registry::builtin().find(oracle).ok_or_else(|| format!("racefuzz internal bug: no oracle {oracle}"))?;
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    match (var("RACEFUZZ_DETECTOR_CMD"), var("RACEFUZZ_ANALYSIS_CMD")) {
        (Some(_), Some(_)) => return Err("RACEFUZZ_DETECTOR_CMD and RACEFUZZ_ANALYSIS_CMD name two SUTs; set one".into()),
        (Some(cmd), None) => return fuzz_detector(&o, &cmd, mutant).map(|s| (o, s)),
        (None, Some(cmd)) => return fuzz_analysis(&o, &cmd, mutant).map(|s| (o, s)),
        (None, None) => {}
    }
    let s = suts::Subject::for_oracle(&o, mutant.filter(|m| !m.is_empty())).map_err(|e| format!("RACEFUZZ_MUTANT: {e}"))?;
    Ok((o, s))
}

/// A fuzz target's external detector: `RACEFUZZ_DETECTOR_CMD`, persistent if
/// `RACEFUZZ_DETECTOR_PERSISTENT=1`, with `RACEFUZZ_DETECTOR_TIMEOUT` (seconds, default 10),
/// `RACEFUZZ_REPORT_PATTERN` and `RACEFUZZ_CLAIM` (default `locations`), as `--detector-cmd`
/// and its flags.
fn fuzz_detector(o: &race_oracles::theorems::Oracle, cmd: &str, mutant: Option<&str>) -> Result<suts::Subject, String> {
    if mutant.is_some_and(|m| !m.is_empty()) {
        return Err("RACEFUZZ_DETECTOR_CMD is the SUT; unset RACEFUZZ_MUTANT".into());
    }
    let (persistent, timeout) = fuzz_process_vars()?;
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let claim = claim_of(var("RACEFUZZ_CLAIM").as_deref())?;
    let f = external::factory(cmd, persistent, var("RACEFUZZ_REPORT_PATTERN").as_deref(), timeout).map_err(|e| format!("RACEFUZZ_DETECTOR_CMD: {e}"))?.claiming(claim);
    suts::Subject::external(o, f).map_err(|e| format!("RACEFUZZ_DETECTOR_CMD: {e}"))
}

/// A fuzz target's external static analysis: `RACEFUZZ_ANALYSIS_CMD`, persistent if
/// `RACEFUZZ_DETECTOR_PERSISTENT=1`, with `RACEFUZZ_DETECTOR_TIMEOUT`, as `--analysis-cmd`
/// and the flags it shares with `--detector-cmd`.
fn fuzz_analysis(o: &race_oracles::theorems::Oracle, cmd: &str, mutant: Option<&str>) -> Result<suts::Subject, String> {
    if mutant.is_some_and(|m| !m.is_empty()) {
        return Err("RACEFUZZ_ANALYSIS_CMD is the SUT; unset RACEFUZZ_MUTANT".into());
    }
    let (persistent, timeout) = fuzz_process_vars()?;
    let a = external::ExternalAnalysis::new(cmd, persistent, timeout).map_err(|e| format!("RACEFUZZ_ANALYSIS_CMD: {e}"))?;
    suts::Subject::external_analysis(o, a).map_err(|e| format!("RACEFUZZ_ANALYSIS_CMD: {e}"))
}

/// `RACEFUZZ_DETECTOR_PERSISTENT` and `RACEFUZZ_DETECTOR_TIMEOUT` (seconds, default 10).
fn fuzz_process_vars() -> Result<(bool, std::time::Duration), String> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let persistent = var("RACEFUZZ_DETECTOR_PERSISTENT").is_some_and(|v| v == "1");
    let secs: Option<u64> = var("RACEFUZZ_DETECTOR_TIMEOUT").map(|t| t.parse().map_err(|_| format!("RACEFUZZ_DETECTOR_TIMEOUT: `{t}` is not a number of seconds"))).transpose()?;
    Ok((persistent, secs.map_or(external::DEFAULT_TIMEOUT, std::time::Duration::from_secs)))
}

/// The claim `RACEFUZZ_CLAIM` names (`None`: the default).
fn claim_of(name: Option<&str>) -> Result<race_oracles::theorems::Claim, String> {
    use race_oracles::theorems::Claim;
    let Some(c) = name else { return Ok(Claim::default()) };
    Claim::parse(c).ok_or_else(|| format!("RACEFUZZ_CLAIM: `{c}` is not a claim (one of {})", Claim::ALL.map(Claim::name).join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fuzz_target_reads_the_claim_by_its_flag_name() {
        use race_oracles::theorems::Claim;
        assert_eq!(claim_of(None), Ok(Claim::Locations));
        assert_eq!(claim_of(Some("first-race")), Ok(Claim::FirstRace));
        assert_eq!(claim_of(Some("all")).err().as_deref(), Some("RACEFUZZ_CLAIM: `all` is not a claim (one of locations, events, first-race, no-false-alarm, no-missed-race)"));
    }

    #[test]
    fn a_fuzz_target_takes_an_external_detector_only_where_it_can_judge_one() {
        let reg = race_oracles::theorems::Registry::builtin();
        let (ft, tp) = (*reg.find("fasttrack-precise").unwrap(), *reg.find("racerdx-tp").unwrap());
        assert_eq!(fuzz_detector(&ft, "hb {}", None).map(|s| s.external_cmd().map(str::to_string)), Ok(Some("hb {}".into())));
        assert_eq!(fuzz_detector(&ft, "hb {}", Some("ft-no-join-edge")).err(), Some("RACEFUZZ_DETECTOR_CMD is the SUT; unset RACEFUZZ_MUTANT".into()));
        assert!(fuzz_detector(&ft, "hb", None).err().is_some_and(|e| e.contains("has no `{}`")));
        assert!(fuzz_detector(&tp, "hb {}", None).err().is_some_and(|e| e.contains("applies to fasttrack-precise")));
    }

    #[test]
    fn a_fuzz_target_takes_an_external_analysis_only_where_it_can_judge_one() {
        let reg = race_oracles::theorems::Registry::builtin();
        let (ft, tp, complete) = (*reg.find("fasttrack-precise").unwrap(), *reg.find("racerdx-tp").unwrap(), *reg.find("racerdx-complete").unwrap());
        assert_eq!(fuzz_analysis(&tp, "naive {}", None).map(|s| s.external_cmd().map(str::to_string)), Ok(Some("naive {}".into())));
        assert_eq!(fuzz_analysis(&tp, "naive {}", Some("no-stability-filter")).err(), Some("RACEFUZZ_ANALYSIS_CMD is the SUT; unset RACEFUZZ_MUTANT".into()));
        assert!(fuzz_analysis(&tp, "naive", None).err().is_some_and(|e| e.contains("has no `{}`")));
        for o in [ft, complete] {
            assert!(fuzz_analysis(&o, "naive {}", None).err().is_some_and(|e| e.contains("--analysis-cmd applies to racerdx-tp, racerdx-reports")), "{}", o.id);
        }
    }
}
