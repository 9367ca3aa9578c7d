//! The test cargo-mutants runs on each mutant of `src/analyses/**`: the campaigns of the SUT
//! families that run the mutated file (`scripts/mutation`, the book's "Mutation testing").
//!
//! Not a test of the suite: `test = false` in Cargo.toml keeps it out of `cargo test`, and
//! without its campaigns in the environment it is bad usage (exit 2), so that a mutation run
//! that lost its configuration cannot count every mutant as missed.
//!
//! `RACEFUZZ_MUTATION_CAMPAIGNS` holds a JSON array of campaigns, each `{"args": [...],
//! "inconclusive": {"ORACLE": N, ...}}`: the `racefuzz fuzz` arguments (oracles, `--sut`,
//! budget, seed) and each oracle's count of inconclusive verdicts on the unmutated SUT. The
//! campaigns run one after the other, each with `--stop-after 1` and its findings in a
//! temporary folder of the build directory, never in the source tree. The mutant is caught
//! (exit 1) when a campaign fails, or when it passes with another count of inconclusive
//! verdicts than the unmutated SUT's: same seed, same programs, so a different count means
//! the mutant changed a verdict (a placer that declines programs it placed checks in, an
//! analysis that gives up), which the campaign shows although no oracle fails. Exit 0:
//! every campaign passed as the unmutated SUT's did (the mutant is missed).

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

#[derive(serde::Deserialize)]
struct Campaign {
    args: Vec<String>,
    inconclusive: BTreeMap<String, u64>,
}

#[derive(serde::Deserialize)]
struct Summary {
    programs: u64,
    per_oracle: Vec<OracleRow>,
}

#[derive(serde::Deserialize)]
struct OracleRow {
    oracle: String,
    inconclusive: u64,
}

fn main() -> ExitCode {
    let Ok(spec) = std::env::var("RACEFUZZ_MUTATION_CAMPAIGNS") else {
        eprintln!("mutation_campaign: RACEFUZZ_MUTATION_CAMPAIGNS is not set (run scripts/mutation, not this test)");
        return ExitCode::from(2);
    };
    let campaigns: Vec<Campaign> = match serde_json::from_str(&spec) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mutation_campaign: RACEFUZZ_MUTATION_CAMPAIGNS is not a JSON array of campaigns: {e}");
            return ExitCode::from(2);
        }
    };
    if campaigns.is_empty() {
        eprintln!("mutation_campaign: RACEFUZZ_MUTATION_CAMPAIGNS names no campaign");
        return ExitCode::from(2);
    }
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("mutation-findings");
    for c in campaigns {
        // A previous mutant's findings: nothing reads them, and over a thousand mutants they
        // would fill the disk.
        if out.exists() {
            if let Err(e) = std::fs::remove_dir_all(&out) {
                eprintln!("mutation_campaign: cannot clear {}: {e}", out.display());
                return ExitCode::from(2);
            }
        }
        eprintln!("mutation_campaign: racefuzz fuzz {}", c.args.join(" "));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_racefuzz"));
        cmd.arg("fuzz").args(&c.args).args(["--stop-after", "1", "--jobs", "1", "--json", "--out"]).arg(&out);
        // cargo-mutants ends a mutant that outruns its timeout by killing this test, not the
        // campaign it runs: a hung campaign would go on as an orphan and take a core from
        // every mutant after it (measured: three, one for 36 minutes). The kernel kills it
        // when this process dies.
        // SAFETY: prctl(2) is async-signal-safe and touches only the child about to exec.
        unsafe {
            cmd.pre_exec(|| if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) });
        }
        let run = cmd.output();
        let run = match run {
            Ok(r) => r,
            Err(e) => {
                eprintln!("mutation_campaign: cannot run racefuzz: {e}");
                return ExitCode::from(2);
            }
        };
        eprint!("{}", String::from_utf8_lossy(&run.stderr));
        let summary: Option<Summary> = serde_json::from_slice(&run.stdout).ok();
        if let Some(s) = &summary {
            // scripts/mutation reads this line: the programs up to the first failure.
            eprintln!("mutation_campaign: {} programs checked", s.programs);
        }
        if !run.status.success() {
            eprintln!("mutation_campaign: caught: the campaign failed ({})", run.status);
            return ExitCode::FAILURE;
        }
        let Some(s) = summary else {
            eprintln!("mutation_campaign: the campaign passed but printed no summary:\n{}", String::from_utf8_lossy(&run.stdout));
            return ExitCode::from(2);
        };
        for row in &s.per_oracle {
            let before = c.inconclusive.get(&row.oracle).copied();
            if before.is_some_and(|b| b != row.inconclusive) {
                eprintln!("mutation_campaign: caught by inconclusive verdicts: {} has {}, the unmutated SUT {}", row.oracle, row.inconclusive, before.unwrap_or_default());
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
