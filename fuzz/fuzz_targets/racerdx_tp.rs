//! `racerdx-tp` on generated racerdx programs: every RacerDX report must be a true race
//! (Theorem 6.10). Set the environment variable `RACEFUZZ_MUTANT` to fuzz a seeded bug
//! instead (`racefuzz mutants` lists them). The body is the registry's, like every oracle
//! target's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("racerdx-tp", data));
