//! The explorer: golden interleaving counts, the eager-local reduction against the fully
//! naive enumeration, Def. 3.6 against happens-before, replay, bounds and budgets.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use race_oracles::explore::{Config, Execution, Names, Schedule, Stats};
use race_oracles::gen::{independent_threads, racerdx_program, threads_program, RacerDxKnobs};
use race_oracles::lang::{parse, print};
use race_oracles::machine::Machine;
use race_oracles::race::data_races;
use race_oracles::theorems::Verdict;
use race_oracles::truth::ground_truth;

/// Every execution from the initial state, through the configured explorer.
fn explore<'p>(m: &Machine<'p>, cfg: &Config, mut visit: impl FnMut(&Execution<'_, 'p>)) -> Stats {
    cfg.explorer.get().explore(m, m.initial_state().unwrap(), cfg, &mut |ex| {
        visit(ex);
        ControlFlow::Continue(())
    })
}

fn count(src_or_prog: &race_oracles::lang::Program, cfg: &Config) -> u64 {
    let m = Machine::new(src_or_prog, cfg.loop_bound);
    explore(&m, cfg, |_| ()).executions
}

fn binom(n: u64, k: u64) -> u64 {
    (1..=k).fold(1, |acc, i| acc * (n + 1 - i) / i)
}

#[test]
fn straight_line_counts_have_the_closed_form() {
    for eager in [true, false] {
        let cfg = Config { eager_local: eager, ..Config::default() };
        for n in 1..=5 {
            assert_eq!(count(&independent_threads(2, n), &cfg), binom(2 * n as u64, n as u64), "2 threads × {n}");
        }
        // Three threads of two steps: 6! / (2!)^3.
        assert_eq!(count(&independent_threads(3, 2), &cfg), 90);
    }
    // Silent steps are scheduling points too when every interleaving is asked for.
    let p = parse("dialect bfj\nthread { skip; skip; skip }\nthread { skip; skip; skip }\n").unwrap();
    assert_eq!(count(&p, &Config { eager_local: false, ..Config::default() }), 20);
    assert_eq!(count(&p, &Config::default()), 1);
}

#[test]
fn loop_bound_limits_nondeterministic_loops() {
    let p = parse("dialect bfj\ninit { o = new }\nthread { while * { o.f = 1 } }\n").unwrap();
    for (k, n) in [(0, 1), (1, 2), (2, 3), (3, 4)] {
        let cfg = Config { loop_bound: k, ..Config::default() };
        let m = Machine::new(&p, k);
        let stats = explore(&m, &cfg, |_| ());
        assert_eq!(stats.executions, n, "K = {k}");
        assert!(stats.complete && stats.loop_bound_hit);
    }
}

#[test]
fn budgets_make_results_incomplete_never_pass() {
    let p = independent_threads(2, 4);
    let m = Machine::new(&p, 2);
    let cfg = Config { max_executions: 10, ..Config::default() };
    let stats = explore(&m, &cfg, |_| ());
    assert_eq!(stats.executions, 10);
    assert!(!stats.complete);
    assert_eq!(Verdict::from_search(false, stats.complete), Verdict::Inconclusive);
    // A diverging thread is cut by the step budget: a truncated execution.
    let p = parse("dialect bfj\nthread { loop { skip } }\n").unwrap();
    let m = Machine::new(&p, 2);
    let cfg = Config { max_steps: 50, ..Config::default() };
    let stats = explore(&m, &cfg, |_| ());
    assert_eq!((stats.truncated, stats.complete), (1, false));
    // A run that ends exactly at the budget is complete.
    let p = parse("dialect bfj\ninit { o = new }\nthread { o.f = 1 }\n").unwrap();
    let m = Machine::new(&p, 2);
    let stats = explore(&m, &Config { max_steps: 1, ..Config::default() }, |_| ());
    assert_eq!((stats.terminated, stats.complete), (1, true));
}

#[test]
fn outcomes_are_told_apart() {
    let src = "dialect bfj\ninit { a = new; b = new; n = null }\nthread { acq(a); acq(b); rel(b); rel(a) }\nthread { acq(b); acq(a); rel(a); rel(b) }\n";
    let p = parse(src).unwrap();
    let runs = ground_truth(&p, &Config::default(), None).unwrap();
    let s = runs[0].executions;
    assert!(s.deadlocked > 0 && s.terminated > 0, "{s:?}");
    let p = parse("dialect bfj\ninit { n = null }\nthread { x = n.f }\n").unwrap();
    let runs = ground_truth(&p, &Config::default(), None).unwrap();
    assert_eq!(runs[0].executions.stuck, 1);
    assert_eq!(runs[0].problems, vec!["stuck: T1 at line 3: `n` is null, not an object"]);
    // Arithmetic and ranges that cannot be carried out are faults, never panics.
    for (src, why) in [
        ("dialect bfj\nthread { x = 0 - 9223372036854775807; x = x - 1; m = 0 - 1; y = x % m }\n", "integer overflow"),
        ("dialect bfj\ninit { a = new_array 4 }\nthread { check(R: a[0..4000000000]) }\n", "names more than 1024 elements"),
    ] {
        let runs = ground_truth(&parse(src).unwrap(), &Config::default(), None).unwrap();
        assert!(runs[0].problems[0].contains(why), "{:?}", runs[0].problems);
    }
}

type Trace = Vec<(u32, String)>;

fn traces(p: &race_oracles::lang::Program, eager: bool) -> (BTreeSet<Trace>, BTreeSet<String>, bool) {
    let cfg = Config { eager_local: eager, max_executions: 50_000, ..Config::default() };
    let m = Machine::new(p, cfg.loop_bound);
    let mut out = BTreeSet::new();
    let mut racy = BTreeSet::new();
    let stats = explore(&m, &cfg, |ex| {
        let names = Names::of(&m, ex.state);
        out.insert(ex.trace.iter().map(|e| (e.thread.0, racefuzz::render::event_text(&names, e.kind))).collect());
        for r in data_races(ex.trace) {
            racy.insert(ex.state.addr_name(&m, r.addr));
        }
    });
    (out, racy, stats.complete)
}

/// Eager local steps keep exactly the traces and races of the fully naive enumeration.
/// Counts what it compared, and fails on vacuity.
#[test]
fn eager_local_steps_keep_every_trace() {
    let (compared, racy) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
    crate::runner(64)
        .run(&threads_program(), |p| {
            let (a, ra, ca) = traces(&p, true);
            let (b, rb, cb) = traces(&p, false);
            if ca && cb {
                compared.set(compared.get() + 1);
                racy.set(racy.get() + usize::from(!ra.is_empty()));
                proptest::prop_assert_eq!(a, b, "{}", print(&p));
                proptest::prop_assert_eq!(ra, rb);
            }
            Ok(())
        })
        .unwrap();
    let (compared, racy) = (compared.get(), racy.get());
    assert!(compared >= 48 && racy >= 5 && racy < compared, "vacuous: {compared} programs compared, {racy} racy");
}

/// On racerdx programs (one global lock, two threads) both race definitions apply. Where
/// no path dereferences a field on the way (paths of one field), some state enables two
/// conflicting accesses (Def. 3.6) iff some execution has a happens-before race, on the
/// same addresses. With longer paths only one direction holds: every happens-before racy
/// address is Def. 3.6 racy, but not back, because resolving a path's prefix is not an
/// access (docs/spec/racerdx.md §2.1) and so not a trace event; see
/// `def36_race_hidden_from_happens_before_by_a_prefix`.
#[test]
fn def36_agrees_with_happens_before() {
    let cfg = Config { heap_bound: 2, max_executions: 20_000, ..Config::default() };
    for (max_path, equal) in [(1, true), (3, false)] {
        let knobs = RacerDxKnobs { max_methods: 2, max_stmts: 3, max_path, ..RacerDxKnobs::default() };
        let compared = std::cell::Cell::new(0usize);
        let racy = std::cell::Cell::new(0usize);
        crate::runner(48)
            .run(&racerdx_program(knobs), |p| {
                for r in ground_truth(&p, &cfg, None).unwrap() {
                    if r.executions.complete {
                        compared.set(compared.get() + 1);
                        racy.set(racy.get() + usize::from(r.racy));
                        if equal {
                            proptest::prop_assert_eq!(&r.racy_addresses, &r.hb_racy_addresses, "{}\n{}", r.setup, print(&p));
                        } else {
                            let extra: Vec<&String> = r.hb_racy_addresses.iter().filter(|a| !r.racy_addresses.contains(a)).collect();
                            proptest::prop_assert!(extra.is_empty(), "happens-before racy but not Def. 3.6 racy: {:?}\n{}\n{}", extra, r.setup, print(&p));
                        }
                    }
                }
                Ok(())
            })
            .unwrap();
        let (compared, racy) = (compared.get(), racy.get());
        assert!(compared > 40 && racy > 5 && racy < compared, "paths ≤ {max_path}: vacuous: {racy} racy of {compared}");
    }
}

/// The gap between the two definitions, pinned: both threads stand at `arg2.g.g.g = x`
/// with the same target l1.g (Def. 3.6 races there), but whichever writes first moves the
/// other's target, because the other's path runs through l1.g; that implicit dereference is
/// no access, so no execution has a happens-before race.
#[test]
fn def36_race_hidden_from_happens_before_by_a_prefix() {
    let p = parse("dialect racerdx\nmethod m(arg1, arg2) { x = new; arg2.g.g.g = x }\n").unwrap();
    let cfg = Config { heap_bound: 2, ..Config::default() };
    let runs = ground_truth(&p, &cfg, Some(("m", "m"))).unwrap();
    assert_eq!(runs.len(), 1);
    assert!(runs[0].executions.complete);
    assert_eq!(runs[0].racy_addresses, ["l1.g", "l2.g"]);
    assert!(runs[0].hb_racy_addresses.is_empty());
}

/// Every execution's schedule replays to the same trace and outcome.
#[test]
fn schedules_replay() {
    let src = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/corpus/paper/bigfoot/fig3_3_anticipation.race")).unwrap();
    let p = parse(&src).unwrap();
    let cfg = Config::default();
    let m = Machine::new(&p, cfg.loop_bound);
    let mut seen = vec![];
    explore(&m, &cfg, |ex| seen.push((Schedule(ex.schedule.to_vec()), ex.trace.to_vec(), ex.outcome.clone())));
    assert_eq!(seen.len(), 17);
    let replay = |s: &Schedule| {
        let mut got = None;
        cfg.explorer.get().replay(&m, m.initial_state().unwrap(), &cfg, s, false, &mut |ex| got = Some((ex.trace.to_vec(), ex.outcome.clone()))).map(|()| got)
    };
    for (s, trace, outcome) in seen {
        let text = s.to_string();
        let parsed: Schedule = text.parse().unwrap();
        assert_eq!(replay(&parsed).unwrap(), Some((trace, outcome)), "schedule {text}");
    }
    let err = replay(&"2,2,2,2,2".parse().unwrap()).unwrap_err();
    assert!(err.to_string().contains("diverges at position"), "{err}");
    // A schedule that stops early is an error without prefix completion.
    let err = replay(&"1".parse().unwrap()).unwrap_err();
    assert!(err.to_string().contains("schedule ends after 1 choices"), "{err}");
}

/// The stateful explorer against the naive one (docs/design.md principle 1): on
/// generated racerdx programs, every method pair gets the same Def. 3.6 racy addresses and
/// the same stuck and deadlocked outcomes, and every witness it prints replays to a racing
/// state. On thread programs the two reach the same outcomes. Counts what it compared.
#[test]
fn stateful_agrees_with_naive() {
    use race_oracles::explore::ExplorerKind;
    let naive = Config { heap_bound: 2, max_executions: 20_000, ..Config::default() };
    let stateful = Config { explorer: ExplorerKind::Stateful, ..naive };
    let (compared, racy, merged) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize), std::cell::Cell::new(0u64));
    let knobs = RacerDxKnobs { max_methods: 2, max_stmts: 5, ..RacerDxKnobs::default() };
    crate::runner(64)
        .run(&racerdx_program(knobs), |p| {
            let a = ground_truth(&p, &naive, None).unwrap();
            let b = ground_truth(&p, &stateful, None).unwrap();
            for (x, y) in a.iter().zip(&b) {
                if x.executions.complete {
                    proptest::prop_assert!(y.executions.complete, "stateful incomplete where naive is complete: {}\n{}", x.setup, print(&p));
                    proptest::prop_assert_eq!(&x.racy_addresses, &y.racy_addresses, "{}\n{}", x.setup, print(&p));
                    proptest::prop_assert_eq!(&x.problems, &y.problems, "{}\n{}", x.setup, print(&p));
                    proptest::prop_assert!(y.executions.executions <= x.executions.executions);
                    compared.set(compared.get() + 1);
                    racy.set(racy.get() + usize::from(x.racy));
                    merged.set(merged.get() + y.executions.merged);
                }
            }
            Ok(())
        })
        .unwrap();
    crate::runner(48)
        .run(&threads_program(), |p| {
            let a = ground_truth(&p, &Config::default(), None).unwrap();
            let b = ground_truth(&p, &Config { explorer: ExplorerKind::Stateful, ..Config::default() }, None).unwrap();
            if a[0].executions.complete && b[0].executions.complete {
                proptest::prop_assert_eq!(&a[0].problems, &b[0].problems, "{}", print(&p));
                compared.set(compared.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    let (compared, racy, merged) = (compared.get(), racy.get(), merged.get());
    assert!(compared > 100 && racy > 10 && racy < compared && merged > 0, "vacuous: {racy} racy of {compared} compared, {merged} merged paths");
}

/// Mazurkiewicz classes (`explore::classes`): two threads writing four distinct fields
/// each interleave C(8,4) = 70 ways, all one class; two threads with two critical sections
/// each on one lock have C(4,2) = 6 lock orders, and the naive explorer (local steps eager)
/// runs exactly one execution per class.
#[test]
fn golden_class_counts() {
    let count = |src: &str| {
        let runs = ground_truth(&parse(src).unwrap(), &Config::default(), None).unwrap();
        (runs[0].executions.executions, runs[0].classes)
    };
    let fields = "dialect bfj\nclass C { fields a, b, c, d, e, f, g, h }\ninit { o = new C }\nthread { o.a = 1; o.b = 1; o.c = 1; o.d = 1 }\nthread { o.e = 1; o.f = 1; o.g = 1; o.h = 1 }\n";
    assert_eq!(count(fields), (70, Some(1)));
    let inc = "acq(o); t = o.a; o.a = t + 1; rel(o)";
    let locks = format!("dialect bfj\nclass C {{ fields a }}\ninit {{ o = new C }}\nthread {{ {inc}; {inc} }}\nthread {{ {inc}; {inc} }}\n");
    assert_eq!(count(&locks), (6, Some(6)));
    // The same writes to one field: every order is its own class.
    let same = "dialect bfj\nclass C { fields a }\ninit { o = new C }\nthread { o.a = 1; o.a = 2 }\nthread { o.a = 3; o.a = 4 }\n";
    assert_eq!(count(same), (6, Some(6)));
    // The stateful explorer cuts traces, so it counts no classes.
    let stateful = Config { explorer: race_oracles::explore::ExplorerKind::Stateful, ..Config::default() };
    assert_eq!(ground_truth(&parse(fields).unwrap(), &stateful, None).unwrap()[0].classes, None);
}

/// A regression a campaign found (`tests/regress/dpor_choice_after_access.race`): a choice
/// right after a shared access, with a third thread racing on what one alternative touches.
/// 6 classes (2 orders on `a`, times T2 skipping or writing `b` before or after T3); DPOR
/// ran 8 executions, two classes twice. Now one execution per class, the naive
/// enumeration's classes.
#[test]
fn dpor_runs_each_class_once_after_a_choice_next_to_a_shared_access() {
    use race_oracles::explore::classes::class_key;
    use race_oracles::explore::ExplorerKind;
    let p = parse("dialect bfj\nclass C { fields f }\ninit { a = new C; b = new C }\nthread { a.f = 1 }\nthread { a.f = 0; if * { b.f = 3 } }\nthread { b.f = 2 }\n").unwrap();
    let m = Machine::new(&p, 2);
    let classes = |explorer: ExplorerKind| {
        let mut keys = BTreeSet::new();
        let stats = explore(&m, &Config { explorer, ..Config::default() }, |ex| {
            keys.insert(class_key(&m, ex));
        });
        assert!(stats.complete);
        (stats.executions, keys)
    };
    let (executions, dpor) = classes(ExplorerKind::Dpor);
    assert_eq!(dpor, classes(ExplorerKind::Naive).1, "DPOR misses or invents a class");
    assert_eq!((executions, dpor.len()), (6, 6));
}

/// Skipping dead loads (`machine::liveness`) keeps every Def. 3.6 race as (thread, kind,
/// site) sides, and every race it finds translates into a replayable schedule of the plain
/// machine (`replay_filling_heap`) that reaches the same racing pair. Stateful search on
/// both machines, generated racerdx pairs; counts what it compared.
#[test]
fn skipping_dead_loads_keeps_the_race_sides() {
    use race_oracles::explore::{replay_filling_heap, ExplorerKind, Schedule};
    use race_oracles::race::def36::{self, EnabledAccess};
    type Side = (race_oracles::machine::ThreadId, race_oracles::lang::AccessKind, Vec<u32>);
    let cfg = Config { heap_bound: 2, max_executions: 50_000, explorer: ExplorerKind::Stateful, state_predicate: Some(def36::enabled_pairs), ..Config::default() };
    let (compared, racy, translated) = (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
    let knobs = RacerDxKnobs { max_methods: 2, max_stmts: 5, ..RacerDxKnobs::default() };
    crate::runner(40)
        .run(&racerdx_program(knobs), |p| {
            let plain = Machine::new(&p, cfg.loop_bound);
            let fast = Machine::new(&p, cfg.loop_bound).skipping_dead_loads();
            let names: Vec<&str> = p.methods.iter().map(|m| m.name.as_ref()).collect();
            for (i, a) in names.iter().enumerate() {
                for b in &names[i..] {
                    let sides = |m: &Machine<'_>, schedules: &mut Vec<(Schedule, [Side; 2])>| {
                        let mut out = BTreeSet::new();
                        let init = m.method_threads(&[a, b], vec![], &[]).unwrap();
                        let s = cfg.explorer.get().explore(m, init, &cfg, &mut |ex: &Execution<'_, '_>| {
                            for d in ex.state_races {
                                let key = d.pair.0.clone().map(|EnabledAccess { thread, kind, site, .. }| (thread, kind, site));
                                if out.insert(key.clone()) {
                                    schedules.push((Schedule(ex.schedule[..d.choices].to_vec()), key));
                                }
                            }
                            ControlFlow::Continue(())
                        });
                        (out, s.complete)
                    };
                    let (want, c1) = sides(&plain, &mut vec![]);
                    let mut found = vec![];
                    let (got, c2) = sides(&fast, &mut found);
                    if !(c1 && c2) {
                        continue;
                    }
                    proptest::prop_assert_eq!(&want, &got, "{} ∥ {}\n{}", a, b, print(&p));
                    for (schedule, key) in found {
                        let init = plain.method_threads(&[a, b], vec![], &[]).unwrap();
                        let r = replay_filling_heap(&plain, &fast, init, &cfg, &schedule).unwrap();
                        let again = def36::enabled_pairs(&plain, &r.state).into_iter().any(|pr| pr.0.map(|EnabledAccess { thread, kind, site, .. }| (thread, kind, site)) == key);
                        proptest::prop_assert!(again, "{} ∥ {}: schedule {} does not reach the race on the plain machine\n{}", a, b, schedule, print(&p));
                        translated.set(translated.get() + 1);
                    }
                    compared.set(compared.get() + 1);
                    racy.set(racy.get() + usize::from(!want.is_empty()));
                }
            }
            Ok(())
        })
        .unwrap();
    let (compared, racy, translated) = (compared.get(), racy.get(), translated.get());
    assert!(compared > 80 && racy > 15 && translated >= racy, "vacuous: {racy} racy of {compared} pairs, {translated} schedules translated");
}

/// Optimal DPOR and stateful search against the naive explorer on generated thread
/// programs (`gen::threads`): the same Mazurkiewicz classes, exactly one DPOR execution per
/// class, the same happens-before racy addresses, and the same final states and outcomes
/// (stuck, deadlocked) for both. Counts what it compared.
#[test]
fn dpor_agrees_with_naive() {
    use race_oracles::explore::classes::{class_key, final_state};
    use race_oracles::explore::ExplorerKind;
    use race_oracles::lang::Relax;
    let naive = Config::default();
    let (compared, racy, reduced, deadlocks, optimal) =
        (std::cell::Cell::new(0usize), std::cell::Cell::new(0usize), std::cell::Cell::new(0usize), std::cell::Cell::new(0usize), std::cell::Cell::new(0usize));
    use proptest::strategy::Strategy;
    let programs = proptest::collection::vec(proptest::num::u8::ANY, 0..64).prop_map(|b| race_oracles::gen::threads::swarm(&b, Relax::default()));
    crate::runner(300)
        .run(&programs, |p| {
            let m = Machine::new(&p, naive.loop_bound);
            let run = |e: ExplorerKind| {
                let (mut keys, mut finals, mut hb) = (vec![], BTreeSet::new(), BTreeSet::new());
                let stats = explore(&m, &Config { explorer: e, ..naive }, |ex| {
                    keys.push(class_key(&m, ex));
                    if *ex.outcome != race_oracles::explore::Outcome::Merged {
                        finals.insert(final_state(&m, ex));
                    }
                    hb.extend(data_races(ex.trace).iter().map(|r| ex.state.addr_name(&m, r.addr)));
                });
                (keys, finals, hb, stats)
            };
            let (a, fa, ha, sa) = run(ExplorerKind::Naive);
            let (b, fb, hb, sb) = run(ExplorerKind::Dpor);
            let (_, fs, _, ss) = run(ExplorerKind::Stateful);
            let a_set: BTreeSet<u64> = a.iter().copied().collect();
            let b_set: BTreeSet<u64> = b.iter().copied().collect();
            proptest::prop_assert!(sa.complete && sb.complete && ss.complete, "{}", print(&p));
            proptest::prop_assert_eq!(&a_set, &b_set, "classes differ\n{}", print(&p));
            // Classes are read off events; a path's prefix read is no event, so with paths DPOR
            // may run two executions that only such a read tells apart.
            if !p.reads_silently() {
                proptest::prop_assert_eq!(b.len(), b_set.len(), "DPOR ran a class twice\n{}", print(&p));
                optimal.set(optimal.get() + 1);
            }
            proptest::prop_assert_eq!(&ha, &hb, "racy addresses\n{}", print(&p));
            proptest::prop_assert_eq!(&fa, &fb, "DPOR final states\n{}", print(&p));
            proptest::prop_assert_eq!(&fa, &fs, "stateful final states\n{}", print(&p));
            compared.set(compared.get() + 1);
            racy.set(racy.get() + usize::from(!ha.is_empty()));
            reduced.set(reduced.get() + usize::from(b.len() < a.len()));
            deadlocks.set(deadlocks.get() + usize::from(sa.deadlocked > 0));
            Ok(())
        })
        .unwrap();
    let (compared, racy, reduced, deadlocks, optimal) = (compared.get(), racy.get(), reduced.get(), deadlocks.get(), optimal.get());
    eprintln!("dpor: {compared} compared, {racy} racy, {reduced} reduced, {deadlocks} with deadlocks, {optimal} checked for optimality");
    assert!(
        compared >= 250 && racy > 50 && reduced > 100 && deadlocks > 3 && optimal > 100,
        "vacuous: {compared} compared, {racy} racy, {reduced} reduced, {deadlocks} with deadlocks, {optimal} optimal"
    );
}

/// Every explorer honours `Config::deadline`: with a deadline already passed, a search that
/// would run 2,000+ executions (and as many states) stops early and says it is incomplete,
/// so a campaign's time budget cuts a long program instead of waiting for it. The ground
/// truth's other engines (`reach`, used by the instrumented and L-DRF semantics) have the
/// same test next to them.
#[test]
fn every_explorer_honours_the_deadline() {
    use race_oracles::explore::ExplorerKind;
    // Three threads writing one field: every order of the writes is its own class.
    let p = parse(
        "dialect bfj\nclass C { fields f }\ninit { o = new C }\nthread { o.f = 1; o.f = 2; o.f = 3 }\nthread { o.f = 4; o.f = 5; o.f = 6 }\nthread { o.f = 7; o.f = 8; o.f = 9 }\n",
    )
    .unwrap();
    let m = Machine::new(&p, 2);
    let full = explore(&m, &Config::default(), |_| ());
    assert!(full.complete && full.executions > 1000, "vacuous: {} executions", full.executions);
    let past = std::time::Instant::now().checked_sub(std::time::Duration::from_secs(1));
    for kind in [ExplorerKind::Naive, ExplorerKind::Stateful, ExplorerKind::Dpor] {
        let cfg = Config { explorer: kind, deadline: past, ..Config::default() };
        let s = explore(&m, &cfg, |_| ());
        assert!(!s.complete, "{kind:?} ran past a passed deadline to the end ({} executions)", s.executions);
    }
}
