//! `racefuzz replay FILE --schedule S`: reproduce one execution, through the configured
//! explorer (`race_oracles::truth::replay`).

use std::path::Path;

use race_oracles::explore::Schedule;
use race_oracles::truth::{replay, ReplayError};

use super::shared::{load, parse_pair, print_json, BoundArgs, CliError, Exit};

pub(super) fn run(file: &Path, schedule: &str, pair: Option<&str>, json: bool, bounds: &BoundArgs, pictures: &super::shared::PictureArgs) -> Result<Exit, CliError> {
    let (src, prog) = load(file)?;
    super::shared::on_machine(file, &prog)?;
    let pair = parse_pair(&prog, pair)?;
    let sched: Schedule = schedule.parse().map_err(|e| CliError::input(format!("error: --schedule: {e}")))?;
    let r = replay(&prog, &bounds.config(), pair, &sched).map_err(|e| match e {
        ReplayError::Internal => CliError::internal(e),
        e => CliError::input(format!("error: {e}")),
    })?;
    pictures.write(&format!("racefuzz replay {} --schedule {schedule}", file.display()), &r.witness, file, &src, &[])?;
    if json {
        print_json(&serde_json::json!({
            "schedule": r.witness.schedule.to_string(), "outcome": r.outcome, "initial_heap": r.witness.initial_heap,
            "witness": crate::render::witness_json(&r.witness), "hb_racy_addresses": r.hb_racy_addresses, "def36_racy_addresses": r.def36_racy_addresses,
        }))?;
        return Ok(Exit::Ok);
    }
    crate::outln!("{} (dialect {})", file.display(), prog.dialect);
    crate::outln!("outcome: {}", r.outcome);
    if r.hb_racy_addresses.is_empty() {
        crate::outln!("no happens-before race in this execution");
    } else {
        crate::outln!("happens-before races on: {} (racing accesses marked >>)", r.hb_racy_addresses.join(", "));
    }
    if let Some(d) = &r.def36_racy_addresses {
        crate::outln!("Def. 3.6 races along this execution: {}", if d.is_empty() { "none".into() } else { d.join(", ") });
    }
    super::shared::emit(&crate::render::witness_rows(&r.witness));
    Ok(Exit::Ok)
}
