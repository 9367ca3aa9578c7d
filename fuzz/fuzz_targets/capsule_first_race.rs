//! `capsule-first-race` on generated CapJava programs: the capsule filter loses no first
//! race on formal traces (Theorem 5.4.3). `RACEFUZZ_MUTANT=NAME` fuzzes a seeded
//! capsule-filter bug. The body is the registry's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("capsule-first-race", data));
