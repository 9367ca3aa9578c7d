//! Campaign throughput (the target: every oracle runs at least 500 programs/s on one core at
//! its default settings): for each registered oracle, a fixed seeded sequence of
//! programs drawn as `racefuzz fuzz` draws them ([`racefuzz::campaign::generate`]) and checked
//! against the oracle's default subject under the campaign's bounds, on one thread. Criterion
//! reports elements/s, here programs/s (generation included). The sequence depends on the
//! seed alone, so two commits are compared on the same bytes (a generator change changes the
//! programs, which is the point of comparing). Run with `cargo bench -p racefuzz-bench --bench campaign`, or
//! `cargo bench -p racefuzz-bench --bench campaign -- explorer-agree` for one oracle.

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput};
use race_oracles::theorems::Registry;
use racefuzz::campaign;
use racefuzz::suts::{self, Subject};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// Programs per iteration: one fixed sequence, the same in every iteration.
const PROGRAMS: u64 = 100;

/// The seed of every oracle's sequence.
const SEED: u64 = 1;

fn oracles(c: &mut Criterion) {
    let mut g = c.benchmark_group("campaign");
    // Flat sampling: each sample runs the same number of iterations, so a slow oracle costs
    // about ten iterations, not the 55 of linear sampling.
    g.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(PROGRAMS));
    for o in Registry::builtin().all() {
        let subject = Subject::for_oracle(o, None).expect("every oracle has a default subject");
        g.bench_function(BenchmarkId::from_parameter(o.id), |b| {
            b.iter(|| {
                let mut rng = StdRng::seed_from_u64(SEED);
                let mut failed = 0u64;
                for _ in 0..PROGRAMS {
                    let p = campaign::generate(o, &subject, &mut rng);
                    failed += u64::from(suts::check(o, &p, &subject, suts::campaign_bounds()).verdict == race_oracles::theorems::Verdict::Fail);
                }
                failed
            });
        });
    }
    g.finish();
}

/// What numbering a generated program as printed costs (`race_oracles::lang::as_printed`,
/// which `campaign::generate` does): per oracle, the generator alone on the campaign's
/// bytes, and the generator then the numbering, over the same fixed sequence; the
/// difference set against the `campaign` group's time per program is the share of a
/// campaign it takes.
fn numbering(c: &mut Criterion) {
    use rand::RngCore;
    let mut g = c.benchmark_group("numbering");
    g.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(2));
    g.throughput(Throughput::Elements(PROGRAMS));
    for o in Registry::builtin().all() {
        let relax = Subject::for_oracle(o, None).expect("every oracle has a default subject").relax();
        let mut rng = StdRng::seed_from_u64(SEED);
        let inputs: Vec<Vec<u8>> = (0..PROGRAMS)
            .map(|_| {
                let mut bytes = vec![0u8; 16 + (rng.next_u32() % 72) as usize];
                rng.fill_bytes(&mut bytes);
                bytes
            })
            .collect();
        g.bench_function(BenchmarkId::new("generator", o.id), |b| b.iter(|| inputs.iter().map(|i| (o.generate)(i, relax).threads.len()).sum::<usize>()));
        g.bench_function(BenchmarkId::new("generator+as_printed", o.id), |b| b.iter(|| inputs.iter().map(|i| o.program(i, relax).threads.len()).sum::<usize>()));
    }
    g.finish();
}

/// The generator changes of the mutation work (docs/mutation.md, the book's "Mutation
/// testing"), each against the generator before it, in the same run: per oracle whose
/// generator changed, its programs/s (generation included) on the changed generator and on
/// the same generator with the change turned off, from the same bytes, alternating, as the
/// median of 15 rounds each, printed with their ratio (the bar: not below 1.0 by more than
/// noise). Today: the graph hand-off programs (`SimpleJavaKnobs::graph`, `CapJavaKnobs::graph`),
/// under escape-trace-precise, the negative control lock-elision-race-free and
/// capsule-first-race, and the bfj generator's induction variables reassigned after
/// their loop (`BfjKnobs::reassign`), under bigfoot-precise, and the Naik-Aiken idiom of a
/// store through a target joined from two sites (`NaikAikenKnobs::joined_target`).
fn generator_changes(c: &mut Criterion) {
    use race_oracles::gen::bfj::{self, swarm_bfj, BfjKnobs};
    use race_oracles::gen::java::{self, build_capjava, build_simplejava, swarm_capjava, swarm_simplejava, CapJavaKnobs, SimpleJavaKnobs};
    use race_oracles::gen::naikaiken::{self, build_naikaiken, swarm_naikaiken, NaikAikenKnobs};
    use race_oracles::lang::{Program, Relax};
    type Gen = fn(&[u8], Relax) -> Program;
    /// A swarm header as the generators read it (zeros past the end of the input) and the rest.
    fn header<const N: usize>(bytes: &[u8]) -> ([u8; N], &[u8]) {
        let mut h = [0u8; N];
        let n = bytes.len().min(N);
        h[..n].copy_from_slice(&bytes[..n]);
        (h, &bytes[n..])
    }
    fn simplejava_before(bytes: &[u8], _: Relax) -> Program {
        let (h, rest) = header::<{ java::SWARM_HEADER }>(bytes);
        build_simplejava(rest, SimpleJavaKnobs { graph: false, ..SimpleJavaKnobs::swarm(h) })
    }
    fn capjava_before(bytes: &[u8], _: Relax) -> Program {
        let (h, rest) = header::<{ java::SWARM_HEADER }>(bytes);
        build_capjava(rest, CapJavaKnobs { graph: false, ..CapJavaKnobs::swarm(h) })
    }
    fn bfj_before(bytes: &[u8], _: Relax) -> Program {
        let (h, rest) = header::<{ bfj::SWARM_HEADER }>(bytes);
        bfj::build(rest, BfjKnobs { reassign: false, ..BfjKnobs::swarm(h) })
    }
    fn naikaiken_before(bytes: &[u8], relax: Relax) -> Program {
        let (h, rest) = header::<{ naikaiken::SWARM_HEADER }>(bytes);
        build_naikaiken(rest, NaikAikenKnobs { joined_target: false, ..NaikAikenKnobs::swarm(h, relax) })
    }
    let changes: [(&str, Gen, Gen); 5] = [
        ("escape-trace-precise", swarm_simplejava, simplejava_before),
        ("lock-elision-race-free", swarm_simplejava, simplejava_before),
        ("capsule-first-race", swarm_capjava, capjava_before),
        ("bigfoot-precise", swarm_bfj, bfj_before),
        ("naik-aiken-sound", swarm_naikaiken, naikaiken_before),
    ];
    let reg = Registry::builtin();
    let mut g = c.benchmark_group("generator-changes");
    g.sampling_mode(SamplingMode::Flat).sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(PROGRAMS));
    for (id, changed, old) in changes {
        let o = reg.all().iter().find(|o| o.id == id).expect("a registered oracle");
        let subject = Subject::for_oracle(o, None).expect("every oracle has a default subject");
        let run = |generate: Gen| {
            let mut rng = StdRng::seed_from_u64(SEED);
            let mut failed = 0u64;
            for _ in 0..PROGRAMS {
                let p = campaign::generate_with(generate, subject.relax(), &mut rng);
                failed += u64::from(suts::check(o, &p, &subject, suts::campaign_bounds()).verdict == race_oracles::theorems::Verdict::Fail);
            }
            failed
        };
        let mut times = [vec![], vec![]];
        for _ in 0..15 {
            for (i, generate) in [changed, old].into_iter().enumerate() {
                let start = std::time::Instant::now();
                std::hint::black_box(run(generate));
                times[i].push(start.elapsed().as_secs_f64());
            }
        }
        let [mut new, mut before] = times;
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (n, b) = (median(&mut new), median(&mut before));
        eprintln!("{id}: {:.0} programs/s with the change, {:.0} before it; ratio {:.2}", PROGRAMS as f64 / n, PROGRAMS as f64 / b, b / n);
        g.bench_function(BenchmarkId::new("changed", id), |bch| bch.iter(|| run(changed)));
        g.bench_function(BenchmarkId::new("before", id), |bch| bch.iter(|| run(old)));
    }
    g.finish();
}

// The macro defines an undocumented `benches` function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, oracles, numbering, generator_changes);
}
use group::benches;
criterion_main!(benches);
