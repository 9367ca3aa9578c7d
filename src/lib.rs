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
//! - [`mutants`]: the seeded-bug catalogue, with the spec's prediction per oracle id.
//! - [`suts`]: the SUT catalogue and [`suts::check`], the one place an oracle
//!   (`race_oracles::theorems::Registry`) meets a SUT.
//! - [`campaign`]: fuzz campaigns; findings go outside the source tree, a few per
//!   [`signature`] of failure.
//! - [`signature`]: a failure's signature, alike for failures that are likely one bug.
//! - [`render`]: every text and JSON a person or a machine reads.
//! - [`rule_coverage`]: which cases of a SUT's spec rules its oracle's generator reaches.
//! - [`corpus`]: `.race` header conventions and the curated corpus folders.
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
pub mod mutants;
pub mod render;
pub mod rule_coverage;
pub mod signature;
pub mod suts;

/// The body of an oracle's cargo-fuzz target: `data` through the oracle's generator, then
/// the oracle against its SUT (with the mutant named by the environment variable
/// `RACEFUZZ_MUTANT`, if set). Fails (panics, as libFuzzer needs) only on the oracle's
/// `fail`, printing the program and the explanation.
///
/// # Panics
/// On `fail`; on an unknown oracle or mutant (a misconfigured target, before any input).
pub fn fuzz_one(oracle: &str, data: &[u8]) {
    let reg = race_oracles::theorems::Registry::builtin();
    let o = reg.find(oracle).unwrap_or_else(|| panic!("no oracle {oracle}"));
    let mutant = std::env::var("RACEFUZZ_MUTANT").ok();
    let s = suts::Subject::for_oracle(o, mutant.as_deref()).unwrap_or_else(|e| panic!("RACEFUZZ_MUTANT: {e}"));
    let p = (o.generate)(data, s.relax());
    let r = suts::check(o, &p, &s, suts::campaign_bounds());
    assert_ne!(
        r.verdict,
        race_oracles::theorems::Verdict::Fail,
        "{oracle} fails on:
{}
{}",
        race_oracles::lang::print(&p),
        render::result_brief(&r)
    );
}
