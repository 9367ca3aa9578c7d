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
//! - [`sut_spec`]: one description of the SUT an oracle judges (a catalogued
//!   `NAME[@VERSION]` with mutants, an external detector or analysis), read from flags, a
//!   fuzz target's environment and a finding's header, and written back into headers.
//! - [`suts`]: the SUT catalogue, [`suts::Subject::new`] (the one place a spec becomes a SUT)
//!   and [`suts::check`], the one place an oracle (`race_oracles::theorems::Registry`) meets
//!   a SUT.
//! - [`finding_header`]: the header of a finding or regression file, parsed and printed.
//! - [`regression`]: regression tests made of shrunk findings (`shrink --into-test`).
//! - [`campaign`]: fuzz campaigns; findings go outside the source tree, a few per
//!   [`signature`] of failure.
//! - [`summary`]: a campaign's summary as data (`fuzz --json`, the file `merge` reads, a
//!   merge's own), which the campaign's page draws; the dialect features it counts.
//! - [`merge`]: many campaigns' summaries and findings as one (shards, hosts, cargo-fuzz).
//! - [`signature`]: a failure's signature, alike for failures that are likely one bug.
//! - [`std_trace`]: traces in STD, the text format of race-prediction tools (`thread|op(decor)|loc`):
//!   a writer with stable names, a strict reader, the ground truth's races on a trace.
//! - [`render`]: every text and JSON a person or a machine reads.
//! - [`rule_coverage`]: which cases of a SUT's spec rules its oracle's generator reaches.
//! - [`corpus`]: `.race` header conventions and the curated corpus folders.
//! - [`external`]: running a race detector or a static race analysis that lives in another
//!   process (per trace, per program on a folder of traces, or persistent over JSON
//!   Lines), with timeouts; its failures are values.
//! - [`replay`]: a trace as a C or Go program that replays it, compiled once per program and run
//!   under a real detector per trace; the reports read back as events.
//! - [`tsan`], [`valgrind`]: ThreadSanitizer, Helgrind and DRD over the C replay; [`go_race`]:
//!   Go's race detector over the Go replay.
//! - [`real`]: the real detectors by name and version, whether each is installed here, and
//!   the command that installs it (`racefuzz detectors`).
//! - [`loom`]: the loom model checker, at any version, as a whole-program race detector (a
//!   driver crate built once per version in racefuzz's cache).
//! - [`picture`]: pictures of a witness (HTML, DOT, ShiViz, SARIF) and a campaign's page.
//! - [`score`]: a detector's scorecard (precision, recall, F1 per program, location, event).
//! - [`duration`]: durations as written on the command line.
//! - [`scratch`]: scratch folders under the system's temporary directory, removed when
//!   dropped or, on a signal, by the command line's handler.
//! - [`cli`]: the command line: the clap tree, a module per subcommand, and what they share.
//!
//! The modules form layers (`tests/layers.rs`): formats and values at the bottom, then
//! processes outside, SUT names and finding headers, the SUTs and their catalogue, what runs
//! and draws them, and the command line on top.
//!
//! ## Exit codes (every subcommand; [`cli::shared::Exit`])
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
pub mod duration;
pub mod external;
pub mod finding_header;
pub mod go_race;
pub mod loom;
pub mod merge;
pub mod miri;
pub mod mutants;
pub mod picture;
pub mod real;
pub mod regression;
pub mod render;
pub mod replay;
pub mod rule_coverage;
pub mod score;
pub mod scratch;
pub mod seeded;
pub mod signature;
pub mod std_trace;
pub mod summary;
pub mod sut_spec;
pub mod suts;
pub mod tsan;
pub mod valgrind;

/// The body of an oracle's cargo-fuzz target: `data` through the oracle's generator, then
/// the oracle against the SUT its environment names ([`fuzz_subject`]) under [`suts::fuzz_bounds`], a budget of counts (never wall
/// time), so that a slow input is `inconclusive` the same way on every machine. Fails only
/// on the oracle's `fail`, printing the program and the explanation, and then aborting:
/// libFuzzer records the abort as a crash. Not a panic: under `RUST_BACKTRACE=1` the panic
/// hook symbolizes a backtrace, which took more than libFuzzer's `-timeout` on a loaded
/// machine, and libFuzzer's timeout handler then deadlocked in `malloc` (it is not
/// async-signal-safe), leaving a `-fork` child hung for an hour.
///
/// A misconfigured target (an unknown oracle, or a SUT or `RACEFUZZ_MUTANT` the oracle does
/// not judge) says so on stderr and exits with status 2 in [`fuzz_init`], before any input: a
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
        // A finding that cannot be written is said, never dropped: the artifact remains.
        let saved = match campaign::finding_text(o, s, "cargo-fuzz", &p) {
            Ok((text, ..)) => match campaign::write_finding(std::path::Path::new(campaign::DEFAULT_OUT), o.id, &p, &text) {
                Ok(f) => format!("written to {}; `racefuzz shrink {}` reduces it\n", f.display(), f.display()),
                Err(e) => format!("the finding could not be written under {}: {e}\n", campaign::DEFAULT_OUT),
            },
            Err(e) => format!("the finding could not be written: {e}\n"),
        };
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
        fuzz_subject(oracle, &|k| std::env::var(k).ok()).unwrap_or_else(|e| {
            eprintln!("racefuzz fuzz target {oracle}: {e}");
            std::process::exit(2)
        })
    })
}

/// The oracle a fuzz target runs and its subject: the SUT its environment names
/// ([`sut_spec::SutSpec::from_env`]: `RACEFUZZ_SUT`, `RACEFUZZ_MUTANT`, or an external
/// detector or analysis with `RACEFUZZ_DETECTOR_CMD` or `RACEFUZZ_ANALYSIS_CMD`), the
/// oracle's own by default.
///
/// # Errors
/// [`FuzzTargetError`], naming the variable at fault, for the person who started the target.
pub fn fuzz_subject(oracle: &str, var: &dyn Fn(&str) -> Option<String>) -> Result<(race_oracles::theorems::Oracle, suts::Subject), FuzzTargetError> {
    let o = *race_oracles::theorems::Registry::builtin().find(oracle).ok_or_else(|| FuzzTargetError::NoOracle(oracle.to_string()))?;
    let spec = sut_spec::SutSpec::from_env(var)?;
    let at = match &spec {
        sut_spec::SutSpec::Detector(_) => "RACEFUZZ_DETECTOR_CMD",
        sut_spec::SutSpec::Analysis(_) => "RACEFUZZ_ANALYSIS_CMD",
        sut_spec::SutSpec::Catalogued { sut: Some(_), .. } => "RACEFUZZ_SUT",
        sut_spec::SutSpec::Catalogued { sut: None, .. } => "RACEFUZZ_MUTANT",
    };
    let s = suts::Subject::new(&o, &spec).map_err(|e| FuzzTargetError::Subject { at, source: e })?;
    Ok((o, s))
}

/// Why a fuzz target cannot start.
#[derive(Debug, thiserror::Error)]
pub enum FuzzTargetError {
    /// A target named after no oracle (a bug of the target's file).
    #[error("racefuzz internal bug: no oracle {0}")]
    NoOracle(String),
    /// The environment does not name a SUT.
    #[error(transparent)]
    Spec(#[from] sut_spec::SpecError),
    /// The SUT named cannot be judged by the target's oracle.
    #[error("{at}: {source}")]
    Subject {
        /// The variable that named it.
        at: &'static str,
        /// Why.
        source: suts::SubjectError,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(oracle: &str, vars: &[(&str, &str)]) -> Result<Option<String>, String> {
        let var = |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string());
        fuzz_subject(oracle, &var).map(|(_, s)| s.chosen()).map_err(|e| e.to_string())
    }

    #[test]
    fn a_fuzz_target_takes_an_external_detector_only_where_it_can_judge_one() {
        assert_eq!(target("fasttrack-precise", &[("RACEFUZZ_DETECTOR_CMD", "hb {}")]), Ok(Some("external".into())));
        assert_eq!(
            target("fasttrack-precise", &[("RACEFUZZ_DETECTOR_CMD", "hb {}"), ("RACEFUZZ_MUTANT", "ft-no-join-edge")]),
            Err("RACEFUZZ_DETECTOR_CMD is the SUT; unset RACEFUZZ_MUTANT and RACEFUZZ_SUT".into())
        );
        assert!(target("fasttrack-precise", &[("RACEFUZZ_DETECTOR_CMD", "hb")]).is_err_and(|e| e.contains("has no `{}`")));
        assert!(target("racerdx-tp", &[("RACEFUZZ_DETECTOR_CMD", "hb {}")]).is_err_and(|e| e.starts_with("RACEFUZZ_DETECTOR_CMD: ") && e.contains("applies to fasttrack-precise")));
    }

    #[test]
    fn a_fuzz_target_takes_an_external_analysis_only_where_it_can_judge_one() {
        assert_eq!(target("racerdx-tp", &[("RACEFUZZ_ANALYSIS_CMD", "naive {}")]), Ok(Some("external-analysis".into())));
        assert_eq!(
            target("racerdx-tp", &[("RACEFUZZ_ANALYSIS_CMD", "naive {}"), ("RACEFUZZ_MUTANT", "no-stability-filter")]),
            Err("RACEFUZZ_ANALYSIS_CMD is the SUT; unset RACEFUZZ_MUTANT and RACEFUZZ_SUT".into())
        );
        assert!(target("racerdx-tp", &[("RACEFUZZ_ANALYSIS_CMD", "naive")]).is_err_and(|e| e.contains("has no `{}`")));
        for o in ["fasttrack-precise", "racerdx-complete"] {
            assert!(target(o, &[("RACEFUZZ_ANALYSIS_CMD", "naive {}")]).is_err_and(|e| e.contains("--analysis-cmd applies to racerdx-tp, racerdx-reports")), "{o}");
        }
    }

    #[test]
    fn a_fuzz_target_judges_the_sut_and_mutant_its_environment_names() {
        assert_eq!(target("bigfoot-precise", &[]), Ok(None));
        assert_eq!(target("bigfoot-precise", &[("RACEFUZZ_SUT", "per-access")]), Ok(Some("per-access".into())));
        assert!(target("bigfoot-precise", &[("RACEFUZZ_MUTANT", "nope")]).is_err_and(|e| e.starts_with("RACEFUZZ_MUTANT: no mutant `nope`")));
        assert!(target("bigfoot-precise", &[("RACEFUZZ_SUT", "fasttrack")]).is_err_and(|e| e.starts_with("RACEFUZZ_SUT: no SUT `fasttrack`")));
    }
}
