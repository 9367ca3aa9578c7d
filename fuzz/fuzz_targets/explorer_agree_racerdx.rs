//! `explorer-agree-racerdx` on generated programs: the fast explorers (stateful search, optimal DPOR) agree
//! with the naive enumeration. `RACEFUZZ_MUTANT=NAME` fuzzes a seeded explorer bug.
//! The body is the registry's, like every oracle target's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("explorer-agree-racerdx", data));
