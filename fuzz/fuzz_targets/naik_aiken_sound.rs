//! `naik-aiken-sound` (spec/naik_aiken.md §4.3 T1–T7): Naik-Aiken's effect typing
//! abstracts every reachable state of a generated `naikaiken` program, and no pair its
//! local-lock, global-lock or local-thread stage prunes has a concrete race. The body is
//! the registry's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("naik-aiken-sound", data));
