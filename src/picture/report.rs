//! A campaign's page (`racefuzz fuzz --report`, `racefuzz merge --report`): its JSON summary
//! as one HTML page, with links to each distinct failure's smallest finding and that
//! finding's witness page ([`super::page`]).

use std::fmt::Write;

use race_oracles::theorems::rules;

use super::esc;
use crate::summary::{Merged, OracleTotals, Rules, Run, Summary, FEATURES};

/// A campaign's report as one HTML page, from its summary (`racefuzz fuzz --json`,
/// docs/json/fuzz.schema.json, or `racefuzz merge --json`, docs/json/merge.schema.json): per
/// oracle checked, pass, fail and inconclusive, programs per second, the programs using each
/// feature, the rule coverage of its SUT (each case of its spec rules with the programs on
/// which it fired, marked when never reached or below the floor without a reason,
/// `theorems::rules`), and each distinct failure with its count and links to its smallest
/// finding, the finding's witness page (written beside it) and its shrunk program.
pub fn campaign_report(summary: &Summary) -> String {
    let mut s = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>racefuzz campaign</title>\n<style>\nbody { font-family: sans-serif; margin: 1.5em; color: #222; }\ntable { border-collapse: collapse; }\ntd, th { border: 1px solid #ccc; padding: .3em .7em; text-align: right; }\ntd.name, th.name { text-align: left; font-family: monospace; }\ntr.failing td { background: #ffd6d6; }\ntr.never td { background: #ffd6d6; }\ntr.below-floor td { background: #ffedc2; }\ntr.rare td { color: #666; }\ntd.note { text-align: left; }\ncaption { text-align: left; font-weight: bold; padding: .4em 0; }\n</style>\n</head>\n<body>\n<h1>racefuzz campaign</h1>\n");
    let per_oracle = match summary {
        Summary::Run(r) => {
            run_header(&mut s, r);
            &r.per_oracle
        }
        Summary::Merged(m) => {
            merge_header(&mut s, m);
            &m.per_oracle
        }
    };
    oracles_table(&mut s, per_oracle);
    features_table(&mut s, per_oracle);
    s.push_str("<h2>Rule coverage</h2>\n");
    if per_oracle.iter().all(|o| o.rules.is_none()) {
        s.push_str("<p id=\"no-rules\">not recorded (run the campaign with --rules, or --report)</p>\n");
    } else {
        let _ = writeln!(
            s,
            "<p>Per oracle, the cases of its SUT's spec rules and the programs on whose check each fired, counted from the SUT's behaviour. A case that never fired, or fired in fewer than {}% of the programs without a reason the rule table gives (rare), is marked.</p>",
            rules::FLOOR_PERCENT
        );
    }
    for o in per_oracle {
        if let Some(r) = &o.rules {
            rules_section(&mut s, &o.oracle, r);
        }
    }
    // Each failure: its count, signature, smallest finding (with its witness page) and
    // shrunk program (a merge keeps none).
    let failures: Vec<(u64, &str, Option<&std::path::Path>, Option<&std::path::Path>)> = match summary {
        Summary::Run(r) => r.signatures.iter().map(|g| (g.count, g.signature.as_str(), g.smallest.as_deref(), g.shrunk.as_deref())).collect(),
        Summary::Merged(m) => m.signatures.iter().map(|g| (g.count, g.signature.as_str(), g.smallest.as_deref(), None)).collect(),
    };
    failures_table(&mut s, &failures);
    s.push_str("</body>\n</html>\n");
    s
}

/// One run's totals line: its programs, time, rate and settings.
fn run_header(s: &mut String, r: &Run) {
    let rate = if r.elapsed_s > 0.0 { format!("{:.0}", r.programs as f64 / r.elapsed_s) } else { "-".into() };
    let _ = writeln!(
        s,
        "<p id=\"totals\">{} programs in {:.1} s ({rate} programs/s), seed {}, {} job(s){}{}; stopped by {}</p>",
        r.programs,
        r.elapsed_s,
        r.seed,
        r.jobs,
        r.mutant.as_ref().map(|m| format!(", mutant {}", esc(m))).unwrap_or_default(),
        r.sut.as_ref().map(|m| format!(", SUT {}", esc(m))).unwrap_or_default(),
        esc(r.stopped_by.name())
    );
}

/// A merge's totals line, its inputs, the shards present and missing, and its notes,
/// instead of one run's settings.
fn merge_header(s: &mut String, m: &Merged) {
    let _ = writeln!(s, "<p id=\"totals\">{} programs, merged from {} summary file(s) and {} finding(s)</p>", m.programs, m.summaries.len(), m.findings);
    for sh in &m.shards {
        let list = |v: &[u64]| v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        let missing = if sh.missing.is_empty() { "all of them".to_string() } else { format!("missing: {}", list(&sh.missing)) };
        let mutant = sh.mutant.as_ref().map(|m| format!(", mutant {}", esc(m))).unwrap_or_default();
        let _ = writeln!(s, "<p class=\"shards\">seed {}{mutant}: shard(s) {} of {} ({missing})</p>", sh.seed, list(&sh.present), sh.count);
    }
    for n in &m.notes {
        let _ = writeln!(s, "<p class=\"note\">note: {}</p>", esc(n));
    }
}

/// Per oracle: checked, pass, fail and inconclusive; a failing oracle's row is marked.
fn oracles_table(s: &mut String, per_oracle: &[OracleTotals]) {
    s.push_str("<table id=\"oracles\">\n<tr><th class=\"name\">oracle</th><th>checked</th><th>pass</th><th>fail</th><th>inconclusive</th></tr>\n");
    for o in per_oracle {
        let _ = writeln!(
            s,
            "<tr class=\"oracle{}\"><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if o.fail > 0 { " failing" } else { "" },
            esc(&o.oracle),
            o.checked,
            o.pass,
            o.fail,
            o.inconclusive
        );
    }
    s.push_str("</table>\n");
}

/// Per oracle, the programs using each of [`FEATURES`] (in its order), with their share of
/// the programs checked; `-` for an oracle whose summary counted none (an older version's).
/// No table when no oracle has counts.
fn features_table(s: &mut String, per_oracle: &[OracleTotals]) {
    if per_oracle.iter().all(|o| o.features.is_none()) {
        return;
    }
    s.push_str("<h2>Feature coverage</h2>\n<p>Programs of each oracle that use a feature anywhere (a lock, acquire or sync block; a call; a loop; a branch; a fork).</p>\n<table id=\"features\">\n<tr><th class=\"name\">oracle</th>");
    for f in FEATURES {
        let _ = write!(s, "<th>{}</th>", esc(f));
    }
    s.push_str("</tr>\n");
    for o in per_oracle {
        let _ = write!(s, "<tr class=\"feature\"><td class=\"name\">{}</td>", esc(&o.oracle));
        match &o.features {
            Some(fs) => {
                for k in fs.counts() {
                    let _ = write!(s, "<td>{k} ({})</td>", percent(k, o.checked));
                }
            }
            None => s.push_str(&"<td>-</td>".repeat(FEATURES.len())),
        }
        s.push_str("</tr>\n");
    }
    s.push_str("</table>\n");
}

/// One oracle's rule coverage: each table of its SUT's rules, each case with its count and
/// share, a case never reached or below the floor without a reason marked.
fn rules_section(s: &mut String, oracle: &str, r: &Rules) {
    let floor = rules::FLOOR_PERCENT;
    let n = r.programs;
    let mutant = r.mutant.as_ref().map(|m| format!(" with mutant <code>{}</code>", esc(m))).unwrap_or_default();
    let _ = writeln!(
        s,
        "<section class=\"rules\" id=\"rules-{}\">\n<h3><code>{}</code>: rule cases of SUT <code>{}</code>{mutant}, over {n} program(s)</h3>",
        esc(oracle),
        esc(oracle),
        esc(&r.sut)
    );
    if r.tables.is_empty() {
        s.push_str("<p class=\"note\">this SUT declares no rule cases</p>\n");
    }
    for t in &r.tables {
        let _ = writeln!(
            s,
            "<table class=\"rule-table\">\n<caption>{} ({})</caption>\n<tr><th class=\"name\">case</th><th class=\"name\">spec</th><th>programs</th><th>percent</th><th class=\"note\"></th></tr>",
            esc(&t.sut),
            esc(&t.spec)
        );
        for c in &t.cases {
            let k = c.programs;
            let under = rules::percent(k, n) < floor;
            let (class, note) = match &c.rare {
                _ if c.below_floor && k == 0 => ("never", "never reached".to_string()),
                _ if c.below_floor => ("below-floor", format!("below the floor of {floor}%")),
                Some(why) if under => ("rare", format!("{}rare: {why}", if k == 0 { "never reached; " } else { "" })),
                _ => ("reached", String::new()),
            };
            let _ = writeln!(
                s,
                "<tr class=\"case {class}\"><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{k}</td><td>{}</td><td class=\"note\">{}</td></tr>",
                esc(&c.case),
                esc(&c.spec),
                percent(k, n),
                esc(&note)
            );
        }
        s.push_str("</table>\n");
    }
    for note in &r.not_exercised {
        let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(note));
    }
    s.push_str("</section>\n");
}

/// The distinct failures (count, signature, smallest finding, shrunk program), each
/// smallest finding with a link to its witness page, `HASH.html` beside it.
fn failures_table(s: &mut String, failures: &[(u64, &str, Option<&std::path::Path>, Option<&std::path::Path>)]) {
    if failures.is_empty() {
        s.push_str("<p id=\"failures\">no counterexample</p>\n");
        return;
    }
    let _ = writeln!(s, "<h2>Distinct failures</h2>\n<table id=\"failures\">\n<tr><th>programs</th><th class=\"name\">signature</th><th class=\"name\">smallest</th><th class=\"name\">shrunk</th></tr>");
    for (count, signature, smallest, shrunk) in failures {
        let smallest = smallest.map_or_else(String::new, |p| {
            let (page, p) = (p.with_extension("html"), p.display().to_string());
            format!("<a class=\"smallest\" href=\"{}\">{}</a> (<a href=\"{}\">witness</a>)", esc(&p), esc(&p), esc(&page.display().to_string()))
        });
        let shrunk = shrunk.map_or_else(String::new, |p| {
            let p = p.display().to_string();
            format!("<a class=\"shrunk\" href=\"{}\">{}</a>", esc(&p), esc(&p))
        });
        let _ =
            writeln!(s, "<tr class=\"failure\"><td>{count}</td><td class=\"name\">{}</td><td class=\"name\">{smallest}</td><td class=\"name\">{shrunk}</td></tr>", esc(signature));
    }
    s.push_str("</table>\n");
}

/// `k` of `n` as a percentage with one decimal.
fn percent(k: u64, n: u64) -> String {
    format!("{:.1}%", rules::percent(k, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run's summary from the keys a test cares about; the rest as a run without a
    /// shard, time limit or findings written has them.
    fn run(mut keys: serde_json::Value) -> Summary {
        let mut doc = serde_json::json!({
            "oracles": [], "seed": 1, "jobs": 1, "mutant": null, "sut": null, "time_limit_s": null, "max_programs": null, "shard": null,
            "stopped_by": "max-programs", "elapsed_s": 0.0, "programs": 0, "per_oracle": [], "failing_programs": 0, "written": 0, "signatures": [],
        });
        doc.as_object_mut().unwrap().append(keys.as_object_mut().unwrap());
        let summary: Summary = serde_json::from_value(doc).unwrap();
        assert!(matches!(summary, Summary::Run(_)));
        summary
    }

    #[test]
    fn a_campaign_report_lists_every_oracle_and_links_each_failure() {
        let summary = run(serde_json::json!({
            "seed": 1, "jobs": 2, "mutant": "ft-release-no-tick", "sut": null, "stopped_by": "max-programs", "elapsed_s": 2.0, "programs": 300,
            "per_oracle": [
                { "oracle": "fasttrack-precise", "checked": 150, "pass": 149, "fail": 1, "inconclusive": 0, "programs_hash": "0000000000000001",
                  "features": { "branch": 75, "call": 0, "fork": 3, "lock": 150, "loop": 30 },
                  "rules": { "sut": "fasttrack", "mutant": "ft-release-no-tick", "programs": 150, "not_exercised": [],
                    "tables": [{ "sut": "FastTrack", "spec": "bigfoot.md §1.6", "cases": [
                        { "case": "READ same epoch", "spec": "§1.6 READ line 1", "rare": null, "programs": 60, "below_floor": false },
                        { "case": "READ shared", "spec": "§1.6 READ line 4", "rare": null, "programs": 1, "below_floor": true },
                        { "case": "FORK", "spec": "§1.6 FORK", "rare": null, "programs": 0, "below_floor": true },
                        { "case": "JOIN", "spec": "§1.6 JOIN", "rare": "needs <a fork>", "programs": 0, "below_floor": false },
                    ] }] } },
                { "oracle": "explorer-agree", "checked": 150, "pass": 150, "fail": 0, "inconclusive": 0, "programs_hash": "0000000000000002",
                  "features": { "branch": 0, "call": 0, "fork": 0, "lock": 0, "loop": 0 },
                  "rules": { "sut": "explorers", "mutant": null, "programs": 150, "tables": [], "not_exercised": ["rule coverage: X not exercised"] } },
            ],
            "signatures": [{ "signature": "fasttrack-precise [MISSED] @ load: racy locations of every trace", "oracle": "fasttrack-precise", "count": 1,
                "written": ["/f/a.race"], "smallest": "/f/a.race", "smallest_statements": 4, "shrunk": "/f/a.shrunk.race", "shrunk_statements": 2 }],
        }));
        let page = campaign_report(&summary);
        assert!(page.contains("300 programs in 2.0 s (150 programs/s), seed 1, 2 job(s), mutant ft-release-no-tick; stopped by max-programs"), "{page}");
        assert_eq!(page.matches("<tr class=\"oracle").count(), 2, "{page}");
        assert_eq!(page.matches("<tr class=\"oracle failing\">").count(), 1, "{page}");
        assert!(
            page.contains("<a class=\"smallest\" href=\"/f/a.race\">/f/a.race</a> (<a href=\"/f/a.html\">witness</a>)") && page.contains("href=\"/f/a.shrunk.race\""),
            "{page}"
        );
        // Features: per oracle, count and share of its checked programs, in FEATURES's order.
        assert!(page.contains("<tr><th class=\"name\">oracle</th><th>lock</th><th>call</th><th>loop</th><th>branch</th><th>fork</th></tr>"), "{page}");
        assert!(
            page.contains("<td class=\"name\">fasttrack-precise</td><td>150 (100.0%)</td><td>0 (0.0%)</td><td>30 (20.0%)</td><td>75 (50.0%)</td><td>3 (2.0%)</td></tr>"),
            "{page}"
        );
        // Rules: which SUT (and mutant) the cases are of, each case's count and share, and
        // the unreached and below-floor cases marked, a rare one with its (escaped) reason.
        assert!(page.contains("rule cases of SUT <code>fasttrack</code> with mutant <code>ft-release-no-tick</code>, over 150 program(s)"), "{page}");
        let rows: Vec<&str> = page.lines().filter(|l| l.starts_with("<tr class=\"case")).collect();
        assert_eq!(
            rows,
            [
                "<tr class=\"case reached\"><td class=\"name\">READ same epoch</td><td class=\"name\">§1.6 READ line 1</td><td>60</td><td>40.0%</td><td class=\"note\"></td></tr>",
                "<tr class=\"case below-floor\"><td class=\"name\">READ shared</td><td class=\"name\">§1.6 READ line 4</td><td>1</td><td>0.7%</td><td class=\"note\">below the floor of 1%</td></tr>",
                "<tr class=\"case never\"><td class=\"name\">FORK</td><td class=\"name\">§1.6 FORK</td><td>0</td><td>0.0%</td><td class=\"note\">never reached</td></tr>",
                "<tr class=\"case rare\"><td class=\"name\">JOIN</td><td class=\"name\">§1.6 JOIN</td><td>0</td><td>0.0%</td><td class=\"note\">never reached; rare: needs &lt;a fork&gt;</td></tr>",
            ],
            "{page}"
        );
        assert!(page.contains("<caption>FastTrack (bigfoot.md §1.6)</caption>"), "{page}");
        assert!(page.contains("rule cases of SUT <code>explorers</code>, over 150 program(s)</h3>\n<p class=\"note\">this SUT declares no rule cases</p>\n<p class=\"note\">rule coverage: X not exercised</p>"), "{page}");
        let bare = campaign_report(&run(serde_json::json!({ "per_oracle": [{ "oracle": "o", "checked": 0, "pass": 0, "fail": 0, "inconclusive": 0, "rules": null }] })));
        assert!(bare.contains("no counterexample") && bare.contains("<p id=\"no-rules\">not recorded") && !bare.contains("id=\"features\""), "{bare}");
    }

    #[test]
    fn a_merge_report_lists_its_shards_and_notes_and_marks_counts_it_lacks() {
        let merged: Summary = serde_json::from_value(serde_json::json!({
            "summaries": ["a/summary-shard-0-of-3.json", "b/summary-shard-2-of-3.json"], "duplicate_summaries": [], "findings": 1, "duplicate_findings": 0,
            "shards": [{ "seed": 7, "mutant": "m<1>", "count": 3, "present": [0, 2], "missing": [1] }],
            "programs": 40,
            "per_oracle": [
                { "oracle": "new", "checked": 20, "pass": 20, "fail": 0, "inconclusive": 0, "programs_hash": null,
                  "features": { "branch": 5, "call": 0, "fork": 0, "lock": 10, "loop": 0 }, "rules": null },
                { "oracle": "old", "checked": 20, "pass": 19, "fail": 1, "inconclusive": 0, "programs_hash": null, "features": null, "rules": null },
            ],
            "failing_programs": 1,
            "signatures": [{ "signature": "old [MISSED] @ load: x", "oracle": "old", "mutant": "m<1>", "sut": null, "count": 1, "files": ["/f/b.race"], "smallest": "/f/b.race", "smallest_statements": 3 }],
            "notes": ["the rule coverage of <x> differs"],
        }))
        .unwrap();
        assert!(matches!(merged, Summary::Merged(_)));
        let page = campaign_report(&merged);
        assert!(page.contains("<p id=\"totals\">40 programs, merged from 2 summary file(s) and 1 finding(s)</p>"), "{page}");
        assert!(page.contains("<p class=\"shards\">seed 7, mutant m&lt;1&gt;: shard(s) 0, 2 of 3 (missing: 1)</p>"), "{page}");
        assert!(page.contains("<p class=\"note\">note: the rule coverage of &lt;x&gt; differs</p>"), "{page}");
        // An oracle whose summaries counted no features has none to show, not zeros.
        assert!(page.contains("<td class=\"name\">new</td><td>10 (50.0%)</td><td>0 (0.0%)</td><td>0 (0.0%)</td><td>5 (25.0%)</td><td>0 (0.0%)</td></tr>"), "{page}");
        assert!(page.contains("<td class=\"name\">old</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td></tr>"), "{page}");
        // A merge keeps no shrunk program: its cell is empty.
        assert!(page.contains("<a class=\"smallest\" href=\"/f/b.race\">/f/b.race</a> (<a href=\"/f/b.html\">witness</a>)</td><td class=\"name\"></td></tr>"), "{page}");
    }
}
