//! Pictures of witnesses (`racefuzz::picture`): the SVG and DOT of a paper-sized witness
//! are snapshots (a person reads them); Graphviz reads the DOT; and a real browser
//! (headless Chromium) renders the HTML page of a failing check with its lanes, its racing
//! pair and its happens-before edges, keeping a screenshot for review in
//! `target/pictures/`. Graphviz and Chromium are installed by `.ci/run` when missing; here
//! a missing one fails the test with what to install, rather than skip it.

use std::path::{Path, PathBuf};
use std::process::Command;

use race_oracles::explore::{Config, Schedule, Witness};

/// The FastTrack walk-through witness: T1's read of o.g at line 13 races with T2's write at
/// line 19, after a lock hand-off on m.
fn witness() -> Witness {
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/walkthrough/ordered_and_not.race")).unwrap();
    let p = race_oracles::lang::parse(&src).unwrap();
    let s: Schedule = "1,1,1,1,2,2,2,2".parse().unwrap();
    race_oracles::truth::replay(&p, &Config::default(), None, &s).unwrap().witness
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/pictures").join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_witness_draws_its_lanes_edges_and_race() {
    let w = witness();
    let edges = racefuzz::picture::edges(&w);
    assert_eq!(edges.iter().map(|e| (e.from, e.to, e.label.as_str())).collect::<Vec<_>>(), vec![(2, 4, "rel m → acq m")]);
    insta::assert_snapshot!("ordered_and_not_svg", racefuzz::picture::svg(&w));
    insta::assert_snapshot!("ordered_and_not_dot", racefuzz::picture::dot(&w));
}

#[test]
fn graphviz_reads_the_dot() {
    let dir = scratch("dot");
    let (dot_file, svg_file) = (dir.join("w.dot"), dir.join("w.svg"));
    std::fs::write(&dot_file, racefuzz::picture::dot(&witness())).unwrap();
    let out = Command::new("dot").arg("-Tsvg").arg(&dot_file).arg("-o").arg(&svg_file).output();
    let out = out.unwrap_or_else(|e| panic!("the DOT test needs Graphviz's `dot` (apt-get install graphviz; .ci/run installs it): {e}"));
    assert!(out.status.success(), "dot rejected the witness: {}", String::from_utf8_lossy(&out.stderr));
    let svg = std::fs::read_to_string(&svg_file).unwrap();
    // Eight events, the race edge, the hand-off edge.
    assert!(svg.matches("class=\"node\"").count() == 8 && svg.contains("race") && svg.contains("rel m → acq m"), "{svg}");
}

/// `chromium --headless` on `page`: its DOM after loading, and a screenshot beside it.
fn browse(page: &Path) -> String {
    let shot = page.with_extension("png");
    let url = format!("file://{}", page.display());
    let run = |extra: &[&str]| {
        Command::new("chromium")
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--window-size=1100,900"])
            .args(extra)
            .arg(&url)
            .output()
            .unwrap_or_else(|e| panic!("the browser test needs Chromium (apt-get install chromium; .ci/run installs it): {e}"))
    };
    let dom = run(&["--dump-dom"]);
    assert!(dom.status.success(), "chromium failed on {url}: {}", String::from_utf8_lossy(&dom.stderr));
    let shot_arg = format!("--screenshot={}", shot.display());
    let s = run(&[&shot_arg]);
    assert!(s.status.success() && shot.exists(), "no screenshot of {url}: {}", String::from_utf8_lossy(&s.stderr));
    String::from_utf8_lossy(&dom.stdout).into_owned()
}

#[test]
fn a_browser_renders_the_page_of_a_failing_check() {
    let dir = scratch("html");
    let page = dir.join("fasttrack-mutant.html");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/walkthrough/ordered_and_not.race");
    let (code, _, err) = super::cli::racefuzz(&["check", "fasttrack-precise", file.to_str().unwrap(), "--mutant", "ft-release-no-tick", "--html", page.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    let dom = browse(&page);
    // What the browser built, not what racefuzz wrote: the parsed DOM.
    assert_eq!(dom.matches("class=\"lane\"").count(), 2, "{dom}");
    assert_eq!(dom.matches("class=\"event racing\"").count(), 2, "{dom}");
    assert_eq!(dom.matches("class=\"hb\"").count(), 1, "{dom}");
    assert_eq!(dom.matches("class=\"race\"").count(), 1, "{dom}");
    assert!(dom.contains("MISSED racy location(s): o.g") && dom.contains("class=\"racing-line\""), "{dom}");
}

/// A clock of a ShiViz log line `HOST {"T1":1, …}`.
fn clock(line: &str) -> (String, std::collections::BTreeMap<String, u64>) {
    let (host, json) = line.split_once(' ').unwrap();
    (host.to_string(), serde_json::from_str(json).unwrap_or_else(|e| panic!("`{json}` is no clock: {e}")))
}

#[test]
fn the_shiviz_log_has_a_vector_clock_per_event_and_the_race_is_concurrent() {
    let w = witness();
    let log = racefuzz::picture::shiviz(&w);
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2 * w.events.len(), "{log}");
    // ShiViz's default parser: `(?<host>\S*) (?<clock>{.*})\n(?<event>.*)`, each host's own
    // entry counting its events.
    let clocks: Vec<(String, std::collections::BTreeMap<String, u64>)> = lines.iter().step_by(2).map(|l| clock(l)).collect();
    let mut seen = std::collections::BTreeMap::new();
    for (host, c) in &clocks {
        let n = seen.entry(host.clone()).or_insert(0u64);
        *n += 1;
        assert_eq!(c.get(host), Some(&*n), "{log}");
    }
    let leq = |a: &std::collections::BTreeMap<String, u64>, b: &std::collections::BTreeMap<String, u64>| a.iter().all(|(k, v)| b.get(k).is_some_and(|x| v <= x));
    // The hand-off orders T1's release (row 2) before T2's acquire (row 4); the racing
    // rows 3 and 7 are concurrent.
    assert!(leq(&clocks[2].1, &clocks[4].1), "{log}");
    assert!(!leq(&clocks[3].1, &clocks[7].1) && !leq(&clocks[7].1, &clocks[3].1), "{log}");
    assert!(lines[7].ends_with("[racing]") && lines[15].ends_with("[racing]"), "{log}");
}

#[test]
fn the_sarif_names_the_race_at_both_lines_with_a_flow_per_thread() {
    let sarif = racefuzz::picture::sarif(&witness(), "examples/walkthrough/ordered_and_not.race");
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{sarif}");
    let r = &results[0];
    assert_eq!(r["ruleId"], "data-race");
    assert_eq!(r["locations"][0]["physicalLocation"]["region"]["startLine"], 19, "{sarif}");
    assert_eq!(r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"], 13, "{sarif}");
    let flows = r["codeFlows"][0]["threadFlows"].as_array().unwrap();
    assert_eq!(flows.iter().map(|f| f["locations"].as_array().unwrap().len()).collect::<Vec<_>>(), vec![4, 4], "{sarif}");
}

#[test]
fn every_campaign_finding_has_its_witness_page_beside_it_and_the_report_links_them() {
    let out = scratch("campaign");
    let _ = std::fs::remove_dir_all(&out);
    let report = out.join("report.html");
    let args =
        ["fuzz", "fasttrack-precise", "--mutant", "ft-join-no-join", "--max-programs", "60", "--seed", "1", "--out", out.to_str().unwrap(), "--report", report.to_str().unwrap()];
    let (code, _, err) = super::cli::racefuzz(&args);
    assert_eq!(code, 1, "{err}");
    // The campaign's report, as a browser builds it: the oracle's row, failing, and the
    // failure linked to its finding and that finding's witness page.
    let dom = browse(&report);
    assert_eq!(dom.matches("<tr class=\"oracle failing\">").count(), 1, "{dom}");
    assert_eq!(dom.matches("<tr class=\"failure\">").count(), 1, "{dom}");
    assert!(dom.contains("class=\"smallest\"") && dom.contains(".html\">witness</a>"), "{dom}");
    let findings: Vec<PathBuf> =
        std::fs::read_dir(out.join("fasttrack-precise")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "race")).collect();
    assert!(!findings.is_empty(), "{err}");
    for f in &findings {
        let page = std::fs::read_to_string(f.with_extension("html")).unwrap_or_else(|e| panic!("no page beside {}: {e}", f.display()));
        assert!(page.contains("<svg") && page.contains("id=\"verdict\"") && page.contains("fasttrack-precise with FastTrack (mutant ft-join-no-join): fail"), "{page}");
    }
}

/// The campaign report's rule coverage, read back from the page as a browser builds it:
/// per oracle section, each case's (table SUT, case, programs).
fn rule_rows(dom: &str) -> std::collections::BTreeMap<String, Vec<(String, String, usize)>> {
    let unescape = |s: &str| s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&");
    let cells = |row: &str| -> Vec<String> { row.split("<td").skip(1).map(|c| unescape(&c[c.find('>').unwrap() + 1..c.find("</td>").unwrap()])).collect() };
    let mut out = std::collections::BTreeMap::new();
    for section in dom.split("<section class=\"rules\" id=\"rules-").skip(1) {
        let section = &section[..section.find("</section>").unwrap()];
        let oracle = section[..section.find('"').unwrap()].to_string();
        let mut rows = vec![];
        for table in section.split("<caption>").skip(1) {
            let caption = unescape(&table[..table.find("</caption>").unwrap()]);
            let sut = caption[..caption.rfind(" (").unwrap()].to_string();
            for row in table.split("<tr class=\"case").skip(1) {
                let c = cells(&row[..row.find("</tr>").unwrap()]);
                rows.push((sut.clone(), c[0].clone(), c[2].parse().unwrap()));
            }
        }
        out.insert(oracle, rows);
    }
    out
}

#[test]
fn a_browser_renders_the_campaign_report_with_rule_counts_equal_to_a_measurement_of_the_same_programs() {
    use racefuzz::suts::Subject;
    let out = scratch("campaign-rules");
    let _ = std::fs::remove_dir_all(&out);
    let report = out.join("report.html");
    let (oracles, programs, seed) = (["fasttrack-precise", "bigfoot-precise", "explorer-agree"], 40, 7);
    let (n, seed_arg) = (programs.to_string(), seed.to_string());
    let args = [&["fuzz"][..], &oracles[..], &["--max-programs", &n, "--seed", &seed_arg, "--out", out.to_str().unwrap(), "--report", report.to_str().unwrap()]].concat();
    let (code, _, err) = super::cli::racefuzz(&args);
    assert_eq!(code, 0, "{err}");
    let dom = browse(&report);
    assert_eq!(dom.matches("<tr class=\"oracle\">").count(), oracles.len(), "{dom}");
    assert_eq!(dom.matches("<tr class=\"feature\">").count(), oracles.len(), "{dom}");
    let pages = rule_rows(&dom);
    assert_eq!(pages.keys().map(String::as_str).collect::<std::collections::BTreeSet<_>>(), oracles.into_iter().collect(), "{dom}");
    // The same programs (each oracle's stream of the campaign's one job), measured apart.
    let reg = race_oracles::theorems::Registry::builtin();
    let mut compared = 0;
    for (i, id) in oracles.iter().enumerate() {
        let o = *reg.find(id).unwrap();
        let subject = Subject::for_oracle(&o, None).unwrap();
        let tally = racefuzz::rule_coverage::measure(&o, &subject, programs, racefuzz::campaign::stream_seed(seed, 0, i));
        let (tables, _) = racefuzz::suts::exercised_rules(subject.entry(), o.id);
        let want: Vec<(String, String, usize)> = tally.rows(&tables).into_iter().map(|r| (r.sut.to_string(), r.case.name.to_string(), r.programs)).collect();
        assert_eq!(pages[*id], want, "{id}: the page's counts are not a measurement's");
        assert!(dom.contains(&format!("rule cases of SUT <code>{}</code>, over {programs} program(s)", subject.entry().name)), "{dom}");
        compared += want.len();
    }
    // Not vacuous: FastTrack's and BigFoot's tables, most of their cases reached, and one
    // SUT (the explorers) declaring none.
    assert!(compared > 60 && pages.values().flatten().filter(|r| r.2 > 0).count() > 40, "{pages:?}");
    assert!(pages["explorer-agree"].is_empty() && dom.contains("this SUT declares no rule cases"), "{dom}");
}
