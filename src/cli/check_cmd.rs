//! `racefuzz analyze`, `racefuzz check`, `racefuzz mutants`.

use std::path::Path;

use race_oracles::theorems::racerdx_complete;
use race_oracles::theorems::racerdx_tp::{self, ReportOutcome, TpConfig};
use race_oracles::theorems::{StaticRaceAnalysis, Verdict};

use super::{emit, load, BoundArgs, CliError};
use crate::analyses::racerdx::{summaries_text, Options, RacerDx};
use crate::mutants::{self, MUTANTS};
use crate::outln;

/// The static analyses `analyze` can run.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum AnalysisName {
    /// RacerDX (stability filter).
    Racerdx,
    /// RacerD-like (no stability filter).
    Racerd,
}

/// The oracles `check` can run.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OracleName {
    /// Every RacerDX report is a true race (Theorem 6.10).
    RacerdxTp,
    /// RacerDX summaries equal α of the bounded syntactic traces (Theorem 5.15).
    RacerdxComplete,
}

fn analysis(name: AnalysisName, mutant: Option<&str>) -> Result<(RacerDx, race_oracles::lang::Relax), CliError> {
    let (mut opts, relax) = super::mutant_options(mutant)?;
    if matches!(name, AnalysisName::Racerd) {
        opts = Options { stability: false, ..opts };
    }
    Ok((RacerDx::new(opts), relax))
}

pub(super) fn analyze(name: AnalysisName, file: &Path, mutant: Option<&str>, json: bool) -> Result<u8, CliError> {
    let (_, prog) = load(file)?;
    if prog.dialect != race_oracles::lang::Dialect::RacerDx {
        return Err(CliError::input(format!("error: {} analyzes racerdx programs; {} is {}", StaticRaceAnalysis::name(&RacerDx::default()), file.display(), prog.dialect)));
    }
    let (a, _) = analysis(name, mutant)?;
    let reports = a.reports(&prog);
    if json {
        let sums: serde_json::Map<String, serde_json::Value> =
            prog.methods.iter().filter_map(|m| a.summary(&prog, &m.name).map(|s| (m.name.clone(), serde_json::json!({ "text": s.to_string(), "summary": s })))).collect();
        let v = serde_json::json!({ "analysis": a.name(), "lock_bound": a.lock_bound(&prog), "mutant": mutant, "summaries": sums, "reports": reports });
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(0);
    }
    outln!("{} on {} (L̂ = {}{})", a.name(), file.display(), a.lock_bound(&prog), mutant.map(|m| format!(", mutant {m}")).unwrap_or_default());
    emit(&summaries_text(&a, &prog));
    outln!("{} report(s)", reports.len());
    for r in &reports {
        outln!("  {r}");
    }
    Ok(0)
}

fn code(v: Verdict) -> u8 {
    match v {
        Verdict::Pass => 0,
        Verdict::Fail => 1,
        Verdict::Inconclusive => 3,
    }
}

pub(super) fn check(oracle: OracleName, file: &Path, mutant: Option<&str>, json: bool, bounds: &BoundArgs) -> Result<u8, CliError> {
    let (a, relax) = analysis(AnalysisName::Racerdx, mutant)?;
    // A file may declare that it breaks an assumption (`// outside:`) so that it loads; the
    // oracle still checks the theorem's hypotheses unless the mutant relaxes them, so such
    // a file is inconclusive for the real analysis.
    let (_, prog) = super::load_with(file, relax)?;
    let name = match oracle {
        OracleName::RacerdxTp => "racerdx-tp",
        OracleName::RacerdxComplete => "racerdx-complete",
    };
    let who = format!("{}{}", a.name(), mutant.map(|m| format!(" (mutant {m})")).unwrap_or_default());
    if oracle == OracleName::RacerdxComplete {
        // Under A2 one unrolling of each loop realizes every contribution (spec §4.1), so α
        // unrolls 0 or 1 times whatever --loop-bound says.
        let r = racerdx_complete::check(&prog, &a, 1, relax);
        if json {
            outln!("{}", serde_json::to_string_pretty(&serde_json::json!({ "oracle": name, "analysis": who, "result": r, "verdict": r.verdict })).unwrap_or_default());
        } else {
            outln!("{name} on {} with {who}: {}", file.display(), verdict_text(r.verdict));
            if let Some(n) = &r.note {
                outln!("  {n}");
            }
            for c in &r.methods {
                let mark = if c.equal { "=" } else { "≠" };
                outln!("  {}: analysis {}\n  {} α        {}", c.method, c.analysis, mark, c.alpha);
            }
        }
        return Ok(code(r.verdict));
    }
    let cfg = TpConfig { explore: race_oracles::explore::Config { def36: true, ..bounds.config() }, relax };
    let r = racerdx_tp::check(&prog, &a, &cfg);
    if json {
        let reports: Vec<serde_json::Value> = r.reports.iter().map(|(rep, o)| serde_json::json!({ "report": rep, "text": rep.to_string(), "outcome": o })).collect();
        let v = serde_json::json!({ "oracle": name, "analysis": who, "verdict": r.verdict, "precondition": r.precondition, "reports": reports, "summaries": summaries_text(&a, &prog) });
        outln!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(code(r.verdict));
    }
    outln!("{name} on {} with {who}: {} ({} report(s))", file.display(), verdict_text(r.verdict), r.reports.len());
    if let Some(pre) = &r.precondition {
        outln!("  precondition unmet: {pre}");
    }
    for (i, (rep, o)) in r.reports.iter().enumerate() {
        outln!("\nreport {}: {rep}", i + 1);
        match o {
            ReportOutcome::Confirmed { how, witness } => {
                outln!("  true positive, {how}");
                emit(&crate::render::witness(witness));
            }
            ReportOutcome::Refuted { reason } => outln!("  FALSE POSITIVE: {reason}"),
            ReportOutcome::Unknown { reason } => outln!("  unknown: {reason}"),
        }
    }
    if r.verdict == Verdict::Fail {
        outln!("\nsummaries:");
        emit(&summaries_text(&a, &prog));
    }
    Ok(code(r.verdict))
}

fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "PASS",
        Verdict::Fail => "FAIL",
        Verdict::Inconclusive => "INCONCLUSIVE",
    }
}

pub(super) fn list(json: bool) -> Result<u8, CliError> {
    if json {
        outln!("{}", serde_json::to_string_pretty(MUTANTS).unwrap_or_default());
        return Ok(0);
    }
    outln!("{:<30} {:<17} {:<15} {:<17} description", "mutant", "oracle", "racerdx-tp", "racerdx-complete");
    for m in MUTANTS {
        let p = |x: mutants::Prediction| serde_json::to_value(x).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default();
        outln!("{:<30} {:<17} {:<15} {:<17} {} [{}]", m.name, m.oracle, p(m.predicted[0]), p(m.predicted[1]), m.description, m.spec);
    }
    Ok(0)
}
