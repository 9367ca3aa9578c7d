//! Many campaigns as one: [`merge`] reads the output folders of campaigns (the shards of a
//! job array, runs on several hosts, cargo-fuzz targets' findings) and returns one
//! [`Merged`] summary (docs/json/merge.schema.json); `racefuzz merge` prints and writes it.
//!
//! Two kinds of input, found recursively under each folder:
//! - summaries (`summary*.json`, written by `racefuzz fuzz`, [`Run`]): their counts per
//!   oracle add up; a summary whose runs checked the very same programs (same seed, jobs,
//!   shard, mutant, SUT, and the same count and program hash per oracle) counts once;
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
use race_oracles::lang::{parse, print, ParseError};
use race_oracles::theorems::{rules, Registry, Verdict};

use crate::finding_header::FindingHeader;
use crate::summary::{Features, Merged, MergedFailure, OracleTotals, Rules, Run, Shard, ShardSet};
use crate::suts::{self, Subject, SubjectError};

/// Why a merge could not read its inputs. Each names the file or folder; every one is bad
/// input (the CLI's exit 2).
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A file or folder could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file or folder.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An input is a file, not a folder.
    #[error("{} is not a folder (merge takes the output folders of campaigns)", path.display())]
    NotAFolder {
        /// The input.
        path: PathBuf,
    },
    /// A folder holds nothing to merge.
    #[error("{}: no summary (summary*.json) and no finding (.race) in it", dir.display())]
    Empty {
        /// The folder.
        dir: PathBuf,
    },
    /// A `summary*.json` file is not a campaign's summary.
    #[error("{}: not a `racefuzz fuzz` summary: {source}", path.display())]
    NotASummary {
        /// The file.
        path: PathBuf,
        /// What does not parse.
        source: serde_json::Error,
    },
    /// An oracle's program hash in a summary is not a hash.
    #[error("{}: programs_hash of {oracle} is not 16 hex digits", path.display())]
    BadHash {
        /// The summary file.
        path: PathBuf,
        /// The oracle.
        oracle: String,
    },
    /// A finding whose header names no SUT racefuzz can build.
    #[error("{}: {source}", path.display())]
    Header {
        /// The finding.
        path: PathBuf,
        /// Why its header names no SUT racefuzz can build.
        source: crate::finding_header::HeaderError,
    },
    /// A `.race` file that is not a finding.
    #[error("{}: not a racefuzz finding (its first line is not `// racefuzz finding`)", path.display())]
    NotAFinding {
        /// The file.
        path: PathBuf,
    },
    /// A finding names no oracle.
    #[error("{}: no `// oracle:` header", path.display())]
    NoOracle {
        /// The finding.
        path: PathBuf,
    },
    /// A finding names an oracle racefuzz does not have.
    #[error("{}: no oracle `{id}` (known: {known})", path.display())]
    UnknownOracle {
        /// The finding.
        path: PathBuf,
        /// The oracle it names.
        id: String,
        /// The oracles there are, comma-separated.
        known: String,
    },
    /// A finding's program does not parse.
    #[error("{}", source.render(&path.display().to_string()))]
    Parse {
        /// The finding.
        path: PathBuf,
        /// Where and why.
        source: ParseError,
    },
    /// A finding of an older version (no signature) whose SUT is external, so that it
    /// cannot be checked again here.
    #[error("{}: no `// signature:` line, and its SUT is external: check it again with `racefuzz check` to rewrite it", path.display())]
    ExternalUnsigned {
        /// The finding.
        path: PathBuf,
    },
    /// A finding of an older version (no signature) whose SUT or mutant cannot be built.
    #[error("{}: {source}", path.display())]
    Subject {
        /// The finding.
        path: PathBuf,
        /// Why its subject cannot be built.
        source: SubjectError,
    },
}

/// Merges the summaries and findings under `dirs` (see the module docs).
///
/// # Errors
/// [`MergeError`]: a folder that cannot be read or holds nothing to merge, a summary or
/// finding that cannot be read.
pub fn merge(dirs: &[PathBuf]) -> Result<Merged, MergeError> {
    let mut summary_files = vec![];
    let mut race_files = vec![];
    for d in dirs {
        let (s, r) = walk(d)?;
        if s.is_empty() && r.is_empty() {
            return Err(MergeError::Empty { dir: d.clone() });
        }
        summary_files.extend(s);
        race_files.extend(r);
    }
    let mut notes = vec![];
    // Summaries: the same programs count once.
    let mut runs: Vec<(PathBuf, Run)> = vec![];
    let mut duplicate_summaries = vec![];
    let mut keys: BTreeMap<String, PathBuf> = BTreeMap::new();
    for f in summary_files {
        let text = std::fs::read_to_string(&f).map_err(|source| MergeError::Read { path: f.clone(), source })?;
        let s: Run = serde_json::from_str(&text).map_err(|source| MergeError::NotASummary { path: f.clone(), source })?;
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
    let per_oracle = totals(&runs, &mut notes)?;
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
    Ok(Merged {
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
    })
}

/// The summaries' totals per oracle, in the order the oracles first appear: counts, program
/// hashes and feature counts added up (`None` once a summary has none), and rule coverage
/// of one SUT and mutant added up (with a note when two summaries disagree, or when only
/// some recorded it).
fn totals(runs: &[(PathBuf, Run)], notes: &mut Vec<String>) -> Result<Vec<OracleTotals>, MergeError> {
    let mut per_oracle: Vec<OracleTotals> = vec![];
    let mut hashes: Vec<Option<u64>> = vec![];
    // Per oracle: rule coverage of one SUT and mutant only; `None` once two disagree.
    let mut rules: Vec<Option<Rules>> = vec![];
    for (f, s) in runs {
        for o in &s.per_oracle {
            let at = per_oracle.iter().position(|t| t.oracle == o.oracle).unwrap_or_else(|| {
                per_oracle.push(OracleTotals { oracle: o.oracle.clone(), features: Some(Features::default()), ..OracleTotals::default() });
                hashes.push(Some(0));
                rules.push(Some(Rules::default()));
                per_oracle.len() - 1
            });
            let t = &mut per_oracle[at];
            t.checked += o.checked;
            t.pass += o.pass;
            t.fail += o.fail;
            t.inconclusive += o.inconclusive;
            if let Some(n) = o.sc_executions_only {
                t.sc_executions_only = Some(t.sc_executions_only.unwrap_or(0) + n);
            }
            let h = match o.programs_hash.as_deref().map(|h| u64::from_str_radix(h, 16)) {
                Some(Ok(h)) => Some(h),
                Some(Err(_)) => return Err(MergeError::BadHash { path: f.clone(), oracle: o.oracle.clone() }),
                None => None,
            };
            hashes[at] = hashes[at].zip(h).map(|(a, b)| a.wrapping_add(b));
            t.features = t.features.zip(o.features).map(|(sum, fs)| sum.plus(fs));
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
                    add_rules(sum, r);
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
    Ok(per_oracle)
}

/// Adds `other`'s rule counts to `sum`, case by case (a table or case only one side has is
/// kept), and recomputes each case's floor over the programs added up.
fn add_rules(sum: &mut Rules, other: &Rules) {
    sum.programs += other.programs;
    for t in &other.tables {
        let Some(mine) = sum.tables.iter_mut().find(|m| m.sut == t.sut) else {
            sum.tables.push(t.clone());
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
        if !sum.not_exercised.contains(n) {
            sum.not_exercised.push(n.clone());
        }
    }
    // The floor, over the programs added up.
    for c in sum.tables.iter_mut().flat_map(|t| &mut t.cases) {
        c.below_floor = rules::below_floor(rules::percent(c.programs, sum.programs), c.rare.is_some());
    }
}

/// The summaries and `.race` files under `dir`, each sorted by path.
fn walk(dir: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), MergeError> {
    let meta = std::fs::metadata(dir).map_err(|source| MergeError::Read { path: dir.to_path_buf(), source })?;
    if !meta.is_dir() {
        return Err(MergeError::NotAFolder { path: dir.to_path_buf() });
    }
    let (mut summaries, mut races) = (vec![], vec![]);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let rd = std::fs::read_dir(&d).map_err(|source| MergeError::Read { path: d.clone(), source })?;
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
fn run_key(s: &Run) -> String {
    let per: Vec<String> = s.per_oracle.iter().map(|o| format!("{}:{}:{}", o.oracle, o.checked, o.programs_hash.as_deref().unwrap_or("?"))).collect();
    format!("{}|{}|{:?}|{:?}|{:?}|{:?}|{}", s.seed, s.jobs, s.mutant, s.sut, s.shard.map(|x| (x.index, x.count)), s.max_programs, per.join(","))
}

/// The distinct failures: by oracle (in the order of the totals), then count (most first),
/// then signature.
fn group(runs: &[(PathBuf, Run)], findings: &[Finding], per_oracle: &[OracleTotals]) -> Vec<MergedFailure> {
    type Key = (String, Option<String>, Option<String>);
    let mut groups: BTreeMap<Key, MergedFailure> = BTreeMap::new();
    let mut counted: BTreeSet<Key> = BTreeSet::new();
    let mut entry = |sig: &str, o: &str, mutant: &Option<String>, sut: &Option<String>| -> Key {
        let key = (sig.to_string(), mutant.clone(), sut.clone());
        groups.entry(key.clone()).or_insert_with(|| MergedFailure {
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
    let mut out: Vec<MergedFailure> = groups.into_values().collect();
    out.sort_by(|a, b| rank(&a.oracle).cmp(&rank(&b.oracle)).then(a.oracle.cmp(&b.oracle)).then(b.count.cmp(&a.count)).then(a.signature.cmp(&b.signature)));
    out
}

/// Pairs of summaries that drew from the same streams (same seed, jobs, mutant and SUT) and
/// whose shards intersect: the programs both checked are counted twice in the totals.
fn overlaps(runs: &[(PathBuf, Run)]) -> Vec<String> {
    let mut notes = vec![];
    for (i, (fa, a)) in runs.iter().enumerate() {
        for (fb, b) in &runs[i + 1..] {
            let same_streams = (a.seed, a.jobs, &a.mutant, &a.sut) == (b.seed, b.jobs, &b.mutant, &b.sut);
            let (x, y) = (a.shard.unwrap_or(Shard::WHOLE), b.shard.unwrap_or(Shard::WHOLE));
            let disjoint = x.count == y.count && x.index != y.index;
            if same_streams && !disjoint {
                notes.push(format!("{} and {} drew from the same streams (seed {}): the programs both checked count twice", fa.display(), fb.display(), a.seed));
            }
        }
    }
    notes
}

/// The sharded campaigns read, with the shards missing from each.
fn shard_sets(runs: &[(PathBuf, Run)]) -> Vec<ShardSet> {
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

// ===== Finding files =====

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

/// Reads a finding: its header (oracle, SUT, mutant, seed, signature) and its program.
/// Returns it with its printed program, or `None` (with a note) when its program passes
/// now. A `.race` file that is not a finding is bad input.
fn read_finding(f: &Path, notes: &mut Vec<String>) -> Result<Option<(Finding, String)>, MergeError> {
    let src = std::fs::read_to_string(f).map_err(|source| MergeError::Read { path: f.to_path_buf(), source })?;
    let h = FindingHeader::parse(&src).map_err(|source| MergeError::Header { path: f.to_path_buf(), source })?;
    if !h.is_finding() {
        return Err(MergeError::NotAFinding { path: f.to_path_buf() });
    }
    let id = h.oracle.as_deref().ok_or_else(|| MergeError::NoOracle { path: f.to_path_buf() })?;
    let reg = Registry::builtin();
    let o = *reg.find(id).ok_or_else(|| MergeError::UnknownOracle { path: f.to_path_buf(), id: id.to_string(), known: reg.ids().join(", ") })?;
    let p = parse(&src).map_err(|source| MergeError::Parse { path: f.to_path_buf(), source })?;
    let signature = match h.signature() {
        Some(s) => s.to_string(),
        None => {
            // A finding of an older version: check it again (catalogued SUTs only).
            if h.sut.is_external() {
                return Err(MergeError::ExternalUnsigned { path: f.to_path_buf() });
            }
            let subject = Subject::new(&o, &h.sut).map_err(|source| MergeError::Subject { path: f.to_path_buf(), source })?;
            let r = suts::check(&o, &p, &subject, suts::campaign_bounds());
            if r.verdict != Verdict::Fail {
                notes.push(format!("{} does not fail now ({}); left out", f.display(), r.verdict));
                return Ok(None);
            }
            crate::signature::signature(&r, &p)
        }
    };
    let shrunk = h.seed().is_some_and(|s| s.contains("(shrunk from"));
    let (sut, mutant) = (h.sut.sut_name(), h.sut.mutant().map(str::to_string));
    let finding = Finding { path: f.to_path_buf(), oracle: o.id.to_string(), sut, mutant, signature, size: counts(&p), shrunk };
    Ok(Some((finding, print(&p))))
}
