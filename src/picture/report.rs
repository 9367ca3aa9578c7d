//! A campaign's page (`racefuzz fuzz --report`, `racefuzz merge --report`): its JSON summary
//! as one HTML page, with links to each distinct failure's smallest finding and that
//! finding's witness page ([`super::page`]).

use std::fmt::Write;

use race_oracles::theorems::rules;

use super::esc;

/// A campaign's report as one HTML page, from its JSON summary (`racefuzz fuzz --json`,
/// docs/json/fuzz.schema.json): per oracle checked, pass, fail and inconclusive, programs
/// per second, the programs using each feature, the rule coverage of its SUT (each case of
/// its spec rules with the programs on which it fired, marked when never reached or below
/// the floor without a reason, `theorems::rules`), and each distinct failure with its count
/// and links to its smallest finding, the finding's witness page (written beside it) and
/// its shrunk program.
pub fn campaign_report(summary: &serde_json::Value) -> String {
    use race_oracles::theorems::rules::FLOOR_PERCENT;
    let percent = |k: u64, n: u64| format!("{:.1}%", rules::percent(k, n));
    let text = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
    let num = |v: &serde_json::Value| v.as_u64().unwrap_or(0);
    let elapsed = summary["elapsed_s"].as_f64().unwrap_or(0.0);
    let programs = num(&summary["programs"]);
    let rate = if elapsed > 0.0 { format!("{:.0}", programs as f64 / elapsed) } else { "-".into() };
    let mut s = String::from("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>racefuzz campaign</title>\n<style>\nbody { font-family: sans-serif; margin: 1.5em; color: #222; }\ntable { border-collapse: collapse; }\ntd, th { border: 1px solid #ccc; padding: .3em .7em; text-align: right; }\ntd.name, th.name { text-align: left; font-family: monospace; }\ntr.failing td { background: #ffd6d6; }\ntr.never td { background: #ffd6d6; }\ntr.below-floor td { background: #ffedc2; }\ntr.rare td { color: #666; }\ntd.note { text-align: left; }\ncaption { text-align: left; font-weight: bold; padding: .4em 0; }\n</style>\n</head>\n<body>\n<h1>racefuzz campaign</h1>\n");
    if let Some(files) = summary["summaries"].as_array() {
        // A merge (`racefuzz merge`, docs/json/merge.schema.json): its inputs, the shards
        // present and missing, and its notes, instead of one run's settings.
        let _ = writeln!(s, "<p id=\"totals\">{programs} programs, merged from {} summary file(s) and {} finding(s)</p>", files.len(), num(&summary["findings"]));
        for sh in summary["shards"].as_array().into_iter().flatten() {
            let list = |v: &serde_json::Value| v.as_array().into_iter().flatten().map(|k| k.to_string()).collect::<Vec<_>>().join(", ");
            let missing = if sh["missing"].as_array().is_none_or(Vec::is_empty) { "all of them".to_string() } else { format!("missing: {}", list(&sh["missing"])) };
            let mutant = sh["mutant"].as_str().map(|m| format!(", mutant {}", esc(m))).unwrap_or_default();
            let _ = writeln!(s, "<p class=\"shards\">seed {}{mutant}: shard(s) {} of {} ({missing})</p>", text(&sh["seed"]), list(&sh["present"]), text(&sh["count"]));
        }
        for n in summary["notes"].as_array().into_iter().flatten() {
            let _ = writeln!(s, "<p class=\"note\">note: {}</p>", esc(&text(n)));
        }
    } else {
        let _ = writeln!(
            s,
            "<p id=\"totals\">{programs} programs in {elapsed:.1} s ({rate} programs/s), seed {}, {} job(s){}{}; stopped by {}</p>",
            text(&summary["seed"]),
            text(&summary["jobs"]),
            summary["mutant"].as_str().map(|m| format!(", mutant {}", esc(m))).unwrap_or_default(),
            summary["sut"].as_str().map(|m| format!(", SUT {}", esc(m))).unwrap_or_default(),
            esc(&text(&summary["stopped_by"]))
        );
    }
    s.push_str("<table id=\"oracles\">\n<tr><th class=\"name\">oracle</th><th>checked</th><th>pass</th><th>fail</th><th>inconclusive</th></tr>\n");
    for o in summary["per_oracle"].as_array().into_iter().flatten() {
        let failing = num(&o["fail"]) > 0;
        let _ = writeln!(
            s,
            "<tr class=\"oracle{}\"><td class=\"name\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            if failing { " failing" } else { "" },
            esc(&text(&o["oracle"])),
            num(&o["checked"]),
            num(&o["pass"]),
            num(&o["fail"]),
            num(&o["inconclusive"])
        );
    }
    s.push_str("</table>\n");
    let per_oracle: Vec<&serde_json::Value> = summary["per_oracle"].as_array().into_iter().flatten().collect();
    // Features: the names of the first oracle's counts, in campaign::FEATURES's order.
    let features: Vec<&str> = crate::campaign::FEATURES.iter().copied().filter(|f| per_oracle.iter().any(|o| o["features"].get(*f).is_some())).collect();
    if !features.is_empty() {
        s.push_str("<h2>Feature coverage</h2>\n<p>Programs of each oracle that use a feature anywhere (a lock, acquire or sync block; a call; a loop; a branch; a fork).</p>\n<table id=\"features\">\n<tr><th class=\"name\">oracle</th>");
        for f in &features {
            let _ = write!(s, "<th>{}</th>", esc(f));
        }
        s.push_str("</tr>\n");
        for o in &per_oracle {
            let _ = write!(s, "<tr class=\"feature\"><td class=\"name\">{}</td>", esc(&text(&o["oracle"])));
            for f in &features {
                let k = num(&o["features"][*f]);
                let _ = write!(s, "<td>{k} ({})</td>", percent(k, num(&o["checked"])));
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</table>\n");
    }
    s.push_str("<h2>Rule coverage</h2>\n");
    if per_oracle.iter().all(|o| o["rules"].is_null()) {
        s.push_str("<p id=\"no-rules\">not recorded (run the campaign with --rules, or --report)</p>\n");
    } else {
        let _ = writeln!(
            s,
            "<p>Per oracle, the cases of its SUT's spec rules and the programs on whose check each fired, counted from the SUT's behaviour. A case that never fired, or fired in fewer than {FLOOR_PERCENT}% of the programs without a reason the rule table gives (rare), is marked.</p>"
        );
    }
    for o in per_oracle.iter().filter(|o| o["rules"].is_object()) {
        let (id, r) = (text(&o["oracle"]), &o["rules"]);
        let n = num(&r["programs"]);
        let mutant = r["mutant"].as_str().map(|m| format!(" with mutant <code>{}</code>", esc(m))).unwrap_or_default();
        let _ = writeln!(
            s,
            "<section class=\"rules\" id=\"rules-{}\">\n<h3><code>{}</code>: rule cases of SUT <code>{}</code>{mutant}, over {n} program(s)</h3>",
            esc(&id),
            esc(&id),
            esc(&text(&r["sut"]))
        );
        let tables: Vec<&serde_json::Value> = r["tables"].as_array().into_iter().flatten().collect();
        if tables.is_empty() {
            s.push_str("<p class=\"note\">this SUT declares no rule cases</p>\n");
        }
        for t in tables {
            let _ = writeln!(
                s,
                "<table class=\"rule-table\">\n<caption>{} ({})</caption>\n<tr><th class=\"name\">case</th><th class=\"name\">spec</th><th>programs</th><th>percent</th><th class=\"note\"></th></tr>",
                esc(&text(&t["sut"])),
                esc(&text(&t["spec"]))
            );
            for c in t["cases"].as_array().into_iter().flatten() {
                let k = num(&c["programs"]);
                let below = c["below_floor"].as_bool() == Some(true);
                let under = rules::percent(k, n) < FLOOR_PERCENT;
                let (class, note) = match c["rare"].as_str() {
                    _ if below && k == 0 => ("never", "never reached".to_string()),
                    _ if below => ("below-floor", format!("below the floor of {FLOOR_PERCENT}%")),
                    Some(why) if under => ("rare", format!("{}rare: {why}", if k == 0 { "never reached; " } else { "" })),
                    _ => ("reached", String::new()),
                };
                let _ = writeln!(
                    s,
                    "<tr class=\"case {class}\"><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{k}</td><td>{}</td><td class=\"note\">{}</td></tr>",
                    esc(&text(&c["case"])),
                    esc(&text(&c["spec"])),
                    percent(k, n),
                    esc(&note)
                );
            }
            s.push_str("</table>\n");
        }
        for note in r["not_exercised"].as_array().into_iter().flatten() {
            let _ = writeln!(s, "<p class=\"note\">{}</p>", esc(&text(note)));
        }
        s.push_str("</section>\n");
    }
    let sigs: Vec<&serde_json::Value> = summary["signatures"].as_array().into_iter().flatten().collect();
    if sigs.is_empty() {
        s.push_str("<p id=\"failures\">no counterexample</p>\n");
    } else {
        let _ = writeln!(s, "<h2>Distinct failures</h2>\n<table id=\"failures\">\n<tr><th>programs</th><th class=\"name\">signature</th><th class=\"name\">smallest</th><th class=\"name\">shrunk</th></tr>");
        for g in sigs {
            let link = |v: &serde_json::Value, what: &str| {
                v.as_str().map_or_else(String::new, |p| {
                    let page = std::path::Path::new(p).with_extension("html");
                    format!("<a class=\"{what}\" href=\"{}\">{}</a> (<a href=\"{}\">witness</a>)", esc(p), esc(p), esc(&page.display().to_string()))
                })
            };
            let _ = writeln!(
                s,
                "<tr class=\"failure\"><td>{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td></tr>",
                num(&g["count"]),
                esc(&text(&g["signature"])),
                link(&g["smallest"], "smallest"),
                g["shrunk"].as_str().map(|p| format!("<a class=\"shrunk\" href=\"{}\">{}</a>", esc(p), esc(p))).unwrap_or_default()
            );
        }
        s.push_str("</table>\n");
    }
    s.push_str("</body>\n</html>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_campaign_report_lists_every_oracle_and_links_each_failure() {
        let summary = serde_json::json!({
            "seed": 1, "jobs": 2, "mutant": "ft-release-no-tick", "sut": null, "stopped_by": "max-programs", "elapsed_s": 2.0, "programs": 300,
            "per_oracle": [
                { "oracle": "fasttrack-precise", "checked": 150, "pass": 149, "fail": 1, "inconclusive": 0,
                  "features": { "branch": 75, "call": 0, "fork": 3, "lock": 150, "loop": 30 },
                  "rules": { "sut": "fasttrack", "mutant": "ft-release-no-tick", "programs": 150, "not_exercised": [],
                    "tables": [{ "sut": "FastTrack", "spec": "bigfoot.md §1.6", "cases": [
                        { "case": "READ same epoch", "spec": "§1.6 READ line 1", "rare": null, "programs": 60, "below_floor": false },
                        { "case": "READ shared", "spec": "§1.6 READ line 4", "rare": null, "programs": 1, "below_floor": true },
                        { "case": "FORK", "spec": "§1.6 FORK", "rare": null, "programs": 0, "below_floor": true },
                        { "case": "JOIN", "spec": "§1.6 JOIN", "rare": "needs <a fork>", "programs": 0, "below_floor": false },
                    ] }] } },
                { "oracle": "explorer-agree", "checked": 150, "pass": 150, "fail": 0, "inconclusive": 0,
                  "features": { "branch": 0, "call": 0, "fork": 0, "lock": 0, "loop": 0 },
                  "rules": { "sut": "explorers", "mutant": null, "programs": 150, "tables": [], "not_exercised": ["rule coverage: X not exercised"] } },
            ],
            "signatures": [{ "signature": "fasttrack-precise [MISSED] @ load: racy locations of every trace", "count": 1, "smallest": "/f/a.race", "shrunk": "/f/a.shrunk.race" }],
        });
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
        let bare = campaign_report(&serde_json::json!({ "signatures": [], "per_oracle": [{ "oracle": "o", "rules": null }] }));
        assert!(bare.contains("no counterexample") && bare.contains("<p id=\"no-rules\">not recorded") && !bare.contains("id=\"features\""), "{bare}");
    }
}
