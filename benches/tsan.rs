//! ThreadSanitizer's cost per trace (`racefuzz::tsan`), beside the in-process FastTrack on
//! the same traces in the same run: compiling each program's C replay, running each trace
//! with turns (the replay racefuzz judges), and running it free (no turns: the OS schedules
//! the threads, so TSan sees some interleaving of the same events, not necessarily the
//! trace's). The traces are one per Mazurkiewicz class (DPOR) of 20 programs from
//! `fasttrack-precise`'s generator (seed 1). Before timing, the bench prints how many of
//! the racy locations TSan reports with turns and without. Run with `cargo bench -p
//! racefuzz-bench --bench tsan` from the repository root (it needs `cc -fsanitize=thread`).

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use race_oracles::explore::{Config, ExplorerKind};
use race_oracles::machine::{Event, Machine};
use race_oracles::race::data_races;
use race_oracles::theorems::detector::reported;
use race_oracles::theorems::Registry;
use racefuzz::replay::{export, run, ReplayTool};
use racefuzz::suts::{self, Subject};
use racefuzz::tsan::Tsan;
use rand::rngs::StdRng;
use rand::SeedableRng;

/// How many programs.
const PROGRAMS: usize = 20;

/// One program: its C replay and its traces (one per class).
struct Case {
    c: String,
    traces: Vec<Vec<Event>>,
}

fn bench(c: &mut Criterion) {
    let o = *Registry::builtin().find("fasttrack-precise").expect("registered");
    let fasttrack = Subject::for_oracle(&o, None).expect("real SUT");
    let mut rng = StdRng::seed_from_u64(1);
    let cfg = Config { explorer: ExplorerKind::Dpor, ..suts::campaign_bounds() };
    let cases: Vec<Case> = (0..PROGRAMS)
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
            Case { c: export::c_program(&p, "", "bench", None), traces }
        })
        .collect();
    let arg = |t: &[Event]| export::encode(t).expect("no negative index");
    let timeout = Duration::from_secs(10);
    let n: u64 = cases.iter().map(|c| c.traces.len() as u64).sum();
    let tsan = Tsan::from_env();
    let compiler = tsan.compiler();
    // With turns, or free (the OS schedules the threads).
    let run_once = |bin: &std::path::Path, t: &[Event], free: bool| {
        let mut command = tsan.command(bin, &arg(t));
        if free {
            command.env("RACEFUZZ_FREE_RUN", "1");
        }
        let out = run::run(command, timeout)?;
        Ok::<_, racefuzz::replay::ReplayError>((tsan.reports(&out)?, out))
    };
    let dir = std::env::temp_dir().join(format!("racefuzz-tsan-bench-{}", std::process::id()));
    let binaries: Vec<PathBuf> = cases.iter().map(|k| run::compile(&k.c, &compiler, &dir).expect("cc -fsanitize=thread")).collect();
    // What TSan sees with turns and without, in racy locations (cell addresses) found.
    let (mut racy, mut with_turns, mut free) = (0usize, 0usize, 0usize);
    for (k, b) in cases.iter().zip(&binaries) {
        for t in &k.traces {
            let truth: BTreeSet<_> = data_races(t).iter().map(|r| r.addr).collect();
            racy += truth.len();
            for (is_free, count) in [(false, &mut with_turns), (true, &mut free)] {
                let (reports, out) = run_once(b, t, is_free).expect("a replay");
                let found: BTreeSet<_> =
                    run::reported_events(t, &out.objects, &reports).unwrap_or_default().into_iter().filter_map(|p| t[p.at.0 as usize].access().map(|a| a.1)).collect();
                *count += truth.intersection(&found).count();
            }
        }
    }
    eprintln!("tsan benchmark: {PROGRAMS} programs, {n} traces (one per class); racy locations {racy}: reported with turns {with_turns}, free {free}");
    let mut g = c.benchmark_group("tsan");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n));
    let ft = match fasttrack.sut() {
        race_oracles::theorems::Sut::Detector(f) => f,
        _ => unreachable!("fasttrack is a detector"),
    };
    g.bench_function("fasttrack-in-process", |b| b.iter(|| cases.iter().flat_map(|k| &k.traces).map(|t| reported(ft, t).map_or(0, |r| r.len())).sum::<usize>()));
    for (name, is_free) in [("tsan-run-with-turns", false), ("tsan-run-free", true)] {
        g.bench_function(name, |b| {
            b.iter(|| {
                cases
                    .iter()
                    .zip(&binaries)
                    .flat_map(|(k, bin)| k.traces.iter().map(move |t| (bin, t)))
                    .map(|(bin, t)| run_once(bin, t, is_free).map_or(0, |r| r.0.len()))
                    .sum::<usize>()
            })
        });
    }
    g.bench_function("tsan-compile-and-run-with-turns", |b| {
        b.iter(|| {
            let fresh = dir.join(format!("fresh-{}", rand::random::<u64>()));
            let mut reports = 0;
            for k in &cases {
                let bin = run::compile(&k.c, &compiler, &fresh).expect("cc -fsanitize=thread");
                reports += k.traces.iter().map(|t| run_once(&bin, t, false).map_or(0, |r| r.0.len())).sum::<usize>();
            }
            let _ = std::fs::remove_dir_all(&fresh);
            reports
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

// The macro defines an undocumented `benches` function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;
criterion_main!(benches);
