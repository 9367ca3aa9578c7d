//! Explorer throughput: executions/s and steps/s of the naive explorer on fixed programs
//! (2 and 3 threads, 4–8 accesses each), so later work (DPOR, oracles) has a baseline; and
//! naive against stateful search on the same families plus a racerdx pair with nested
//! loops (Def. 3.6 as the state predicate), with the executions and states of each printed
//! once. Run with `cargo bench --bench explore`.

use std::ops::ControlFlow;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use race_oracles::explore::{Config, ExplorerKind, Stats};
use race_oracles::gen::independent_threads;
use race_oracles::lang::{parse, Program};
use race_oracles::machine::Machine;

/// Two or three threads of shared accesses, some under a lock.
fn shared(threads: usize, accesses: usize) -> Program {
    let mut src = String::from("dialect bfj\nclass Obj { fields f, g }\ninit { o = new Obj; m = new Obj }\n");
    for t in 0..threads {
        let mut body = vec![];
        for k in 0..accesses {
            let field = if (k + t) % 2 == 0 { "f" } else { "g" };
            body.push(match k % 4 {
                0 => format!("x = o.{field}"),
                1 => format!("o.{field} = {t}"),
                2 => format!("acq(m); o.{field} = {k}"),
                _ => format!("y = o.{field}; rel(m)"),
            });
        }
        src.push_str(&format!("thread {{ {} }}\n", body.join("; ")));
    }
    parse(&src).expect("benchmark program parses")
}

fn run(p: &Program, cfg: &Config) -> Stats {
    let m = Machine::new(p, cfg.loop_bound);
    cfg.explorer.get().explore(&m, m.initial_state().expect("init runs"), cfg, &mut |_| ControlFlow::Continue(()))
}

fn programs() -> Vec<(String, Program)> {
    vec![
        ("2x4-independent".into(), independent_threads(2, 4)),
        ("2x6-shared-locked".into(), shared(2, 6)),
        ("2x8-shared-locked".into(), shared(2, 8)),
        ("3x4-shared-locked".into(), shared(3, 4)),
    ]
}

/// A racerdx pair with nested `while *` loops (issue 9: depth-first search without a
/// visited set spent its whole budget inside such loops of one initial heap).
const NESTED_LOOPS: &str = "dialect racerdx
method m0(arg1, arg2) { t = arg1.f; while * { while * { x = arg2.g; lock; arg2.g = x; unlock } } }
method m1(arg1, arg2) { lock; v = new; arg2.f = v; unlock; while * { y = arg1.g } }
";

fn run_pair(p: &Program, cfg: &Config) -> Stats {
    let m = Machine::new(p, cfg.loop_bound);
    let init = m.method_threads(&["m0", "m1"], vec![], &[]).expect("methods exist");
    let cfg = Config { state_predicate: Some(race_oracles::race::def36::enabled_pairs), ..*cfg };
    cfg.explorer.get().explore(&m, init, &cfg, &mut |_| ControlFlow::Continue(()))
}

/// Naive against stateful, same programs, same bounds.
fn compare(c: &mut Criterion) {
    let mut g = c.benchmark_group("explore-naive-vs-stateful");
    g.sample_size(10);
    let pair = parse(NESTED_LOOPS).expect("benchmark program parses");
    let mut cases: Vec<(String, Program, bool)> = programs().into_iter().map(|(n, p)| (n, p, false)).collect();
    cases.push(("racerdx-nested-loops".into(), pair, true));
    for (name, p, is_pair) in &cases {
        for kind in [ExplorerKind::Naive, ExplorerKind::Stateful] {
            let cfg = Config { explorer: kind, ..Config::default() };
            let go = |p: &Program| if *is_pair { run_pair(p, &cfg) } else { run(p, &cfg) };
            let s = go(p);
            eprintln!("{name} {}: {} executions, {} merged, {} states, complete {}", kind.name(), s.executions, s.merged, s.states, s.complete);
            g.bench_with_input(BenchmarkId::new(kind.name(), name), p, |b, p| b.iter(|| go(p)));
        }
    }
    g.finish();
}

fn bench(c: &mut Criterion) {
    let cfg = Config::default();
    for (unit, per_exec) in [("executions", false), ("steps", true)] {
        let mut g = c.benchmark_group(format!("explore-naive/{unit}"));
        g.sample_size(10);
        for (name, p) in programs() {
            let s = run(&p, &cfg);
            assert!(s.complete);
            g.throughput(Throughput::Elements(if per_exec { s.steps } else { s.executions }));
            g.bench_with_input(BenchmarkId::from_parameter(&name), &p, |b, p| b.iter(|| run(p, &cfg)));
        }
        g.finish();
    }
}

// The macro defines an undocumented `benches` function.
#[allow(missing_docs)]
mod group {
    use super::*;
    criterion_group!(benches, bench, compare);
}
use group::benches;
criterion_main!(benches);
