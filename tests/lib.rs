//! racefuzz's integration tests, one binary (as regex does): the language, the corpus of
//! paper programs, the explorer's golden counts and cross-checks, STD traces, and the
//! command line.
//!
//! Property tests run with a fixed seed and case budget (`proptest_config`); raise the
//! budget locally with `PROPTEST_CASES=N`.

mod architecture;
mod cli;
mod corpus;
mod docs;
mod explore;
mod extending;
mod gen;
mod json;
mod lang;
mod oracles;
mod picture;
mod readme;
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
