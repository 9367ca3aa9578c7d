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

/// A failing check's page, as a browser builds it, and the page's panel on what the SUT
/// did (its `<section id="sut">`, as racefuzz wrote it).
fn failing_page(name: &str, oracle: &str, program: &str, mutant: &str) -> (String, String) {
    let page = scratch("html").join(format!("{name}.html"));
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(program);
    let (code, _, err) = super::cli::racefuzz(&["check", oracle, file.to_str().unwrap(), "--mutant", mutant, "--html", page.to_str().unwrap()]);
    assert_eq!(code, 1, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    let panel = html.split_once("<section class=\"sut\" id=\"sut\">").and_then(|(_, rest)| rest.split_once("</section>")).map(|(p, _)| p.to_string());
    (browse(&page), panel.unwrap_or_else(|| panic!("no SUT panel: {html}")))
}

#[test]
fn a_filter_page_shows_the_elided_events_and_what_the_detector_behind_it_missed() {
    // Fig. 4.2 with per-site caching: the escape filter elides T1.1's write of p.o, the
    // partner of α's first race, so FastTrack behind it reports nothing at all.
    let (dom, panel) = failing_page("escape-per-site", "escape-trace-precise", "corpus/paper/escape/fig4_2_not_address_precise.race", "esc-per-site");
    assert_eq!(dom.matches("class=\"event elided\"").count() + dom.matches("class=\"event racing elided\"").count(), 6, "{dom}");
    assert_eq!(dom.matches("class=\"event racing elided\"").count(), 3, "{dom}");
    assert!(dom.contains("<tr class=\"missed differs\"><th>missed (racy, not reported)</th><td>p@T1.o, r1@T1.1.f</td></tr>"), "{dom}");
    assert!(!dom.contains("class=\"reported\"><title>"), "FastTrack reported nothing, yet a flag is drawn: {dom}");
    insta::assert_snapshot!("escape_per_site_panel", panel);
}

#[test]
fn a_bigfoot_page_shows_each_check_with_what_it_covers_and_where_the_detector_reported() {
    // Fig. 3.3 with a release that keeps past accesses: BigFoot checks b.f again after each
    // release, and DynamicBF reports a race on race-free b.f at T2's first check.
    let (dom, panel) = failing_page("bigfoot-release-keeps", "bigfoot-precise", "corpus/paper/bigfoot/fig3_3_anticipation.race", "bf-release-keeps-accesses");
    assert_eq!(dom.matches("class=\"event check\"").count(), 4, "{dom}");
    assert_eq!(dom.matches("<tr class=\"check\">").count(), 4, "{dom}");
    assert_eq!(dom.matches("<g class=\"reported\"><title>reported by DynamicBF</title>").count(), 1, "{dom}");
    assert!(dom.contains("<tr class=\"invented differs\"><th>invented (reported, race-free)</th><td>b.f</td></tr>"), "{dom}");
    insta::assert_snapshot!("bigfoot_release_keeps_panel", panel);
}

#[test]
fn explore_draws_its_first_racing_execution_and_says_when_there_is_none() {
    let dir = scratch("explore");
    let page = dir.join("ordered_and_not.html");
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/walkthrough/ordered_and_not.race");
    let (code, _, err) = super::cli::racefuzz(&["explore", file.to_str().unwrap(), "--html", page.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let dom = browse(&page);
    assert_eq!((dom.matches("class=\"lane\"").count(), dom.matches("class=\"event racing\"").count()), (2, 2), "{dom}");
    assert!(dom.contains("threads: races on o.g") && !dom.contains("id=\"sut\""), "{dom}");
    let quiet = dir.join("locked.html");
    let locked = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/bigfoot/fig3_1_point_move_locked.race");
    let (code, _, err) = super::cli::racefuzz(&["explore", locked.to_str().unwrap(), "--html", quiet.to_str().unwrap()]);
    assert!(code == 0 && err.contains("no picture: no execution races") && !quiet.exists(), "{code} {err}");
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
