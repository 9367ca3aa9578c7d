//! `capsule-first-race-operational` on generated CapJava programs: with capsule violations
//! taken and marked, the filter reports the first one where the semantics does and keeps
//! the first race before it (P-C9, P-C10). `RACEFUZZ_MUTANT=NAME` fuzzes a seeded
//! capsule-filter bug. The body is the registry's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("capsule-first-race-operational", data));
