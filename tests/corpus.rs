//! Every program of the curated corpus (`corpus/paper`, `corpus/negative`; never a
//! campaign's findings): its ground truth equals the expectation in its header (taken from
//! the spec), and the whole explorer output, witness included, is a snapshot.

use std::path::Path;

use race_oracles::explore::{ground_truth, Config};
use race_oracles::lang::{parse, validate_relaxed, Dialect};
use racefuzz::corpus::{expectations, race_files, relax, CURATED};

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
        let text: String = runs.iter().map(racefuzz::render::run).collect::<Vec<_>>().join("\n");
        let name = f.strip_prefix(root().join("corpus")).unwrap().with_extension("").display().to_string().replace('/', "__");
        insta::assert_snapshot!(name, text);
    }
    assert!(checked >= 30, "only {checked} expectations checked");
}
