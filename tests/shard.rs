//! Sharded campaigns and `racefuzz merge`: N shards of one seed check exactly the programs
//! of one unsharded run (compared by the per-oracle program hashes of their summaries), and
//! merging their folders gives the unsharded run's totals and failures.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const SHARDS: u64 = 4;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("racefuzz-shard-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs racefuzz in `dir` with `env`; returns the exit code and stdout (stderr on failure to
/// parse is in the panic message).
fn racefuzz(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_racefuzz"));
    cmd.args(args).current_dir(dir).env_remove("RACEFUZZ_SHARD");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))).unwrap()
}

/// Per oracle: (checked, pass, fail, inconclusive, programs hash).
fn totals(doc: &Value) -> Vec<(String, u64, u64, u64, u64, String)> {
    doc["per_oracle"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            let n = |k: &str| o[k].as_u64().unwrap();
            (o["oracle"].as_str().unwrap().to_string(), n("checked"), n("pass"), n("fail"), n("inconclusive"), o["programs_hash"].as_str().unwrap().to_string())
        })
        .collect()
}

/// Runs the campaign `args` whole (into `whole/`) and as SHARDS shards (into `shard-K/`;
/// the odd ones get their index from RACEFUZZ_SHARD, as a job array passes it). Returns the
/// whole run's summary and the shards' summary files.
fn whole_and_shards(dir: &Path, args: &[&str]) -> (Value, Vec<Value>) {
    fn with<'a>(args: &[&'a str], out: &'a str) -> Vec<&'a str> {
        [args, &["--out", out]].concat()
    }
    let (code, _, err) = racefuzz(dir, &with(args, "whole"), &[]);
    assert!(code == 0 || code == 1, "whole run: exit {code}: {err}");
    let whole = read_json(&dir.join("whole/summary.json"));
    let shards = (0..SHARDS)
        .map(|k| {
            let out = format!("shard-{k}");
            let spec = format!("{k}/{SHARDS}");
            let (code, _, err) = if k % 2 == 0 {
                racefuzz(dir, &[with(args, &out).as_slice(), &["--shard", &spec]].concat(), &[])
            } else {
                racefuzz(dir, &with(args, &out), &[("RACEFUZZ_SHARD", &spec)])
            };
            assert!(code == 0 || code == 1, "shard {spec}: exit {code}: {err}");
            let doc = read_json(&dir.join(&out).join(format!("summary-shard-{k}-of-{SHARDS}.json")));
            assert_eq!((doc["shard"]["index"].as_u64(), doc["shard"]["count"].as_u64()), (Some(k), Some(SHARDS)));
            doc
        })
        .collect();
    (whole, shards)
}

/// The shards' totals added up, program hashes by wrapping sum.
fn added(shards: &[Value]) -> Vec<(String, u64, u64, u64, u64, String)> {
    let mut sum: Vec<(String, u64, u64, u64, u64, u64)> = vec![];
    for s in shards {
        for (i, (o, c, p, f, u, h)) in totals(s).into_iter().enumerate() {
            if sum.len() <= i {
                sum.push((o.clone(), 0, 0, 0, 0, 0));
            }
            let t = &mut sum[i];
            assert_eq!(t.0, o);
            (t.1, t.2, t.3, t.4) = (t.1 + c, t.2 + p, t.3 + f, t.4 + u);
            t.5 = t.5.wrapping_add(u64::from_str_radix(&h, 16).unwrap());
        }
    }
    sum.into_iter().map(|(o, c, p, f, u, h)| (o, c, p, f, u, format!("{h:016x}"))).collect()
}

/// The feature counts (`what` = "features") or rule-case counts ("rules") of a summary, by
/// oracle and name; the rules' programs recorded count as the case "".
fn coverage(doc: &Value, what: &str) -> std::collections::BTreeMap<String, u64> {
    let mut out = std::collections::BTreeMap::new();
    for o in doc["per_oracle"].as_array().unwrap() {
        let id = o["oracle"].as_str().unwrap();
        if what == "features" {
            for (f, n) in o["features"].as_object().unwrap() {
                out.insert(format!("{id} {f}"), n.as_u64().unwrap());
            }
            continue;
        }
        let r = &o["rules"];
        out.insert(format!("{id} "), r["programs"].as_u64().unwrap());
        for t in r["tables"].as_array().unwrap() {
            for c in t["cases"].as_array().unwrap() {
                out.insert(format!("{id} {}: {}", t["sut"].as_str().unwrap(), c["case"].as_str().unwrap()), c["programs"].as_u64().unwrap());
            }
        }
    }
    out
}

/// [`coverage`] added up over the shards.
fn added_coverage(shards: &[Value], what: &str) -> std::collections::BTreeMap<String, u64> {
    let mut sum = std::collections::BTreeMap::new();
    for s in shards {
        for (k, n) in coverage(s, what) {
            *sum.entry(k).or_default() += n;
        }
    }
    sum
}

fn merge(dir: &Path, folders: &[&str]) -> (i32, Value) {
    let args: Vec<&str> = ["merge"].into_iter().chain(folders.iter().copied()).chain(["--json", "--out", "merged.json"]).collect();
    let (code, out, err) = racefuzz(dir, &args, &[]);
    let doc: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("merge: exit {code}, {e}: {out}{err}"));
    assert_eq!(doc, read_json(&dir.join("merged.json")), "merge prints what it writes");
    (code, doc)
}

/// `racefuzz merge FOLDERS --report report.html`: the page.
fn merge_report(dir: &Path, folders: &[&str]) -> String {
    let args: Vec<&str> = ["merge"].into_iter().chain(folders.iter().copied()).chain(["--out", "merged.json", "--report", "report.html"]).collect();
    let (code, out, err) = racefuzz(dir, &args, &[]);
    assert!(code <= 1 && err.contains("wrote report.html"), "merge --report: exit {code}: {out}{err}");
    std::fs::read_to_string(dir.join("report.html")).unwrap()
}

#[test]
fn four_shards_check_the_programs_of_one_run_and_merge_to_its_totals() {
    let dir = scratch("union");
    // 22 programs per oracle: the shards get 6, 6, 5 and 5.
    let (whole, shards) = whole_and_shards(&dir, &["fuzz", "racerdx-tp", "fasttrack-precise", "--max-programs", "22", "--seed", "3", "--rules"]);
    let want = totals(&whole);
    assert_eq!(want.iter().map(|t| t.1).collect::<Vec<_>>(), [22, 22], "{whole}");
    let checked: Vec<u64> = shards.iter().map(|s| totals(s)[0].1).collect();
    assert_eq!(checked, [6, 6, 5, 5]);
    // Every shard checked programs of its own: no two shards' hashes are equal.
    let hashes: std::collections::BTreeSet<String> = shards.iter().map(|s| totals(s)[0].5.clone()).collect();
    assert_eq!(hashes.len(), SHARDS as usize);
    assert_eq!(added(&shards), want, "the shards' union is not the whole run");
    // Feature and rule counts add up too: the shards' sums are the whole run's, and not vacuously.
    let (features, rules) = (coverage(&whole, "features"), coverage(&whole, "rules"));
    assert!(features.values().filter(|&&n| n > 0).count() >= 4 && rules.values().filter(|&&n| n > 0).count() >= 20, "{features:?} {rules:?}");
    assert_eq!(added_coverage(&shards, "features"), features);
    assert_eq!(added_coverage(&shards, "rules"), rules);
    let (code, merged) = merge(&dir, &["shard-0", "shard-1", "shard-2", "shard-3"]);
    assert_eq!(code, 0, "{merged}");
    assert_eq!(totals(&merged), want);
    assert_eq!(merged["programs"], whole["programs"]);
    assert_eq!((coverage(&merged, "features"), coverage(&merged, "rules")), (features, rules));
    for (m, w) in merged["per_oracle"].as_array().unwrap().iter().zip(whole["per_oracle"].as_array().unwrap()) {
        assert_eq!(m["rules"], w["rules"], "merged rule coverage (with its floor flags) differs from the whole run's");
    }
    assert_eq!(merged["shards"][0]["missing"], serde_json::json!([]), "{merged}");
    // Three shards of four: said, and the totals fall short.
    let (_, part) = merge(&dir, &["shard-0", "shard-1", "shard-3"]);
    assert_eq!(part["shards"][0]["missing"], serde_json::json!([2]), "{part}");
    assert_ne!(totals(&part), want);
    // The page of that merge says so, and adds up what the three shards checked.
    let page = merge_report(&dir, &["shard-0", "shard-1", "shard-3"]);
    let checked = totals(&part)[0].1;
    assert!(page.contains(&format!("<p id=\"totals\">{} programs, merged from 3 summary file(s)", part["programs"])), "{page}");
    assert!(page.contains("shard(s) 0, 1, 3 of 4 (missing: 2)") && page.contains(&format!("<td class=\"name\">racerdx-tp</td><td>{checked}</td>")), "{page}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merge_deduplicates_the_findings_of_a_seeded_bug() {
    let dir = scratch("mutant");
    let (whole, shards) = whole_and_shards(&dir, &["fuzz", "fasttrack-precise", "--mutant", "ft-acquire-no-join", "--max-programs", "200", "--seed", "1", "--keep", "1"]);
    assert!(whole["failing_programs"].as_u64().unwrap() >= 2, "the seeded bug was not found: {whole}");
    assert_eq!(added(&shards), totals(&whole));
    let signatures = |doc: &Value| -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> =
            doc["signatures"].as_array().unwrap().iter().map(|g| (g["signature"].as_str().unwrap().to_string(), g["count"].as_u64().unwrap())).collect();
        v.sort();
        v
    };
    let (code, merged) = merge(&dir, &["shard-0", "shard-1", "shard-2", "shard-3"]);
    assert_eq!(code, 1, "a merge with failures exits 1: {merged}");
    assert_eq!(signatures(&merged), signatures(&whole));
    // Its page: every shard, each distinct failure once, linked to its smallest finding
    // (an absolute path, so the link works wherever the page goes) and that finding's page.
    let page = merge_report(&dir, &["shard-0", "shard-1", "shard-2", "shard-3"]);
    assert!(page.contains("shard(s) 0, 1, 2, 3 of 4 (all of them)"), "{page}");
    assert_eq!(page.matches("<tr class=\"failure\">").count(), signatures(&merged).len(), "{page}");
    for g in merged["signatures"].as_array().unwrap() {
        let smallest = std::fs::canonicalize(dir.join(g["smallest"].as_str().unwrap())).unwrap();
        assert!(page.contains(&format!("href=\"{}\"", smallest.display())) && smallest.with_extension("html").exists(), "{page}");
    }
    assert_eq!(totals(&merged), totals(&whole));
    // The whole run's findings are the shards' programs again: each counts once, and the
    // smallest witness of each failure is one of the files read.
    let (_, both) = merge(&dir, &["shard-0", "shard-1", "shard-2", "shard-3", "whole"]);
    // Finding files are named by their program's hash: the distinct names are the distinct findings.
    let names = |folder: &str| -> Vec<String> {
        // A shard that found nothing has no folder for the oracle.
        // (and beside each finding, its witness page: not a finding).
        std::fs::read_dir(dir.join(folder).join("fasttrack-precise"))
            .map_or(vec![], |rd| rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).filter(|n| n.ends_with(".race")).collect())
    };
    let shard_names: std::collections::BTreeSet<String> = (0..SHARDS).flat_map(|k| names(&format!("shard-{k}"))).collect();
    let whole_names = names("whole");
    assert!(!whole_names.is_empty());
    assert_eq!(merged["findings"].as_u64(), Some(shard_names.len() as u64), "{merged}");
    let again = whole_names.iter().filter(|n| shard_names.contains(*n)).count();
    assert!(again >= 1, "the whole run's first finding is a shard's first finding too");
    assert_eq!(both["duplicate_findings"].as_u64(), Some(again as u64), "{both}");
    assert_eq!(both["findings"].as_u64(), Some((shard_names.len() + whole_names.len() - again) as u64), "{both}");
    assert_eq!(signatures(&both).len(), signatures(&whole).len());
    for g in both["signatures"].as_array().unwrap() {
        let smallest = g["smallest"].as_str().unwrap();
        assert!(g["files"].as_array().unwrap().iter().any(|f| f == smallest), "{g}");
    }
    assert!(both["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("same streams")), "the overlap of whole and shards is not said: {both}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn merge_names_the_file_it_cannot_read() {
    let dir = scratch("bad");
    std::fs::create_dir_all(dir.join("run/racerdx-tp")).unwrap();
    std::fs::write(dir.join("run/racerdx-tp/x.race"), "dialect racerdx\nmethod m() {\n  skip\n}\n").unwrap();
    let (code, _, err) = racefuzz(&dir, &["merge", "run"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("run/racerdx-tp/x.race") && err.contains("not a racefuzz finding"), "{err}");
    std::fs::remove_file(dir.join("run/racerdx-tp/x.race")).unwrap();
    std::fs::write(dir.join("run/summary.json"), "{\"seed\": 1}").unwrap();
    let (code, _, err) = racefuzz(&dir, &["merge", "run"], &[]);
    assert_eq!(code, 2);
    assert!(err.contains("run/summary.json") && err.contains("not a `racefuzz fuzz` summary"), "{err}");
    let (code, _, err) = racefuzz(&dir, &["fuzz", "racerdx-tp", "--max-programs", "1", "--out", "o"], &[("RACEFUZZ_SHARD", "4/4")]);
    assert_eq!(code, 2);
    assert!(err.contains("RACEFUZZ_SHARD") && err.contains("4/4"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
