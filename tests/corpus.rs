//! Every program of the curated corpus (`corpus/paper`, `corpus/negative`; never a
//! campaign's findings): its ground truth equals the expectation in its header (taken from
//! the spec), and the whole explorer output, witness included, is a snapshot.

use std::path::Path;

use race_oracles::explore::Config;
use race_oracles::lang::{parse, validate_relaxed, Dialect};
use race_oracles::truth::ground_truth;
use racefuzz::analyses::racerdx::RacerDx;
use racefuzz::corpus::{expectations, race_files, relax, report_expectations, report_mismatches, CURATED};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn corpus_matches_the_spec_and_snapshots() {
    let files: Vec<_> = CURATED.iter().flat_map(|d| race_files(&root().join(d))).collect();
    for dir in ["paper/racerdx", "paper/bigfoot", "paper/escape", "negative/racerdx"] {
        assert!(files.iter().any(|f| f.parent().is_some_and(|p| p.ends_with(dir))), "corpus/{dir} is empty");
    }
    let mut checked = 0;
    let mut reports_pinned = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let prog = parse(&src).unwrap_or_else(|e| panic!("{}", e.render(&f.display().to_string())));
        validate_relaxed(&prog, relax(&src).unwrap()).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let exps = expectations(&src).unwrap();
        assert!(!exps.is_empty(), "{} states no `// expect:`", f.display());
        let runs = ground_truth(&prog, &Config::default(), None).unwrap();
        for e in &exps {
            let run = runs
                .iter()
                .find(|r| match &e.pair {
                    None => r.setup == "threads",
                    Some((a, b)) => r.setup == format!("{a} ∥ {b}") || (prog.dialect == Dialect::RacerDx && r.setup == format!("{b} ∥ {a}")),
                })
                .unwrap_or_else(|| panic!("{}:{}: no such run", f.display(), e.line));
            assert!(run.executions.complete, "{}: {} incomplete", f.display(), run.setup);
            assert_eq!(run.racy_addresses, e.racy_addresses, "{}:{}: {}", f.display(), e.line, run.setup);
            checked += 1;
        }
        if prog.dialect == Dialect::RacerDx && report_expectations(&src).unwrap().is_some() {
            let mismatches = report_mismatches(&src, &prog, &RacerDx::default()).unwrap();
            assert!(mismatches.is_empty(), "{}:\n{}", f.display(), mismatches.join("\n"));
            reports_pinned += 1;
        }
        let text: String = runs.iter().map(racefuzz::render::run).collect::<Vec<_>>().join("\n");
        let name = f.strip_prefix(root().join("corpus")).unwrap().with_extension("").display().to_string().replace('/', "__");
        insta::assert_snapshot!(name, text);
    }
    assert!(checked >= 30, "only {checked} expectations checked");
    assert!(reports_pinned >= 7, "only {reports_pinned} files pin RacerDX's reports");
}

/// The pinned reports catch analyses that report too little or too much, independently of
/// any generator: each of these seeded bugs misses or adds a report on some paper program.
#[test]
fn pinned_reports_catch_report_bugs() {
    let files: Vec<_> = CURATED.iter().flat_map(|d| race_files(&root().join(d))).collect();
    for mutant in ["reports-nothing", "drop-0-1-pairs", "no-self-pairs", "write-write-only", "stability-non-strict", "no-stability-filter"] {
        let (opts, _) = racefuzz::analyses::racerdx::options(&[mutant]).unwrap();
        let a = RacerDx::new(opts);
        let caught: Vec<String> = files
            .iter()
            .filter_map(|f| {
                let src = std::fs::read_to_string(f).unwrap();
                let prog = parse(&src).unwrap();
                (prog.dialect == Dialect::RacerDx).then(|| report_mismatches(&src, &prog, &a).unwrap()).filter(|m| !m.is_empty()).map(|m| format!("{}: {}", f.display(), m[0]))
            })
            .collect();
        assert!(!caught.is_empty(), "{mutant}: no pinned report differs");
    }
}
