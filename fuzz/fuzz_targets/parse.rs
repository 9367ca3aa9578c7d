//! Arbitrary text never makes the parser or the validators panic, and whatever parses
//! round-trips through the canonical printer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use race_oracles::lang::{parse, print, validate};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let Ok(p) = parse(src) else { return };
    let _ = validate(&p);
    let printed = print(&p);
    let q = parse(&printed).unwrap_or_else(|e| panic!("printed program does not parse: {e}\n{printed}"));
    assert_eq!(p.without_lines(), q.without_lines(), "round trip changed the program:\n{printed}");
});
