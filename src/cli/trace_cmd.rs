//! `racefuzz trace FILE`: a thread program's traces in STD (or JSON) for detectors outside
//! racefuzz, and `racefuzz races TRACE.std`: the happens-before races of an STD trace as
//! the ground truth sees them. The format is `crate::std_trace`'s.
//!
//! `trace` enumerates twice: the first pass collects every name, so that the
//! [`NameTable`] numbers them stably across the traces it writes; the second writes each
//! trace as it is visited, so a large enumeration is never held in memory. Both passes
//! run the same deterministic explorer with the same bounds; a trace of the second pass
//! that the table does not know is an internal bug.

use std::path::{Path, PathBuf};

use race_oracles::explore::{Config, ExplorerKind, Names, Schedule};

use super::shared::{each_trace, emit, load, print_json, BoundArgs, CliError, Exit, Which, DIALECTS};
use crate::std_trace::{self, NameTable, NameTableBuilder, TraceRaces};

/// `--format`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `thread|op(decor)|loc` lines.
    Std,
    /// JSON documents (docs/json/trace.schema.json).
    Json,
}

/// What `racefuzz trace` was asked.
#[derive(Debug)]
pub struct TraceArgs<'a> {
    /// The program.
    pub file: &'a Path,
    /// Which traces.
    pub which: Which,
    /// The format.
    pub format: Format,
    /// The folder to write, if any (else stdout).
    pub out: Option<&'a Path>,
    /// Write into a non-empty `out`.
    pub force: bool,
    /// The bounds.
    pub bounds: &'a BoundArgs,
}

/// One visited trace, as the second pass writes it.
struct Written {
    file: Option<String>,
    schedule: String,
    outcome: String,
    events: Vec<std_trace::EventDetail>,
    races: TraceRaces,
}

/// `racefuzz trace`.
///
/// # Errors
/// Bad input (a dialect STD traces are not written for, an explorer flag, a schedule that
/// does not fit, several STD traces without `--out`, an unwritable or non-empty `--out`).
pub fn trace(a: &TraceArgs<'_>) -> Result<Exit, CliError> {
    let (src, prog) = load(a.file)?;
    if !DIALECTS.contains(&prog.dialect) {
        let known: Vec<&str> = DIALECTS.iter().map(|d| d.name()).collect();
        return Err(CliError::input(format!(
            "error: {}: `racefuzz trace` does not write {} programs (it writes the thread programs of {}, which the dynamic-detector oracles run)",
            a.file.display(),
            prog.dialect,
            known.join(", ")
        )));
    }
    if prog.has_atomics() {
        // Atomics (docs/spec/atomics.md): STD (RAPID's format) has no atomic operations or fences.
        return Err(CliError::input(format!(
            "error: {}: atomics: STD traces have no atomic operations or fences (docs/spec/atomics.md), so `racefuzz trace` refuses programs with them",
            a.file.display()
        )));
    }
    if let Some(e) = a.bounds.explorer() {
        return Err(CliError::input(format!(
            "error: --{} does not apply to `racefuzz trace`: the traces pick the explorer (--all the naive one, --classes DPOR, --schedule a replay)",
            e.name()
        )));
    }
    let explorer = if a.which == Which::Classes { ExplorerKind::Dpor } else { ExplorerKind::Naive };
    let cfg = Config { explorer, ..a.bounds.config() };
    // Pass 1: every name.
    let mut builder = NameTableBuilder::default();
    let mut count = 0u64;
    let complete = each_trace(&prog, &cfg, &a.which, &mut |m, ex| {
        builder.add(ex.trace, &Names::of(m, ex.state));
        count += 1;
        Ok(())
    })?;
    let table = builder.build();
    if a.out.is_none() && a.format == Format::Std && count != 1 {
        return Err(CliError::input(format!(
            "error: {count} traces, and STD has no separator between traces: write them with --out DIR (one file each), pick one with --schedule S, or print them with --format json"
        )));
    }
    let out = a.out.map(|d| prepare(d, a.force)).transpose()?;
    // Pass 2: write.
    let mut written = vec![];
    let mut k = 0usize;
    let again = each_trace(&prog, &cfg, &a.which, &mut |m, ex| {
        k += 1;
        let names = Names::of(m, ex.state);
        let events = std_trace::details(ex.trace, &names, &table, Some(&src)).map_err(CliError::internal)?;
        let races = std_trace::races_of(ex.trace, &|i| u64::from(i) + 1, &|addr| table.variable(&names.addr(addr)).unwrap_or_else(|| names.addr(addr)));
        let mut w = Written { file: None, schedule: Schedule(ex.schedule.to_vec()).to_string(), outcome: ex.outcome.to_string(), events, races };
        if let Some(dir) = &out {
            w.file = Some(write_one(dir, k, a.format, &w)?);
            w.events = vec![];
        }
        written.push(w);
        Ok(())
    })?;
    if again != complete || written.len() as u64 != count {
        return Err(CliError::internal(format!("the second enumeration of {} differs from the first ({} traces, then {})", a.file.display(), count, written.len())));
    }
    let doc = |traces: Vec<serde_json::Value>| {
        serde_json::json!({
            "program": a.file.display().to_string(), "dialect": prog.dialect, "which": a.which.name(), "explorer": cfg.explorer,
            "bounds": cfg, "complete": complete, "names": table.json(), "traces": traces,
        })
    };
    match &out {
        None if a.format == Format::Std => emit(&std_trace::lines(&written[0].events)),
        None => print_json(&doc(written.iter().map(trace_json).collect()))?,
        Some(dir) => {
            write_file(&dir.join("names.json"), &json_text(&table.json())?)?;
            let mut index = doc(written.iter().map(index_json).collect());
            index["names"] = "names.json".into();
            write_file(&dir.join("index.json"), &json_text(&index)?)?;
            let what = match &a.which {
                Which::Schedule(s) => format!("the execution of schedule {s}"),
                Which::Classes => "one execution per Mazurkiewicz class (DPOR)".into(),
                Which::All => "every execution (naive)".into(),
            };
            let ext = if a.format == Format::Std { "std" } else { "json" };
            let (t, v, l) = table.sizes();
            crate::outln!("{}: {} trace(s), {what}", a.file.display(), written.len());
            crate::outln!("wrote {}: trace-0001.{ext} … trace-{:04}.{ext}, names.json ({t} threads, {v} variables, {l} locks), index.json", dir.display(), written.len());
        }
    }
    if complete {
        return Ok(Exit::Ok);
    }
    let cut = match &a.which {
        Which::Schedule(_) => format!("the execution was cut at --max-steps {}", cfg.max_steps),
        _ => format!("the enumeration stopped early (--max-executions {}, --max-steps {}): these are not all the traces", cfg.max_executions, cfg.max_steps),
    };
    eprintln!("inconclusive: {cut}; raise the bound for a complete answer");
    Ok(Exit::Inconclusive)
}

/// Creates `dir`, or checks that it may be written (empty, or `force`: then racefuzz's own
/// files from an earlier run are removed, so no stale trace stays beside the new ones).
fn prepare(dir: &Path, force: bool) -> Result<PathBuf, CliError> {
    let io = |e: std::io::Error| CliError::input(format!("error: --out {}: {e}", dir.display()));
    if dir.exists() {
        let entries: Vec<PathBuf> = std::fs::read_dir(dir).map_err(io)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
        if !entries.is_empty() && !force {
            return Err(CliError::input(format!(
                "error: --out {} is not empty; pass --force to write into it (its trace-*, names.json and index.json files are replaced)",
                dir.display()
            )));
        }
        for p in entries {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name.starts_with("trace-") || name == "names.json" || name == "index.json" {
                std::fs::remove_file(&p).map_err(io)?;
            }
        }
    }
    std::fs::create_dir_all(dir).map_err(io)?;
    Ok(dir.to_path_buf())
}

fn write_file(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| CliError::input(format!("error: cannot write {}: {e}", path.display())))
}

fn json_text(v: &serde_json::Value) -> Result<String, CliError> {
    serde_json::to_string_pretty(v).map(|s| s + "\n").map_err(|e| CliError::internal(format!("JSON output failed: {e}")))
}

/// Writes trace number `k`; the file's name.
fn write_one(dir: &Path, k: usize, format: Format, w: &Written) -> Result<String, CliError> {
    let stem = format!("trace-{k:04}");
    match format {
        Format::Std => {
            write_file(&dir.join(format!("{stem}.std")), &std_trace::lines(&w.events))?;
            write_file(&dir.join(format!("{stem}.locs.json")), &json_text(&serde_json::json!(w.events))?)?;
            Ok(format!("{stem}.std"))
        }
        Format::Json => {
            write_file(&dir.join(format!("{stem}.json")), &json_text(&trace_json(w))?)?;
            Ok(format!("{stem}.json"))
        }
    }
}

fn trace_json(w: &Written) -> serde_json::Value {
    serde_json::json!({ "schedule": w.schedule, "outcome": w.outcome, "events": w.events, "races": w.races })
}

fn index_json(w: &Written) -> serde_json::Value {
    let mut v = serde_json::json!({ "file": w.file, "schedule": w.schedule, "outcome": w.outcome, "races": w.races });
    if let Some(f) = w.file.as_deref().and_then(|f| f.strip_suffix(".std")) {
        v["locs"] = format!("{f}.locs.json").into();
    }
    v
}

/// `racefuzz races TRACE.std`: the trace's happens-before races; `names` is a name table
/// (`names.json` of `racefuzz trace --out`) whose names are shown beside the STD ones.
///
/// # Errors
/// Bad input: an unreadable file, a malformed line (named), a table that does not fit.
pub fn races(file: &Path, names: Option<&Path>, json: bool) -> Result<Exit, CliError> {
    let text = std::fs::read_to_string(file).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", file.display())))?;
    let t = std_trace::read(&text).map_err(|e| CliError::input(format!("error: {}: {e}", file.display())))?;
    let r = std_trace::races_of(&t.events, &|i| t.loc(i), &|a| t.variable(a));
    let table = names.map(name_table).transpose()?;
    let mut shown = std::collections::BTreeMap::new();
    if let Some(table) = &table {
        for v in &t.variables {
            let name = table
                .variable_name(v)
                .ok_or_else(|| CliError::input(format!("error: {}: the trace's variable {v} is not in the table", names.map_or(String::new(), |p| p.display().to_string()))))?;
            shown.insert(v.clone(), name.to_string());
        }
    }
    if json {
        let mut doc = serde_json::json!({ "trace": file.display().to_string(), "events": t.events.len(), "threads": t.threads.len(), "races": r });
        if table.is_some() {
            doc["names"] = serde_json::json!(shown);
        }
        print_json(&doc)?;
        return Ok(Exit::Ok);
    }
    let var = |v: &str| shown.get(v).map_or(v.to_string(), |n| format!("{v} ({n})"));
    let (nv, nl) = (t.variables.len(), t.locks.len());
    crate::outln!("{}: {} events, {} threads, {nv} variables, {nl} locks", file.display(), t.events.len(), t.threads.len());
    let Some(first) = &r.first_race else {
        crate::outln!("no happens-before race");
        return Ok(Exit::Ok);
    };
    crate::outln!("racy variables: {}", r.variables.iter().map(|v| var(v)).collect::<Vec<_>>().join(", "));
    crate::outln!("racy events (loc: the access, then the earlier accesses it races with):");
    let partners = |e: &std_trace::RacyEvent| e.partners.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
    for e in &r.events {
        crate::outln!("  {}: {} with {}", e.loc, var(&e.variable), partners(e));
    }
    crate::outln!("first race: loc {} on {}, with {}", first.loc, var(&first.variable), partners(first));
    Ok(Exit::Ok)
}

fn name_table(p: &Path) -> Result<NameTable, CliError> {
    let bad = |e: String| CliError::input(format!("error: --names {}: {e}", p.display()));
    let text = std::fs::read_to_string(p).map_err(|e| bad(e.to_string()))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    NameTable::from_json(&v).map_err(|e| bad(e.to_string()))
}
