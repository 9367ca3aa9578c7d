//! `naik-aiken-unlikely`, a NEGATIVE CONTROL (T9, false: spec/naik_aiken.md §6 R9): no pair
//! PLDI'06 marks "unlikely" races. A crash here is the fuzzer rediscovering R9 from scratch,
//! as it should. The body is the registry's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("naik-aiken-unlikely", data));
