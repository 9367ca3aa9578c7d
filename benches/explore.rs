//! Explorer throughput: executions/s and steps/s of the naive explorer on fixed programs
//! (2 and 3 threads, 4–8 accesses each); and every explorer (naive, stateful, optimal DPOR)
//! against loom, the model checker Rust programmers use, on these families: n
//! threads × k independent writes; lock-protected increments; a read/write-heavy family;
//! a racerdx pair with nested loops (ours only: loom has no Def. 3.6). Each family is
//! written twice, as a `.race` program and as a loom model with the same threads, locks and
//! shared cells; the executions of each (loom's model iterations, counted) and the classes
//! are printed once, before the timings. And DPOR's wall time per execution against the
//! naive explorer's, with and without atomics, printed as a ratio measured in the same run
//! (`dpor_per_execution`). Run with `cargo bench -p racefuzz-bench --bench explore`.

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

/// A racerdx pair with nested `while *` loops (depth-first search without a
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

/// The loom side of a family: a model run to completion, returning its iterations.
type LoomModel = fn() -> usize;

/// `threads` threads, each storing to its own `k` atomics (every pair independent).
fn loom_independent(threads: usize, k: usize) -> usize {
    use loom::sync::atomic::{AtomicUsize, Ordering};
    use loom::sync::Arc;
    let iterations = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let it = iterations.clone();
    loom::model(move || {
        it.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let cells: Arc<Vec<AtomicUsize>> = Arc::new((0..threads * k).map(|_| AtomicUsize::new(0)).collect());
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let cells = cells.clone();
                loom::thread::spawn(move || (0..k).for_each(|i| cells[t * k + i].store(1, Ordering::SeqCst)))
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().expect("thread"));
    });
    iterations.load(std::sync::atomic::Ordering::Relaxed)
}

/// Two threads, each `k` lock-protected increments of one shared counter.
fn loom_increments(k: usize) -> usize {
    use loom::sync::{Arc, Mutex};
    let iterations = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let it = iterations.clone();
    loom::model(move || {
        it.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let m = Arc::new(Mutex::new(0usize));
        let hs: Vec<_> = (0..2)
            .map(|_| {
                let m = m.clone();
                loom::thread::spawn(move || (0..k).for_each(|_| *m.lock().expect("lock") += 1))
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().expect("thread"));
    });
    iterations.load(std::sync::atomic::Ordering::Relaxed)
}

/// Two threads reading and writing two shared cells, unsynchronized (SeqCst atomics on
/// loom's side, so that loom explores the interleavings instead of stopping at the race).
fn loom_read_write() -> usize {
    use loom::sync::atomic::{AtomicUsize, Ordering};
    use loom::sync::Arc;
    let iterations = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let it = iterations.clone();
    loom::model(move || {
        it.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let c: Arc<[AtomicUsize; 2]> = Arc::new([AtomicUsize::new(0), AtomicUsize::new(0)]);
        let hs: Vec<_> = (0..2)
            .map(|t| {
                let c = c.clone();
                loom::thread::spawn(move || {
                    let x = c[t].load(Ordering::SeqCst);
                    c[1 - t].store(x + 1, Ordering::SeqCst);
                    let y = c[1 - t].load(Ordering::SeqCst);
                    c[t].store(y + 1, Ordering::SeqCst);
                })
            })
            .collect();
        hs.into_iter().for_each(|h| h.join().expect("thread"));
    });
    iterations.load(std::sync::atomic::Ordering::Relaxed)
}

fn increments(k: usize) -> Program {
    let inc = "acq(m); t = o.f; o.f = t + 1; rel(m)";
    let body = vec![inc; k].join("; ");
    parse(&format!("dialect bfj\nclass C {{ fields f }}\ninit {{ o = new C; m = new C }}\nthread {{ {body} }}\nthread {{ {body} }}\n")).expect("benchmark program parses")
}

const READ_WRITE: &str = "dialect bfj
class C { fields a, b }
init { o = new C }
thread { x = o.a; o.b = x + 1; y = o.b; o.a = y + 1 }
thread { x = o.b; o.a = x + 1; y = o.a; o.b = y + 1 }
";

/// Every explorer and loom on the families, same run.
fn compare(c: &mut Criterion) {
    let mut g = c.benchmark_group("explorers-vs-loom");
    g.sample_size(10);
    let families: Vec<(&str, Program, Option<LoomModel>, bool)> = vec![
        ("2x8-independent", independent_threads(2, 8), Some(|| loom_independent(2, 8)), false),
        ("3x3-independent", independent_threads(3, 3), Some(|| loom_independent(3, 3)), false),
        ("2x5-locked-increments", increments(5), Some(|| loom_increments(5)), false),
        ("2x7-locked-increments", increments(7), Some(|| loom_increments(7)), false),
        ("2x4-read-write", parse(READ_WRITE).expect("benchmark program parses"), Some(loom_read_write), false),
        ("2x6-shared-locked", shared(2, 6), None, false),
        ("racerdx-nested-loops", parse(NESTED_LOOPS).expect("benchmark program parses"), None, true),
    ];
    for (name, p, loom_model, is_pair) in &families {
        let mut line = format!("{name}:");
        for kind in [ExplorerKind::Naive, ExplorerKind::Stateful, ExplorerKind::Dpor] {
            let cfg = Config { explorer: kind, ..Config::default() };
            let go = |p: &Program| if *is_pair { run_pair(p, &cfg) } else { run(p, &cfg) };
            let s = go(p);
            line.push_str(&format!(" {} {}{}", kind.name(), s.executions, if s.complete { "" } else { " (incomplete)" }));
            if kind == ExplorerKind::Stateful {
                line.push_str(&format!(" ({} states)", s.states));
            }
            if s.redundant > 0 {
                line.push_str(&format!(" ({} redundant branches)", s.redundant));
            }
            g.bench_with_input(BenchmarkId::new(kind.name(), name), p, |b, p| b.iter(|| go(p)));
        }
        if !is_pair {
            line.push_str(&format!(" | classes {}", classes(p)));
        }
        if let Some(model) = loom_model {
            line.push_str(&format!(" | loom {}", model()));
            g.bench_function(BenchmarkId::new("loom", name), |b| b.iter(model));
        }
        eprintln!("{line}");
    }
    g.finish();
}

/// Families with atomics and fences (docs/spec/atomics.md §7: DPOR's dependence of atomic
/// events), for the per-execution cost of DPOR against the naive explorer.
fn atomic_families() -> Vec<(&'static str, Program)> {
    let cas_lock = "ok = o.l.cas(0, 1, acquire, relaxed); if ok { t = o.d; o.d = t + 1; o.l.store(0, release) }";
    let mp_writer = "o.d = 1; fence(release); o.f.store(1, relaxed); o.g = 2; x = o.c.fetch_add(1, acq_rel)";
    let mp_reader = "r = o.f.load(relaxed); fence(acquire); t = o.d; y = o.c.fetch_add(1, relaxed); u = o.g";
    let counter = "a = o.c.fetch_add(1, relaxed); t = o.d; b = o.c.load(acquire); o.d = b";
    let increments = ["a = o.c.fetch_add(1, seq_cst)"; 7].join("; ");
    let program = |threads: &[&str]| {
        let mut src = String::from("dialect bfj2\nclass C { fields c, d, f, g, l }\ninit { o = new C }\n");
        for t in threads {
            src.push_str(&format!("thread {{ {t} }}\n"));
        }
        parse(&src).expect("benchmark program parses")
    };
    vec![
        // Every pair of events dependent: one class per interleaving, as 2x7-locked-increments.
        ("2x7-fetch-add-increments", program(&[&increments, &increments])),
        ("2x2-cas-spinlock", program(&[&format!("{cas_lock}; {cas_lock}"), &format!("{cas_lock}; {cas_lock}")])),
        ("2x5-message-passing-fences", program(&[mp_writer, mp_reader])),
        ("3x4-atomic-counter", program(&[counter, counter, counter])),
    ]
}

/// DPOR's wall time per execution against the naive explorer's, measured in the same run,
/// alternating, as the median of `rounds` rounds each, printed per family with the ratio of
/// the totals. The plain explorer is held to at most 1.3 per execution where both run the
/// same executions (every interleaving its own class: 2x7-locked-increments without
/// atomics, 2x7-fetch-add-increments with them), which compares the same work. Where DPOR
/// runs fewer, each of its executions shares less of its prefix with the one before (the
/// naive explorer's executions differ in their last few steps), so its cost per execution
/// is higher by construction and the total is what counts. Criterion's groups below give
/// the same per-execution throughputs with their spread.
fn dpor_per_execution(c: &mut Criterion) {
    let mut families: Vec<(&str, Program)> = vec![("2x7-locked-increments", increments(7)), ("2x6-shared-locked", shared(2, 6)), ("3x4-shared-locked", shared(3, 4))];
    families.extend(atomic_families());
    let mut g = c.benchmark_group("dpor-vs-naive-per-execution");
    g.sample_size(10);
    for (name, p) in &families {
        let mut per_execution = vec![];
        for kind in [ExplorerKind::Naive, ExplorerKind::Dpor] {
            let cfg = Config { explorer: kind, ..Config::default() };
            let s = run(p, &cfg);
            assert!(s.complete, "{name}: {} incomplete", kind.name());
            g.throughput(Throughput::Elements(s.executions));
            g.bench_with_input(BenchmarkId::new(kind.name(), name), p, |b, p| b.iter(|| run(p, &cfg)));
            per_execution.push((kind, cfg, s.executions));
        }
        let rounds = 15;
        let mut times: Vec<Vec<f64>> = vec![vec![]; per_execution.len()];
        for _ in 0..rounds {
            for (i, (_, cfg, executions)) in per_execution.iter().enumerate() {
                let start = std::time::Instant::now();
                std::hint::black_box(run(p, cfg));
                times[i].push(start.elapsed().as_secs_f64() / *executions as f64);
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (naive, dpor) = (median(&mut times[0]), median(&mut times[1]));
        let (n, d) = (per_execution[0].2, per_execution[1].2);
        eprintln!(
            "{name}: naive {n} executions, {:.2} µs each; dpor {d} executions, {:.2} µs each; dpor/naive per execution {:.2}, in total {:.2}",
            naive * 1e6,
            dpor * 1e6,
            dpor / naive,
            (dpor * d as f64) / (naive * n as f64)
        );
    }
    g.finish();
}

/// Mazurkiewicz classes among the naive explorer's executions.
fn classes(p: &Program) -> usize {
    let m = Machine::new(p, 2);
    let mut keys = std::collections::HashSet::new();
    ExplorerKind::Naive.get().explore(&m, m.initial_state().expect("init runs"), &Config::default(), &mut |ex| {
        keys.insert(race_oracles::explore::classes::class_key(&m, ex));
        ControlFlow::Continue(())
    });
    keys.len()
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
    criterion_group!(benches, bench, compare, dpor_per_execution);
}
use group::benches;
criterion_main!(benches);
