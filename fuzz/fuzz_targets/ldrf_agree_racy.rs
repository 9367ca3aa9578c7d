//! `ldrf-agree-racy`, a NEGATIVE CONTROL (C9, false: spec/ldrf.md §8 R6): the L-DRF
//! semantics agrees with the standard one on racy programs too. A crash here is the fuzzer
//! rediscovering R6 from scratch, as it should. The body is the registry's:
//! `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("ldrf-agree-racy", data));
