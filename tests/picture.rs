//! Pictures of witnesses (`racefuzz::picture`): the SVG and DOT of a paper-sized witness
//! are snapshots (a person reads them); Graphviz reads the DOT; and a real browser
//! (headless Chromium) renders the HTML page of a failing check with its lanes, its racing
//! pair and its happens-before edges, keeping a screenshot for review in
//! `target/pictures/`. Each test that runs Graphviz, Chromium, Node or the npm validators
//! declares them (`needs!`): without one it is skipped, and listed at the end of the run,
//! or fails under `RACEFUZZ_REQUIRE_TOOLS=1`, as in `.ci/run`, which installs them all.

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
    needs!(Dot);
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
    needs!(Chromium);
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
    needs!(Chromium);
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
    needs!(Chromium);
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
    needs!(Chromium);
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
    // An ldrf program has no machine execution to draw: bad input, named, exit 2.
    let ldrf = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/ldrf/fig1_regions.race");
    let (code, _, err) = super::cli::racefuzz(&["explore", ldrf.to_str().unwrap(), "--html", dir.join("ldrf.html").to_str().unwrap()]);
    assert!(code == 2 && err.contains("is an ldrf program") && !dir.join("ldrf.html").exists(), "{code} {err}");
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
    // An uploaded log's first line is its parser, the second its delimiter (none).
    let lines: Vec<&str> = log.lines().skip(2).collect();
    assert!(log.starts_with(&format!("{}\n\n", racefuzz::picture::SHIVIZ_PARSER)), "{log}");
    assert_eq!(lines.len(), 2 * w.events.len(), "{log}");
    // ShiViz's default parser: `(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`, each host's own
    // entry counting its events.
    let clocks: Vec<(String, std::collections::BTreeMap<String, u64>)> = lines.iter().skip(1).step_by(2).map(|l| clock(l)).collect();
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
    assert!(lines[6].ends_with("[racing]") && lines[14].ends_with("[racing]"), "{log}");
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
    needs!(Chromium);
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

/// A witness the exchange-format tests validate, as `racefuzz replay|check --sarif --shiviz`
/// wrote it.
struct Exported {
    name: String,
    sarif: PathBuf,
    shiviz: PathBuf,
}

/// `racefuzz ARGS --sarif DIR/NAME.sarif.json --shiviz DIR/NAME.log` (`.json`: ajv reads a
/// file by its extension), expecting exit `code`.
fn export(dir: &Path, name: &str, args: &[&str], code: i32) -> Exported {
    let (sarif, shiviz) = (dir.join(format!("{name}.sarif.json")), dir.join(format!("{name}.log")));
    let mut all = args.to_vec();
    all.extend(["--sarif", sarif.to_str().unwrap(), "--shiviz", shiviz.to_str().unwrap()]);
    let (got, _, err) = super::cli::racefuzz(&all);
    assert_eq!(got, code, "racefuzz {all:?}: {err}");
    Exported { name: name.to_string(), sarif, shiviz }
}

/// The shrunk findings of a campaign `racefuzz fuzz ARGS --shrink --out DIR/campaign-NAME`.
fn shrunk_findings(dir: &Path, name: &str, args: &[&str]) -> Vec<PathBuf> {
    let out = dir.join(format!("campaign-{name}"));
    let mut all = args.to_vec();
    all.extend(["--shrink", "--out", out.to_str().unwrap()]);
    let (code, _, err) = super::cli::racefuzz(&all);
    assert_eq!(code, 1, "racefuzz {all:?} found nothing: {err}");
    let mut found: Vec<PathBuf> =
        std::fs::read_dir(out.join("fasttrack-precise")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.to_str().is_some_and(|s| s.ends_with(".shrunk.race"))).collect();
    found.sort();
    assert!(!found.is_empty(), "racefuzz {all:?} shrank nothing: {err}");
    found
}

/// The witnesses the SARIF and ShiViz validations read, written once per test run by the
/// command line: the walk-through's, a paper figure's (BigFoot Fig. 3.3), the walk-through
/// again from a path with a space (the SARIF `uri` must be percent-encoded), and the shrunk
/// findings of two small campaigns, one hunting a seeded mutant of FastTrack (JOIN without
/// its join: a fork and a join, no race) and one judging the LockSet example detector (races
/// it misses).
fn exported() -> &'static [Exported] {
    static EXPORTED: std::sync::OnceLock<Vec<Exported>> = std::sync::OnceLock::new();
    EXPORTED.get_or_init(|| {
        let dir = scratch("exchange");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let walkthrough = "examples/walkthrough/ordered_and_not.race";
        let mut all = vec![
            export(&dir, "walkthrough", &["replay", walkthrough, "--schedule", "1,1,1,1,2,2,2,2"], 0),
            export(&dir, "fig3_3", &["replay", "corpus/paper/bigfoot/fig3_3_anticipation.race", "--schedule", "1,1,1,1,1,2,2,2,2,1,1,1"], 0),
        ];
        let spaced = dir.join("with space").join("ordered_and_not.race");
        std::fs::create_dir_all(spaced.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join(walkthrough), &spaced).unwrap();
        all.push(export(&dir, "with-space", &["replay", spaced.to_str().unwrap(), "--schedule", "1,1,1,1,2,2,2,2"], 0));
        let mutant = ["--mutant", "ft-join-no-join"];
        for f in shrunk_findings(&dir, "mutant", &[&["fuzz", "fasttrack-precise", "--max-programs", "60", "--seed", "1"][..], &mutant].concat()) {
            let name = format!("mutant-{}", f.file_name().unwrap().to_str().unwrap());
            all.push(export(&dir, &name, &[&["check", "fasttrack-precise", f.to_str().unwrap()][..], &mutant].concat(), 1));
        }
        let lockset = ["--persistent", "--detector-cmd", "python3 examples/detectors/lockset.py --persistent"];
        for f in shrunk_findings(&dir, "lockset", &[&["fuzz", "fasttrack-precise", "--max-programs", "30", "--seed", "1"][..], &lockset].concat()) {
            let name = format!("lockset-{}", f.file_name().unwrap().to_str().unwrap());
            all.push(export(&dir, &name, &[&["check", "fasttrack-precise", f.to_str().unwrap()][..], &lockset].concat(), 1));
        }
        all
    })
}

/// A file the npm packages of `tests/node` installed (`npm ci --prefix tests/node`; a test
/// that reads one declares `needs!(Ajv)` or `needs!(SarifMultitool)`).
fn node_tool(rel: &str) -> PathBuf {
    let p = super::needs::node_modules().join(rel);
    assert!(p.exists(), "missing {}, yet its tool was found: run `npm ci --prefix tests/node` again", p.display());
    p
}

/// The SARIF multitool's own binary and the SARIF 2.1.0 schema beside it (the package for
/// this platform; the `sarif-multitool` script would run the binary through a shell, which
/// splits a path with a space).
fn multitool_and_schema() -> (PathBuf, PathBuf) {
    let dir = super::needs::multitool_dir();
    let (multitool, schema) = (dir.join("Sarif.Multitool"), dir.join("sarif-2.1.0.json"));
    assert!(schema.exists(), "missing {}, yet the multitool was found: run `npm ci --prefix tests/node` again", schema.display());
    (multitool, schema)
}

/// `f(doc)` on a copy of the SARIF at `from`, written to `to`.
fn broken_sarif(from: &Path, to: &Path, f: impl FnOnce(&mut serde_json::Value)) -> PathBuf {
    let mut doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(from).unwrap()).unwrap();
    f(&mut doc);
    std::fs::write(to, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    to.to_path_buf()
}

/// Two consumers of SARIF read every exported witness without a complaint: ajv checks it
/// against the OASIS SARIF 2.1.0 schema (the copy in the multitool's package), and
/// Microsoft's SARIF multitool (`validate`) applies the SDK's SARIF rules, errors and
/// warnings. Each must also reject what it should: ajv four documents each with one schema
/// error, and the multitool a canary per witness, the witness's document without the driver's
/// `informationUri` (rule SARIF2005). The canaries matter twice: the multitool skips a
/// document it cannot deserialize without a word (a `"level": "bad"` result passes), so a
/// warning on each canary, a copy that differs only by that one property, shows that it read
/// the witness itself too.
#[test]
fn sarif_validators_accept_every_witness_and_reject_broken_documents() {
    needs!(Node, Ajv, SarifMultitool, Python3);
    let (multitool, schema) = multitool_and_schema();
    let ajv = node_tool(".bin/ajv");
    let exported = exported();
    let dir = scratch("sarif-validate");
    let first = &exported[0].sarif;
    let broken = [
        broken_sarif(first, &dir.join("bad-level.sarif.json"), |d| d["runs"][0]["results"][0]["level"] = "bad".into()),
        broken_sarif(first, &dir.join("no-message.sarif.json"), |d| {
            d["runs"][0]["results"][0].as_object_mut().unwrap().remove("message");
        }),
        broken_sarif(first, &dir.join("line-0.sarif.json"), |d| d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"] = 0.into()),
        broken_sarif(first, &dir.join("uri-with-space.sarif.json"), |d| {
            d["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] = "a b.race".into()
        }),
    ];
    let canaries: Vec<PathBuf> = exported
        .iter()
        .map(|e| {
            broken_sarif(&e.sarif, &dir.join(format!("{}.canary.sarif.json", e.name)), |d| {
                d["runs"][0]["tool"]["driver"].as_object_mut().unwrap().remove("informationUri");
            })
        })
        .collect();

    // ajv: one line `FILE valid` or `FILE invalid` (then its errors) per file.
    let mut cmd = Command::new(&ajv);
    cmd.args(["validate", "--spec=draft2020", "--strict=false", "-c", "ajv-formats", "--errors=line", "-s"]).arg(&schema);
    for f in exported.iter().map(|e| &e.sarif).chain(&broken) {
        cmd.arg("-d").arg(f);
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("could not run {}: {e}", ajv.display()));
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let verdict = |f: &Path, word: &str| said.lines().any(|l| l == format!("{} {word}", f.display()));
    let (mut valid, mut rejected) = (0, 0);
    for e in exported {
        assert!(verdict(&e.sarif, "valid"), "ajv: {} does not follow the SARIF 2.1.0 schema:\n{said}", e.sarif.display());
        valid += 1;
    }
    for f in &broken {
        assert!(verdict(f, "invalid"), "ajv accepted the broken {}:\n{said}", f.display());
        rejected += 1;
    }
    assert_eq!(out.status.code(), Some(1), "ajv did not fail on the broken documents:\n{said}");

    // The multitool: every file in one run, its findings as a SARIF log of its own.
    let report = dir.join("multitool.sarif");
    let mut cmd = Command::new(&multitool);
    cmd.arg("validate");
    cmd.args(exported.iter().map(|e| &e.sarif)).args(&canaries);
    cmd.arg("-o").arg(&report).args(["--log", "ForceOverwrite"]);
    let out = cmd.output().unwrap_or_else(|e| panic!("could not run {}: {e}", multitool.display()));
    let console = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the SARIF multitool failed:\n{console}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let run = &report["runs"][0];
    assert_eq!(run["invocations"][0]["executionSuccessful"], true, "{console}");
    let mut by_file: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for r in run["results"].as_array().unwrap() {
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap_or_default();
        let file = uri.rsplit('/').next().unwrap_or_default().to_string();
        by_file.entry(file).or_default().push(r["ruleId"].as_str().unwrap_or_default().to_string());
    }
    for e in exported {
        let file = e.sarif.file_name().unwrap().to_str().unwrap();
        assert_eq!(by_file.get(file), None, "the SARIF multitool on {}:\n{console}", e.sarif.display());
        valid += 1;
    }
    for c in &canaries {
        let file = c.file_name().unwrap().to_str().unwrap();
        assert_eq!(by_file.get(file), Some(&vec!["SARIF2005".to_string()]), "the SARIF multitool on the canary {}:\n{console}", c.display());
        rejected += 1;
    }
    assert_eq!(by_file.len(), canaries.len(), "results for files it was not given:\n{console}");

    // Not vacuous: six witnesses or more (three campaign findings), races among them.
    let races: usize = exported.iter().map(|e| sarif_results(&e.sarif)).sum();
    assert!(exported.len() >= 6 && races >= 4, "{} witnesses, {races} races", exported.len());
    assert_eq!((valid, rejected), (2 * exported.len(), broken.len() + canaries.len()));
}

fn sarif_results(f: &Path) -> usize {
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
    doc["runs"][0]["results"].as_array().map_or(0, Vec::len)
}

/// ShiViz's reading of uploaded log files, each as its web page reads one: the first line is
/// the parser, taken as `^LINE$` (js/shiviz.js, the file input's handler), the second the
/// delimiter of several executions, the log the rest, trimmed; the parser's matches, each
/// clock through `JSON.parse` (js/model/parser.js, `ExecutionParser`). Run by Node, so that
/// the regular expression and the JSON are read by the engines a browser has. For each
/// file: `{parser, delimiter, lines, events: [{line, host, clock, event}]}` or `{error}`.
const SHIVIZ_READ: &str = r#"
const fs = require('fs');
const read = (f) => {
  const text = fs.readFileSync(f, 'utf8');
  const lines = text.split('\n', 2);
  if (lines.length < 2) return { error: 'no second line' };
  const log = text.substr(text.indexOf('\n', text.indexOf('\n') + 1) + 1).trim();
  let re;
  try { re = new RegExp('^' + lines[0] + '$', 'gm'); } catch (e) { return { error: 'parser: ' + e }; }
  const events = [];
  let m;
  while ((m = re.exec(log)) !== null) {
    if (m[0].length === 0) { re.lastIndex++; continue; }
    if (!m.groups || !['host', 'clock', 'event'].every((g) => g in m.groups)) return { error: 'the parser lacks host, clock or event' };
    const line = log.slice(0, m.index).split('\n').length;
    let clock;
    try { clock = JSON.parse(m.groups.clock); } catch (e) { return { error: 'clock on line ' + line + ': ' + e }; }
    events.push({ line, host: m.groups.host, clock, event: m.groups.event });
  }
  return { parser: lines[0], delimiter: lines[1], lines: log.split('\n').length, events };
};
process.stdout.write(JSON.stringify(process.argv.slice(1).map(read)));
"#;

/// [`SHIVIZ_READ`] on `files`.
fn shiviz_read(files: &[PathBuf]) -> Vec<serde_json::Value> {
    let out = Command::new("node")
        .arg("-e")
        .arg(SHIVIZ_READ)
        .args(files)
        .output()
        .unwrap_or_else(|e| panic!("the ShiViz test needs Node.js (apt-get install nodejs npm; .ci/run installs it): {e}"));
    assert!(out.status.success(), "node: {}", String::from_utf8_lossy(&out.stderr));
    let read: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(read.len(), files.len());
    read
}

/// The checks ShiViz makes on a parsed log before it draws it, restated, then those that
/// make its drawing the witness's happens-before (ours): the number of events, or what is
/// wrong. ShiViz's, from its source (DistributedClocks/shiviz at
/// ea00d3d48b2e4a2adc3c87c27d2f0119100ce36a):
/// - js/shiviz.js, `Shiviz` (its default parser) and the file input's handler: our parser
///   line is ShiViz's default, so a log pasted without the first two lines parses alike; the
///   second line is empty (one execution, no delimiter);
/// - js/model/parser.js, `LogParser` and `ExecutionParser`: the parser has the groups
///   host, clock and event; it finds at least one event; each clock is JSON;
/// - js/model/vectorTimestamp.js, `VectorTimestamp`: a clock has an entry for its own host
///   (entries of 0 are dropped);
/// - js/model/modelGraph.js, `initPrevNext`: a host's own entries, in order, are 1, 2, 3, …;
///   `initParentChild`: every host a clock names has events, and the clock's entry for it
///   is between 1 and their number.
///
/// Ours: every line of the log is part of an event (ShiViz skips unmatched text without a
/// word); a clock is an object of integers; a host's clock never goes back; an event's clock
/// is at least the clock of every event it names (vector clocks; ShiViz's
/// `stepThroughAndVerify` states this but is never called); and each racing event is
/// concurrent with a racing event of another host.
fn shiviz_check(read: &serde_json::Value) -> Result<usize, String> {
    use std::collections::BTreeMap;
    type Clock = BTreeMap<String, u64>;
    if let Some(e) = read.get("error") {
        return Err(format!("ShiViz cannot parse it: {e}"));
    }
    if read["parser"] != racefuzz::picture::SHIVIZ_PARSER || read["delimiter"].as_str().is_none_or(|d| !d.trim().is_empty()) {
        return Err(format!("the header is not ShiViz's default parser and no delimiter: {} / {}", read["parser"], read["delimiter"]));
    }
    let events = read["events"].as_array().ok_or("no events")?;
    if events.is_empty() || read["lines"].as_u64() != Some(2 * events.len() as u64) {
        return Err(format!("{} event(s) parsed from {} line(s)", events.len(), read["lines"]));
    }
    let mut parsed: Vec<(String, Clock, String)> = Vec::new();
    for e in events {
        let host = e["host"].as_str().unwrap_or_default().to_string();
        let obj = e["clock"].as_object().ok_or_else(|| format!("line {}: the clock is no object", e["line"]))?;
        let mut clock = Clock::new();
        for (k, v) in obj {
            let v = v.as_u64().ok_or_else(|| format!("line {}: {k}'s entry is no count", e["line"]))?;
            if v > 0 {
                clock.insert(k.clone(), v);
            }
        }
        if !obj.contains_key(&host) {
            return Err(format!("line {}: host {host} is missing from its clock", e["line"]));
        }
        parsed.push((host, clock, e["event"].as_str().unwrap_or_default().to_string()));
    }
    let mut of_host: BTreeMap<&str, Vec<&Clock>> = BTreeMap::new();
    for (host, clock, _) in &parsed {
        of_host.entry(host).or_default().push(clock);
    }
    for (host, clocks) in &mut of_host {
        clocks.sort_by_key(|c| c.get(*host).copied().unwrap_or(0));
        for (i, c) in clocks.iter().enumerate() {
            if c.get(*host).copied() != Some(i as u64 + 1) {
                return Err(format!("host {host}'s event {} has its own entry {:?}, not {}", i + 1, c.get(*host), i + 1));
            }
        }
    }
    let leq = |a: &Clock, b: &Clock| a.iter().all(|(k, v)| b.get(k).is_some_and(|x| v <= x));
    for (host, clock, event) in &parsed {
        for (k, &v) in clock {
            let of_k = of_host.get(k.as_str()).ok_or_else(|| format!("`{event}`'s clock names host {k}, which has no event"))?;
            let named = of_k.get(v as usize - 1).ok_or_else(|| format!("`{event}`'s clock has {k}:{v}, but {k} has {} event(s)", of_k.len()))?;
            if !leq(named, clock) {
                return Err(format!("`{event}` ({host}) names {k}'s event {v} but does not know all it knows"));
            }
        }
    }
    for clocks in of_host.values() {
        if clocks.windows(2).any(|w| !leq(w[0], w[1])) {
            return Err("a host's clock goes back".into());
        }
    }
    let racing: Vec<&(String, Clock, String)> = parsed.iter().filter(|e| e.2.ends_with("[racing]")).collect();
    for a in &racing {
        if !racing.iter().any(|b| b.0 != a.0 && !leq(&a.1, &b.1) && !leq(&b.1, &a.1)) {
            return Err(format!("the racing `{}` is concurrent with no racing event of another host", a.2));
        }
    }
    Ok(parsed.len())
}

/// No registry package reads ShiViz logs (ShiViz is a web page; npm and PyPI have no
/// package of it or of its log format), so this test restates the checks of ShiViz's
/// parser (see [`shiviz_check`] for the source files and functions, and the commit) over
/// every exported witness, with the parser's regular expression and the clocks' JSON read
/// by Node as in a browser. The checks must be able to fail: each of eight broken copies of
/// the walk-through's log, one fault each, is rejected.
#[test]
fn every_shiviz_log_passes_shivizs_checks_and_broken_ones_do_not() {
    needs!(Node, Python3);
    let exported = exported();
    let dir = scratch("shiviz-validate");
    let log = std::fs::read_to_string(&exported[0].shiviz).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    // The walk-through: T1's four events, then T2's; T2's first clock knows T1's release.
    let expect = [(3, r#"T1 {"T1":1}"#), (5, r#"T1 {"T1":2}"#), (11, r#"T2 {"T1":3, "T2":1}"#), (13, r#"T2 {"T1":3, "T2":2}"#), (17, r#"T2 {"T1":3, "T2":4}"#)];
    for (i, l) in expect {
        assert_eq!(lines[i], l, "{log}");
    }
    type Fault = (&'static str, Box<dyn Fn(&mut Vec<String>)>);
    let faults: [Fault; 8] = [
        ("no-header", Box::new(|l| drop(l.drain(0..2)))),
        ("clock-not-json", Box::new(|l| l[3] = r#"T1 {"T1":1,}"#.into())),
        ("own-entry-skips", Box::new(|l| l[5] = r#"T1 {"T1":3}"#.into())),
        ("own-host-missing", Box::new(|l| l[11] = r#"T2 {"T1":3}"#.into())),
        ("unknown-host", Box::new(|l| l[3] = r#"T1 {"T1":1, "T9":1}"#.into())),
        ("clock-goes-back", Box::new(|l| l[13] = r#"T2 {"T1":2, "T2":2}"#.into())),
        ("knows-too-little", Box::new(|l| l[5] = r#"T1 {"T1":2, "T2":2}"#.into())),
        ("race-ordered", Box::new(|l| l[17] = r#"T2 {"T1":4, "T2":4}"#.into())),
    ];
    let mut files: Vec<PathBuf> = exported.iter().map(|e| e.shiviz.clone()).collect();
    for (name, fault) in &faults {
        let mut l: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
        fault(&mut l);
        let f = dir.join(format!("{name}.log"));
        std::fs::write(&f, l.join("\n") + "\n").unwrap();
        files.push(f);
    }
    let read = shiviz_read(&files);
    let (mut events, mut racing) = (0, 0);
    for (e, r) in exported.iter().zip(&read) {
        events += shiviz_check(r).unwrap_or_else(|why| panic!("{}: {why}", e.shiviz.display()));
        racing += r["events"].as_array().unwrap().iter().filter(|x| x["event"].as_str().is_some_and(|s| s.ends_with("[racing]"))).count();
    }
    for ((name, _), r) in faults.iter().zip(&read[exported.len()..]) {
        assert!(shiviz_check(r).is_err(), "the broken log {name} passed: {r}");
    }
    assert!(exported.len() >= 6 && events >= 30 && racing >= 8, "{} logs, {events} events, {racing} racing", exported.len());
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
    needs!(Chromium);
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
        let (tables, _) = racefuzz::suts::exercised_rules(subject.entry(), &o);
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
