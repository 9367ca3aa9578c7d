//! `bigfoot-precise` on generated programs: the placed checks are precise and their
//! detector reports exactly the racy locations of every trace. `RACEFUZZ_MUTANT=NAME`
//! fuzzes a seeded placer bug. The body is the registry's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("bigfoot-precise", data));
