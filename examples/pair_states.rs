//! How far the stateful search gets on RacerDX method pairs at the generator's largest
//! settings (3 methods × 8 statements, paths of 3 fields, 3 formals, 3 locals, nested locks
//! and control): the distribution of states per pair and the slowest pair.
//!
//! This is a measurement, not a test. The open-world semantics of docs/spec/racerdx.md Def. 3.6
//! (every aliasing of the formals and of the fields reached) makes explicit-state search of
//! such pairs exceed the default 2,000,000 states for about a third of them, and a symbolic
//! initial heap is out of scope. So `racerdx-tp` and `racerdx-complete` are complete at the
//! settings their generators use (where every pair completes; an incomplete search is
//! `inconclusive`, never `pass`), and this example reports how the largest settings fare.
//!
//! ```sh
//! cargo run --release --example pair_states            # 10 programs, default bounds
//! RACEFUZZ_PAIR_PROGRAMS=50 RACEFUZZ_PAIR_STATES=5000000 cargo run --release --example pair_states
//! ```
//! `RACEFUZZ_PAIR_BUDGET` sets the unmerged executions (the default bound by default).

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use race_oracles::explore::{Config, ExplorerKind};
use race_oracles::gen::RacerDxKnobs;
use race_oracles::lang::print;
use race_oracles::machine::Machine;
use race_oracles::race::def36;

fn env(k: &str, d: u64) -> u64 {
    std::env::var(k).ok().and_then(|v| v.parse().ok()).unwrap_or(d)
}

/// A deterministic byte stream (xorshift), so a run is reproducible.
fn bytes(seed: &mut u64, n: usize) -> Vec<u8> {
    (0..n)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            (*seed >> 24) as u8
        })
        .collect()
}

fn main() {
    let n = env("RACEFUZZ_PAIR_PROGRAMS", 10) as usize;
    let knobs = RacerDxKnobs { max_methods: 3, max_stmts: 8, max_path: 3, fields: 3, max_formals: 3, locals: 3, ..RacerDxKnobs::default() };
    let cfg = Config {
        explorer: ExplorerKind::Stateful,
        state_predicate: Some(def36::enabled_pairs),
        max_executions: env("RACEFUZZ_PAIR_BUDGET", Config::default().max_executions),
        max_states: env("RACEFUZZ_PAIR_STATES", Config::default().max_states),
        ..Config::default()
    };
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut states = vec![];
    let mut slowest = (Duration::ZERO, String::new());
    let mut incomplete = 0;
    for _ in 0..n {
        let p = race_oracles::gen::racerdx::build(&bytes(&mut seed, 160), knobs);
        let m = Machine::new(&p, cfg.loop_bound);
        for (i, a) in p.methods.iter().enumerate() {
            for b in &p.methods[i..] {
                let init = match m.method_threads(&[&a.name, &b.name], vec![], &[]) {
                    Ok(init) => init,
                    Err(e) => {
                        eprintln!("{} ∥ {}: {e}", a.name, b.name);
                        continue;
                    }
                };
                let t = Instant::now();
                let s = cfg.explorer.get().explore(&m, init, &cfg, &mut |_| ControlFlow::Continue(()));
                let took = t.elapsed();
                incomplete += usize::from(!s.complete);
                if took > slowest.0 {
                    slowest = (took, format!("{} ∥ {} ({} states)\n{}", a.name, b.name, s.states, print(&p)));
                }
                states.push(s.states);
            }
        }
    }
    if states.is_empty() {
        println!("no pairs");
        return;
    }
    states.sort_unstable();
    let q = |f: f64| states[((states.len() - 1) as f64 * f) as usize];
    println!(
        "{} pairs, {incomplete} incomplete; states per pair: min {}, median {}, p90 {}, p99 {}, max {}\nslowest ({:?}): {}",
        states.len(),
        q(0.0),
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0),
        slowest.0,
        slowest.1
    );
}
