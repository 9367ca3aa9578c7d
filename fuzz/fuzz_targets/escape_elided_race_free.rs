//! `escape-elided-race-free`, a NEGATIVE CONTROL (P-E9, false: thesis Fig. 4.2): no elided
//! access is part of any race. A crash here is the fuzzer rediscovering Fig. 4.2 from
//! scratch, as it should; a long run without one means the generator misses that shape.
//! The body is the registry's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("escape-elided-race-free", data));
