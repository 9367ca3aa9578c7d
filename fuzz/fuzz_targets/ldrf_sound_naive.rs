//! `ldrf-sound-naive`, a negative control (spec/ldrf.md §6.3 C9, §8 R5): the naive union at
//! acquires judged like a sound mix; expected to fail. The body is the registry's:
//! `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("ldrf-sound-naive", data));
