//! racefuzz's integration tests, one binary (as regex does): the language, the corpus of
//! paper programs, the explorer's golden counts and cross-checks, STD traces, and the
//! command line.
//!
//! Property tests run with a fixed seed and case budget (`proptest_config`); raise the
//! budget locally with `PROPTEST_CASES=N`.
//!
//! A test that runs a tool beyond Rust and a C compiler (Chromium, Graphviz, Node, Python,
//! or the compiler's ThreadSanitizer) declares it on its first line, `needs!(Dot);`
//! (`needs.rs`): without the tool it is skipped, and listed at the end of the run;
//! `RACEFUZZ_REQUIRE_TOOLS=1` makes it fail instead, as CI does.

// First: its `needs!` is used by the modules below.
#[macro_use]
mod needs;

mod architecture;
mod cli;
mod corpus;
mod docs;
mod explore;
mod extending;
mod gen;
mod json;
mod lang;
mod layers;
mod litmus;
mod litmus_real;
mod loom;
mod mutation;
mod oracles;
mod picture;
mod readme;
mod real;
mod regress;
mod rules;
mod score;
mod shard;
mod trace;
mod tsan;

use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// A deterministic proptest runner: fixed seed, `default_cases` unless `PROPTEST_CASES` is set.
pub fn runner(default_cases: u32) -> TestRunner {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default_cases);
    let config = Config { cases, failure_persistence: None, ..Config::default() };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[7; 32]))
}
