//! `ldrf-sound` (spec/ldrf.md §6.3 C8): on a generated race-free `ldrf` program, the sync-CFG
//! analyses over-approximate the standard semantics at relevant points and prove no failing
//! assert. The body is the registry's:
//! `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("ldrf-sound", data));
