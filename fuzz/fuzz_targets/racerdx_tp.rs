//! `racerdx-tp` on generated racerdx programs: every RacerDX report must be a true race
//! (Theorem 6.10). Set the environment variable `RACEFUZZ_MUTANT` to fuzz a seeded bug
//! instead (`racefuzz mutants` lists them).
#![no_main]

use libfuzzer_sys::fuzz_target;
use race_oracles::gen::{racerdx::build, RacerDxInput, RacerDxKnobs};
use race_oracles::lang::print;
use race_oracles::theorems::racerdx_tp::{check, TpConfig};
use race_oracles::theorems::Verdict;
use racefuzz::analyses::racerdx::RacerDx;

fuzz_target!(|input: RacerDxInput| {
    let mutant = std::env::var("RACEFUZZ_MUTANT").ok();
    let (opts, relax) = racefuzz::mutants::racerdx(mutant.as_deref()).expect("RACEFUZZ_MUTANT names no mutant");
    let program = if relax.balanced_locking {
        build(&input.bytes, RacerDxKnobs { unmatched_unlock: true, ..RacerDxKnobs::default() })
    } else {
        input.program
    };
    let a = RacerDx::new(opts);
    let cfg = TpConfig { relax, ..TpConfig::default() };
    let r = check(&program, &a, &cfg);
    assert_ne!(r.verdict, Verdict::Fail, "racerdx-tp fails on:\n{}\n{:#?}", print(&program), r.reports);
});
