//! `racefuzz gen` (generated programs and their statistics) and `racefuzz bench-mutants`
//! (the fuzzer's power, measured: time to the first counterexample of each mutant).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rand::rngs::StdRng;
use rand::SeedableRng;
use race_oracles::explore::{ground_truth, Config};
use race_oracles::gen::shrink::{counts, shrink};
use race_oracles::lang::{parse, print, walk_block, Program, StmtKind};
use race_oracles::theorems::Verdict;

use super::fuzz_cmd::parse_duration;
use super::{emit, CliError};
use crate::campaign::{self, Counters, OracleId, Settings};
use crate::mutants::{self, Prediction, MUTANTS};
use crate::outln;

/// The dialects `gen` can generate.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum GenDialect {
    /// RacerDX's IL (the `racerdx-tp` and `racerdx-complete` generator).
    Racerdx,
}

#[derive(Default)]
struct Tally {
    methods: Vec<usize>,
    stmts: Vec<usize>,
    path_len: Vec<usize>,
    with: [usize; 5],
    racy: usize,
    race_free: usize,
    incomplete: usize,
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

pub(super) fn gen(_d: GenDialect, count: usize, seed: u64, stats: bool) -> Result<u8, CliError> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut t = Tally::default();
    // The ground truth of a generated program: does some pair of its methods race (Def. 3.6)?
    let cfg = Config { heap_bound: 2, max_executions: 20_000, ..Config::default() };
    for i in 0..count {
        let p = campaign::generate(&mut rng, Default::default());
        if !stats {
            outln!("// program {i} (seed {seed})");
            emit(&print(&p));
            outln!();
            continue;
        }
        tally(&p, &mut t);
        match ground_truth(&p, &cfg, None) {
            Ok(runs) if runs.iter().any(|r| r.racy) => t.racy += 1,
            Ok(runs) if runs.iter().all(|r| r.executions.complete) => t.race_free += 1,
            _ => t.incomplete += 1,
        }
    }
    if stats {
        outln!("{count} racerdx programs (seed {seed}, swarm knobs per program)");
        outln!("methods per program     {}", describe(&t.methods));
        outln!("statements per program  {}", describe(&t.stmts));
        outln!("fields per access path  {}", describe(&t.path_len));
        for (k, f) in ["lock", "call", "while *", "if *", "arg = new (destabilizing)"].iter().enumerate() {
            outln!("programs with {f:<26} {:>5.1}%", 100.0 * t.with[k] as f64 / count.max(1) as f64);
        }
        let judged = t.racy + t.race_free;
        outln!(
            "ground truth (Def. 3.6, heaps ≤ 2 objects): {} racy, {} race-free, {} incomplete; racy fraction {:.1}%",
            t.racy,
            t.race_free,
            t.incomplete,
            100.0 * t.racy as f64 / judged.max(1) as f64
        );
    }
    Ok(0)
}

fn tally(p: &Program, t: &mut Tally) {
    let (stmts, methods) = counts(p);
    t.methods.push(methods);
    t.stmts.push(stmts);
    let mut with = [false; 5];
    for m in &p.methods {
        walk_block(&m.body, &mut |s| match &s.kind {
            StmtKind::Lock => with[0] = true,
            StmtKind::Call { .. } => with[1] = true,
            StmtKind::While { .. } => with[2] = true,
            StmtKind::If { .. } => with[3] = true,
            StmtKind::New { dst, .. } if dst.starts_with("arg") => with[4] = true,
            StmtKind::Load { src: race_oracles::lang::Place::Field { fields, .. }, .. } | StmtKind::Store { dst: race_oracles::lang::Place::Field { fields, .. }, .. } => t.path_len.push(fields.len()),
            _ => {}
        });
    }
    for (k, w) in with.into_iter().enumerate() {
        t.with[k] += usize::from(w);
    }
}

pub(super) fn bench_mutants(time_per: &str, seed: u64) -> Result<u8, CliError> {
    let per = parse_duration(time_per).map_err(|e| CliError::input(format!("error: --time-per: {e}")))?;
    outln!("each mutant × oracle: one campaign of at most {}s (seed {seed}), stopped at the first counterexample, which is then shrunk", per.as_secs());
    outln!("{:<30} {:<17} {:<15} {:>10} {:>9}  {}", "mutant", "oracle", "predicted", "time", "programs", "shrunk to");
    let out = std::env::temp_dir().join(format!("racefuzz-bench-mutants-{}", std::process::id()));
    let mut missed = 0;
    for m in MUTANTS {
        for (i, oracle) in OracleId::ALL.iter().enumerate() {
            let s = Settings { oracles: vec![*oracle], time: per, seed, jobs: 1, mutant: Some(m.name.to_string()), out: out.clone(), max_programs: None };
            let counters = Counters::new(1);
            let stop = AtomicBool::new(false);
            let start = Instant::now();
            let found = campaign::run(&s, &counters, &stop, |_| stop.store(true, Ordering::Relaxed));
            let took = start.elapsed();
            let n = counters.programs.load(Ordering::Relaxed);
            let pred = serde_json::to_value(m.predicted[i]).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
            let (time, shrunk) = match found.first() {
                Some(f) => (format!("{:.2}s", took.as_secs_f64()), shrunk_size(f, *oracle, m.name)),
                None => {
                    if m.predicted[i] == Prediction::BreaksTheorem {
                        missed += 1;
                    }
                    (format!(">{}s", per.as_secs()), "not caught".to_string())
                }
            };
            outln!("{:<30} {:<17} {:<15} {:>10} {:>9}  {shrunk}", m.name, oracle.name(), pred, time, n);
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    if missed > 0 {
        outln!("{missed} theorem-breaking mutant(s) not caught: raise --time-per");
    }
    Ok(if missed > 0 { 1 } else { 0 })
}

fn shrunk_size(f: &campaign::Finding, oracle: OracleId, mutant: &str) -> String {
    let Some(p) = std::fs::read_to_string(&f.path).ok().and_then(|s| parse(&s).ok()) else { return "?".into() };
    let relax = mutants::racerdx(Some(mutant)).map(|x| x.1).unwrap_or_default();
    let r = shrink(&p, relax, 5_000, |q| campaign::check(oracle, q, Some(mutant)).verdict == Verdict::Fail);
    let (stmts, methods) = counts(&r.program);
    format!("{methods} method(s), {stmts} statement(s)")
}
