//! `whole-program-exact-atomics` on programs from its registry generator: a crash is the oracle failing (for a
//! negative control, the expected rediscovery; `racefuzz mutants` states the claim).
//! `RACEFUZZ_MUTANT=NAME` hunts a seeded bug instead (`racefuzz mutants`).
//! Generated from the registry by `tests/extending.rs`.
#![no_main]

libfuzzer_sys::fuzz_target!(init: racefuzz::fuzz_init("whole-program-exact-atomics"), |data: &[u8]| racefuzz::fuzz_one("whole-program-exact-atomics", data));
