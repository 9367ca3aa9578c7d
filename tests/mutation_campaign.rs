//! The test cargo-mutants runs on each mutant of `src/analyses/**`: the campaigns of the SUT
//! families that run the mutated file (`scripts/mutation`, the book's "Mutation testing").
//!
//! Not a test of the suite: `test = false` in Cargo.toml keeps it out of `cargo test`, and
//! without its campaigns in the environment it is bad usage (exit 2), so that a mutation run
//! that lost its configuration cannot count every mutant as missed.
//!
//! `RACEFUZZ_MUTATION_CAMPAIGNS` holds a JSON array of campaigns, each an array of
//! `racefuzz fuzz` arguments (oracles, `--sut`, budget, seed); the campaigns run one after
//! the other, each with `--stop-after 1` (a mutant is caught at its first failure) and its
//! findings in a temporary folder of the build directory, never in the source tree. Exit 0:
//! every campaign passed (the mutant is missed); 1: a campaign failed or crashed (caught).

use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let Ok(spec) = std::env::var("RACEFUZZ_MUTATION_CAMPAIGNS") else {
        eprintln!("mutation_campaign: RACEFUZZ_MUTATION_CAMPAIGNS is not set (run scripts/mutation, not this test)");
        return ExitCode::from(2);
    };
    let campaigns: Vec<Vec<String>> = match serde_json::from_str(&spec) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mutation_campaign: RACEFUZZ_MUTATION_CAMPAIGNS is not a JSON array of argument arrays: {e}");
            return ExitCode::from(2);
        }
    };
    if campaigns.is_empty() {
        eprintln!("mutation_campaign: RACEFUZZ_MUTATION_CAMPAIGNS names no campaign");
        return ExitCode::from(2);
    }
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mutation-findings");
    for args in campaigns {
        // A previous mutant's findings would be counted again by nothing, but they would fill
        // the disk over a thousand mutants.
        let _ = std::fs::remove_dir_all(&out);
        eprintln!("mutation_campaign: racefuzz fuzz {}", args.join(" "));
        let status = Command::new(env!("CARGO_BIN_EXE_racefuzz")).arg("fuzz").args(&args).args(["--stop-after", "1", "--jobs", "1", "--out"]).arg(&out).status();
        match status {
            Ok(s) if s.success() => {}
            Ok(s) => {
                eprintln!("mutation_campaign: caught ({s})");
                return ExitCode::FAILURE;
            }
            Err(e) => {
                eprintln!("mutation_campaign: cannot run racefuzz: {e}");
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::SUCCESS
}
