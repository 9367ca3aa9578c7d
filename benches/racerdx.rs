//! `racerdx-tp` throughput (programs checked per second, programs of up to 3 methods of up to
//! 8 statements) and the time each theorem-breaking mutant takes to be caught.
//! Run with `cargo bench --bench racerdx`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use race_oracles::gen::racerdx::build;
use race_oracles::gen::RacerDxKnobs;
use race_oracles::lang::Program;
use race_oracles::theorems::racerdx_tp::{check, TpConfig};
use race_oracles::theorems::{racerdx_complete, Verdict};
use racefuzz::analyses::racerdx::RacerDx;
use racefuzz::mutants::{self, Prediction, MUTANTS};

/// Fixed programs: a deterministic byte stream (xorshift), lengths 8..48.
fn programs(n: usize, knobs: RacerDxKnobs) -> Vec<Program> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|i| {
            let bytes: Vec<u8> = (0..8 + i % 40).map(|_| (next() >> 24) as u8).collect();
            build(&bytes, knobs)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let ps = programs(200, RacerDxKnobs::default());
    let reports: usize = ps.iter().map(|p| race_oracles::theorems::StaticRaceAnalysis::reports(&RacerDx::default(), p).len()).sum();
    eprintln!("racerdx-tp benchmark: 200 programs, {reports} reports");
    let mut g = c.benchmark_group("racerdx");
    g.sample_size(10);
    g.throughput(Throughput::Elements(ps.len() as u64));
    g.bench_function("analysis-only", |b| b.iter(|| ps.iter().map(|p| race_oracles::theorems::StaticRaceAnalysis::reports(&RacerDx::default(), p).len()).sum::<usize>()));
    g.bench_function("racerdx-tp", |b| b.iter(|| ps.iter().filter(|p| check(p, &RacerDx::default(), &TpConfig::default()).verdict == Verdict::Fail).count()));
    g.bench_function("racerdx-complete", |b| {
        b.iter(|| ps.iter().filter(|p| racerdx_complete::check(p, &RacerDx::default(), 1, Default::default()).verdict == Verdict::Fail).count())
    });
    g.finish();

    // Time to the first counterexample, per theorem-breaking mutant and oracle.
    let mut g = c.benchmark_group("mutant-hunt");
    g.sample_size(10);
    for m in MUTANTS {
        for (i, oracle) in ["racerdx-tp", "racerdx-complete"].iter().enumerate() {
            if m.predicted[i] != Prediction::BreaksTheorem {
                continue;
            }
            let (opts, relax) = mutants::racerdx(Some(m.name)).expect("catalogued mutant");
            let ps = programs(3000, RacerDxKnobs { unmatched_unlock: relax.balanced_locking, ..RacerDxKnobs::default() });
            let a = RacerDx::new(opts);
            let hunt = || {
                ps.iter().position(|p| {
                    let v = if i == 0 { check(p, &a, &TpConfig { relax, ..TpConfig::default() }).verdict } else { racerdx_complete::check(p, &a, 1, relax).verdict };
                    v == Verdict::Fail
                })
            };
            match hunt() {
                Some(at) => eprintln!("mutant {} under {oracle}: caught at program {}", m.name, at + 1),
                None => eprintln!("mutant {} under {oracle}: not caught in {} programs", m.name, ps.len()),
            }
            g.bench_with_input(BenchmarkId::new(*oracle, m.name), &(), |b, ()| b.iter(hunt));
        }
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
