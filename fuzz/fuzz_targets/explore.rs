//! Every program that passes its dialect's validator is explored to a result (with small
//! budgets) without panicking: the machine's internal invariants hold on any valid input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use race_oracles::explore::Config;
use race_oracles::truth::ground_truth;
use race_oracles::lang::{parse, validate};

fuzz_target!(|data: &[u8]| {
    let Ok(src) = std::str::from_utf8(data) else { return };
    let Ok(p) = parse(src) else { return };
    if validate(&p).is_err() {
        return;
    }
    let cfg = Config { max_executions: 500, max_steps: 300, heap_bound: 2, ..Config::default() };
    let _ = ground_truth(&p, &cfg, None);
});
