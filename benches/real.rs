//! The real detectors' throughput in traces per second, per trace (one process per trace:
//! the tool starts each time) against served (`racefuzz::replay::serve`: one process per
//! program replays its traces), beside the in-process FastTrack on the same traces in the
//! same run: ThreadSanitizer through gcc-12 and clang-19 (served inline), Helgrind and DRD
//! (served by fork). The traces are one per Mazurkiewicz class (DPOR) of 20 programs from
//! `fasttrack-precise`'s generator (seed 1); Valgrind's per-trace runs, at 0.6 s a trace,
//! take the first 20 of them. Compiling is not timed (each program's replay is compiled
//! before). A tool that is not installed is skipped, and the bench says so. Run with
//! `cargo bench -p racefuzz-bench --bench real` from the repository root.

use std::ops::ControlFlow;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use race_oracles::explore::{Config, ExplorerKind};
use race_oracles::lang::Program;
use race_oracles::machine::{Event, Machine};
use race_oracles::theorems::detector::reported;
use race_oracles::theorems::{DetectorFactory, Registry};
use racefuzz::replay::{ReplayFactory, ReplayTool, Scheme};
use racefuzz::suts::{self, Subject};
use racefuzz::tsan::Tsan;
use racefuzz::valgrind::{Tool, Valgrind};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// How many programs.
const PROGRAMS: usize = 20;

/// How many traces Valgrind's per-trace runs take.
const VALGRIND_PER_TRACE: usize = 20;

/// Runs every trace of `cases` through `f`'s detectors (one per program, from
/// `for_program`, as the oracles do): how many events they reported.
fn run_all(f: &[Box<dyn DetectorFactory + '_>], cases: &[(Program, Vec<Vec<Event>>)], limit: usize) -> usize {
    let mut n = 0;
    let mut left = limit;
    for (per_program, (_, traces)) in f.iter().zip(cases) {
        for t in traces.iter().take(left) {
            n += reported(per_program.as_ref(), t).map_or(0, |r| r.len());
            left -= 1;
        }
    }
    n
}

fn bench(c: &mut Criterion) {
    let o = *Registry::builtin().find("fasttrack-precise").expect("registered");
    let fasttrack = Subject::for_oracle(&o, None).expect("real SUT");
    let mut rng = StdRng::seed_from_u64(1);
    let cfg = Config { explorer: ExplorerKind::Dpor, ..suts::campaign_bounds() };
    let cases: Vec<(Program, Vec<Vec<Event>>)> = (0..PROGRAMS)
        .map(|_| {
            let p = racefuzz::campaign::generate(&o, &fasttrack, &mut rng);
            let m = Machine::new(&p, cfg.loop_bound);
            let mut traces = vec![];
            if let Ok(init) = m.initial_state() {
                cfg.explorer.get().explore(&m, init, &cfg, &mut |ex| {
                    traces.push(ex.trace.to_vec());
                    ControlFlow::Continue(())
                });
            }
            (p, traces)
        })
        .collect();
    let n: usize = cases.iter().map(|c| c.1.len()).sum();
    eprintln!("real detectors benchmark: {PROGRAMS} programs, {n} traces (one per class)");
    let mut g = c.benchmark_group("real");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n as u64));
    let ft = match fasttrack.sut() {
        race_oracles::theorems::Sut::Detector(f) => f,
        _ => unreachable!("fasttrack is a detector"),
    };
    g.bench_function("fasttrack-in-process", |b| b.iter(|| cases.iter().flat_map(|k| &k.1).map(|t| reported(ft, t).map_or(0, |r| r.len())).sum::<usize>()));
    let tools: Vec<(&str, Option<&str>, Arc<dyn ReplayTool>)> = vec![
        ("tsan", Some("gcc-12"), Arc::new(Tsan::through("gcc-12"))),
        ("tsan", Some("clang-19"), Arc::new(Tsan::through("clang-19"))),
        ("helgrind", None, Arc::new(Valgrind::new(Tool::Helgrind))),
        ("drd", None, Arc::new(Valgrind::new(Tool::Drd))),
    ];
    for (sut, version, tool) in tools {
        let detector = racefuzz::real::find(sut).expect("a real detector");
        let v = detector.version(version).expect("a known version");
        let name = detector.sut_name(v);
        if let Err(e) = detector.installed(v) {
            eprintln!("real detectors benchmark: skipping {name}: {e}");
            continue;
        }
        let valgrind = sut != "tsan";
        for scheme in [Scheme::PerTrace, Scheme::Served] {
            let limit = if valgrind && scheme == Scheme::PerTrace { VALGRIND_PER_TRACE } else { usize::MAX };
            let factory = ReplayFactory::new(tool.clone()).with_scheme(scheme);
            // Compiled once, before timing; each iteration starts new servers, so a served
            // run pays every start-up it needs.
            for (p, _) in &cases {
                factory.compile(p).expect("the replay compiles");
            }
            let traces = n.min(limit) as u64;
            g.throughput(Throughput::Elements(traces));
            g.bench_function(format!("{name}-{}", if scheme == Scheme::PerTrace { "per-trace" } else { "served" }), |b| {
                b.iter(|| {
                    let per_program: Vec<Box<dyn DetectorFactory + '_>> = cases.iter().map(|(p, _)| factory.for_program(p)).collect();
                    run_all(&per_program, &cases, limit)
                })
            });
        }
        g.throughput(Throughput::Elements(n as u64));
    }
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
