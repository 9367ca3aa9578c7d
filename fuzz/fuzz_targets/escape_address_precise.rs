//! `escape-address-precise`, a NEGATIVE CONTROL (P-E8, false: thesis Fig. 4.2): the racy
//! locations of β are those of α. A crash here is the fuzzer rediscovering Fig. 4.2 from
//! scratch, as it should; a long run without one means the generator misses that shape.
//! The body is the registry's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("escape-address-precise", data));
