//! `escape-trace-precise` on generated SimpleJava programs: with the checks of
//! not-yet-escaped objects elided, FastTrack on β keeps the first race of every trace
//! (Theorem 4.5.3). `RACEFUZZ_MUTANT=NAME` fuzzes a seeded escape-filter bug. The body is
//! the registry's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("escape-trace-precise", data));
