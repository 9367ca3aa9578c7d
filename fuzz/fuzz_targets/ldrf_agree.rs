//! `ldrf-agree` (spec/ldrf.md §6.3 C1–C4): on a generated race-free `ldrf` program, the
//! thread-local L-DRF semantics agrees with the standard one. The body is the registry's:
//! `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("ldrf-agree", data));
