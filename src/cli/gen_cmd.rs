//! `racefuzz gen` (generated programs and their statistics) and `racefuzz bench-mutants`
//! (the fuzzer's power, measured: time to the first counterexample of each mutant).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use race_oracles::explore::{Config, ExplorerKind};
use race_oracles::gen::grammar::{Coverage, FLOOR_PERCENT};
use race_oracles::gen::shrink::{counts, shrink};
use race_oracles::gen::{naikaiken, threads};
use race_oracles::lang::{parse, print, walk_block, Block, Dialect, Place, Program, Relax, StmtKind};
use race_oracles::race::limits::Limit;
use race_oracles::theorems::{Oracle, Registry, Verdict};
use race_oracles::truth::ground_truth;
use rand::rngs::StdRng;
use rand::SeedableRng;

use super::shared::{emit, CliError, Exit};
use crate::campaign::{self, Counters, Settings};
use crate::mutants::MUTANTS;
use crate::outln;
use crate::seeded::Prediction;
use crate::suts::{self, Subject};
use crate::{render, rule_coverage};

/// The generator `gen` runs: an oracle's by id, or the first oracle's of a dialect.
fn generator(name: &str) -> Result<(Oracle, Subject), CliError> {
    let reg = Registry::builtin();
    if let Some(o) = reg.find(name).or_else(|| reg.all().iter().find(|o| o.dialect.name() == name)).copied() {
        let subject = Subject::for_oracle(&o, None).map_err(CliError::internal)?;
        return Ok((o, subject));
    }
    let mut known: Vec<String> = reg.ids().into_iter().map(str::to_string).collect();
    known.extend(reg.all().iter().map(|o| o.dialect.name().to_string()));
    known.sort();
    known.dedup();
    Err(CliError::input(format!("error: no generator `{name}` (known: {})", known.join(", "))))
}

#[derive(Default)]
struct Tally {
    methods: Vec<usize>,
    stmts: Vec<usize>,
    path_len: Vec<usize>,
    racy: usize,
    race_free: usize,
    incomplete: usize,
    /// Naik-Aiken programs: their syntactic shapes.
    shapes: Vec<naikaiken::Shape>,
}

impl Tally {
    /// Counts a program's ground truth ([`truth`]).
    fn count_truth(&mut self, racy: Option<bool>) {
        match racy {
            Some(true) => self.racy += 1,
            Some(false) => self.race_free += 1,
            None => self.incomplete += 1,
        }
    }
}

/// Prints generated program `i` of the run seeded with `seed`.
fn print_program(i: usize, seed: u64, p: &Program) {
    outln!("// program {i} (seed {seed})");
    emit(&print(p));
    outln!();
}

fn describe(v: &[usize]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    let mut s = v.to_vec();
    s.sort_unstable();
    let mean = s.iter().sum::<usize>() as f64 / s.len() as f64;
    format!("mean {mean:.2}, median {}, max {}", s[s.len() / 2], s[s.len() - 1])
}

/// The ground truth of a generated program: `Some(racy)`, or `None` when the search was
/// incomplete.
fn truth(p: &Program, cfg: &Config) -> Option<bool> {
    match ground_truth(p, cfg, None) {
        Ok(runs) if runs.iter().any(|r| r.racy) => Some(true),
        Ok(runs) if runs.iter().all(|r| r.executions.complete) => Some(false),
        _ => None,
    }
}

pub(super) fn gen(name: &str, count: usize, seed: u64, stats: bool, status_interval: &str) -> Result<Exit, CliError> {
    // The generators aimed at detector limits report the limit shapes their traces reach;
    // `atomics` is `fasttrack-precise-atomics`'s, whose stats are an oracle's.
    let limits =
        <crate::score::Generator as clap::ValueEnum>::from_str(name, false).ok().filter(|g| matches!(g, crate::score::Generator::Histories | crate::score::Generator::Limits));
    if let Some((name, generate)) = limits.and_then(crate::score::Generator::programs) {
        return limit_stats(name, generate, count, seed, stats);
    }
    let mut status_clock = super::shared::StatusClock::new(status_interval)?;
    let (o, subject) = generator(name)?;
    let mut rng = StdRng::seed_from_u64(seed);
    let mut t = Tally::default();
    let grammar = o.grammar;
    let mut cov = Coverage::new(grammar);
    let mut rules = race_oracles::theorems::rules::Tally::default();
    // The ground truth of a generated program: does some pair of its methods race (Def. 3.6)?
    let cfg = Config { heap_bound: 2, max_executions: 20_000, ..Config::default() };
    // The statistics explore every program: a bar on a terminal, a status line on stderr
    // every --status-interval otherwise.
    let bar = if stats { ProgressBar::new(count as u64) } else { ProgressBar::hidden() };
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} programs {msg}").unwrap_or_else(|_| ProgressStyle::default_bar()).progress_chars("=> "));
    let start = Instant::now();
    for i in 0..count {
        let p = campaign::generate(&o, &subject, &mut rng);
        if !stats {
            print_program(i, seed, &p);
            continue;
        }
        tally(&p, &mut t);
        cov.add(grammar, &p);
        rules.add(&rule_coverage::observe(&o, &subject, &p));
        t.count_truth(truth(&p, &cfg));
        let progress = format!("({} racy, {} race-free, {} incomplete)", t.racy, t.race_free, t.incomplete);
        bar.inc(1);
        if bar.is_hidden() && status_clock.due(start.elapsed()) {
            eprintln!("gen {name}: {}/{count} programs in {}s {progress}", i + 1, start.elapsed().as_secs());
        } else {
            bar.set_message(progress);
        }
    }
    bar.finish_and_clear();
    if stats {
        let dialect = o.dialect;
        outln!("{count} {dialect} programs from the {} generator (seed {seed}, swarm knobs per program)", o.id);
        if dialect != Dialect::NaikAiken {
            outln!("methods per program     {}", describe(&t.methods));
        }
        outln!("statements per program  {}", describe(&t.stmts));
        outln!("fields per access path  {}", describe(&t.path_len));
        if dialect == Dialect::NaikAiken {
            shape_stats(&t.shapes);
        }
        outln!("grammar coverage: programs using each production of the {dialect} grammar (floor {FLOOR_PERCENT}%)");
        for (prod, pct) in cov.percents() {
            let flag = if pct < FLOOR_PERCENT { "  BELOW FLOOR" } else { "" };
            outln!("  {:<36} {:>5.1}%  {}{flag}", prod.name, pct, prod.rule);
        }
        let judged = t.racy + t.race_free;
        let definition = match dialect {
            Dialect::RacerDx => "Def. 3.6, heaps ≤ 2 objects",
            Dialect::NaikAiken => "enabled conflicting pairs, spec/naik_aiken.md §4.2",
            Dialect::Ldrf => "E-STD, simultaneous enabledness, spec/ldrf.md §1.3",
            _ => "happens-before",
        };
        outln!(
            "ground truth ({definition}): {} racy, {} race-free, {} incomplete; racy fraction {:.1}%",
            t.racy,
            t.race_free,
            t.incomplete,
            100.0 * t.racy as f64 / judged.max(1) as f64
        );
        let (tables, unexercised) = suts::exercised_rules(subject.entry(), &o);
        emit(&render::rule_coverage(&rules.rows(&tables), &tables));
        for note in unexercised {
            outln!("{note}");
        }
    }
    Ok(Exit::Ok)
}

/// `racefuzz gen histories|limits`: the scorecard generators aimed at detector limits
/// (`racefuzz score --generator`), their programs, or with `stats` which limit shapes
/// (`race_oracles::race::limits`) the traces of each program reach, one trace per
/// Mazurkiewicz class as `score --classes` judges them.
fn limit_stats(name: &str, generate: fn(&[u8], Relax) -> Program, count: usize, seed: u64, stats: bool) -> Result<Exit, CliError> {
    let mut rng = StdRng::seed_from_u64(seed);
    let cfg = Config { explorer: ExplorerKind::Dpor, ..suts::campaign_bounds() };
    let (mut t, mut reached, mut cut) = (Tally::default(), BTreeMap::<Limit, usize>::new(), 0);
    for i in 0..count {
        let p = campaign::generate_with(generate, Relax::default(), &mut rng);
        if !stats {
            print_program(i, seed, &p);
            continue;
        }
        tally(&p, &mut t);
        let (shapes, complete) = threads::reached(&p, &cfg);
        cut += usize::from(!complete);
        for s in shapes {
            *reached.entry(s).or_default() += 1;
        }
        t.count_truth(truth(&p, &cfg));
    }
    if stats {
        outln!("{count} programs from the {name} generator (seed {seed}, swarm knobs per program)");
        outln!("statements per program  {}", describe(&t.stmts));
        outln!("detector-limit coverage: programs whose traces (one per Mazurkiewicz class) reach each shape (floor {FLOOR_PERCENT}%)");
        for l in Limit::ALL {
            let pct = 100.0 * reached.get(&l).copied().unwrap_or(0) as f64 / count.max(1) as f64;
            let flag = if pct < FLOOR_PERCENT { "  BELOW FLOOR" } else { "" };
            outln!("  {:<26} {:>5.1}%  {}{flag}", l.name(), pct, l.why());
        }
        outln!("explorations cut by the campaign bounds: {cut}");
        outln!(
            "ground truth (happens-before): {} racy, {} race-free, {} incomplete; racy fraction {:.1}%",
            t.racy,
            t.race_free,
            t.incomplete,
            100.0 * t.racy as f64 / (t.racy + t.race_free).max(1) as f64
        );
    }
    Ok(Exit::Ok)
}

/// The Naik-Aiken measures: forks, threads at run time, locks, and the shapes the
/// local-lock and local-thread stages prune.
fn shape_stats(shapes: &[naikaiken::Shape]) {
    let col = |f: fn(&naikaiken::Shape) -> usize| shapes.iter().map(f).collect::<Vec<usize>>();
    let share = |f: fn(&naikaiken::Shape) -> bool| 100.0 * shapes.iter().filter(|s| f(s)).count() as f64 / shapes.len().max(1) as f64;
    outln!("forks per program       {}", describe(&col(|s| s.forks)));
    outln!("threads at run time     {} (B = 2: a fork inside a loop counts twice)", describe(&col(|s| s.threads)));
    outln!("sync blocks per program {}", describe(&col(|s| s.syncs)));
    outln!("longest access path     {}", describe(&col(|s| s.max_path)));
    outln!("programs with a fork    {:.1}%", share(|s| s.forks > 0));
    outln!("with a fork in a loop   {:.1}%", share(|s| s.forks_in_loops > 0));
    outln!("with sync(x) {{ x.f.g }}  {:.1}%  (local-lock's shape)", share(|s| s.lock_prefix));
    outln!("with fork(t) {{ self.f.g }}\n                        {:.1}%  (local-thread's shape)", share(|s| s.self_prefix));
}

fn tally(p: &Program, t: &mut Tally) {
    let (stmts, methods) = counts(p);
    t.methods.push(methods);
    t.stmts.push(stmts);
    let mut bodies: Vec<&Block> = p.methods.iter().map(|m| &m.body).collect();
    if p.dialect == Dialect::NaikAiken {
        // Its one main thread holds the whole program.
        bodies.extend(p.threads.iter());
        t.shapes.push(naikaiken::shape(p));
    }
    for b in bodies {
        walk_block(b, &mut |s| match &s.kind {
            StmtKind::Load { src: Place::Field { fields, .. }, .. } | StmtKind::Store { dst: Place::Field { fields, .. }, .. } | StmtKind::Read(Place::Field { fields, .. }) => {
                t.path_len.push(fields.len())
            }
            _ => {}
        });
    }
}

pub(super) fn bench_mutants(time_per: &str, seed: u64) -> Result<Exit, CliError> {
    let per = crate::duration::parse(time_per).map_err(|e| CliError::input(format!("error: --time-per: {e}")))?;
    outln!("each mutant × oracle: one campaign of at most {}s (seed {seed}), stopped at the first counterexample, which is then shrunk", per.as_secs());
    outln!("{:<30} {:<17} {:<15} {:>10} {:>9}  {}", "mutant", "oracle", "predicted", "time", "programs", "shrunk to");
    let out = std::env::temp_dir().join(format!("racefuzz-bench-mutants-{}", std::process::id()));
    let reg = Registry::builtin();
    let mut missed = 0;
    for m in MUTANTS.iter() {
        for (id, predicted) in suts::predictions(m) {
            let o = *reg.find(id).ok_or_else(|| CliError::internal(format!("mutant {} predicts for unknown oracle {id}", m.name)))?;
            let start = Instant::now();
            let deadline = start.checked_add(per).ok_or_else(|| CliError::input("error: --time-per is too long"))?;
            let s = Settings {
                oracles: vec![o],
                deadline,
                seed,
                jobs: 1,
                spec: crate::sut_spec::SutSpec::Catalogued { sut: None, mutant: Some(m.name.to_string()), claim: None, all_traces: false },
                out: out.clone(),
                max_programs: None,
                keep: 1,
                stop_after: Some(1),
                shard: campaign::Shard::WHOLE,
                rules: false,
            };
            let counters = Counters::new(1);
            let stop = AtomicBool::new(false);
            let found = campaign::run(&s, &counters, &stop, |f| {
                if let Some(note) = f.page_note() {
                    eprintln!("{note}");
                }
                stop.store(true, Ordering::Relaxed);
            })
            .map_err(|e| super::shared::campaign_error(&e))?;
            let took = start.elapsed();
            let n = counters.programs.load(Ordering::Relaxed);
            let (time, shrunk) = match found.findings.first() {
                Some(f) => (format!("{:.2}s", took.as_secs_f64()), shrunk_size(f, &o, m.name)?),
                None => {
                    if predicted == Prediction::BreaksTheorem {
                        missed += 1;
                    }
                    (format!(">{}s", per.as_secs()), "not caught".to_string())
                }
            };
            outln!("{:<30} {:<17} {:<15} {:>10} {:>9}  {shrunk}", m.name, id, predicted.name(), time, n);
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    if missed > 0 {
        outln!("{missed} theorem-breaking mutant(s) not caught: raise --time-per");
    }
    Ok(if missed > 0 { Exit::Fail } else { Exit::Ok })
}

fn shrunk_size(f: &campaign::Finding, o: &Oracle, mutant: &str) -> Result<String, CliError> {
    let Some(p) = std::fs::read_to_string(&f.path).ok().and_then(|s| parse(&s).ok()) else { return Ok("?".into()) };
    let s = Subject::for_oracle(o, Some(mutant)).map_err(CliError::internal)?;
    let r = shrink(&p, s.relax(), 5_000, |q| suts::check(o, q, &s, suts::campaign_bounds()).verdict == Verdict::Fail);
    let (stmts, methods) = counts(&r.program);
    Ok(format!("{methods} method(s), {stmts} statement(s)"))
}
