//! # racefuzz
//!
//! A mechanized-semantics test oracle and differential fuzzer for data-race analyses. The
//! ground truth (the `.race` language, its semantics, the exhaustive explorer and the race
//! definitions) lives in the `race-oracles` crate, which never depends on this one; this
//! crate holds the systems under test (later issues), the corpus conventions and the
//! command line.
//!
//! ## Exit codes (every subcommand)
//! | code | meaning |
//! |---|---|
//! | 0 | success; the exploration covered everything within the printed bounds |
//! | 1 | a property failed (oracle `fail`) |
//! | 2 | bad input: unreadable file, syntax error (line:col), dialect violation, bad flag |
//! | 3 | inconclusive: a budget was exhausted, so the result is not a full answer |

pub mod analyses;
pub mod campaign;
pub mod cli;
pub mod corpus;
pub mod mutants;
pub mod render;
