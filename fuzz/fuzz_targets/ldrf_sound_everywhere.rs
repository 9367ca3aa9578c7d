//! `ldrf-sound-everywhere`, a negative control (spec/ldrf.md §6.3 C9, §8 R1 line 9): facts
//! judged at irrelevant points too; expected to fail. The body is the registry's:
//! `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("ldrf-sound-everywhere", data));
