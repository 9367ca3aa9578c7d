//! `fasttrack-precise` on generated programs: FastTrack reports exactly the racy locations
//! of every trace. `RACEFUZZ_MUTANT=NAME` fuzzes a seeded FastTrack bug.
//! The body is the registry's, like every oracle target's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("fasttrack-precise", data));
