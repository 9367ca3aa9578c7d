//! `racerdx-complete` on generated racerdx programs: RacerDX summaries equal α of the
//! bounded syntactic traces (Theorem 5.15). `RACEFUZZ_MUTANT=NAME` fuzzes a seeded bug.
//! The body is the registry's, like every oracle target's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("racerdx-complete", data));
