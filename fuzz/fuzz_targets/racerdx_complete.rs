//! `racerdx-complete` on generated racerdx programs: RacerDX summaries equal α of the
//! bounded syntactic traces (Theorem 5.15). `RACEFUZZ_MUTANT=NAME` fuzzes a seeded bug.
#![no_main]

use libfuzzer_sys::fuzz_target;
use race_oracles::gen::{racerdx::build, RacerDxInput, RacerDxKnobs};
use race_oracles::lang::print;
use race_oracles::theorems::{racerdx_complete, Verdict};
use racefuzz::analyses::racerdx::RacerDx;

fuzz_target!(|input: RacerDxInput| {
    let mutant = std::env::var("RACEFUZZ_MUTANT").ok();
    let (opts, relax) = racefuzz::mutants::racerdx(mutant.as_deref()).expect("RACEFUZZ_MUTANT names no mutant");
    let program = if relax.balanced_locking { build(&input.bytes, RacerDxKnobs { unmatched_unlock: true, ..RacerDxKnobs::default() }) } else { input.program };
    let c = racerdx_complete::check(&program, &RacerDx::new(opts), 1, relax);
    assert_ne!(c.verdict, Verdict::Fail, "racerdx-complete fails on:\n{}\n{:#?}", print(&program), c.methods);
});
