//! Oracle throughput (programs checked per second, on programs from each oracle's own
//! generator) and the time each theorem-breaking mutant takes to be caught, for every
//! oracle of the registry. Run with `cargo bench --bench racerdx`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use race_oracles::lang::Program;
use race_oracles::theorems::{Oracle, Registry, StaticRaceAnalysis, Verdict};
use racefuzz::analyses::racerdx::RacerDx;
use racefuzz::mutants::{Prediction, MUTANTS};
use racefuzz::suts::{self, Subject};

/// Fixed programs from the oracle's generator: a deterministic byte stream (xorshift),
/// lengths 16..56.
fn programs(o: &Oracle, s: &Subject, n: usize) -> Vec<Program> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|i| {
            let bytes: Vec<u8> = (0..16 + i % 40).map(|_| (next() >> 24) as u8).collect();
            (o.generate)(&bytes, s.relax())
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let reg = Registry::builtin();
    let mut g = c.benchmark_group("racerdx");
    g.sample_size(10);
    let first = reg.all()[0];
    let ps = programs(&first, &Subject::for_oracle(&first, None).expect("real SUT"), 200);
    let reports: usize = ps.iter().map(|p| RacerDx::default().reports(p).len()).sum();
    eprintln!("oracle benchmark: 200 programs, {reports} RacerDX reports");
    g.throughput(Throughput::Elements(ps.len() as u64));
    g.bench_function("analysis-only", |b| b.iter(|| ps.iter().map(|p| RacerDx::default().reports(p).len()).sum::<usize>()));
    for o in reg.all() {
        let s = Subject::for_oracle(o, None).expect("real SUT");
        let ps = programs(o, &s, 200);
        g.bench_function(o.id, |b| b.iter(|| ps.iter().filter(|p| suts::check(o, p, &s, suts::campaign_bounds()).verdict == Verdict::Fail).count()));
    }
    g.finish();

    // Time to the first counterexample, per theorem-breaking mutant and oracle.
    let mut g = c.benchmark_group("mutant-hunt");
    g.sample_size(10);
    for m in MUTANTS {
        for (id, predicted) in m.predicted {
            let Some(o) = reg.find(id) else { continue };
            if *predicted != Prediction::BreaksTheorem {
                continue;
            }
            let s = Subject::for_oracle(o, Some(m.name)).expect("catalogued mutant");
            let ps = programs(o, &s, 3000);
            let hunt = || ps.iter().position(|p| suts::check(o, p, &s, suts::campaign_bounds()).verdict == Verdict::Fail);
            match hunt() {
                Some(at) => eprintln!("mutant {} under {id}: caught at program {}", m.name, at + 1),
                None => eprintln!("mutant {} under {id}: not caught in {} programs", m.name, ps.len()),
            }
            g.bench_with_input(BenchmarkId::new(*id, m.name), &(), |b, ()| b.iter(hunt));
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
