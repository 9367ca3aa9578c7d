//! What adding an oracle or a kind of SUT takes, kept true: the book's chapter "Adding an
//! oracle / a SUT kind" (`docs/book/src/contributing/extending.md`) names the files each touches, and these tests check that the files
//! exist, that a toy oracle and a toy SUT plug in through the public API with no other edit,
//! and that the cargo-fuzz targets are what the registry generates.
//!
//! The oracle targets of `fuzz/` are generated: one file per oracle, [`fuzz_target`] with its
//! id, and one `[[bin]]` per oracle in `fuzz/Cargo.toml` after [`GENERATED`]. After adding
//! an oracle, `RACEFUZZ_BLESS=1 cargo test --test integration extending` writes them.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use race_oracles::lang::{Dialect, Program};
use race_oracles::theorems::{AnalysisFailure, Budget, Claim, Item, ItemStatus, Oracle, OracleResult, RaceReport, Reads, Registry, StaticRaceAnalysis, Sut, SutKind, Verdict};
use racefuzz::campaign::{self, Counters, Settings};
use racefuzz::finding_header::FindingHeader;
use racefuzz::sut_spec::{DetectorSpec, SutSpec};
use racefuzz::suts::{self, Subject, SUTS};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The book's chapter on extending racefuzz.
fn extending_chapter() -> String {
    let chapter = std::fs::read_to_string(root().join("docs/book/src/contributing/extending.md")).unwrap();
    let start = chapter.find("# Adding an oracle / a SUT kind").expect("the book's extending chapter: no heading \"Adding an oracle / a SUT kind\"");
    chapter[start..].to_string()
}

/// The numbered list that follows the paragraph starting with `lead` in the section, as
/// (that paragraph, its items, each with its continuation lines).
fn list_after(section: &str, lead: &str) -> (String, Vec<String>) {
    let start = section.find(lead).unwrap_or_else(|| panic!("the book's extending chapter: no `{lead}`"));
    let mut lines = section[start..].lines().peekable();
    let mut head = String::new();
    while let Some(l) = lines.next_if(|l| !l.trim_start().starts_with(|c: char| c.is_ascii_digit())) {
        head.push_str(l);
        head.push(' ');
    }
    let mut items: Vec<String> = vec![];
    for l in lines.take_while(|l| !l.trim().is_empty()) {
        match items.last_mut() {
            Some(item) if !l.trim_start().starts_with(|c: char| c.is_ascii_digit()) => item.push_str(l),
            _ => items.push(l.to_string()),
        }
    }
    (head, items)
}

/// The repository paths a list item names: backticked words with a `/`.
fn paths(item: &str) -> Vec<&str> {
    item.split('`').skip(1).step_by(2).filter(|w| w.contains('/') && !w.contains(' ')).collect()
}

/// The number a lead line states ("… touches 3 files …").
fn stated_count(head: &str) -> usize {
    head.split_whitespace().find_map(|w| w.trim_matches(|c: char| !c.is_ascii_digit()).parse().ok()).unwrap_or_else(|| panic!("no count in `{head}`"))
}

/// Each list of the section has as many items as its lead line says, and every file it names
/// exists (for a path with a `<placeholder>`, its folder).
#[test]
fn the_book_names_files_that_exist_and_counts_them() {
    let section = extending_chapter();
    for lead in ["**An oracle over an existing kind of SUT**", "**A new kind of SUT**", "**A new kind of external SUT**", "**A real detector**"] {
        let (head, items) = list_after(&section, lead);
        assert_eq!(items.len(), stated_count(&head), "the book: `{head}` lists {} items", items.len());
        for item in &items {
            let named = paths(item);
            assert!(!named.is_empty(), "the book: `{item}` names no file");
            for p in named {
                let path = match p.find('<') {
                    Some(i) => root().join(&p[..p[..i].rfind('/').unwrap_or(0)]),
                    None => root().join(p),
                };
                assert!(path.exists(), "the book names `{p}`, but {} does not exist", path.display());
            }
        }
    }
}

/// Every report's access paths are rooted at a formal of the reporting method: a toy
/// oracle, written as every oracle is (a `const ORACLE` and its `check`).
pub const TOY: Oracle = Oracle {
    id: "toy-reports-name-formals",
    claim: "every report's paths are rooted at a formal of its method",
    spec: "spec/racerdx.md §3.4 (reports are over formals: the fml filter)",
    dialect: Dialect::RacerDx,
    sut: SutKind::StaticRaceAnalysis,
    item_kind: "report",
    negative_control: false,
    atomics: false,
    reads: Reads::Answers,
    unexercised: &[],
    scorecard: false,
    operational: None,
    generate: race_oracles::gen::racerdx::swarm,
    grammar: &race_oracles::gen::racerdx::GRAMMAR,
    check,
};

fn check(p: &Program, sut: &Sut<'_>, b: &Budget) -> OracleResult {
    let Sut::Static(a) = sut else { return TOY.wrong_sut(sut) };
    if let Some(note) = TOY.unmet(p, b.relax) {
        return OracleResult::inconclusive(TOY.id, a.name(), TOY.item_kind, note);
    }
    let reports = match a.reports(p) {
        Ok(r) => r,
        Err(failure) => return OracleResult::inconclusive(TOY.id, a.name(), TOY.item_kind, format!("no reports: {failure}")),
    };
    let items = reports
        .into_iter()
        .map(|r| {
            let rooted = r.sides.iter().all(|s| p.method(&s.method).is_some_and(|m| m.params.contains(&s.path.root)));
            let status = if rooted { ItemStatus::Holds } else { ItemStatus::Violated };
            Item { subject: r.to_string(), status, explanation: vec![], witness: None }
        })
        .collect();
    OracleResult::from_items(TOY.id, a.name(), TOY.item_kind, items, None)
}

/// The toy oracle, registered through the public API, gets its SUT and that SUT's seeded
/// bugs from the catalogue with no edit there, has a fuzz target by the template, and runs
/// through the same campaign, dispatch and rendering as the built-in oracles.
#[test]
fn a_toy_oracle_is_one_module_and_one_registry_entry() {
    let reg = Registry::builtin().with(TOY);
    let o = *reg.find(TOY.id).unwrap();
    assert_eq!(Subject::for_oracle(&o, None).map(|s| s.entry().name).ok(), Some("racerdx"));
    assert_eq!(Subject::for_oracle(&o, Some("lock-bound-1")).map(|s| s.mutant().map(str::to_string)).ok(), Some(Some("lock-bound-1".to_string())));
    assert!(fuzz_target(TOY.id).contains("init: racefuzz::fuzz_init(\"toy-reports-name-formals\"), |data: &[u8]| racefuzz::fuzz_one(\"toy-reports-name-formals\", data)"));
    let out = std::env::temp_dir().join(format!("racefuzz-toy-{}", std::process::id()));
    let s = Settings {
        oracles: vec![o],
        deadline: std::time::Instant::now() + std::time::Duration::from_secs(3600),
        seed: 3,
        jobs: 1,
        spec: racefuzz::sut_spec::SutSpec::default(),
        out: out.clone(),
        max_programs: Some(300),
        keep: 3,
        stop_after: None,
        shard: campaign::Shard::WHOLE,
        rules: false,
    };
    let counters = Counters::new(1);
    let found = campaign::run(&s, &counters, &AtomicBool::new(false), |_| {}).unwrap();
    assert!(found.findings.is_empty() && found.groups.is_empty());
    let [pass, fail, inconclusive] = counters.verdicts[0].each_ref().map(|c| c.load(Ordering::Relaxed));
    assert_eq!((pass, fail, inconclusive), (300, 0, 0));
    assert!(counters.judged[0].load(Ordering::Relaxed) > 50, "vacuous: the toy judged too few reports");
    let _ = std::fs::remove_dir_all(out);
}

/// A toy SUT: a static analysis that reports nothing.
struct Silent;

impl StaticRaceAnalysis for Silent {
    fn name(&self) -> String {
        "silent".into()
    }

    fn reports(&self, _: &Program) -> Result<Vec<RaceReport>, AnalysisFailure> {
        Ok(vec![])
    }
}

/// A SUT plugs into its seam with one call (`suts::lend`, what a catalogue entry's build
/// returns), and every kind of SUT (`SutKind::ALL`, declared once with `Sut`) has an entry
/// in the catalogue: a kind added to race-oracles without its racefuzz entry fails here.
#[test]
fn a_toy_sut_is_lent_through_its_seam_and_every_kind_has_an_entry() {
    let lent = suts::lend(Silent, |a| Sut::Static(a));
    assert_eq!(lent.sut().kind(), SutKind::StaticRaceAnalysis);
    let p = TOY.program(&[7; 40], Default::default());
    assert_eq!(TOY.check(&p, &lent.sut(), &Budget::default()).verdict, Verdict::Pass);
    for kind in SutKind::ALL {
        assert!(SUTS.iter().any(|e| e.kind == *kind), "no SUT of kind {kind:?} in racefuzz::suts::SUTS");
    }
}

/// A toy external SUT: a detector in another process (a shell line that reports nothing),
/// named by a `SutSpec` alone, is judged by a campaign, and each finding's header names it
/// so that it is rebuilt from the file (what `shrink` and `merge` do), with no other edit:
/// a new kind of external SUT costs the files the book's list says and no more.
#[test]
fn a_toy_external_sut_is_named_by_its_spec_alone_from_flags_to_findings() {
    let o = *Registry::builtin().find("fasttrack-precise").unwrap();
    let toy = DetectorSpec {
        command: "cat {} >/dev/null".into(),
        persistent: false,
        batch: false,
        report_pattern: None,
        timeout: std::time::Duration::from_secs(10),
        claim: Claim::Locations,
        all_traces: false,
    };
    let spec = SutSpec::detector(toy).unwrap();
    let out = std::env::temp_dir().join(format!("racefuzz-toy-external-{}", std::process::id()));
    let s = Settings {
        oracles: vec![o],
        deadline: std::time::Instant::now() + std::time::Duration::from_secs(3600),
        seed: 1,
        jobs: 1,
        spec: spec.clone(),
        out: out.clone(),
        max_programs: Some(40),
        keep: 1,
        stop_after: Some(1),
        shard: campaign::Shard::WHOLE,
        rules: false,
    };
    let counters = Counters::new(1);
    let found = campaign::run(&s, &counters, &AtomicBool::new(false), |_| {}).unwrap();
    let f = found.findings.first().expect("a detector that reports nothing misses a race");
    let header = FindingHeader::parse(&std::fs::read_to_string(&f.path).unwrap()).unwrap();
    assert_eq!((header.oracle.as_deref(), &header.sut), (Some(o.id), &spec));
    let again = Subject::new(&o, &header.sut).unwrap();
    assert_eq!((again.chosen().as_deref(), again.entry().name), (Some("external"), "external"));
    let _ = std::fs::remove_dir_all(out);
}

/// The marker after which `fuzz/Cargo.toml` declares the generated oracle targets.
const GENERATED: &str = "# Generated from the registry, one target per oracle: do not edit by hand (tests/extending.rs).\n";

/// The cargo-fuzz target of oracle `id`: its registry generator on libFuzzer's bytes.
fn fuzz_target(id: &str) -> String {
    format!(
        "//! `{id}` on programs from its registry generator: a crash is the oracle failing (for a\n\
         //! negative control, the expected rediscovery; `racefuzz mutants` states the claim).\n\
         //! `RACEFUZZ_MUTANT=NAME` hunts a seeded bug instead (`racefuzz mutants`).\n\
         //! Generated from the registry by `tests/extending.rs`.\n\
         #![no_main]\n\
         \n\
         libfuzzer_sys::fuzz_target!(init: racefuzz::fuzz_init(\"{id}\"), |data: &[u8]| racefuzz::fuzz_one(\"{id}\", data));\n"
    )
}

/// A target's name: its oracle's id with `_` for `-`.
fn target_name(id: &str) -> String {
    id.replace('-', "_")
}

/// `fuzz/Cargo.toml` as the registry makes it: the hand-written part up to [`GENERATED`],
/// then one `[[bin]]` per oracle.
fn manifest(current: &str) -> String {
    let head = current.find(GENERATED).map_or(current, |i| &current[..i]);
    let mut text = format!("{}\n{GENERATED}", head.trim_end());
    for o in Registry::builtin().all() {
        let name = target_name(o.id);
        text.push_str(&format!("\n[[bin]]\nname = \"{name}\"\npath = \"fuzz_targets/{name}.rs\"\ntest = false\ndoc = false\nbench = false\n"));
    }
    text
}

/// The markers between which `fuzz/README.md` lists the oracle targets.
const TABLE_START: &str = "<!-- oracle targets: generated from the registry by tests/extending.rs -->\n";
const TABLE_END: &str = "<!-- end of oracle targets -->\n";

/// The table of oracle targets `fuzz/README.md` shows: one row per oracle of the registry.
fn target_table() -> String {
    let mut t = String::from("| target | oracle | claim |\n|---|---|---|\n");
    for o in Registry::builtin().all() {
        let control = if o.negative_control { " (a negative control: a crash is the expected rediscovery)" } else { "" };
        t.push_str(&format!("| `{}` | `{}` | {}{control} |\n", target_name(o.id), o.id, o.claim.replace('|', "\\|")));
    }
    t
}

/// `fuzz/README.md` lists every oracle target, and only those, as the registry makes them
/// (`RACEFUZZ_BLESS=1` writes the table).
#[test]
fn the_fuzz_readme_lists_every_target() {
    let path = root().join("fuzz/README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (Some(a), Some(b)) = (text.find(TABLE_START), text.find(TABLE_END)) else { panic!("fuzz/README.md lost its table markers") };
    let want = format!("{}{TABLE_START}{}{}", &text[..a], target_table(), &text[b..]);
    if text != want {
        assert!(std::env::var_os("RACEFUZZ_BLESS").is_some(), "fuzz/README.md's target table is not the registry's; run RACEFUZZ_BLESS=1 cargo test --test integration extending");
        std::fs::write(&path, &want).unwrap();
    }
    let rows = want.lines().filter(|l| l.starts_with("| `")).count();
    assert_eq!(rows, Registry::builtin().all().len() + 2, "one row per oracle target, plus parse and explore");
}

/// Every oracle's fuzz target is the template with its id, `fuzz/Cargo.toml` declares
/// exactly those after the hand-written ones, and no target is left of a removed oracle.
/// With `RACEFUZZ_BLESS=1` it writes what it expects instead of failing.
#[test]
fn fuzz_targets_are_generated_from_the_registry() {
    let fuzz = root().join("fuzz");
    let bless = std::env::var_os("RACEFUZZ_BLESS").is_some();
    let check = |path: &Path, want: &str| {
        let have = std::fs::read_to_string(path).unwrap_or_default();
        if have == want {
            return;
        }
        if bless {
            std::fs::write(path, want).unwrap();
        } else {
            panic!("{} is not what the registry generates; run RACEFUZZ_BLESS=1 cargo test --test integration extending", path.display());
        }
    };
    let current = std::fs::read_to_string(fuzz.join("Cargo.toml")).unwrap();
    assert!(current.contains(GENERATED), "fuzz/Cargo.toml lost its marker line");
    check(&fuzz.join("Cargo.toml"), &manifest(&current));
    let mut expected: Vec<String> = vec!["parse.rs".into(), "explore.rs".into()];
    for o in Registry::builtin().all() {
        let file = format!("{}.rs", target_name(o.id));
        check(&fuzz.join("fuzz_targets").join(&file), &fuzz_target(o.id));
        expected.push(file);
    }
    let mut present: Vec<String> = std::fs::read_dir(fuzz.join("fuzz_targets")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    present.sort();
    expected.sort();
    assert_eq!(present, expected, "fuzz/fuzz_targets holds a target of no oracle (or lacks one)");
}
