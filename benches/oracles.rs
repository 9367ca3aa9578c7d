//! Oracle throughput (programs checked per second, on programs from each oracle's own
//! generator) and the time each theorem-breaking mutant takes to be caught, for every
//! oracle of the registry. Run with `cargo bench -p racefuzz-bench --bench oracles`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use race_oracles::instrumented;
use race_oracles::lang::Program;
use race_oracles::ldrf;
use race_oracles::machine::Event;
use race_oracles::theorems::ldrf_agree::MODULUS;
use race_oracles::theorems::must_not_alias::Counters;
use race_oracles::theorems::{AccessFilter, Budget, Classes, Decision, Oracle, Registry, StaticRaceAnalysis, Sut, Verdict};
use racefuzz::analyses::racerdx::RacerDx;
use racefuzz::mutants::MUTANTS;
use racefuzz::seeded::Prediction;
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
            o.program(&bytes, s.relax())
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let reg = Registry::builtin();
    let mut g = c.benchmark_group("oracles");
    g.sample_size(10);
    let first = reg.all()[0];
    let ps = programs(&first, &Subject::for_oracle(&first, None).expect("real SUT"), 200);
    let reports: usize = ps.iter().map(|p| RacerDx::default().reports(p).map_or(0, |r| r.len())).sum();
    eprintln!("oracle benchmark: 200 programs, {reports} RacerDX reports");
    g.throughput(Throughput::Elements(ps.len() as u64));
    g.bench_function("analysis-only", |b| b.iter(|| ps.iter().map(|p| RacerDx::default().reports(p).map_or(0, |r| r.len())).sum::<usize>()));
    for o in reg.all() {
        let s = Subject::for_oracle(o, None).expect("real SUT");
        let ps = programs(o, &s, 200);
        if let Some(d) = interleavings(&ps, &s, o.id.ends_with("-operational")) {
            eprintln!("{}: interleavings per program {d}", o.id);
        }
        if o.sut == race_oracles::theorems::SutKind::Filter && !o.negative_control {
            eprintln!("{}: {}", o.id, filtered_share(o, &ps, &s));
            // The baseline in the same run: the same programs and oracle with a filter that
            // keeps every event (FastTrack on α itself; the oracle's own work unchanged).
            let keep_all = |_: Classes| Box::new(KeepAll) as Box<dyn AccessFilter>;
            let ft = racefuzz::analyses::fasttrack::FastTrackFactory::default();
            let budget = Budget { explore: suts::campaign_bounds(), relax: s.relax() };
            g.bench_function(format!("{}/keep-all", o.id), |b| b.iter(|| ps.iter().filter(|p| o.check(p, &Sut::Filter(&keep_all, &ft), &budget).verdict == Verdict::Fail).count()));
        }
        // Naik-Aiken's baseline in the same run: the ground truth alone (the instrumented
        // semantics' search for races, no analysis and no judging) on the same programs.
        if o.sut == race_oracles::theorems::SutKind::MustNotAlias && !o.negative_control {
            eprintln!("{}: {}", o.id, states(&ps));
            let cfg = suts::campaign_bounds();
            g.bench_function(format!("{}/ground-truth-only", o.id), |b| b.iter(|| ps.iter().map(|p| instrumented::races(p, Counters::PerThread, &cfg).0.len()).sum::<usize>()));
        }
        // L-DRF's baseline in the same run: E-STD alone (the standard semantics' search, no
        // L-DRF, no judging) on the same programs; and the state counts of every engine.
        if o.sut == race_oracles::theorems::SutKind::ThreadLocal && !o.negative_control {
            eprintln!("{}: {}", o.id, ldrf_states(&ps));
            for n in 2..=6 {
                eprintln!("{}: R4 with {n} threads: {}", o.id, ldrf_states(&[batman(n)]));
            }
            let cfg = suts::campaign_bounds();
            g.bench_function(format!("{}/e-std-only", o.id), |b| {
                b.iter(|| ps.iter().map(|p| ldrf::standard::reach(&ldrf::cfg::Cfg::of(p, MODULUS), &cfg).states.len()).sum::<usize>())
            });
        }
        g.bench_function(o.id, |b| b.iter(|| ps.iter().filter(|p| suts::check(o, p, &s, suts::campaign_bounds()).verdict == Verdict::Fail).count()));
        // The placer oracle's baseline in the same run: the same programs under per-access
        // checking (a check ratio of 1; BigFoot's should be lower and its throughput near).
        if o.id == "bigfoot-precise" {
            eprintln!("{}: {}", o.id, placement_costs(o, &ps, &s));
            let base = Subject::named("per-access", None).expect("catalogued SUT").expect("real SUT");
            eprintln!("{} with per-access checks: {}", o.id, placement_costs(o, &ps, &base));
            if let Some(d) = interleavings(&ps, &base, false) {
                eprintln!("{} with per-access checks: interleavings per program {d}", o.id);
            }
            g.bench_function(format!("{}/per-access", o.id), |b| {
                b.iter(|| ps.iter().filter(|p| suts::check(o, p, &base, suts::campaign_bounds()).verdict == Verdict::Fail).count())
            });
        }
    }
    g.finish();

    // Time to the first counterexample, per theorem-breaking mutant and oracle.
    let mut g = c.benchmark_group("mutant-hunt");
    g.sample_size(10);
    for m in MUTANTS.iter() {
        for (id, predicted) in suts::predictions(m) {
            let Some(o) = reg.find(id) else { continue };
            if predicted != Prediction::BreaksTheorem {
                continue;
            }
            let s = Subject::for_oracle(o, Some(m.name)).expect("catalogued mutant");
            let ps = programs(o, &s, 3000);
            let hunt = || ps.iter().position(|p| suts::check(o, p, &s, suts::campaign_bounds()).verdict == Verdict::Fail);
            match hunt() {
                Some(at) => eprintln!("mutant {} under {id}: caught at program {}", m.name, at + 1),
                None => eprintln!("mutant {} under {id}: not caught in {} programs", m.name, ps.len()),
            }
            g.bench_with_input(BenchmarkId::new(id, m.name), &(), |b, ()| b.iter(hunt));
        }
    }
    g.finish();
}

/// A placer's costs over `ps`, read off `bigfoot-precise`'s results: the mean check ratio
/// (the detector's shadow operations per access, per program with accesses, as the paper's
/// Table 3.1 averages per benchmark) and the static checks against the access statements.
fn placement_costs(o: &Oracle, ps: &[Program], s: &Subject) -> String {
    let number_before = |text: &str, marker: &str| -> Option<f64> { text.split(marker).next()?.rsplit([' ', ';']).next()?.parse().ok() };
    let (mut ratios, mut checks, mut accesses) = (vec![], 0.0, 0.0);
    for p in ps {
        let r = suts::check(o, p, s, suts::campaign_bounds());
        let Some(line) = r.items.first().and_then(|i| i.explanation.first()) else { continue };
        if let Some(x) = number_before(line, " shadow operation(s) per access") {
            ratios.push(x);
        }
        if let (Some(c), Some(a)) = (number_before(line, " static check(s)"), number_before(line, " access statement(s)")) {
            checks += c;
            accesses += a;
        }
    }
    let mean = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
    format!("mean check ratio {mean:.3} over {} programs with accesses; {checks} static checks for {accesses} access statements", ratios.len())
}

/// The baseline filter: keeps every event.
struct KeepAll;

impl AccessFilter for KeepAll {
    fn on_event(&mut self, _: &Event) -> Decision {
        Decision::Keep
    }

    fn name(&self) -> String {
        "keep-all".into()
    }
}

/// A filter oracle's share of accesses filtered over `ps`, summed over every trace of every
/// program, read off its results (`N access(es), M elided`).
fn filtered_share(o: &Oracle, ps: &[Program], s: &Subject) -> String {
    let number_before = |text: &str, marker: &str| -> Option<f64> { text.split(marker).next()?.rsplit([' ', ';']).next()?.parse().ok() };
    let (mut accesses, mut elided) = (0.0, 0.0);
    for p in ps {
        let r = suts::check(o, p, s, suts::campaign_bounds());
        let Some(line) = r.items.first().and_then(|i| i.explanation.first()) else { continue };
        if let (Some(a), Some(e)) = (number_before(line, " access(es)"), number_before(line, " elided")) {
            accesses += a;
            elided += e;
        }
    }
    format!("{elided} of {accesses} accesses filtered ({:.1}%) over every trace", 100.0 * elided / accesses.max(1.0))
}

/// For Naik-Aiken's programs: the distribution of states the instrumented semantics visits.
fn states(ps: &[Program]) -> String {
    let cfg = suts::campaign_bounds();
    let mut n: Vec<u64> = ps.iter().map(|p| instrumented::races(p, Counters::PerThread, &cfg).1.states).collect();
    n.sort_unstable();
    let q = |f: f64| n.get(((n.len().max(1) - 1) as f64 * f) as usize).copied().unwrap_or(0);
    format!("states per program: min {}, median {}, p90 {}, max {} (of {} programs)", q(0.0), q(0.5), q(0.9), q(1.0), n.len())
}

/// Spec §8 R4 (the shape of the paper's Fig. 3): `n` threads, six shared variables
/// partitioned across them, each thread writing only its block under one lock; the
/// standard semantics grows with the product of the threads, the thread-local ones with
/// their sum.
fn batman(n: usize) -> Program {
    let threads: String = (0..n)
        .map(|t| {
            let body: String = (0..6).filter(|v| v % n == t).map(|v| format!("acq(m)\nv{v} = v{v} + 1\nrel(m)\n")).collect();
            format!("thread {{\n{body}}}\n")
        })
        .collect();
    let p = race_oracles::lang::parse(&format!("dialect ldrf\n{threads}")).expect("R4 parses");
    race_oracles::lang::validate(&p).expect("R4 is an ldrf program");
    p
}

/// For L-DRF's programs (the race-free ones, where the theorems apply): the states of E-STD
/// and E-LDRF and the environments of E-CART (Σ|a(n)|) under each mix, per program and in
/// total: the paper's point is that the thread-local abstractions are smaller.
fn ldrf_states(ps: &[Program]) -> String {
    use ldrf::cart::{cart, Mix};
    use ldrf::local::{Ldrf, Sync};
    let bounds = suts::campaign_bounds();
    let mut rows: Vec<[u64; 6]> = vec![];
    for p in ps {
        let c = ldrf::cfg::Cfg::of(p, MODULUS);
        let std = ldrf::standard::reach(&c, &bounds);
        if !std.races.is_empty() || std.cut.is_some() {
            continue;
        }
        let local = Ldrf::new(&c, Sync::Full).reach(&bounds).states.len() as u64;
        let one = ldrf::cfg::complete(vec![c.shared_vars()].into_iter().filter(|r| !r.is_empty()).collect(), c.vars.len());
        let size = |m: Mix| cart(&c, &Sync::Full, &m, bounds.max_states).size();
        // What a non-relational domain stores of ⟦P⟧× (var mix): per location, per variable,
        // its value set.
        let var = cart(&c, &Sync::Full, &Mix::Var, bounds.max_states);
        let footprint: u64 = (0..c.owner.len())
            .flat_map(|n| (0..c.vars.len()).map(move |x| (n, x)))
            .map(|(n, x)| var.project(ldrf::cfg::Node::new(n), &[ldrf::cfg::Var::new(x)]).len() as u64)
            .sum();
        rows.push([std.states.len() as u64, local, var.size(), size(Mix::Region(one)), size(Mix::Naive), footprint]);
    }
    let names = ["E-STD states", "E-LDRF states", "E-CART var", "E-CART one region", "E-CART naive", "E-CART var, value sets Σ_n Σ_x |a(n)(x)|"];
    let mut out = format!("{} race-free programs;", rows.len());
    for (k, name) in names.iter().enumerate() {
        let mut n: Vec<u64> = rows.iter().map(|r| r[k]).collect();
        n.sort_unstable();
        let q = |f: f64| n.get(((n.len().max(1) - 1) as f64 * f) as usize).copied().unwrap_or(0);
        let total: u64 = n.iter().sum();
        let std: u64 = rows.iter().map(|r| r[0]).sum();
        out.push_str(&format!(" {name}: median {}, p90 {}, max {}, total {total} ({:.2}× E-STD);", q(0.5), q(0.9), q(1.0), total as f64 / std.max(1) as f64));
    }
    out
}

/// For the detector, placer and filter oracles, which enumerate every interleaving (of the
/// placed program, for a placer; in CapJava's operational mode, up to each first violation,
/// for `…-operational`): the distribution of executions per program.
fn interleavings(ps: &[Program], s: &Subject, operational: bool) -> Option<String> {
    use race_oracles::explore::{Config, Explorer, Naive};
    use race_oracles::machine::Machine;
    let sut = s.sut();
    if !matches!(sut, Sut::Detector(_) | Sut::Placer(..) | Sut::Filter(..)) {
        return None;
    }
    // As the oracles enumerate: a placer oracle runs checks eagerly (`Config::eager_checks`).
    let cfg = Config { max_executions: 20_000, eager_checks: matches!(sut, Sut::Placer(..)), stop_at_violation: operational, ..suts::campaign_bounds() };
    let mut n: Vec<u64> = ps
        .iter()
        .filter_map(|p| {
            let placed = match &sut {
                Sut::Placer(placer, _) => placer.place(&p.without_checks()).ok()?,
                _ => p.clone(),
            };
            let m = Machine::new(&placed, cfg.loop_bound);
            let m = if operational { m.operational() } else { m };
            Some(Naive.explore(&m, m.initial_state().ok()?, &cfg, &mut |_| std::ops::ControlFlow::Continue(())).executions)
        })
        .collect();
    n.sort_unstable();
    let q = |f: f64| n.get(((n.len().max(1) - 1) as f64 * f) as usize).copied().unwrap_or(0);
    Some(format!("min {}, median {}, p90 {}, max {} (of {} programs)", q(0.0), q(0.5), q(0.9), q(1.0), n.len()))
}

// The macro defines an undocumented `benches` function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench);
}
use group::benches;
criterion_main!(benches);
