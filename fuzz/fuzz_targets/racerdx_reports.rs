//! `racerdx-reports` on generated racerdx programs: RacerDX reports exactly the §3.4 pairs
//! of α (Theorem 5.15 with the reporting rule). `RACEFUZZ_MUTANT=NAME` fuzzes a seeded bug.
//! The body is the registry's, like every oracle target's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("racerdx-reports", data));
