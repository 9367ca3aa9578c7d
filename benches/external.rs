//! An external detector's cost per trace against the in-process FastTrack, in the same
//! run: `fasttrack-precise` over the same generated programs, judging FastTrack and then
//! the Python happens-before example (`examples/detectors/hb.py`) through the persistent
//! JSON Lines protocol, in traces (every execution the oracle explores is one trace given
//! to the detector); then in programs, the example per trace (a process per trace) and in
//! batches (a process per program), each on one trace per Mazurkiewicz class. Run with `cargo bench -p racefuzz-bench --bench
//! external` from the repository root (it needs `python3`).

use std::ops::ControlFlow;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use race_oracles::explore::{Config, Explorer, ExplorerKind, Naive};
use race_oracles::lang::Program;
use race_oracles::machine::Machine;
use race_oracles::theorems::{Registry, Verdict};
use racefuzz::suts::{self, Subject};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// How many programs, from fasttrack-precise's generator (seed 1).
const PROGRAMS: usize = 40;

/// The traces fasttrack-precise gives a detector on `p`: every execution of the naive
/// explorer under the campaign's bounds.
fn traces(p: &Program) -> u64 {
    let cfg = Config {
        max_executions: suts::campaign_bounds().max_executions.min(race_oracles::theorems::fasttrack_precise::BUDGET),
        explorer: ExplorerKind::Naive,
        ..suts::campaign_bounds()
    };
    let m = Machine::new(p, cfg.loop_bound);
    let Ok(init) = m.initial_state() else { return 0 };
    let mut n = 0;
    Naive.explore(&m, init, &cfg, &mut |_| {
        n += 1;
        ControlFlow::Continue(())
    });
    n
}

fn bench(c: &mut Criterion) {
    let o = *Registry::builtin().find("fasttrack-precise").expect("registered");
    let fasttrack = Subject::for_oracle(&o, None).expect("real SUT");
    let mut rng = StdRng::seed_from_u64(1);
    let ps: Vec<Program> = (0..PROGRAMS).map(|_| racefuzz::campaign::generate(&o, &fasttrack, &mut rng)).collect();
    let n: u64 = ps.iter().map(traces).sum();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let hb = |command: String, persistent: bool, batch: bool, all_traces: bool| {
        let spec = racefuzz::sut_spec::DetectorSpec {
            command,
            persistent,
            batch,
            report_pattern: None,
            timeout: std::time::Duration::from_secs(10),
            claim: Default::default(),
            all_traces,
        };
        Subject::new(&o, &racefuzz::sut_spec::SutSpec::detector(spec).expect("a detector command")).expect("a detector oracle")
    };
    let script = format!("python3 {root}/examples/detectors/hb.py");
    // Every trace, as FastTrack, for the cost per trace.
    let persistent = hb(format!("{script} --persistent"), true, false, true);
    // One trace per class (a command's default), for the cost per program of each protocol.
    let (per_trace, batch) = (hb(format!("{script} {{}}"), false, false, false), hb(format!("{script} --batch {{}}"), false, true, false));
    let run = |s: &Subject| ps.iter().filter(|p| suts::check(&o, p, s, suts::campaign_bounds()).verdict == Verdict::Pass).count();
    // All answer every trace alike (the example is a precise happens-before detector).
    let passed = run(&fasttrack);
    for (name, s) in [("persistent", &persistent), ("per trace", &per_trace), ("batch", &batch)] {
        assert_eq!(run(s), passed, "hb.py ({name}) and FastTrack disagree on some program");
    }
    eprintln!("external detector benchmark: {PROGRAMS} programs, {n} traces");
    let mut g = c.benchmark_group("external");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n));
    g.bench_function("fasttrack-in-process", |b| b.iter(|| run(&fasttrack)));
    g.bench_function("hb.py-persistent", |b| b.iter(|| run(&persistent)));
    g.finish();
    // Programs per second, one trace per class for the commands (FastTrack on every
    // interleaving, its default): a process per trace against one per program.
    let mut g = c.benchmark_group("external-programs");
    g.sample_size(10);
    g.throughput(Throughput::Elements(PROGRAMS as u64));
    g.bench_function("fasttrack-in-process", |b| b.iter(|| run(&fasttrack)));
    g.bench_function("hb.py-per-trace", |b| b.iter(|| run(&per_trace)));
    g.bench_function("hb.py-batch", |b| b.iter(|| run(&batch)));
    g.finish();
}

// The macro defines an undocumented `benches` function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;
criterion_main!(benches);
