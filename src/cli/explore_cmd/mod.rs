//! `racefuzz explore`: every execution of a program, its races and outcomes, with the
//! bounds it ran under; ldrf programs go to the L-DRF engines.

use std::path::{Path, PathBuf};

use clap::Args;

use race_oracles::explore::{Config, ExplorerKind, Property, Run};
use race_oracles::lang::{Dialect, Program};

mod ldrf;

use super::shared::{emit, ground_truth, load, on_machine, parse_pair, print_json, BoundArgs, CliError, Exit, PictureArgs};

#[derive(Args, Debug)]
pub(super) struct ExploreArgs {
    /// A `.race` file.
    file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// racerdx only: run just these two methods as the two threads (`m1,m2`).
    #[arg(long, value_name = "M1,M2")]
    pair: Option<String>,
    /// ldrf only: also show the thread-local semantics E-LDRF (docs/spec/ldrf.md §2): per
    /// location, the thread copies on the variables it accesses, with version ranks.
    #[arg(long)]
    ldrf: bool,
    /// ldrf only: also show the size of the cartesian semantics E-CART (§5.1) per mix.
    #[arg(long)]
    cart: bool,
    /// Pictures of the first racing execution (of the first run that races).
    #[command(flatten)]
    pictures: PictureArgs,
    #[command(flatten)]
    bounds: BoundArgs,
}

pub(super) fn explore(a: &ExploreArgs) -> Result<Exit, CliError> {
    let (src, prog) = load(&a.file)?;
    if prog.dialect == Dialect::Ldrf {
        if a.pictures.any() {
            return Err(CliError::input(format!("error: pictures are of machine executions; {} is an ldrf program (its races are in the text output)", a.file.display())));
        }
        parse_pair(&prog, a.pair.as_deref())?;
        return ldrf::explore(&a.file, &prog, &a.bounds.config(), &ldrf::View { json: a.json, ldrf: a.ldrf, cart: a.cart });
    }
    if a.ldrf || a.cart {
        return Err(CliError::input(format!("error: --ldrf and --cart apply to ldrf programs only; {} is {}", a.file.display(), prog.dialect)));
    }
    on_machine(&a.file, &prog)?;
    let pair = parse_pair(&prog, a.pair.as_deref())?;
    let racerdx = prog.dialect == Dialect::RacerDx;
    // What `explore` answers: Def. 3.6 races (a property of states) for racerdx pairs,
    // happens-before races (a property of classes) for thread programs, and outcomes.
    let asked = if racerdx { [Property::StateRaces, Property::Outcomes] } else { [Property::Classes, Property::Outcomes] };
    // Interleaving local steps too is a request for the plain enumeration.
    let named = a.bounds.explorer().or(a.bounds.all_interleavings.then_some(ExplorerKind::Naive));
    let cfg = Config { explorer: named.unwrap_or_else(|| ExplorerKind::fastest_for(&asked)), ..a.bounds.config() };
    if !asked.iter().all(|&p| cfg.explorer.preserves(p)) {
        return Err(CliError::input(format!(
            "error: the {} explorer cannot decide the races of a {} program (it does not preserve {}); use --naive, or leave the explorer out for the fastest one that can",
            cfg.explorer.name(),
            prog.dialect,
            if racerdx { "states" } else { "happens-before races" }
        )));
    }
    // Final states are shown only as data.
    let runs = ground_truth(&prog, &cfg, pair, a.json)?;
    let complete = runs.iter().all(|r| r.executions.complete);
    if a.json {
        print_json(&explore_json(&a.file, &prog, &cfg, &runs))?;
    } else {
        crate::outln!("{} (dialect {})", a.file.display(), prog.dialect);
        crate::outln!("{}", crate::render::bounds(&cfg, prog.dialect == Dialect::RacerDx));
        for r in &runs {
            crate::outln!();
            emit(&crate::render::run(r));
        }
    }
    if a.pictures.any() {
        match runs.iter().find_map(|r| r.witness.as_ref().map(|w| (r, w))) {
            None => eprintln!("no picture: no execution races"),
            Some((r, w)) => {
                let brief = format!("{}: races on {}", r.setup, r.racy_addresses.join(", "));
                a.pictures.write(&format!("racefuzz explore {}", a.file.display()), w, &a.file, &src, &[brief])?;
            }
        }
    }
    Ok(if complete { Exit::Ok } else { Exit::Inconclusive })
}

/// The `--json` document of `explore`: the totals at the top, each run below.
pub fn explore_json(file: &Path, prog: &Program, cfg: &Config, runs: &[Run]) -> serde_json::Value {
    let mut addrs: Vec<String> = runs.iter().flat_map(|r| r.racy_addresses.iter().cloned()).collect();
    addrs.sort();
    addrs.dedup();
    let total = |f: fn(&race_oracles::explore::Stats) -> u64| runs.iter().map(|r| f(&r.executions)).sum::<u64>();
    serde_json::json!({
        "program": file.display().to_string(),
        "dialect": prog.dialect,
        "bounds": cfg,
        "complete": runs.iter().all(|r| r.executions.complete),
        "executions": {
            "total": total(|s| s.executions),
            "terminated": total(|s| s.terminated),
            "stuck": total(|s| s.stuck),
            "deadlocked": total(|s| s.deadlocked),
            "infeasible": total(|s| s.infeasible),
            "truncated": total(|s| s.truncated),
        },
        "racy": runs.iter().any(|r| r.racy),
        "verdict": race_oracles::explore::RaceVerdict::combine(runs.iter().map(|r| r.verdict)),
        "racy_addresses": addrs,
        "witness": runs.iter().find_map(|r| r.witness.as_ref()).map(crate::render::witness_json),
        "runs": runs.iter().map(run_json).collect::<Vec<_>>(),
    })
}

fn run_json(r: &Run) -> serde_json::Value {
    serde_json::json!({
        "setup": r.setup, "threads": r.threads, "executions": r.executions, "racy": r.racy, "verdict": r.verdict,
        "racy_addresses": r.racy_addresses, "hb_racy_addresses": r.hb_racy_addresses,
        "problems": r.problems, "final_states": r.final_states, "witness": r.witness.as_ref().map(crate::render::witness_json),
    })
}
