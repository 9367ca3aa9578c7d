//! `lock-elision-race-free`, a NEGATIVE CONTROL (P-E10, false: thesis Fig. 4.1 and spec
//! §5.3): block-level partial lock elision keeps race freedom and SC outcomes. A crash here
//! is the fuzzer rediscovering Fig. 4.1 from scratch, as it should. The body is the
//! registry's: `racefuzz::fuzz_one`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| racefuzz::fuzz_one("lock-elision-race-free", data));
