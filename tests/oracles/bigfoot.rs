//! `bigfoot-precise`, through the oracle registry: the paper's BigFoot figures (with their
//! hand-placed checks, plus the per-access placer's) judged on every interleaving, as a
//! snapshot of verdicts, check ratios and racy locations; and every seeded bug of the
//! per-access placer caught within a fixed budget of generated programs.

use std::path::Path;

use race_oracles::lang::parse;
use race_oracles::theorems::{Registry, Verdict};
use racefuzz::render;
use racefuzz::suts::{self, Subject};

#[test]
fn paper_figures_keep_precise_checks() {
    let o = *Registry::builtin().find("bigfoot-precise").unwrap();
    let s = Subject::for_oracle(&o, None).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paper/bigfoot");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let mut text = String::new();
    let mut passed = 0;
    for f in &files {
        let p = parse(&std::fs::read_to_string(f).unwrap()).unwrap();
        let r = suts::check(&o, &p, &s, suts::campaign_bounds());
        assert_ne!(r.verdict, Verdict::Fail, "{}", render::result_brief(&r));
        passed += usize::from(r.verdict == Verdict::Pass);
        text.push_str(&render::result_full(&r, &f.file_name().unwrap().to_string_lossy()));
        text.push('\n');
    }
    assert!(passed >= 5, "only {passed} figures conclusive");
    insta::assert_snapshot!(text);
}

#[test]
fn per_access_mutants_are_caught_as_predicted() {
    let (table, wrong, caught) = super::judge_mutants("per-access", 600, (13, 8, 40), (26, 16));
    assert!(wrong.is_empty(), "{}\n\n{table}", wrong.join("\n"));
    assert!(caught >= 3, "only {caught} caught\n{table}");
    insta::assert_snapshot!(table);
}
