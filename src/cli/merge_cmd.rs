//! `racefuzz merge`: one summary out of the output folders of many campaigns (the shards of
//! a job array, runs on several hosts, cargo-fuzz targets' findings).
//!
//! Two kinds of input, found recursively under each folder:
//! - summaries (`summary*.json`, written by `racefuzz fuzz`): their counts per oracle add
//!   up; a summary whose runs checked the very same programs (same seed, jobs, shard,
//!   mutant, SUT, and the same count and program hash per oracle) counts once;
//! - findings (`.race` files with a `// racefuzz finding` header): the same program found
//!   for the same oracle, SUT and mutant counts once; the rest group by the signature the
//!   file ends with (`// signature:`), recomputed by checking the program again when the
//!   file has none (findings of older versions), and each group keeps its smallest program.
//!
//! A failing program's count comes from the summaries; a failure no summary mentions (a
//! cargo-fuzz target's finding) counts its distinct finding files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use race_oracles::gen::shrink::counts;
use race_oracles::lang::{parse, print};
use race_oracles::theorems::{rules, Verdict};

use super::shared::{emit, oracle, print_json, CliError, Exit};
use crate::corpus::header;
use crate::outln;
use crate::suts;

/// What `racefuzz fuzz` writes into its output folder (the fields merge reads).
#[derive(serde::Deserialize)]
struct RunSummary {
    seed: u64,
    jobs: usize,
    mutant: Option<String>,
    sut: Option<String>,
    max_programs: Option<u64>,
    #[serde(default)]
    shard: Option<ShardJson>,
    programs: u64,
    per_oracle: Vec<OracleJson>,
    signatures: Vec<SignatureJson>,
}

#[derive(serde::Deserialize, serde::Serialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ShardJson {
    index: u64,
    count: u64,
}

#[derive(serde::Deserialize, serde::Serialize, Clone, Default)]
struct OracleJson {
    oracle: String,
    checked: u64,
    pass: u64,
    fail: u64,
    inconclusive: u64,
    /// Absent in summaries of older versions.
    #[serde(default)]
    programs_hash: Option<String>,
    /// Programs using each feature (`campaign::FEATURES`); absent in summaries of older
    /// versions, and then absent from the merge too.
    #[serde(default)]
    features: Option<BTreeMap<String, u64>>,
    /// Rule coverage (`racefuzz fuzz --rules`); null in a summary run without it. Merged, it
    /// covers the programs of the summaries that have it (its `programs`).
    #[serde(default)]
    rules: Option<RulesJson>,
}

/// One oracle's rule coverage in a summary (fuzz_cmd's `JsonRules`).
#[derive(serde::Deserialize, serde::Serialize, Clone, Default)]
struct RulesJson {
    sut: String,
    mutant: Option<String>,
    programs: u64,
    tables: Vec<TableJson>,
    not_exercised: Vec<String>,
}

#[derive(serde::Deserialize, serde::Serialize, Clone)]
struct TableJson {
    sut: String,
    spec: String,
    cases: Vec<CaseJson>,
}

#[derive(serde::Deserialize, serde::Serialize, Clone)]
struct CaseJson {
    case: String,
    spec: String,
    rare: Option<String>,
    programs: u64,
    below_floor: bool,
}

impl RulesJson {
    /// Adds `other`'s counts, case by case (a table or case only one side has is kept).
    fn add(&mut self, other: &RulesJson) {
        self.programs += other.programs;
        for t in &other.tables {
            let Some(mine) = self.tables.iter_mut().find(|m| m.sut == t.sut) else {
                self.tables.push(t.clone());
                continue;
            };
            for c in &t.cases {
                match mine.cases.iter_mut().find(|m| m.case == c.case) {
                    Some(m) => m.programs += c.programs,
                    None => mine.cases.push(c.clone()),
                }
            }
        }
        for n in &other.not_exercised {
            if !self.not_exercised.contains(n) {
                self.not_exercised.push(n.clone());
            }
        }
        // The floor, over the programs added up.
        for c in self.tables.iter_mut().flat_map(|t| &mut t.cases) {
            c.below_floor = rules::below_floor(rules::percent(c.programs, self.programs), c.rare.is_some());
        }
    }
}

#[derive(serde::Deserialize)]
struct SignatureJson {
    signature: String,
    oracle: String,
    count: u64,
}

/// One finding file, read.
struct Finding {
    path: PathBuf,
    oracle: String,
    sut: Option<String>,
    mutant: Option<String>,
    signature: String,
    /// Statements, then methods.
    size: (usize, usize),
    /// A `--shrink` result (its program was not generated, so it counts no failing program).
    shrunk: bool,
}

/// A distinct failure: a signature under one SUT and mutant.
#[derive(serde::Serialize)]
struct Group {
    signature: String,
    oracle: String,
    mutant: Option<String>,
    sut: Option<String>,
    /// Failing programs with this signature (from the summaries; else its finding files).
    count: u64,
    /// Its distinct finding files, sorted.
    files: Vec<PathBuf>,
    smallest: Option<PathBuf>,
    smallest_statements: Option<usize>,
}

/// The shards of one campaign that were read.
#[derive(serde::Serialize)]
struct ShardSet {
    seed: u64,
    mutant: Option<String>,
    count: u64,
    present: Vec<u64>,
    missing: Vec<u64>,
}

/// `racefuzz merge --json`, and the file `--out` (keys in this order).
#[derive(serde::Serialize)]
struct Merged {
    summaries: Vec<PathBuf>,
    duplicate_summaries: Vec<PathBuf>,
    findings: usize,
    duplicate_findings: usize,
    shards: Vec<ShardSet>,
    programs: u64,
    per_oracle: Vec<OracleJson>,
    failing_programs: u64,
    signatures: Vec<Group>,
    notes: Vec<String>,
}

pub(super) fn run(dirs: &[PathBuf], out: &Path, json: bool, report: Option<&Path>) -> Result<Exit, CliError> {
    let mut summary_files = vec![];
    let mut race_files = vec![];
    for d in dirs {
        let (s, r) = walk(d)?;
        if s.is_empty() && r.is_empty() {
            return Err(CliError::input(format!("error: {}: no summary (summary*.json) and no finding (.race) in it", d.display())));
        }
        summary_files.extend(s);
        race_files.extend(r);
    }
    let mut notes = vec![];
    // Summaries: the same programs count once.
    let mut runs: Vec<(PathBuf, RunSummary)> = vec![];
    let mut duplicate_summaries = vec![];
    let mut keys: BTreeMap<String, PathBuf> = BTreeMap::new();
    for f in summary_files {
        let text = std::fs::read_to_string(&f).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", f.display())))?;
        let s: RunSummary = serde_json::from_str(&text).map_err(|e| CliError::input(format!("error: {}: not a `racefuzz fuzz` summary: {e}", f.display())))?;
        let key = run_key(&s);
        if let Some(first) = keys.get(&key) {
            notes.push(format!("{} checked the same programs as {}; counted once", f.display(), first.display()));
            duplicate_summaries.push(f);
            continue;
        }
        keys.insert(key, f.clone());
        runs.push((f, s));
    }
    notes.extend(overlaps(&runs));
    // Totals per oracle, in the order the oracles first appear.
    let mut per_oracle: Vec<OracleJson> = vec![];
    let mut hashes: Vec<Option<u64>> = vec![];
    // Per oracle: rule coverage of one SUT and mutant only; `None` once two disagree.
    let mut rules: Vec<Option<RulesJson>> = vec![];
    for (f, s) in &runs {
        for o in &s.per_oracle {
            let at = per_oracle.iter().position(|t| t.oracle == o.oracle).unwrap_or_else(|| {
                per_oracle.push(OracleJson { oracle: o.oracle.clone(), features: Some(BTreeMap::new()), ..OracleJson::default() });
                hashes.push(Some(0));
                rules.push(Some(RulesJson::default()));
                per_oracle.len() - 1
            });
            let t = &mut per_oracle[at];
            t.checked += o.checked;
            t.pass += o.pass;
            t.fail += o.fail;
            t.inconclusive += o.inconclusive;
            let h = match o.programs_hash.as_deref().map(|h| u64::from_str_radix(h, 16)) {
                Some(Ok(h)) => Some(h),
                Some(Err(_)) => return Err(CliError::input(format!("error: {}: programs_hash of {} is not 16 hex digits", f.display(), o.oracle))),
                None => None,
            };
            hashes[at] = hashes[at].zip(h).map(|(a, b)| a.wrapping_add(b));
            t.features = t.features.take().zip(o.features.as_ref()).map(|(mut sum, fs)| {
                for (k, n) in fs {
                    *sum.entry(k.clone()).or_default() += n;
                }
                sum
            });
            if let (Some(sum), Some(r)) = (&mut rules[at], &o.rules) {
                if sum.programs > 0 && (&sum.sut, &sum.mutant) != (&r.sut, &r.mutant) {
                    notes.push(format!(
                        "{}: the rule coverage of {} is of SUT {} (mutant {}), another summary's of SUT {} (mutant {}); not added up",
                        f.display(),
                        o.oracle,
                        r.sut,
                        r.mutant.as_deref().unwrap_or("none"),
                        sum.sut,
                        sum.mutant.as_deref().unwrap_or("none")
                    ));
                    rules[at] = None;
                } else {
                    (sum.sut, sum.mutant) = (r.sut.clone(), r.mutant.clone());
                    sum.add(r);
                }
            }
        }
    }
    for ((t, h), r) in per_oracle.iter_mut().zip(&hashes).zip(rules) {
        t.programs_hash = h.map(|h| format!("{h:016x}"));
        t.rules = r.filter(|r| r.programs > 0);
        if let Some(r) = t.rules.as_ref().filter(|r| r.programs < t.checked) {
            notes.push(format!("the rule coverage of {} counts {} of its {} programs (the other summaries were run without --rules)", t.oracle, r.programs, t.checked));
        }
    }
    // Findings: the same program for the same oracle, SUT and mutant counts once.
    let mut findings: Vec<Finding> = vec![];
    let mut seen: BTreeSet<(String, Option<String>, Option<String>, String)> = BTreeSet::new();
    let mut duplicate_findings = 0;
    for f in race_files {
        let Some((finding, program)) = read_finding(&f, &mut notes)? else { continue };
        if !seen.insert((finding.oracle.clone(), finding.sut.clone(), finding.mutant.clone(), program)) {
            duplicate_findings += 1;
            continue;
        }
        findings.push(finding);
    }
    let groups = group(&runs, &findings, &per_oracle);
    let merged = Merged {
        summaries: runs.iter().map(|(f, _)| f.clone()).collect(),
        duplicate_summaries,
        findings: findings.len(),
        duplicate_findings,
        shards: shard_sets(&runs),
        programs: runs.iter().map(|(_, s)| s.programs).sum(),
        failing_programs: groups.iter().map(|g| g.count).sum(),
        per_oracle,
        signatures: groups,
        notes,
    };
    let text = serde_json::to_string_pretty(&merged).map_err(|e| CliError::internal(format!("JSON output failed: {e}")))?;
    let written = out
        .parent()
        .map_or(Ok(()), |d| if d.as_os_str().is_empty() { Ok(()) } else { std::fs::create_dir_all(d) })
        .and_then(|()| crate::campaign::write_atomically(out, &format!("{text}\n")))
        .map_err(|e| CliError::input(format!("error: cannot write {}: {e}", out.display())));
    if json {
        print_json(&merged)?;
    } else {
        emit(&render(&merged));
    }
    written?;
    if let Some(report) = report {
        super::fuzz_cmd::write_report(report, &merged)?;
    }
    if !json {
        outln!("merged summary written to {}", out.display());
    }
    let failed = !merged.signatures.is_empty() || merged.per_oracle.iter().any(|o| o.fail > 0);
    Ok(if failed { Exit::Fail } else { Exit::Ok })
}

/// The summaries and `.race` files under `dir`, each sorted by path.
fn walk(dir: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), CliError> {
    let meta = std::fs::metadata(dir).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", dir.display())))?;
    if !meta.is_dir() {
        return Err(CliError::input(format!("error: {} is not a folder (merge takes the output folders of campaigns)", dir.display())));
    }
    let (mut summaries, mut races) = (vec![], vec![]);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let rd = std::fs::read_dir(&d).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", d.display())))?;
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            // Temporary files of a write in progress (`.NAME.tmp`) are not inputs yet.
            if name.starts_with('.') {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if name.starts_with("summary") && name.ends_with(".json") {
                summaries.push(p);
            } else if name.ends_with(".race") {
                races.push(p);
            }
        }
    }
    summaries.sort();
    races.sort();
    Ok((summaries, races))
}

/// What makes two summaries the same programs: the run's parameters and, per oracle, the
/// count and hash of the programs checked.
fn run_key(s: &RunSummary) -> String {
    let per: Vec<String> = s.per_oracle.iter().map(|o| format!("{}:{}:{}", o.oracle, o.checked, o.programs_hash.as_deref().unwrap_or("?"))).collect();
    format!("{}|{}|{:?}|{:?}|{:?}|{:?}|{}", s.seed, s.jobs, s.mutant, s.sut, s.shard.map(|x| (x.index, x.count)), s.max_programs, per.join(","))
}

/// Reads a finding; returns it with its printed program, or `None` (with a note) when its
/// program passes now. A `.race` file that is not a finding is bad input.
fn read_finding(f: &Path, notes: &mut Vec<String>) -> Result<Option<(Finding, String)>, CliError> {
    let src = std::fs::read_to_string(f).map_err(|e| CliError::input(format!("error: cannot read {}: {e}", f.display())))?;
    if src.lines().next().map(str::trim) != Some("// racefuzz finding") {
        return Err(CliError::input(format!("error: {}: not a racefuzz finding (its first line is not `// racefuzz finding`)", f.display())));
    }
    let id = header(&src, "oracle").ok_or_else(|| CliError::input(format!("error: {}: no `// oracle:` header", f.display())))?;
    let o = oracle(id).map_err(|e| CliError::input(format!("error: {}: {}", f.display(), e.message.trim_start_matches("error: "))))?;
    let p = parse(&src).map_err(|e| CliError::input(e.render(&f.display().to_string())))?;
    let sut = header(&src, "sut").map(str::to_string);
    let mutant = header(&src, "mutant").filter(|m| *m != "none").map(str::to_string);
    let signature = match header(&src, "signature") {
        Some(s) => s.to_string(),
        None => {
            // A finding of an older version: check it again (catalogued SUTs only).
            if sut.as_deref().is_some_and(|n| n == suts::EXTERNAL.name || n == suts::EXTERNAL_ANALYSIS.name) {
                return Err(CliError::input(format!(
                    "error: {}: no `// signature:` line, and its SUT is external: check it again with `racefuzz check` to rewrite it",
                    f.display()
                )));
            }
            let spec = super::shared::catalogued(sut.as_deref(), mutant.as_deref()).and_then(|spec| super::shared::subject(&o, &spec));
            let subject = spec.map_err(|e| CliError::input(format!("error: {}: {}", f.display(), e.message)))?;
            let r = suts::check(&o, &p, &subject, suts::campaign_bounds());
            if r.verdict != Verdict::Fail {
                notes.push(format!("{} does not fail now ({}); left out", f.display(), r.verdict));
                return Ok(None);
            }
            crate::signature::signature(&r, &p)
        }
    };
    let shrunk = header(&src, "seed").is_some_and(|s| s.contains("(shrunk from"));
    let finding = Finding { path: f.to_path_buf(), oracle: o.id.to_string(), sut, mutant, signature, size: counts(&p), shrunk };
    Ok(Some((finding, print(&p))))
}

/// The distinct failures: by oracle (in the order of the totals), then count (most first),
/// then signature.
fn group(runs: &[(PathBuf, RunSummary)], findings: &[Finding], per_oracle: &[OracleJson]) -> Vec<Group> {
    type Key = (String, Option<String>, Option<String>);
    let mut groups: BTreeMap<Key, Group> = BTreeMap::new();
    let mut counted: BTreeSet<Key> = BTreeSet::new();
    let mut entry = |sig: &str, o: &str, mutant: &Option<String>, sut: &Option<String>| -> Key {
        let key = (sig.to_string(), mutant.clone(), sut.clone());
        groups.entry(key.clone()).or_insert_with(|| Group {
            signature: sig.to_string(),
            oracle: o.to_string(),
            mutant: mutant.clone(),
            sut: sut.clone(),
            count: 0,
            files: vec![],
            smallest: None,
            smallest_statements: None,
        });
        key
    };
    let mut counts_from_runs: BTreeMap<Key, u64> = BTreeMap::new();
    for (_, s) in runs {
        for g in &s.signatures {
            let key = entry(&g.signature, &g.oracle, &s.mutant, &s.sut);
            *counts_from_runs.entry(key.clone()).or_default() += g.count;
            counted.insert(key);
        }
    }
    let mut best: BTreeMap<Key, ((usize, usize), PathBuf)> = BTreeMap::new();
    let mut files: BTreeMap<Key, Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        let key = entry(&f.signature, &f.oracle, &f.mutant, &f.sut);
        files.entry(key.clone()).or_default().push(f);
        let candidate = (f.size, f.path.clone());
        if best.get(&key).is_none_or(|b| candidate < *b) {
            best.insert(key, candidate);
        }
    }
    for (key, g) in &mut groups {
        let fs = files.remove(key).unwrap_or_default();
        g.count = if counted.contains(key) { counts_from_runs.get(key).copied().unwrap_or(0) } else { fs.iter().filter(|f| !f.shrunk).count() as u64 };
        g.files = fs.iter().map(|f| f.path.clone()).collect();
        if let Some((size, path)) = best.remove(key) {
            g.smallest = Some(path);
            g.smallest_statements = Some(size.0);
        }
    }
    let rank = |o: &str| per_oracle.iter().position(|t| t.oracle == o).unwrap_or(usize::MAX);
    let mut out: Vec<Group> = groups.into_values().collect();
    out.sort_by(|a, b| rank(&a.oracle).cmp(&rank(&b.oracle)).then(a.oracle.cmp(&b.oracle)).then(b.count.cmp(&a.count)).then(a.signature.cmp(&b.signature)));
    out
}

/// Pairs of summaries that drew from the same streams (same seed, jobs, mutant and SUT) and
/// whose shards intersect: the programs both checked are counted twice in the totals.
fn overlaps(runs: &[(PathBuf, RunSummary)]) -> Vec<String> {
    let whole = ShardJson { index: 0, count: 1 };
    let mut notes = vec![];
    for (i, (fa, a)) in runs.iter().enumerate() {
        for (fb, b) in &runs[i + 1..] {
            let same_streams = (a.seed, a.jobs, &a.mutant, &a.sut) == (b.seed, b.jobs, &b.mutant, &b.sut);
            let (x, y) = (a.shard.unwrap_or(whole), b.shard.unwrap_or(whole));
            let disjoint = x.count == y.count && x.index != y.index;
            if same_streams && !disjoint {
                notes.push(format!("{} and {} drew from the same streams (seed {}): the programs both checked count twice", fa.display(), fb.display(), a.seed));
            }
        }
    }
    notes
}

/// The sharded campaigns read, with the shards missing from each.
fn shard_sets(runs: &[(PathBuf, RunSummary)]) -> Vec<ShardSet> {
    let mut sets: BTreeMap<(u64, Option<String>, u64), BTreeSet<u64>> = BTreeMap::new();
    for (_, s) in runs {
        if let Some(sh) = s.shard {
            sets.entry((s.seed, s.mutant.clone(), sh.count)).or_default().insert(sh.index);
        }
    }
    sets.into_iter()
        .map(|((seed, mutant, count), present)| ShardSet {
            seed,
            mutant,
            count,
            missing: (0..count).filter(|k| !present.contains(k)).collect(),
            present: present.into_iter().collect(),
        })
        .collect()
}

fn render(m: &Merged) -> String {
    let mut out = format!(
        "merged {} summary file(s) and {} finding(s){}{}\n",
        m.summaries.len(),
        m.findings,
        if m.duplicate_findings > 0 { format!(" ({} duplicate finding(s) left out)", m.duplicate_findings) } else { String::new() },
        if m.duplicate_summaries.is_empty() { String::new() } else { format!(" ({} duplicate summary file(s) left out)", m.duplicate_summaries.len()) },
    );
    for s in &m.shards {
        let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        let mutant = s.mutant.as_ref().map(|m| format!(", mutant {m}")).unwrap_or_default();
        let missing = if s.missing.is_empty() { "all of them".to_string() } else { format!("missing: {}", list(&s.missing)) };
        out.push_str(&format!("seed {}{mutant}: shard(s) {} of {} ({missing})\n", s.seed, list(&s.present), s.count));
    }
    for n in &m.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    if !m.per_oracle.is_empty() {
        out.push_str(&format!("\n{} programs\n", m.programs));
        out.push_str(&format!("{:<30} {:>9} {:>9} {:>6} {:>13}  {}\n", "oracle", "checked", "pass", "fail", "inconclusive", "programs hash"));
        for o in &m.per_oracle {
            out.push_str(&format!("{:<30} {:>9} {:>9} {:>6} {:>13}  {}\n", o.oracle, o.checked, o.pass, o.fail, o.inconclusive, o.programs_hash.as_deref().unwrap_or("?")));
        }
    }
    if m.signatures.is_empty() {
        out.push_str("no counterexample\n");
        return out;
    }
    out.push_str(&format!("\n{} distinct failure(s) in {} failing program(s)\n", m.signatures.len(), m.failing_programs));
    for g in &m.signatures {
        let under = [g.sut.as_ref().map(|s| format!("SUT {s}")), g.mutant.as_ref().map(|s| format!("mutant {s}"))].into_iter().flatten().collect::<Vec<_>>();
        let under = if under.is_empty() { String::new() } else { format!(" ({})", under.join(", ")) };
        out.push_str(&format!("{:>7}  {}{under}\n", g.count, g.signature));
        match (&g.smallest, g.smallest_statements) {
            (Some(p), Some(n)) => out.push_str(&format!("         smallest: {} ({n} statement(s))\n", p.display())),
            _ => out.push_str("         smallest: none of its findings was read\n"),
        }
    }
    out
}
