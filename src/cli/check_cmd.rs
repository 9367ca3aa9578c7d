//! `racefuzz analyze`, `racefuzz check`, `racefuzz mutants`.

use std::path::Path;

use race_oracles::lang::Dialect;
use race_oracles::theorems::{summaries, Registry, StaticRaceAnalysis};

use super::shared::{catalogued, emit, load, load_with, oracle, print_json, subject, BoundArgs, CliError, DetectorArgs, Exit};
use crate::analyses::racerdx::{Options, RacerDx};
use crate::mutants::MUTANTS;
use crate::outln;
use crate::suts::{self, Subject};

/// The static analyses `analyze` can run.
#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum AnalysisName {
    /// RacerDX (stability filter).
    Racerdx,
    /// RacerD-like (no stability filter).
    Racerd,
    /// BigFoot's static check placement (bfj programs): prints the program with its checks.
    Bigfoot,
    /// Per-access check placement (bfj programs): prints the program with its checks.
    PerAccess,
    /// The partial-escape filter (simplejava programs): per event of one execution, whether
    /// it was filtered and why, and the races of α and β.
    Escape,
    /// The capsule filter (capjava programs), likewise.
    Capsule,
    /// Naik-Aiken's conditional must-not-alias analysis (naikaiken programs): Γ per point,
    /// K, K⁺, the DR_K facts and every conflicting pair's verdict.
    Naikaiken,
    /// The sync-CFG analyses (ldrf programs): each domain's facts at every location with
    /// relevant variables (on those variables only), and the asserts each proves.
    Ldrf,
}

/// `--operational` names an oracle's operational variant
/// ([`race_oracles::theorems::Oracle::operational`]:
/// `capsule-first-race-operational` for `capsule-first-race`, and for itself); any other
/// oracle with it is bad input.
pub(super) fn operational(oracle: &str) -> Result<String, CliError> {
    let reg = Registry::builtin();
    match reg.find(oracle).and_then(|o| o.operational) {
        Some(variant) => Ok(variant.into()),
        None => {
            let formal: Vec<&str> = reg.all().iter().filter(|o| o.operational.is_some_and(|v| v != o.id)).map(|o| o.id).collect();
            Err(CliError::input(format!("error: --operational applies to {} only, not {oracle}", formal.join(", "))))
        }
    }
}

/// The catalogued SUT `sut` with `mutant` applied (an unknown mutant is bad input).
fn named(sut: &str, mutant: Option<&str>) -> Result<Subject, CliError> {
    Subject::named(sut, mutant).ok_or_else(|| CliError::internal(format!("no SUT named {sut}")))?.map_err(|e| CliError::input(format!("error: {e}")))
}

pub(super) fn analyze(name: AnalysisName, file: &Path, mutant: Option<&str>, json: bool, schedule: Option<&str>, operational: bool) -> Result<Exit, CliError> {
    match name {
        AnalysisName::Bigfoot => return place("bigfoot", file, mutant, json),
        AnalysisName::PerAccess => return place("per-access", file, mutant, json),
        AnalysisName::Escape => return filter("escape", Dialect::SimpleJava, file, mutant, json, schedule, false),
        AnalysisName::Capsule => return filter("capsule", Dialect::CapJava, file, mutant, json, schedule, operational),
        AnalysisName::Naikaiken => return must_not_alias(file, mutant, json),
        AnalysisName::Ldrf => return sync_cfg(file, mutant, json),
        AnalysisName::Racerdx | AnalysisName::Racerd => {}
    }
    // Validates the mutant's name against the catalogue (bad input, exit 2).
    subject(&race_oracles::theorems::racerdx_tp::ORACLE, &catalogued(None, mutant)?)?;
    let (_, prog) = load(file)?;
    if prog.dialect != Dialect::RacerDx {
        return Err(CliError::input(format!("error: RacerDX analyzes racerdx programs; {} is {}", file.display(), prog.dialect)));
    }
    let (opts, _) = crate::analyses::racerdx::options(&mutant.map(|m| m.split('+').collect::<Vec<_>>()).unwrap_or_default())
        .ok_or_else(|| CliError::internal("a validated mutant is not a RacerDX mutant"))?;
    let a = RacerDx::new(if matches!(name, AnalysisName::Racerd) { Options { stability: false, ..opts } } else { opts });
    let reports = a.reports(&prog).map_err(|e| CliError::internal(format!("RacerDX gave no reports: {e}")))?;
    if json {
        let sums: serde_json::Map<String, serde_json::Value> =
            prog.methods.iter().filter_map(|m| a.summary(&prog, &m.name).map(|s| (m.name.clone(), serde_json::json!({ "text": s.to_string(), "summary": s })))).collect();
        let texts: Vec<String> = reports.iter().map(ToString::to_string).collect();
        print_json(
            &serde_json::json!({ "analysis": a.name(), "lock_bound": a.lock_bound(&prog), "mutant": mutant, "summaries": sums, "reports": reports, "report_texts": texts }),
        )?;
        return Ok(Exit::Ok);
    }
    outln!("{} on {} (L̂ = {}{})", a.name(), file.display(), a.lock_bound(&prog), mutant.map(|m| format!(", mutant {m}")).unwrap_or_default());
    for l in summaries(&a, &prog) {
        outln!("{l}");
    }
    outln!("{} report(s)", reports.len());
    for r in &reports {
        outln!("  {r}");
    }
    Ok(Exit::Ok)
}

/// Refuses a program with atomics for an analysis that does not model them yet
/// (docs/spec/atomics.md): bad input, naming the assumption, never a silent misjudgement.
fn no_atomics(sut: &str, file: &Path, prog: &race_oracles::lang::Program) -> Result<(), CliError> {
    if prog.has_atomics() {
        return Err(CliError::input(format!(
            "error: {}: atomics: {sut} does not model atomic operations and fences yet (docs/spec/atomics.md), so programs with them are refused",
            file.display()
        )));
    }
    Ok(())
}

/// A check placer's output: the program with its checks, placed afresh (checks already in
/// the file are dropped first; a construct the placer declines is bad input, naming its
/// line).
fn place(sut: &str, file: &Path, mutant: Option<&str>, json: bool) -> Result<Exit, CliError> {
    let s = named(sut, mutant)?;
    let (_, prog) = load(file)?;
    no_atomics(sut, file, &prog)?;
    if prog.dialect != Dialect::Bfj {
        return Err(CliError::input(format!("error: check placers take bfj programs; {} is {}", file.display(), prog.dialect)));
    }
    let race_oracles::theorems::Sut::Placer(placer, _) = s.sut() else { return Err(CliError::internal(format!("the SUT {sut} is not a check placer"))) };
    let placed = placer.place(&prog.without_checks()).map_err(|e| CliError::input(format!("error: {}:{}: {e}", file.display(), e.line)))?;
    let text = race_oracles::lang::print(&placed);
    if json {
        print_json(&serde_json::json!({ "placer": placer.name(), "mutant": mutant, "program": text }))?;
    } else {
        outln!("{} on {}{}", placer.name(), file.display(), mutant.map(|m| format!(" (mutant {m})")).unwrap_or_default());
        emit(&text);
    }
    Ok(Exit::Ok)
}

/// Naik-Aiken on one program: its typing, closure, DR facts and pruned pairs (a program
/// the analysis declines is bad input).
fn must_not_alias(file: &Path, mutant: Option<&str>, json: bool) -> Result<Exit, CliError> {
    let s = named("naikaiken", mutant)?;
    let (_, prog) = load_with(file, s.relax())?;
    if prog.dialect != Dialect::NaikAiken {
        return Err(CliError::input(format!("error: Naik-Aiken analyzes naikaiken programs; {} is {}", file.display(), prog.dialect)));
    }
    let a = s.must_not_alias().ok_or_else(|| CliError::internal("the SUT naikaiken is not a must-not-alias analysis"))?;
    let labels = race_oracles::lang::labels::Labels::of(&prog);
    let typing = a.analyze(&prog, &labels).map_err(|e| CliError::input(format!("error: {}: {e}", file.display())))?;
    if json {
        let sides: Vec<serde_json::Value> = labels
            .conflicting_pairs()
            .into_iter()
            .map(|(x, y)| {
                let text = |l| labels.access(l).map(ToString::to_string);
                let pruned = typing.pruned.iter().find(|p| p.pair == (x, y));
                serde_json::json!({ "pair": [x, y], "accesses": [text(x), text(y)], "pruned": pruned, "unlikely": typing.unlikely.contains(&(x, y)) })
            })
            .collect();
        print_json(
            &serde_json::json!({ "analysis": a.name(), "mutant": mutant, "counters": a.counters(), "loops": labels.loops, "sites": labels.sites, "typing": typing, "pairs": sides }),
        )?;
        return Ok(Exit::Ok);
    }
    outln!("{} on {}{}", a.name(), file.display(), mutant.map(|m| format!(" (mutant {m})")).unwrap_or_default());
    emit(&crate::render::naik_aiken(&labels, &typing));
    Ok(Exit::Ok)
}

/// The sync-CFG analyses on one program: facts per relevant location, proved asserts.
fn sync_cfg(file: &Path, mutant: Option<&str>, json: bool) -> Result<Exit, CliError> {
    let s = named("ldrf-analyses", mutant)?;
    let (_, prog) = load(file)?;
    if prog.dialect != Dialect::Ldrf {
        return Err(CliError::input(format!("error: the sync-CFG analyses take ldrf programs; {} is {}", file.display(), prog.dialect)));
    }
    let analyses = s.sync_cfg().ok_or_else(|| CliError::internal("the SUT ldrf-analyses is not a set of sync-CFG analyses"))?;
    let cfg = race_oracles::ldrf::cfg::Cfg::of(&prog, race_oracles::theorems::ldrf_agree::MODULUS);
    let facts: Vec<race_oracles::theorems::Facts> = analyses.iter().map(|a| a.analyze(&cfg)).collect();
    if json {
        let locations: Vec<serde_json::Value> = crate::render::sync_cfg_locations(&cfg)
            .into_iter()
            .map(|(n, name)| {
                let vars = cfg.relevant(n);
                let claims: serde_json::Map<String, serde_json::Value> = facts.iter().map(|f| (f.domain.clone(), serde_json::json!(f.show(&cfg, n, &vars)))).collect();
                let names: Vec<&str> = vars.iter().map(|&x| cfg.vars[x.index()].as_str()).collect();
                serde_json::json!({ "location": name, "node": n, "thread": cfg.owner[n.index()] + 1, "relevant": names, "claims": claims })
            })
            .collect();
        let proved: serde_json::Map<String, serde_json::Value> = facts
            .iter()
            .map(|f| {
                (f.domain.clone(), serde_json::json!(f.proved.iter().map(|&e| serde_json::json!({ "line": cfg.edge(e).line.0, "text": cfg.edge(e).text })).collect::<Vec<_>>()))
            })
            .collect();
        let mixes: serde_json::Map<String, serde_json::Value> = facts.iter().map(|f| (f.domain.clone(), serde_json::json!(f.mix))).collect();
        print_json(&serde_json::json!({ "analyses": "sync-CFG", "mutant": mutant, "modulus": cfg.modulus, "mix": mixes, "locations": locations, "proved": proved }))?;
        return Ok(Exit::Ok);
    }
    let regions: Vec<String> = cfg.regions.iter().filter(|r| r.len() > 1).map(|r| cfg.region_name(r)).collect();
    outln!(
        "sync-CFG analyses on {} (values mod {}, G full{}{})",
        file.display(),
        cfg.modulus,
        if regions.is_empty() { String::new() } else { format!(", regions {}", regions.join(" ")) },
        mutant.map(|m| format!(", mutant {m}")).unwrap_or_default()
    );
    emit(&crate::render::sync_cfg_facts(&cfg, &facts));
    Ok(Exit::Ok)
}

/// An access filter on one execution: a row per event (decision and reason), then the
/// first races and racy locations of α and β and the detector's first report on β.
fn filter(sut: &str, dialect: Dialect, file: &Path, mutant: Option<&str>, json: bool, schedule: Option<&str>, operational: bool) -> Result<Exit, CliError> {
    let s = named(sut, mutant)?;
    let (_, prog) = load(file)?;
    no_atomics(sut, file, &prog)?;
    if prog.dialect != dialect {
        return Err(CliError::input(format!("error: the {sut} filter takes {dialect} programs; {} is {}", file.display(), prog.dialect)));
    }
    let race_oracles::theorems::Sut::Filter(f, d) = s.sut() else { return Err(CliError::internal(format!("the SUT {sut} is not a filter"))) };
    let sched = schedule.map(|x| x.parse::<race_oracles::explore::Schedule>()).transpose().map_err(|e| CliError::input(format!("error: --schedule: {e}")))?;
    let t = race_oracles::theorems::trace_precision::filter_table(&prog, f, d, operational, &suts::campaign_bounds(), sched.as_ref())
        .map_err(|e| CliError::input(format!("error: {}: {e}", file.display())))?;
    if json {
        print_json(&serde_json::json!({ "filter": t.sut, "mutant": mutant, "operational": operational, "table": t }))?;
        return Ok(Exit::Ok);
    }
    outln!("{} on {}{}{}", t.sut, file.display(), mutant.map(|m| format!(" (mutant {m})")).unwrap_or_default(), if operational { ", operational" } else { "" });
    emit(&crate::render::filter_table(&t));
    Ok(Exit::Ok)
}

/// What `check` writes besides its result: JSON instead of text, a C reproducer of the
/// witness, pictures of it.
pub(super) struct Outputs<'a> {
    pub json: bool,
    pub reproducer: bool,
    pub pictures: &'a super::shared::PictureArgs,
}

pub(super) fn check(id: &str, file: &Path, sut: Option<&str>, mutant: Option<&str>, detector: &DetectorArgs, bounds: &BoundArgs, out: &Outputs<'_>) -> Result<Exit, CliError> {
    let Outputs { json, reproducer, pictures } = *out;
    let o = oracle(id)?;
    let s = subject(&o, &detector.spec(sut, mutant)?)?;
    // A file may declare that it breaks an assumption (`// outside:`) so that it loads; the
    // oracle still checks the theorem's hypotheses unless the mutant relaxes them, so such
    // a file is inconclusive for the real analysis.
    // A cargo-fuzz artifact (a crash, a slow unit, a timeout) is the generator's bytes, not
    // `.race` text: the program it stands for is printed first, since no file shows it.
    let artifact = file.extension().is_none_or(|e| e != "race");
    let (src, prog) = if artifact {
        let bytes = std::fs::read(file).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", file.display())))?;
        let p = super::shared::load_input(file, &bytes, &o, &s)?;
        if !json {
            outln!("// the program {}'s generator makes of {}:\n{}", o.id, file.display(), race_oracles::lang::print(&p));
        }
        (String::new(), p)
    } else {
        load_with(file, s.relax())?
    };
    if !o.dialect.contains(prog.dialect) {
        return Err(CliError::input(format!("error: {} judges {} programs; {} is {}", o.id, o.dialect, file.display(), prog.dialect)));
    }
    let r = suts::check(&o, &prog, &s, bounds.config());
    let name = file.display().to_string();
    if json {
        print_json(&crate::render::result_json(&r, &name))?;
    } else {
        emit(&crate::render::result_full(&r, &name));
    }
    // The first violated item's witness: what a reproducer replays and a picture draws
    // (a picture of a passing check draws the first witness there is).
    let violated = r.items.iter().filter(|i| i.status == race_oracles::theorems::ItemStatus::Violated).find_map(|i| i.witness.as_ref());
    if pictures.any() {
        match violated.or_else(|| r.items.iter().find_map(|i| i.witness.as_ref())) {
            None => eprintln!("no picture: no item of the result has a witness execution"),
            Some(w) => pictures.write(&format!("racefuzz check {} {}", r.oracle, name), w, file, &src, &crate::picture::verdict_lines(&r))?,
        }
    }
    if reproducer {
        match violated {
            None => eprintln!("no reproducer: no violated item has a witness execution"),
            Some(w) => {
                let stem = file.file_stem().map_or_else(|| "witness".into(), |s| s.to_string_lossy().into_owned());
                let path = Path::new(crate::campaign::DEFAULT_OUT).parent().unwrap_or(Path::new(".")).join("reproducers").join(format!("{stem}.c"));
                super::shared::write_reproducer(&prog, &src, file, &w.schedule.to_string(), &path, bounds)?;
            }
        }
    }
    Ok(Exit::of(r.verdict))
}

pub(super) fn list(json: bool) -> Result<Exit, CliError> {
    let reg = Registry::builtin();
    if json {
        let oracles: Vec<serde_json::Value> =
            reg.all().iter().map(|o| serde_json::json!({ "id": o.id, "claim": o.claim, "spec": o.spec, "dialect": o.dialect, "sut": o.sut })).collect();
        let mutants: Vec<serde_json::Value> = MUTANTS
            .iter()
            .map(|m| serde_json::json!({ "name": m.name, "sut": m.sut, "oracle": m.oracle, "description": m.description, "predicted": suts::predictions(m), "spec": m.spec }))
            .collect();
        print_json(&serde_json::json!({ "oracles": oracles, "mutants": mutants }))?;
        return Ok(Exit::Ok);
    }
    outln!("oracles:");
    for o in reg.all() {
        outln!("  {:<31} {} [{}]", o.id, o.claim, o.spec);
    }
    outln!("\nmutants (predictions per oracle):");
    for m in MUTANTS.iter() {
        let preds: Vec<String> = suts::predictions(m).iter().map(|(o, p)| format!("{o}: {}", p.name())).collect();
        outln!("  {:<30} {} [{}]\n  {:<30} {}", m.name, m.description, m.spec, "", preds.join(", "));
    }
    Ok(Exit::Ok)
}
