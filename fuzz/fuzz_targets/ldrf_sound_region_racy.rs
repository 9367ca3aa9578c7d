//! `ldrf-sound-region-racy`, a negative control (spec/ldrf.md §6.3 C9, §8 R5 with regions):
//! the region mix judged on region-racy partitions too; expected to fail. The body is the registry's:
//! `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("ldrf-sound-region-racy", data));
