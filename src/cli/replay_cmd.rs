//! `racefuzz replay FILE --schedule S`: reproduce one execution.

use std::path::Path;

use race_oracles::explore::{replay, Config, Schedule};
use race_oracles::lang::Dialect;
use race_oracles::machine::Machine;
use race_oracles::race::data_races;

use super::{load, parse_pair, BoundArgs, CliError};

pub(super) fn run(file: &Path, schedule: &str, pair: Option<&str>, json: bool, bounds: &BoundArgs) -> Result<u8, CliError> {
    let (_, prog) = load(file)?;
    let pair = parse_pair(&prog, pair)?;
    let sched: Schedule = schedule.parse().map_err(|e| CliError::input(format!("error: --schedule: {e}")))?;
    let racerdx = prog.dialect == Dialect::RacerDx;
    let cfg = Config { def36: racerdx, ..bounds.config() };
    let m = Machine::new(&prog, cfg.loop_bound);
    let (init, threads) = if racerdx {
        let (a, b) = pair.ok_or_else(|| CliError::input("error: replaying a racerdx program needs --pair m1,m2"))?;
        (m.method_threads(&[a, b], vec![], &[]), vec![format!("T1 ({a})"), format!("T2 ({b})")])
    } else {
        (m.initial_state(), (1..=prog.threads.len()).map(|i| format!("T{i}")).collect())
    };
    let init = init.map_err(|e| CliError::input(format!("error: {e}")))?;
    let out = replay(&m, init, &cfg, &sched, true, |ex| {
        let races = data_races(ex.trace);
        let racing: Vec<usize> = races.iter().flat_map(|r| [r.first.0 as usize, r.second.0 as usize]).collect();
        let events = race_oracles::explore::truth::rows(&m, ex.state, ex.trace, &racing);
        let mut race_addrs: Vec<String> = races.iter().map(|r| ex.state.addr_name(&m, r.addr)).collect();
        race_addrs.sort();
        race_addrs.dedup();
        let mut def36: Vec<String> = ex.def36.iter().map(|d| ex.state.addr_name(&m, d.pair[0].2)).collect();
        def36.sort();
        def36.dedup();
        let names: Vec<String> = ex.state.threads.iter().map(|t| t.name.clone()).collect();
        let full = Schedule(ex.schedule.to_vec()).to_string();
        (events, race_addrs, def36, ex.outcome.to_string(), full, names, ex.state.initial_facts.clone())
    });
    let (events, race_addrs, def36, outcome, full, names, facts) = out.map_err(|e| CliError::input(format!("error: {e}")))?;
    if json {
        let v = serde_json::json!({
            "schedule": full, "outcome": outcome, "initial_heap": facts,
            "events": events, "hb_racy_addresses": race_addrs, "def36_racy_addresses": def36,
        });
        crate::outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(0);
    }
    let mut cols = threads;
    cols.extend(names.into_iter().skip(cols.len()));
    let w = race_oracles::explore::Witness { schedule: full, threads: cols, initial_heap: facts, events, address: race_addrs.join(", "), definition: "happens-before".into() };
    crate::outln!("{} (dialect {})", file.display(), prog.dialect);
    crate::outln!("outcome: {outcome}");
    if race_addrs.is_empty() {
        crate::outln!("no happens-before race in this execution");
    } else {
        crate::outln!("happens-before races on: {} (racing accesses marked >>)", race_addrs.join(", "));
    }
    if racerdx {
        crate::outln!("Def. 3.6 races along this execution: {}", if def36.is_empty() { "none".into() } else { def36.join(", ") });
    }
    let text = crate::render::witness(&w);
    // The first line of a witness names one race; a replay shows all of them instead.
    super::emit(&text.lines().skip(1).map(|l| format!("{l}\n")).collect::<String>());
    Ok(0)
}
